"""The Engram facade: one store, one embedder, one index, one graph — and the verbs on them."""
from __future__ import annotations

import json
import os
import threading
from collections import deque
from datetime import datetime, timedelta
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from . import recall as recall_module
from .chatlog import ChatMessage, check_message
from .clock import ensure_utc, iso, to_epoch, utc_now
from .embed import Embedder, make_embedder
from .errors import BadInputError, EmbedderMismatchError
from .extract import Extractor, tokenize_for_search
from .graph import MemoryGraph
from .index import HybridIndex
from .privacy import Redactor
from .model import CHAT_TURN, MemoryUnit, Provenance, RecallResult
from .store import Store, bulk_insert, db_time, dumps
from .temporal import RELEVANCE_USED, RELEVANCE_WRONG, adjust_relevance
from .writer import MemoryWriter, WriteReport

DB_NAME = "engram.duckdb"


def resolve_home(home: str | Path | None = None) -> Path:
    """The data folder: the argument, else ENGRAM_HOME, else ~/.engram (read when called)."""
    chosen = home or os.environ.get("ENGRAM_HOME") or Path.home() / ".engram"
    return Path(chosen).expanduser()


class Engram:
    """A person's memory: open it, write to it, recall from it, correct it."""

    def __init__(self, home: str | Path | None = None, *, embedder: Embedder | None = None,
                 in_memory: bool = False, read_only: bool = False, allow_embedder_change: bool = False,
                 extractor: Extractor | None = None, redactor=None) -> None:
        self.home = resolve_home(home)
        if not in_memory:
            self.home.mkdir(parents=True, exist_ok=True)
        self.store = Store(None if in_memory else self.home / DB_NAME, read_only=read_only)
        self.embedder = embedder or make_embedder()
        self.extractor = extractor or Extractor()
        self.redactor = redactor if redactor is not None else Redactor()
        self.latencies_ms: deque[float] = deque(maxlen=2000)
        self._graph: MemoryGraph | None = None
        self._graph_lock = threading.Lock()
        self._attributes: list[str] | None = None
        self._sources_cache: dict[int, object] = {}
        self._chat_sources: dict[str, int] = {}
        self.embedder_mismatch = self._check_embedder(allow_embedder_change)
        self.index = self._load_index()
        self.writer = MemoryWriter(self)

    # ------------------------------------------------------------ setup pieces
    def _check_embedder(self, allow_change: bool) -> str | None:
        stored = self.store.get_meta("embedder")
        current = f"{self.embedder.name}|{self.embedder.dim}"
        if stored is None:
            if not self.store.read_only:
                self.store.set_meta("embedder", current)
            return None
        if stored != current:
            message = (
                f"this memory store was embedded with {stored.split('|')[0]} "
                f"({stored.split('|')[1]} dimensions) but the current embedder is {self.embedder.name} "
                f"({self.embedder.dim}); vectors of two models are never mixed. Re-embed with "
                f"`python -m memory reembed` (or the settings page), or set ENGRAM_EMBEDDER back."
            )
            if not allow_change:
                raise EmbedderMismatchError(message)
            return message
        return None

    def _load_index(self) -> HybridIndex:
        total = self.store.count("memories")
        index = HybridIndex(self.embedder.dim, capacity=max(1024, total + 1024))
        zero = np.zeros(self.embedder.dim, dtype=np.float32)
        for rows in self.store.iter_index_rows():
            for (memory_id, type_, valid_from, valid_until, recorded, superseded, archived,
                 session_id, source_id, tokens, blob, event_id) in rows:
                vector = np.frombuffer(blob, dtype=np.float32) if blob and not self.embedder_mismatch else zero
                if vector.shape[0] != self.embedder.dim:
                    vector = zero
                index.add(
                    memory_id=memory_id, type_=type_, tokens=(tokens or "").split(), vector=vector,
                    valid_from=to_epoch(valid_from and ensure_utc(valid_from), none_is=-np.inf),
                    valid_until=to_epoch(valid_until and ensure_utc(valid_until)),
                    recorded=to_epoch(recorded and ensure_utc(recorded), none_is=-np.inf),
                    superseded=to_epoch(superseded and ensure_utc(superseded)), archived=bool(archived),
                    session_id=session_id, source_id=source_id, event_id=event_id,
                )
        for memory_id, relevance in self.store.query("SELECT id, relevance FROM memories WHERE relevance <> 1.0"):
            index.set_relevance(memory_id, relevance)
        return index

    def graph(self) -> MemoryGraph:
        """The networkx view, built from the store on first use, then kept current."""
        with self._graph_lock:
            if self._graph is None:
                self._graph = MemoryGraph.from_store(self.store)
            return self._graph

    def graph_if_built(self) -> MemoryGraph | None:
        return self._graph

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> "Engram":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ helpers
    def tokenize(self, text: str) -> list[str]:
        return tokenize_for_search(text)

    def redact(self, text: str) -> str:
        return self.redactor.scrub(text) if self.redactor is not None else text

    def chat_source(self, session_id: str) -> int:
        """The Source id of a chat session (cached; created on first use)."""
        source_id = self._chat_sources.get(session_id)
        if source_id is None:
            source_id = self._chat_sources[session_id] = self.store.chat_source(session_id)
        return source_id

    def forget_source_cache(self, source_id: int) -> None:
        self._sources_cache.pop(source_id, None)

    def note_latency(self, ms: float) -> None:
        self.latencies_ms.append(ms)

    def known_attributes(self) -> list[str]:
        if self._attributes is None:
            rows = self.store.query("SELECT DISTINCT attribute FROM memories WHERE subject = 'user' AND attribute IS NOT NULL")
            self._attributes = sorted(r[0] for r in rows)
        return self._attributes

    def entities_in(self, text: str) -> list[tuple[int, str]]:
        """Known entities whose name occurs in `text` (names of 3+ characters, or 2+ CJK)."""
        rows = self.store.query(
            """SELECT id, name FROM entities
               WHERE label NOT IN ('DATE', 'MONEY') AND strpos(lower(?), lower(name)) > 0
                 AND (length(name) >= 3 OR (length(name) >= 2 AND regexp_matches(name, '[\\x{4e00}-\\x{9fff}]')))""",
            [text],
        )
        return [(r[0], r[1]) for r in rows]

    def provenance(self, unit: MemoryUnit) -> Provenance:
        source = self._sources_cache.get(unit.source_id) if unit.source_id is not None else None
        if source is None and unit.source_id is not None:
            source = self.store.sources_by_id([unit.source_id]).get(unit.source_id)
            if source is not None:
                self._sources_cache[unit.source_id] = source
        if source is None:
            return Provenance(kind="none", message_id=unit.message_id, at=unit.valid_from)
        lines = [unit.line_start, unit.line_end] if unit.line_start is not None else None
        return Provenance(kind=source.kind, ref=source.ref, lines=lines, message_id=unit.message_id,
                          at=unit.valid_from)

    # -------------------------------------------------------------------- write
    def remember(self, text: str, *, at: datetime | None = None, session_id: str = "default",
                 role: str = "user", message_id: str | None = None) -> WriteReport:
        """Write one chat message through the common write-back path."""
        msg = check_message(ChatMessage(content=text, role=role, session_id=session_id, at=at,
                                        message_id=message_id), where="message")
        return self.import_messages([msg])

    def import_messages(self, messages: Iterable[ChatMessage],
                        progress: Callable[[int], None] | None = None) -> WriteReport:
        report = self.writer.write_messages(list(messages), progress=progress)
        self._attributes = None
        return report

    # --------------------------------------------------------------------- read
    def recall(self, query: str, *, as_of: datetime | None = None, k: int = 10, **filters) -> RecallResult:
        return recall_module.recall(self, query, as_of=as_of, k=k, **filters)

    # ---------------------------------------------------------------- feedback
    def feedback(self, memory_id: int, *, used: bool = False, wrong: bool = False) -> float:
        """+0.1 when a memory was used in an answer, −0.3 when marked wrong (bounded)."""
        unit = self.store.memory(memory_id)
        delta = (RELEVANCE_USED if used else 0.0) + (RELEVANCE_WRONG if wrong else 0.0)
        relevance = adjust_relevance(unit.relevance, delta)
        fields = {"relevance": relevance}
        if used:
            fields.update(use_count=unit.use_count + 1, last_used_at=utc_now())
        self.store.update_memory(memory_id, **fields)
        self.index.set_relevance(memory_id, relevance)
        if wrong:
            self.store.audit("marked_wrong", f"memory:{memory_id}", f"relevance {unit.relevance} -> {relevance}")
        return relevance

    def forget(self, memory_id: int, reason: str = "") -> None:
        """Remove one memory for good; the audit line keeps no content."""
        unit = self.store.memory(memory_id)
        with self.store.transaction() as conn:
            conn.execute("DELETE FROM memories WHERE id = ?", [memory_id])
            conn.execute("DELETE FROM embeddings WHERE memory_id = ?", [memory_id])
            conn.execute("DELETE FROM memory_entities WHERE memory_id = ?", [memory_id])
            conn.execute("DELETE FROM edges WHERE src = ? OR dst = ?", [f"m:{memory_id}"] * 2)
            if unit.type == CHAT_TURN and unit.event_id is not None:
                conn.execute("UPDATE events SET text = '[forgotten]' WHERE id = ?", [unit.event_id])
            conn.execute(
                "INSERT INTO audit VALUES (?, 'forget', ?, ?)",
                [db_time(utc_now()), f"memory:{memory_id}", f"type={unit.type}; reason={reason}"],
            )
        self.index.remove(memory_id)
        if self._graph is not None:
            self._graph.remove_memory(memory_id)
        self._attributes = None

    def edit(self, memory_id: int, *, content: str | None = None, valid_from: datetime | None = None,
             valid_until: datetime | None = None, clear_valid_until: bool = False) -> MemoryUnit:
        """Correct a memory's text (re-embedded) or its world interval; an audit line records the edit."""
        unit = self.store.memory(memory_id)
        fields: dict = {}
        if content is not None and content.strip() and content.strip() != unit.content:
            fields["content"] = self.redact(content.strip())
        if valid_from is not None:
            fields["valid_from"] = ensure_utc(valid_from)
        if valid_until is not None or clear_valid_until:
            fields["valid_until"] = ensure_utc(valid_until) if valid_until else None
        start = fields.get("valid_from", unit.valid_from)
        end = fields.get("valid_until", unit.valid_until)
        if end is not None and end <= start:
            raise BadInputError(f"valid until {end.isoformat()} must be after valid from {start.isoformat()}")
        if not fields:
            return unit
        tokens = vector = None
        if "content" in fields:
            tokens = self.tokenize(fields["content"])
            vector = self.embedder.embed([fields["content"]])[0]
        with self.store.transaction() as conn:
            self.store.update_memory(memory_id, **fields)
            if tokens is not None:
                conn.execute("UPDATE memories SET tokens = ?, embed_text = NULL WHERE id = ?", [" ".join(tokens), memory_id])
                conn.execute("UPDATE embeddings SET vector = ? WHERE memory_id = ?", [vector.tobytes(), memory_id])
            conn.execute("INSERT INTO audit VALUES (?, 'edit', ?, ?)",
                         [db_time(utc_now()), f"memory:{memory_id}", ", ".join(sorted(fields))])
        updated = self.store.memory(memory_id)
        self.index.remove(memory_id)
        self.index.add_unit(updated, (tokens if tokens is not None else self._stored_tokens(memory_id)),
                            vector if vector is not None else self._stored_vector(memory_id))
        if self._graph is not None:
            self._graph.set_memory_attr(memory_id, valid_from=updated.valid_from, valid_until=updated.valid_until,
                                        label=updated.content[:120])
        return updated

    def _stored_tokens(self, memory_id: int) -> list[str]:
        return (self.store.query("SELECT tokens FROM memories WHERE id = ?", [memory_id])[0][0] or "").split()

    def _stored_vector(self, memory_id: int) -> np.ndarray:
        rows = self.store.query("SELECT vector FROM embeddings WHERE memory_id = ?", [memory_id])
        return np.frombuffer(rows[0][0], dtype=np.float32) if rows else np.zeros(self.embedder.dim, np.float32)

    def find_entities(self, text: str, limit: int = 20) -> list[dict]:
        """Entities whose name contains `text`, most mentioned first."""
        return self.store.query_dicts(
            """SELECT e.id, e.name, e.label, e.qualifier, count(me.memory_id) AS mentions
               FROM entities e LEFT JOIN memory_entities me ON me.entity_id = e.id
               WHERE e.name ILIKE ? GROUP BY ALL ORDER BY mentions DESC, e.name LIMIT ?""",
            [f"%{text}%", limit],
        )

    def close_memory(self, memory_id: int, *, valid_until: datetime) -> None:
        """End a memory's world interval (kept, no longer valid after `valid_until`)."""
        self.store.update_memory(memory_id, valid_until=valid_until)
        self.index.set_times(memory_id, valid_until=to_epoch(valid_until))
        if self._graph is not None:
            self._graph.close_memory(memory_id, valid_until=valid_until)

    def write_slot_unit(self, unit: MemoryUnit) -> int:
        """Store one slotted unit; the slot's current holder is superseded in the same transaction."""
        report = self.writer.write_superseding(unit)
        self._attributes = None
        return report.memory_ids[0]

    def profile_choices(self) -> tuple[set[str], set[str]]:
        """Tags the user pinned and removed."""
        raw = self.store.get_meta("profile_choices")
        data = json.loads(raw) if raw else {}
        return set(data.get("pinned", [])), set(data.get("removed", []))

    def set_profile_choice(self, tag: str, *, pinned: bool | None = None, removed: bool | None = None) -> None:
        pins, gone = self.profile_choices()
        for flag, bucket in ((pinned, pins), (removed, gone)):
            if flag is True:
                bucket.add(tag)
            elif flag is False:
                bucket.discard(tag)
        self.store.set_meta("profile_choices", json.dumps({"pinned": sorted(pins), "removed": sorted(gone)}))

    def set_archived(self, memory_id: int, archived: bool = True) -> None:
        self.store.memory(memory_id)
        self.store.update_memory(memory_id, archived=archived)
        self.index.set_archived(memory_id, archived)
        if self._graph is not None:
            self._graph.set_memory_attr(memory_id, archived=archived)

    def archive_stale(self, *, unused_days: int = 180, now: datetime | None = None) -> int:
        """Archive memories (not chat turns) that are no longer valid or unused for long."""
        now = ensure_utc(now) if now else utc_now()
        cutoff = now - timedelta(days=unused_days)
        rows = self.store.query(
            """SELECT id FROM memories WHERE NOT archived AND type <> 'chat_turn' AND (
                   (valid_until IS NOT NULL AND valid_until <= ?) OR superseded_at IS NOT NULL
                   OR (coalesce(last_used_at, recorded_at) < ? AND relevance < 1.0))""",
            [db_time(now), db_time(cutoff)],
        )
        for (memory_id,) in rows:
            self.set_archived(memory_id, True)
        if rows:
            self.store.audit("archive", "memories", f"{len(rows)} archived")
        return len(rows)

    def extend_session_state(self, session_id: str, entity_keys: set[str], at: datetime,
                             ttl: timedelta) -> list[int]:
        """Dual TTL: session_state memories on an entity mentioned turn after turn live 24 h."""
        rows = self.store.query(
            """SELECT DISTINCT m.id, m.valid_from FROM memories m
               JOIN memory_entities me ON me.memory_id = m.id JOIN entities e ON e.id = me.entity_id
               WHERE m.type = 'session_state' AND m.session_id = ? AND m.superseded_at IS NULL
                 AND (m.valid_until IS NULL OR m.valid_until > ?)
                 AND (CASE WHEN e.qualifier IS NULL THEN e.name ELSE e.name || '@' || e.qualifier END)
                     IN (SELECT unnest(?))""",
            [session_id, db_time(at), sorted(entity_keys)],
        )
        extended = []
        for memory_id, valid_from in rows:
            until = ensure_utc(valid_from) + ttl
            self.store.update_memory(memory_id, valid_until=until)
            self.index.set_times(memory_id, valid_until=to_epoch(until))
            if self._graph is not None:
                self._graph.close_memory(memory_id, valid_until=until)
            extended.append(memory_id)
        return extended

    # ------------------------------------------------------------------ export
    def export(self, folder: str | Path) -> dict[str, int]:
        """Everything out: one JSONL per table and the graph as node-link JSON."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        counts = {}
        for table in ("memories", "events", "sources", "entities", "memory_entities", "edges", "audit"):
            rows = self.store.query_dicts(f"SELECT * FROM {table}" + (" ORDER BY id" if table in
                                          ("memories", "events", "sources", "entities") else ""))
            with (folder / f"{table}.jsonl").open("w", encoding="utf-8") as out:
                for row in rows:
                    row.pop("tokens", None)
                    out.write(dumps(row) + "\n")
            counts[table] = len(rows)
        import networkx as nx

        graph_data = nx.node_link_data(self.graph().g, edges="edges")
        (folder / "graph.json").write_text(dumps(graph_data), encoding="utf-8")
        manifest = {"exported_at": iso(utc_now()), "embedder": self.embedder.name, "counts": counts}
        (folder / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        return counts

    def reembed(self, progress: Callable[[int], None] | None = None, batch: int = 256) -> int:
        """Re-embed every memory with the current embedder, replacing all vectors at once."""
        rows = self.store.query("SELECT id, coalesce(embed_text, content) FROM memories ORDER BY id")
        vectors = []
        for start in range(0, len(rows), batch):
            chunk = rows[start : start + batch]
            vectors.append(self.embedder.embed([content for _, content in chunk]))
            if progress:
                progress(len(chunk))
        matrix = np.vstack(vectors) if vectors else np.zeros((0, self.embedder.dim), np.float32)
        with self.store.transaction() as conn:
            conn.execute("DELETE FROM embeddings")
            bulk_insert(conn, "embeddings", ("memory_id", "vector"),
                        [[memory_id, vec.tobytes()] for (memory_id, _), vec in zip(rows, matrix)])
            conn.execute("DELETE FROM meta WHERE key = 'embedder'")
            conn.execute("INSERT INTO meta VALUES ('embedder', ?)", [f"{self.embedder.name}|{self.embedder.dim}"])
        self.embedder_mismatch = None
        self.index = self._load_index()
        return len(rows)

    def health(self) -> dict:
        from .health import compute_health

        return compute_health(self.store, latencies_ms=self.latencies_ms, embedder_name=self.embedder.name)
