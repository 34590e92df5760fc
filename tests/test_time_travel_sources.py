"""What was true when, from notes whose files are all "today" and from chat with relative dates (issue 10)."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import at, open_engram
from tests.test_note_time import commit, git, needs_git

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, ENGRAM_HOME=str(home), ENGRAM_EMBEDDER="hash", HF_HUB_OFFLINE="1")
    done = subprocess.run([sys.executable, "-m", "memory", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done


def recall_batch(home: Path, tmp_path: Path, queries: list[tuple[str, str | None]]) -> list[dict]:
    batch = tmp_path / "queries.jsonl"
    batch.write_text("".join(json.dumps({"query": q, "as_of": a, "k": 5} if a else {"query": q, "k": 5},
                                        ensure_ascii=False) + "\n" for q, a in queries), encoding="utf-8")
    out = cli("recall", "--batch", str(batch), "--json", home=home)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def first_slot(result: dict) -> dict:
    """The first result that is a fact about the user (not a note chunk)."""
    return next(r for r in result["results"] if r["type"] == "user_profile")


def test_sample_vault_answers_what_was_true_when(tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(ROOT / "sample_vault", vault)  # every file time is now "today"
    home = tmp_path / "home"
    cli("ingest", str(vault), home=home)
    work_then, work_now, home_then, home_now, zh_then, zh_now = recall_batch(home, tmp_path, [
        ("where do I work", "2025-06-01"), ("where do I work", None),
        ("where did I live", "2024-06-01"), ("where do I live", None),
        ("我在哪里学中文", "2024-06-01"), ("我在哪里学中文", None),
    ])
    assert "Blue Fern" in first_slot(work_then)["content"] and first_slot(work_then)["valid"]
    assert "Northwind" in first_slot(work_now)["content"] and first_slot(work_now)["valid"]
    history = [r for r in work_now["results"] if "Blue Fern" in r["content"] and r["type"] == "user_profile"]
    assert history and not history[0]["valid"] and history[0]["valid_until"].startswith("2026-02-01")

    assert "Amsterdam" in first_slot(home_then)["content"] and first_slot(home_then)["valid"]
    assert "Utrecht" in first_slot(home_now)["content"]
    assert any("Amsterdam" in r["content"] and not r["valid"] for r in home_now["results"])

    assert "阿姆斯特丹大学" in first_slot(zh_then)["content"]
    assert "孔子学院" in first_slot(zh_now)["content"]
    assert any("阿姆斯特丹大学" in r["content"] and not r["valid"] for r in zh_now["results"])

    # a note is dated by what it says, never "since today" because it was synced today
    about = [r for r in work_now["results"] if r["type"] == "fact_reference" and r["source"]["ref"] == "About Me.md"]
    assert all(r["valid_from"] < "2026-05-01" for r in about)


@needs_git
def test_a_fresh_clone_answers_as_of_by_its_own_dates(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, {"Garden.md": "---\ncreated: 2019-04-01\n---\n# Garden\nThe allotment grows quinces and rhubarb.\n",
                  "Journal/2021-03-04.md": "- Ran the canal half marathon in 1:52.\n",
                  ".obsidian/daily-notes.json": json.dumps({"folder": "Journal"})}, "2021-03-05T10:00:00Z")
    commit(repo, {"Kestrel.md": "# Kestrel\nProject Kestrel builds the bird-ringing database.\n"},
           "2022-09-12T10:00:00Z")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", repo.as_uri(), str(clone)], check=True, capture_output=True,
                   env=dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull))
    home = tmp_path / "home"
    cli("ingest", str(clone), home=home)
    queries = [("quinces rhubarb allotment", "2020-01-01"), ("quinces rhubarb allotment", "2019-01-01"),
               ("canal half marathon", "2021-03-04T12:00:00"), ("canal half marathon", "2021-03-01"),
               ("Kestrel bird-ringing database", "2022-10-01"), ("Kestrel bird-ringing database", "2022-01-01")]
    found = [[r["source"]["ref"] for r in res["results"] if r["valid"]] for res in recall_batch(home, tmp_path, queries)]
    assert "Garden.md" in found[0] and "Garden.md" not in found[1]  # frontmatter
    assert "Journal/2021-03-04.md" in found[2] and "Journal/2021-03-04.md" not in found[3]  # daily-note name
    assert "Kestrel.md" in found[4] and "Kestrel.md" not in found[5]  # git history


@pytest.mark.parametrize("earlier, later, then_city, now_city, query", [
    ("I live in York, near the Minster.", "We finally moved into the flat in Leeds two weeks ago!",
     "York", "Leeds", "where did I live"),
    ("我住在南京。", "我们两周前终于搬进了杭州的新公寓。", "南京", "杭州", "我住在哪里"),
], ids=["english", "chinese"])
def test_relative_dates_in_chat_resolve_against_the_message_time(earlier, later, then_city, now_city, query):
    eng = open_engram()
    try:
        eng.remember(earlier, at=at("2024-05-01T09:00:00"), session_id="a")
        eng.remember(later, at=at("2024-06-20T09:00:00"), session_id="b")
        moved = next(r for r in eng.recall(query, as_of=at("2024-06-10T00:00:00"), k=5).results
                     if r.unit.type == "user_profile")
        assert now_city in moved.unit.content and moved.valid
        assert at("2024-06-05T00:00:00") <= moved.unit.valid_from <= at("2024-06-07T00:00:00")
        assert "2024-06-06" in moved.unit.content  # the absolute date beside the user's own words
        before = eng.recall(query, as_of=at("2024-06-01T00:00:00"), k=5).results[0]  # the user's own words then
        assert then_city in before.unit.content and before.valid
    finally:
        eng.close()
