"""Pure time logic: validity at a moment, supersession, TTLs, relevance bounds. No database."""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Callable, Mapping

import numpy as np

from .clock import ensure_utc, utc_now
from .model import MemoryUnit

TTL_BY_TYPE: dict[str, timedelta | None] = {
    "session_state": timedelta(minutes=30),
    "tool_result": timedelta(hours=24),
    "user_profile": None,
    "fact_reference": None,  # valid while its source is unchanged
    "chat_turn": None,
}
SESSION_STATE_EXTENDED_TTL = timedelta(hours=24)
CONSECUTIVE_MENTIONS_FOR_EXTENSION = 3

RELEVANCE_MIN, RELEVANCE_MAX = 0.1, 2.0
RELEVANCE_USED, RELEVANCE_WRONG = 0.1, -0.3
RECENCY_HALF_LIFE_DAYS = 365.0
RECENCY_FLOOR = 0.8  # recency can lower a score by at most 20 %


def default_valid_until(type_: str, valid_from: datetime) -> datetime | None:
    ttl = TTL_BY_TYPE.get(type_)
    return ensure_utc(valid_from) + ttl if ttl else None


# ---------------------------------------------------------------- the one time rule
@dataclass(frozen=True)
class Clause:
    """`field op moment`, e.g. valid_until > as_of. A NULL field satisfies its clause (an open end)."""

    field: str
    op: str  # "<=" or ">"
    moment: str  # the name of the moment compared with


@dataclass(frozen=True)
class TimeRule:
    """A conjunction of clauses, evaluated the same way on units, attribute dicts, numpy columns and SQL."""

    clauses: tuple[Clause, ...]

    def holds(self, get: Callable[[str], datetime | None], **moments: datetime) -> bool:
        """True when every clause holds; `get(field)` reads one time field (None = open)."""
        for clause in self.clauses:
            value = get(clause.field)
            if value is None:
                continue
            moment = ensure_utc(moments[clause.moment])
            if not _OPS[clause.op](ensure_utc(value), moment):
                return False
        return True

    def mask(self, columns: Mapping[str, np.ndarray], **moments: float) -> np.ndarray:
        """Rows of epoch-second columns where the rule holds (open ends are stored as ±inf)."""
        keep = None
        for clause in self.clauses:
            column = columns.get(clause.field)
            if column is None:
                continue
            part = _OPS[clause.op](column, moments[clause.moment])
            keep = part if keep is None else keep & part
        return keep

    def sql(self, alias: str = "", **moments: datetime) -> tuple[str, list]:
        """The rule as a SQL predicate over naive-UTC TIMESTAMP columns, with its parameters."""
        prefix = f"{alias}." if alias else ""
        parts, params = [], []
        for clause in self.clauses:
            column = prefix + clause.field
            parts.append(f"({column} IS NULL OR {column} {clause.op} ?)")
            params.append(ensure_utc(moments[clause.moment]).replace(tzinfo=None))
        return " AND ".join(parts), params


_OPS: dict[str, Callable] = {"<=": operator.le, ">": operator.gt}

#: World time (SPEC §3.2): true at `as_of` by everything Engram knows at `known` — its world interval
#: holds then, and no correction had replaced the record by `known` (now, unless asking the past).
TRUE_AT = TimeRule((
    Clause("valid_from", "<=", "as_of"),
    Clause("valid_until", ">", "as_of"),
    Clause("superseded_at", ">", "known"),
))

#: System time: what Engram had recorded by `by` (and not yet corrected by then).
RECORDED_BY = TimeRule((
    Clause("recorded_at", "<=", "by"),
    Clause("superseded_at", ">", "by"),
))


def true_at(item: MemoryUnit | Mapping, as_of: datetime, *, recorded_by: datetime | None = None) -> bool:
    """The time rule on a memory unit, or on a dict of its time fields (graph nodes and edges).

    With `recorded_by`, only what Engram had recorded by then counts (the system clock)."""
    # a plain dict (a graph node's or edge's fields) first: typing's Mapping check costs more than the rule
    get = item.get if type(item) is dict or isinstance(item, Mapping) else (lambda name: getattr(item, name, None))
    if recorded_by is None:
        return TRUE_AT.holds(get, as_of=as_of, known=utc_now())
    return TRUE_AT.holds(get, as_of=as_of, known=recorded_by) and RECORDED_BY.holds(get, by=recorded_by)


def true_at_sql(as_of: datetime, alias: str = "", *, recorded_by: datetime | None = None) -> tuple[str, list]:
    if recorded_by is None:
        return TRUE_AT.sql(alias, as_of=as_of, known=utc_now())
    world, params = TRUE_AT.sql(alias, as_of=as_of, known=recorded_by)
    system, more = RECORDED_BY.sql(alias, by=recorded_by)
    return f"{world} AND {system}", params + more


def true_at_mask(columns: Mapping[str, np.ndarray], as_of: float, *, recorded_by: float | None = None,
                 now: float | None = None) -> np.ndarray:
    """The time rule over epoch-second columns (`now` defaults to the current time)."""
    if recorded_by is None:
        return TRUE_AT.mask(columns, as_of=as_of, known=utc_now().timestamp() if now is None else now)
    return (TRUE_AT.mask(columns, as_of=as_of, known=recorded_by)
            & RECORDED_BY.mask(columns, by=recorded_by))


def supersede(old: MemoryUnit, new: MemoryUnit) -> MemoryUnit:
    """A change in the world: `old` holds until `new` begins and points to it; both stay true in their time."""
    until = new.valid_from if old.valid_until is None else min(old.valid_until, new.valid_from)
    return replace(old, valid_until=max(until, old.valid_from), superseded_by=new.id)


def correct(old: MemoryUnit, new_id: int | None, at: datetime) -> MemoryUnit:
    """A correction of the record: from `at` on, `old` is no longer what Engram holds (system time)."""
    return replace(old, superseded_at=ensure_utc(at), superseded_by=new_id)


def state_label(unit: MemoryUnit, as_of: datetime, *, valid: bool) -> str:
    """How a memory stands at `as_of`, in words: valid, corrected, history (with its interval), or not yet."""
    if valid:
        return "valid"
    successor = f" by m:{unit.superseded_by}" if unit.superseded_by is not None else ""
    if unit.superseded_at is not None and unit.superseded_at <= ensure_utc(as_of):
        return f"corrected{successor}"
    if unit.valid_from > ensure_utc(as_of):
        return f"not yet (from {unit.valid_from:%Y-%m-%d})"
    if unit.valid_until is not None:
        then = f", then m:{unit.superseded_by}" if unit.superseded_by is not None else ""
        return f"history ({unit.valid_from:%Y-%m-%d} to {unit.valid_until:%Y-%m-%d}{then})"
    return "not valid"


@dataclass
class Placement:
    """Where a new slot value goes in the slot's timeline (entries are the caller's handles)."""

    confirms: object | None = None  # the entry the new value restates (nothing to store)
    closes: object | None = None  # the entry that held the slot when the new value began
    next: object | None = None  # the first entry that begins after it (it closes the new value)


def place(timeline: list[tuple[MemoryUnit, object]], new: MemoryUnit) -> Placement:
    """Put `new` into a slot's timeline of (unit, handle) pairs sorted by valid_from.

    The value holding the slot when `new` begins (the latest still open then) is closed at that moment
    (unless it says the same thing: a confirmation); a value that begins later than `new` closes `new` in
    turn. An entry closed as it begins (an ending of something the slot did not hold, "I quit Twitter"
    while at Deloitte: `MessageWriter.place`) holds the slot for no moment."""
    start = ensure_utc(new.valid_from)
    holding = [(u, h) for u, h in timeline if ensure_utc(u.valid_from) <= start
               and (u.valid_until is None or ensure_utc(u.valid_until) > start)]
    after = [(u, h) for u, h in timeline if ensure_utc(u.valid_from) > start]
    placement = Placement(next=after[0][1] if after else None)
    if holding:
        unit, handle = holding[-1]
        if same_value(unit.value, new.value):
            placement.confirms = handle
        else:
            placement.closes = handle
    return placement


def same_value(a: str | None, b: str | None) -> bool:
    """A restated value is a confirmation, not an update."""
    def norm(v: str | None) -> str:
        return "".join(ch for ch in (v or "").casefold() if ch.isalnum())
    return bool(a) and norm(a) == norm(b)


def adjust_relevance(current: float, delta: float) -> float:
    return round(min(RELEVANCE_MAX, max(RELEVANCE_MIN, current + delta)), 6)


def recency_weight(at: datetime | None, as_of: datetime) -> float:
    """1.0 for fresh memories, sliding towards RECENCY_FLOOR as they age."""
    if at is None:
        return 1.0
    return recency_of_age(max(0.0, (ensure_utc(as_of) - ensure_utc(at)).total_seconds() / 86400.0))


def recency_of_age(age_days: float) -> float:
    """`recency_weight` of a memory `age_days` old (not negative)."""
    decay = math.exp(-math.log(2) * age_days / RECENCY_HALF_LIFE_DAYS)
    return RECENCY_FLOOR + (1.0 - RECENCY_FLOOR) * decay
