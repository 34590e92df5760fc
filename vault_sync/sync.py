"""The vault indexer: scan → hash → diff → parse → extract → embed → store.

A pass over a few notes (an edit the watcher saw) stores each note in its own transaction, embedded at
once. A bulk pass (more than BULK_NOTES changed notes: a first ingest) runs in two phases: notes are
stored in groups (one transaction per group) with their memories vector-pending, so the whole vault is
keyword-searchable and in the graph quickly; then the vector filler embeds the pending memories in large
batches. A killed fill goes on at the next sync.
"""
from __future__ import annotations

import functools
import json
import logging
import re
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Callable, Iterable

import duckdb

from memory.changes import Changes, NewMemory, NewSource, NoteLinks, SourceTags
from memory.clock import ensure_utc, to_epoch, utc_now
from memory.engram import Engram
from memory.errors import EngramError
from memory.graph import source_node
from memory.model import Event, ExtractedEntity, MemoryUnit, Source
from memory.write_path import FILL_BATCH, WriteReport

from .dated_facts import dated_statements
from .note_time import NoteTime, VaultClock
from .owner import FIRST_PERSON, is_about_owner, owner_statement
from .parse import Chunk, ParsedNote, parse_note, resolve_link
from .template_blocks import META_KEY as TEMPLATES_KEY, TemplateBlocks
from .scan import (
    MAX_NOTE_BYTES, NoteReadError, NoteText, VaultFile, check_vault, is_ignored, read_note,
    scan_vault, stat_file,
)

log = logging.getLogger(__name__)
MARKDOWN_NOISE = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+(?:\[.\][ \t]+)?|\d+[.)][ \t]+|>[ \t]*(?:\[![^\]\n]*\][ \t]*)?)", re.M)
CHUNK_CHARS = 800  # all-MiniLM-L6-v2 reads 256 word pieces; ~800 characters fit
NER_BULK_LIMIT = 200  # passes over more notes than this skip spaCy's statistical NER (see VaultIndexer)
NOTE_TYPE = "fact_reference"
MEANING_LIMIT_BYTES = 1024 * 1024  # larger notes are found by their words only (embedding them all takes minutes)
BULK_NOTES = 100  # passes over more changed notes than this store them vector-pending, in groups
GROUP_NOTES = 200  # notes per transaction in a bulk pass
GROUP_MEMORIES = 2000  # ... or fewer, when their memories reach this many


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
    dated_facts: int = 0
    attachments: int = 0
    keyword_ready_s: float = 0.0  # from the start until every changed note was stored and keyword-searchable
    vectors_filled: int = 0  # pending vectors the filler embedded after this pass
    vectors_pending: int = 0  # still pending when the pass returned (the next sync goes on)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    limited: list[tuple[str, str]] = field(default_factory=list)  # indexed, but only in part of the ways
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    timings: dict[str, float] = field(default_factory=lambda: defaultdict(float))

    def as_json(self) -> dict:
        data = {k: v for k, v in self.__dict__.items() if k not in ("skipped", "limited", "timings")}
        data["skipped"] = [{"path": p, "reason": r} for p, r in self.skipped]
        data["limited"] = [{"path": p, "reason": r} for p, r in self.limited]
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
                 meaning_limit: int = MEANING_LIMIT_BYTES, chunk_chars: int = CHUNK_CHARS,
                 ner: bool | None = None, bulk_notes: int = BULK_NOTES) -> None:
        self.eng = eng
        self.bulk_notes = bulk_notes  # passes over more changed notes are bulk passes (two phases)
        self.vault = check_vault(vault)
        self.max_note_bytes = max_note_bytes
        self.meaning_limit = meaning_limit
        self.chunk_chars = chunk_chars
        self.ner = ner
        self._ner_now = True
        self._lock = threading.Lock()
        self._filling = threading.Lock()
        self._known_loaded = False
        self._source_ids: list[int] = []
        self._reserve = 1
        self.redactor = eng.write_path.redactor
        self._clock: VaultClock | None = None
        self._templates: TemplateBlocks | None = None  # read from the store's meta on first use
        self.ref = functools.lru_cache(maxsize=None)(self.redactor.path_ref)  # vault path -> stored ref

    # ----------------------------------------------------------------- entry points
    def sync_all(self, progress: Callable[[int, int], None] | None = None,
                 scanning: Callable[[int], None] | None = None, *,
                 vectors: Callable[[int, int], None] | None = None, fill: bool = True,
                 keyword_ready: Callable[[SyncReport], None] | None = None) -> SyncReport:
        """Full pass over the vault; unchanged notes (same size and mtime, or same hash) cost nothing.

        `scanning(files_seen)` reports the walk of a big folder; `progress(done, total)` the notes indexed;
        `keyword_ready(report)` when they are all stored (keyword-searchable); then, unless `fill` is False,
        the pending vectors are filled, `vectors(filled, total)` reporting them."""
        report = self._sync_all(progress, scanning)
        return self._after_pass(report, vectors, fill, keyword_ready)

    def _after_pass(self, report: SyncReport, vectors, fill: bool, keyword_ready) -> SyncReport:
        if keyword_ready:
            keyword_ready(report)
        if fill:
            self.fill_vectors(report, progress=vectors)
        report.vectors_pending = self.eng.store.pending_vector_count()
        return report

    def fill_vectors(self, report: SyncReport | None = None, *, max_batches: int | None = None,
                     batch: int = FILL_BATCH, progress: Callable[[int, int], None] | None = None) -> SyncReport:
        """Embed the memories a bulk pass (or a killed one) left vector-pending; outside the indexer's lock,
        so edits the watcher sees are stored (and embedded at once) between batches. One filler at a time:
        a second call while one runs returns at once (the running one picks up new pending memories)."""
        report = report or SyncReport()
        if not self._filling.acquire(blocking=False):
            return report
        try:
            started = time.perf_counter()
            fill = self.eng.write_path.fill_pending_vectors(batch=batch, max_batches=max_batches, progress=progress)
        finally:
            self._filling.release()
        report.vectors_filled += fill.filled
        report.vectors_pending = fill.left
        report.timings["vectors embed"] += fill.embed_seconds
        report.timings["vectors store"] += fill.store_seconds
        report.seconds += time.perf_counter() - started
        return report

    def _sync_all(self, progress, scanning) -> SyncReport:
        with self._lock:
            started = time.perf_counter()
            scan = scan_vault(self.vault, scanning)
            self._clock = VaultClock.read(self.vault, [f.mtime for f in scan.notes.values()])
            stored = self._stored_notes()
            report = SyncReport(notes=len(scan.notes), skipped=list(scan.skipped))
            changed = [f for rel, f in sorted(scan.notes.items()) if not _same_stat(stored.get(self.ref(rel)), f)]
            report.unchanged = len(scan.notes) - len(changed)
            scanned = {self.ref(rel) for rel in scan.notes}
            missing = {ref for ref, s in stored.items() if not s.deleted and ref not in scanned}
            self._teach_titles(scan.notes)
            self._record_attachments(scan.attachments, report, full=True)  # first: embeds resolve to them
            if len(changed) > self.bulk_notes:
                self._learn_templates(changed, report)
            self._process(changed, missing, stored, report, progress)
            self.eng.apply(Changes(meta={"vault_last_sync": utc_now().isoformat(),
                                         TEMPLATES_KEY: self.templates.as_meta()}))
            report.seconds = report.keyword_ready_s = time.perf_counter() - started
            return report

    def sync_paths(self, rel_paths: Iterable[str], *, fill: bool = True) -> SyncReport:
        """Bring the given vault-relative paths (from the watcher) up to date."""
        return self._after_pass(self._sync_paths(rel_paths), None, fill, None)

    def _sync_paths(self, rel_paths: Iterable[str]) -> SyncReport:
        with self._lock:
            started = time.perf_counter()
            stored = self._stored_notes()
            report = SyncReport()
            window = self._clock.bulk_window if self._clock else None
            self._clock = VaultClock.read(self.vault)
            self._clock.bulk_window = window  # a watcher batch is no bulk copy; keep what the full pass saw
            changed, missing, attachments = [], set(), {}
            for rel in sorted(set(rel_paths)):
                if is_ignored(rel):
                    continue
                found = stat_file(self.vault, rel)
                if found is None:
                    if self.ref(rel) in stored and not stored[self.ref(rel)].deleted:
                        missing.add(self.ref(rel))
                elif found.is_note:
                    changed.append(found)
                else:
                    attachments[rel] = found
            report.notes = len(changed)
            self._teach_titles({f.rel_path: f for f in changed})
            self._record_attachments(attachments, report, full=False)
            self._process(changed, missing, stored, report, None)
            self.eng.apply(Changes(meta={"vault_last_sync": utc_now().isoformat()}))
            report.seconds = report.keyword_ready_s = time.perf_counter() - started
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
        self._source_ids = []  # reserved for this pass only (a restore between passes rewinds the sequence)
        self._reserve = min(len(changed), 64)
        group = _Group(bulk=len(changed) > self.bulk_notes)
        for number, file in enumerate(changed, start=1):
            t0 = time.perf_counter()
            try:
                note = read_note(file, self.max_note_bytes)
            except NoteReadError as exc:
                report.skipped.append((self.ref(file.rel_path), self.redactor.scrub(str(exc).split(": ", 1)[-1])))
                if progress and not group.notes:
                    progress(number, len(changed))
                continue
            report.timings["read"] += time.perf_counter() - t0
            if note.warning:
                report.warnings.append(note.warning)
            current = stored.get(self.ref(file.rel_path))
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
                if group.bulk:
                    self._add_to_group(group, file, note, current, report)
                else:
                    self._index_alone(file, note, current, report)
            if group.full():
                self._apply_group(group, report)
            if progress and not group.notes:
                progress(number, len(changed))
        self._apply_group(group, report)
        for ref in sorted(missing):
            self._delete(stored[ref])
            report.deleted += 1
        t0 = time.perf_counter()
        report.links_resolved = self._resolve_links(full=titles_changed)
        report.timings["links"] += time.perf_counter() - t0

    @property
    def templates(self) -> TemplateBlocks:
        if self._templates is None:
            self._templates = TemplateBlocks.from_meta(self.eng.store.get_meta(TEMPLATES_KEY))
        return self._templates

    def _learn_templates(self, changed: list[VaultFile], report: SyncReport) -> None:
        """Before a bulk pass stores its notes: which chunk texts recur in many of them (template_blocks)."""
        t0 = time.perf_counter()
        scrub = self.redactor.scrub

        def chunk_texts():
            for file in changed:
                try:
                    note = read_note(file, self.max_note_bytes)
                except NoteReadError:
                    continue  # the pass itself reports it
                parsed = parse_note(scrub(file.rel_path), scrub(note.text), max_chunk_chars=self.chunk_chars)
                yield [chunk.text for chunk in note_chunks(parsed, self.chunk_chars)]

        self.templates.learn(chunk_texts())
        report.timings["templates"] += time.perf_counter() - t0

    def _stored_notes(self) -> dict[str, StoredNote]:
        """Note sources by path; a live row wins over a deleted one at the same path."""
        notes: dict[str, StoredNote] = {}
        for id_, ref, fingerprint, mtime, size, deleted in self.eng.store.note_sources():
            row = StoredNote(id_, ref, fingerprint, mtime, size, deleted is not None)
            if ref not in notes or notes[ref].deleted:
                notes[ref] = row
        return notes

    def _teach_titles(self, notes: dict[str, VaultFile]) -> None:
        """Note titles feed the EntityRuler so mentions of other notes are found in text."""
        names = [self.redactor.scrub(Path(rel).stem) for rel in notes]
        if not self._known_loaded:
            names += self.eng.store.entity_names(("NOTE", "ALIAS"))
            self._known_loaded = True
        self.eng.extractor.add_known(names, "NOTE")

    # ------------------------------------------------------------------ one note
    def _index_alone(self, file: VaultFile, note: NoteText, current: StoredNote | None, report: SyncReport) -> None:
        """Store one note in its own transaction, embedded at once; a fault in this note skips only it."""
        try:
            changes, links = self._note_changes(file, note, current, report, {})
            report.entities += self._apply(changes, report).entities
        except (EngramError, duckdb.Error, OSError):
            raise  # the store or the disk, not this note: stop and say so
        except Exception as exc:  # a fault in reading this one note must not stop the others
            self._note_failed(file, exc, report)
        else:
            report.indexed += 1
            report.chunks += len(changes.memories)
            report.links += links

    def _note_failed(self, file: VaultFile, exc: Exception, report: SyncReport) -> None:
        log.error("could not index %s", file.rel_path, exc_info=exc)
        report.skipped.append((self.ref(file.rel_path), f"could not be indexed ({type(exc).__name__}); "
                               "the other notes were, and this one is retried on the next sync"))

    def _add_to_group(self, group: "_Group", file: VaultFile, note: NoteText, current: StoredNote | None,
                      report: SyncReport) -> None:
        """Prepare one note of a bulk pass; it is stored with its group."""
        try:
            changes, links = self._note_changes(file, note, current, report, group.timelines)
        except (EngramError, duckdb.Error, OSError):
            raise
        except Exception as exc:
            self._note_failed(file, exc, report)
            return
        changes.vectors_later = True
        group.add(file, note, current, changes, links)

    def _apply_group(self, group: "_Group", report: SyncReport) -> None:
        """Store a group of prepared notes in one transaction (vector-pending); should that fail for any
        reason but the store or the disk, each note is prepared and stored again on its own."""
        notes = group.take()
        if not notes:
            return
        try:
            result = self._apply(Changes.combined([changes for *_, changes, _ in notes]), report)
        except (EngramError, duckdb.Error, OSError):
            raise
        except Exception:
            log.exception("a group of %d notes could not be stored together; storing them one by one", len(notes))
            for file, note, current, _, _ in notes:
                self._add_to_group(group, file, note, current, report)
                self._apply_group_alone(group, report)
            return
        report.indexed += len(notes)
        report.chunks += sum(len(changes.memories) for *_, changes, _ in notes)
        report.entities += sum(len({key for m in changes.memories for key in result.entity_keys.get(m.unit.id, ())})
                               for *_, changes, _ in notes)  # per note, as when each note is stored alone
        report.links += sum(links for *_, links in notes)

    def _apply_group_alone(self, group: "_Group", report: SyncReport) -> None:
        notes = group.take()
        for file, _, _, changes, links in notes:
            try:
                report.entities += self._apply(changes, report).entities
            except (EngramError, duckdb.Error, OSError):
                raise
            except Exception as exc:
                self._note_failed(file, exc, report)
            else:
                report.indexed += 1
                report.chunks += len(changes.memories)
                report.links += links

    def _apply(self, changes: Changes, report: SyncReport) -> WriteReport:
        eng = self.eng
        before = dict(eng.write_path.seconds)
        result = eng.apply(changes)
        for part in ("embed", "store"):
            report.timings[part] += eng.write_path.seconds[part] - before[part]
        return result

    def _note_changes(self, file: VaultFile, note: NoteText, current: StoredNote | None, report: SyncReport,
                      timelines: dict) -> tuple[Changes, int]:
        """What storing this version of the note changes, and how many links it has."""
        eng = self.eng
        t0 = time.perf_counter()
        ref = self.ref(file.rel_path)
        parsed = parse_note(self.redactor.scrub(file.rel_path), self.redactor.scrub(note.text),
                            max_chunk_chars=self.chunk_chars)
        report.timings["parse"] += time.perf_counter() - t0
        if parsed.frontmatter_error:
            report.warnings.append(f"{ref}: {parsed.frontmatter_error}; the body was indexed")
        eng.extractor.add_known(parsed.aliases, "NOTE")
        now = utc_now()
        when = self._clock.note_time(file.rel_path, mtime=file.mtime, frontmatter=parsed.frontmatter, now=now)
        edited = current is not None and not current.deleted
        written = when.updated  # when its author wrote this version: the record's time
        valid_from = written if edited else when.created  # text added by an edit holds from the edit on
        source_id = current.source_id if current else self._new_source_id()
        kept, kept_kind = self._current_memories(source_id) if edited else ({}, {})

        t0 = time.perf_counter()
        extraction_lines = MARKDOWN_NOISE.sub("", parsed.extraction_text).split("\n")
        title_entity = ExtractedEntity(parsed.title, "NOTE")
        changes = Changes()
        chunks = note_chunks(parsed, self.chunk_chars)
        keywords_only = file.size > self.meaning_limit
        if keywords_only:
            report.limited.append((ref, f"indexed by keywords only: {_size(file.size)} is over the "
                                        f"{_size(self.meaning_limit)} limit for meaning search and names"))
        if self._ner_now and not keywords_only:
            eng.extractor.prefetch("\n".join(extraction_lines[c.line_start - 1 : c.line_end]) for c in chunks)
        for chunk in chunks:
            text = chunk.text
            if _keep(kept, text, chunk.line_start, chunk.line_end, changes):
                continue
            mention_text = "\n".join(extraction_lines[chunk.line_start - 1 : chunk.line_end])
            if len(mention_text) > 2 * len(text) + 200:  # the chunk is a piece of one very long line
                mention_text = MARKDOWN_NOISE.sub("", text)
            entities = [title_entity]
            if not keywords_only:
                entities += eng.extractor.entities(mention_text, statistical=self._ner_now)
            unit = MemoryUnit(content=text, type=NOTE_TYPE, valid_from=valid_from, recorded_at=written,
                              source_id=source_id, line_start=chunk.line_start, line_end=chunk.line_end)
            changes.memories.append(NewMemory(unit, f"{' › '.join(chunk.heading_path)}\n{text}", entities,
                                              embed=not (keywords_only or self.templates.holds(text))))
        if not keywords_only:
            self._dated_facts(parsed, when, written, source_id, kept, changes, report, timelines)
        retired = {i for ids in kept.values() for i in ids} - {s.old for s in changes.supersessions if isinstance(s.old, int)}
        for memory_id in sorted(retired):  # its text is gone from the note
            if kept_kind[memory_id] == "chunk":
                changes.update(memory_id, valid_until=written)  # the note said it until this edit
            else:  # a dated fact the note no longer states: the record was corrected
                changes.update(memory_id, superseded_at=written)
        report.timings["extract"] += time.perf_counter() - t0
        changes.events.append(Event(kind="note_edited" if current and not current.deleted else "note_created",
                                    at=written, text=ref, source_id=source_id, recorded_at=now))
        meta = json.dumps({"aliases": parsed.aliases, "tags": parsed.tags}, ensure_ascii=False)
        aliases = [a for a in dict.fromkeys(parsed.aliases) if a and a != parsed.title]
        if aliases:
            changes.entity_aliases[parsed.title] = aliases
        if current is None:
            changes.sources.append(NewSource(
                Source(kind="note", ref=ref, fingerprint=note.fingerprint, mtime=file.mtime,
                       title=parsed.title, created_at=now, id=source_id), meta=meta, size=file.size))
        else:
            changes.update_source(source_id, ref=ref, fingerprint=note.fingerprint, mtime=file.mtime,
                                  title=parsed.title, deleted_at=None, meta=meta, size=file.size)
        changes.note_links.append(NoteLinks(source_id, [(link.target, "embed" if link.embed else "link", link.line)
                                                        for link in parsed.links]))
        changes.tags.append(SourceTags(source_id, parsed.tags, valid_from, changed_at=now))
        return changes, len(parsed.links)

    def _new_source_id(self) -> int:
        """A new note's source id, from a block reserved in one store call (unused ones are gaps)."""
        if not self._source_ids:
            self._source_ids = self.eng.store.next_ids("sources", max(self._reserve, 1))[::-1]
        return self._source_ids.pop()

    def _current_memories(self, source_id: int) -> tuple[dict[str, list[int]], dict[int, str]]:
        """What the note's last version holds, by text (a note may repeat a section word for word): its open
        chunks and its dated facts whatever their world interval; and each one's kind (chunk or fact)."""
        found: dict[str, list[int]] = defaultdict(list)
        kinds: dict[int, str] = {}
        for content, memory_id, kind in self.eng.store.current_note_memories(source_id):
            found[content].append(memory_id)
            kinds[memory_id] = kind
        return found, kinds

    def _dated_facts(self, parsed: ParsedNote, when: NoteTime, written: datetime, source_id: int,
                     kept: dict[str, list[int]], changes: Changes, report: SyncReport, timelines: dict) -> None:
        """Dated statements in the note become memories with their own world interval; in a note about the
        vault's owner, or in a first-person line, the facts they state feed the user's slots."""
        started = time.perf_counter()
        note_date = when.daily or (when.created if when.reliable else None)
        owner = is_about_owner(parsed)
        for statement in dated_statements(parsed.extraction_text, note_date=note_date, daily=when.daily is not None):
            report.dated_facts += 1
            content = f"{statement.text} ({statement.words})"
            if _keep(kept, content, statement.line, statement.line, changes):
                continue
            entities = self.eng.extractor.entities(statement.text, statistical=self._ner_now)  # the note is its source
            unit = MemoryUnit(content=content, type=NOTE_TYPE, valid_from=statement.valid_from,
                              valid_until=statement.valid_until, recorded_at=written, source_id=source_id,
                              line_start=statement.line, line_end=statement.line, subject="note",
                              attribute=f"dated:{statement.kind}")
            changes.memories.append(NewMemory(unit, f"{parsed.title}\n{content}", entities))
            if owner or FIRST_PERSON.search(statement.text):
                for fact in self.eng.extractor.memories(owner_statement(statement.text), role="user"):
                    if not fact.attribute or _keep(kept, fact.content, statement.line, statement.line, changes):
                        continue
                    slot_unit = MemoryUnit(content=fact.content, type=fact.type, valid_from=statement.valid_from,
                                           valid_until=statement.valid_until, recorded_at=written,
                                           source_id=source_id, line_start=statement.line, line_end=statement.line,
                                           subject=fact.subject, attribute=fact.attribute, value=fact.value)
                    new = NewMemory(slot_unit, fact.content, fact.entities or entities)
                    if self.eng.writer.place(new, timelines, changes, WriteReport()):
                        changes.memories.append(new)
        report.timings["dated facts"] += time.perf_counter() - started  # a part of "extract"

    # --------------------------------------------------------- renames, deletes
    def _touch(self, current: StoredNote, file: VaultFile) -> None:
        changes = Changes()
        changes.update_source(current.source_id, mtime=file.mtime, size=file.size)
        self.eng.apply(changes)

    def _rename(self, old: StoredNote, file: VaultFile) -> None:
        now = utc_now()
        changes = Changes(events=[Event(kind="note_renamed", at=min(file.mtime, now), recorded_at=now,
                                        text=f"{old.ref} -> {self.ref(file.rel_path)}", source_id=old.source_id)])
        changes.update_source(old.source_id, ref=self.ref(file.rel_path), title=Path(file.rel_path).stem, mtime=file.mtime,
                              size=file.size, deleted_at=None)
        self.eng.apply(changes)

    def _delete(self, old: StoredNote) -> None:
        now = utc_now()
        changes = Changes(events=[Event(kind="note_deleted", at=now, recorded_at=now, text=old.ref,
                                        source_id=old.source_id)],
                          close_edges_from=[(source_node(old.source_id), now)])
        changes.update_source(old.source_id, deleted_at=now)
        for memory_id in self.eng.store.open_memory_ids_of_source(old.source_id):
            changes.update(memory_id, valid_until=now)
        self.eng.apply(changes)

    # -------------------------------------------------------------- attachments
    def _record_attachments(self, files: dict[str, VaultFile], report: SyncReport, *, full: bool) -> None:
        known = self.eng.store.attachment_sources()
        now = utc_now()
        changes = Changes()
        refs = {self.ref(rel): file for rel, file in files.items()}
        for ref, file in refs.items():
            if ref in known:
                changes.update_source(known[ref][0], mtime=file.mtime, size=file.size, deleted_at=None)
            else:
                changes.sources.append(NewSource(Source(kind="attachment", ref=ref, mtime=file.mtime,
                                                        title=Path(file.rel_path).name, created_at=now),
                                                 size=file.size))
        if full:
            for ref, (source_id, deleted) in known.items():
                if ref not in refs and deleted is None:
                    changes.update_source(source_id, deleted_at=now)
        self.eng.apply(changes)
        report.attachments = len(files)

    # -------------------------------------------------------------------- links
    def _resolve_links(self, *, full: bool) -> int:
        """Resolve wikilinks to note (or attachment) sources; all of them when titles changed."""
        store = self.eng.store
        titles: dict[str, list[str]] = defaultdict(list)
        by_path: dict[str, int] = {}
        for id_, kind, ref, meta in store.linkable_sources():
            by_path[ref] = id_
            name = ref.rsplit("/", 1)[-1]
            titles[(name[:-3] if kind == "note" and name.lower().endswith(".md") else name).lower()].append(ref)
            for alias in (json.loads(meta).get("aliases", []) if meta else []):
                titles[str(alias).lower()].append(ref)
        rows = store.note_link_rows(unresolved_only=not full)
        updates = []
        for rowid, target, from_path, resolved in rows:
            path = resolve_link(target, titles, from_path)
            new = by_path.get(path) if path else None
            if new != resolved:
                updates.append((rowid, new))
        self.eng.apply(Changes(link_resolutions=updates))
        return sum(1 for _, _, _, r in rows if r is not None) + sum(1 for _, n in updates if n is not None)


@dataclass
class _Group:
    """Notes of a bulk pass prepared but not yet stored, and the slot timelines they share."""

    bulk: bool
    notes: list[tuple[VaultFile, NoteText, StoredNote | None, Changes, int]] = field(default_factory=list)
    timelines: dict = field(default_factory=dict)

    memories: int = 0

    def add(self, file: VaultFile, note: NoteText, current: StoredNote | None, changes: Changes, links: int) -> None:
        self.notes.append((file, note, current, changes, links))
        self.memories += len(changes.memories)

    def take(self) -> list[tuple[VaultFile, NoteText, StoredNote | None, Changes, int]]:
        """The prepared notes, leaving the group empty."""
        notes, self.notes, self.timelines, self.memories = self.notes, [], {}, 0
        return notes

    def full(self) -> bool:
        return len(self.notes) >= GROUP_NOTES or self.memories >= GROUP_MEMORIES


def _keep(kept: dict[str, list[int]], text: str, line_start: int, line_end: int, changes: Changes) -> bool:
    """A memory the note still holds word for word stays (its lines may have moved)."""
    same = kept.get(text)
    if not same:
        return False
    changes.update(same.pop(), line_start=line_start, line_end=line_end)
    return True


def _size(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MB" if size >= 1024 * 1024 else f"{size / 1024:.0f} KB"


def _same_stat(stored: StoredNote | None, file: VaultFile) -> bool:
    return (stored is not None and not stored.deleted and stored.size == file.size
            and stored.mtime is not None and abs(to_epoch(stored.mtime) - to_epoch(ensure_utc(file.mtime))) < 1e-3)
