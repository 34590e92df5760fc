"""Chat: ask Engram; every answer shows the memories it used and where each came from.

The title and the input box are drawn before the memory opens (a new store, the index, the chat model take
a moment): a question typed meanwhile is kept and answered once it is open (ui/chat_page.py).
"""
from __future__ import annotations

import streamlit as st

from ui import shell

shell.inside_app()  # before anything is drawn: this page runs inside the app's frame

st.title("🧠 Engram")
if typed := st.chat_input("Ask Engram…"):
    st.session_state.chat_pending = typed  # kept until a run answers it: this one may stop before
opening = st.empty()
if not st.session_state.get("chat_opened"):  # this session's first view: the memory may not be open yet
    opening.caption("⏳ Opening your memory…")

from ui import chat_page  # noqa: E402  (after the box: it loads the store's modules)

chat_page.show(opening)
