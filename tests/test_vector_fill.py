"""Two-phase bulk ingest: notes keyword-searchable first (vectors pending), then the vector filler."""
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np

from tests.helpers import open_engram
from vault_sync.sync import BULK_NOTES, VaultIndexer

ROOT = Path(__file__).resolve().parents[1]
NOTES = BULK_NOTES + 20  # a bulk pass


def make_vault(folder: Path, notes: int = NOTES) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(notes):
        (folder / f"Note {n}.md").write_text(
            f"# Note {n}\n\nNote {n} is about the zqword{n} project with [[Note {(n + 1) % notes}]] and #topic/{n % 4}.\n\n"
            f"## Budget\n\nThe budget of zqword{n} was {n * 10} euros; Alice Martin reviewed it.\n", encoding="utf-8")
    return folder


def refs_for(eng, word: str) -> list[str]:
    return [r.provenance.ref for r in eng.recall(word, k=5).results]


def stored_vector(eng, memory_id: int) -> np.ndarray | None:
    rows = eng.store.query("SELECT vector FROM embeddings WHERE memory_id = ?", [memory_id])
    return np.frombuffer(rows[0][0], np.float32) if rows else None


def note_memory_ids(eng, ref: str) -> list[int]:
    return [r[0] for r in eng.store.query(
        "SELECT m.id FROM memories m JOIN sources s ON s.id = m.source_id WHERE s.ref = ? ORDER BY m.id", [ref])]


def assert_vectors_are_the_embedders(eng) -> None:
    """Every memory has its stored vector, the one the embedder gives for its text, in the index too."""
    rows = eng.store.memory_texts()
    expected = eng.embedder.embed([text for _, text in rows])
    for (memory_id, _), vector in zip(rows, expected):
        stored = stored_vector(eng, memory_id)
        assert stored is not None, f"memory {memory_id} has no vector"
        assert np.allclose(stored, vector, atol=1e-5)
        assert np.allclose(eng.index.vectors[eng.index.row_of[memory_id]], vector, atol=1e-5)


def test_bulk_sync_is_keyword_searchable_before_vectors_then_filled(tmp_path):
    vault = make_vault(tmp_path / "vault")
    eng = open_engram()
    try:
        report = VaultIndexer(eng, vault).sync_all(fill=False)
        assert report.indexed == NOTES
        pending = eng.store.pending_vector_count()
        assert pending == report.chunks == report.vectors_pending > 0
        assert "Note 37.md" in refs_for(eng, "zqword37")  # found by its words, no vector yet
        ids = note_memory_ids(eng, "Note 37.md")
        assert all(stored_vector(eng, i) is None for i in ids)
        assert not eng.index.vectors[[eng.index.row_of[i] for i in ids]].any()
        eng.graph()
        check = eng.check()
        assert check.clean, check.differences
        assert check.checked["vectors pending"] == pending

        filled = VaultIndexer(eng, vault).fill_vectors()
        assert filled.vectors_filled == pending and filled.vectors_pending == 0
        assert eng.store.pending_vector_count() == 0
        check = eng.check()
        assert check.clean and check.checked["vectors pending"] == 0, check.differences
        assert_vectors_are_the_embedders(eng)
    finally:
        eng.close()


def test_fill_stopped_after_some_batches_goes_on_at_the_next_sync(tmp_path):
    vault = make_vault(tmp_path / "vault")
    eng = open_engram()
    indexer = VaultIndexer(eng, vault)
    indexer.sync_all(fill=False)
    total = eng.store.pending_vector_count()
    part = indexer.fill_vectors(max_batches=2, batch=50)
    assert part.vectors_filled == 100 and part.vectors_pending == total - 100
    eng.close()

    eng = open_engram()  # a new process would open the store the same way
    try:
        assert eng.store.pending_vector_count() == total - 100
        check = eng.check()
        assert check.clean and check.checked["vectors pending"] == total - 100, check.differences
        again = VaultIndexer(eng, vault).sync_all()
        assert again.indexed == 0 and again.vectors_filled == total - 100 and again.vectors_pending == 0
        eng.graph()
        assert eng.check().clean
        assert_vectors_are_the_embedders(eng)
    finally:
        eng.close()


def test_small_edits_are_embedded_at_once(tmp_path):
    vault = make_vault(tmp_path / "vault")
    eng = open_engram()
    try:
        indexer = VaultIndexer(eng, vault)
        indexer.sync_all()
        assert eng.store.pending_vector_count() == 0
        with (vault / "Note 5.md").open("a", encoding="utf-8") as handle:
            handle.write("\n## Later\n\nA new section about zqlateredit.\n")
        (vault / "Fresh.md").write_text("# Fresh\n\nA fresh note about zqfreshnote.\n", encoding="utf-8")
        report = indexer.sync_paths({"Note 5.md", "Fresh.md"}, fill=False)
        assert report.indexed == 2 and report.vectors_pending == 0
        for ref, word in (("Note 5.md", "zqlateredit"), ("Fresh.md", "zqfreshnote")):
            newest = [i for i in note_memory_ids(eng, ref)
                      if word in eng.store.memory(i).content]
            assert newest, ref
            vector = stored_vector(eng, newest[-1])
            assert vector is not None and vector.any()
        assert_vectors_are_the_embedders(eng)
    finally:
        eng.close()


def test_killed_during_the_vector_phase_resumes_in_the_next_process(tmp_path):
    vault = make_vault(tmp_path / "vault", NOTES * 4)
    home = tmp_path / "home"
    env = dict(os.environ, ENGRAM_HOME=str(home), ENGRAM_EMBEDDER="local", HF_HUB_OFFLINE="1")
    proc = subprocess.Popen([sys.executable, "-m", "memory", "ingest", str(vault)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = ""
    for line in iter(proc.stderr.readline, ""):
        seen += line
        if "keyword search ready" in line:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    assert "keyword search ready" in seen, seen
    assert proc.returncode == -signal.SIGKILL

    check = subprocess.run([sys.executable, "-m", "memory", "check", "--json"], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=300)
    assert check.returncode == 0, check.stdout + check.stderr
    assert '"vectors pending": 0' not in check.stdout, "the kill came after the vectors were filled"

    done = subprocess.run([sys.executable, "-m", "memory", "ingest", str(vault), "--json"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert '"indexed": 0' in done.stdout and '"vectors_pending": 0' in done.stdout, done.stdout
    check = subprocess.run([sys.executable, "-m", "memory", "check", "--json"], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=300)
    assert check.returncode == 0 and '"vectors pending": 0' in check.stdout, check.stdout + check.stderr
