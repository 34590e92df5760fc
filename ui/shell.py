"""The app's frame: its pages, its own navigation and the wide layout — from any address, first load or not."""
from __future__ import annotations

import streamlit as st

# (script, title, icon); the first is the default page. Addresses come from the file names (/graph, …).
PAGES = (
    ("pages/chat.py", "Chat", "💬"),
    ("pages/graph.py", "Memory graph", "🕸️"),
    ("pages/time_travel.py", "Time travel", "⏳"),
    ("pages/freshness.py", "Freshness", "🌱"),
    ("pages/profile.py", "Profile", "🪪"),
    ("pages/memories.py", "Memories", "🗂️"),
    ("pages/settings.py", "Vault & settings", "⚙️"),
)


def run_app() -> None:
    """Lay out the app, draw its navigation in the sidebar and run the page the address names."""
    st.set_page_config(page_title="Engram", page_icon="🧠", layout="wide")
    pages = [st.Page(script, title=title, icon=icon, default=i == 0) for i, (script, title, icon) in enumerate(PAGES)]
    page = st.navigation(pages, position="hidden")
    with st.sidebar:
        for link in pages:
            st.page_link(link)
        st.divider()
    page.run()


def inside_app() -> None:
    """Make sure this page runs inside app.py's frame; call it first thing in every page script.

    A server with a top-level `pages/` folder starts in Streamlit's old folder mode: until app.py has run
    once, an address such as /graph runs pages/graph.py on its own (no layout, no navigation; the
    folder's own list is hidden by `client.showSidebarNavigation = false`). The first such run switches
    the process to app.py's `st.navigation` and reruns, which lands on the same page inside the frame.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False  # what st.navigation itself sets once app.py runs
        st.rerun()
