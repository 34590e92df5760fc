"""The freshness page: health metrics against their thresholds, charts, expiring memories, archive and purge."""
from __future__ import annotations

import json

from datetime import datetime, timedelta, timezone

import pytest
from streamlit.testing.v1.errors import AppTestError

from tests.pages_support import page, page_env, texts  # noqa: F401  (fixture)


def seed_coffee():
    from ui import common

    eng = common.engram()
    eng.remember("I drink Americano", at=datetime(2026, 3, 1, 8, tzinfo=timezone.utc))
    eng.remember("I switched to oat latte", at=datetime(2026, 5, 1, 8, tzinfo=timezone.utc))
    old, new = (r[0] for r in eng.store.query(
        "SELECT id FROM memories WHERE type = 'user_profile' ORDER BY valid_from"))
    return eng, old, new


def metric(at, label: str):
    return next(m for m in at.metric if m.label == label)


def test_empty_store(page_env):
    at = page("freshness.py").run()
    assert not at.exception
    assert "Your memory is empty" in texts(at.info)
    assert metric(at, "Freshness").value == "—"
    assert metric(at, "Valid").value == "0"
    assert not at.warning
    assert at.button(key="fr_purge").disabled


def test_metrics_after_a_knowledge_update(page_env):
    seed_coffee()
    at = page("freshness.py").run()
    assert not at.exception
    freshness = metric(at, "Freshness")
    assert freshness.value == "50%"  # one valid, one superseded
    assert freshness.delta == "-35 pts vs 85% alert"
    assert "freshness 50% is below 85%" in texts(at.warning).lower()
    counts = {m.label: m.value for m in at.metric}
    assert counts["Valid"] == "1" and counts["Superseded"] == "1" and counts["Archived"] == "0"
    assert counts["Chat turns"] == "2"
    assert metric(at, "Hit rate").value == "—"
    assert metric(at, "Amnesia alert").value == "off"
    charts = at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
    assert charts  # freshness over time
    x = json.loads(charts[0].proto.spec)["layer"][0]["encoding"]["x"]
    assert x["axis"]["format"] == "%d %b"  # days, never ".105" (milliseconds) when one point has memories
    start, end = (datetime.fromisoformat(d) for d in x["scale"]["domain"])
    assert end - start == timedelta(days=90)


def test_expiring_soon_table(page_env):
    eng, _, new = seed_coffee()
    eng.edit(new, valid_until=datetime.now(timezone.utc) + timedelta(hours=12))
    at = page("freshness.py").run()
    table = at.dataframe[0].value
    assert list(table["memory"]) == ["User now drinks oat latte."]
    assert "💬 session default" in table["source"][0]
    assert metric(at, "Expiring in 24 h").value == "1"


def test_archive_needs_confirmation_then_archives(page_env):
    eng, old, new = seed_coffee()
    at = page("freshness.py").run()
    assert at.button(key="fr_archive").disabled
    at.checkbox(key="fr_archive_ok").check().run()
    at.button(key="fr_archive").click().run()
    assert not at.exception
    assert "Archived 1 memory" in texts(at.success)
    assert eng.store.memory(old).archived and not eng.store.memory(new).archived
    assert metric(at, "Archived").value == "1"
    assert not at.checkbox(key="fr_archive_ok").value  # the confirmation is used up


@pytest.mark.parametrize("archive_first", [False, True])
def test_purge_forgets_expired_and_archived(page_env, archive_first):
    eng, old, new = seed_coffee()
    if archive_first:
        eng.set_archived(old)
    at = page("freshness.py").run()
    assert "(now 1 memory)" in texts(at.markdown)
    with pytest.raises(AppTestError, match="disabled"):
        at.button(key="fr_purge").click()
    at.checkbox(key="fr_purge_ok").check().run()
    at.button(key="fr_purge").click().run()
    assert not at.exception
    assert "Forgot 1 memory for good" in texts(at.success)
    remaining = {r[0] for r in eng.store.query("SELECT id FROM memories")}
    assert old not in remaining and new in remaining
    assert eng.store.query("SELECT count(*) FROM audit WHERE action = 'forget'")[0][0] == 1
    assert metric(at, "Freshness").value == "100%"
    assert at.button(key="fr_purge").disabled  # nothing left to purge
