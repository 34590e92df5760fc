"""Time travel and browsing: what was valid at a moment, what changed between two, memory listings."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Callable

from .clock import ensure_utc, utc_now
from .model import MEMORY_TYPES, MemoryUnit, Provenance, Recollection, RecallResult
from .store import Store
from .temporal import true_at

ProvenanceOf = Callable[[MemoryUnit], Provenance]
Recall = Callable[..., RecallResult]  # recall(query, *, as_of, k, types)


@dataclass
class Change:
    kind: str  # added | superseded | expired
    unit: Recollection


def recollection(unit: MemoryUnit, provenance: ProvenanceOf, *, as_of: datetime | None = None) -> Recollection:
    """A stored unit as a Recollection, valid when it is not archived and true at `as_of` (default now)."""
    valid = not unit.archived and true_at(unit, as_of or utc_now())
    return Recollection(unit=unit, score=unit.relevance, provenance=provenance(unit), valid=valid)


def _as_recollections(units: list[MemoryUnit], provenance: ProvenanceOf, valid: bool = True) -> list[Recollection]:
    return [Recollection(unit=u, score=u.relevance, provenance=provenance(u), valid=valid) for u in units]


def valid_at(store: Store, provenance: ProvenanceOf, as_of: datetime, *, query: str | None = None,
             recall: Recall | None = None, k: int = 50, include_turns: bool = False,
             recorded_by: datetime | None = None) -> list[Recollection]:
    """Memories valid at `as_of`: recalled for `query`, or the most recent ones without a query. With
    `recorded_by`, only what Engram had recorded by then (system time)."""
    as_of = ensure_utc(as_of)
    if query:
        types = None if include_turns else MEMORY_TYPES
        return recall(query, as_of=as_of, k=k, types=types, recorded_by=recorded_by).results
    units = store.memories_true_at(as_of, include_turns=include_turns, limit=k, recorded_by=recorded_by)
    return sorted(_as_recollections(units, provenance), key=lambda r: r.unit.valid_from, reverse=True)


def diff(store: Store, provenance: ProvenanceOf, start: datetime, end: datetime, *,
         limit: int = 200) -> list[Change]:
    """What changed between two moments: memories added, superseded and expired, each with its source."""
    start, end = ensure_utc(start), ensure_utc(end)
    kinds = {
        "added": store.memories_begun_between,
        "superseded": store.memories_superseded_between,
        "expired": store.memories_expired_between,
    }
    changes = []
    for kind, read in kinds.items():
        for rec in _as_recollections(read(start, end, limit), provenance, valid=kind == "added"):
            changes.append(Change(kind, rec))
    return changes


def expiring_soon(store: Store, provenance: ProvenanceOf, within: timedelta = timedelta(days=7),
                  limit: int = 50) -> list[Recollection]:
    now = utc_now()
    return _as_recollections(store.memories_expiring(now, now + within, limit), provenance)


def list_memories(store: Store, *, text: str | None = None, types: list[str] | None = None,
                  state: str = "all", limit: int = 200, offset: int = 0) -> list[MemoryUnit]:
    """Browse memories: filter by words in the content, type and state (valid/superseded/expired/archived)."""
    return store.browse_memories(now=utc_now(), text=text, types=types, state=state, limit=limit, offset=offset)
