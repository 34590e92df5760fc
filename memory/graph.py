"""A networkx MultiDiGraph view of entities, events, sources and memories.

DuckDB is the source of truth: the graph is built from it once and then updated incrementally
by the writer. Node keys: `e:<id>` entity, `m:<id>` memory, `s:<id>` source, `v:<id>` event.
"""
from __future__ import annotations

import threading
from datetime import datetime
from itertools import chain, combinations
from typing import TYPE_CHECKING, Iterable, Iterator

from .clock import ensure_utc
from .model import MemoryUnit
from .store import Store
from .temporal import true_at

if TYPE_CHECKING:
    import networkx as nx

MAX_CO_OCCURRING = 8  # entities per memory linked pairwise by co_occurs


def entity_node(entity_id: int) -> str:
    return f"e:{entity_id}"


def memory_node(memory_id: int) -> str:
    return f"m:{memory_id}"


def source_node(source_id: int) -> str:
    return f"s:{source_id}"


def event_node(event_id: int) -> str:
    return f"v:{event_id}"


#: edge kinds the graph derives from other tables (not stored in `edges`)
DERIVED_EDGE_KINDS = frozenset({"from_source", "from_event", "mentions", "co_occurs", "links_to"})


class LazyGraph:
    """The graph, built from the store on first use; writes before that need no graph work."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._graph: MemoryGraph | None = None
        self._lock = threading.Lock()

    def get(self) -> "MemoryGraph":
        with self._lock:
            if self._graph is None:
                self._graph = MemoryGraph.from_store(self.store)
            return self._graph

    def if_built(self) -> "MemoryGraph | None":
        return self._graph


class MemoryGraph:
    """Entity–event–source–memory graph with validity on memory nodes and on edges."""

    def __init__(self) -> None:
        import networkx as nx  # loaded when a graph is first built: commands that never need one skip it

        self.g = nx.MultiDiGraph()
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ build
    @classmethod
    def from_store(cls, store: Store) -> "MemoryGraph":
        graph = cls()
        rows = store.graph_rows()
        with graph._lock:
            g = graph.g
            for id_, name, label, qualifier in rows.entities:
                g.add_node(entity_node(id_), kind="entity", name=name, label=label, qualifier=qualifier)
            for id_, kind, ref, title, deleted in rows.sources:
                g.add_node(source_node(id_), kind="source", source_kind=kind, ref=ref, title=title,
                           deleted_at=deleted)
            for row in rows.memories:
                graph._add_memory_row(*row)
            entities_of: dict[int, list[int]] = {}
            for memory_id, entity_id in rows.mentions:
                entities_of.setdefault(memory_id, []).append(entity_id)
            for memory_id, entity_ids in entities_of.items():
                graph._link_entities(memory_id, entity_ids)
            for src, dst, kind, valid_from, valid_until in rows.edges:
                g.add_edge(src, dst, key=kind, kind=kind, valid_from=valid_from, valid_until=valid_until)
            graph._add_links(rows.links)
        return graph

    def _add_links(self, links: list[tuple[int, int]]) -> None:
        for src, dst in links:
            self.g.add_edge(source_node(src), source_node(dst), key="links_to", kind="links_to")

    def reload_links(self, store: Store) -> None:
        """Re-read every resolved wikilink (after notes appeared, vanished or were renamed)."""
        with self._lock:
            stale = [(u, v) for u, v, k in self.g.edges(keys=True) if k == "links_to"]
            for u, v in stale:
                self.g.remove_edge(u, v, key="links_to")
            self._add_links(store.resolved_links())

    def _add_memory_row(self, id_, type_, valid_from, valid_until, recorded_at, superseded_at,
                        source_id, event_id, archived, label) -> None:
        node = memory_node(id_)
        self.g.add_node(
            node, kind="memory", type=type_, label=label, valid_from=valid_from, valid_until=valid_until,
            recorded_at=recorded_at, superseded_at=superseded_at, archived=bool(archived),
        )
        if source_id is not None:
            self.g.add_edge(node, source_node(source_id), key="from_source", kind="from_source")
        if event_id is not None:
            self.g.add_edge(node, event_node(event_id), key="from_event", kind="from_event")

    def _link_entities(self, memory_id: int, entity_ids: list[int]) -> None:
        node = memory_node(memory_id)
        for entity_id in entity_ids:
            self.g.add_edge(node, entity_node(entity_id), key="mentions", kind="mentions")
        for a, b in combinations(sorted(set(entity_ids))[:MAX_CO_OCCURRING], 2):
            self.g.add_edge(entity_node(a), entity_node(b), key="co_occurs", kind="co_occurs")

    # ------------------------------------------------------- incremental updates
    def add_entity(self, entity_id: int, name: str, label: str, qualifier: str | None = None) -> None:
        with self._lock:
            if entity_node(entity_id) not in self.g:
                self.g.add_node(entity_node(entity_id), kind="entity", name=name, label=label,
                                qualifier=qualifier)

    def put_source(self, source_id: int, kind: str, ref: str, title: str | None = None,
                   deleted_at: datetime | None = None) -> None:
        """Add a source node or update its attributes."""
        with self._lock:
            node = source_node(source_id)
            attrs = dict(kind="source", source_kind=kind, ref=ref, title=title, deleted_at=deleted_at)
            if node in self.g:
                self.g.nodes[node].update(attrs)
            else:
                self.g.add_node(node, **attrs)

    def update_source(self, source_id: int, fields: dict) -> None:
        with self._lock:
            attrs = self.g.nodes.get(source_node(source_id))
            if attrs is not None:
                attrs.update({k: v for k, v in fields.items() if k in ("ref", "title", "deleted_at")})

    def close_edges_from(self, src: str, at: datetime, kinds: set[str] | None = None) -> None:
        """End the open stored edges leaving a node (derived edges follow their own tables)."""
        with self._lock:
            if src not in self.g:
                return
            for _, _, key, data in self.g.out_edges(src, keys=True, data=True):
                if key in DERIVED_EDGE_KINDS or (kinds and key not in kinds):
                    continue
                if data.get("valid_until") is None:
                    data["valid_until"] = at

    def update_memory(self, memory_id: int, fields: dict) -> None:
        """Follow a stored update of a memory's times, archived flag or content."""
        attrs = {k: v for k, v in fields.items()
                 if k in ("valid_from", "valid_until", "superseded_at", "archived")}
        if "content" in fields:
            attrs["label"] = fields["content"][:120]
        if attrs:
            self.set_memory_attr(memory_id, **attrs)

    def add_memory(self, unit: MemoryUnit, entity_ids: Iterable[int]) -> None:
        with self._lock:
            self._add_memory_row(unit.id, unit.type, unit.valid_from, unit.valid_until, unit.recorded_at,
                                 unit.superseded_at, unit.source_id, unit.event_id, unit.archived,
                                 unit.content[:120])
            self._link_entities(unit.id, list(entity_ids))

    def add_edge(self, src: str, dst: str, kind: str, valid_from: datetime | None = None,
                 valid_until: datetime | None = None) -> None:
        with self._lock:
            self.g.add_edge(src, dst, key=kind, kind=kind, valid_from=valid_from, valid_until=valid_until)

    def set_memory_attr(self, memory_id: int, **attrs) -> None:
        with self._lock:
            node = self.g.nodes.get(memory_node(memory_id))
            if node is not None:
                node.update(attrs)

    def remove_memory(self, memory_id: int) -> None:
        """A forgotten memory: its node goes, and co_occurs edges no other memory supports."""
        with self._lock:
            node = memory_node(memory_id)
            if node not in self.g:
                return
            entities = self._co_occurring(node)
            neighbours = set(self.g.successors(node)) | set(self.g.predecessors(node))
            self.g.remove_node(node)
            for other in neighbours:  # an event node exists only through the memories made from it
                if "kind" not in self.g.nodes[other] and self.g.degree(other) == 0:
                    self.g.remove_node(other)
            for a, b in combinations(entities, 2):
                if self.g.has_edge(a, b, key="co_occurs") and not self._supports(a, b):
                    self.g.remove_edge(a, b, key="co_occurs")

    def remove_entity(self, entity_id: int) -> None:
        with self._lock:
            if entity_node(entity_id) in self.g:
                self.g.remove_node(entity_node(entity_id))

    def _co_occurring(self, memory: str) -> list[str]:
        """The entities of a memory linked pairwise by co_occurs (as `_link_entities` chose them)."""
        ids = sorted({int(v[2:]) for _, v, k in self.g.out_edges(memory, keys=True) if k == "mentions"})
        return [entity_node(i) for i in ids[:MAX_CO_OCCURRING]]

    def _supports(self, a: str, b: str) -> bool:
        """Whether some memory still links entities a and b by co_occurs."""
        mentions_a = {u for u, _, k in self.g.in_edges(a, keys=True) if k == "mentions"}
        for memory in (u for u, _, k in self.g.in_edges(b, keys=True) if k == "mentions" and u in mentions_a):
            chosen = self._co_occurring(memory)
            if a in chosen and b in chosen:
                return True
        return False

    # ------------------------------------------------------------------ reads
    def node_valid(self, node: str, as_of: datetime) -> bool:
        attrs = self.g.nodes.get(node)
        if attrs is None:
            return False
        kind = attrs.get("kind")
        if kind == "memory":
            return not attrs.get("archived") and true_at(attrs, as_of)
        if kind == "source" and attrs.get("deleted_at") is not None:
            return attrs["deleted_at"] > ensure_utc(as_of)
        return True

    def neighbours(self, node: str, as_of: datetime, kinds: set[str] | None = None) -> list[tuple[str, str]]:
        """(neighbour, edge kind) pairs around `node`, both directions, valid at `as_of`."""
        with self._lock:
            return list(self._valid_neighbours(node, as_of, kinds))

    def memories_about(self, entity_id: int, as_of: datetime, most: int | None = None) -> list[int] | None:
        """Memories mentioning an entity, valid at `as_of`; None when more than `most` do (counted no further: a
        speaker's name in every turn of a conversation is not read through)."""
        with self._lock:
            found = []
            for memory, _ in self._valid_neighbours(entity_node(entity_id), as_of, {"mentions"}):
                found.append(int(memory[2:]))
                if most is not None and len(found) > most:
                    return None
            return found

    def _valid_neighbours(self, node: str, as_of: datetime, kinds: set[str] | None) -> Iterator[tuple[str, str]]:
        """`neighbours` one at a time, each (neighbour, edge kind) once, checked only when reached; under the lock."""
        if node not in self.g:
            return
        seen: set[tuple[str, str]] = set()
        edges = chain(((v, d) for _, v, d in self.g.out_edges(node, data=True)),
                      ((u, d) for u, _, d in self.g.in_edges(node, data=True)))
        for other, data in edges:
            kind = data.get("kind", "")
            if (kinds and kind not in kinds) or (other, kind) in seen:
                continue
            if true_at(data, as_of) and self.node_valid(other, as_of):
                seen.add((other, kind))
                yield other, kind

    def degree_over(self, node: str, most: int) -> bool:
        """Whether more than `most` edges touch the node (counted no further)."""
        with self._lock:
            if node not in self.g:
                return False
            seen = 0
            for adjacency in (self.g.succ[node], self.g.pred[node]):
                for keys in adjacency.values():
                    seen += len(keys)
                    if seen > most:
                        return True
            return False

    def subgraph_around(self, node: str, as_of: datetime, hops: int = 1, limit: int = 150) -> "nx.MultiDiGraph":
        """A bounded neighbourhood for display: breadth-first up to `hops`, at most `limit` nodes."""
        with self._lock:
            keep = [node]
            frontier = [node]
            seen = {node}
            for _ in range(hops):
                nxt = []
                for current in frontier:
                    for other, _kind in self.neighbours(current, as_of):
                        if other not in seen and len(seen) < limit:
                            seen.add(other)
                            keep.append(other)
                            nxt.append(other)
                frontier = nxt
            return self.g.subgraph(keep).copy()

    def __len__(self) -> int:
        return self.g.number_of_nodes()
