"""Shared pytest fixtures."""
from collections.abc import Iterator

import pytest

from tests.fixtures.fake_ollama import FakeOllama


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    """A running fake Ollama on 127.0.0.1; configure it by setting attributes (see FakeOllama)."""
    with FakeOllama() as server:
        yield server


@pytest.fixture(scope="session")
def minilm():
    """The local MiniLM embedder (its runtime loads once per process)."""
    from memory.embed import LocalMiniLM

    return LocalMiniLM()


@pytest.fixture
def minilm_engram(minilm):
    """A store in the test's ENGRAM_HOME that embeds with MiniLM, closed after the test."""
    from tests.helpers import open_engram

    engram = open_engram(embedder=minilm)
    yield engram
    engram.close()


@pytest.fixture(autouse=True)
def engram_home(tmp_path, monkeypatch):
    """Every test gets its own data folder; nothing touches ~/.engram."""
    home = tmp_path / "engram-home"
    monkeypatch.setenv("ENGRAM_HOME", str(home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for name in ("ENGRAM_VAULT", "ENGRAM_OLLAMA_URL", "OLLAMA_HOST", "ENGRAM_MODEL", "ENGRAM_EMBEDDER"):
        monkeypatch.delenv(name, raising=False)
    return home


# The longest files (pytest --durations=120, Dec 2026), started first: with `-n auto --dist loadfile
# --no-loadscope-reorder` (scripts/test.sh) each file runs on one worker, in this order, and a long file
# picked up last would keep the other workers idle.
LONGEST_FIRST = ("test_one_store.py", "test_limits.py", "test_kill_loop.py", "test_cli.py", "test_browser.py",
                 "test_secrets_everywhere.py", "test_embed.py", "test_recovery.py", "test_robustness.py",
                 "test_vault_kill.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest files first; every other file, and the tests inside each file, keep their order."""
    rank = {name: n for n, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
