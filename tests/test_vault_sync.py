"""The vault indexer on real folders: edits, renames, moves, deletes, odd files."""
import os
import shutil
from pathlib import Path

import pytest

from memory import BadInputError
from tests.helpers import open_engram
from vault_sync.scan import NoteReadError, read_note, stat_file
from vault_sync.sync import VaultIndexer

FIXTURE = Path(__file__).parent / "fixtures" / "vault"


@pytest.fixture
def vault(tmp_path):
    target = tmp_path / "vault"
    shutil.copytree(FIXTURE, target)
    return target


@pytest.fixture
def eng():
    engram = open_engram()
    yield engram
    engram.close()


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def valid_refs(eng, query: str, k: int = 20) -> list[str]:
    return [r.provenance.ref for r in eng.recall(query, k=k).results if r.unit.type == "fact_reference"]


def open_chunk_rows(eng) -> list[tuple]:
    return eng.store.query(
        """SELECT m.source_id, m.content FROM memories m JOIN sources s ON s.id = m.source_id
           WHERE m.type = 'fact_reference' AND m.valid_until IS NULL AND s.deleted_at IS NULL""")


def assert_no_duplicates(eng) -> None:
    rows = open_chunk_rows(eng)
    assert len(rows) == len(set(rows)), "an open chunk is stored twice"
    refs = eng.store.query("SELECT ref FROM sources WHERE kind = 'note' AND deleted_at IS NULL")
    assert len(refs) == len(set(refs)), "two live sources for one path"


def test_first_sync_indexes_and_second_does_nothing(eng, vault):
    indexer = VaultIndexer(eng, vault)
    first = indexer.sync_all()
    assert first.indexed == first.notes == len(list(vault.rglob("*.md")))
    assert first.chunks >= first.notes and first.attachments == 1
    assert any("Broken YAML.md" in w for w in first.warnings)
    assert "Broken YAML.md" in valid_refs(eng, "body of a note with broken frontmatter")
    events_before = eng.store.count("events")
    second = indexer.sync_all()
    assert second.indexed == 0 and second.unchanged == second.notes and second.chunks == 0
    assert eng.store.count("events") == events_before
    assert_no_duplicates(eng)


def test_edit_closes_old_chunk_and_keeps_untouched_ones(eng, vault):
    indexer = VaultIndexer(eng, vault)
    indexer.sync_all()
    note = vault / "Recipes" / "Lentil Soup.md"
    chunks_before = {c for s, c in open_chunk_rows(eng)}
    text = note.read_text(encoding="utf-8")
    write(note, text + "\n\n## Serving\n\nServe with smoked paprika oil and lemon wedges.\n")
    report = indexer.sync_paths({"Recipes/Lentil Soup.md"})
    assert report.indexed == 1 and report.chunks == 1  # only the new section is embedded
    assert "Recipes/Lentil Soup.md" in valid_refs(eng, "smoked paprika oil")
    write(note, text.replace("lentil", "chickpea").replace("Lentil", "Chickpea"))
    indexer.sync_paths({"Recipes/Lentil Soup.md"})
    assert not [r for r in eng.recall("smoked paprika oil lemon wedges", k=20).results
                if "paprika" in r.unit.content]
    closed = eng.store.query("SELECT count(*) FROM memories WHERE valid_until IS NOT NULL")[0][0]
    assert closed >= 1 and chunks_before  # old versions kept with a closed interval
    assert_no_duplicates(eng)


def test_rename_and_move_keep_memories_without_reembedding(eng, vault):
    indexer = VaultIndexer(eng, vault)
    indexer.sync_all()
    memories_before = eng.store.count("memories")
    (vault / "Archive").mkdir(exist_ok=True)
    os.rename(vault / "Recipes" / "Lentil Soup.md", vault / "Archive" / "Soup.md")
    report = indexer.sync_all()
    assert report.renamed == 1 and report.deleted == 0 and report.chunks == 0
    assert eng.store.count("memories") == memories_before
    refs = valid_refs(eng, "lentil soup")
    assert "Archive/Soup.md" in refs and "Recipes/Lentil Soup.md" not in refs
    assert eng.store.query("SELECT count(*) FROM events WHERE kind = 'note_renamed'")[0][0] == 1
    assert_no_duplicates(eng)


def test_delete_then_recreate(eng, vault):
    indexer = VaultIndexer(eng, vault)
    indexer.sync_all()
    note = vault / "People" / "Mira Chen.md"
    text = note.read_text(encoding="utf-8")
    note.unlink()
    assert indexer.sync_paths({"People/Mira Chen.md"}).deleted == 1
    assert "People/Mira Chen.md" not in valid_refs(eng, "Mira lives in Utrecht")
    assert eng.store.query("SELECT count(*) FROM memories WHERE source_id IN "
                           "(SELECT id FROM sources WHERE ref = 'People/Mira Chen.md')")[0][0] > 0
    write(note, text)
    report = indexer.sync_paths({"People/Mira Chen.md"})
    assert report.reopened == 1
    assert "People/Mira Chen.md" in valid_refs(eng, "Mira lives in Utrecht")
    assert_no_duplicates(eng)


def test_wikilinks_become_graph_edges(eng, vault):
    VaultIndexer(eng, vault).sync_all()
    graph = eng.graph()
    home = eng.store.query("SELECT id FROM sources WHERE ref = 'Home.md'")[0][0]
    linked = {graph.g.nodes[v].get("ref") for _, v, k in graph.g.out_edges(f"s:{home}", keys=True) if k == "links_to"}
    assert "Projects/Garden Planner.md" in linked and "People/Mira Chen.md" in linked


def test_same_name_notes_resolve_by_folder(eng, vault):
    VaultIndexer(eng, vault).sync_all()
    notes = eng.store.query("SELECT ref FROM sources WHERE kind = 'note' AND ref LIKE '%Meeting Notes.md'")
    assert len(notes) == 2
    targets = dict(eng.store.query(
        """SELECT s.ref, t.ref FROM note_links l JOIN sources s ON s.id = l.source_id
           LEFT JOIN sources t ON t.id = l.resolved_id WHERE l.target = 'Meeting Notes'"""))
    # [[Meeting Notes]] from Projects/ means the note beside it, not the shorter Archive/ path
    assert targets["Projects/Garden Planner.md"] == "Projects/Meeting Notes.md"
    assert targets["Daily/2026-03-02.md"] in {"Projects/Meeting Notes.md", "Archive/Meeting Notes.md"}


def test_chinese_note_entities_with_qualifier(eng, vault):
    VaultIndexer(eng, vault).sync_all()
    names = {r[0] for r in eng.store.query("SELECT name || coalesce('@' || qualifier, '') FROM entities")}
    assert "张经理@技术部" in names


# ------------------------------------------------------------------ bad input
def test_missing_and_empty_vaults(eng, tmp_path):
    with pytest.raises(BadInputError, match="does not exist"):
        VaultIndexer(eng, tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    report = VaultIndexer(eng, tmp_path / "empty").sync_all()
    assert report.notes == 0 and report.indexed == 0


def test_odd_files_are_named_and_the_rest_indexed(eng, vault, tmp_path):
    (vault / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    (vault / "latin1.md").write_bytes("# Café notes\n\nThe café on the corner serves crème brûlée.\n".encode("latin-1"))
    (vault / "huge.md").write_bytes(b"# Huge\n\n" + b"word " * (10 * 1024 * 1024))  # 50 MB
    (vault / "bomb.md").write_text(
        "---\na: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
        "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
        "e: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n---\nThe billion laughs note body survives.\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    write(outside / "secret.md", "Outside the vault: do not index me.")
    os.symlink(outside / "secret.md", vault / "link-out.md")
    os.symlink(vault, vault / "loop")  # a symlink loop back to the vault root
    os.mkfifo(vault / "pipe.md")
    report = VaultIndexer(eng, vault).sync_all()
    skipped = dict(report.skipped)
    assert "binary content" in skipped["binary.md"]
    assert "MB note limit" in skipped["huge.md"]
    assert "symlink" in skipped["link-out.md"] and "symlink" in skipped["loop"]
    assert "pipe.md" in skipped
    assert any("latin1.md" in w and "invalid UTF-8" in w for w in report.warnings)
    assert any("bomb.md" in w for w in report.warnings)
    assert "latin1.md" in valid_refs(eng, "crème brûlée corner")
    assert "bomb.md" in valid_refs(eng, "billion laughs note body")
    assert not [r for r in eng.recall("do not index me outside", k=20).results if "Outside" in r.unit.content]
    assert "Home.md" in valid_refs(eng, "garden app main project")


def test_note_vanishing_mid_read_is_reported(vault):
    file = stat_file(vault, "Home.md")
    (vault / "Home.md").unlink()
    with pytest.raises(NoteReadError, match="Home.md: vanished"):
        read_note(file)


def test_watcher_batch_for_vanished_path_marks_deleted(eng, vault):
    indexer = VaultIndexer(eng, vault)
    indexer.sync_all()
    (vault / "Home.md").unlink()
    report = indexer.sync_paths({"Home.md", "does/not/exist.md", ".obsidian/workspace.json"})
    assert report.deleted == 1 and not report.skipped


def test_unreadable_note_is_named(vault, tmp_path):
    """As root nothing is permission-denied, so a note replaced by a folder stands in for an unreadable one."""
    file = stat_file(vault, "Home.md")
    (vault / "Home.md").unlink()
    (vault / "Home.md").mkdir()
    with pytest.raises(NoteReadError, match="Home.md: cannot be read"):
        read_note(file)


def test_repeated_sections_survive_edits_without_duplicates(eng, vault):
    note = vault / "Repeats.md"
    repeated = "## Notes\n\n" + "Same words here. " * 30 + "\n\n"  # two identical ~530-character sections
    write(note, repeated + "## Body\n\n" + "x " * 200 + "\n\n" + repeated)
    indexer = VaultIndexer(eng, vault, chunk_chars=600)
    indexer.sync_all()
    write(note, repeated + "## Body\n\n" + "y " * 200 + "\n\n" + repeated)
    indexer.sync_paths({"Repeats.md"})
    rows = [r[0] for r in eng.store.query(
        """SELECT m.content FROM memories m JOIN sources s ON s.id = m.source_id
           WHERE s.ref = 'Repeats.md' AND m.valid_until IS NULL ORDER BY m.line_start""")]
    assert rows.count(repeated.strip()) == 2
    assert len(rows) == 3 and "y y" in rows[1]


def test_embeds_resolve_to_attachments_on_first_sync(eng, vault):
    VaultIndexer(eng, vault).sync_all()
    rows = eng.store.query(
        """SELECT s.ref FROM note_links l JOIN sources s ON s.id = l.resolved_id
           WHERE l.kind = 'embed' AND l.target ILIKE '%pixel.png%'""")
    assert rows and rows[0][0] == "Images/pixel.png"
