"""Memories read by id come from a table of their shown fields once a store has read twice: every kind of
write keeps those reads equal to what the database holds."""
from datetime import datetime, timezone

import pytest

from memory import Engram
from memory.embed import make_embedder
from memory.store import memory_from_row


@pytest.fixture
def eng(tmp_path):
    engram = Engram(tmp_path / "home", embedder=make_embedder("hash"))
    for text, day in (("My dentist is Dr. Alvarez in Porto.", 1), ("I moved to Lisbon with Ana.", 2),
                      ("The car needs new tyres before winter.", 3)):
        engram.remember(text, at=datetime(2025, 3, day, tzinfo=timezone.utc), session_id="s")
    yield engram
    engram.close()


def _ids(eng):
    return [row[0] for row in eng.store.query("SELECT id FROM memories ORDER BY id")]


def _read_from_the_database(eng, ids):
    """What the statement the table stands in for reads."""
    names = eng.store._names()
    units = {i: memory_from_row(row) for i, (row, _) in eng.store._read_shown(sorted(ids)).items()}
    return {i: (u.content, u.valid_until, u.use_count, u.archived,
                sorted(names.shown(e) for e in eng.store._read_shown([i])[i][1]))
            for i, u in units.items()}


def _read(eng, ids):
    return {i: (u.content, u.valid_until, u.use_count, u.archived, sorted(u.entities))
            for i, u in eng.store.memories_by_id(ids).items()}


def _with_table(eng):
    ids = _ids(eng)
    eng.store.memories_by_id(ids)
    eng.store.memories_by_id(ids)
    assert eng.store._shown is not None  # the reads below are served by the table
    return ids


def _kept(eng, table):
    """Writes through the store's methods name what they change: the table is kept, not built again."""
    eng.store.memories_by_id(_ids(eng))
    return eng.store._shown is table


def test_the_table_is_built_at_the_second_read_and_answers_as_the_database(eng):
    ids = _ids(eng)
    first = eng.store.memories_by_id(ids)
    assert eng.store._shown is None
    second = eng.store.memories_by_id(ids)
    assert eng.store._shown is not None
    assert first == second and list(second) == sorted(ids)
    assert any(u.entities for u in second.values())
    assert eng.store.memories_by_id([max(ids) + 100]) == {}


def test_an_edit_a_use_an_archive_and_a_forget_are_read_as_written(eng):
    ids = _with_table(eng)
    table = eng.store._shown
    corrected = eng.edit(ids[0], content="My dentist is Dr. Okafor now.").id
    eng.feedback(ids[1], used=True)
    eng.set_archived(ids[2], True)
    ids = _ids(eng)
    assert _read(eng, ids) == _read_from_the_database(eng, ids)
    assert _read(eng, ids)[corrected][0] == "My dentist is Dr. Okafor now."
    assert eng.store.memories_by_id([ids[0]])[ids[0]].superseded_by == corrected
    assert _read(eng, ids)[ids[1]][2] == 1
    eng.forget(ids[1])
    assert ids[1] not in _read(eng, ids)
    assert _read(eng, ids) == _read_from_the_database(eng, ids)
    eng.reembed()
    assert _kept(eng, table)


def test_new_memories_and_their_entities_are_read_as_written(eng):
    _with_table(eng)
    table = eng.store._shown
    eng.remember("Ravi Patel is my new manager at Acme.", at=datetime(2025, 3, 9, tzinfo=timezone.utc))
    ids = _ids(eng)
    assert _read(eng, ids) == _read_from_the_database(eng, ids)
    assert any("Ravi Patel" in str(entities) for *_, entities in _read(eng, ids).values())
    ravi = next(i for i, u in eng.store.memories_by_id(ids).items() if "Ravi" in u.content)
    linked = eng.store.query("SELECT entity_id FROM memory_entities WHERE memory_id = ?", [ids[0]])
    eng.store.insert_memory_entities([(ravi, entity_id) for (entity_id,) in linked])
    assert _read(eng, [ravi]) == _read_from_the_database(eng, [ravi])
    assert _kept(eng, table)


def test_a_rolled_back_write_and_a_write_around_the_store_methods_leave_no_stale_read(eng):
    ids = _with_table(eng)
    before = _read(eng, ids)
    with pytest.raises(RuntimeError):
        with eng.store.transaction():
            eng.store.update_memories({ids[0]: {"content": "never stored"}})
            assert _read(eng, [ids[0]])[ids[0]][0] == "never stored"  # read inside the transaction
            raise RuntimeError("rolled back")
    assert _read(eng, ids) == before == _read_from_the_database(eng, ids)
    _with_table(eng)
    eng.store.execute("UPDATE memories SET content = 'changed by a statement' WHERE id = ?", [ids[2]])
    assert _read(eng, ids)[ids[2]][0] == "changed by a statement"
