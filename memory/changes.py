"""Plain values describing one change to the memory: what the write path applies in one transaction.

A `Changes` lists new sources, events and memories, slot supersessions, field updates, forgets,
edges, tags and note links. Nobody but the write path turns it into SQL, index rows and graph
nodes, so the store, the index and the graph cannot drift apart.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .model import Event, ExtractedEntity, MemoryUnit, Source

if TYPE_CHECKING:
    import numpy as np

#: memory fields an update may set (content is an edit: re-tokenised and re-embedded)
UPDATABLE = frozenset({
    "content", "valid_from", "valid_until", "superseded_at", "superseded_by", "archived", "relevance",
    "use_count", "last_used_at", "line_start", "line_end",
})


@dataclass
class NewMemory:
    """A memory unit to store, with the text it is found by and the entities it mentions."""

    unit: MemoryUnit
    index_text: str  # embedded and tokenised for search
    entities: list[ExtractedEntity] = field(default_factory=list)
    event: Event | None = None  # the event (in the same Changes) it was distilled from
    context_tokens: list[str] = field(default_factory=list)  # searchable, not embedded (see index.context_key)
    embed: bool = True  # False: found by keywords only (its vector stays zero)


@dataclass
class Supersession:
    """A change in the world: `old` holds until `new` begins. Either is a stored memory id or a NewMemory."""

    old: int | NewMemory
    new: int | NewMemory
    correction: bool = False  # a correction of the record instead: `old` is dropped from answers from now on


@dataclass
class NewSource:
    """A source row to insert; its id may be assigned beforehand (so memories can point to it)."""

    source: Source
    meta: str | None = None
    size: int | None = None


#: source fields an update may set
SOURCE_FIELDS = frozenset({"ref", "fingerprint", "mtime", "title", "deleted_at", "meta", "size"})


@dataclass
class EdgeWrite:
    src: str
    dst: str
    kind: str
    valid_from: datetime | None = None
    valid_until: datetime | None = None


@dataclass
class NoteLinks:
    """A note's outgoing wikilinks and embeds (replaced as a whole): (target, kind, line)."""

    source_id: int
    links: list[tuple[str, str, int]]


@dataclass
class SourceTags:
    """A source's tags, replaced as a whole: open tag edges close at `changed_at`, new ones open at `valid_from`."""

    source_id: int
    tags: list[str]
    valid_from: datetime
    changed_at: datetime


@dataclass
class Changes:
    sources: list[NewSource] = field(default_factory=list)
    source_updates: dict[int, dict[str, Any]] = field(default_factory=dict)  # source id -> fields
    events: list[Event] = field(default_factory=list)
    memories: list[NewMemory] = field(default_factory=list)
    supersessions: list[Supersession] = field(default_factory=list)
    updates: dict[int, dict[str, Any]] = field(default_factory=dict)  # memory id -> fields
    forgets: dict[int, str] = field(default_factory=dict)  # memory id -> reason (kept in the audit, not content)
    edges: list[EdgeWrite] = field(default_factory=list)
    close_edges_from: list[tuple[str, datetime]] = field(default_factory=list)  # (src node, at): all open edges
    tags: list[SourceTags] = field(default_factory=list)
    note_links: list[NoteLinks] = field(default_factory=list)
    link_resolutions: list[tuple[int, int | None]] = field(default_factory=list)  # (link row, resolved source)
    audit: list[tuple[str, str, str]] = field(default_factory=list)  # (action, target, detail)
    meta: dict[str, str] = field(default_factory=dict)
    entity_aliases: dict[str, list[str]] = field(default_factory=dict)  # a note's title -> its aliases (one entity)
    #: new memories to embed are stored vector-pending instead (keyword-searchable now, embedded by the filler)
    vectors_later: bool = False
    vectors: dict[int, np.ndarray] = field(default_factory=dict)  # memory id -> its vector, for pending memories

    @classmethod
    def combined(cls, parts: list["Changes"]) -> "Changes":
        """One change holding all of `parts` (applied as one transaction); they must not overlap."""
        out = cls(vectors_later=any(p.vectors_later for p in parts))
        for part in parts:
            for name in ("sources", "events", "memories", "supersessions", "edges", "close_edges_from", "tags",
                         "note_links", "link_resolutions", "audit"):
                getattr(out, name).extend(getattr(part, name))
            for name in ("source_updates", "updates"):
                for key, fields in getattr(part, name).items():
                    getattr(out, name).setdefault(key, {}).update(fields)
            for name in ("forgets", "meta", "entity_aliases", "vectors"):
                getattr(out, name).update(getattr(part, name))
        return out

    def update(self, memory_id: int, **fields: Any) -> None:
        unknown = set(fields) - UPDATABLE
        if unknown:
            raise ValueError(f"memory fields {sorted(unknown)} cannot be updated")
        self.updates.setdefault(memory_id, {}).update(fields)

    def update_source(self, source_id: int, **fields: Any) -> None:
        unknown = set(fields) - SOURCE_FIELDS
        if unknown:
            raise ValueError(f"source fields {sorted(unknown)} cannot be updated")
        self.source_updates.setdefault(source_id, {}).update(fields)

    def source_ids(self) -> set[int]:
        """Sources this change inserts or updates."""
        return {s.source.id for s in self.sources} | set(self.source_updates)

    def is_empty(self) -> bool:
        return not any((self.sources, self.source_updates, self.events, self.memories, self.supersessions, self.updates,
                        self.forgets, self.edges, self.close_edges_from, self.tags, self.note_links,
                        self.link_resolutions, self.audit, self.meta, self.entity_aliases, self.vectors))
