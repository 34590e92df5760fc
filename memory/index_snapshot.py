"""The index saved beside the database (`engram.duckdb.index`), so opening a store does not rebuild it.

The store is the truth and the snapshot only a cache of it. A snapshot is keyed by the store's index
fingerprint (a hash over every indexed column and vector, `Store.index_fingerprint`), so any change to
the store, by any path, makes it stale; a stale, truncated or damaged one (its length and CRC are
checked) is ignored and the index rebuilt from the store. It is written to a temporary file and
renamed into place, so a kill leaves the old snapshot or the new one. It holds only live rows (what a
rebuild would give), and a forget deletes it at once.
"""
from __future__ import annotations

import json
import logging
import os
import struct
import threading
import time
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import numpy as np

from .index import BulkPostings, HybridIndex

if TYPE_CHECKING:
    from .store import Store

log = logging.getLogger(__name__)
MAGIC = b"engram-index-snapshot-1\n"
SETTLE_SECONDS = 20.0  # a snapshot is saved once no write has come for this long (and at close)
ALIGN = 64
#: index columns saved row by row, in this order (vectors are saved after them)
COLUMNS = ("ids", "recorded", "valid_from", "valid_until", "superseded", "archived", "type_code", "source",
           "event", "doc_len", "relevance")


def snapshot_path(database: Path) -> Path:
    return database.with_name(database.name + ".index")


def snapshot_key(store: "Store", dim: int) -> str:
    """What a snapshot must have been saved under to be the index of the store as it is now."""
    return f"{store.index_fingerprint()}|dim {dim}"


def remove_snapshots(database: Path) -> None:
    """Delete the snapshot and any half-written one (a forget must leave no copy of the memory behind)."""
    target = snapshot_path(database)
    for path in [target, *target.parent.glob(target.name + ".*.partial")]:
        path.unlink(missing_ok=True)


# ------------------------------------------------------------------------ save
def capture(index: HybridIndex) -> tuple[dict[str, np.ndarray], dict]:
    """The index's live rows in id order, as a rebuild from the store would give them: arrays and header
    fields. Call under the store's lock, so no write lands halfway."""
    with index._lock:
        n = index.size
        rows = np.flatnonzero(index.alive[:n])
        rows = rows[np.argsort(index.ids[rows], kind="stable")]
        arrays = {name: getattr(index, name)[rows] for name in COLUMNS}
        arrays["vectors"] = index.vectors[rows]
        names = [index.sessions[r] for r in rows.tolist()]
        session_list = list(dict.fromkeys(names))
        code_of = {name: code for code, name in enumerate(session_list)}
        arrays["session_code"] = np.fromiter((code_of[name] for name in names), np.int32, len(names))
        vocab, starts, post_rows, post_tfs = _live_postings(index, rows)
        arrays.update(starts=starts, post_rows=post_rows, post_tfs=post_tfs,
                      vocab=np.frombuffer("\n".join(vocab).encode("utf-8"), np.uint8))
        fields = {"rows": len(rows), "dim": index.dim, "terms": len(vocab), "sessions": session_list,
                  "total_len": float(arrays["doc_len"].sum(dtype=np.float64))}
        return arrays, fields


def _live_postings(index: HybridIndex, rows: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Postings of the kept rows (renumbered to their place in `rows`), terms that keep none dropped."""
    bulk = index.bulk
    renumber = np.full(index.size, -1, np.int64)
    renumber[rows] = np.arange(len(rows))
    if not index.added and len(rows) == index.size and (renumber[: index.size] == np.arange(index.size)).all():
        return list(bulk.vocab), bulk.starts.copy(), bulk.rows.copy(), bulk.tfs.copy()  # as built: nothing to redo
    terms = list(bulk.vocab)
    term_ids = [np.repeat(np.arange(len(terms), dtype=np.int64), np.diff(bulk.starts))]
    row_parts, tf_parts = [bulk.rows.astype(np.int64)], [bulk.tfs]
    for term, postings in index.added.items():
        term_id = bulk.vocab.get(term)
        if term_id is None:
            term_id = len(terms)
            terms.append(term)
        added_rows, added_tfs = postings.arrays()
        term_ids.append(np.full(len(added_rows), term_id, np.int64))
        row_parts.append(added_rows)
        tf_parts.append(added_tfs)
    term_of, row_of, tfs = np.concatenate(term_ids), renumber[np.concatenate(row_parts)], np.concatenate(tf_parts)
    live = row_of >= 0
    term_of, row_of, tfs = term_of[live], row_of[live], tfs[live]
    used = np.unique(term_of)
    new_id = np.full(len(terms), -1, np.int64)
    new_id[used] = np.arange(len(used))
    order = np.lexsort((row_of, new_id[term_of]))
    term_of, row_of, tfs = new_id[term_of][order], row_of[order], tfs[order]
    starts = np.zeros(len(used) + 1, np.int64)
    np.cumsum(np.bincount(term_of, minlength=len(used)), out=starts[1:])
    return [terms[t] for t in used.tolist()], starts, row_of.astype(np.int32), tfs.astype(np.float32)


def save(path: Path, key: str, arrays: dict[str, np.ndarray], fields: dict) -> None:
    """Write a captured index under `key`: to a temporary file (0600), then renamed over `path`."""
    layout, offset = [], 0
    for name, array in arrays.items():
        offset = -(-offset // ALIGN) * ALIGN
        layout.append([name, array.dtype.str, list(array.shape), offset])
        offset += array.nbytes
    crc = 0
    for array in arrays.values():
        crc = zlib.crc32(_bytes(array), crc)
    header = json.dumps({**fields, "key": key, "arrays": layout, "payload": offset, "crc32": crc}).encode()
    for stale in path.parent.glob(path.name + ".*.partial"):  # left by a killed save (one writer per store)
        stale.unlink(missing_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    handle = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(MAGIC + struct.pack("<QI", len(header), zlib.crc32(header)) + header)
            start = out.tell()
            for (name, _, _, at), array in zip(layout, arrays.values()):
                out.write(b"\0" * (start + at - out.tell()))
                out.write(_bytes(array))
        os.replace(partial, path)  # atomic: a reader sees the old snapshot or this one, never a mix
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def _bytes(array: np.ndarray) -> memoryview:
    """The array's memory as bytes (a view: reading into it fills the array)."""
    return memoryview(np.ascontiguousarray(array).reshape(-1).view(np.uint8))


# ------------------------------------------------------------------------ load
class DamagedSnapshot(ValueError):
    """The snapshot file does not read back whole (truncated, bit-flipped, or not a snapshot at all)."""


def load(path: Path, key: str, dim: int) -> HybridIndex | None:
    """The index saved under `key`, or None when there is none, it is stale, or it is damaged (logged:
    the caller rebuilds from the store, and the next save replaces the file)."""
    try:
        with open(path, "rb") as source:
            header = _header(source, dim, os.fstat(source.fileno()).st_size)
            if header["key"] != key:
                log.info("index snapshot %s is older than the store: rebuilding the index from the store", path)
                return None
            return _read(source, header, dim)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, IndexError, struct.error) as exc:
        log.warning("index snapshot %s is damaged (%s): rebuilding the index from the store", path, exc)
        return None


def _header(source: BinaryIO, dim: int, size: int) -> dict:
    if source.read(len(MAGIC)) != MAGIC:
        raise DamagedSnapshot("not an index snapshot")
    length, crc = struct.unpack("<QI", source.read(12))
    raw = source.read(min(length, size))
    if len(raw) != length or zlib.crc32(raw) != crc:
        raise DamagedSnapshot("header checksum mismatch")
    header = json.loads(raw)
    if header["dim"] != dim:
        raise DamagedSnapshot(f"vectors of {header['dim']} dimensions, not {dim}")
    if size != len(MAGIC) + 12 + length + header["payload"]:
        raise DamagedSnapshot(f"{size} bytes, not the {len(MAGIC) + 12 + length + header['payload']} written")
    return header


def _read(source: BinaryIO, header: dict, dim: int) -> HybridIndex:
    n = header["rows"]
    index = HybridIndex(dim, capacity=n + 1024)
    start, crc, arrays = source.tell(), 0, {}
    for name, dtype, shape, at in header["arrays"]:
        if name in COLUMNS or name == "vectors":
            target = getattr(index, name)[:n]
            if target.dtype != np.dtype(dtype) or list(target.shape) != shape:
                raise DamagedSnapshot(f"array {name} has the wrong shape or type")
        else:
            target = np.empty(shape, np.dtype(dtype))
        if at + target.nbytes > header["payload"]:
            raise DamagedSnapshot(f"array {name} runs past the end")
        source.seek(start + at)
        if source.readinto(_bytes(target)) != target.nbytes:
            raise DamagedSnapshot(f"array {name} is cut short")
        crc = zlib.crc32(_bytes(target), crc)
        arrays[name] = target
    if crc != header["crc32"]:
        raise DamagedSnapshot("payload checksum mismatch")
    vocab = arrays["vocab"].tobytes().decode("utf-8").split("\n") if header["terms"] else []
    if len(vocab) != header["terms"] or len(arrays["starts"]) != len(vocab) + 1:
        raise DamagedSnapshot("the term list does not match its postings")
    index.size = index.live_docs = n
    index.alive[:n] = True
    index.row_of = dict(zip(arrays["ids"].tolist(), range(n)))
    sessions = header["sessions"]
    index.sessions = [sessions[code] for code in arrays["session_code"].tolist()]
    index.bulk = BulkPostings(dict(zip(vocab, range(len(vocab)))), arrays["starts"], arrays["post_rows"],
                              arrays["post_tfs"])
    index.total_len = header["total_len"]
    return index


# ---------------------------------------------------------------- keep current
class SnapshotKeeper:
    """Keeps one open store's snapshot current: saved once writes have settled (by a background thread)
    and at close, deleted at once when a memory is forgotten. Never saves an index that missed a write."""

    def __init__(self, store: "Store", index: HybridIndex, *, saved: bool, settle: float = SETTLE_SECONDS) -> None:
        self.store, self.index, self.settle = store, index, settle
        self.path = snapshot_path(store.path)
        self._saved_writes = store.memory_writes if saved else None  # what the file on disk reflects
        self._lock = threading.Lock()  # one save or delete at a time
        self._wake = threading.Event()
        self._due: float | None = None
        self._thread: threading.Thread | None = None
        self._closed = False
        if not saved:
            self.changed()

    def changed(self) -> None:
        """The index changed: save it once no write has come for `settle` seconds."""
        self._due = time.monotonic() + self.settle
        if self._thread is None and not self._closed:
            self._thread = threading.Thread(target=self._run, name="engram-index-snapshot", daemon=True)
            self._thread.start()
        self._wake.set()

    def forgot(self) -> None:
        """A memory was forgotten: no copy of it may stay on disk, so the snapshot goes now."""
        with self._lock:
            remove_snapshots(self.store.path)
            self._saved_writes = None

    def save(self) -> bool:
        """Save now unless the file is current or the index missed a write; True when written."""
        with self._lock:
            with self.store.exclusive():
                writes = self.store.memory_writes
                if writes == self._saved_writes or self.index.follows != writes:
                    return False
                key = snapshot_key(self.store, self.index.dim)
                arrays, fields = capture(self.index)
            save(self.path, key, arrays, fields)
            self._saved_writes = writes
            return True

    def close(self) -> None:
        """Stop the background thread and save what has not been saved."""
        self._closed = True
        self._wake.set()
        try:
            self.save()
        except Exception as exc:  # a cache: the next open rebuilds
            log.warning("could not save the index snapshot %s: %s", self.path, exc)

    def _run(self) -> None:
        while not self._closed:
            due = self._due
            if due is None or due > time.monotonic():
                self._wake.wait(None if due is None else due - time.monotonic())
                self._wake.clear()
                continue
            self._due = None
            try:
                self.save()
            except Exception as exc:  # a cache: the next open rebuilds; never take the app down
                log.warning("could not save the index snapshot %s: %s", self.path, exc)
