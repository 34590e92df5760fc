"""The vault watcher, driven by real files and the real watchdog observers (inotify unless stated)."""
from __future__ import annotations

import errno
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from watchdog.observers.inotify import InotifyObserver

from memory.errors import BadInputError
from vault_sync.watcher import VaultWatcher, WatchStatus, is_attachment, is_ignored, is_note_path


def wait_until(predicate: Callable[[], object], timeout: float = 10) -> None:
    """Poll `predicate` until it is truthy; fail the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"condition not met within {timeout} s")
        time.sleep(0.02)


class Batches:
    """A thread-safe on_changes callback that records every batch and the thread that delivered it."""

    def __init__(self, fail: Callable[[set[str]], bool] = lambda paths: False) -> None:
        self._lock = threading.Lock()
        self._fail = fail
        self.calls: list[set[str]] = []
        self.threads: set[int] = set()
        self.active = 0
        self.max_active = 0

    def __call__(self, paths: set[str]) -> None:
        with self._lock:
            self.calls.append(set(paths))
            self.threads.add(threading.get_ident())
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        time.sleep(0.01)  # long enough to overlap if two threads ever delivered at once
        with self._lock:
            self.active -= 1
        if self._fail(paths):
            raise RuntimeError("index is busy")

    def seen(self) -> set[str]:
        with self._lock:
            return set().union(*self.calls)

    def count(self) -> int:
        with self._lock:
            return len(self.calls)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "Projects").mkdir(parents=True)
    (root / ".obsidian").mkdir()
    (root / ".trash").mkdir()
    (root / "a.md").write_text("# A\n")
    (root / "Projects" / "b.md").write_text("# B\n")
    (root / "Projects" / "c.md").write_text("# C\n")
    return root


@pytest.fixture
def watch(vault: Path) -> Iterator[Callable[..., tuple[VaultWatcher, Batches]]]:
    """Start a watcher on the vault (fast debounce); every watcher is stopped and checked for leftover threads."""
    before = set(threading.enumerate())
    started: list[VaultWatcher] = []

    def start(batches: Batches | None = None, **options) -> tuple[VaultWatcher, Batches]:
        batches = batches or Batches()
        options.setdefault("debounce_s", 0.15)
        watcher = VaultWatcher(vault, batches, **options)
        watcher.start()
        started.append(watcher)
        return watcher, batches

    yield start
    for watcher in started:
        watcher.stop()
    assert set(threading.enumerate()) - before == set()


POLLING = {"polling": True, "poll_interval_s": 0.1}


def write(path: Path, text: str = "text\n") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# ---- path rules ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rel",
    [
        "a.md",
        "Projects/Deep/Plan.MD",
        "日记/2026-04-15.md",
        "note.sync-conflict-20260415-101010-ABCDEFG.md",
    ],
)
def test_notes(rel: str) -> None:
    assert is_note_path(rel) and not is_ignored(rel) and not is_attachment(rel)


@pytest.mark.parametrize(
    "rel",
    [
        ".obsidian/app.json",
        ".trash/x.md",
        ".git/HEAD",
        ".hidden.md",
        "Projects/.drafts/x.md",
        "x.md.swp",
        "x.md.swx",
        "x.md~",
        "x.md.tmp",
        ".#x.md",
        ".~lock.x.md#",
        "4913",
        "Projects/4913",
        "report.pdf.crdownload",
        "video.mp4.part",
    ],
)
def test_ignored(rel: str) -> None:
    assert is_ignored(rel) and not is_note_path(rel) and not is_attachment(rel)


# Paths the watcher, the scan and the indexer must judge alike (upper-case temp suffixes and
# temp-named folders included).
RULE_PATHS = {
    "a.md": "note", "Projects/Deep/Plan.MD": "note", "draft.tmp/inside.md": "note",
    "assets/diagram.png": "attachment", "Video.MP4.PART": None, "Notes.MD.SWP": None, "x.md~": None,
    ".hidden.md": None, "Projects/.drafts/x.md": None, ".obsidian/app.json": None, "Projects/4913": None,
}


def test_scan_and_indexer_follow_the_watchers_rule(tmp_path) -> None:
    from tests.helpers import open_engram
    from vault_sync.scan import scan_vault
    from vault_sync.sync import VaultIndexer

    for rel in RULE_PATHS:
        write(tmp_path / rel, "# Note\n\nSome text.\n")
    for rel, kind in RULE_PATHS.items():
        assert (is_note_path(rel), is_attachment(rel)) == (kind == "note", kind == "attachment"), rel
    scanned = scan_vault(tmp_path)
    assert set(scanned.notes) == {rel for rel, kind in RULE_PATHS.items() if kind == "note"}
    assert set(scanned.attachments) == {rel for rel, kind in RULE_PATHS.items() if kind == "attachment"}
    with open_engram() as eng:
        report = VaultIndexer(eng, tmp_path).sync_paths(RULE_PATHS)
        refs = {r[0] for r in eng.store.query("SELECT ref FROM sources WHERE kind = 'note'")}
    assert report.notes == len(refs) and refs == set(scanned.notes)


def test_attachments_are_reported_but_flagged() -> None:
    assert is_attachment("assets/diagram.png") and not is_note_path("assets/diagram.png")


# ---- single changes --------------------------------------------------------------------------


def test_create_modify_delete(watch, vault: Path) -> None:
    watcher, batches = watch()
    write(vault / "new.md")
    wait_until(lambda: "new.md" in batches.seen())
    count = batches.count()
    write(vault / "a.md", "# A, edited\n")
    wait_until(lambda: batches.count() > count and "a.md" in batches.calls[-1])
    (vault / "Projects" / "b.md").unlink()
    wait_until(lambda: "Projects/b.md" in batches.seen())
    wait_until(lambda: watcher.status().batches == batches.count())  # counted once the callback returns

    status = watcher.status()
    assert status.mode == "inotify" and status.batches >= 3 and status.backlog == 0
    assert status.last_batch_at is not None and status.last_batch_at.tzinfo is not None


def test_attachment_is_delivered(watch, vault: Path) -> None:
    _, batches = watch()
    (vault / "assets").mkdir()
    (vault / "assets" / "diagram.png").write_bytes(b"\x89PNG")
    wait_until(lambda: "assets/diagram.png" in batches.seen())


def test_rename_reports_both_paths(watch, vault: Path) -> None:
    _, batches = watch()
    os.rename(vault / "a.md", vault / "renamed.md")
    wait_until(lambda: {"a.md", "renamed.md"} <= batches.seen())


def test_move_into_subfolder(watch, vault: Path) -> None:
    _, batches = watch()
    os.rename(vault / "a.md", vault / "Projects" / "a.md")
    wait_until(lambda: {"a.md", "Projects/a.md"} <= batches.seen())


@pytest.mark.parametrize("temp_name", ["a.md.tmp", ".a.md.swp"])
def test_rename_over_save(watch, vault: Path, temp_name: str) -> None:
    _, batches = watch()
    write(vault / temp_name, "# A, saved atomically\n")
    os.replace(vault / temp_name, vault / "a.md")
    wait_until(lambda: "a.md" in batches.seen())
    time.sleep(0.3)
    assert batches.seen() == {"a.md"}


def test_ignored_paths_produce_nothing(watch, vault: Path) -> None:
    _, batches = watch()
    write(vault / ".obsidian" / "app.json", "{}")
    write(vault / ".trash" / "x.md")
    write(vault / ".hidden.md")
    write(vault / "x.md.swp")
    write(vault / "4913")
    write(vault / "z.md")  # a sentinel: events arrive in order, so the ignored ones came first
    wait_until(lambda: "z.md" in batches.seen())
    time.sleep(0.3)
    assert batches.seen() == {"z.md"}


@pytest.mark.parametrize("options", [{}, POLLING], ids=["inotify", "polling"])
def test_symlinks_do_not_lead_out_of_the_vault(watch, vault: Path, tmp_path: Path, options: dict) -> None:
    outside = tmp_path / "outside"
    write(outside / "secret.md")
    _, batches = watch(**options)
    os.symlink(outside, vault / "linked-folder")
    os.symlink(outside / "secret.md", vault / "linked.md")
    write(vault / "z.md")
    wait_until(lambda: "z.md" in batches.seen())
    write(outside / "secret.md", "changed\n")
    write(outside / "more.md")
    time.sleep(0.4)
    assert batches.seen() == {"z.md"}


# ---- folders ---------------------------------------------------------------------------------


@pytest.mark.parametrize("options", [{}, POLLING], ids=["inotify", "polling"])
def test_folder_rename_reports_old_and_new_paths(watch, vault: Path, options: dict) -> None:
    _, batches = watch(**options)
    os.rename(vault / "Projects", vault / "Archive")
    expected = {"Projects/b.md", "Projects/c.md", "Archive/b.md", "Archive/c.md"}
    wait_until(lambda: expected <= batches.seen())
    count = batches.count()
    os.rename(vault / "Archive", vault / "Old")  # paths learnt from events are known too
    wait_until(lambda: batches.count() > count and {"Archive/b.md", "Old/b.md"} <= batches.seen())


def test_folder_moved_to_trash_reports_its_notes(watch, vault: Path) -> None:
    _, batches = watch()
    os.rename(vault / "Projects", vault / ".trash" / "Projects")
    wait_until(lambda: {"Projects/b.md", "Projects/c.md"} <= batches.seen())
    time.sleep(0.3)
    assert batches.seen() == {"Projects/b.md", "Projects/c.md"}


def test_folder_deleted_reports_its_notes(watch, vault: Path) -> None:
    _, batches = watch()
    for path in (vault / "Projects").iterdir():
        path.unlink()
    (vault / "Projects").rmdir()
    wait_until(lambda: {"Projects/b.md", "Projects/c.md"} <= batches.seen())


def test_folder_moved_in_from_outside_reports_its_notes(watch, vault: Path, tmp_path: Path) -> None:
    incoming = tmp_path / "Downloads" / "Trip"
    write(incoming / "plan.md")
    write(incoming / "days" / "day1.md")
    _, batches = watch()
    os.rename(incoming, vault / "Trip")
    wait_until(lambda: {"Trip/plan.md", "Trip/days/day1.md"} <= batches.seen())


# ---- batching and the worker -----------------------------------------------------------------


def test_burst_is_batched_by_one_worker(watch, vault: Path) -> None:
    _, batches = watch()
    names = {f"burst/note-{i:03}.md" for i in range(200)}
    (vault / "burst").mkdir()
    for name in sorted(names):
        (vault / name).write_text("burst\n")
    wait_until(lambda: names <= batches.seen())
    assert batches.count() <= 10
    assert len(batches.threads) == 1 and batches.max_active == 1


def test_continuous_stream_is_flushed_after_max_wait(watch, vault: Path) -> None:
    _, batches = watch(debounce_s=1.0, max_wait_s=0.3)
    end = time.monotonic() + 1.5
    i = 0
    while time.monotonic() < end:  # never quiet for debounce_s
        write(vault / f"stream-{i}.md")
        i += 1
        time.sleep(0.05)
    assert batches.count() >= 1


def test_rescan_runs_on_the_worker_thread(watch, vault: Path) -> None:
    rescans: list[int] = []
    batches = Batches()
    watch(batches, rescan_interval_s=0.2, on_rescan=lambda: rescans.append(threading.get_ident()))
    write(vault / "new.md")
    wait_until(lambda: len(rescans) >= 2 and batches.count() >= 1)
    assert set(rescans) == batches.threads


def test_callback_error_is_recorded_and_retried_once(watch, vault: Path) -> None:
    watcher, batches = watch(Batches(fail=lambda paths: "bad.md" in paths))
    write(vault / "bad.md")
    wait_until(lambda: any("dropped" in error for error in watcher.status().errors))
    errors = watcher.status().errors
    assert [call for call in batches.calls if "bad.md" in call] == [{"bad.md"}, {"bad.md"}]
    assert "bad.md" in errors[0] and "RuntimeError: index is busy" in errors[0]
    assert "bad.md" in errors[-1]

    write(vault / "good.md")
    wait_until(lambda: "good.md" in batches.seen())
    assert batches.calls[-1] == {"good.md"}


def test_a_failed_batch_succeeds_on_retry(watch, vault: Path) -> None:
    failures = iter([True])
    watcher, batches = watch(Batches(fail=lambda paths: next(failures, False)))
    write(vault / "new.md")
    wait_until(lambda: batches.count() >= 2)
    time.sleep(0.3)
    assert batches.calls == [{"new.md"}, {"new.md"}]
    assert len(watcher.status().errors) == 1


# ---- observers and lifecycle -----------------------------------------------------------------


class WatchLimitObserver(InotifyObserver):
    """A real inotify observer whose kernel has run out of watches."""

    def schedule(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "inotify watch limit reached")


class InstanceLimitObserver(InotifyObserver):
    """A real inotify observer whose kernel has run out of inotify instances when starting."""

    def start(self) -> None:
        raise OSError(errno.EMFILE, "inotify instance limit reached")


@pytest.mark.parametrize(
    ("observer_class", "code", "knob"),
    [
        (WatchLimitObserver, 28, "fs.inotify.max_user_watches"),
        (InstanceLimitObserver, 24, "fs.inotify.max_user_instances"),
    ],
)
def test_inotify_limits_fall_back_to_polling(watch, vault: Path, observer_class, code: int, knob: str) -> None:
    watcher, batches = watch(observer_factory=observer_class, poll_interval_s=0.1)
    status = watcher.status()
    assert status.mode == "polling"
    assert f"errno {code}" in status.message and "polling every 0.1 s" in status.message and knob in status.message
    write(vault / "polled.md")
    wait_until(lambda: "polled.md" in batches.seen())


def test_other_observer_errors_are_raised(vault: Path) -> None:
    class Denied(InotifyObserver):
        def schedule(self, *args, **kwargs):
            raise PermissionError(errno.EACCES, "permission denied")

    before = set(threading.enumerate())
    with pytest.raises(PermissionError):
        VaultWatcher(vault, Batches(), observer_factory=Denied).start()
    assert set(threading.enumerate()) - before == set()


def test_forced_polling_delivers_changes(watch, vault: Path) -> None:
    watcher, batches = watch(polling=True, poll_interval_s=0.1)
    assert watcher.status().mode == "polling" and watcher.status().message is None
    os.rename(vault / "a.md", vault / "Projects" / "a.md")
    wait_until(lambda: {"a.md", "Projects/a.md"} <= batches.seen())


@pytest.mark.parametrize("name", ["missing", "file.md"])
def test_bad_vault_path(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    if name == "file.md":
        write(path)
    with pytest.raises(BadInputError, match=str(path.name)):
        VaultWatcher(path, Batches())


def test_stop_is_idempotent_and_leaves_no_threads(vault: Path) -> None:
    before = set(threading.enumerate())
    watcher = VaultWatcher(vault, Batches())
    assert watcher.status() == WatchStatus()
    with watcher:
        assert set(threading.enumerate()) - before
        assert watcher.status().mode == "inotify" and watcher.status().started_at is not None
    watcher.stop()
    watcher.stop()
    assert watcher.status().mode == "stopped"
    assert set(threading.enumerate()) - before == set()


def test_stop_delivers_pending_changes(vault: Path) -> None:
    batches = Batches()
    with VaultWatcher(vault, batches, debounce_s=30, max_wait_s=30) as watcher:
        write(vault / "late.md")
        wait_until(lambda: watcher.status().backlog == 1)
    assert batches.calls == [{"late.md"}]
