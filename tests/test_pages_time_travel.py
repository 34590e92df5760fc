"""The time-travel page: what was valid on a day, the validity timeline, and the diff between two days."""
from __future__ import annotations

import os
from datetime import date, datetime, timezone

from tests.pages_support import page, page_env, texts  # noqa: F401  (fixture)


def seed_coffee():
    from ui import common

    eng = common.engram()
    eng.remember("I drink Americano", at=datetime(2026, 3, 1, 8, tzinfo=timezone.utc))
    eng.remember("I switched to oat latte", at=datetime(2026, 5, 1, 8, tzinfo=timezone.utc))
    return eng


def results(at) -> list[str]:
    """The result cards: one markdown line per memory, led by its type icon."""
    return [m.value for m in at.markdown if m.value.startswith("🙂")]


def tab(at, title: str):
    return next(t for t in at.tabs if t.label.startswith(title))


def test_empty_store_explains(page_env):
    at = page("time_travel.py").run()
    assert not at.exception
    assert "your memory is empty" in texts(at.info)
    assert not at.slider


def test_slider_moves_through_a_knowledge_update(page_env):
    seed_coffee()
    at = page("time_travel.py").run()
    assert not at.exception
    slider = at.slider(key="tt_day")
    assert slider.value == datetime.now(timezone.utc).date()
    assert datetime.fromtimestamp(slider.min / 1e6, timezone.utc).date() == date(2026, 3, 1)  # earliest memory
    now = results(at)
    assert now == ["🙂 User now drinks oat latte."]

    slider.set_value(date(2026, 4, 1)).run()
    april = results(at)
    assert april == ["🙂 User drinks Americano."]
    assert "supersede" in texts(at.caption)  # its validity: superseded on 2026-05-01
    assert "💬 session default" in texts(at.caption)

    at.slider(key="tt_day").set_value(date(2026, 5, 1)).run()  # the day of the switch: the new value holds
    assert results(at) == ["🙂 User now drinks oat latte."]


def test_query_at_a_past_day_and_the_timeline_chart(page_env):
    seed_coffee()
    at = page("time_travel.py").run()
    at.text_input(key="tt_query").input("what do I drink").run()
    shown = results(at)
    assert shown[0] == "🙂 User now drinks oat latte."
    assert "history: no longer valid then" in texts(at.caption)  # Americano, shown as history

    at.slider(key="tt_day").set_value(date(2026, 4, 1)).run()
    assert results(at) == ["🙂 User drinks Americano."]  # the latte was not known yet
    charts = at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
    spec = charts[0].proto.spec
    assert '"x2"' in spec and "rule" in spec  # validity bars and the chosen-day rule


def test_diff_between_two_days(page_env):
    seed_coffee()
    at = page("time_travel.py").run()
    assert tab(at, "Added").label == "Added (2)"
    assert tab(at, "Superseded").label == "Superseded (1)"

    at.date_input(key="tt_from").set_value(date(2026, 4, 15)).run()
    added = texts(tab(at, "Added (1)").markdown)
    assert "oat latte" in added and "Americano" not in added
    superseded = texts(tab(at, "Superseded (1)").markdown)
    assert "User drinks Americano." in superseded and "💬 session default" in superseded

    at.date_input(key="tt_from").set_value(date(2026, 6, 1)).run()
    assert tab(at, "Added").label == "Added (0)"

    at.date_input(key="tt_to").set_value(date(2026, 5, 1)).run()
    assert "before the “To” day" in texts(at.warning)


def test_world_time_and_recorded_by_are_two_questions(page_env, tmp_path):
    """A note written in Feb 2026 says what held in 2024: true then in world time, not yet recorded then."""
    from ui import common
    from vault_sync.sync import VaultIndexer

    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Work.md").write_text("---\ncreated: 2026-02-01\n---\n# Work\n\n"
                                   "- 2022-03 to 2026-01: designer at Blue Fern Agency.\n", encoding="utf-8")
    written = datetime(2026, 2, 1, 9, tzinfo=timezone.utc).timestamp()
    os.utime(vault / "Work.md", (written, written))  # the author's last edit
    VaultIndexer(common.engram(), vault).sync_all()
    at = page("time_travel.py").run()
    at.slider(key="tt_day").set_value(date(2024, 6, 1)).run()
    assert any("Blue Fern" in m.value for m in at.markdown)
    assert "world time" in at.radio(key="tt_question").value

    at.radio(key="tt_question").set_value("What Engram had recorded by this day (system time)").run()
    assert not any("Blue Fern" in m.value for m in at.markdown if m.value.startswith(("📄", "🙂")))
    explained = texts(at.info)
    assert "recorded nothing by 01 Jun 2024" in explained and "first recorded on 01 Feb 2026" in explained
