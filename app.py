"""Engram — the browser app. `streamlit run app.py`"""
import streamlit as st

st.set_page_config(page_title="Engram", page_icon="🧠", layout="wide")
st.title("Engram")
st.write(
    "Your personal memory: it links your Obsidian vault and your chats, remembers across sessions, "
    "knows what was true when, and shows where every memory came from. "
    "The chat, graph, time-travel and freshness pages are being built; the memory core works today "
    "from the command line: `python -m memory --help`."
)
