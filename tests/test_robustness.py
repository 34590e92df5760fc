"""Inputs a careful user or an attacker would try, through the CLI as a user runs it."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory.chat import Chat
from memory.errors import BadInputError, PromptTooLargeError
from memory.llm import ChatModel
from tests.helpers import at, open_engram
from vault_sync.scan import SCAN_PROGRESS_EVERY, scan_vault

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, ENGRAM_HOME=str(home), ENGRAM_EMBEDDER="hash", HF_HUB_OFFLINE="1")
    return subprocess.run([sys.executable, "-m", "memory", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)


def count(home: Path, sql: str) -> int:
    import duckdb
    conn = duckdb.connect(str(home / "engram.duckdb"), read_only=True)
    try:
        return conn.execute(sql).fetchone()[0]
    finally:
        conn.close()


def test_importing_the_same_file_twice_stores_it_once(tmp_path):
    chat = tmp_path / "chat.jsonl"
    lines = [{"session_id": "s", "role": "user", "content": "I live in York.", "at": "2026-01-01T10:00:00Z", "id": "a"},
             {"session_id": "s", "role": "user", "content": "I drink tea.", "at": "2026-01-01T10:01:00Z"}]
    chat.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    home = tmp_path / "home"
    assert cli("import-chat", str(chat), home=home).returncode == 0
    again = cli("import-chat", str(chat), "--json", home=home)
    assert again.returncode == 0 and json.loads(again.stdout)["skipped"] == 2
    assert count(home, "SELECT count(*) FROM events") == 2
    assert cli("remember", "Note this", "--id", "X", home=home).returncode == 0
    twice = cli("remember", "Note this", "--id", "X", home=home)
    assert twice.returncode == 0 and "already remembered" in twice.stdout
    assert count(home, "SELECT count(*) FROM events WHERE message_id = 'X'") == 1


def test_a_message_dated_in_the_future_leaves_todays_value_in_place(tmp_path):
    home = tmp_path / "home"
    assert cli("remember", "I live in York.", "--at", "2026-01-01", home=home).returncode == 0
    assert cli("remember", "I moved to Mars.", "--at", "2099-01-01", home=home).returncode == 0
    now = json.loads(cli("recall", "where do I live", "--json", home=home).stdout)["results"]
    assert "York" in now[0]["content"] and now[0]["valid"]
    later = json.loads(cli("recall", "where do I live", "--as-of", "2099-06-01", "--json", home=home).stdout)
    assert "Mars" in later["results"][0]["content"]


def test_the_saved_redaction_settings_apply_in_the_cli(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"redaction": {"emails": True}}), encoding="utf-8")
    assert cli("remember", "Write to me at ana.silva@example.org please", home=home).returncode == 0
    assert count(home, "SELECT count(*) FROM events WHERE text LIKE '%ana.silva@%'") == 0
    assert count(home, "SELECT count(*) FROM memories WHERE content LIKE '%[REDACTED:email]%'") >= 1


def test_offline_replies_are_kept_in_the_session_but_never_recalled(tmp_path):
    eng = open_engram(tmp_path / "home")
    eng.remember("I drink oat latte.", at=at("2026-03-01T08:00:00"))
    model = ChatModel("http://127.0.0.1:9", "none", context_window=4096, request_timeout=2)  # nothing listens
    chat = Chat(eng, model)
    outcome = chat.ask("what do I drink?", session_id="s")
    assert outcome.offline and "ollama" in outcome.reply.lower()
    assert [t.offline for t in chat.session_turns("s")] == [False, True]  # shown in the transcript
    recalled = eng.recall("ollama serve pull model start", k=20).results
    assert not [r for r in recalled if "ollama" in r.unit.content.lower()]
    assert eng.check().clean
    eng.close()
    model.close()


def test_empty_and_oversized_questions_are_refused_before_anything_is_stored(tmp_path):
    eng = open_engram(tmp_path / "home")
    chat = Chat(eng, None, context_window=1024, reserve_for_reply=256)
    with pytest.raises(BadInputError):
        chat.ask("   ")
    with pytest.raises(PromptTooLargeError):
        chat.ask("tell me about " + "the garden and the budget " * 400)
    assert eng.store.count("events") == 0 and eng.store.count("memories") == 0
    eng.close()


@pytest.mark.parametrize("args, message", [
    (("recall", "x", "--k", "-5"), "--k must be between 1 and 1000"),
    (("recall", "x", "--k", "0"), "--k must be between 1 and 1000"),
    (("recall", "   "), "the query is empty"),
    (("ingest", "/"), "system or home folder"),
    (("ask", ""), "the message is empty"),
])
def test_bad_arguments_get_a_clear_error(tmp_path, args, message):
    done = cli(*args, home=tmp_path / "home")
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_a_lone_surrogate_names_its_line(tmp_path):
    chat = tmp_path / "chat.jsonl"
    chat.write_text('{"session_id": "s", "role": "user", "content": "fine"}\n'
                    '{"session_id": "s", "role": "user", "content": "bad \\ud800 x"}\n',
                    encoding="utf-8")
    done = cli("import-chat", str(chat), home=tmp_path / "home")
    assert done.returncode == 2 and f"{chat}:2" in done.stderr and "surrogate" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_long_scan_reports_progress(tmp_path):
    for n in range(SCAN_PROGRESS_EVERY * 2 + 1):
        (tmp_path / f"n{n}.md").write_text("x", encoding="utf-8")
    seen: list[int] = []
    result = scan_vault(tmp_path, seen.append)
    assert len(result.notes) == SCAN_PROGRESS_EVERY * 2 + 1
    assert seen == [SCAN_PROGRESS_EVERY, SCAN_PROGRESS_EVERY * 2]
