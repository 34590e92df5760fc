"""The write path: messages (and other memory units) → extraction → embedding → one transaction.

Used by `remember`, `import-chat`, the chat turn and the vault indexer, so every memory is
written the same way: slots supersede, entities are linked, the index and graph follow.
"""
from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Callable, Iterable

import numpy as np

from .chatlog import ChatMessage
from .clock import to_epoch, utc_now
from .model import CHAT_TURN, Event, ExtractedEntity, MemoryUnit
from .store import EVENT_COLUMNS, bulk_insert, db_time
from .temporal import (
    CONSECUTIVE_MENTIONS_FOR_EXTENSION, SESSION_STATE_EXTENDED_TTL, default_valid_until, same_value,
    supersede,
)

if TYPE_CHECKING:
    from .engram import Engram

EMBED_BATCH = 256
CONTEXT_TURNS = 2  # earlier turns of the session whose keywords a chat turn is also found by


@dataclass
class PendingUnit:
    """A memory unit about to be stored, with the text to index and its entities."""

    unit: MemoryUnit
    index_text: str
    entities: list[ExtractedEntity] = field(default_factory=list)
    event_index: int | None = None  # position of its event in the batch
    context_tokens: list[str] = field(default_factory=list)  # indexed for keywords, not embedded


@dataclass
class WriteReport:
    turns: int = 0
    memories: int = 0
    superseded: int = 0
    confirmations: int = 0
    entities: int = 0
    memory_ids: list[int] = field(default_factory=list)
    turn_ids: list[int] = field(default_factory=list)
    event_ids: list[int] = field(default_factory=list)

    def as_json(self) -> dict:
        return {
            "turns": self.turns, "memories": self.memories, "superseded": self.superseded,
            "confirmations": self.confirmations, "entities": self.entities,
            "memory_ids": self.memory_ids, "turn_ids": self.turn_ids,
        }


class MemoryWriter:
    """Turns messages into stored events and memory units, one transaction per batch."""

    def __init__(self, engram: "Engram") -> None:
        self.engram = engram
        self._recent_mentions: dict[str, deque] = {}
        self.seconds: dict[str, float] = {"embed": 0.0, "store": 0.0}  # cumulative, for benchmarks

    # ---------------------------------------------------------------- messages
    def write_messages(self, messages: Iterable[ChatMessage],
                       progress: Callable[[int], None] | None = None) -> WriteReport:
        """Store chat messages as events, chat-turn items and extracted memories (all or nothing)."""
        eng = self.engram
        now = utc_now()
        report = WriteReport()
        events: list[Event] = []
        pending: list[PendingUnit] = []
        closes: list[tuple[object, PendingUnit]] = []  # (old unit or pending, new pending)
        slot_holder: dict[tuple[str, str], object] = {}
        context: dict[str, deque] = {}
        ordered = sorted(messages, key=lambda m: (m.at or now))
        redacted = {id(m): eng.redact(m.content) for m in ordered}
        eng.extractor.prefetch(f"{m.speaker}: {redacted[id(m)]}" if m.speaker else redacted[id(m)] for m in ordered)
        for msg in ordered:
            at = msg.at or now
            recorded = min(at, now)
            text = redacted[id(msg)]
            source_id = eng.chat_source(msg.session_id)
            events.append(Event(kind=CHAT_TURN, at=at, text=text, role=msg.role, session_id=msg.session_id,
                                message_id=msg.message_id, source_id=source_id, recorded_at=recorded))
            event_index = len(events) - 1
            speaker_text = f"{msg.speaker}: {text}" if msg.speaker else text
            entities = eng.extractor.entities(speaker_text)
            turn = MemoryUnit(content=speaker_text, type=CHAT_TURN, valid_from=at, recorded_at=recorded,
                              session_id=msg.session_id, source_id=source_id, message_id=msg.message_id)
            window = context.get(msg.session_id)
            if window is None:
                window = context[msg.session_id] = self._recent_turn_tokens(msg.session_id)
            pending.append(PendingUnit(turn, speaker_text, entities, event_index,
                                       [t for tokens in window for t in tokens]))
            window.append(eng.tokenize(speaker_text))
            report.turns += 1
            for extracted in eng.extractor.memories(text, role=msg.role):
                unit = MemoryUnit(
                    content=extracted.content, type=extracted.type, valid_from=at, recorded_at=recorded,
                    valid_until=default_valid_until(extracted.type, at), subject=extracted.subject,
                    attribute=extracted.attribute, value=extracted.value, session_id=msg.session_id,
                    source_id=source_id, message_id=msg.message_id,
                )
                new = PendingUnit(unit, extracted.content, extracted.entities or entities, event_index)
                slot = unit.slot
                if slot:
                    holder = slot_holder.get(slot) or self._stored_holder(slot)
                    held = holder.unit if isinstance(holder, PendingUnit) else holder
                    if held is not None and same_value(held.value, unit.value):
                        report.confirmations += 1
                        continue
                    if held is not None:
                        closes.append((holder, new))
                    slot_holder[slot] = new
                pending.append(new)
            if progress:
                progress(1)
        self._commit(events, pending, closes, report)
        return report

    def _recent_turn_tokens(self, session_id: str) -> deque:
        """Keyword tokens of the session's last turns: a turn is indexed with the context it answers."""
        rows = self.engram.store.query(
            """SELECT content FROM memories WHERE type = 'chat_turn' AND session_id = ?
               ORDER BY valid_from DESC, id DESC LIMIT ?""",
            [session_id, CONTEXT_TURNS],
        )
        return deque((self.engram.tokenize(r[0]) for r in reversed(rows)), maxlen=CONTEXT_TURNS)

    def _stored_holder(self, slot: tuple[str, str]) -> MemoryUnit | None:
        holders = self.engram.store.open_slot_holders(*slot)
        return holders[-1] if holders else None

    # ------------------------------------------------------------------ commit
    def write_units(self, pending: list[PendingUnit], events: list[Event] | None = None, *,
                    inside: Callable[[object], None] | None = None) -> WriteReport:
        """Store prepared units (e.g. vault chunks) in one transaction; `inside(conn)` joins it."""
        report = WriteReport()
        self._commit(events or [], pending, [], report, inside=inside)
        return report

    def write_superseding(self, unit: MemoryUnit) -> WriteReport:
        """Store one slotted unit; the slot's open holders are superseded in the same transaction."""
        new = PendingUnit(unit, unit.content)
        closes = [(old, new) for old in self.engram.store.open_slot_holders(unit.subject, unit.attribute)]
        report = WriteReport()
        self._commit([], [new], closes, report)
        return report

    def _commit(self, events: list[Event], pending: list[PendingUnit],
                closes: list[tuple[object, PendingUnit]], report: WriteReport,
                inside: Callable[[object], None] | None = None) -> None:
        eng = self.engram
        started = time.perf_counter()
        vectors = self._embed([p.index_text for p in pending])
        embedded = time.perf_counter()
        self.seconds["embed"] += embedded - started
        tokens = [" ".join(eng.tokenize(p.index_text) + p.context_tokens) for p in pending]
        store = eng.store
        store_closes: list[MemoryUnit] = []
        entity_links: list[list[int]] = []
        with store.transaction() as conn:
            if inside is not None:
                inside(conn)
            event_ids = store.next_ids("events", len(events))
            for event, event_id in zip(events, event_ids):
                event.id = event_id
            bulk_insert(conn, "events", EVENT_COLUMNS,
                        [[e.id, e.kind, db_time(e.at), db_time(e.recorded_at), e.role, e.session_id, e.message_id,
                          e.text, e.source_id] for e in events])
            for p, memory_id in zip(pending, store.next_ids("memories", len(pending))):
                p.unit.id = memory_id
                if p.event_index is not None:
                    p.unit.event_id = events[p.event_index].id
            for old, new in closes:
                if isinstance(old, PendingUnit):
                    old.unit = supersede(old.unit, new.unit)
                else:
                    closed = supersede(old, new.unit)
                    store.update_memory(closed.id, valid_until=closed.valid_until,
                                        superseded_at=closed.superseded_at, superseded_by=closed.superseded_by)
                    store_closes.append(closed)
            pairs = []
            for p in pending:
                keys = [(e.text, e.label, e.qualifier) for e in _unique_entities(p.entities)]
                ids = store.entity_ids(keys, at=p.unit.recorded_at)
                entity_links.append(ids)
                pairs.extend((p.unit.id, entity_id) for entity_id in ids)
            store.insert_memory_entities(pairs)
            store.insert_memories([p.unit for p in pending], tokens, vectors, [p.index_text for p in pending])
            store.add_edges([(f"m:{new.unit.id}", f"m:{_unit(old).id}",
                              "supersedes", new.unit.valid_from, None) for old, new in closes])
        self._after_commit(pending, tokens, vectors, store_closes, closes, entity_links)
        self.seconds["store"] += time.perf_counter() - embedded
        report.event_ids += [e.id for e in events]
        for p in pending:
            (report.turn_ids if p.unit.type == CHAT_TURN else report.memory_ids).append(p.unit.id)
        report.memories += sum(1 for p in pending if p.unit.type != CHAT_TURN)
        report.superseded += len(closes)
        report.entities += len({i for ids in entity_links for i in ids})

    def _after_commit(self, pending, tokens, vectors, store_closes, closes, entity_links) -> None:
        """Bring the in-memory index and the graph up to date with what was committed."""
        eng = self.engram
        for p, tok, vec in zip(pending, tokens, vectors):
            eng.index.add_unit(p.unit, tok.split(), vec)
        for closed in store_closes:
            eng.index.set_times(closed.id, valid_until=to_epoch(closed.valid_until),
                                superseded=to_epoch(closed.superseded_at))
        graph = eng.graph_if_built()
        if graph is None:
            return
        names = {}
        for p, ids in zip(pending, entity_links):
            for entity, entity_id in zip(_unique_entities(p.entities), ids):
                names[entity_id] = entity
        for entity_id, entity in names.items():
            graph.add_entity(entity_id, entity.text, entity.label, entity.qualifier)
        for p, ids in zip(pending, entity_links):
            graph.add_memory(p.unit, ids)
        for closed in store_closes:
            graph.close_memory(closed.id, valid_until=closed.valid_until, superseded_at=closed.superseded_at)
        for old, new in closes:
            graph.add_edge(f"m:{new.unit.id}", f"m:{_unit(old).id}", "supersedes", new.unit.valid_from)

    def _embed(self, texts: list[str]) -> np.ndarray:
        embedder = self.engram.embedder
        if not texts:
            return np.zeros((0, embedder.dim), dtype=np.float32)
        parts = [embedder.embed(texts[i : i + EMBED_BATCH]) for i in range(0, len(texts), EMBED_BATCH)]
        return np.vstack(parts)

    # ------------------------------------------------------------ dual TTL rule
    def note_mentions(self, session_id: str, entity_keys: set[str], at: datetime) -> list[int]:
        """Track a user turn's entities; extend session_state TTL after 3 consecutive mentions."""
        window = self._recent_mentions.setdefault(session_id, deque(maxlen=CONSECUTIVE_MENTIONS_FOR_EXTENSION))
        window.append(set(entity_keys))
        if len(window) < CONSECUTIVE_MENTIONS_FOR_EXTENSION:
            return []
        persistent = set.intersection(*window)
        if not persistent:
            return []
        return self.engram.extend_session_state(session_id, persistent, at, SESSION_STATE_EXTENDED_TTL)


def _unit(holder: object) -> MemoryUnit:
    return holder.unit if isinstance(holder, PendingUnit) else holder


def _unique_entities(entities: list[ExtractedEntity]) -> list[ExtractedEntity]:
    seen: dict[tuple[str, str | None], ExtractedEntity] = {}
    for entity in entities:
        seen.setdefault((entity.text, entity.qualifier), entity)
    return list(seen.values())
