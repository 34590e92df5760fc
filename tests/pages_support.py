"""Shared by the AppTest page tests: a fresh process-wide cache per test and a page runner."""
from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 30


@pytest.fixture
def page_env(engram_home, monkeypatch):
    """Fast embedder, no Ollama unless a test sets one, and a cache that opens this test's ENGRAM_HOME."""
    monkeypatch.setenv("ENGRAM_EMBEDDER", "hash")
    monkeypatch.setenv("ENGRAM_OLLAMA_URL", f"http://127.0.0.1:{closed_port()}")
    st.cache_resource.clear()
    yield engram_home
    from ui import common

    if common.settings().vault_path:
        runner = common.vault_runner()
        if runner is not None:
            runner.ready.wait(30)
            runner.sync.stop()
    common.engram().close()
    st.cache_resource.clear()


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def page(name: str) -> AppTest:
    """An AppTest for one page script (pages are plain scripts under st.navigation)."""
    return AppTest.from_file(str(ROOT / "pages" / name), default_timeout=TIMEOUT)


def texts(elements) -> str:
    return "\n".join(str(e.value) for e in elements)

