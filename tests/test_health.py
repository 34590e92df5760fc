"""Health figures and timeline listings judge "valid" by the one time rule (memory/temporal.py)."""
from datetime import timedelta

from memory.clock import utc_now
from memory.health import compute_health, freshness_series
from memory.timeline import list_memories, valid_at
from tests.helpers import open_engram


def test_a_memory_that_starts_next_month_is_not_valid_yet():
    with open_engram() as eng:
        latte = eng.remember("I drink oat latte").memory_ids[0]
        lisbon = eng.remember("I live in Lisbon").memory_ids[0]
        lisbon = eng.edit(lisbon, valid_from=utc_now() + timedelta(days=30)).id  # the old record stays, corrected

        health = compute_health(eng.store, embedder_name=eng.embedder.name)
        assert (health["memories"], health["valid"], health["freshness"]) == (3, 1, 0.3333)
        assert freshness_series(eng.store, days=1, points=1)[-1]["valid"] == 1
        assert [u.id for u in list_memories(eng.store, types=["user_profile"], state="valid")] == [latte]
        assert [r.unit.id for r in valid_at(eng.store, eng.provenance, utc_now())] == [latte]
        later = valid_at(eng.store, eng.provenance, utc_now() + timedelta(days=31))
        assert {r.unit.id for r in later} == {latte, lisbon}
