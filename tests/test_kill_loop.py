"""kill -9 at random moments during ingest, import and a chat turn, twenty times over one data folder:
after each, `check` is clean; at the end nothing is lost and nothing is stored twice."""
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb

from vault_sync.parse import parse_note
from vault_sync.sync import CHUNK_CHARS, note_chunks

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = 20


def start(*args: str, home: Path) -> subprocess.Popen:
    env = dict(os.environ, ENGRAM_HOME=str(home), ENGRAM_EMBEDDER="hash", HF_HUB_OFFLINE="1",
               ENGRAM_OLLAMA_URL="http://127.0.0.1:9")  # no model: the chat turn answers offline
    return subprocess.Popen([sys.executable, "-m", "memory", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(*args: str, home: Path) -> str:
    proc = start(*args, home=home)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, f"{args}: {err[-3000:]}"
    return out


def write_note(vault: Path, n: int, version: int) -> None:
    body = "\n\n".join(f"## Part {p}\n\nNote {n} (v{version}) part {p}: project P{n % 7} with [[Note {(n + 1) % 40}]] "
                       f"and #topic/{n % 5}; Alice Martin reviewed {n * 10 + p} euros." for p in range(4))
    (vault / f"Note {n}.md").write_text(f"# Note {n}\n\n{body}\n", encoding="utf-8")


def chat_lines(count: int) -> list[dict]:
    return [{"session_id": f"s{i % 3}", "role": "user" if i % 2 == 0 else "assistant",
             "content": f"Message {i}: the plan for week {i % 9} mentions Lisbon and budget {i * 3}.",
             "at": f"2026-02-{1 + i // 60:02d}T{8 + (i // 4) % 12:02d}:{(i * 7) % 60:02d}:00Z", "id": f"m{i}"}
            for i in range(count)]


def test_kill_nine_at_random_moments_never_corrupts_loses_or_duplicates(tmp_path):
    rng = random.Random(20261201)
    vault, home, chat = tmp_path / "vault", tmp_path / "home", tmp_path / "chat.jsonl"
    vault.mkdir()
    for n in range(40):
        write_note(vault, n, 0)
    messages = chat_lines(60)
    killed = {"ingest": 0, "import-chat": 0, "ask": 0}
    took: dict[str, float] = {}  # seconds each command took when it last ran to its end
    for round_ in range(ROUNDS):
        write_note(vault, rng.randrange(40), round_ + 1)  # the vault keeps changing
        messages = chat_lines(60 + 30 * round_)  # and the chat file keeps growing
        chat.write_text("\n".join(json.dumps(m) for m in messages) + "\n", encoding="utf-8")
        command = ("ingest", "import-chat", "ask")[round_ % 3]
        args = {"ingest": ("ingest", str(vault)), "import-chat": ("import-chat", str(chat)),
                "ask": ("ask", f"what is the plan for week {round_ % 9}?", "--session", "asked")}[command]
        started = time.monotonic()
        proc = start(*args, home=home)
        # kill at a random moment within the time the command took last (its first run goes to its end, to time
        # it), so that kills land mid-command on a fast machine and a slow one alike
        moment = rng.uniform(0.4, 0.95) * took[command] if command in took else None
        try:
            proc.wait(timeout=moment)
            took[command] = time.monotonic() - started
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            killed[command] += 1
        proc.wait(timeout=120)
        report = json.loads(finish("check", "--json", home=home))  # opening again is the recovery
        assert report["clean"], f"round {round_} after killing {command}: {report['differences']}"
    assert sum(killed.values()) >= ROUNDS // 2, f"too few kills landed mid-command: {killed}"

    finish("ingest", str(vault), home=home)
    finish("import-chat", str(chat), home=home)
    assert json.loads(finish("check", "--json", home=home))["clean"]
    conn = duckdb.connect(str(home / "engram.duckdb"), read_only=True)
    try:
        sources = dict(conn.execute("SELECT ref, fingerprint FROM sources WHERE kind = 'note' "
                                    "AND deleted_at IS NULL").fetchall())
        assert len(sources) == 40
        for path in vault.glob("*.md"):
            data = path.read_bytes()
            assert sources[path.name] == hashlib.sha256(data).hexdigest()
            expected = [c.text for c in note_chunks(parse_note(path.name, data.decode(), max_chunk_chars=CHUNK_CHARS))]
            stored = [r[0] for r in conn.execute(
                """SELECT m.content FROM memories m JOIN sources s ON s.id = m.source_id
                   WHERE s.ref = ? AND m.valid_until IS NULL ORDER BY m.line_start""", [path.name]).fetchall()]
            assert stored == expected, path.name
        per_id = dict(conn.execute("SELECT message_id, count(*) FROM events WHERE message_id IS NOT NULL "
                                   "GROUP BY message_id").fetchall())
        assert per_id == {m["id"]: 1 for m in messages}  # every message once, none lost
        half_turns = conn.execute(
            """SELECT count(*) FROM events v WHERE v.kind = 'chat_turn'
               AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.event_id = v.id)""").fetchone()[0]
        assert half_turns == 0  # a chat turn is stored with its memory or not at all
    finally:
        conn.close()
