"""Memory graph: an entity's neighbourhood, drawn with streamlit-cytoscape; click a node for its details."""
from __future__ import annotations

import hashlib
from datetime import date, datetime

import streamlit as st
from streamlit_cytoscape import EdgeStyle, Event, NodeStyle, streamlit_cytoscape

from memory import EngramError
from memory.clock import utc_now
from memory.graph_view import (
    NODE_TYPES, Neighbourhood, entity_details, entity_name, neighbourhood, node_group, node_type,
    source_memories, tag_nodes,
)
from ui import common
from ui import shell, sources

shell.inside_app()  # before anything is drawn: this page runs inside the app's frame

MAX_NODES = 300
LISTED = 25  # events and memories listed in a node's details before "… and N more"
DEFAULT_NODES = 150
TYPES = dict(zip(NODE_TYPES, ("Entities", "Memories", "Note sources", "Chat sources", "Events")))
SINGULAR = {"entity": "entity", "memory": "memory", "note": "note source", "chat": "chat source", "event": "event"}
# group -> (colour, Material icon shipped with the component)
GROUPS = {
    "person": ("#4c78a8", "person"),
    "place": ("#4c78a8", "place"),
    "org": ("#4c78a8", "business"),
    "entity": ("#4c78a8", "flag"),
    "tag": ("#72b7b2", "sell"),
    "memory": ("#f58518", "storage"),
    "note": ("#54a24b", "description"),
    "attachment": ("#9d9d9d", "link"),
    "chat": ("#b279a2", "chat"),
    "event": ("#9d755d", "campaign"),
}
LEGEND = {"entity": "#4c78a8", "tag": "#72b7b2", "memory": "#f58518", "note": "#54a24b", "chat": "#b279a2",
          "event": "#9d755d"}
EDGE_COLOURS = {"mentions": "#f5b27a", "from_source": "#8fcf87", "from_event": "#c7a98f",
                "co_occurs": "#c6d4e4", "tagged": "#9fd4d0", "links_to": "#8fcf87", "supersedes": "#e45756"}
LABEL_CHARS = 26


class _Style:
    """A raw Cytoscape.js style rule (the component only calls `.dump()` on its styles)."""

    def __init__(self, selector: str, style: dict) -> None:
        self.selector, self.style = selector, style

    def dump(self) -> dict:
        return {"selector": self.selector, "style": self.style}


def caption(node: str, attrs: dict, events: dict) -> str:
    group = node_group(node, attrs)
    if node.startswith("e:"):
        return common.short(entity_name(attrs), LABEL_CHARS)
    if group == "memory":
        return common.short(common.plain(attrs.get("label") or ""), LABEL_CHARS)
    if group == "chat":
        return common.short(f"chat {attrs.get('ref')}", LABEL_CHARS)
    if group in ("note", "attachment"):
        return common.short(attrs.get("title") or (attrs.get("ref") or "").rsplit("/", 1)[-1], LABEL_CHARS)
    event = events.get(node)
    if event is None:
        return node
    return common.short(f"{event.at:%m-%d} {event.role or event.kind}: {event.text or ''}", LABEL_CHARS)


def elements_of(view: Neighbourhood) -> tuple[dict, dict[str, str]]:
    """Cytoscape elements of a neighbourhood, and the shown nodes' display names."""
    names: dict[str, str] = {}
    nodes = []
    for node, attrs in view.nodes.items():
        names[node] = caption(node, attrs, view.events)
        data = {"id": node, "label": node_group(node, attrs), "name": names[node],
                "type": SINGULAR[node_type(node, attrs)]}
        if node == view.centre:
            data["_centre"] = True
        nodes.append({"data": data})
    edges = [{"data": {"id": f"{u}|{k}|{v}", "source": u, "target": v, "label": k}} for u, v, k in view.edges]
    return {"nodes": nodes, "edges": edges}, names


def node_styles() -> list:
    styles: list = [
        NodeStyle(group, colour, caption="name", icon=icon,
                  custom_styles={"font-size": 7, "min-zoomed-font-size": 5, "text-wrap": "ellipsis",
                                 "text-max-width": 90})
        for group, (colour, icon) in GROUPS.items()
    ]
    styles.append(_Style("node[?_centre]", {"width": 32, "height": 32, "font-size": 9, "font-weight": "bold",
                                            "border-width": 3, "border-color": "#e45756"}))
    return styles


def edge_styles() -> list:
    return [EdgeStyle(kind, colour, directed=kind in ("supersedes", "links_to"),
                      custom_styles={"width": 1.2, "line-style": "dashed"} if kind == "co_occurs" else {"width": 1.6})
            for kind, colour in EDGE_COLOURS.items()]


def layout_for(elements: dict) -> dict:
    # A fingerprint of the elements makes the component re-run the layout whenever they change
    # (it only re-lays out when the layout argument changes).
    ids = ",".join(n["data"]["id"] for n in elements["nodes"])
    return {"name": "fcose", "animate": False, "fit": True, "padding": 24, "nodeDimensionsIncludeLabels": True,
            "idealEdgeLength": 70, "nodeRepulsion": 6000, "randomize": True,
            "_elements": hashlib.sha1(ids.encode()).hexdigest()[:12]}


# --- details of a clicked node --------------------------------------------------------------

def not_valid(as_of: datetime) -> str:
    """'not valid now', or 'not valid on <day>' for a past day."""
    return "not valid now" if as_of.date() >= utc_now().date() else f"not valid on {as_of:%d %b %Y}"


def show_memory_list(eng, units, empty: str, as_of: datetime, limit: int = LISTED) -> None:
    if not units:
        st.caption(empty)
        return
    lines = []
    for unit in units[:limit]:
        rec = common.recollection(eng, unit, as_of)
        state = "" if rec.valid else f" *({not_valid(as_of)})*"
        lines.append(f"- {sources.card_markdown(rec, 160)}{state}  \n"
                     f"  <small>{sources.source_markdown(rec)} · "
                     f"{common.md_escape(common.validity_label(rec))}</small>")
    st.markdown("\n".join(lines), unsafe_allow_html=True)
    if len(units) > limit:
        st.caption(f"… and {len(units) - limit} more.")


def show_entity(eng, entity_id: int, as_of: datetime) -> None:
    details = entity_details(eng.store, entity_id)
    if details is None:
        st.info("This entity no longer exists.")
        return
    st.markdown(f"#### {common.md_escape(entity_name(details.entity))}")
    st.caption(f"entity · {details.entity['label']}")
    st.markdown("**Notes**")
    if details.notes:
        count = details.memories_from
        st.markdown("\n".join(
            f"- 📄 {common.md_escape(s.ref)}" + (f" — {common.plural(count[s.id], 'memory', 'memories')}" if count.get(s.id) else "")
            + (" — tagged" if s.id in details.tagged else "") + (" *(deleted)*" if s.deleted_at else "")
            for s in details.notes))
    else:
        st.caption("No note mentions it.")
    st.markdown("**Events**")
    if details.events:
        st.markdown("\n".join(f"- {event_line(e, details.sources)}" for e in details.events[:LISTED]))
        if len(details.events) > LISTED:
            st.caption(f"… and {len(details.events) - LISTED} more.")
    else:
        st.caption("No events mention it.")
    st.markdown("**Memories**")
    show_memory_list(eng, details.memories, "No memory mentions it.", as_of)


def event_line(event, sources: dict | None = None) -> str:
    when = f"{event.at:%Y-%m-%d %H:%M}"
    if event.kind == "chat_turn":
        return (f"💬 {when} · session {common.md_escape(event.session_id or '?')} · {event.role}: "
                f"{common.md_escape(common.short(event.text or '', 120))}")
    source = (sources or {}).get(event.source_id)
    where = source.ref if source else (event.text or "")
    return f"📝 {when} · {event.kind.replace('_', ' ')} · {common.md_escape(where)}"


def show_source(eng, source_id: int, as_of: datetime) -> None:
    try:
        source = eng.store.source(source_id)
    except EngramError as exc:
        st.info(str(exc))
        return
    icon = "💬" if source.kind == "chat" else "📄"
    st.markdown(f"#### {icon} {common.md_escape(source.title or source.ref)}")
    what = "chat session" if source.kind == "chat" else f"{source.kind} source"
    st.caption(f"{what} · {'session' if source.kind == 'chat' else 'path'}: {source.ref}"
               + (f" · deleted {source.deleted_at:%Y-%m-%d}" if source.deleted_at else ""))
    st.markdown("**Memories**")
    show_memory_list(eng, source_memories(eng.store, source_id), "No memories come from it.", as_of)


def show_memory(eng, memory_id: int, as_of: datetime) -> None:
    try:
        unit = eng.store.memory(memory_id)
    except EngramError as exc:
        st.info(str(exc))
        return
    rec = common.recollection(eng, unit, as_of)
    st.markdown(f"#### Memory m:{unit.id}")
    st.caption(f"{unit.type}" + (" · archived" if unit.archived else "") + ("" if rec.valid else f" · {not_valid(as_of)}"))
    st.markdown(f"> {common.md_escape(unit.content)}")
    lines = [f"- **Valid:** {common.md_escape(common.validity_label(rec))}",
             f"- **Source:** {common.md_escape(common.source_label(rec))}",
             f"- **Relevance:** {unit.relevance:.1f} · used {unit.use_count}×"]
    if unit.slot:
        lines.append(f"- **Slot:** {common.md_escape(f'{unit.subject}.{unit.attribute}')}"
                     + (f" = {common.md_escape(unit.value)}" if unit.value else ""))
    if unit.entities:
        lines.append(f"- **Mentions:** {common.md_escape(', '.join(unit.entities))}")
    st.markdown("\n".join(lines))


def show_event(eng, event_id: int, as_of: datetime) -> None:
    event = eng.store.events_by_id([event_id]).get(event_id)
    if event is None:
        st.info("This event is not stored any more.")
        return
    st.markdown(f"#### Event v:{event.id}")
    st.markdown(event_line(event, eng.store.sources_by_id([event.source_id])))


def show_details(eng, node: str, as_of: datetime) -> None:
    """The details of one node; memories are judged valid or not at `as_of`."""
    kind, _, ident = node.partition(":")
    show = {"e": show_entity, "s": show_source, "m": show_memory, "v": show_event}[kind]
    show(eng, int(ident), as_of)


def _centre_on(entity_id: int, name: str) -> None:
    st.session_state["graph_search"] = name
    st.session_state["graph_entity"] = entity_id
    st.session_state.pop("graph_detail", None)


# --- the page ---------------------------------------------------------------------------------

st.title("🕸️ Memory graph")
eng = common.open_or_stop()

try:
    if eng.store.count("entities") == 0:
        st.info(
            "Your memory has no people, projects, places, tags or notes yet, so there is no graph to draw.\n\n"
            "Fill it by **linking an Obsidian vault** (or the bundled sample vault) on the **Vault & settings** "
            "page, or by **chatting** on the **Chat** page — entities found in your notes and messages "
            "appear here.")
        st.stop()

    search = st.text_input("Find an entity", key="graph_search", placeholder="a person, project, tag, note title…")
    found = eng.find_entities(search.strip(), limit=50)
    if not found:
        st.info(f"No entity matches “{search.strip()}”. Try part of a name, or clear the box to start from "
                "the most-mentioned entity.")
        st.stop()
    by_id = {row["id"]: row for row in found}
    if st.session_state.get("graph_entity") not in by_id:
        st.session_state["graph_entity"] = found[0]["id"]
    entity_id = st.selectbox(
        "Centre on", list(by_id), key="graph_entity",
        format_func=lambda i: f"{entity_name(by_id[i])} · {by_id[i]['label']} · "
                              f"{common.plural(by_id[i]['mentions'], 'mention')}")

    with st.expander("Filters", expanded=False):
        c1, c2, c3 = st.columns(3)
        hops = c1.slider("Hops", 1, 2, 1, key="graph_hops", help="How far from the centre to go.")
        limit = c1.slider("Node limit", 20, MAX_NODES, DEFAULT_NODES, step=10, key="graph_limit",
                          help="Large neighbourhoods are cut at this many nodes so the graph stays usable.")
        types = c2.multiselect("Node types", list(TYPES), default=list(TYPES), format_func=TYPES.get,
                               key="graph_types")
        day = c2.date_input("As of", value=utc_now().date(), min_value=date(1970, 1, 1), key="graph_day",
                            help="Only what was valid on this day: closed memories and edges are left out.")
        by_tag = tag_nodes(eng.store)
        chosen_tags = c3.multiselect("Tags", sorted(by_tag, key=str.casefold), key="graph_tags",
                                     help="Keep only what is connected to these tags.")
        tags = [node for name in chosen_tags for node in by_tag.get(name, [])]
        hide_dates = c3.checkbox("Hide dates and amounts", value=True, key="graph_hide_dates",
                                 help="Dates and amounts link many unrelated notes; hiding them keeps the graph readable.")

    as_of = common.as_of_day(day)
    centre = f"e:{entity_id}"
    view = neighbourhood(eng.store, eng.graph(), centre, as_of=as_of, hops=hops, limit=limit,
                         types=types or list(TYPES), tags=tags, hide_dates=hide_dates)
    elements, names = elements_of(view)
except EngramError as exc:
    st.error(f"The graph could not be built: {exc}. Check the Vault & settings page, then reload.")
    st.stop()

count_nodes, count_edges = len(elements["nodes"]), len(elements["edges"])
if count_nodes <= 1:
    st.info(f"Nothing connected to **{common.md_escape(names[centre])}** matches these filters"
            f"{' on ' + f'{day:%d %b %Y}' if day < utc_now().date() else ''}. "
            "Widen the filters (more node types, no tag, a later date, 2 hops) or pick another entity.")
st.caption(f"{count_nodes} nodes, {count_edges} edges around **{common.md_escape(names[centre])}**"
           + (f" · {view.hidden} hidden by the filters" if view.hidden else "")
           + (f" · cut at the node limit of {limit} (raise it under Filters)" if view.capped else "")
           + " · click a node for its details; scroll to zoom, drag to pan.")

graph_col, detail_col = st.columns([3, 2], gap="medium")
with graph_col:
    clicked = streamlit_cytoscape(
        elements, layout=layout_for(elements), node_styles=node_styles(), edge_styles=edge_styles(),
        height=620, key="memory_graph", events=[Event("select_node", "tap", "node")])
    st.caption(" ".join(f"<span style='color:{c}'>●</span> {g}" for g, c in LEGEND.items()),
               unsafe_allow_html=True)

if clicked and clicked.get("action") == "select_node" and clicked.get("timestamp") != st.session_state.get(
        "_graph_click"):
    st.session_state["_graph_click"] = clicked.get("timestamp")
    target = (clicked.get("data") or {}).get("target_id")
    if target in names:
        st.session_state["graph_detail"] = target
if st.session_state.get("graph_detail") not in names:
    st.session_state["graph_detail"] = centre

with detail_col:
    selected = st.selectbox("Details for", list(names), key="graph_detail",
                            format_func=lambda n: f"{SINGULAR[node_type(n, eng.graph().g.nodes.get(n, {}))]}: {names[n]}")
    try:
        with st.container(border=True, key="graph_details"):  # grows with its lists: nothing is cut off
            if selected.startswith("e:") and selected != centre:
                entity = eng.store.entity(int(selected[2:]))
                if entity:
                    st.button("Centre the graph here", key="graph_recentre", on_click=_centre_on,
                              args=(int(selected[2:]), entity["name"]))
            show_details(eng, selected, as_of)
    except EngramError as exc:
        st.error(f"Could not load the details: {exc}")
