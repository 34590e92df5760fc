"""kill -9 in the middle of an ingest: the next run finishes the job, nothing half-written or doubled."""
import hashlib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import duckdb

from vault_sync.parse import parse_note
from vault_sync.sync import CHUNK_CHARS, note_chunks

ROOT = Path(__file__).resolve().parents[1]
NOTES = 500  # a bulk ingest stores notes 200 to a transaction: three groups to land a kill between


def make_vault(folder: Path) -> None:
    for n in range(NOTES):
        body = "\n\n".join(
            f"## Part {p}\n\nNote {n} part {p} talks about project P{n % 17} with [[Note {(n + 1) % NOTES}]] "
            f"and #topic/{n % 5}. The budget was {n * 10 + p} euros and Alice Martin reviewed it."
            for p in range(6)
        )
        (folder / f"Note {n}.md").write_text(f"# Note {n}\n\n{body}\n", encoding="utf-8")


def ingest(vault: Path, home: Path) -> subprocess.Popen:
    env = dict(os.environ, ENGRAM_HOME=str(home), ENGRAM_EMBEDDER="hash", HF_HUB_OFFLINE="1")
    return subprocess.Popen([sys.executable, "-m", "memory", "ingest", str(vault), "--json"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def stored_notes(home: Path) -> int:
    """Notes stored so far; 0 when the kill came before the file or its tables were created."""
    if not (home / "engram.duckdb").exists():
        return 0
    conn = duckdb.connect(str(home / "engram.duckdb"), read_only=True)
    try:
        if not conn.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'sources'").fetchone()[0]:
            return 0
        return conn.execute("SELECT count(*) FROM sources WHERE kind = 'note'").fetchone()[0]
    finally:
        conn.close()


def test_sigkill_mid_ingest_then_resume(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    make_vault(vault)
    home = tmp_path / "home"
    partial, delay, too_early, too_late = 0, 4.0, 0.0, None
    # the delay adapts to the machine: later after a kill before any note, sooner after the end, and once both are
    # known halfway between them (steps of a fixed ratio can jump over the window in which a kill lands mid-ingest)
    for _ in range(12):
        shutil.rmtree(home, ignore_errors=True)
        proc = ingest(vault, home)
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        partial = stored_notes(home) if proc.returncode == -signal.SIGKILL else NOTES
        if 0 < partial < NOTES:
            break
        if partial == 0:
            too_early = delay
        else:
            too_late = delay
        delay = delay * 1.6 if too_late is None else (too_early + too_late) / 2
    assert 0 < partial < NOTES, f"could not kill in the middle (stored {partial} of {NOTES})"

    done = ingest(vault, home)
    out, err = done.communicate(timeout=600)
    assert done.returncode == 0, err
    env = dict(os.environ, ENGRAM_HOME=str(home), ENGRAM_EMBEDDER="hash", HF_HUB_OFFLINE="1")
    check = subprocess.run([sys.executable, "-m", "memory", "check"], cwd=ROOT, env=env, capture_output=True,
                           text=True, timeout=300)
    assert check.returncode == 0, check.stdout + check.stderr
    conn = duckdb.connect(str(home / "engram.duckdb"), read_only=True)
    try:
        sources = dict(conn.execute("SELECT ref, fingerprint FROM sources WHERE kind = 'note'").fetchall())
        assert len(sources) == NOTES
        for path in vault.glob("*.md"):
            data = path.read_bytes()
            assert sources[path.name] == hashlib.sha256(data).hexdigest()
            expected = [c.text for c in note_chunks(parse_note(path.name, data.decode(), max_chunk_chars=CHUNK_CHARS))]
            stored = [r[0] for r in conn.execute(
                """SELECT m.content FROM memories m JOIN sources s ON s.id = m.source_id
                   WHERE s.ref = ? AND m.valid_until IS NULL ORDER BY m.line_start""", [path.name]).fetchall()]
            assert stored == expected, path.name
        orphans = conn.execute(
            "SELECT count(*) FROM memories WHERE source_id NOT IN (SELECT id FROM sources)").fetchone()[0]
        assert orphans == 0
        missing_vectors = conn.execute(
            "SELECT count(*) FROM memories WHERE id NOT IN (SELECT memory_id FROM embeddings)").fetchone()[0]
        assert missing_vectors == 0
    finally:
        conn.close()
