"""Where a memory came from: its source row (cached by id), as the CLI's and pages' `source` object."""
from __future__ import annotations

from typing import Iterable

from .model import MemoryUnit, Provenance, Source
from .store import Store


class ProvenanceLookup:
    """`lookup(unit)` → Provenance; the source rows are cached until a change touches them."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._sources: dict[int, Source] = {}

    def __call__(self, unit: MemoryUnit) -> Provenance:
        source = self._source(unit.source_id) if unit.source_id is not None else None
        if source is None:
            return Provenance(kind="none", message_id=unit.message_id, at=unit.valid_from)
        lines = [unit.line_start, unit.line_end] if unit.line_start is not None else None
        return Provenance(kind=source.kind, ref=source.ref, lines=lines, message_id=unit.message_id,
                          at=unit.valid_from)

    def _source(self, source_id: int) -> Source | None:
        source = self._sources.get(source_id)
        if source is None:
            source = self.store.sources_by_id([source_id]).get(source_id)
            if source is not None:
                self._sources[source_id] = source
        return source

    def forget(self, source_ids: Iterable[int]) -> None:
        for source_id in source_ids:
            self._sources.pop(source_id, None)
