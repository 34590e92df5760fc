"""The vault indexer: scan → hash → diff → parse → extract → embed → store, one transaction per note."""
from __future__ import annotations

import json
import re
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Callable, Iterable

from memory.clock import ensure_utc, to_epoch, utc_now
from memory.engram import Engram
from memory.model import Event, ExtractedEntity, MemoryUnit
from memory.store import bulk_insert, db_time, py_time
from memory.writer import PendingUnit

from .parse import Chunk, ParsedNote, parse_note, resolve_link
from .scan import (
    MAX_NOTE_BYTES, NoteReadError, NoteText, VaultFile, check_vault, is_ignored, read_note,
    scan_vault, stat_file,
)

MARKDOWN_NOISE = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+(?:\[.\][ \t]+)?|\d+[.)][ \t]+|>[ \t]*(?:\[![^\]\n]*\][ \t]*)?)", re.M)
CHUNK_CHARS = 800  # all-MiniLM-L6-v2 reads 256 word pieces; ~800 characters fit
NER_BULK_LIMIT = 200  # passes over more notes than this skip spaCy's statistical NER (see VaultIndexer)
NOTE_TYPE = "fact_reference"


@dataclass
class StoredNote:
    source_id: int
    ref: str
    fingerprint: str | None
    mtime: datetime | None
    size: int | None
    deleted: bool


@dataclass
class SyncReport:
    notes: int = 0
    indexed: int = 0
    unchanged: int = 0
    renamed: int = 0
    deleted: int = 0
    reopened: int = 0
    chunks: int = 0
    entities: int = 0
    links: int = 0
    links_resolved: int = 0
    attachments: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=lambda: defaultdict(float))

    def as_json(self) -> dict:
        data = {k: v for k, v in self.__dict__.items() if k not in ("skipped", "timings")}
        data["skipped"] = [{"path": p, "reason": r} for p, r in self.skipped]
        data["timings"] = {k: round(v, 3) for k, v in self.timings.items()}
        return data


def note_chunks(parsed: ParsedNote, limit: int = CHUNK_CHARS) -> list[Chunk]:
    """The parser's heading chunks, with small neighbouring sections merged up to `limit` characters."""
    out: list[Chunk] = []
    for chunk in parsed.chunks:
        text = chunk.text.strip()
        if not text:
            continue
        if out and len(out[-1].text) + len(text) + 2 <= limit:
            prev = out[-1]
            out[-1] = Chunk(prev.heading_path, f"{prev.text}\n\n{text}", prev.line_start, chunk.line_end)
        else:
            out.append(Chunk(chunk.heading_path, text, chunk.line_start, chunk.line_end))
    return out


class VaultIndexer:
    """Keeps the store in step with one vault folder. One writer: calls are serialised.

    spaCy's statistical NER costs ~10 ms per chunk, so by default (`ner=None`) it runs only in passes
    over at most NER_BULK_LIMIT notes (edits, small vaults); bulk ingests keep rule entities, note
    titles, aliases and tags, and notes gain NER entities when next edited.
    """

    def __init__(self, eng: Engram, vault: str | Path, *, max_note_bytes: int = MAX_NOTE_BYTES,
                 chunk_chars: int = CHUNK_CHARS, ner: bool | None = None) -> None:
        self.eng = eng
        self.vault = check_vault(vault)
        self.max_note_bytes = max_note_bytes
        self.chunk_chars = chunk_chars
        self.ner = ner
        self._ner_now = True
        self._lock = threading.Lock()
        self._known_loaded = False

    # ----------------------------------------------------------------- entry points
    def sync_all(self, progress: Callable[[int, int], None] | None = None) -> SyncReport:
        """Full pass over the vault; unchanged notes (same size and mtime, or same hash) cost nothing."""
        with self._lock:
            started = time.perf_counter()
            scan = scan_vault(self.vault)
            stored = self._stored_notes()
            report = SyncReport(notes=len(scan.notes), skipped=list(scan.skipped))
            changed = [f for rel, f in sorted(scan.notes.items()) if not _same_stat(stored.get(rel), f)]
            report.unchanged = len(scan.notes) - len(changed)
            missing = {ref for ref, s in stored.items() if not s.deleted and ref not in scan.notes}
            self._teach_titles(scan.notes)
            self._record_attachments(scan.attachments, report, full=True)  # first: embeds resolve to them
            self._process(changed, missing, stored, report, progress)
            report.seconds = time.perf_counter() - started
            self.eng.store.set_meta("vault_last_sync", utc_now().isoformat())
            return report

    def sync_paths(self, rel_paths: Iterable[str]) -> SyncReport:
        """Bring the given vault-relative paths (from the watcher) up to date."""
        with self._lock:
            started = time.perf_counter()
            stored = self._stored_notes()
            report = SyncReport()
            changed, missing, attachments = [], set(), {}
            for rel in sorted(set(rel_paths)):
                if is_ignored(rel):
                    continue
                found = stat_file(self.vault, rel)
                if found is None:
                    if rel in stored and not stored[rel].deleted:
                        missing.add(rel)
                elif found.is_note:
                    changed.append(found)
                else:
                    attachments[rel] = found
            report.notes = len(changed)
            self._teach_titles({f.rel_path: f for f in changed})
            self._record_attachments(attachments, report, full=False)
            self._process(changed, missing, stored, report, None)
            report.seconds = time.perf_counter() - started
            self.eng.store.set_meta("vault_last_sync", utc_now().isoformat())
            return report

    # --------------------------------------------------------------------- the diff
    def _process(self, changed: list[VaultFile], missing: set[str], stored: dict[str, StoredNote],
                 report: SyncReport, progress) -> None:
        missing_by_hash = {stored[ref].fingerprint: ref for ref in missing if stored[ref].fingerprint}
        self._ner_now = self.ner if self.ner is not None else len(changed) <= NER_BULK_LIMIT
        if not self._ner_now:
            report.warnings.append(f"statistical NER skipped for this bulk pass of {len(changed)} notes; "
                                   "rule entities, titles, aliases and tags were extracted")
        titles_changed = bool(missing)
        for number, file in enumerate(changed, start=1):
            t0 = time.perf_counter()
            try:
                note = read_note(file, self.max_note_bytes)
            except NoteReadError as exc:
                report.skipped.append((file.rel_path, str(exc).split(": ", 1)[-1]))
                if progress:
                    progress(number, len(changed))
                continue
            report.timings["read"] += time.perf_counter() - t0
            if note.warning:
                report.warnings.append(note.warning)
            current = stored.get(file.rel_path)
            if current and not current.deleted and current.fingerprint == note.fingerprint:
                self._touch(current, file)
                report.unchanged += 1
            elif (current is None or current.deleted) and note.fingerprint in missing_by_hash:
                old_ref = missing_by_hash.pop(note.fingerprint)
                missing.discard(old_ref)
                self._rename(stored[old_ref], file)
                report.renamed += 1
                titles_changed = True
            else:
                titles_changed |= current is None or current.deleted
                report.reopened += bool(current and current.deleted)
                self._index_note(file, note, current, report)
                report.indexed += 1
            if progress:
                progress(number, len(changed))
        for ref in sorted(missing):
            self._delete(stored[ref])
            report.deleted += 1
        t0 = time.perf_counter()
        report.links_resolved = self._resolve_links(full=titles_changed)
        report.timings["links"] += time.perf_counter() - t0

    def _stored_notes(self) -> dict[str, StoredNote]:
        """Note sources by path; a live row wins over a deleted one at the same path."""
        notes: dict[str, StoredNote] = {}
        for id_, ref, fingerprint, mtime, size, deleted in self.eng.store.query(
            "SELECT id, ref, fingerprint, mtime, size, deleted_at FROM sources WHERE kind = 'note' ORDER BY id"
        ):
            row = StoredNote(id_, ref, fingerprint, py_time(mtime), size, deleted is not None)
            if ref not in notes or notes[ref].deleted:
                notes[ref] = row
        return notes

    def _teach_titles(self, notes: dict[str, VaultFile]) -> None:
        """Note titles feed the EntityRuler so mentions of other notes are found in text."""
        names = [Path(rel).stem for rel in notes]
        if not self._known_loaded:
            names += [r[0] for r in self.eng.store.query(
                "SELECT name FROM entities WHERE label IN ('NOTE', 'ALIAS')")]
            self._known_loaded = True
        self.eng.extractor.add_known(names, "NOTE")

    # ------------------------------------------------------------------ one note
    def _index_note(self, file: VaultFile, note: NoteText, current: StoredNote | None,
                    report: SyncReport) -> None:
        eng = self.eng
        t0 = time.perf_counter()
        parsed = parse_note(file.rel_path, note.text, max_chunk_chars=self.chunk_chars)
        report.timings["parse"] += time.perf_counter() - t0
        if parsed.frontmatter_error:
            report.warnings.append(f"{file.rel_path}: {parsed.frontmatter_error}; the body was indexed")
        eng.extractor.add_known(parsed.aliases, "NOTE")
        now = utc_now()
        written = min(file.mtime, now)
        valid_from = min([written] + [d for k, d in parsed.dates.items() if k in ("created", "date") and d <= now])
        source_id = current.source_id if current else eng.store.next_ids("sources", 1)[0]
        open_chunks = self._open_chunks(source_id) if current else {}

        t0 = time.perf_counter()
        extraction_lines = MARKDOWN_NOISE.sub("", parsed.extraction_text).split("\n")
        title_entity = ExtractedEntity(parsed.title, "NOTE")
        alias_entities = [ExtractedEntity(a, "NOTE") for a in parsed.aliases]
        pending: list[PendingUnit] = []
        kept: dict[int, tuple[int, int]] = {}
        chunks = note_chunks(parsed, self.chunk_chars)
        if self._ner_now:
            eng.extractor.prefetch("\n".join(extraction_lines[c.line_start - 1 : c.line_end]) for c in chunks)
        for chunk in chunks:
            text = chunk.text
            same_text = open_chunks.get(text)
            if same_text:
                kept[same_text.pop()] = (chunk.line_start, chunk.line_end)
                continue
            mention_text = "\n".join(extraction_lines[chunk.line_start - 1 : chunk.line_end])
            entities = [title_entity, *alias_entities,
                        *eng.extractor.entities(mention_text, statistical=self._ner_now)]
            unit = MemoryUnit(content=text, type=NOTE_TYPE, valid_from=valid_from, recorded_at=written,
                              source_id=source_id, line_start=chunk.line_start, line_end=chunk.line_end)
            pending.append(PendingUnit(unit, f"{' › '.join(chunk.heading_path)}\n{text}", entities))
        report.timings["extract"] += time.perf_counter() - t0
        closed = [memory_id for ids in open_chunks.values() for memory_id in ids]  # text gone from the note
        event = Event(kind="note_edited" if current and not current.deleted else "note_created",
                      at=written, text=file.rel_path, source_id=source_id, recorded_at=now)
        meta = json.dumps({"aliases": parsed.aliases, "tags": parsed.tags}, ensure_ascii=False)

        def inside(conn) -> None:
            if current is None:
                conn.execute(
                    """INSERT INTO sources (id, kind, ref, fingerprint, mtime, title, created_at, deleted_at, meta, size)
                       VALUES (?, 'note', ?, ?, ?, ?, ?, NULL, ?, ?)""",
                    [source_id, file.rel_path, note.fingerprint, db_time(file.mtime), parsed.title,
                     db_time(now), meta, file.size],
                )
            else:
                conn.execute(
                    """UPDATE sources SET ref = ?, fingerprint = ?, mtime = ?, title = ?, deleted_at = NULL,
                              meta = ?, size = ? WHERE id = ?""",
                    [file.rel_path, note.fingerprint, db_time(file.mtime), parsed.title, meta, file.size, source_id],
                )
            if closed:
                conn.execute("UPDATE memories SET valid_until = ? WHERE id IN (SELECT unnest(?))",
                             [db_time(written), closed])
            for memory_id, (start, end) in kept.items():
                conn.execute("UPDATE memories SET line_start = ?, line_end = ? WHERE id = ?", [start, end, memory_id])
            conn.execute("DELETE FROM note_links WHERE source_id = ?", [source_id])
            bulk_insert(conn, "note_links", ("source_id", "target", "kind", "line"),
                        [[source_id, link.target, "embed" if link.embed else "link", link.line]
                         for link in parsed.links])
            self._tag_edges(conn, source_id, parsed.tags, valid_from)

        before = dict(eng.writer.seconds)
        result = eng.writer.write_units(pending, [event], inside=inside)
        for part in ("embed", "store"):
            report.timings[part] += eng.writer.seconds[part] - before[part]
        report.chunks += len(pending)
        report.entities += result.entities
        report.links += len(parsed.links)
        self._after_note(source_id, file, parsed, closed, written)

    def _open_chunks(self, source_id: int) -> dict[str, list[int]]:
        """The note's current chunks by text (a note may repeat a section word for word)."""
        rows = self.eng.store.query(
            """SELECT content, id FROM memories WHERE source_id = ? AND valid_until IS NULL
                 AND superseded_at IS NULL ORDER BY id DESC""",
            [source_id],
        )
        found: dict[str, list[int]] = defaultdict(list)
        for content, memory_id in rows:
            found[content].append(memory_id)
        return found

    def _tag_edges(self, conn, source_id: int, tags: list[str], valid_from: datetime) -> None:
        conn.execute("UPDATE edges SET valid_until = ? WHERE src = ? AND kind = 'tagged' AND valid_until IS NULL",
                     [db_time(utc_now()), f"s:{source_id}"])
        if not tags:
            return
        tag_ids = self.eng.store.entity_ids([(t, "TAG", None) for t in tags], at=valid_from)
        self.eng.store.add_edges([(f"s:{source_id}", f"e:{i}", "tagged", valid_from, None) for i in tag_ids])

    def _after_note(self, source_id: int, file: VaultFile, parsed: ParsedNote, closed: list[int],
                    written: datetime) -> None:
        """Index and graph follow what was committed for one note."""
        for memory_id in closed:
            self.eng.index.set_times(memory_id, valid_until=to_epoch(written))
        graph = self.eng.graph_if_built()
        if graph is None:
            return
        graph.add_source(source_id, "note", file.rel_path, parsed.title)
        for memory_id in closed:
            graph.close_memory(memory_id, valid_until=written)
        graph.refresh_edges(self.eng.store, f"s:{source_id}", "tagged")

    # --------------------------------------------------------- renames, deletes
    def _touch(self, current: StoredNote, file: VaultFile) -> None:
        self.eng.store.execute("UPDATE sources SET mtime = ?, size = ? WHERE id = ?",
                               [db_time(file.mtime), file.size, current.source_id])

    def _rename(self, old: StoredNote, file: VaultFile) -> None:
        now = utc_now()
        with self.eng.store.transaction() as conn:
            conn.execute(
                "UPDATE sources SET ref = ?, title = ?, mtime = ?, size = ?, deleted_at = NULL WHERE id = ?",
                [file.rel_path, Path(file.rel_path).stem, db_time(file.mtime), file.size, old.source_id],
            )
            event_id = self.eng.store.next_ids("events", 1)[0]
            conn.execute(
                "INSERT INTO events VALUES (?, 'note_renamed', ?, ?, NULL, NULL, NULL, ?, ?)",
                [event_id, db_time(min(file.mtime, now)), db_time(now), f"{old.ref} -> {file.rel_path}",
                 old.source_id],
            )
        self.eng.forget_source_cache(old.source_id)
        graph = self.eng.graph_if_built()
        if graph is not None:
            graph.add_source(old.source_id, "note", file.rel_path, Path(file.rel_path).stem)

    def _delete(self, old: StoredNote) -> None:
        now = utc_now()
        with self.eng.store.transaction() as conn:
            conn.execute("UPDATE sources SET deleted_at = ? WHERE id = ?", [db_time(now), old.source_id])
            closed = [r[0] for r in conn.execute(
                "SELECT id FROM memories WHERE source_id = ? AND valid_until IS NULL", [old.source_id]).fetchall()]
            conn.execute("UPDATE memories SET valid_until = ? WHERE source_id = ? AND valid_until IS NULL",
                         [db_time(now), old.source_id])
            conn.execute("UPDATE edges SET valid_until = ? WHERE src = ? AND valid_until IS NULL",
                         [db_time(now), f"s:{old.source_id}"])
            event_id = self.eng.store.next_ids("events", 1)[0]
            conn.execute("INSERT INTO events VALUES (?, 'note_deleted', ?, ?, NULL, NULL, NULL, ?, ?)",
                         [event_id, db_time(now), db_time(now), old.ref, old.source_id])
        for memory_id in closed:
            self.eng.index.set_times(memory_id, valid_until=to_epoch(now))
        graph = self.eng.graph_if_built()
        if graph is not None:
            for memory_id in closed:
                graph.close_memory(memory_id, valid_until=now)
            graph.mark_source_deleted(old.source_id, now)

    # -------------------------------------------------------------- attachments
    def _record_attachments(self, files: dict[str, VaultFile], report: SyncReport, *, full: bool) -> None:
        store = self.eng.store
        known = {ref: (id_, deleted) for id_, ref, deleted in store.query(
            "SELECT id, ref, deleted_at FROM sources WHERE kind = 'attachment'")}
        now = utc_now()
        with store.transaction() as conn:
            for rel, file in files.items():
                if rel in known:
                    conn.execute("UPDATE sources SET mtime = ?, size = ?, deleted_at = NULL WHERE id = ?",
                                 [db_time(file.mtime), file.size, known[rel][0]])
                    continue
                source_id = store.next_ids("sources", 1)[0]
                conn.execute(
                    """INSERT INTO sources (id, kind, ref, fingerprint, mtime, title, created_at, deleted_at, size)
                       VALUES (?, 'attachment', ?, NULL, ?, ?, ?, NULL, ?)""",
                    [source_id, rel, db_time(file.mtime), Path(rel).name, db_time(now), file.size],
                )
            if full:
                gone = [id_ for ref, (id_, deleted) in known.items() if ref not in files and deleted is None]
                if gone:
                    conn.execute("UPDATE sources SET deleted_at = ? WHERE id IN (SELECT unnest(?))",
                                 [db_time(now), gone])
        report.attachments = len(files)

    # -------------------------------------------------------------------- links
    def _resolve_links(self, *, full: bool) -> int:
        """Resolve wikilinks to note (or attachment) sources; all of them when titles changed."""
        store = self.eng.store
        titles: dict[str, list[str]] = defaultdict(list)
        by_path: dict[str, int] = {}
        for id_, kind, ref, meta in store.query(
            "SELECT id, kind, ref, meta FROM sources WHERE kind IN ('note', 'attachment') AND deleted_at IS NULL"
        ):
            by_path[ref] = id_
            name = ref.rsplit("/", 1)[-1]
            titles[(name[:-3] if kind == "note" and name.lower().endswith(".md") else name).lower()].append(ref)
            for alias in (json.loads(meta).get("aliases", []) if meta else []):
                titles[str(alias).lower()].append(ref)
        where = "" if full else "WHERE l.resolved_id IS NULL"
        rows = store.query(
            f"""SELECT l.rowid, l.target, s.ref, l.resolved_id FROM note_links l
                JOIN sources s ON s.id = l.source_id AND s.deleted_at IS NULL {where}"""
        )
        updates = []
        for rowid, target, from_path, resolved in rows:
            path = resolve_link(target, titles, from_path)
            new = by_path.get(path) if path else None
            if new != resolved:
                updates.append((rowid, new))
        if updates:
            with store.transaction() as conn:
                conn.execute("CREATE TEMP TABLE IF NOT EXISTS link_updates (rid BIGINT, resolved BIGINT)")
                conn.execute("DELETE FROM link_updates")
                bulk_insert(conn, "link_updates", ("rid", "resolved"), [list(u) for u in updates])
                conn.execute("UPDATE note_links SET resolved_id = u.resolved FROM link_updates u WHERE note_links.rowid = u.rid")
            graph = self.eng.graph_if_built()
            if graph is not None:
                graph.reload_links(store)
        return sum(1 for _, _, _, r in rows if r is not None) + sum(1 for _, n in updates if n is not None)


def _same_stat(stored: StoredNote | None, file: VaultFile) -> bool:
    return (stored is not None and not stored.deleted and stored.size == file.size
            and stored.mtime is not None and abs(to_epoch(stored.mtime) - to_epoch(ensure_utc(file.mtime))) < 1e-3)
