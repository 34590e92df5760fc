"""The one write path: every change to memories, sources, events, entities and edges goes through here.

`WritePath.apply(changes)` prepares what the change needs outside the lock (search tokens,
vectors), commits the SQL in one transaction, then brings the in-memory index and the graph up to
date in one place. Chat write-back, vault sync, supersession, archive, forget, edit, relevance
feedback and re-embedding all hand it a `Changes` value.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .changes import Changes, EdgeWrite, NewMemory
from .clock import utc_now
from .embed import Embedder, embed_documents
from .errors import NotFoundError
from .extract import tokenize_for_search
from .graph import LazyGraph, entity_node, memory_node, source_node
from .index import HybridIndex
from .model import CHAT_TURN, ExtractedEntity, MemoryUnit
from .privacy import Redactor
from .backups import list_backups
from .store import Store, forget_in_copy
from .temporal import correct, supersede

EMBED_BATCH = 256
FILL_BATCH = 512  # texts per embedder call when filling pending vectors: long sorted runs, bounded memory
FILE_SOURCES = ("note", "attachment")  # sources whose ref is a vault path


@dataclass
class WriteReport:
    turns: int = 0
    memories: int = 0
    superseded: int = 0
    confirmations: int = 0
    entities: int = 0
    skipped: int = 0
    memory_ids: list[int] = field(default_factory=list)
    turn_ids: list[int] = field(default_factory=list)
    event_ids: list[int] = field(default_factory=list)
    entity_keys: dict[int, list[str]] = field(default_factory=dict)  # memory id -> its entities' keys

    def as_json(self) -> dict:
        return {
            "turns": self.turns, "memories": self.memories, "superseded": self.superseded,
            "confirmations": self.confirmations, "entities": self.entities, "skipped": self.skipped,
            "memory_ids": self.memory_ids, "turn_ids": self.turn_ids,
        }


@dataclass
class _Prepared:
    tokens: list[str]  # per new memory, space-joined
    vectors: np.ndarray  # per new memory (zero while pending)
    pending: list[bool]  # per new memory: stored without its vector, for the filler
    edit_tokens: dict[int, str]
    edit_vectors: dict[int, np.ndarray]


@dataclass
class FillReport:
    """What one run of the vector filler did."""

    filled: int = 0
    left: int = 0  # still pending when it stopped (a limit on batches, or memories written meanwhile)
    batches: int = 0
    embed_seconds: float = 0.0
    store_seconds: float = 0.0


class WritePath:
    """Applies `Changes` to the store (one transaction), then to the index and the graph."""

    def __init__(self, store: Store, index: HybridIndex, graph: LazyGraph, embedder: Embedder,
                 redactor: Redactor | None = None,
                 tokenize: Callable[[str], list[str]] = tokenize_for_search) -> None:
        self.store = store
        self.index = index
        self.graph = graph
        self.embedder = embedder
        self.redactor = redactor or Redactor()
        self.tokenize = tokenize
        self.seconds: dict[str, float] = {"embed": 0.0, "store": 0.0}  # cumulative, for benchmarks
        self.listeners: list[Callable[[Changes], None]] = []  # told after each commit (caches)

    # ------------------------------------------------------------------ apply
    def apply(self, changes: Changes, report: WriteReport | None = None) -> WriteReport:
        report = report or WriteReport()
        if changes.is_empty():
            return report
        started = time.perf_counter()
        self._redact(changes)
        prepared = self._prepare(changes)
        embedded = time.perf_counter()
        self.seconds["embed"] += embedded - started
        store = self.store
        with store.exclusive():  # commit and follow as one step: no other write lands in between
            current = self.index.follows == store.memory_writes  # (not when a write went around this path)
            with store.transaction():
                self._assign_ids(changes)
                self._resolve_supersessions(changes)
                self._resolve_forgets(changes)
                store.set_entities_aliases(changes.entity_aliases, "NOTE", at=utc_now())  # before mentions
                entity_ids = self._entity_ids(changes)
                tag_ids = self._tag_ids(changes)
                forgotten = store.memories_by_id(changes.forgets) if changes.forgets else {}
                orphans = self._write_sql(changes, prepared, entity_ids, tag_ids)
            self._follow(changes, prepared, entity_ids, tag_ids, orphans)
            if current:
                self.index.follows = store.memory_writes
            if forgotten:
                self._erase(list(forgotten.values()))
        self.seconds["store"] += time.perf_counter() - embedded
        self._report(changes, entity_ids, report)
        for listener in self.listeners:
            listener(changes)
        return report

    def _erase(self, forgotten: list[MemoryUnit]) -> None:
        """Forget means gone: not in the file's free blocks, nor in the rolling backups."""
        self.store.compact()
        if self.store.path is not None:
            for backup in list_backups(self.store.path):
                forget_in_copy(backup.path, forgotten)

    def _redact(self, changes: Changes) -> None:
        """Every text that will be stored passes the redactor; an entity or tag that is a secret is dropped."""
        scrub, path_ref = self.redactor.scrub, self.redactor.path_ref
        clean: dict[str, bool] = {}  # entity names repeat (a note's title on each of its chunks)
        for memory in changes.memories:
            unit = memory.unit
            unit.content, memory.index_text = scrub(unit.content), scrub(memory.index_text)
            unit.value = scrub(unit.value) if unit.value else unit.value
            for e in memory.entities:
                if e.text not in clean:
                    clean[e.text] = scrub(e.text) == e.text
            memory.entities = [e for e in memory.entities if clean[e.text]]
        for event in changes.events:
            event.text = scrub(event.text) if event.text else event.text
        changes.entity_aliases = {name: [a for a in aliases if scrub(a) == a]
                                  for name, aliases in changes.entity_aliases.items() if scrub(name) == name}
        for new in changes.sources:
            source = new.source
            source.title = scrub(source.title) if source.title else source.title
            source.ref = path_ref(source.ref) if source.kind in FILE_SOURCES else source.ref
            new.meta = scrub(new.meta) if new.meta else new.meta
        for fields in changes.source_updates.values():
            for name in ("title", "meta"):
                if fields.get(name):
                    fields[name] = scrub(fields[name])
            if fields.get("ref"):
                fields["ref"] = path_ref(fields["ref"])
        for fields in changes.updates.values():
            if fields.get("content"):
                fields["content"] = scrub(fields["content"])
        scrub_many = self.redactor.scrub_many  # one pass over a note's tags, or its (up to 100,000) links
        for tags in changes.tags:
            tags.tags = [tag for tag, clean in zip(tags.tags, scrub_many(tags.tags)) if clean == tag]
        for links in changes.note_links:
            targets = scrub_many([target for target, _, _ in links.links])
            links.links = [(clean, kind, line) for clean, (_, kind, line) in zip(targets, links.links)]

    def _prepare(self, changes: Changes) -> _Prepared:
        later = changes.vectors_later
        pending = [m.embed and later for m in changes.memories]
        embedded = [i for i, m in enumerate(changes.memories) if m.embed and not later]
        edits = {i: f["content"] for i, f in changes.updates.items() if "content" in f}
        computed = self.embed([changes.memories[i].index_text for i in embedded] + list(edits.values()))
        vectors = np.zeros((len(changes.memories), self.embedder.dim), dtype=np.float32)
        vectors[embedded] = computed[: len(embedded)]
        tokens = [" ".join(self.tokenize(m.index_text) + m.context_tokens) for m in changes.memories]
        edit_tokens = {i: " ".join(self.tokenize(text)) for i, text in edits.items()}
        edit_vectors = dict(zip(edits, computed[len(embedded):]))
        return _Prepared(tokens, vectors, pending, edit_tokens, edit_vectors)

    def embed(self, texts: list[str], batch: int = EMBED_BATCH) -> np.ndarray:
        """One vector per text, `batch` texts per embedder call; a text given more than once (a template's
        block in many notes, "thanks!" in many chats) is embedded once."""
        distinct = list(dict.fromkeys(texts))
        if not distinct:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        matrix = np.vstack([embed_documents(self.embedder, distinct[i : i + batch])
                            for i in range(0, len(distinct), batch)])
        if len(distinct) == len(texts):
            return matrix
        row = {text: i for i, text in enumerate(distinct)}
        return matrix[[row[text] for text in texts]]

    def fill_pending_vectors(self, *, batch: int = FILL_BATCH, max_batches: int | None = None,
                             progress: Callable[[int, int], None] | None = None) -> FillReport:
        """Embed the memories stored vector-pending, `batch` texts per embedder call (the runner sorts them by
        length), each batch's vectors written through `apply` in one transaction. Stops after `max_batches`
        (the rest stay pending, and the next call goes on); `progress(filled, total)` after each batch."""
        report = FillReport()
        total = self.store.pending_vector_count()
        while max_batches is None or report.batches < max_batches:
            rows = self.store.pending_vector_texts(batch)
            if not rows:
                break
            started = time.perf_counter()
            matrix = self.embed([text for _, text in rows], batch)
            embedded = time.perf_counter()
            changes = Changes(vectors={memory_id: vector for (memory_id, _), vector in zip(rows, matrix)})
            self.apply(changes)  # leaves in changes.vectors those it stored
            report.embed_seconds += embedded - started
            report.store_seconds += time.perf_counter() - embedded
            report.filled += len(changes.vectors)
            report.batches += 1
            if progress:
                progress(report.filled, max(total, report.filled))
            if not changes.vectors:  # none of them pending any more: never loop on the same rows
                break
        report.left = self.store.pending_vector_count()
        return report

    def reembed(self, progress: Callable[[int], None] | None = None, batch: int = EMBED_BATCH) -> int:
        """Every memory's vector from the current embedder, replaced at once in the store and the index."""
        rows = self.store.memory_texts()
        parts = []
        for start in range(0, len(rows), batch):
            chunk = rows[start : start + batch]
            parts.append(self.embed([text for _, text in chunk]))
            if progress:
                progress(len(chunk))
        matrix = np.vstack(parts) if parts else np.zeros((0, self.embedder.dim), np.float32)
        ids = [memory_id for memory_id, _ in rows]
        with self.store.exclusive():
            current = self.index.follows == self.store.memory_writes
            self.store.replace_all_vectors(ids, matrix, f"{self.embedder.name}|{self.embedder.dim}")
            self.index.set_vectors(ids, matrix)
            if current:
                self.index.follows = self.store.memory_writes
        return len(rows)

    def _assign_ids(self, changes: Changes) -> None:
        store = self.store
        unnumbered = [n for n in changes.sources if n.source.id is None]
        for n, source_id in zip(unnumbered, store.next_ids("sources", len(unnumbered))):
            n.source.id = source_id
        for event, event_id in zip(changes.events, store.next_ids("events", len(changes.events))):
            event.id = event_id
        for memory, memory_id in zip(changes.memories, store.next_ids("memories", len(changes.memories))):
            memory.unit.id = memory_id
            if memory.event is not None:
                memory.unit.event_id = memory.event.id

    def _resolve_supersessions(self, changes: Changes) -> None:
        """Close each replaced value where its successor begins; stored ones become updates."""
        stored = self.store.memories_by_id([ref for s in changes.supersessions for ref in (s.old, s.new)
                                            if isinstance(ref, int)])
        now = utc_now()
        for s in changes.supersessions:
            old, new = (_unit(ref, stored) for ref in (s.old, s.new))
            closed = correct(old, new.id, now) if s.correction else supersede(old, new)
            changes.edges.append(EdgeWrite(memory_node(new.id), memory_node(old.id), "supersedes", new.valid_from))
            if isinstance(s.old, NewMemory):
                s.old.unit = closed
            else:
                changes.update(closed.id, valid_until=closed.valid_until, superseded_by=closed.superseded_by,
                               superseded_at=closed.superseded_at)
                stored[closed.id] = closed

    def _resolve_forgets(self, changes: Changes) -> None:
        """A forgotten successor leaves the value it replaced closed, with no successor to point to."""
        for memory_id in self.store.superseded_by_any(list(changes.forgets)):
            if memory_id not in changes.forgets:
                changes.update(memory_id, superseded_by=None)

    def _entity_ids(self, changes: Changes) -> list[list[int]]:
        """Each new memory's entity ids (one store call: a new entity is first seen when its first memory
        was recorded)."""
        keys = [[(e.text, e.label, e.qualifier) for e in unique_entities(m.entities)] for m in changes.memories]
        flat = [key for memory_keys in keys for key in memory_keys]
        ids = iter(self.store.entity_ids(flat, at=[m.unit.recorded_at for m, memory_keys in zip(changes.memories, keys)
                                                   for _ in memory_keys]))
        return [[next(ids) for _ in memory_keys] for memory_keys in keys]

    def _tag_ids(self, changes: Changes) -> list[list[int]]:
        """Each SourceTags' tag entity ids (one store call)."""
        flat = [(tag, "TAG", None) for st in changes.tags for tag in st.tags]
        ids = iter(self.store.entity_ids(flat, at=[st.valid_from for st in changes.tags for _ in st.tags]))
        return [[next(ids) for _ in st.tags] for st in changes.tags]

    def _write_sql(self, changes: Changes, prepared: _Prepared,
                   entity_ids: list[list[int]], tag_ids: list[list[int]]) -> list[int]:
        """All the SQL of one change (inside its transaction); returns the entities a forget orphaned."""
        store = self.store
        orphans: list[int] = []
        store.insert_sources(changes.sources)
        if changes.source_updates:
            store.update_sources(changes.source_updates)
        store.insert_events(changes.events)
        store.insert_memory_entities([(m.unit.id, e) for m, ids in zip(changes.memories, entity_ids) for e in ids])
        store.insert_memories([m.unit for m in changes.memories], prepared.tokens, prepared.vectors,
                              [m.index_text for m in changes.memories], prepared.pending)
        filled = store.fill_vectors(changes.vectors)
        changes.vectors = {i: changes.vectors[i] for i in filled}  # the index follows what was stored
        if changes.updates:
            store.update_memories(changes.updates, prepared.edit_tokens, prepared.edit_vectors)
        if changes.forgets:
            units = store.memories_by_id(changes.forgets)
            orphans = store.delete_memories(list(units.values()))
            changes.audit += [("forget", f"memory:{i}", f"type={units[i].type}; reason={reason}")
                              for i, reason in changes.forgets.items() if i in units]
        for src, at in changes.close_edges_from:
            store.close_edges_from(src, at)
        store.close_edges_from_many([(source_node(st.source_id), st.changed_at) for st in changes.tags], "tagged")
        store.add_edges([(e.src, e.dst, e.kind, e.valid_from, e.valid_until) for e in changes.edges]
                        + [(source_node(st.source_id), entity_node(i), "tagged", st.valid_from, None)
                           for st, ids in zip(changes.tags, tag_ids) for i in ids])
        store.replace_notes_links({links.source_id: links.links for links in changes.note_links})
        store.resolve_note_links(changes.link_resolutions)
        store.audit_many(changes.audit)
        for key, value in changes.meta.items():
            store.set_meta(key, value)
        return orphans

    # ------------------------------------------------------- index and graph
    def _follow(self, changes: Changes, prepared: _Prepared,
                entity_ids: list[list[int]], tag_ids: list[list[int]], orphans: list[int]) -> None:
        """Bring the index and (when built) the graph up to date with what was committed."""
        index = self.index
        for memory, tokens, vector in zip(changes.memories, prepared.tokens, prepared.vectors):
            index.add_unit(memory.unit, tokens.split(), vector)
        if changes.vectors:
            index.set_vectors(list(changes.vectors), np.asarray(list(changes.vectors.values()), np.float32))
        edited = {i for i, f in changes.updates.items() if "content" in f}
        for memory_id in edited:
            index.replace_text(memory_id, prepared.edit_tokens[memory_id].split(), prepared.edit_vectors[memory_id])
        for memory_id, fields in changes.updates.items():
            index.update_fields(memory_id, fields)
        for memory_id in changes.forgets:
            index.remove(memory_id)
        graph = self.graph.if_built()
        if graph is None:
            return
        for n in changes.sources:
            graph.put_source(n.source.id, n.source.kind, n.source.ref, n.source.title, n.source.deleted_at)
        for source_id, fields in changes.source_updates.items():
            graph.update_source(source_id, fields)
        for memory, ids in zip(changes.memories, entity_ids):
            for entity, entity_id in zip(unique_entities(memory.entities), ids):
                graph.add_entity(entity_id, entity.text, entity.label, entity.qualifier)
        for st, ids in zip(changes.tags, tag_ids):
            graph.close_edges_from(source_node(st.source_id), st.changed_at, kinds={"tagged"})
            for tag, entity_id in zip(st.tags, ids):
                graph.add_entity(entity_id, tag, "TAG", None)
        for memory, ids in zip(changes.memories, entity_ids):
            graph.add_memory(memory.unit, ids)
        for memory_id, fields in changes.updates.items():
            graph.update_memory(memory_id, fields)
        for memory_id in changes.forgets:
            graph.remove_memory(memory_id)
        for entity_id in orphans:
            graph.remove_entity(entity_id)
        for src, at in changes.close_edges_from:
            graph.close_edges_from(src, at, kinds=None)
        for e in changes.edges:
            graph.add_edge(e.src, e.dst, e.kind, e.valid_from, e.valid_until)
        for st, ids in zip(changes.tags, tag_ids):
            for entity_id in ids:
                graph.add_edge(source_node(st.source_id), entity_node(entity_id), "tagged", st.valid_from)
        if changes.note_links or changes.link_resolutions:
            graph.reload_links(self.store)

    def _report(self, changes: Changes, entity_ids: list[list[int]],
                report: WriteReport) -> None:
        report.event_ids += [e.id for e in changes.events]
        for memory, ids in zip(changes.memories, entity_ids):
            (report.turn_ids if memory.unit.type == CHAT_TURN else report.memory_ids).append(memory.unit.id)
            report.entity_keys[memory.unit.id] = [e.key for e in unique_entities(memory.entities)]
        report.turns += sum(1 for m in changes.memories if m.unit.type == CHAT_TURN)
        report.memories += sum(1 for m in changes.memories if m.unit.type != CHAT_TURN)
        report.superseded += len(changes.supersessions)
        report.entities += len({i for ids in entity_ids for i in ids})


def _unit(ref: int | NewMemory, stored: dict[int, MemoryUnit]) -> MemoryUnit:
    if isinstance(ref, NewMemory):
        return ref.unit
    if ref not in stored:
        raise NotFoundError(f"no memory with id {ref} to supersede")
    return stored[ref]


def unique_entities(entities: list[ExtractedEntity]) -> list[ExtractedEntity]:
    seen: dict[tuple[str, str | None], ExtractedEntity] = {}
    for entity in entities:
        seen.setdefault((entity.text, entity.qualifier), entity)
    return list(seen.values())
