"""Forget means gone: the memory, what only it supported, and its bytes in the database file."""
from tests.helpers import open_engram


def file_bytes(eng) -> bytes:
    return b"".join(p.read_bytes() for p in eng.store.path.parent.glob("engram.duckdb*") if p.is_file())


def test_forget_leaves_no_bytes_entities_or_edges_behind():
    eng = open_engram()
    eng.graph()
    kept = eng.remember("Mira Chen waters the garden on Sundays.").turn_ids[0]
    gone = eng.remember("Remember that Quillon Vasquez-Thorne holds the vault phrase OBSIDIANWREN-4471.")
    eng.store.execute("CHECKPOINT")
    assert b"OBSIDIANWREN" in file_bytes(eng) and b"Quillon" in file_bytes(eng)
    names_before = {row["name"] for row in eng.find_entities("Quillon")}
    assert names_before, "the person was an entity"

    for memory_id in gone.turn_ids + gone.memory_ids:
        eng.forget(memory_id, reason="asked")
    assert b"OBSIDIANWREN" not in file_bytes(eng) and b"Quillon" not in file_bytes(eng)
    assert not eng.find_entities("Quillon")  # only the forgotten memory mentioned them
    assert not [n for n, d in eng.graph().g.nodes(data=True) if "Quillon" in str(d.get("name", ""))]
    assert eng.store.memory(kept).content.startswith("Mira Chen")  # the rest is untouched
    assert eng.find_entities("Mira Chen")
    report = eng.check()
    assert report.clean, report.differences
    eng.close()
    reopened = open_engram()
    assert reopened.recall("Mira Chen garden").results  # the compacted file opens and recalls
    assert reopened.check().clean
    reopened.close()


def test_forget_reaches_the_rolling_backups_too():
    eng = open_engram()
    eng.remember("Mira Chen waters the garden on Sundays.")
    gone = eng.remember("Remember that the vault phrase is OBSIDIANWREN-4471.")
    backup = eng.backup()
    assert b"OBSIDIANWREN" in backup.path.read_bytes()
    for memory_id in gone.turn_ids + gone.memory_ids:
        eng.forget(memory_id)
    assert b"OBSIDIANWREN" not in backup.path.read_bytes()
    import duckdb
    copy = duckdb.connect(str(backup.path), read_only=True)  # still a good backup to restore from
    assert copy.execute("SELECT count(*) FROM memories WHERE content LIKE 'Mira%'").fetchone()[0] == 1
    copy.close()
    eng.close()
