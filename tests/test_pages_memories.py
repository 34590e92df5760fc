"""The memories page: browse, filter, edit, archive, forget (with an audit entry) and export."""
from __future__ import annotations

import json
from datetime import date

from tests.pages_support import page, page_env, texts  # noqa: F401  (fixture)


def seed() -> dict[str, int]:
    from ui import common

    eng = common.engram()
    eng.remember("I drink an oat latte every morning.", session_id="seed")
    eng.remember("My sister Mara lives in Lisbon.", session_id="seed")
    rows = eng.store.query("SELECT id, content FROM memories ORDER BY type = 'chat_turn', id")
    return {word: next(i for i, content in rows if word in content) for word in ("latte", "Lisbon")}


def table_ids(at) -> set[int]:
    return set(at.dataframe[0].value["id"]) if at.dataframe else set()


def test_empty_store(page_env):
    at = page("memories.py").run()
    assert not at.exception
    assert at.title[0].value == "🗂️ Memories"
    assert "No memories yet" in texts(at.info)
    assert at.button(key="memories_export")
    assert at.expander[0].label.startswith("Audit log")


def test_empty_store_export(page_env, tmp_path):
    at = page("memories.py").run()
    at.text_input(key="memories_export_folder").set_value(str(tmp_path / "out")).run()
    at.button(key="memories_export").click().run()
    assert not at.exception
    assert (tmp_path / "out" / "manifest.json").exists()
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["counts"]["memories"] == 0


def test_filter_finds_a_stored_memory(page_env):
    ids = seed()
    at = page("memories.py").run()
    assert not at.exception
    assert {ids["latte"], ids["Lisbon"]} <= table_ids(at)
    assert list(at.dataframe[0].value.columns) == [
        "id", "type", "content", "valid from", "valid until", "superseded_by", "relevance", "archived", "source"]
    assert set(at.dataframe[0].value["superseded_by"]) == {""}  # nothing superseded: blank, never "None"

    at.text_input(key="memories_text").set_value("Lisbon").run()
    assert ids["Lisbon"] in table_ids(at)
    assert ids["latte"] not in table_ids(at)

    at.text_input(key="memories_text").set_value(f"m:{ids['latte']}").run()
    assert ids["latte"] in table_ids(at)

    at.text_input(key="memories_text").set_value("").run()
    at.selectbox(key="memories_state").set_value("superseded").run()
    assert not at.exception
    assert "No memory matches" in texts(at.info)


def test_edit_changes_content_and_rejects_bad_dates(page_env):
    from ui import common

    ids = seed()
    memory_id = ids["latte"]
    at = page("memories.py").run()
    at.selectbox(key="memories_pick").set_value(memory_id).run()
    at.text_area(key=f"memories_edit_content_{memory_id}").set_value("The user drinks a flat white.")
    at.button(key=f"FormSubmitter:memories_edit_{memory_id}-Save changes").click().run()
    assert not at.exception
    store = common.engram().store
    old = store.memory(memory_id)
    assert old.content == "User drinks oat latte." and old.superseded_at is not None  # the corrected record
    corrected = store.memory(old.superseded_by)
    assert corrected.content == "The user drinks a flat white." and corrected.superseded_at is None
    assert f"Saved m:{memory_id} as m:{corrected.id}" in texts(at.success)
    assert at.selectbox(key="memories_pick").value == corrected.id

    new_id = corrected.id
    start = corrected.valid_from.date()
    at.checkbox(key=f"memories_edit_open_{new_id}").uncheck()
    at.date_input(key=f"memories_edit_until_{new_id}").set_value(date(start.year - 1, 1, 1))
    at.button(key=f"FormSubmitter:memories_edit_{new_id}-Save changes").click().run()
    assert not at.exception
    assert "must be after valid from" in texts(at.error)
    assert store.memory(new_id).valid_until is None


def test_archive_and_unarchive(page_env):
    from ui import common

    memory_id = seed()["Lisbon"]
    at = page("memories.py").run()
    at.selectbox(key="memories_pick").set_value(memory_id).run()
    at.button(key="memories_archive").click().run()
    assert common.engram().store.memory(memory_id).archived
    at.selectbox(key="memories_state").set_value("archived").run()
    assert table_ids(at) == {memory_id}
    assert at.button(key="memories_archive").label == "Unarchive"
    at.button(key="memories_archive").click().run()
    assert not common.engram().store.memory(memory_id).archived


def test_forget_needs_confirmation_and_writes_audit(page_env):
    from ui import common

    memory_id = seed()["Lisbon"]
    at = page("memories.py").run()
    at.selectbox(key="memories_pick").set_value(memory_id).run()
    assert at.button(key="memories_forget").disabled
    at.checkbox(key=f"memories_forget_sure_{memory_id}").check().run()
    at.button(key="memories_forget").click().run()
    assert not at.exception
    assert f"Forgotten m:{memory_id}" in texts(at.success)
    assert memory_id not in table_ids(at)
    assert memory_id not in {r.unit.id for r in common.engram().recall("Lisbon").results}
    audit = common.engram().store.query("SELECT action, target, detail FROM audit")
    assert ("forget", f"memory:{memory_id}") in {(a, t) for a, t, _ in audit}
    assert all("Lisbon" not in detail for _, _, detail in audit)
    audit_table = [d for d in at.dataframe if "action" in d.value.columns]
    assert audit_table and "forget" in set(audit_table[0].value["action"])


def test_export_writes_files(page_env, tmp_path):
    seed()
    at = page("memories.py").run()
    assert at.text_input(key="memories_export_folder").value.startswith(str(page_env / "export-"))
    target = tmp_path / "export"
    at.text_input(key="memories_export_folder").set_value(str(target)).run()
    at.button(key="memories_export").click().run()
    assert not at.exception
    assert f"Exported to {target}" in texts(at.success)
    for name in ("memories.jsonl", "events.jsonl", "graph.json", "manifest.json"):
        assert (target / name).exists(), name
    manifest = json.loads((target / "manifest.json").read_text())
    assert manifest["counts"]["memories"] >= 2
    counts = [d for d in at.dataframe if "rows" in d.value.columns][0].value
    assert dict(zip(counts["table"], counts["rows"]))["memories"] == manifest["counts"]["memories"]


def test_reached_through_navigation(page_env):
    from streamlit.testing.v1 import AppTest

    from tests.pages_support import ROOT, TIMEOUT

    seed()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("pages/memories.py").run()
    assert not at.exception
    assert at.title[0].value == "🗂️ Memories"
    assert len(table_ids(at)) >= 2
