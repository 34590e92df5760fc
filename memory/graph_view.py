"""What the graph page shows: an entity's neighbourhood at a moment, and the details of one node."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .graph import MemoryGraph
from .model import Event, MemoryUnit, Source
from .store import Store
from .temporal import true_at

NODE_TYPES = ("entity", "memory", "note", "chat", "event")
ENTITY_GROUPS = {"TAG": "tag", "PERSON": "person", "GPE": "place", "LOC": "place", "FAC": "place", "ORG": "org"}
DATE_LABELS = {"DATE", "TIME", "MONEY", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT"}
DETAIL_EVENTS = 20
SOURCE_MEMORIES = 200


def node_type(node: str, attrs: dict) -> str:
    """The filter type of a graph node: entity, memory, note, chat or event."""
    if node.startswith("s:"):
        return "chat" if attrs.get("source_kind") == "chat" else "note"
    return {"e:": "entity", "m:": "memory", "v:": "event"}.get(node[:2], "entity")


def node_group(node: str, attrs: dict) -> str:
    """The styling group: a filter type, with people, places, organisations, tags and vault attachments told apart."""
    kind = node_type(node, attrs)
    if kind == "entity":
        return ENTITY_GROUPS.get(attrs.get("label"), "entity")
    if kind == "note" and attrs.get("source_kind") not in (None, "note"):
        return "attachment"
    return kind


def entity_name(attrs: dict) -> str:
    """An entity as the user knows it: `#tag`, `name` or `name@qualifier`."""
    name = attrs.get("name") or "?"
    if attrs.get("label") == "TAG" and not name.startswith("#"):
        name = "#" + name
    return f"{name}@{attrs['qualifier']}" if attrs.get("qualifier") else name


def not_yet_seen(store: Store, nodes: set[str], as_of: datetime) -> set[str]:
    """Entity nodes first seen after `as_of` (the graph keeps no validity on entities themselves)."""
    seen = store.entities_first_seen(int(n[2:]) for n in nodes if n.startswith("e:"))
    return {f"e:{i}" for i, first in seen.items() if first is not None and first > as_of}


def tag_reach(graph: MemoryGraph, tag_nodes: list[str], as_of: datetime) -> set[str]:
    """Nodes connected to the chosen tags: the tags, what mentions or carries them, and the
    memories of notes that carry them."""
    keep: set[str] = set()
    for tag in tag_nodes:
        near = {other for other, _ in graph.neighbours(tag, as_of)}
        keep |= {tag} | near
        for node in near:
            if node.startswith("s:"):
                keep |= {other for other, _ in graph.neighbours(node, as_of, {"from_source"})}
    return keep


def tag_nodes(store: Store) -> dict[str, list[str]]:
    """'#tag' -> its entity nodes (a tag can be stored twice), in name order."""
    found: dict[str, list[str]] = {}
    for entity_id, name in store.tag_entities():
        found.setdefault(entity_name({"name": name, "label": "TAG"}), []).append(f"e:{entity_id}")
    return found


@dataclass
class Neighbourhood:
    """The nodes and edges to draw around `centre`; `nodes` maps each node to its graph attributes."""

    centre: str
    nodes: dict[str, dict]  # the centre first, then by node key
    edges: list[tuple[str, str, str]]  # (source, target, kind)
    events: dict[str, Event]  # the events among the nodes, for their captions
    hidden: int  # nodes of the neighbourhood the filters left out
    capped: bool  # the node limit cut the neighbourhood


def neighbourhood(store: Store, graph: MemoryGraph, centre: str, *, as_of: datetime, hops: int, limit: int,
                  types: list[str], tags: list[str], hide_dates: bool = False) -> Neighbourhood:
    """What is connected to `centre` at `as_of`, up to `hops` away, kept to the node types and tags asked for."""
    sub = graph.subgraph_around(centre, as_of, hops=hops, limit=limit)
    nodes = {n for n, attrs in sub.nodes(data=True) if node_type(n, attrs) in types
             and not (hide_dates and attrs.get("label") in DATE_LABELS)}
    nodes = (nodes - not_yet_seen(store, nodes, as_of)) | {centre}
    if tags:
        nodes &= tag_reach(graph, tags, as_of) | {centre}
    edges = [(u, v, k) for u, v, k, d in sub.edges(keys=True, data=True)
             if u in nodes and v in nodes and u != v and true_at(d, as_of)]
    linked = {centre} | {u for u, *_ in edges} | {v for _, v, _ in edges}
    events = store.events_by_id(int(n[2:]) for n in linked if n.startswith("v:"))
    return Neighbourhood(
        centre=centre,
        nodes={n: sub.nodes[n] for n in sorted(linked, key=lambda n: (n != centre, n))},
        edges=edges,
        events={f"v:{i}": e for i, e in events.items()},
        hidden=sub.number_of_nodes() - len(linked),
        capped=sub.number_of_nodes() >= limit,
    )


@dataclass
class EntityDetails:
    """An entity with the notes, events and memories that mention or carry it."""

    entity: dict[str, Any]  # name, label, qualifier
    notes: list[Source]  # by path
    memories_from: Counter  # source id -> memories of it mentioning the entity
    tagged: set[int]  # sources carrying the entity as a tag now
    sources: dict[int, Source]
    events: list[Event] = field(default_factory=list)  # newest first
    memories: list[MemoryUnit] = field(default_factory=list)  # memories, then chat turns; newest first


def entity_details(store: Store, entity_id: int) -> EntityDetails | None:
    entity = store.entity(entity_id)
    if entity is None:
        return None
    units = sorted(store.memories_by_id(store.memory_ids_mentioning(entity_id)).values(),
                   key=lambda u: u.valid_from, reverse=True)
    memories_from = Counter(u.source_id for u in units if u.source_id is not None)
    tagged = store.sources_tagged_with(entity_id)
    sources = store.sources_by_id(list(memories_from) + tagged)
    notes = sorted((s for s in sources.values() if s.kind == "note"), key=lambda s: s.ref)
    events = list(store.events_by_id(u.event_id for u in units if u.event_id).values())
    events += store.events_by_id(store.event_ids_of_sources((s.id for s in notes), DETAIL_EVENTS)).values()
    events = sorted({e.id: e for e in events}.values(), key=lambda e: e.at, reverse=True)[:DETAIL_EVENTS]
    memories = [u for u in units if u.type != "chat_turn"] + [u for u in units if u.type == "chat_turn"]
    return EntityDetails(entity, notes, memories_from, set(tagged), sources, events, memories)


def source_memories(store: Store, source_id: int, limit: int = SOURCE_MEMORIES) -> list[MemoryUnit]:
    """A source's memories in reading order."""
    ids = store.memory_ids_of_source(source_id, limit)
    units = store.memories_by_id(ids)
    return [units[i] for i in ids if i in units]
