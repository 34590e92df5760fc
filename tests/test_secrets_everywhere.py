"""A vault and a chat file full of secrets leave no trace: not in the database file, export, recall,
entities, the graph, nor any request a (fake) model receives."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.fake_ollama import FakeOllama

ROOT = Path(__file__).resolve().parents[1]

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
CARD = "4111111111111111"  # passes Luhn
LABELLED_CARD = "6222021234567890127"  # 19 digits after 卡号, checksum fails: redacted for its label
CN_ID = "110101199003074573"
IBAN = "DE89 3704 0044 0532 0130 00"
PASSWORD = "Tr0ub4dor&3x!"
KEY_LINE = "MIIEowIBAAKCAQEA7bqN2Lw"
SECRETS = {
    "aws key": AWS_KEY, "jwt": JWT, "card": CARD, "labelled card": LABELLED_CARD, "national id": CN_ID,
    "iban": IBAN.replace(" ", ""), "iban spaced": IBAN, "password": PASSWORD, "password body": "Tr0ub4dor",
    "private key": KEY_LINE, "frontmatter token": "ghp_Ab1Cd2Ef3GAb1Cd2Ef3GAb1Cd2Ef3Gh4Ij5K",
    "tag card": "5500005555555559", "title key": "AKIAI44QH8DHBEXAMPLE",
}

NOTE = f"""---
title: Accounts
api_token: ghp_Ab1Cd2Ef3GAb1Cd2Ef3GAb1Cd2Ef3Gh4Ij5K
tags: [finance]
---
# Accounts

My password: {PASSWORD}
The AWS key {AWS_KEY} belongs to the backup job. Session token {JWT}.
Card {CARD}, IBAN {IBAN}, 身份证号 {CN_ID}, 卡号 {LABELLED_CARD}.
Filed under #card-5500005555555559 and #finance.

```
aws_access_key_id = {AWS_KEY}
-----BEGIN RSA PRIVATE KEY-----
{KEY_LINE}
qN2Lw+/xZ
-----END RSA PRIVATE KEY-----
```

The garden project with Mira Chen starts in May.
"""


def run(*args: str, home: Path, ollama: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, ENGRAM_HOME=str(home), ENGRAM_EMBEDDER="hash", HF_HUB_OFFLINE="1")
    if ollama:
        env["ENGRAM_OLLAMA_URL"] = ollama
    done = subprocess.run([sys.executable, "-m", "memory", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done


def leaks(text: str) -> list[str]:
    return [name for name, secret in SECRETS.items() if secret in text]


@pytest.fixture(scope="module")
def stocked(tmp_path_factory):
    """The data folder after ingest, import-chat and ask; built once, as both tests only read it
    (the export goes to a folder of its own). Yields (home, scratch folder, the fake model)."""
    tmp_path = tmp_path_factory.mktemp("stocked")
    with FakeOllama() as fake_ollama:
        yield _stock(tmp_path, fake_ollama), tmp_path, fake_ollama


def _stock(tmp_path: Path, fake_ollama: FakeOllama) -> Path:
    vault = tmp_path / "vault"
    (vault / "Finance").mkdir(parents=True)
    (vault / "Finance" / "Accounts.md").write_text(NOTE, encoding="utf-8")
    (vault / "Finance" / f"keys {SECRETS['title key']}.md").write_text("Rotate these keys yearly.\n", encoding="utf-8")
    (vault / "Garden.md").write_text(f"# Garden\n\nSee [[Accounts]] for the budget and [[keys {SECRETS['title key']}]] "
                                     f"for the keys.\n", encoding="utf-8")
    chat = tmp_path / "chat.jsonl"
    lines = [
        {"session_id": "s1", "role": "user", "content": f"my password is {PASSWORD} and my card is {CARD}",
         "at": "2026-03-01T09:00:00Z", "id": "m1"},
        {"session_id": "s1", "role": "user", "content": f"卡号 {LABELLED_CARD}，身份证号 {CN_ID}，我住在上海",
         "at": "2026-03-01T09:01:00Z", "id": "m2"},
        {"session_id": "s1", "role": "user",
         "content": f"here is the key\n-----BEGIN RSA PRIVATE KEY-----\n{KEY_LINE}\n-----END RSA PRIVATE KEY-----",
         "at": "2026-03-01T09:02:00Z", "id": "m3"},
        {"session_id": "s1", "role": "user", "content": f"IBAN {IBAN}; token {JWT}; aws {AWS_KEY}",
         "at": "2026-03-01T09:03:00Z", "id": "m4"},
    ]
    chat.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines) + "\n", encoding="utf-8")
    home = tmp_path / "home"
    run("ingest", str(vault), home=home)
    run("import-chat", str(chat), home=home)
    fake_ollama.reply = "Noted [m:1]."
    run("ask", f"is my password {PASSWORD} still the one on file?", home=home, ollama=fake_ollama.url)
    return home


def test_no_secret_reaches_the_database_file_export_recall_or_graph(stocked):
    home, tmp_path, _ = stocked
    run("check", home=home)  # CHECKPOINTs nothing half-written; the file is what a thief would read
    raw = b"".join(p.read_bytes() for p in home.rglob("*") if p.is_file())
    found = [name for name, secret in SECRETS.items() if secret.encode() in raw]
    assert not found, f"in the data folder's files: {found}"

    out = tmp_path / "export"
    run("export", str(out), home=home)
    exported = "".join(p.read_text(encoding="utf-8") for p in out.iterdir())
    assert not leaks(exported), leaks(exported)
    assert "Mira Chen" in exported  # what is not secret is still there

    queries = ("password", "AWS key backup job", "card IBAN", "private key", "keys rotate", "我住在哪里")
    batch = tmp_path / "queries.jsonl"  # one `recall --batch` process prints each query's --json results
    batch.write_text("".join(json.dumps({"query": q}, ensure_ascii=False) + "\n" for q in queries), encoding="utf-8")
    lines = run("recall", "--batch", str(batch), home=home).stdout.splitlines()
    assert len(lines) == len(queries) and all(json.loads(line)["results"] for line in lines)
    for query, recalled in zip(queries, lines):
        assert not leaks(recalled), (query, leaks(recalled))
    graph = json.loads((out / "graph.json").read_text(encoding="utf-8"))
    names = " ".join(str(node.get("name") or node.get("ref") or node.get("title") or "") for node in graph["nodes"])
    assert not leaks(names) and "Mira Chen" in names


def test_no_secret_reaches_the_model(stocked):
    _, _, fake_ollama = stocked
    assert fake_ollama.requests, "the ask went to the fake model"
    sent = json.dumps([r.body for r in fake_ollama.requests], ensure_ascii=False)
    assert not leaks(sent), leaks(sent)
