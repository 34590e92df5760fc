"""The index snapshot beside the database: read when it matches the store, rebuilt (never trusted) when
the store changed behind it or the file is damaged, deleted at once by a forget."""
import logging
import os
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from memory.changes import Changes, NewMemory
from memory.index import HybridIndex, context_key
from memory.model import MemoryUnit
from memory.index_snapshot import COLUMNS, snapshot_path
from memory.store import Store
from tests.helpers import at, open_engram

TEXTS = [
    "I drink Americano every morning before work.",
    "My colleague Mira Chen runs the Atlas project in Utrecht.",
    "I switched to oat latte last week.",
    "The zanzibar workshop is on Friday at the library.",
    "   Tea, tea and more tea: the tea party of the year   ",
]


def contents(index: HybridIndex) -> dict[int, tuple]:
    """Everything the index holds of each live memory, by id (row numbers may differ)."""
    terms: dict[int, Counter] = {}
    for term in index.terms():
        rows, tfs = index.postings(term)
        for row, tf in zip(rows.tolist(), tfs.tolist()):
            if index.alive[row]:
                terms.setdefault(row, Counter())[term] = tf
    held = {}
    for memory_id, row in index.row_of.items():
        if index.alive[row]:
            fields = tuple(getattr(index, name)[row].item() for name in COLUMNS)
            held[memory_id] = (fields, index.sessions[row], tuple(index.vectors[row].tolist()), terms.get(row))
    return held


def write_all(eng) -> list[int]:
    """The texts as memories of several kinds (one superseded, one without a vector, one chat turn); their ids."""
    memories = []
    for n, text in enumerate(TEXTS):
        when = at(f"2026-03-0{n + 1}T08:00:00")
        unit = MemoryUnit(content=text, type="user_profile" if n % 2 else "fact_reference", valid_from=when,
                          recorded_at=when, session_id=f"s{n % 2}",
                          superseded_at=at("2026-04-01T00:00:00") if n == 2 else None,
                          valid_until=at("2026-04-01T00:00:00") if n == 2 else None)
        context = [context_key("earlier"), context_key("earlier"), context_key("before"), "§said"]  # length 1 + 1.5
        memories.append(NewMemory(unit, index_text=text, embed=n != 1, context_tokens=context if n == 3 else []))
    ids = eng.apply(Changes(memories=memories)).memory_ids
    assert len(ids) == len(TEXTS)
    eng.feedback(ids[1], used=True)
    return ids


def filled(home: Path) -> list[int]:
    """A closed store with a few memories of several kinds, one archived; their ids."""
    with open_engram(home) as eng:
        ids = write_all(eng)
        eng.store.update_memories({ids[4]: {"archived": True}})
        eng.close()
        # (the update above went around the write path: this index missed it, so no snapshot may be saved from it)
    with open_engram(home) as eng:
        assert not eng._index_was_saved
    return ids


def database(home: Path) -> Path:
    return home / "engram.duckdb"


def test_bulk_build_equals_the_index_built_write_by_write(tmp_path):
    with open_engram(tmp_path) as eng:
        write_all(eng)
        eng.remember("I drink Americano every morning. My colleague Mira Chen runs the Atlas project.",
                     at=at("2026-03-01T08:00:00"))
        eng.remember("Which project does Mira run?", at=at("2026-03-01T08:01:00"))  # context keys: the turn before
        live = contents(eng.index)
        rebuilt = HybridIndex.from_store(eng.store, eng.embedder.dim)
        built = contents(rebuilt)
        assert rebuilt.total_len == pytest.approx(eng.index.total_len)
    assert len(live) >= len(TEXTS)
    assert built == live


def test_a_reopened_store_reads_its_snapshot(tmp_path):
    ids = filled(tmp_path)
    path = snapshot_path(database(tmp_path))
    assert path.exists() and (path.stat().st_mode & 0o777) == 0o600
    with open_engram(tmp_path) as eng:
        assert eng._index_was_saved
        rebuilt = HybridIndex.from_store(eng.store, eng.embedder.dim)
        assert contents(eng.index) == contents(rebuilt)
        assert eng.index.total_len == pytest.approx(rebuilt.total_len)  # context keys count half: no rounding
        assert eng.index.archived[eng.index.row_of[ids[4]]]
        assert ids[3] in [r.unit.id for r in eng.recall("zanzibar workshop").results]
        assert eng.check().clean


def test_a_store_changed_behind_the_snapshot_is_rebuilt(tmp_path, caplog):
    ids = filled(tmp_path)
    store = Store(database(tmp_path))
    store.update_memories({ids[0]: {"archived": True}})  # another program, or a crash before the save
    store.close()
    killed = snapshot_path(database(tmp_path)).with_name("engram.duckdb.index.999999.partial")
    killed.write_bytes(b"half a snapshot")  # what a save killed halfway leaves
    with caplog.at_level(logging.INFO, logger="memory.index_snapshot"), open_engram(tmp_path) as eng:
        assert not eng._index_was_saved
        assert "older than the store" in caplog.text
        assert eng.index.archived[eng.index.row_of[ids[0]]]
        assert eng.check().clean
    assert not killed.exists()  # the next save cleared it
    with open_engram(tmp_path) as eng:  # the rebuilt index was saved at close
        assert eng._index_was_saved and eng.index.archived[eng.index.row_of[ids[0]]]


def _flip_payload_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) - 100] ^= 0x40  # inside the last array
    path.write_bytes(bytes(data))


def _cut_short(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-100])


def _garbage(path: Path) -> None:
    path.write_bytes(os.urandom(4096))


@pytest.mark.parametrize("damage", [_flip_payload_byte, _cut_short, _garbage])
def test_a_damaged_snapshot_is_rebuilt_with_a_warning(tmp_path, caplog, damage):
    ids = filled(tmp_path)
    with open_engram(tmp_path) as eng:
        expected = contents(eng.index)
    path = snapshot_path(database(tmp_path))
    damage(path)
    with caplog.at_level(logging.WARNING, logger="memory.index_snapshot"), open_engram(tmp_path) as eng:
        assert not eng._index_was_saved
        assert f"index snapshot {path} is damaged" in caplog.text and "rebuilding" in caplog.text
        assert contents(eng.index) == expected  # nothing lost
        assert sorted(eng.index.row_of) == sorted(ids)
        assert eng.check().clean
    with open_engram(tmp_path) as eng:  # replaced by a whole one at close
        assert eng._index_was_saved and contents(eng.index) == expected


def test_forget_deletes_the_snapshot_at_once(tmp_path):
    ids = filled(tmp_path)
    path = snapshot_path(database(tmp_path))
    assert b"zanzibar" in path.read_bytes()
    with open_engram(tmp_path) as eng:
        eng.forget(ids[3])
        assert not path.exists() and not list(path.parent.glob(path.name + ".*"))
    assert path.exists() and b"zanzibar" not in path.read_bytes()
    with open_engram(tmp_path) as eng:
        assert eng._index_was_saved and ids[3] not in eng.index.row_of
        assert eng.check().clean


def test_a_snapshot_of_other_vectors_is_not_read(tmp_path):
    filled(tmp_path)
    from memory.embed import HashingEmbedder

    with open_engram(tmp_path, embedder=HashingEmbedder(64), allow_embedder_change=True) as eng:
        assert not eng._index_was_saved
        assert eng.index.dim == 64
        assert np.count_nonzero(eng.index.vectors[: eng.index.size]) == 0  # vectors wait for a re-embed
