"""Values that flow through Engram: sources, events, entities, memory units, recall results."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .clock import iso

MEMORY_TYPES = ("user_profile", "session_state", "tool_result", "fact_reference")
CHAT_TURN = "chat_turn"
OFFLINE_REPLY = "offline_reply"  # an event only: what Engram said with no model, not knowledge
RESULT_TYPES = MEMORY_TYPES + (CHAT_TURN,)
#: the search token of a chat turn the assistant said: what the assistant replied restates or elaborates,
#: so for a question about the user the user's own words weigh more (recall.ASSISTANT_WEIGHT)
ASSISTANT_MARK = "§assistant"
ROLES = ("user", "assistant", "system", "tool")


@dataclass
class Source:
    """Where knowledge came from: a vault note, a chat session, an import, an attachment."""

    kind: str  # note | chat | import | attachment
    ref: str  # vault-relative path, or chat session id
    fingerprint: str | None = None  # SHA-256 of the content, for notes
    mtime: datetime | None = None
    title: str | None = None
    created_at: datetime | None = None
    deleted_at: datetime | None = None
    id: int | None = None


@dataclass
class Event:
    """Something that happened at a time. Append-only."""

    kind: str  # chat_turn | note_created | note_edited | note_renamed | note_deleted | tool_result
    at: datetime
    text: str = ""
    role: str | None = None
    session_id: str | None = None
    message_id: str | None = None
    source_id: int | None = None
    recorded_at: datetime | None = None
    id: int | None = None


@dataclass
class Entity:
    """A person, organisation, place, project, note title, tag, date, amount, id …"""

    name: str
    label: str  # PERSON | ORG | GPE | PROJECT | NOTE | TAG | DATE | MONEY | ID | EMAIL | PHONE | …
    qualifier: str | None = None  # tells same-name entities apart: 张经理@技术部
    aliases: tuple[str, ...] = ()
    id: int | None = None

    @property
    def key(self) -> str:
        """The unique display name: name, or name@qualifier."""
        return f"{self.name}@{self.qualifier}" if self.qualifier else self.name


@dataclass
class MemoryUnit:
    """What recall returns: a distilled memory or a chat turn, with two clocks and provenance."""

    content: str
    type: str
    valid_from: datetime
    recorded_at: datetime
    valid_until: datetime | None = None
    superseded_at: datetime | None = None
    superseded_by: int | None = None
    relevance: float = 1.0
    subject: str | None = None  # slot subject, e.g. "user"
    attribute: str | None = None  # slot attribute, e.g. "coffee_preference"
    value: str | None = None  # the slot's value, e.g. "oat latte"
    session_id: str | None = None
    source_id: int | None = None
    event_id: int | None = None
    message_id: str | None = None
    line_start: int | None = None
    line_end: int | None = None
    entities: list[str] = field(default_factory=list)
    archived: bool = False
    use_count: int = 0
    last_used_at: datetime | None = None
    id: int | None = None

    @property
    def slot(self) -> tuple[str, str] | None:
        if self.subject and self.attribute:
            return (self.subject, self.attribute)
        return None

    @property
    def holds_no_moment(self) -> bool:
        """Closed as it begins: an ending of something its slot did not hold ("I quit Twitter" while at Deloitte)."""
        return self.valid_until is not None and self.valid_until == self.valid_from


@dataclass
class Provenance:
    """Where a recalled memory came from, as the CLI's `source` object."""

    kind: str  # note | chat | import | attachment | none
    ref: str | None = None
    lines: list[int] | None = None  # [start, end], 1-based inclusive, for notes
    message_id: str | None = None
    at: datetime | None = None

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "ref": self.ref, "lines": self.lines, "message_id": self.message_id}


@dataclass
class Recollection:
    """One recall result: the unit, its final score, why it matched, where it came from."""

    unit: MemoryUnit
    score: float
    provenance: Provenance
    why: list[str] = field(default_factory=list)
    valid: bool = True  # False for a superseded/expired version shown as history

    def as_json(self) -> dict[str, Any]:
        u = self.unit
        return {
            "id": u.id, "content": u.content, "type": u.type, "score": self.score,
            "valid_from": iso(u.valid_from), "valid_until": iso(u.valid_until),
            "recorded_at": iso(u.recorded_at), "superseded_by": u.superseded_by,
            "source": self.provenance.as_json(), "valid": self.valid, "why": self.why,
            "slot": f"{u.subject}.{u.attribute}" if u.slot else None, "relevance": u.relevance,
        }


@dataclass
class RecallResult:
    query: str
    as_of: datetime
    confident: bool
    results: list[Recollection]
    latency_ms: float | None = None  # how long recall took (not part of the JSON contract)

    def as_json(self) -> dict[str, Any]:
        return {"query": self.query, "as_of": iso(self.as_of), "confident": self.confident,
                "results": [r.as_json() for r in self.results]}


@dataclass
class ExtractedEntity:
    """An entity found in a text span by spaCy or a rule."""

    text: str
    label: str
    start: int = 0
    end: int = 0
    qualifier: str | None = None

    @property
    def key(self) -> str:
        return f"{self.text}@{self.qualifier}" if self.qualifier else self.text


@dataclass
class ExtractedMemory:
    """A memory unit distilled from a message, before it is stored."""

    content: str
    type: str = "user_profile"
    subject: str | None = None
    attribute: str | None = None
    value: str | None = None
    entities: list[ExtractedEntity] = field(default_factory=list)
    began: datetime | None = None  # when the stated fact began, from date words in it ("two weeks ago")
    ends: str | None = None  # what a closing names ("Twitter" of "I quit Twitter"): it ends a held value it names
