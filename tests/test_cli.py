"""The command line as a user runs it: real processes, a real DuckDB file in ENGRAM_HOME."""
import json
import re
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory.clock import parse_when
from tests.helpers import open_engram
from vault_sync.sync import VaultIndexer

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, home: Path, embedder: str | None = "hash") -> subprocess.CompletedProcess:
    """`python -m memory ARGS` in a new process; `embedder` is ENGRAM_EMBEDDER (None: not set)."""
    env = dict(os.environ, ENGRAM_HOME=str(home), ENGRAM_EMBEDDER=embedder or "", HF_HUB_OFFLINE="1")
    return subprocess.run([sys.executable, "-m", "memory", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def count_rows(home: Path, table: str) -> int:
    import duckdb
    conn = duckdb.connect(str(home / "engram.duckdb"), read_only=True)
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


def remembered(home: Path, *texts: tuple[str, str | None]) -> None:
    """Setup, not under test: write (text, --at) pairs as `remember --at` does, in this process with the
    same hashing embedder (an extracting CLI process costs seconds; test_remember_* runs the command)."""
    eng = open_engram(home)
    try:
        for text, day in texts:
            eng.remember(text, at=parse_when(day, what="--at date"))
    finally:
        eng.close()


@pytest.fixture
def home(tmp_path):
    return tmp_path / "home"


def test_remember_and_recall_json_shape(home):
    assert cli("remember", "I drink Americano", "--at", "2026-03-01", "--json", home=home).returncode == 0
    done = cli("remember", "I switched to oat latte", "--at", "2026-05-01", "--session", "s2", "--json", home=home)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["superseded"] == 1
    out = cli("recall", "what coffee do I drink", "--json", home=home)
    data = json.loads(out.stdout)
    assert set(data) >= {"query", "as_of", "confident", "results"}
    first = data["results"][0]
    assert set(first) >= {"id", "content", "type", "score", "valid_from", "valid_until", "recorded_at",
                          "superseded_by", "source"}
    assert set(first["source"]) == {"kind", "ref", "lines", "message_id"}
    assert "latte" in first["content"].lower()
    assert first["type"] == "chat_turn"  # the user's own words, then the fact read from them
    fact = data["results"][1]
    assert fact["type"] == "user_profile" and "latte" in fact["content"].lower()
    old = [r for r in data["results"] if "americano" in r["content"].lower() and r["type"] != "chat_turn"]
    assert old and old[0]["superseded_by"] == fact["id"]

    april = json.loads(cli("recall", "what coffee do I drink", "--as-of", "2026-04-15", "--json", home=home).stdout)
    assert "americano" in april["results"][0]["content"].lower()
    assert april["results"][0]["superseded_by"] is None or april["results"][0]["valid"]


def test_import_chat_keeps_message_ids(home, tmp_path):
    chat = tmp_path / "chat.jsonl"
    lines = [
        {"session_id": "a", "role": "user", "content": "My name is Ada.", "at": "2026-01-01T10:00:00Z", "id": "m1"},
        {"session_id": "a", "role": "assistant", "content": "Nice to meet you, Ada.", "at": "2026-01-01T10:00:05Z", "id": "m2"},
        {"session_id": "a", "role": "user", "content": "Ticket INC-88231 is about the VPN outage.", "at": "2026-01-01T10:01:00Z"},
    ]
    chat.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    done = cli("import-chat", str(chat), "--json", home=home)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["turns"] == 3
    data = json.loads(cli("recall", "what is my name", "--json", home=home).stdout)
    assert data["results"][0]["source"]["message_id"] == "m1"
    data = json.loads(cli("recall", "INC-88231", "--json", home=home).stdout)
    assert "VPN" in data["results"][0]["content"]


def test_malformed_jsonl_names_the_line_and_stores_nothing(home, tmp_path):
    remembered(home, ("I live in Porto", None))
    before = count_rows(home, "memories")
    chat = tmp_path / "bad.jsonl"
    chat.write_text('{"session_id":"a","role":"user","content":"I like jazz"}\n{"session_id": "a", "content": \n',
                    encoding="utf-8")
    done = cli("import-chat", str(chat), home=home)
    assert done.returncode == 2
    assert "bad.jsonl:2" in done.stderr and "malformed JSON" in done.stderr
    assert count_rows(home, "memories") == before


def test_bad_dates_are_named(home, tmp_path):
    done = cli("remember", "hello", "--at", "last tuesday", home=home)
    assert done.returncode == 2 and "'last tuesday'" in done.stderr
    chat = tmp_path / "dates.jsonl"
    chat.write_text('{"session_id":"a","role":"user","content":"hi","at":"2026-13-45"}\n', encoding="utf-8")
    done = cli("import-chat", str(chat), home=home)
    assert done.returncode == 2 and "2026-13-45" in done.stderr and "dates.jsonl:1" in done.stderr
    assert cli("recall", "x", "--as-of", "soon", home=home).returncode == 2


def test_recall_batch_and_health_and_export_and_forget(home, tmp_path):
    remembered(home, ("I drink Americano", "2026-03-01"), ("I switched to oat latte", "2026-05-01"))
    batch = tmp_path / "q.jsonl"
    batch.write_text('{"query": "what coffee do I drink"}\n{"query": "what coffee do I drink", "as_of": "2026-04-01", "k": 2}\n',
                     encoding="utf-8")
    out = cli("recall", "--batch", str(batch), home=home)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(rows) == 2 and "latte" in rows[0]["results"][0]["content"].lower()
    assert "americano" in rows[1]["results"][0]["content"].lower()

    health = json.loads(cli("health", "--json", home=home).stdout)
    assert health["memories"] == 2 and health["valid"] == 1 and health["freshness"] == 0.5

    export = tmp_path / "export"
    assert cli("export", str(export), home=home).returncode == 0
    assert (export / "memories.jsonl").read_text(encoding="utf-8").count("\n") >= 2
    assert json.loads((export / "graph.json").read_text(encoding="utf-8"))["nodes"]

    latte_id = rows[0]["results"][0]["id"]
    assert cli("forget", str(latte_id), home=home).returncode == 0
    after = json.loads(cli("recall", "what coffee do I drink", "--json", home=home).stdout)
    assert latte_id not in [r["id"] for r in after["results"]]
    missing = cli("forget", "999999", home=home)
    assert missing.returncode == 1 and "999999" in missing.stderr


def test_embedder_change_is_refused_not_mixed(home):
    remembered(home, ("I live in Porto", None))  # with the hashing embedder, as `--embedder hash`
    other = cli("recall", "where do I live", home=home, embedder="hash:128")
    assert other.returncode == 1 and "reembed" in other.stderr
    assert cli("reembed", home=home, embedder="hash:128").returncode == 0
    again = cli("recall", "where do I live", "--json", home=home, embedder="hash:128")
    assert again.returncode == 0 and "Porto" in json.loads(again.stdout)["results"][0]["content"]


def test_commands_use_the_embedder_chosen_on_the_settings_page(home):
    """The settings page saves the choice and the app opens the memory with it: so does every command."""
    from memory.settings import Settings, save_settings

    remembered(home, ("I live in Porto", None))  # embedded with the 256-dimension hashing embedder
    save_settings(home, Settings(embedder="hash:128"))
    refused = cli("recall", "where do I live", home=home, embedder=None)
    assert refused.returncode == 1 and "current embedder is hash:128" in refused.stderr
    assert cli("reembed", home=home, embedder=None).returncode == 0
    found = cli("recall", "where do I live", "--json", home=home, embedder=None)
    assert found.returncode == 0 and "Porto" in json.loads(found.stdout)["results"][0]["content"]
    flagged = cli("recall", "where do I live", "--embedder", "hash", home=home, embedder=None)
    assert flagged.returncode == 1 and "current embedder is hash:256" in flagged.stderr  # a flag still wins


def test_with_no_embedder_chosen_a_memory_opens_with_the_one_it_was_built_with(home):
    """`ingest --embedder local-static`, then `recall` with no flag: the memory's own embedder, not a refusal."""
    assert cli("remember", "I live in Porto", home=home, embedder="hash:64").returncode == 0
    found = cli("recall", "where do I live", "--json", home=home, embedder=None)
    assert found.returncode == 0, found.stderr
    assert "Porto" in json.loads(found.stdout)["results"][0]["content"]
    health = json.loads(cli("health", "--json", home=home, embedder=None).stdout)
    assert health["embedder"] == "hash:64"


def test_real_minilm_end_to_end(home):
    """The shipped all-MiniLM-L6-v2, offline, through the CLI."""
    assert cli("remember", "I drink Americano", "--at", "2026-03-01", home=home, embedder="local").returncode == 0
    assert cli("remember", "I switched to oat latte", "--at", "2026-05-01", home=home, embedder="local").returncode == 0
    cli("remember", "The Lisbon trip is booked for 12 May, flight TP1351.", "--at", "2026-02-01", home=home,
        embedder="local")
    batch = home.parent / "queries.jsonl"  # both queries in one `recall --batch` process (a JSON line each)
    batch.write_text('{"query": "what coffee do I drink"}\n{"query": "when do I fly to Portugal"}\n', encoding="utf-8")
    done = cli("recall", "--batch", str(batch), home=home, embedder="local")
    assert done.returncode == 0, done.stderr
    coffee, flight = (json.loads(line) for line in done.stdout.splitlines())
    assert "latte" in coffee["results"][0]["content"].lower()
    assert "TP1351" in flight["results"][0]["content"]


def test_recall_prints_a_snippet_with_source_and_validity_and_full_text_on_request(home):
    vault = ROOT / "tests" / "fixtures" / "vault"
    eng = open_engram(home)  # as `python -m memory ingest VAULT` does
    try:
        VaultIndexer(eng, vault).sync_all()
    finally:
        eng.close()
    whole = (vault / "Projects" / "Garden Planner.md").read_text(encoding="utf-8")
    short = cli("recall", "garden planner companion plants", "--k", "3", home=home)
    assert short.returncode == 0, short.stderr
    first = short.stdout.split("\n 2. ")[0]
    text, details = first.splitlines()[1], first.splitlines()[2]
    assert text.startswith(" 1. [fact_reference] Garden Planner: A small app") and "# " not in text
    assert len(text) < 220 and "Track harvests per bed" not in short.stdout  # a snippet, not the note
    assert re.fullmatch(r"    m:\d+ · score \d+\.\d\d · valid since \d{4}-\d\d-\d\d · note "
                        r"Projects/Garden Planner\.md:\d+-\d+", details), details
    full = cli("recall", "garden planner companion plants", "--k", "1", "--full", home=home)
    assert full.returncode == 0 and "Track harvests per bed." in full.stdout and "### Version 2" in full.stdout
    assert "[[Mira Chen]] designs the screens." in full.stdout and "Mira Chen" in whole


def test_recall_batch_echoes_only_the_start_of_a_long_query(home, tmp_path):
    remembered(home, ("I drink oat latte", None))
    long_query = "what do I drink " + "and also " * 20_000
    batch = tmp_path / "q.jsonl"
    batch.write_text(json.dumps({"query": long_query}) + "\n", encoding="utf-8")
    out = cli("recall", "--batch", str(batch), home=home)
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)
    assert row["query"] == long_query[:79] + "…" and len(out.stdout) < 10_000
    assert "latte" in row["results"][0]["content"]


def test_import_chat_refuses_a_line_without_role_and_stores_nothing(home, tmp_path):
    chat = tmp_path / "chat.jsonl"
    chat.write_text('{"session_id": "a", "role": "user", "content": "I like jazz"}\n'
                    '{"session_id": "a", "content": "I live in Porto"}\n', encoding="utf-8")
    done = cli("import-chat", str(chat), home=home)
    assert done.returncode == 2 and f"{chat}:2" in done.stderr and "'role' is missing" in done.stderr
    assert not (home / "engram.duckdb").exists() or count_rows(home, "events") == 0
