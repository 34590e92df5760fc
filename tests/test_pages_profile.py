"""The profile page: tags with evidence, pin / remove / restore, cold start, preferences, interests, prefix."""
from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

from tests.pages_support import page, page_env, texts  # noqa: F401  (fixture)

VAULT = Path(__file__).parent / "fixtures" / "vault"
IMPERATIVE = [
    "Give me the command to list hidden files",
    "Show me how to install numpy",
    "Fix it",
    "Run the tests",
    "Delete the temp folder",
]


def ask(*questions: str) -> None:
    """Chat turns through the page's own Chat; the model is unreachable, so replies are offline recall."""
    from ui import common

    chat = common.chat()
    for question in questions:
        outcome = chat.ask(question)
        assert outcome.offline


def expander(at, name: str):
    return next(e for e in at.expander if f"**{name}**" in e.label)


def test_empty_store_is_a_neutral_cold_start(page_env):
    at = page("profile.py").run()
    assert not at.exception
    assert "Cold start:** 0 interactions" in texts(at.info)
    assert at.code[0].value.startswith("(empty")
    assert "None yet" in texts(at.caption)  # no stated preferences
    assert not [e for e in at.expander if "— score" in e.label]


def test_cold_start_until_three_interactions(page_env):
    ask("Give me the command to list files", "Run the tests")
    at = page("profile.py").run()
    assert "Cold start:** 2 interactions" in texts(at.info)
    assert not [e for e in at.expander if "— score" in e.label]


def test_imperative_turns_make_an_executive_tag_with_evidence(page_env):
    ask(*IMPERATIVE)
    at = page("profile.py").run()
    assert not at.exception
    assert not at.info  # past the cold start
    executive = expander(at, "executive")
    evidence = texts(executive.markdown)
    assert "5 of 5 turns ask for steps, commands or an action" in evidence
    assert "e.g." in evidence  # example turns, quoted
    assert "(executive)" in at.code[0].value


def test_pinning_survives_reruns_and_a_restart(page_env):
    from ui import common

    ask(*IMPERATIVE)
    at = page("profile.py").run()
    at.button(key="pin_executive").click().run()
    assert expander(at, "executive").label.startswith("📌")
    assert at.button(key="unpin_executive")

    common.engram().close()  # a restart: a new process opens the store again
    st.cache_resource.clear()
    assert common.engram().profile_choices()[0] == {"executive"}
    at = page("profile.py").run()
    assert expander(at, "executive").label.startswith("📌")

    at.button(key="unpin_executive").click().run()
    assert not expander(at, "executive").label.startswith("📌")
    assert common.engram().profile_choices() == (set(), set())


def test_remove_and_restore_a_tag(page_env):
    from ui import common

    ask(*IMPERATIVE)
    at = page("profile.py").run()
    at.button(key="remove_executive").click().run()
    assert not [e for e in at.expander if "**executive**" in e.label]
    assert "~~executive~~ — removed by you" in texts(at.markdown)
    assert "(executive)" not in at.code[0].value
    assert common.engram().profile_choices()[1] == {"executive"}

    at.button(key="restore_executive").click().run()
    assert expander(at, "executive")
    assert "(executive)" in at.code[0].value


def test_pin_a_tag_the_evidence_does_not_show(page_env):
    at = page("profile.py").run()
    at.button(key="pin_cautious").click().run()
    cautious = expander(at, "cautious")
    assert cautious.label.startswith("📌")
    assert "pinned by you" in texts(cautious.markdown)
    assert "(cautious)" in at.code[0].value


def test_stated_preferences_and_interests(page_env):
    from ui import common
    from vault_sync.sync import VaultIndexer

    eng = common.engram()
    eng.remember("I drink Americano")
    eng.remember("I switched to oat latte")
    VaultIndexer(eng, VAULT).sync_all()
    at = page("profile.py").run()
    assert not at.exception
    preferences = at.dataframe[0].value
    assert list(preferences["preference"]) == ["User now drinks oat latte."]  # the superseded one is gone
    assert preferences["source"][0].startswith("💬 session default")
    chart = (at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart"))[-1].proto
    interests = convert_arrow_bytes_to_pandas_df(chart.datasets[0].data.data)
    top = dict(zip(interests["interest"], interests["mentions"]))
    assert top["Mira Chen"] == max(top.values())  # the most-mentioned entity leads the interests
    assert "person/designer" in top  # a #tag counts too, shown without its '#'
    assert "User now drinks oat latte." in at.code[-1].value  # sent as a core fact
