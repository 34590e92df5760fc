from dataclasses import replace
from datetime import datetime, timedelta, timezone

from memory.model import MemoryUnit
from memory.temporal import (
    RELEVANCE_MAX, RELEVANCE_MIN, adjust_relevance, correct, default_valid_until, place, recency_weight,
    same_value, supersede, true_at, true_at_mask, true_at_sql,
)

UTC = timezone.utc
MARCH = datetime(2026, 3, 1, tzinfo=UTC)
APRIL = datetime(2026, 4, 15, tzinfo=UTC)
MAY = datetime(2026, 5, 1, tzinfo=UTC)


def unit(content: str, at: datetime, **kw) -> MemoryUnit:
    return MemoryUnit(content=content, type="user_profile", valid_from=at, recorded_at=at, **kw)


def test_a_change_in_the_world_closes_the_old_interval_and_keeps_both():
    old = unit("drinks Americano", MARCH, id=1)
    new = unit("drinks oat latte", MAY, id=2)
    closed = supersede(old, new)
    assert closed.valid_until == MAY and closed.superseded_by == 2
    assert closed.superseded_at is None  # not a correction: the old value was true in its own time
    assert true_at(closed, APRIL) and not true_at(closed, MAY + timedelta(days=1))
    assert not true_at(new, APRIL) and true_at(new, MAY)
    assert old.superseded_by is None  # pure: the original value is untouched


def test_world_time_counts_what_is_known_now_and_the_system_clock_what_was_known_then():
    learned_late = MemoryUnit(content="x", type="user_profile", valid_from=MARCH, recorded_at=MAY)
    assert true_at(learned_late, APRIL)  # true in the world then, by what Engram knows now
    assert not true_at(learned_late, APRIL, recorded_by=APRIL)  # but Engram had not recorded it then
    assert true_at(learned_late, APRIL, recorded_by=MAY)


def test_a_correction_drops_the_record_from_answers_given_after_it():
    wrong = correct(unit("drinks tea", MARCH, id=1), 2, at=APRIL)
    assert not true_at(wrong, MARCH + timedelta(days=1))  # asked now: corrected, so never the answer
    assert true_at(wrong, MARCH + timedelta(days=1), recorded_by=MARCH + timedelta(days=2))  # what Engram held then


def test_the_rule_agrees_with_itself_on_units_numpy_and_sql():
    import duckdb
    import numpy as np

    units = [unit("a", MARCH), replace(unit("b", MARCH), valid_until=APRIL),
             correct(unit("c", MARCH), None, at=APRIL), unit("d", MAY), unit("e", MARCH - timedelta(days=40))]
    units[4] = replace(units[4], recorded_at=MAY)
    conn = duckdb.connect()
    conn.execute("CREATE TABLE m (i INT, valid_from TIMESTAMP, valid_until TIMESTAMP, recorded_at TIMESTAMP, "
                 "superseded_at TIMESTAMP)")
    naive = lambda t: t.replace(tzinfo=None) if t else None  # noqa: E731
    for i, u in enumerate(units):
        conn.execute("INSERT INTO m VALUES (?, ?, ?, ?, ?)",
                     [i, naive(u.valid_from), naive(u.valid_until), naive(u.recorded_at), naive(u.superseded_at)])
    columns = {name: np.array([(getattr(u, name) or (MAY.replace(year=2100) if name in ("valid_until", "superseded_at")
                                                       else MARCH.replace(year=1900))).timestamp() for u in units])
               for name in ("valid_from", "valid_until", "recorded_at", "superseded_at")}
    for moment in (MARCH, APRIL, MAY, MAY + timedelta(days=30)):
        for by in (None, APRIL, MAY):
            by_python = [i for i, u in enumerate(units) if true_at(u, moment, recorded_by=by)]
            rule, params = true_at_sql(moment, recorded_by=by)
            by_sql = [r[0] for r in conn.execute(f"SELECT i FROM m WHERE {rule} ORDER BY i", params).fetchall()]
            mask = true_at_mask(columns, moment.timestamp(), recorded_by=by.timestamp() if by else None)
            assert by_python == by_sql == [int(i) for i in np.flatnonzero(mask)], (moment, by)


def test_a_value_dated_in_the_future_leaves_todays_value_true_until_then():
    today = datetime.now(UTC)
    current = unit("lives in Lisbon", today - timedelta(days=30), id=1)
    later = MemoryUnit(content="lives on Mars", type="user_profile", valid_from=datetime(2099, 1, 1, tzinfo=UTC),
                       recorded_at=today, id=2)
    closed = supersede(current, later)
    assert true_at(closed, today) and not true_at(later, today)
    assert true_at(later, datetime(2099, 6, 1, tzinfo=UTC)) and not true_at(closed, datetime(2099, 6, 1, tzinfo=UTC))


def test_placing_a_value_in_a_slot_timeline():
    lisbon, porto = unit("Lisbon", MARCH, id=1, value="Lisbon"), unit("Porto", MAY, id=2, value="Porto")
    timeline = [(lisbon, "L"), (porto, "P")]
    between = place(timeline, unit("Braga", APRIL, value="Braga"))
    assert (between.closes, between.next, between.confirms) == ("L", "P", None)
    assert place(timeline, unit("lisbon!", APRIL, value="lisbon!")).confirms == "L"
    first = place(timeline, unit("York", MARCH - timedelta(days=5), value="York"))
    assert (first.closes, first.next) == (None, "L")


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


def test_a_value_replaced_at_the_instant_it_was_told_can_have_its_words_corrected(tmp_path):
    """Two messages of one minute (an imported chat) leave the first value an empty interval; editing its
    words keeps that interval, and only a new interval is checked."""
    import pytest

    from memory import Engram
    from memory.embed import make_embedder
    from memory.errors import BadInputError

    eng = Engram(tmp_path / "home", embedder=make_embedder("hash"))
    eng.remember("I live in Porto.", at=MARCH)
    eng.remember("I moved to Lisbon.", at=MARCH)
    [(porto_id,)] = eng.store.query("SELECT id FROM memories WHERE content = 'User lives in Porto.'")
    porto = eng.store.memory(porto_id)
    assert porto.valid_until == porto.valid_from == MARCH
    corrected = eng.edit(porto.id, content="User lived in Porto, Ribeira.")
    assert corrected.content == "User lived in Porto, Ribeira." and corrected.valid_until == MARCH
    with pytest.raises(BadInputError, match="must be after valid from"):
        eng.edit(corrected.id, valid_until=MARCH)
    eng.close()
