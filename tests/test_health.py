"""Health figures and timeline listings judge "valid" by the one time rule (memory/temporal.py)."""
import time
from datetime import timedelta
from pathlib import Path

from memory.clock import utc_now
from memory.embed import HashingEmbedder
from memory.health import compute_health, database_bytes, freshness_series, megabytes
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


class SlowToLoad(HashingEmbedder):
    """The hashing embedder, with a model to load on first use (as the local MiniLM runtime has)."""

    LOAD_SECONDS = 0.6

    def __init__(self) -> None:
        super().__init__()
        self.loaded = False

    def embed(self, texts):
        if not self.loaded:
            time.sleep(self.LOAD_SECONDS)
            self.loaded = True
        return super().embed(texts)


def test_loading_the_model_is_not_counted_as_recall_latency():
    with open_engram() as eng:
        eng.remember("I drink oat latte")
    with open_engram(embedder=SlowToLoad()) as eng:  # a fresh process: nothing loaded yet
        first = eng.recall("what do I drink")
        assert first.results and first.latency_ms < SlowToLoad.LOAD_SECONDS * 1000 / 3, first.latency_ms
        assert eng.health()["recall_latency_ms"]["p95"] < SlowToLoad.LOAD_SECONDS * 1000 / 3


def test_database_size_is_one_figure_in_one_unit(tmp_path):
    with open_engram() as eng:
        eng.remember("I drink oat latte")
        wal = Path(f"{eng.store.path}.wal")
        on_disk = eng.store.path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)
        assert database_bytes(eng.store.path) == on_disk == eng.health()["db_bytes"]
    assert megabytes(9_017_753) == "8.6 MB" and megabytes(12_288) == "0.0 MB"
