"""The live loop: real watchdog events on a real folder → indexer → recall reflects the vault."""
import os
import shutil
import time
from pathlib import Path

import pytest

from tests.helpers import open_engram
from vault_sync.service import VaultSync

FIXTURE = Path(__file__).parent / "fixtures" / "vault"


def wait_until(predicate, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


@pytest.fixture
def live(tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE, vault)
    eng = open_engram()
    sync = VaultSync(eng, vault, debounce_s=0.2)
    sync.start()
    yield eng, sync, vault
    sync.stop()
    eng.close()


def refs_for(eng, query: str) -> list[str]:
    return [r.provenance.ref for r in eng.recall(query, k=10).results if r.unit.type == "fact_reference"
            and query.split()[0].lower() in r.unit.content.lower()]


def test_edit_rename_move_delete_recreate(live):
    eng, sync, vault = live
    note = vault / "Ideas.md"
    note.write_text("# Ideas\n\nBuild a kumquat marmalade stand at the market.\n", encoding="utf-8")
    assert wait_until(lambda: refs_for(eng, "kumquat marmalade stand") == ["Ideas.md"])

    note.write_text("# Ideas\n\nBuild a quince jelly stall at the market.\n", encoding="utf-8")
    assert wait_until(lambda: refs_for(eng, "quince jelly stall") == ["Ideas.md"])
    assert refs_for(eng, "kumquat marmalade stand") == []

    os.rename(note, vault / "Market Ideas.md")
    assert wait_until(lambda: refs_for(eng, "quince jelly stall") == ["Market Ideas.md"])

    (vault / "Archive").mkdir(exist_ok=True)
    os.rename(vault / "Market Ideas.md", vault / "Archive" / "Market Ideas.md")
    assert wait_until(lambda: refs_for(eng, "quince jelly stall") == ["Archive/Market Ideas.md"])

    (vault / "Archive" / "Market Ideas.md").unlink()
    assert wait_until(lambda: refs_for(eng, "quince jelly stall") == [])

    (vault / "Archive" / "Market Ideas.md").write_text("# Ideas\n\nBuild a quince jelly stall again.\n",
                                                        encoding="utf-8")
    assert wait_until(lambda: refs_for(eng, "quince jelly stall") == ["Archive/Market Ideas.md"])


def test_rename_over_save_like_an_editor(live):
    eng, sync, vault = live
    note = vault / "Recipes" / "Lentil Soup.md"
    tmp = vault / "Recipes" / ".Lentil Soup.md.tmp"
    tmp.write_text("# Lentil Soup\n\nAdd a spoon of sumac before serving.\n", encoding="utf-8")
    os.replace(tmp, note)
    assert wait_until(lambda: refs_for(eng, "sumac before serving") == ["Recipes/Lentil Soup.md"])
    assert refs_for(eng, "sumac before serving").count("Recipes/Lentil Soup.md") == 1


def test_burst_of_200_changes(live):
    eng, sync, vault = live
    folder = vault / "Burst"
    folder.mkdir()
    for n in range(200):
        (folder / f"Item {n}.md").write_text(f"# Item {n}\n\nBurst token zq{n}x marks item {n}.\n", encoding="utf-8")
    count = lambda: eng.store.query(  # noqa: E731
        "SELECT count(*) FROM sources WHERE kind = 'note' AND ref LIKE 'Burst/%' AND deleted_at IS NULL")[0][0]
    assert wait_until(lambda: count() == 200, timeout=120)
    for n in range(0, 200, 2):
        (folder / f"Item {n}.md").unlink()
    assert wait_until(lambda: count() == 100, timeout=60)
    assert wait_until(lambda: refs_for(eng, "zq3x") == ["Burst/Item 3.md"])
    assert refs_for(eng, "zq4x") == []
    dupes = eng.store.query(
        """SELECT source_id, content, count(*) FROM memories WHERE valid_until IS NULL AND type = 'fact_reference'
           GROUP BY ALL HAVING count(*) > 1""")
    assert dupes == []
    assert sync.watcher.status().batches < 100
    assert sync.status()["backlog"] == 0
