"""Which known entities a text names, and how each is shown: every entity's name and aliases, in memory.

Recall asks this of every question (the name rule), and shows the entities of every memory it returns. The store
builds the table from its entities once and drops it when entities change, so a question costs a pass over its
own characters, not a query over every name, and a result's entities a lookup, not a join over every entity.
"""
from __future__ import annotations

import re
from collections.abc import Iterable

from .latin import fold_latin

#: entities whose names say a date or an amount, not who or what a question is about
UNNAMED_LABELS = frozenset({"DATE", "MONEY"})
_HAN = re.compile("[\u4e00-\u9fff]")


def long_enough(said: str) -> bool:
    """Names of three characters or more, or two Chinese ones: shorter ones occur inside too many words."""
    return len(said) >= 3 or (len(said) >= 2 and _HAN.search(said) is not None)


class EntityNames:
    """Each name and alias, lower-cased and folded ("José" as "jose"), filed under its first two characters."""

    def __init__(self, rows: Iterable[tuple[int, str, str | None, list[str] | None, str | None]]) -> None:
        """`rows`: (entity id, name, label, aliases, qualifier)."""
        self._by_start: dict[str, list[tuple[str, int, str]]] = {}
        self._shown: dict[int, str] = {}
        for entity_id, name, label, aliases, qualifier in rows:
            self._shown[entity_id] = name if qualifier is None else f"{name}@{qualifier}"
            if label is None or label in UNNAMED_LABELS:
                continue
            for said in dict.fromkeys([name, *(aliases or ())]):
                if said and long_enough(said):
                    lowered = fold_latin(said.lower())
                    self._by_start.setdefault(lowered[:2], []).append((lowered, entity_id, name))

    def shown(self, entity_id: int) -> str | None:
        """How an entity is shown: its name, with its qualifier after an @ ("Paris@Texas"); None if unknown."""
        return self._shown.get(entity_id)

    def named_in(self, text: str) -> list[tuple[int, str]]:
        """(id, name) of the entities whose name or an alias occurs anywhere in `text`, ignoring case and marks
        on Latin letters, by id."""
        lowered = fold_latin(text.lower())
        found: set[tuple[int, str]] = set()
        for at in range(len(lowered) - 1):
            for said, entity_id, name in self._by_start.get(lowered[at:at + 2], ()):
                if lowered.startswith(said, at):
                    found.add((entity_id, name))
        return sorted(found)
