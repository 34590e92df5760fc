"""The Engram facade: one store, one embedder, one index, one graph — and the verbs on them.

Every verb that changes something builds a `Changes` value and hands it to the one write path.
"""
from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import replace
from collections import deque
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from .backups import Backup, restore_advice, take_backup, take_if_due
from .changes import Changes, NewMemory, Supersession
from .chatlog import ChatMessage, check_message
from .clock import ensure_utc, iso, utc_now
from .embed import Embedder, make_embedder, spec_of
from .errors import BadInputError, EmbedderMismatchError, StoreDamagedError
from .files import open_private, tighten_home
from .graph import LazyGraph, MemoryGraph
from .index import HybridIndex
from .index_snapshot import SnapshotKeeper, load as load_snapshot, snapshot_key, snapshot_path
from .model import MemoryUnit, RecallResult
from .provenance import ProvenanceLookup
from .store import EXPORT_TABLES, Store, dumps
from .temporal import RELEVANCE_USED, RELEVANCE_WRONG, adjust_relevance

# Extraction, redaction, the write path and recall are built on first use (see the properties below): their
# modules compile hundreds of patterns, which opening a memory to show it does not need.
if TYPE_CHECKING:
    from .check import CheckReport
    from .extract import Extractor
    from .privacy import Redactor
    from .recall import RecallParts
    from .write_path import WritePath, WriteReport
    from .writer import MessageWriter

DB_NAME = "engram.duckdb"
log = logging.getLogger(__name__)


def resolve_home(home: str | Path | None = None) -> Path:
    """The data folder: the argument, else ENGRAM_HOME, else ~/.engram (read when called)."""
    chosen = home or os.environ.get("ENGRAM_HOME") or Path.home() / ".engram"
    return Path(chosen).expanduser()


def database_path(home: str | Path | None = None) -> Path:
    """The memory store's file in the data folder."""
    return resolve_home(home) / DB_NAME


class Engram:
    """A person's memory: open it, write to it, recall from it, correct it."""

    def __init__(self, home: str | Path | None = None, *, embedder: Embedder | None = None,
                 in_memory: bool = False, read_only: bool = False, allow_embedder_change: bool = False,
                 extractor: Extractor | None = None, redactor=None) -> None:
        self.home = resolve_home(home)
        self.embedder = embedder  # None: chosen once the store is open (`_own_embedder`)
        self._building = threading.RLock()  # the parts built on first use are built once, by one thread
        self._extractor = extractor
        self._redactor = redactor
        self._redaction = None if redactor is not None else self._saved_redaction(in_memory)
        self._write_path: WritePath | None = None
        self._writer: MessageWriter | None = None
        self._recall_parts: RecallParts | None = None
        self.latencies_ms: deque[float] = deque(maxlen=2000)
        self._embedder_loaded = False
        self._attributes: list[str] | None = None
        try:
            self.store = Store(None if in_memory else self.home / DB_NAME, read_only=read_only)
            if self.embedder is None:
                self.embedder = self._own_embedder()
            self._load(allow_embedder_change)
        except StoreDamagedError as exc:  # say what to do about it
            raise StoreDamagedError(exc.path, exc.reason, restore_advice(exc.path)) from None
        if not in_memory:
            tighten_home(self.home)
        self.daily_backup = self._daily_backup()
        self.snapshots = self._snapshot_keeper()
        self.graphs = LazyGraph(self.store)
        self.provenance = ProvenanceLookup(self.store)

    # ------------------------------------------------- parts built on first use
    @property
    def extractor(self) -> "Extractor":
        """Finds entities and memories in text."""
        with self._building:
            if self._extractor is None:
                from .extract import Extractor

                self._extractor = Extractor()
            return self._extractor

    @property
    def redactor(self) -> "Redactor":
        """Scrubs secrets and personal numbers, by the redaction settings saved when this memory opened."""
        with self._building:
            if self._redactor is None:
                from .privacy import Redactor, settings_from_dict

                self._redactor = Redactor(settings_from_dict(self._redaction))
            return self._redactor

    @property
    def write_path(self) -> "WritePath":
        """The one write path: every change goes through it."""
        with self._building:
            if self._write_path is None:
                from .write_path import WritePath

                write_path = WritePath(self.store, self.index, self.graphs, self.embedder, self.redactor)
                write_path.listeners.append(self._after_write)
                self._write_path = write_path
            return self._write_path

    @property
    def writer(self) -> "MessageWriter":
        """Turns chat messages into changes for the write path."""
        with self._building:
            if self._writer is None:
                from .writer import MessageWriter

                self._writer = MessageWriter(self.store, self.write_path, self.extractor, self.redact)
            return self._writer

    @property
    def recall_parts(self) -> "RecallParts":
        """What recall reads."""
        with self._building:
            if self._recall_parts is None:
                from .recall import RecallParts

                self._recall_parts = RecallParts(self.store, self.index, self.graphs, self.embedder,
                                                 self.provenance, self.user_attributes)
            return self._recall_parts

    # ------------------------------------------------------------ setup pieces
    def _load(self, allow_embedder_change: bool) -> None:
        """Check the embedder and open the index: the first full read, where a damaged block shows."""
        try:
            with self.store.explained_errors():
                self.embedder_mismatch = self._check_embedder(allow_embedder_change)
                self.index, self._index_was_saved = self._open_index()
        except BaseException:
            self.store.close()  # nothing may hold the file while a restore replaces it in this process
            raise

    def _open_index(self) -> tuple[HybridIndex, bool]:
        """The index from the snapshot beside the database when it is the store's current one, else rebuilt
        from the store; and whether it came from the snapshot."""
        store, dim = self.store, self.embedder.dim
        index = None
        if store.path is not None and not self.embedder_mismatch:
            index = load_snapshot(snapshot_path(store.path), snapshot_key(store, dim), dim)
        saved = index is not None
        if index is None and store.count("memories") == 0:
            index = HybridIndex(dim)  # what a build from no rows gives, without loading the Arrow kernels
        elif index is None:
            index = HybridIndex.from_store(store, dim, vectors=not self.embedder_mismatch)
        index.follows = store.memory_writes
        return index, saved

    def _snapshot_keeper(self) -> SnapshotKeeper | None:
        """Who saves the index beside a writable database (none for memory-only or read-only stores)."""
        if self.store.path is None or self.store.read_only or self.embedder_mismatch:
            return None
        return SnapshotKeeper(self.store, self.index, saved=self._index_was_saved)

    def _daily_backup(self) -> Backup | None:
        """Today's rolling backup, taken once the store has opened and its index is read; a failure only warns."""
        try:
            return take_if_due(self.store)
        except OSError as exc:
            log.warning("could not take the daily backup of %s: %s", self.store.path, exc)
            return None

    def _own_embedder(self) -> Embedder:
        """With none given: ENGRAM_EMBEDDER, else the embedder this memory's vectors came from when it runs in this
        process, else MiniLM. A model served by Ollama is used only when chosen: the server may not be running,
        and the memory must still open (keyword recall works while the vectors wait)."""
        recorded = self.store.get_meta("embedder")
        own = spec_of(recorded.split("|")[0]) if recorded else None
        if own is not None and own.startswith("ollama:"):
            own = None
        return make_embedder(os.environ.get("ENGRAM_EMBEDDER") or own)

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
                f"`python -m memory reembed` (or the settings page), or choose the store's embedder again (the settings "
                f"page, ENGRAM_EMBEDDER or --embedder)."
            )
            if not allow_change:
                raise EmbedderMismatchError(message)
            return message
        return None

    def _saved_redaction(self, in_memory: bool) -> dict | None:
        """The redaction settings saved from the app (the CLI and the app redact alike), as saved."""
        from .settings import load_settings

        return None if in_memory else load_settings(self.home).redaction

    def _after_write(self, changes: Changes) -> None:
        """Caches that a committed change may have made stale."""
        if any(m.unit.attribute for m in changes.memories) or changes.forgets or changes.updates:
            self._attributes = None
        self.provenance.forget(changes.source_ids())
        if self.snapshots is not None:
            if changes.forgets:
                self.snapshots.forgot()
            self.snapshots.changed()

    def graph(self) -> MemoryGraph:
        """The networkx view, built from the store on first use, then kept current."""
        return self.graphs.get()

    def close(self) -> None:
        """Save the index snapshot if writes made it stale, then close the store."""
        try:
            if self.snapshots is not None:
                self.snapshots.close()
        finally:
            self.store.close()

    def __enter__(self) -> "Engram":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ helpers
    def tokenize(self, text: str) -> list[str]:
        from .extract import tokenize_for_search

        return tokenize_for_search(text)

    def redact(self, text: str) -> str:
        return self.redactor.scrub(text)

    def user_attributes(self) -> list[str]:
        """Slot attributes the user has values for (cached until a write touches slots)."""
        if self._attributes is None:
            self._attributes = self.store.user_slot_attributes()
        return self._attributes

    # -------------------------------------------------------------------- write
    def apply(self, changes: Changes) -> WriteReport:
        """Apply a change through the one write path."""
        return self.write_path.apply(changes)

    def remember(self, text: str, *, at: datetime | None = None, session_id: str = "default",
                 role: str = "user", message_id: str | None = None) -> WriteReport:
        """Write one chat message through the common write-back path."""
        msg = check_message(ChatMessage(content=text, role=role, session_id=session_id, at=at,
                                        message_id=message_id), where="message")
        return self.import_messages([msg])

    def import_messages(self, messages: Iterable[ChatMessage],
                        progress: Callable[[int], None] | None = None) -> WriteReport:
        return self.writer.write_messages(list(messages), progress=progress)

    # --------------------------------------------------------------------- read
    def recall(self, query: str, *, as_of: datetime | None = None, k: int = 10, **filters) -> RecallResult:
        ready = getattr(self.embedder, "ready", None)
        if ready is not None:
            ready()  # load the model first: its start-up is not recall latency
        self._load_for(query)  # loading models is start-up, not recall: it stays out of the latency samples
        from .recall import recall

        result = recall(self.recall_parts, query, as_of=as_of, k=k, **filters)
        self.latencies_ms.append(result.latency_ms)
        return result

    def _load_for(self, query: str) -> None:
        """Load what recalling `query` would load on first use: the embedding model, the Chinese segmenter."""
        from .extract.han import HAN_CHAR, load_segmenter

        if not self._embedder_loaded:
            self.embedder.embed(["load"])
            self._embedder_loaded = True
        if HAN_CHAR.search(query):
            load_segmenter()

    def find_entities(self, text: str, limit: int = 20) -> list[dict]:
        """Entities whose name contains `text`, most mentioned first."""
        return self.store.entities_matching(text, limit)

    # ---------------------------------------------------------------- feedback
    def feedback(self, memory_id: int, *, used: bool = False, wrong: bool = False) -> float:
        """+0.1 when a memory was used in an answer, −0.3 when marked wrong (bounded)."""
        unit = self.store.memory(memory_id)
        delta = (RELEVANCE_USED if used else 0.0) + (RELEVANCE_WRONG if wrong else 0.0)
        relevance = adjust_relevance(unit.relevance, delta)
        changes = Changes()
        changes.update(memory_id, relevance=relevance)
        if used:
            changes.update(memory_id, use_count=unit.use_count + 1, last_used_at=utc_now())
        if wrong:
            changes.audit.append(("marked_wrong", f"memory:{memory_id}", f"relevance {unit.relevance} -> {relevance}"))
        self.apply(changes)
        return relevance

    def forget(self, memory_id: int, reason: str = "") -> None:
        """Remove one memory for good; the audit line keeps no content."""
        self.store.memory(memory_id)
        self.apply(Changes(forgets={memory_id: reason}))

    def edit(self, memory_id: int, *, content: str | None = None, valid_from: datetime | None = None,
             valid_until: datetime | None = None, clear_valid_until: bool = False) -> MemoryUnit:
        """Correct a memory's text or its world interval: the corrected version is a new memory, and the
        old record is superseded in system time (kept for "what Engram had recorded by then")."""
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
        # a value replaced at the instant it was told has an empty interval; its words can still be corrected
        if ("valid_from" in fields or "valid_until" in fields) and end is not None and end <= start:
            raise BadInputError(f"valid until {end.isoformat()} must be after valid from {start.isoformat()}")
        if not fields:
            return unit
        now = utc_now()
        corrected = replace(unit, id=None, recorded_at=now, superseded_at=None, superseded_by=None, entities=[],
                            use_count=0, last_used_at=None, **fields)
        if "content" in fields:
            corrected.value = None  # the slot's value was read from the old words
        new = NewMemory(corrected, corrected.content, self.extractor.entities(corrected.content))
        changes = Changes(memories=[new], supersessions=[Supersession(memory_id, new, correction=True)],
                          audit=[("edit", f"memory:{memory_id}", ", ".join(sorted(fields)))])
        report = self.apply(changes)
        return self.store.memory((report.memory_ids or report.turn_ids)[0])

    def write_slot_unit(self, unit: MemoryUnit) -> int:
        """Store one slotted unit; the slot's current holder is superseded in the same transaction."""
        return self.writer.write_superseding(unit).memory_ids[0]

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
        self.apply(Changes(meta={"profile_choices": json.dumps({"pinned": sorted(pins), "removed": sorted(gone)})}))

    def set_archived(self, memory_id: int, archived: bool = True) -> None:
        self.store.memory(memory_id)
        changes = Changes()
        changes.update(memory_id, archived=archived)
        self.apply(changes)

    def archive_stale(self, *, unused_days: int = 180, now: datetime | None = None) -> int:
        """Archive memories (not chat turns) that are no longer valid or unused for long."""
        now = ensure_utc(now) if now else utc_now()
        ids = self.store.archivable_ids(now, now - timedelta(days=unused_days))
        changes = Changes()
        for memory_id in ids:
            changes.update(memory_id, archived=True)
        if ids:
            changes.audit.append(("archive", "memories", f"{len(ids)} archived"))
        self.apply(changes)
        return len(ids)

    # ------------------------------------------------------------------ export
    def export(self, folder: str | Path, *, force: bool = False) -> dict[str, int]:
        """Everything out: one JSONL per table and the graph as node-link JSON, each file 0600.
        Files already in the folder are overwritten only with `force`."""
        folder = Path(folder).expanduser()
        if folder.exists() and not folder.is_dir():
            raise BadInputError(f"export target {folder} is a file, not a folder; choose a folder")
        names = [f"{table}.jsonl" for table in EXPORT_TABLES] + ["graph.json", "manifest.json"]
        existing = [name for name in names if (folder / name).exists()]
        if existing and not force:
            raise BadInputError(f"{folder} already holds {', '.join(existing)}; choose another folder or "
                                f"overwrite them with --force")
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        counts = {}
        for table, rows in self.store.export_tables():
            with open_private(folder / f"{table}.jsonl", overwrite=force) as out:
                for row in rows:
                    row.pop("tokens", None)
                    out.write(dumps(row) + "\n")
            counts[table] = len(rows)
        import networkx as nx

        graph_data = nx.node_link_data(self.graph().g, edges="edges")
        with open_private(folder / "graph.json", overwrite=force) as out:
            out.write(dumps(graph_data))
        manifest = {"exported_at": iso(utc_now()), "embedder": self.embedder.name, "counts": counts}
        with open_private(folder / "manifest.json", overwrite=force) as out:
            out.write(json.dumps(manifest, indent=2))
        return counts

    def reembed(self, progress: Callable[[int], None] | None = None) -> int:
        """Re-embed every memory with the current embedder, replacing all vectors at once."""
        count = self.write_path.reembed(progress=progress)
        if self.snapshots is None and self.embedder_mismatch and not self.store.read_only:
            self.snapshots = SnapshotKeeper(self.store, self.index, saved=False)
        self.embedder_mismatch = None
        if self.snapshots is not None:
            self.snapshots.changed()
        return count

    def backup(self) -> Backup:
        """A rolling backup now (also taken once a day when the store opens)."""
        self.store.check_writable()
        return take_backup(self.store)

    def check(self) -> "CheckReport":
        """Do the store, the index and the graph agree? (the graph only when this process built it)"""
        from .check import check

        return check(self.store, self.index, self.graphs.if_built(), vectors=not self.embedder_mismatch)

    def health(self) -> dict:
        from .health import compute_health

        return compute_health(self.store, latencies_ms=self.latencies_ms, embedder_name=self.embedder.name)
