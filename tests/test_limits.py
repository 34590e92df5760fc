"""No single input stops the work: huge notes and messages are processed in pieces or by keywords only,
each named with its reason, and everything else is indexed."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORDS = "alpha beta gamma delta project garden meeting budget review plan notes".split()


def cli(*args: str, home: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, ENGRAM_HOME=str(home), ENGRAM_EMBEDDER="hash", HF_HUB_OFFLINE="1")
    return subprocess.run([sys.executable, "-m", "memory", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=900)


def words(count: int, seed: int) -> str:
    return " ".join(WORDS[(i * 7 + seed) % len(WORDS)] + str(i % 97) for i in range(count))


def test_a_vault_of_huge_notes_is_indexed_with_each_large_note_named(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "one paragraph.md").write_text("# One\n\n" + words(130_000, 1)[:1_100_000] + "\n", encoding="utf-8")
    (vault / "links.md").write_text("# Links\n\n" + " ".join(f"[[Note {i}]]" for i in range(100_000)) + "\n",
                                    encoding="utf-8")
    (vault / "five mb.md").write_text("# Five\n\n" + "\n\n".join(words(120, n) for n in range(5_500)) + "\n",
                                      encoding="utf-8")
    (vault / "Garden.md").write_text("# Garden\n\nMira Chen plants tomatoes in the Lisbon garden.\n", encoding="utf-8")
    home = tmp_path / "home"
    done = cli("ingest", str(vault), "--json", home=home)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["indexed"] == 4 and not report["skipped"]
    assert {item["path"] for item in report["limited"]} == {"one paragraph.md", "links.md", "five mb.md"}
    assert all("keywords only" in item["reason"] for item in report["limited"])
    batch = tmp_path / "queries.jsonl"  # both queries in one `recall --batch` process (a JSON line each)
    batch.write_text(json.dumps({"query": "who plants tomatoes"}) + "\n"
                     + json.dumps({"query": "gamma7 delta8", "k": 50}) + "\n", encoding="utf-8")
    recalled = cli("recall", "--batch", str(batch), home=home)
    assert recalled.returncode == 0, recalled.stderr[-2000:]
    tomatoes, found = (json.loads(line) for line in recalled.stdout.splitlines())
    assert tomatoes["results"][0]["source"]["ref"] == "Garden.md"
    assert "five mb.md" in {r["source"]["ref"] for r in found["results"]}  # the big note is found by its words


def test_a_five_megabyte_message_does_not_stop_an_import(tmp_path):
    chat = tmp_path / "chat.jsonl"
    lines = [
        {"session_id": "s", "role": "user", "content": "I live in Porto.", "at": "2026-01-01T00:00:00Z", "id": "a"},
        {"session_id": "s", "role": "user", "content": words(600_000, 3)[:5_000_000], "at": "2026-01-02T00:00:00Z",
         "id": "b"},
        {"session_id": "s", "role": "user", "content": "My dog is called Rex.", "at": "2026-01-03T00:00:00Z", "id": "c"},
    ]
    chat.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    home = tmp_path / "home"
    done = cli("import-chat", str(chat), "--json", home=home)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["turns"] == 3
    top = json.loads(cli("recall", "what is my dog called", "--json", home=home).stdout)["results"][0]
    assert "Rex" in top["content"]
    assert cli("check", home=home).returncode == 0


def test_a_pasted_document_is_read_for_statement_marks_as_far_as_for_facts():
    """A message past FACT_CHARS is a pasted document: what it says of the user is read in its first part only, as its
    facts are, and marking the rest would cost seconds for nothing."""
    from memory.extract import FACT_CHARS
    from memory.extract.attributes import statement_marks

    document = words(FACT_CHARS // 6, 5)
    assert len(document) > FACT_CHARS
    assert "§home_location" in statement_marks("I moved to Porto last week. " + document)
    assert "§home_location" not in statement_marks(document + " I moved to Porto last week.")
