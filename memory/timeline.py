"""Time travel and browsing: what was valid at a moment, what changed between two, memory listings."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from .clock import ensure_utc, utc_now
from .model import MemoryUnit, Recollection
from .store import MEMORY_COLUMNS, db_time, memory_from_row

if TYPE_CHECKING:
    from .engram import Engram

VALID_AT_SQL = """recorded_at <= ? AND valid_from <= ? AND (valid_until IS NULL OR valid_until > ?)
                  AND (superseded_at IS NULL OR superseded_at > ?)"""


@dataclass
class Change:
    kind: str  # added | superseded | expired
    unit: Recollection


def _units(eng: "Engram", where: str, params: list, limit: int) -> list[MemoryUnit]:
    rows = eng.store.query_dicts(
        f"SELECT {', '.join(MEMORY_COLUMNS)} FROM memories WHERE {where} ORDER BY valid_from DESC LIMIT ?",
        params + [limit],
    )
    units = [memory_from_row(r) for r in rows]
    return list(eng.store.memories_by_id([u.id for u in units]).values()) if units else []


def _as_recollections(eng: "Engram", units: list[MemoryUnit], valid: bool = True) -> list[Recollection]:
    return [Recollection(unit=u, score=u.relevance, provenance=eng.provenance(u), valid=valid) for u in units]


def valid_at(eng: "Engram", as_of: datetime, *, query: str | None = None, k: int = 50,
             include_turns: bool = False) -> list[Recollection]:
    """Memories valid at `as_of`: recalled for `query`, or the most recent ones without a query."""
    as_of = ensure_utc(as_of)
    if query:
        types = None if include_turns else ("user_profile", "session_state", "tool_result", "fact_reference")
        return eng.recall(query, as_of=as_of, k=k, types=types).results
    t = db_time(as_of)
    turns = "" if include_turns else " AND type <> 'chat_turn'"
    units = _units(eng, VALID_AT_SQL + " AND NOT archived" + turns, [t, t, t, t], k)
    return sorted(_as_recollections(eng, units), key=lambda r: r.unit.valid_from, reverse=True)


def diff(eng: "Engram", start: datetime, end: datetime, *, limit: int = 200) -> list[Change]:
    """What changed between two moments: memories added, superseded and expired, each with its source."""
    a, b = db_time(ensure_utc(start)), db_time(ensure_utc(end))
    kinds = {
        "added": ("type <> 'chat_turn' AND recorded_at > ? AND recorded_at <= ?", [a, b]),
        "superseded": ("superseded_at > ? AND superseded_at <= ?", [a, b]),
        "expired": ("superseded_at IS NULL AND valid_until > ? AND valid_until <= ?", [a, b]),
    }
    changes = []
    for kind, (where, params) in kinds.items():
        for rec in _as_recollections(eng, _units(eng, where, params, limit), valid=kind == "added"):
            changes.append(Change(kind, rec))
    return changes


def expiring_soon(eng: "Engram", within: timedelta = timedelta(days=7), limit: int = 50) -> list[Recollection]:
    now = utc_now()
    units = _units(eng, "valid_until > ? AND valid_until <= ? AND superseded_at IS NULL AND NOT archived",
                   [db_time(now), db_time(now + within)], limit)
    return _as_recollections(eng, units)


def list_memories(eng: "Engram", *, text: str | None = None, types: list[str] | None = None,
                  state: str = "all", limit: int = 200, offset: int = 0) -> list[MemoryUnit]:
    """Browse memories: filter by words in the content, type and state (valid/superseded/expired/archived)."""
    where, params = ["1 = 1"], []
    if text:
        where.append("content ILIKE ?")
        params.append(f"%{text}%")
    if types:
        where.append("type IN (SELECT unnest(?))")
        params.append(list(types))
    now = db_time(utc_now())
    states = {
        "valid": ("NOT archived AND superseded_at IS NULL AND (valid_until IS NULL OR valid_until > ?)", [now]),
        "superseded": ("superseded_at IS NOT NULL", []),
        "expired": ("superseded_at IS NULL AND valid_until <= ?", [now]),
        "archived": ("archived", []),
    }
    if state in states:
        clause, extra = states[state]
        where.append(clause)
        params += extra
    rows = eng.store.query_dicts(
        f"SELECT {', '.join(MEMORY_COLUMNS)} FROM memories WHERE {' AND '.join(where)} "
        "ORDER BY recorded_at DESC, id DESC LIMIT ? OFFSET ?",
        params + [limit, offset],
    )
    return [memory_from_row(r) for r in rows]
