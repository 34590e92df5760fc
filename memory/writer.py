"""Chat messages → changes: events, chat-turn items and distilled memories, with slot supersession.

Used by `remember`, `import-chat` and the chat turn; the changes go through the one write path.
"""
from __future__ import annotations

from collections import deque
from datetime import datetime, timedelta
from typing import Callable, Iterable

from .changes import Changes, NewMemory, NewSource, Supersession
from .chatlog import ChatMessage
from .clock import ensure_utc, utc_now
from .extract import Extractor, is_question
from .extract.han import HAN_CHAR
from .extract.relations import fact_marks
from .extract.held_values import closed_values, may_end as _may_end, names_either
from .index import context_key
from .model import ASSISTANT_MARK, CHAT_TURN, OFFLINE_REPLY, Event, MemoryUnit, Source
from .slots import TEMPLATES
from .store import Store
from .temporal import CONSECUTIVE_MENTIONS_FOR_EXTENSION, SESSION_STATE_EXTENDED_TTL, default_valid_until, place
from .turn_window import CONTEXT_RUNS, RUN_MESSAGES, TurnWindow
from .write_path import WritePath, WriteReport

# Slots whose values are names (an employer, a pet, a car …): a closing there ends only a value it names. A diet,
# a job, a commute or a drink is ended by other words than it was stated with ("not veggie any more").
NAMED_VALUE_CLASSES = frozenset({"employer", "pet", "partner", "car", "instrument", "phone_model", "school"})
# Slots that hold one value at a time: a change told in words the rules read no value from ("we're in a little
# terraced house in Walthamstow now") still ends the value held. Not a partner, pet, hobby or instrument (one more is
# no other one gone), nor an occupation ("my job is so stressful now").
ONE_VALUE_SLOTS = frozenset({"home_location", "employer", "diet", "school", "phone_model", "car", "commute"})
_STOPS = {attribute: template for key, (attribute, template) in TEMPLATES.items() if key.endswith("_stop")}


class MessageWriter:
    """Turns messages into one `Changes` per batch and hands it to the write path (all or nothing)."""

    def __init__(self, store: Store, write_path: WritePath, extractor: Extractor,
                 redact: Callable[[str], str] = lambda text: text) -> None:
        self.store = store
        self.write_path = write_path
        self.extractor = extractor
        self.redact = redact
        self._recent_mentions: dict[str, deque] = {}
        self._chat_sources: dict[str, int] = {}  # session id -> source id, once committed

    # ---------------------------------------------------------------- messages
    def write_messages(self, messages: Iterable[ChatMessage],
                       progress: Callable[[int], None] | None = None) -> WriteReport:
        """Store chat messages as events, chat-turn items and extracted memories (all or nothing)."""
        report = WriteReport()
        changes = self.changes_for(list(messages), report, progress)
        return self.apply(changes, report)

    def apply(self, changes: Changes, report: WriteReport | None = None) -> WriteReport:
        report = self.write_path.apply(changes, report)
        self._chat_sources.update((n.source.ref, n.source.id) for n in changes.sources if n.source.kind == "chat")
        return report

    def chat_source(self, session_id: str, changes: Changes) -> int:
        """The Source id of a chat session; a new session's source joins `changes`."""
        source_id = self._chat_sources.get(session_id)
        if source_id is not None:
            return source_id
        for n in changes.sources:  # a session this batch opened (before the store: one query per session, not message)
            if n.source.kind == "chat" and n.source.ref == session_id:
                return n.source.id
        source_id = self.store.chat_source_id(session_id)
        if source_id is not None:
            self._chat_sources[session_id] = source_id
            return source_id
        source_id = self.store.next_ids("sources", 1)[0]
        changes.sources.append(NewSource(Source(kind="chat", ref=session_id, title=session_id, id=source_id)))
        return source_id

    def changes_for(self, messages: list[ChatMessage], report: WriteReport,
                    progress: Callable[[int], None] | None = None) -> Changes:
        now = utc_now()
        changes = Changes()
        timelines: dict[tuple[str, str], list[tuple[MemoryUnit, int | NewMemory]]] = {}
        context: dict[str, TurnWindow] = {}
        held = _HeldValues(self.store)
        ordered = sorted(messages, key=lambda m: (m.at or now))
        redacted = {id(m): self.redact(m.content) for m in ordered}
        ordered = self._unseen(ordered, redacted, report)
        if progress and report.skipped:
            progress(report.skipped)
        self.extractor.prefetch(f"{m.speaker}: {redacted[id(m)]}" if m.speaker else redacted[id(m)] for m in ordered)
        for msg in ordered:
            at = msg.at or now
            recorded = min(at, now)
            text = redacted[id(msg)]
            source_id = self.chat_source(msg.session_id, changes)
            event = Event(kind=CHAT_TURN if msg.recallable else OFFLINE_REPLY, at=at, text=text, role=msg.role, session_id=msg.session_id,
                          message_id=msg.message_id, source_id=source_id, recorded_at=recorded)
            changes.events.append(event)
            if not msg.recallable:
                continue
            speaker_text = f"{msg.speaker}: {text}" if msg.speaker else text
            entities = self.extractor.entities(speaker_text)
            turn = MemoryUnit(content=speaker_text, type=CHAT_TURN, valid_from=at, recorded_at=recorded,
                              session_id=msg.session_id, source_id=source_id, message_id=msg.message_id)
            window = context.get(msg.session_id)
            if window is None:
                window = context[msg.session_id] = self._recent_turns(msg.session_id)
            marks = _statement_marks(text) if msg.role == "user" else []  # its questions are skipped
            changes.memories.append(NewMemory(turn, speaker_text, entities, event,
                                              [context_key(t) for t in window.context()]
                                              + marks
                                              + ([ASSISTANT_MARK] if msg.role == "assistant" else [])))
            window.add(_speaker(msg.role, speaker_text, text), self.write_path.tokenize(speaker_text))
            said = []  # the user's slot values this message states or ends
            for extracted in self.extractor.memories(text, role=msg.role, at=at):
                began = extracted.began if extracted.began is not None and extracted.began < at else at
                content = _dated(extracted.content, began) if began != at else extracted.content
                unit = MemoryUnit(
                    content=content, type=extracted.type, valid_from=began, recorded_at=recorded,
                    valid_until=default_valid_until(extracted.type, began), subject=extracted.subject,
                    attribute=extracted.attribute, value=extracted.value, session_id=msg.session_id,
                    source_id=source_id, message_id=msg.message_id,
                )
                new = NewMemory(unit, content, extracted.entities or entities, event,
                                fact_marks(unit.attribute, marks))
                if unit.slot and not self.place(new, timelines, changes, report, ends=extracted.ends):
                    continue
                changes.memories.append(new)
                said.append(unit)
            if msg.role == "user":
                said += self._ended_by_name(text, said, held, event, entities, timelines, changes, report)
                said += self._ended_by_change(text, marks, said, held, event, entities, timelines, changes, report)
                held.note(said)
            if progress:
                progress(1)
        return changes

    def _ended_by_name(self, text: str, said: list[MemoryUnit], held: "_HeldValues", event: Event, entities,
                       timelines: dict, changes: Changes, report: WriteReport) -> list[MemoryUnit]:
        """Values the user held that the message ends by naming them ("Sold the Panda" after "I drive a Fiat
        Panda"), for slots the message stated nothing else about: each closed by the slot's `…_stop` memory."""
        if not _may_end(text) or is_question(text):
            return []
        stated = {u.attribute for u in said}
        return self._close(closed_values(text, {a: v for a, v in held.now().items() if a not in stated}),
                           text, event, entities, timelines, changes, report)

    def _ended_by_change(self, text: str, marks: list[str], said: list[MemoryUnit], held: "_HeldValues", event: Event,
                         entities, timelines: dict, changes: Changes, report: WriteReport) -> list[MemoryUnit]:
        """Values the user held in a one-value slot the message says changed ("we're in Walthamstow now") when the
        rules read no value of that slot from it and it names none held: each closed by the slot's `…_stop`.
        `marks` are the message's statement marks ("§home_location"), the topics it speaks of."""
        from .extract.attributes import STATEMENT_MARK, changed_topics  # as `_statement_marks`: when writing

        candidates = {mark[len(STATEMENT_MARK):] for mark in marks} & ONE_VALUE_SLOTS - {u.attribute for u in said}
        if not candidates or is_question(text):
            return []
        topics = sorted(changed_topics(text, candidates))
        return self._close([(attribute, value) for attribute in topics for value in held.now().get(attribute, [])
                            if not names_either(text, value)], text, event, entities, timelines, changes, report)

    def _close(self, ended: Iterable[tuple[str, str]], text: str, event: Event, entities, timelines: dict,
               changes: Changes, report: WriteReport) -> list[MemoryUnit]:
        """Each (attribute, value) closed by the slot's `…_stop` memory, from the message's moment."""
        units = []
        for attribute, value in ended:
            stop = _STOPS.get(attribute)
            if stop is None:
                continue
            content = stop.text("zh" if HAN_CHAR.search(text) else "en").format(v=value)
            unit = MemoryUnit(content=content, type="user_profile", valid_from=event.at, recorded_at=event.recorded_at,
                              subject="user", attribute=attribute, value=None, session_id=event.session_id,
                              source_id=event.source_id, message_id=event.message_id)
            new = NewMemory(unit, content, entities, event)
            if self.place(new, timelines, changes, report):
                changes.memories.append(new)
                units.append(unit)
        return units

    def _unseen(self, messages: list[ChatMessage], redacted: dict[int, str], report: WriteReport) -> list[ChatMessage]:
        """Messages not stored before: by their own id in the session, or, without an id, by session, role,
        time and text. Importing the same file twice stores it once; the repeats are counted as skipped."""
        seen = self.store.seen_messages({m.session_id for m in messages})
        fresh = []
        for msg in messages:
            key = _message_key(msg, redacted[id(msg)])
            if key is not None and key in seen:
                report.skipped += 1
                continue
            if key is not None:
                seen.add(key)
            fresh.append(msg)
        return fresh

    def _recent_turns(self, session_id: str) -> TurnWindow:
        """The session's last turns as stored: a message is indexed with the context it answers."""
        window = TurnWindow()
        for role, content, text in self.store.recent_turns(session_id, CONTEXT_RUNS * RUN_MESSAGES):
            window.add(_speaker(role, content, text), self.write_path.tokenize(content))
        return window

    def place(self, new: NewMemory, timelines: dict, changes: Changes, report: WriteReport,
              ends: str | None = None) -> bool:
        """Fit a slot value into the slot's timeline; False when it only confirms the value then. A closing
        that names what it `ends` closes the value holding the slot only if one of the two names the other:
        "I quit Twitter" ends no job at Deloitte (it is kept, closed as it begins)."""
        slot = new.unit.slot
        timeline = timelines.get(slot)
        if timeline is None:
            timeline = timelines[slot] = [(u, u.id) for u in self.store.slot_timeline(*slot)]
        units = [(h.unit if isinstance(h, NewMemory) else u, h) for u, h in timeline]
        placement = place(units, new.unit)
        if placement.confirms is not None:
            report.confirmations += 1
            return False
        holder = next((u for u, h in units if h is placement.closes), None) if placement.closes is not None else None
        if (ends and holder is not None and holder.value and new.unit.attribute in NAMED_VALUE_CLASSES
                and not names_either(ends, holder.value)):
            new.unit.valid_until = new.unit.valid_from
            placement.closes = placement.next = None
        if placement.closes is not None:
            changes.supersessions.append(Supersession(placement.closes, new))
        if placement.next is not None:
            changes.supersessions.append(Supersession(new, placement.next))
        timeline.append((new.unit, new))
        timeline.sort(key=lambda entry: entry[0].valid_from)
        return True

    # -------------------------------------------------------------- slot units
    def write_superseding(self, unit: MemoryUnit) -> WriteReport:
        """Store one slotted unit; the value holding the slot then is closed in the same transaction."""
        new = NewMemory(unit, unit.content)
        changes = Changes()
        if unit.source_id is None and unit.session_id:
            unit.source_id = self.chat_source(unit.session_id, changes)
        report = WriteReport()
        if self.place(new, {}, changes, report):
            changes.memories.append(new)
        return self.apply(changes, report)

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
        return self.extend_session_state(session_id, persistent, at, SESSION_STATE_EXTENDED_TTL)

    def extend_session_state(self, session_id: str, entity_keys: set[str], at: datetime,
                             ttl: timedelta) -> list[int]:
        """Dual TTL: session_state memories on an entity mentioned turn after turn live `ttl`."""
        changes = Changes()
        for memory_id, valid_from in self.store.open_session_state_about(session_id, entity_keys, at):
            changes.update(memory_id, valid_until=ensure_utc(valid_from) + ttl)
        self.write_path.apply(changes)
        return list(changes.updates)


class _HeldValues:
    """The user's slot values holding: the store's (read once a message of the batch may end one) overlaid with
    what the batch's own messages stated or ended (not stored yet)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._stored: dict[str, list[str]] | None = None
        self._noted: dict[str, list[str]] = {}

    def now(self) -> dict[str, list[str]]:
        if self._stored is None:
            self._stored = self._store.open_values("user")
        return {**self._stored, **self._noted}

    def note(self, units: list[MemoryUnit]) -> None:
        """A message's slot values: a stated one holds from now on, an ended one no longer does (an ending of
        something the slot did not hold, closed as it begins, changes nothing)."""
        self._noted.update({u.attribute: [u.value] if u.value else [] for u in units
                            if u.subject == "user" and u.attribute and not u.holds_no_moment})


def _message_key(msg: ChatMessage, text: str) -> tuple | None:
    """What makes a message the same message: its id in its session, else (with a time) role, time, text."""
    if msg.message_id is not None:
        return ("id", msg.session_id, msg.message_id)
    if msg.at is not None:
        return ("text", msg.session_id, msg.role, ensure_utc(msg.at).replace(tzinfo=None), text)
    return None


def _speaker(role: str, content: str, text: str) -> tuple[str, str]:
    """Who sent a chat turn: its role and the name its stored content begins with ("Tom: …"), if any."""
    return role, (content[:len(content) - len(text)] if content.endswith(text) else "")


def _dated(content: str, began: datetime) -> str:
    """A fact with the absolute date its words meant ("two weeks ago" said on 20 June → since 2024-06-06)."""
    day = began.strftime("%Y-%m-%d")
    if any("\u4e00" <= ch <= "\u9fff" for ch in content):
        return f"{content.rstrip('。')}（自{day}起）。"
    return f"{content.rstrip('.')} (since {day})."


def _statement_marks(text: str) -> list[str]:
    """`attributes.statement_marks`, imported when a message is written (a recall never compiles its rules)."""
    from .extract.attributes import statement_marks

    return statement_marks(text)
