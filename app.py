"""Engram — the browser app. Run: `streamlit run app.py`"""
import streamlit as st

st.set_page_config(page_title="Engram", page_icon="🧠", layout="wide")

PAGES = [
    st.Page("pages/chat.py", title="Chat", icon="💬", default=True),
    st.Page("pages/graph.py", title="Memory graph", icon="🕸️"),
    st.Page("pages/time_travel.py", title="Time travel", icon="⏳"),
    st.Page("pages/freshness.py", title="Freshness", icon="🌱"),
    st.Page("pages/profile.py", title="Profile", icon="🪪"),
    st.Page("pages/memories.py", title="Memories", icon="🗂️"),
    st.Page("pages/settings.py", title="Vault & settings", icon="⚙️"),
]

st.navigation(PAGES).run()
