"""Entities and memory units from text (regex rules, known names, spaCy NER) and search tokens.

One module per concern: `entities` (spans), `facts` (memory rules), `compress`, `search_tokens`;
`han` holds the Han script ranges and the Chinese word segmenter (rjieba: jieba's words) they share.
"""
from __future__ import annotations

from datetime import datetime
from typing import Iterable

from ..model import ExtractedEntity, ExtractedMemory
from .compress import compress
from .entities import KnownNames, find_entities, prefetch_entities
from .search_tokens import tokenize_for_search

__all__ = ["Extractor", "compress", "is_question", "prefetch_entities", "statement_part", "tokenize_for_search"]


# `facts` (and the attribute lexicons it uses) compile some hundred patterns: it is imported where a message is
# read for statements, so a command that only recalls never compiles them.
def is_question(text: str) -> bool:
    """Whether a message asks rather than tells (see `facts.is_question`)."""
    from .facts import is_question as asks

    return asks(text)


PIECE_CHARS = 50_000  # spaCy refuses texts over 1,000,000 characters and slows down long before
NER_CHARS = 100_000  # statistical NER reads this much of a long text
FACT_CHARS = 200_000


def pieces(text: str, limit: int) -> list[tuple[int, int]]:
    """(start, end) pieces of at most `limit` characters, cut after a line, a sentence or a space."""
    out, start = [], 0
    while len(text) - start > limit:
        window = text[start : start + limit]
        cut = max(window.rfind("\n"), window.rfind(". "), window.rfind("。"))
        if cut < limit // 2:
            cut = window.rfind(" ")
        cut = start + (cut + 1 if cut >= limit // 2 else limit)
        out.append((start, cut))
        start = cut
    out.append((start, len(text)))
    return out


def statement_part(text: str) -> str:
    """The part of a message read for what the user says of themselves: all of it, or the first FACT_CHARS of a very
    long one (a pasted document is searchable by its words, not a list of things the user said about themselves)."""
    return text if len(text) <= FACT_CHARS else text[: pieces(text, FACT_CHARS)[0][1]]


class Extractor:
    """Finds entities and memory units in text; spaCy pipelines are shared and loaded on first use."""

    def __init__(self) -> None:
        self._known = KnownNames()

    def add_known(self, names: Iterable[str], label: str = "NOTE") -> None:
        """Teach names (note titles, aliases, tags, people) found verbatim, also inside Chinese text."""
        self._known.add(names, label)

    def prefetch(self, texts: Iterable[str]) -> None:
        """Batch the slow NER step for texts about to be passed to `entities` (the same pieces it reads)."""
        prefetch_entities(text[start:end] for text in texts if text
                          for start, end in (pieces(text, PIECE_CHARS) if len(text) > PIECE_CHARS else [(0, len(text))])
                          if start < NER_CHARS)

    def entities(self, text: str, *, statistical: bool = True) -> list[ExtractedEntity]:
        """Entities in text order; overlaps resolved as rules > known names > titles > NER.

        `statistical=False` skips spaCy's NER model (the slow part) and keeps rules and known names.
        """
        if not text or not text.strip():
            return []
        if len(text) <= PIECE_CHARS:
            return find_entities(text, self._known, statistical=statistical)
        found: list[ExtractedEntity] = []  # a long text, in pieces spaCy can take; NER reads the start only
        for start, end in pieces(text, PIECE_CHARS):
            for entity in find_entities(text[start:end], self._known, statistical=statistical and start < NER_CHARS):
                entity.start, entity.end = entity.start + start, entity.end + start
                found.append(entity)
        return found

    def memories(self, text: str, role: str = "user", at: datetime | None = None) -> list[ExtractedMemory]:
        """Memory units stated by the user in a chat message; questions and other roles give none.

        Only its `statement_part` is read. Relative date words ("two weeks ago", "上个月") resolve against `at`, the
        message's time."""
        if role != "user" or not text or not text.strip():
            return []
        text = statement_part(text)
        from .facts import find_statements, to_memories

        text = text.replace("’", "'").replace("‘", "'")
        found = find_statements(text, at)
        return to_memories(found, self.entities(text)) if found else []
