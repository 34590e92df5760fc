"""`check`: the store, the index and the graph agree after every kind of change, and a planted difference shows."""
import json
import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from memory.__main__ import main
from memory.changes import Changes
from memory.chat import Chat
from memory.clock import utc_now
from tests.helpers import at, open_engram
from vault_sync.sync import VaultIndexer

FIXTURE = Path(__file__).parent / "fixtures" / "vault"


def assert_consistent(eng, after: str) -> None:
    report = eng.check()
    assert report.clean, f"after {after}: {report.differences}"


@pytest.fixture
def eng():
    engram = open_engram()
    engram.graph()  # built first, so every change below must also reach it incrementally
    yield engram
    engram.close()


def test_every_kind_of_change_keeps_store_index_and_graph_in_step(eng, tmp_path):
    eng.remember("I drink Americano every morning. My colleague Mira Chen runs the Atlas project.",
                 at=at("2026-03-01T08:00:00"))
    assert_consistent(eng, "a chat message")
    report = eng.remember("I switched to oat latte.", at=at("2026-04-01T08:00:00"))
    assert report.superseded == 1
    assert_consistent(eng, "a supersession")
    latte = report.memory_ids[0]
    eng.feedback(latte, used=True)
    eng.feedback(latte, wrong=True)
    assert_consistent(eng, "relevance feedback")
    eng.edit(latte, content="Drinks oat latte, no sugar.", valid_from=at("2026-03-30T00:00:00"))
    assert_consistent(eng, "an edit")
    eng.set_archived(latte)
    eng.set_archived(latte, False)
    eng.archive_stale(now=utc_now())
    assert_consistent(eng, "archiving")
    chat = Chat(eng, None)
    chat.record_progress("s1", "import", 3, 10)
    chat.record_progress("s1", "import", 4, 10)
    assert chat.freeze_session_state("s1") == 1
    assert_consistent(eng, "session state progress and a topic switch")
    for minute in range(3):
        eng.writer.note_mentions("s1", {"Atlas"}, utc_now() + timedelta(minutes=minute))
    assert_consistent(eng, "a dual-TTL extension")
    turn = eng.remember("The ticket is INC-4411.", session_id="s2").turn_ids[0]
    eng.forget(turn, reason="test")
    eng.forget(latte)
    assert_consistent(eng, "forgetting")

    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE, vault)
    indexer = VaultIndexer(eng, vault)
    indexer.sync_all()
    assert_consistent(eng, "a first vault sync")
    note = vault / "Projects" / "Garden Planner.md"
    note.write_text(note.read_text(encoding="utf-8") + "\n\n## Watering\n\nWater the tomatoes at dawn. #garden\n",
                    encoding="utf-8")
    (vault / "People" / "Mira Chen.md").rename(vault / "People" / "Mira C.md")
    (vault / "Recipes").rename(vault / "Cooking")
    (vault / "Home.md").unlink()
    (vault / "Images" / "pixel.png").unlink()
    indexer.sync_all()
    assert_consistent(eng, "an edit, a rename, a move, a delete and a removed attachment")
    (vault / "Home.md").write_text("# Home\n\nBack again, see [[Garden Planner]].\n", encoding="utf-8")
    indexer.sync_paths(["Home.md"])
    assert_consistent(eng, "a note re-created")
    eng.reembed()
    assert_consistent(eng, "re-embedding")


def test_a_fresh_process_agrees_with_the_store(tmp_path):
    first = open_engram(tmp_path / "h")
    first.remember("I live in Lisbon.", at=at("2026-01-01T00:00:00"))
    first.remember("I moved to Porto.", at=at("2026-02-01T00:00:00"))
    first.close()
    second = open_engram(tmp_path / "h")
    second.graph()
    assert_consistent(second, "reopening")
    second.close()


def test_a_planted_index_difference_is_reported(eng):
    memory_id = eng.remember("I live in Lisbon.").memory_ids[0]
    eng.index.update_fields(memory_id, {"valid_until": at("2026-01-01T00:00:00")})  # behind the store's back
    report = eng.check()
    assert not report.clean and report.counts["index time"] == 1
    assert f"memory {memory_id} valid_until" in report.differences[0]


def test_a_planted_graph_difference_is_reported(eng):
    report = eng.remember("Mira Chen leads the Atlas project.")
    node = f"m:{report.turn_ids[0]}"
    graph = eng.graph()
    entity = next(v for _, v, k in graph.g.out_edges(node, keys=True) if k == "mentions")
    graph.g.remove_edge(node, entity, key="mentions")
    found = eng.check()
    assert found.counts["graph missing edge"] == 1
    assert f"{node} {entity} mentions" in " ".join(found.differences)


def test_a_planted_store_difference_fails_the_cli(tmp_path, capsys):
    home = tmp_path / "home"
    assert main(["--home", str(home), "--embedder", "hash", "remember", "I live in Lisbon."]) == 0
    assert main(["--home", str(home), "--embedder", "hash", "check"]) == 0
    capsys.readouterr()
    eng = open_engram(home)
    eng.store.execute("DELETE FROM embeddings")  # a store damaged behind Engram's back
    eng.close()
    assert main(["--home", str(home), "--embedder", "hash", "--json", "check"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert not report["clean"] and report["counts"]["store missing vector"] == 2


def test_forget_drops_co_occurrence_no_other_memory_supports(eng):
    eng.remember("Mira Chen met Tomás Silva in Lisbon.")
    shared = eng.remember("Mira Chen and Tomás Silva planned the garden.").turn_ids[0]
    eng.forget(shared)
    assert_consistent(eng, "forgetting one of two memories that link the same names")
    only = eng.store.memories_by_id([m for m in eng.index.row_of]).keys()
    for memory_id in list(only):
        eng.forget(memory_id)
    assert_consistent(eng, "forgetting everything")
    assert not [e for e in eng.graph().g.edges(keys=True) if e[2] == "co_occurs"]


def test_changes_reject_unknown_fields():
    with pytest.raises(ValueError, match="cannot be updated"):
        Changes().update(1, tokens="x")
