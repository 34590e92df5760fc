"""Entities and memory units from text (regex rules, known names, spaCy NER) and search tokens.

One module per concern: `entities` (spans), `facts` (memory rules), `compress`, `search_tokens`;
`han` holds the Han script ranges and the jieba segmenter they share.
"""
from __future__ import annotations

from typing import Iterable

from ..model import ExtractedEntity, ExtractedMemory
from .compress import compress
from .entities import KnownNames, find_entities, prefetch_entities
from .facts import find_statements, is_question, to_memories
from .search_tokens import tokenize_for_search

__all__ = ["Extractor", "compress", "is_question", "prefetch_entities", "tokenize_for_search"]


class Extractor:
    """Finds entities and memory units in text; spaCy pipelines are shared and loaded on first use."""

    def __init__(self) -> None:
        self._known = KnownNames()

    def add_known(self, names: Iterable[str], label: str = "NOTE") -> None:
        """Teach names (note titles, aliases, tags, people) found verbatim, also inside Chinese text."""
        self._known.add(names, label)

    def prefetch(self, texts: Iterable[str]) -> None:
        """Batch the slow NER step for texts about to be passed to `entities`."""
        prefetch_entities(texts)

    def entities(self, text: str, *, statistical: bool = True) -> list[ExtractedEntity]:
        """Entities in text order; overlaps resolved as rules > known names > titles > NER.

        `statistical=False` skips spaCy's NER model (the slow part) and keeps rules and known names.
        """
        if not text or not text.strip():
            return []
        return find_entities(text, self._known, statistical=statistical)

    def memories(self, text: str, role: str = "user") -> list[ExtractedMemory]:
        """Memory units stated by the user in a chat message; questions and other roles give none."""
        if role != "user" or not text or not text.strip():
            return []
        text = text.replace("’", "'").replace("‘", "'")
        found = find_statements(text)
        return to_memories(found, self.entities(text)) if found else []
