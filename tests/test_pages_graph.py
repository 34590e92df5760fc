"""The memory graph page: an entity's neighbourhood drawn by streamlit-cytoscape, filters, node details."""
from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from tests.pages_support import page, page_env, texts  # noqa: F401  (fixture)

VAULT = Path(__file__).parent / "fixtures" / "vault"


def seed_vault():
    from ui import common
    from vault_sync.sync import VaultIndexer

    eng = common.engram()
    VaultIndexer(eng, VAULT).sync_all()
    return eng


def graph_args(at) -> dict:
    components = at.get("component_instance")
    assert len(components) == 1
    assert components[0].proto.component_name.startswith("streamlit_cytoscape")
    return json.loads(components[0].proto.json_args)


def node_ids(args) -> list[str]:
    return [n["data"]["id"] for n in args["elements"]["nodes"]]


def click(at, node: str, stamp: int):
    """What the component sends back when a node is tapped."""
    at.session_state["memory_graph"] = {"action": "select_node", "timestamp": stamp,
                                        "data": {"type": "tap", "target_id": node, "target_group": "nodes"}}
    return at.run()


def test_empty_store_explains_how_to_fill_memory(page_env):
    at = page("graph.py").run()
    assert not at.exception
    info = texts(at.info)
    assert "linking an Obsidian vault" in info and "Chat" in info
    assert not at.get("component_instance")


def test_graph_centres_on_most_mentioned_entity(page_env):
    eng = seed_vault()
    top = eng.find_entities("")[0]
    at = page("graph.py").run()
    assert not at.exception
    args = graph_args(at)
    nodes = {n["data"]["id"]: n["data"] for n in args["elements"]["nodes"]}
    assert len(nodes) > 5 and args["elements"]["edges"]
    centre = f"e:{top['id']}"
    assert nodes[centre].get("_centre") and nodes[centre]["name"] == top["name"]
    assert {n["type"] for n in nodes.values()} >= {"entity", "memory"}
    assert all(len(n["name"]) <= 26 for n in nodes.values())
    assert all(e["data"]["source"] in nodes and e["data"]["target"] in nodes for e in args["elements"]["edges"])
    assert {s["selector"] for s in args["style"]} >= {"node[label='memory']", "node[?_centre]"}
    # The details panel starts on the centre entity: its notes with their paths.
    assert at.selectbox(key="graph_detail").value == centre
    assert "People/Mira Chen.md" in texts(at.markdown)


def test_two_hops_reach_note_sources_and_the_limit_holds(page_env):
    seed_vault()
    at = page("graph.py").run()
    one_hop = node_ids(graph_args(at))
    at.slider(key="graph_hops").set_value(2).run()
    two_hops = node_ids(graph_args(at))
    assert len(two_hops) > len(one_hop)
    assert any(n.startswith("s:") for n in two_hops)
    at.slider(key="graph_limit").set_value(20).run()
    assert len(node_ids(graph_args(at))) <= 20
    assert "cut at the node limit of 20" in texts(at.caption)


def test_clicking_nodes_shows_their_details(page_env):
    seed_vault()
    at = page("graph.py").run()
    memory = next(n for n in node_ids(graph_args(at)) if n.startswith("m:"))
    click(at, memory, 1)
    assert not at.exception
    assert at.selectbox(key="graph_detail").value == memory
    shown = texts(at.markdown)
    assert f"Memory {memory}" in shown and "**Source:** 📄" in shown and "**Valid:** since" in shown

    at.slider(key="graph_hops").set_value(2).run()
    note = next(n["data"]["id"] for n in graph_args(at)["elements"]["nodes"] if n["data"]["label"] == "note")
    click(at, note, 2)
    assert at.selectbox(key="graph_detail").value == note
    assert "path:" in texts(at.caption)
    assert "**Memories**" in texts(at.markdown)

    click(at, note, 2)  # the same click again is not a new selection
    at.selectbox(key="graph_detail").set_value(memory).run()
    assert at.selectbox(key="graph_detail").value == memory


def test_search_picks_an_entity_and_recentres(page_env):
    seed_vault()
    at = page("graph.py").run()
    at.text_input(key="graph_search").input("Garden").run()
    box = at.selectbox(key="graph_entity")
    assert box.options and all("garden" in option.lower() for option in box.options)
    args = graph_args(at)
    centre = next(n["data"] for n in args["elements"]["nodes"] if n["data"].get("_centre"))
    assert "Garden" in centre["name"]

    at.text_input(key="graph_search").input("no such entity zzz").run()
    assert not at.exception
    assert "No entity matches" in texts(at.info)


def test_type_tag_and_time_filters(page_env):
    seed_vault()
    at = page("graph.py").run()
    everything = graph_args(at)

    at.multiselect(key="graph_types").set_value(["entity"]).run()
    assert {n["data"]["type"] for n in graph_args(at)["elements"]["nodes"]} == {"entity"}
    at.multiselect(key="graph_types").set_value(["entity", "memory", "note", "chat", "event"]).run()

    tag = next(n["data"]["name"] for n in everything["elements"]["nodes"] if n["data"]["label"] == "tag")
    at.multiselect(key="graph_tags").set_value([tag]).run()
    tagged = graph_args(at)["elements"]["nodes"]
    assert tag in {n["data"]["name"] for n in tagged}
    assert len(tagged) < len(everything["elements"]["nodes"])
    at.multiselect(key="graph_tags").set_value([]).run()

    at.date_input(key="graph_day").set_value(date(2020, 1, 1)).run()
    assert not at.exception
    assert len(graph_args(at)["elements"]["nodes"]) == 1  # nothing was valid yet: the centre alone
    assert "Nothing connected to" in texts(at.info)


def test_dates_are_hidden_by_default(page_env):
    eng = seed_vault()
    at = page("graph.py").run()
    dates = {f"e:{i}" for (i,) in eng.store.query("SELECT id FROM entities WHERE label = 'DATE'")}
    assert dates and not dates & set(node_ids(graph_args(at)))
    at.checkbox(key="graph_hide_dates").uncheck().run()
    assert dates & set(node_ids(graph_args(at)))


def test_a_memory_that_starts_next_month_is_not_shown_as_valid(page_env):
    """Details judge validity by the one time rule: a world interval that starts later is not valid today."""
    from datetime import timedelta

    from memory.clock import utc_now

    eng = seed_vault()
    mira = next(row for row in eng.find_entities("Mira Chen") if row["name"] == "Mira Chen")
    at = page("graph.py")
    at.session_state["graph_search"] = "Mira Chen"
    at.run()
    assert at.selectbox(key="graph_detail").value == f"e:{mira['id']}"
    assert "not valid now" not in texts(at.markdown)

    memory_id = eng.store.memory_ids_mentioning(mira["id"])[0]
    eng.edit(memory_id, valid_from=utc_now() + timedelta(days=30))
    at.run()
    assert texts(at.markdown).count("*(not valid now)*") == 1


def test_details_on_a_past_day_count_what_is_known_now(page_env, tmp_path):
    """On a past day a note's memory is valid when its world interval had begun, whenever Engram read
    the note: time travel asks what was true then by everything Engram knows now."""
    import os
    import shutil
    from datetime import datetime, time, timedelta, timezone

    from memory.temporal import true_at
    from ui import common
    from vault_sync.sync import VaultIndexer

    vault = tmp_path / "vault"
    shutil.copytree(VAULT, vault)
    for path in vault.rglob("*.md"):
        os.utime(path)  # copied today: file times say nothing of when the notes were written
    eng = common.engram()
    VaultIndexer(eng, vault).sync_all()
    mira = next(row for row in eng.find_entities("Mira Chen") if row["name"] == "Mira Chen")
    units = eng.store.memories_by_id(eng.store.memory_ids_mentioning(mira["id"])).values()
    earliest = min(units, key=lambda u: u.valid_from)
    day = earliest.valid_from.date() + timedelta(days=1)
    assert day < datetime.now(timezone.utc).date() and earliest.valid_until is None
    end_of_day = datetime.combine(day, time(23, 59, 59), tzinfo=timezone.utc)
    not_yet = sum(1 for u in units if not true_at(u, end_of_day))
    assert not_yet < len(units)

    at = page("graph.py")
    at.session_state["graph_search"] = "Mira Chen"
    at.run()
    at.date_input(key="graph_day").set_value(day).run()
    assert not at.exception
    assert texts(at.markdown).count(f"*(not valid on {day:%d %b %Y})*") == not_yet
