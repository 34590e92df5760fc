"""Shared pytest fixtures."""
from collections.abc import Iterator

import pytest

from tests.fixtures.fake_ollama import FakeOllama


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    """A running fake Ollama on 127.0.0.1; configure it by setting attributes (see FakeOllama)."""
    with FakeOllama() as server:
        yield server


@pytest.fixture(autouse=True)
def engram_home(tmp_path, monkeypatch):
    """Every test gets its own data folder; nothing touches ~/.engram."""
    home = tmp_path / "engram-home"
    monkeypatch.setenv("ENGRAM_HOME", str(home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for name in ("ENGRAM_VAULT", "ENGRAM_OLLAMA_URL", "OLLAMA_HOST", "ENGRAM_MODEL", "ENGRAM_EMBEDDER"):
        monkeypatch.delenv(name, raising=False)
    return home
