"""Watch a vault: filesystem events → debounced batches of vault-relative paths; no parsing, no database."""
from __future__ import annotations

import errno
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from types import TracebackType

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver
from watchdog.observers.polling import PollingObserverVFS

from memory.clock import utc_now

from .scan import check_vault, is_ignored

log = logging.getLogger(__name__)

NOTE_SUFFIX = ".md"
MAX_ERRORS = 20
HEALTH_CHECK_S = 1.0
LIMIT_ERRNOS = {
    errno.ENOSPC: ("inotify watch limit reached", "fs.inotify.max_user_watches"),
    errno.EMFILE: ("inotify instance or open-file limit reached", "fs.inotify.max_user_instances (or ulimit -n)"),
}

# Only these reach the handler; leaving out open/close also keeps our own reads of notes quiet.
WATCHED_EVENTS: list[type[FileSystemEvent]] = [
    FileCreatedEvent,
    FileModifiedEvent,
    FileDeletedEvent,
    FileMovedEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
]

ChangeCallback = Callable[[set[str]], None]
ObserverFactory = Callable[[], BaseObserver]


def is_note_path(rel_path: str) -> bool:
    """True for a Markdown note (`**/*.md`, any case) that is not ignored."""
    return rel_path.lower().endswith(NOTE_SUFFIX) and not is_ignored(rel_path)


def is_attachment(rel_path: str) -> bool:
    """True for a file the watcher reports that is not a note (an image, a PDF, …)."""
    return not is_ignored(rel_path) and not is_note_path(rel_path)


@dataclass
class WatchStatus:
    """What the watcher is doing, for the freshness page."""

    mode: str = "stopped"  # 'inotify' | 'polling' | 'stopped'
    started_at: datetime | None = None
    last_event_at: datetime | None = None
    last_batch_at: datetime | None = None
    backlog: int = 0
    batches: int = 0
    errors: list[str] = field(default_factory=list)
    message: str | None = None


class _Handler(FileSystemEventHandler):
    """Forwards every watchdog event to the watcher; an exception must not kill the observer thread."""

    def __init__(self, watcher: VaultWatcher) -> None:
        self._watcher = watcher

    def dispatch(self, event: FileSystemEvent) -> None:
        try:
            self._watcher._on_event(event)
        except Exception as exc:  # noqa: BLE001 — recorded in status, observer keeps running
            self._watcher._record_error(f"event for {event.src_path!r} failed: {exc!r}")


class VaultWatcher:
    """Watch `vault` and hand debounced sets of changed vault-relative paths to one worker callback."""

    def __init__(
        self,
        vault: Path,
        on_changes: ChangeCallback,
        *,
        debounce_s: float = 0.4,
        max_wait_s: float = 3.0,
        rescan_interval_s: float = 300.0,
        on_rescan: Callable[[], None] | None = None,
        polling: bool = False,
        poll_interval_s: float = 2.0,
        observer_factory: ObserverFactory | None = None,
    ) -> None:
        self.vault = check_vault(vault)
        self._root = str(self.vault)
        self._on_changes = on_changes
        self._on_rescan = on_rescan
        self._debounce_s = debounce_s
        self._max_wait_s = max_wait_s
        self._rescan_interval_s = rescan_interval_s
        self._polling = polling
        self._poll_interval_s = poll_interval_s
        self._observer_factory = observer_factory or Observer

        self._lifecycle = threading.Lock()  # serialises start() and stop()
        self._cond = threading.Condition()  # guards everything below; the worker waits on it
        self._status = WatchStatus()
        self._errors: deque[str] = deque(maxlen=MAX_ERRORS)
        self._known: set[str] = set()
        self._pending: set[str] = set()
        self._failed_once: set[str] = set()
        self._first_pending = 0.0
        self._last_pending = 0.0
        self._stopping = False
        self._observer: BaseObserver | None = None
        self._worker: threading.Thread | None = None
        self._observer_lost = False

    # ---- lifecycle -------------------------------------------------------------------------

    def start(self) -> None:
        """Start watching (no-op when already running)."""
        with self._lifecycle:
            if self._worker is not None:
                return
            check_vault(self.vault)
            with self._cond:
                self._stopping = False
                self._known = set()  # events arriving during the walk below add to it too
            observer, mode, message = self._start_observer()
            known = self._walk(self._root)
            with self._cond:
                self._known.update(known)
                self._observer = observer
                self._observer_lost = False
                self._status = replace(self._status, mode=mode, message=message, started_at=utc_now())
            self._worker = threading.Thread(target=self._run, name="engram-vault-watcher", daemon=True)
            self._worker.start()

    def stop(self) -> None:
        """Stop watching, deliver what is pending, and join all threads; safe to call twice."""
        with self._lifecycle:
            with self._cond:
                observer, self._observer = self._observer, None
            if observer is not None:
                _stop_observer(observer)
            if self._worker is not None:
                with self._cond:
                    self._stopping = True
                    self._cond.notify_all()
                self._worker.join()
                self._worker = None
            with self._cond:
                self._status.mode = "stopped"

    def status(self) -> WatchStatus:
        """A consistent copy of the current status."""
        with self._cond:
            return replace(self._status, backlog=len(self._pending), errors=list(self._errors))

    def __enter__(self) -> VaultWatcher:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # ---- observer --------------------------------------------------------------------------

    def _start_observer(self) -> tuple[BaseObserver, str, str | None]:
        """Start the native observer, or the polling one when forced or when inotify limits are hit."""
        if not self._polling:
            try:
                return self._schedule_and_start(self._observer_factory), "inotify", None
            except OSError as exc:
                if exc.errno not in LIMIT_ERRNOS:
                    raise
                message = self._fallback_message(exc.errno)
                log.warning("%s (%s)", message, self._root)
        else:
            message = None
        polling = self._schedule_and_start(self._polling_observer)
        return polling, "polling", message

    def _polling_observer(self) -> BaseObserver:
        """PollingObserver's emitter, but with lstat so that symlinked folders are not walked."""
        return PollingObserverVFS(os.lstat, os.scandir, polling_interval=self._poll_interval_s)

    def _schedule_and_start(self, factory: ObserverFactory) -> BaseObserver:
        """Build, schedule and start one observer; on failure leave no thread behind."""
        observer = factory()
        try:
            observer.schedule(
                _Handler(self), self._root, recursive=True, event_filter=WATCHED_EVENTS, follow_symlink=False
            )
            observer.start()
        except BaseException:
            _stop_observer(observer)
            raise
        return observer

    def _fallback_message(self, err: int) -> str:
        """Explain the polling fallback and how to restore instant sync."""
        what, knob = LIMIT_ERRNOS[err]
        return (
            f"{what} (errno {err}); falling back to polling every {self._poll_interval_s:g} s"
            f" — raise {knob} to restore instant sync"
        )

    # ---- events (observer thread) ----------------------------------------------------------

    def _on_event(self, event: FileSystemEvent) -> None:
        """Turn one watchdog event into added and removed vault paths."""
        src = os.fsdecode(event.src_path)
        dest = os.fsdecode(event.dest_path) if event.dest_path else ""
        if isinstance(event, FileMovedEvent):
            self._apply(removed=self._file_paths(src, exists=False), added=self._file_paths(dest))
        elif isinstance(event, (FileCreatedEvent, FileModifiedEvent)):
            self._apply(added=self._file_paths(src))
        elif isinstance(event, FileDeletedEvent):
            self._apply(removed=self._file_paths(src, exists=False))
        elif isinstance(event, DirMovedEvent):
            self._apply(removed=self._known_under(src), added=self._walk(dest))
        elif isinstance(event, DirCreatedEvent):
            self._apply(added=self._walk(src))
        elif isinstance(event, DirDeletedEvent):
            self._apply(removed=self._known_under(src))

    def _apply(self, *, added: Iterable[str] = (), removed: Iterable[str] = ()) -> None:
        """Update the known paths and queue every changed path for the next batch."""
        added, removed = set(added), set(removed)
        if not added and not removed:
            return
        now = time.monotonic()
        with self._cond:
            self._known -= removed
            self._known |= added
            if not self._pending:
                self._first_pending = now
            self._pending |= added | removed
            self._last_pending = now
            self._status.last_event_at = utc_now()
            self._cond.notify_all()

    def _rel(self, abs_path: str) -> str | None:
        """The vault-relative POSIX path, or None when outside the vault or ignored."""
        if not abs_path:
            return None
        rel = os.path.relpath(abs_path, self._root).replace(os.sep, "/")
        if rel.split("/")[0] in (".", ".."):
            return None
        return None if is_ignored(rel) else rel

    def _file_paths(self, abs_path: str, *, exists: bool = True) -> list[str]:
        """The path as a one-item list when it counts: not ignored and, if it exists, a file inside the vault."""
        rel = self._rel(abs_path)
        if rel is None or (exists and not self._is_vault_file(abs_path)):
            return []
        return [rel]

    def _is_vault_file(self, abs_path: str) -> bool:
        """False for folders (a symlink to one arrives as a file event) and for symlinks leading out of the vault."""
        real = os.path.realpath(abs_path)
        return not os.path.isdir(real) and real.startswith(self._root + os.sep)

    def _known_under(self, abs_dir: str) -> list[str]:
        """Known file paths below a folder (for folder deletes and the source side of folder moves)."""
        rel = self._rel(abs_dir)
        if rel is None:
            return []
        prefix = rel + "/"
        with self._cond:
            return [path for path in self._known if path.startswith(prefix)]

    def _walk(self, abs_dir: str) -> list[str]:
        """Every reportable file below a folder, without following symlinked folders."""
        if abs_dir != self._root and self._rel(abs_dir) is None:
            return []
        found = []
        for root, dirnames, filenames in os.walk(abs_dir, followlinks=False):
            dirnames[:] = [name for name in dirnames if not name.startswith(".")]
            for name in filenames:
                found += self._file_paths(os.path.join(root, name))
        return found

    # ---- worker thread ---------------------------------------------------------------------

    def _run(self) -> None:
        """The single worker: flush debounced batches, run periodic rescans, watch the observer's health."""
        next_rescan = time.monotonic() + self._rescan_interval_s
        while True:
            with self._cond:
                batch, stopping = self._wait_for_work(next_rescan)
            if batch:
                self._deliver(batch, retry=not stopping)
            if stopping:
                return
            if time.monotonic() >= next_rescan:
                self._rescan()
                next_rescan = time.monotonic() + self._rescan_interval_s
            self._check_observer()

    def _wait_for_work(self, next_rescan: float) -> tuple[set[str], bool]:
        """Under the lock: wait until a batch is due, a rescan is due, a health check is due, or stop."""
        deadline = min(next_rescan, time.monotonic() + HEALTH_CHECK_S)
        while not self._stopping:
            now = time.monotonic()
            due = self._batch_due_at()
            if due <= now:
                return self._take_pending(), False
            if deadline <= now:
                return set(), False
            self._cond.wait(min(due, deadline) - now)
        return self._take_pending(), True

    def _batch_due_at(self) -> float:
        """When the pending set must be flushed: quiet for debounce_s, or max_wait_s after it began."""
        if not self._pending:
            return float("inf")
        return min(self._last_pending + self._debounce_s, self._first_pending + self._max_wait_s)

    def _take_pending(self) -> set[str]:
        """Empty the pending set and return its paths."""
        batch, self._pending = self._pending, set()
        return batch

    def _deliver(self, batch: set[str], *, retry: bool) -> None:
        """Call on_changes once; a failing path is retried in the next batch once, then dropped."""
        try:
            self._on_changes(set(batch))
        except Exception as exc:  # noqa: BLE001 — any callback failure is recorded, never fatal
            self._batch_failed(batch, exc, retry=retry)
        else:
            with self._cond:
                self._failed_once -= batch
        with self._cond:
            self._status.batches += 1
            self._status.last_batch_at = utc_now()

    def _batch_failed(self, batch: set[str], exc: Exception, *, retry: bool) -> None:
        """Record the failure; requeue first-time failures, drop the ones that already failed once."""
        with self._cond:
            dropped = batch & self._failed_once if retry else set(batch)
            again = batch - dropped
            self._failed_once = (self._failed_once - dropped) | again
            self._errors.append(f"on_changes failed for {_names(batch)}: {type(exc).__name__}: {exc}")
            if dropped:
                self._errors.append(f"dropped after failing twice: {_names(dropped)}")
            if again:
                now = time.monotonic()
                if not self._pending:
                    self._first_pending = now
                self._pending |= again
                self._last_pending = now
        log.warning("on_changes failed for %s", _names(batch), exc_info=exc)

    def _rescan(self) -> None:
        """Call on_rescan, the periodic safety net; a failure is recorded, never fatal."""
        if self._on_rescan is None:
            return
        try:
            self._on_rescan()
        except Exception as exc:  # noqa: BLE001
            self._record_error(f"on_rescan failed for {self._root}: {type(exc).__name__}: {exc}")

    def _check_observer(self) -> None:
        """Report once if the observer or its emitter died (e.g. the vault folder was removed)."""
        with self._cond:
            observer = self._observer
            if observer is None or self._observer_lost:
                return
            alive = observer.is_alive() and all(emitter.is_alive() for emitter in list(observer.emitters))
            if alive:
                return
            self._observer_lost = True
            reason = f"file watching of {self._root} stopped unexpectedly"
            self._errors.append(reason)
            self._status.message = f"{reason}; changes are picked up by the rescan every {self._rescan_interval_s:g} s"

    def _record_error(self, text: str) -> None:
        """Keep one error line for status (the most recent MAX_ERRORS)."""
        log.warning("%s", text)
        with self._cond:
            self._errors.append(text)


def _stop_observer(observer: BaseObserver) -> None:
    """Stop an observer and join its thread, whether or not it ever started."""
    observer.stop()
    if observer.is_alive():
        observer.join()


def _names(paths: set[str], limit: int = 5) -> str:
    """A short, sorted listing of paths for an error line."""
    shown = sorted(paths)[:limit]
    more = f" and {len(paths) - limit} more" if len(paths) > limit else ""
    return ", ".join(shown) + more
