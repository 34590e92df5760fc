"""The consistency check: do the store, the index and the graph agree? (`python -m memory check`)

The store is the truth. The index must hold exactly the stored memories with the same times,
flags, relevance, search tokens and vectors; the graph must equal a graph built afresh from the
store (same nodes, attributes and edges); and the store itself must have no dangling references.

A memory stored *vector-pending* (a bulk vault ingest stores notes before embedding them; the vector
filler follows) is a known state, not a difference: it has no stored vector and a zero vector in the
index. The check counts them (`checked["vectors pending"]`).
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .clock import ensure_utc, to_epoch
from .graph import MemoryGraph
from .index import TYPE_CODES, HybridIndex
from .store import Store

MAX_LISTED = 20  # differences listed per kind; the rest are counted


@dataclass
class CheckReport:
    differences: list[str] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    checked: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str, text: str) -> None:
        self.counts[kind] += 1
        if self.counts[kind] <= MAX_LISTED:
            self.differences.append(f"{kind}: {text}")

    @property
    def clean(self) -> bool:
        return not self.counts

    def as_json(self) -> dict:
        return {"clean": self.clean, "differences": self.differences, "counts": dict(self.counts),
                "checked": self.checked}


def check(store: Store, index: HybridIndex, graph: MemoryGraph | None, *, vectors: bool = True) -> CheckReport:
    """Compare the three copies; `graph=None` skips the graph (not built in this process)."""
    report = CheckReport()
    for kind, text in store.integrity_problems():
        report.add(kind, text)
    _check_index(store, index, report, vectors=vectors)
    if graph is not None:
        _check_graph(store, graph, report)
    return report


def _check_index(store: Store, index: HybridIndex, report: CheckReport, *, vectors: bool) -> None:
    stored_ids: set[int] = set()
    pending = store.pending_vector_ids()
    terms_of: dict[int, Counter] = {}
    for rows in store.iter_index_rows():
        for (memory_id, type_, valid_from, valid_until, recorded, superseded, archived,
             session_id, source_id, tokens, blob, event_id, relevance) in rows:
            stored_ids.add(memory_id)
            row = index.row_of.get(memory_id)
            if row is None:
                report.add("index missing", f"memory {memory_id} is stored but not in the index")
                continue
            expected = {
                "valid_from": to_epoch(valid_from and ensure_utc(valid_from), none_is=-math.inf),
                "valid_until": to_epoch(valid_until and ensure_utc(valid_until)),
                "recorded_at": to_epoch(recorded and ensure_utc(recorded), none_is=-math.inf),
                "superseded_at": to_epoch(superseded and ensure_utc(superseded)),
            }
            for name, column in index.time_columns().items():
                if not _same_time(column[row], expected[name]):
                    report.add("index time", f"memory {memory_id} {name}: index {column[row]} != store {expected[name]}")
            if bool(index.archived[row]) != bool(archived):
                report.add("index flag", f"memory {memory_id} archived: index {bool(index.archived[row])} != store")
            if abs(float(index.relevance[row]) - float(relevance)) > 1e-5:
                report.add("index relevance", f"memory {memory_id}: index {index.relevance[row]:.3f} != store {relevance:.3f}")
            if (index.type_code[row] != TYPE_CODES.get(type_, -1) or index.sessions[row] != session_id
                    or int(index.source[row]) != (source_id if source_id is not None else -1)
                    or int(index.event[row]) != (event_id if event_id is not None else -1)):
                report.add("index attributes", f"memory {memory_id}: type, session, source or event differ")
            terms_of[row] = Counter((tokens or "").split())
            if vectors and blob:
                stored = np.frombuffer(blob, dtype=np.float32)
                if stored.shape[0] != index.dim or not np.allclose(stored, index.vectors[row], atol=1e-5):
                    report.add("index vector", f"memory {memory_id}: the index vector is not the stored one")
            elif memory_id in pending and index.vectors[row].any():
                report.add("index vector", f"memory {memory_id}: its vector is pending but the index holds one")
    for memory_id in sorted(set(index.row_of) - stored_ids):
        report.add("index extra", f"memory {memory_id} is in the index but not stored")
    postings: dict[int, Counter] = {}
    for term in index.terms():
        rows, tfs = index.postings(term)
        for row, tf in zip(rows.tolist(), tfs.tolist()):
            if index.alive[row]:
                postings.setdefault(row, Counter())[term] = int(tf)
    for row, expected in terms_of.items():
        if postings.get(row, Counter()) != expected:
            report.add("index tokens", f"memory {int(index.ids[row])}: keyword postings differ from stored tokens")
    report.checked["memories"] = len(stored_ids)
    report.checked["vectors pending"] = len(pending)


def _same_time(a: float, b: float) -> bool:
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) < 1e-3


def _check_graph(store: Store, graph: MemoryGraph, report: CheckReport) -> None:
    fresh = MemoryGraph.from_store(store).g
    live = graph.g
    for node in sorted(set(fresh.nodes) - set(live.nodes)):
        report.add("graph missing node", node)
    for node in sorted(set(live.nodes) - set(fresh.nodes)):
        report.add("graph extra node", node)
    for node in set(fresh.nodes) & set(live.nodes):
        want, have = fresh.nodes[node], live.nodes[node]
        for name in set(want) | set(have):
            if name == "label":
                continue
            if want.get(name) != have.get(name):
                report.add("graph attribute", f"{node} {name}: graph {have.get(name)!r} != store {want.get(name)!r}")
    fresh_edges = {(u, v, k): d for u, v, k, d in fresh.edges(keys=True, data=True)}
    live_edges = {(u, v, k): d for u, v, k, d in live.edges(keys=True, data=True)}
    for edge in sorted(set(fresh_edges) - set(live_edges)):
        report.add("graph missing edge", " ".join(edge))
    for edge in sorted(set(live_edges) - set(fresh_edges)):
        report.add("graph extra edge", " ".join(edge))
    for edge in set(fresh_edges) & set(live_edges):
        for name in ("valid_from", "valid_until"):
            want, have = fresh_edges[edge][name] if name in fresh_edges[edge] else None, live_edges[edge].get(name)
            if want != have:
                report.add("graph edge time", f"{' '.join(edge)} {name}: graph {have} != store {want}")
    report.checked["graph nodes"] = fresh.number_of_nodes()
    report.checked["graph edges"] = fresh.number_of_edges()
