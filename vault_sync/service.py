"""Vault sync as a running service: initial index, live watcher, periodic rescan, readable status."""
from __future__ import annotations

import queue
import threading
from collections import deque
from dataclasses import asdict
from pathlib import Path
from typing import Callable

from memory.clock import iso, utc_now
from memory.engram import Engram

from .sync import SyncReport, VaultIndexer
from .watcher import VaultWatcher

RECENT_ERRORS = 20


class VaultSync:
    """One indexer (the single writer) fed by one watcher. Safe to read `status()` from any thread."""

    def __init__(self, eng: Engram, vault: str | Path, *, polling: bool = False, debounce_s: float = 0.4,
                 rescan_interval_s: float = 300.0) -> None:
        self.indexer = VaultIndexer(eng, vault)
        self.vault = self.indexer.vault
        self.watcher = VaultWatcher(self.vault, self._on_changes, debounce_s=debounce_s,
                                    rescan_interval_s=rescan_interval_s, on_rescan=self._on_rescan,
                                    polling=polling)
        self.reports: queue.Queue[SyncReport] = queue.Queue()
        self._errors: deque[str] = deque(maxlen=RECENT_ERRORS)
        self._last: SyncReport | None = None
        self._last_at = None
        self._busy = threading.Event()
        self._stopped = threading.Event()
        self.vectors = (0, 0)  # (filled, total) of the vector filler's current run

    def _on_vectors(self, filled: int, total: int) -> None:
        self.vectors = (filled, total)

    def start(self, progress: Callable[[int, int], None] | None = None, *,
              keyword_ready: Callable[[SyncReport], None] | None = None) -> SyncReport:
        """Index what changed since last time (`keyword_ready` once it is all keyword-searchable), fill the
        vectors a bulk pass left pending, then follow the folder."""
        self.watcher.start()  # first, so that edits made during the initial sync are not missed

        def searchable(report: SyncReport) -> None:  # what was indexed is shown at once; the vectors fill behind
            self._last, self._last_at = report, utc_now()
            if keyword_ready:
                keyword_ready(report)

        return self._run(lambda: self.indexer.sync_all(progress=progress, vectors=self._on_vectors,
                                                       keyword_ready=searchable))

    def stop(self) -> None:
        self._stopped.set()
        self.watcher.stop()

    def sync_now(self) -> SyncReport:
        return self._run(lambda: self.indexer.sync_all(vectors=self._on_vectors))

    def wait(self, on_report: Callable[[SyncReport], None] | None = None) -> None:
        """Block (for the CLI's `watch`) handing each sync report to `on_report`."""
        while not self._stopped.is_set():
            try:
                report = self.reports.get(timeout=0.5)
            except queue.Empty:
                continue
            if on_report:
                on_report(report)

    def status(self) -> dict:
        watch = asdict(self.watcher.status())
        last = self._last
        return {
            "vault": str(self.vault),
            "mode": watch["mode"],
            "message": watch["message"],
            "backlog": watch["backlog"] + (1 if self._busy.is_set() else 0),
            "syncing": self._busy.is_set(),
            "last_sync": iso(self._last_at),
            "last_event": iso(watch["last_event_at"]),
            "last_report": last.as_json() if last else None,
            "vectors_pending": self.indexer.eng.store.pending_vector_count(),  # keyword-searchable, not yet embedded
            "vectors_progress": {"filled": self.vectors[0], "total": self.vectors[1]},
            "errors": list(self._errors) + watch["errors"],
        }

    # --------------------------------------------------------------- callbacks
    def _on_changes(self, paths: set[str]) -> None:
        self._run(lambda: self.indexer.sync_paths(paths))

    def _on_rescan(self) -> None:
        self._run(lambda: self.indexer.sync_all(vectors=self._on_vectors))

    def _run(self, job: Callable[[], SyncReport]) -> SyncReport:
        self._busy.set()
        try:
            report = job()
        except Exception as exc:  # keep watching: the error is shown with what failed
            self._errors.append(f"{iso(utc_now())} sync failed: {exc}")
            raise
        finally:
            self._busy.clear()
        self._last, self._last_at = report, utc_now()
        for path, reason in report.skipped:
            self._errors.append(f"{path}: {reason}")
        self.reports.put(report)
        return report
