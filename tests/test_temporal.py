from datetime import datetime, timedelta, timezone

from memory.model import MemoryUnit
from memory.temporal import (
    RELEVANCE_MAX, RELEVANCE_MIN, adjust_relevance, default_valid_until, recency_weight, same_value,
    supersede, true_at,
)

UTC = timezone.utc
MARCH = datetime(2026, 3, 1, tzinfo=UTC)
APRIL = datetime(2026, 4, 15, tzinfo=UTC)
MAY = datetime(2026, 5, 1, tzinfo=UTC)


def unit(content: str, at: datetime, **kw) -> MemoryUnit:
    return MemoryUnit(content=content, type="user_profile", valid_from=at, recorded_at=at, **kw)


def test_supersede_closes_old_interval_and_keeps_both():
    old = unit("drinks Americano", MARCH, id=1)
    new = unit("drinks oat latte", MAY, id=2)
    closed = supersede(old, new)
    assert closed.valid_until == MAY and closed.superseded_at == MAY and closed.superseded_by == 2
    assert true_at(closed, APRIL) and not true_at(closed, MAY + timedelta(days=1))
    assert not true_at(new, APRIL) and true_at(new, MAY)
    assert old.superseded_by is None  # pure: the original value is untouched


def test_valid_at_respects_both_clocks():
    learned_late = MemoryUnit(content="x", type="user_profile", valid_from=MARCH, recorded_at=MAY)
    assert not true_at(learned_late, APRIL)  # true in the world then, but not yet known
    assert true_at(learned_late, MAY)


def test_relevance_is_bounded():
    assert adjust_relevance(1.95, 0.1) == RELEVANCE_MAX
    assert adjust_relevance(0.2, -0.3) == RELEVANCE_MIN
    assert adjust_relevance(1.0, 0.1) == 1.1


def test_ttl_by_type():
    assert default_valid_until("session_state", MARCH) == MARCH + timedelta(minutes=30)
    assert default_valid_until("tool_result", MARCH) == MARCH + timedelta(hours=24)
    assert default_valid_until("user_profile", MARCH) is None


def test_same_value_and_recency():
    assert same_value("Oat latte", "oat-latte") and not same_value("latte", "americano")
    assert recency_weight(MAY, MAY) == 1.0
    assert 0.8 <= recency_weight(MARCH - timedelta(days=3650), MAY) < 0.81
