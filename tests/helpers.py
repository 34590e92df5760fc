"""Small builders shared by tests (real DuckDB, real spaCy; the hashing embedder for speed)."""
from __future__ import annotations

from datetime import datetime, timezone

from memory import Engram
from memory.embed import HashingEmbedder

UTC = timezone.utc


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def open_engram(home=None, **kw) -> Engram:
    """A file-backed store in the test's ENGRAM_HOME with the fast hashing embedder."""
    return Engram(home, embedder=kw.pop("embedder", HashingEmbedder()), **kw)
