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


def remember_daily(eng: Engram, texts: list[str], *, session_id: str | None = None) -> None:
    """Chat messages m0, m1, … from the user, one a day from 1 January 2025, each in a session of its own (or all in
    `session_id`'s, one conversation: each turn's context keys then hold the turns before it)."""
    for n, text in enumerate(texts):
        eng.remember(text, at=at(f"2025-01-{n + 1:02d}T09:00:00"), message_id=f"m{n}", session_id=session_id or f"s{n}")


def remember_months_apart(eng: Engram, texts: list[str]) -> None:
    """The user's messages three months apart from 10 January 2024: a move told as "last week" stays after the word
    before it."""
    for n, text in enumerate(texts):
        eng.remember(text, at=at(f"2024-{n * 3 + 1:02d}-10T09:00:00"))


def first_message_id(eng: Engram, question: str) -> str:
    """The message id of the first result, as of 1 February 2025."""
    return eng.recall(question, as_of=at("2025-02-01T00:00:00")).results[0].unit.message_id


# a moment after every message the chat-update tests write
AFTER_ALL = at("2025-06-01T00:00:00")


def results_after_all(eng: Engram, question: str) -> list:
    """What recall answers to `question` as of `AFTER_ALL`."""
    return eng.recall(question, as_of=AFTER_ALL).results


def check_latest_first_and_earlier_behind(eng: Engram, messages: list[str], question: str, first: str,
                                          left_behind: str, *, session_id: str | None = None) -> None:
    """Remember `messages` a day apart (in one conversation with `session_id`), ask `question`: the first result holds
    `first`, and the result holding `left_behind` is shown as no longer true."""
    remember_daily(eng, messages, session_id=session_id)
    found = results_after_all(eng, question)
    assert first in found[0].unit.content
    assert by_text(found, left_behind).valid is False


def by_text(found: list, text: str):
    """The first of the recollections `found` whose memory's text holds `text`."""
    return next(rec for rec in found if text in rec.unit.content)


def fact_after(found: list, n: int):
    """The fact read from the message at `found[n]`, which follows it (`recall._in_own_words`), or None."""
    said, after = found[n], found[n + 1] if n + 1 < len(found) else None
    if said.unit.type == "chat_turn" and after is not None and after.unit.type != "chat_turn" \
            and after.unit.event_id == said.unit.event_id:
        return after
    return None


def first_fact(found: list):
    """The fact a recall answers with: the first result when it is one; when the first is the user's message a fact
    was read from, that fact, which follows the message."""
    first = found[0]
    if first.unit.type != "chat_turn":
        return first
    fact = fact_after(found, 0)
    assert fact is not None, "no fact read from the first"
    assert fact.valid == first.valid
    return fact
