"""Pure time logic: validity at a moment, supersession, TTLs, relevance bounds. No database."""
from __future__ import annotations

import math
from dataclasses import replace
from datetime import datetime, timedelta

from .clock import ensure_utc
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


def valid_at(unit: MemoryUnit, as_of: datetime) -> bool:
    """The SPEC's time filter: recorded by then, in its world interval, not yet superseded."""
    as_of = ensure_utc(as_of)
    return (
        unit.recorded_at <= as_of
        and unit.valid_from <= as_of
        and (unit.valid_until is None or unit.valid_until > as_of)
        and (unit.superseded_at is None or unit.superseded_at > as_of)
    )


def supersede(old: MemoryUnit, new: MemoryUnit) -> MemoryUnit:
    """Close `old` because `new` holds its slot now; both are kept."""
    until = new.valid_from if old.valid_until is None else min(old.valid_until, new.valid_from)
    return replace(old, valid_until=max(until, old.valid_from), superseded_at=new.recorded_at,
                   superseded_by=new.id)


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
    age_days = max(0.0, (ensure_utc(as_of) - ensure_utc(at)).total_seconds() / 86400.0)
    decay = math.exp(-math.log(2) * age_days / RECENCY_HALF_LIFE_DAYS)
    return RECENCY_FLOOR + (1.0 - RECENCY_FLOOR) * decay
