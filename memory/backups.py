"""Rolling backups of the memory store and the way back to one (`python -m memory backup` / `restore`).

Backups live in ENGRAM_HOME/backups/ as engram-YYYYmmddTHHMMSSZ.duckdb: at most one a day is taken when the
store opens, more on demand, and the newest KEEP are kept. A restore never deletes anything: the file it
replaces is moved aside as engram.duckdb.damaged-<time> (or .replaced-<time> when it was healthy).
"""
from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from .clock import utc_now
from .errors import BadInputError, EngramError, StoreReadOnlyError
from .files import private_file
from .store import database_problem, folder_problem

if TYPE_CHECKING:
    from .store import Store

FOLDER = "backups"
KEEP = 5
EVERY = timedelta(days=1)
_STAMP = "%Y%m%dT%H%M%SZ"
_NAME = re.compile(r"^engram-(\d{8}T\d{6}Z)\.duckdb$")


@dataclass(frozen=True)
class Backup:
    path: Path
    taken_at: datetime

    @property
    def size(self) -> int:
        return self.path.stat().st_size

    def label(self) -> str:
        return f"{self.taken_at:%Y-%m-%d %H:%M} UTC"


@dataclass
class RestoreReport:
    database: Path
    source: Backup
    moved_aside: list[Path] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)  # newer backups that did not verify

    def as_json(self) -> dict:
        return {"database": str(self.database), "restored_from": str(self.source.path),
                "taken_at": self.source.taken_at.isoformat(), "moved_aside": [str(p) for p in self.moved_aside],
                "skipped": [{"backup": str(p), "problem": why} for p, why in self.skipped]}

    def summary(self) -> str:
        aside = f"; the previous file was moved to {self.moved_aside[0]}" if self.moved_aside else ""
        return f"restored {self.database} from the backup of {self.source.label()} ({self.source.path}){aside}"


def folder_of(database: Path) -> Path:
    return Path(database).parent / FOLDER


def stamp(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime(_STAMP)


def list_backups(database: Path) -> list[Backup]:
    """The rolling backups of `database`, newest first (read from their names: no file is opened)."""
    folder = folder_of(database)
    if not folder.is_dir():
        return []
    found = []
    for entry in os.scandir(folder):
        match = _NAME.match(entry.name)
        if match and entry.is_file():
            taken = datetime.strptime(match.group(1), _STAMP).replace(tzinfo=timezone.utc)
            found.append(Backup(Path(entry.path), taken))
    return sorted(found, key=lambda b: b.taken_at, reverse=True)


def backup_due(database: Path, now: datetime | None = None) -> bool:
    """True when the newest backup is older than EVERY (or there is none)."""
    newest = list_backups(database)[:1]
    return not newest or (now or utc_now()) - newest[0].taken_at >= EVERY


def take_backup(store: "Store", *, keep: int = KEEP, now: datetime | None = None) -> Backup:
    """A consistent copy of the store now (see Store.backup_to); older backups beyond `keep` are removed."""
    if store.path is None:
        raise EngramError("an in-memory store has no file to back up")
    folder = folder_of(store.path)
    folder.mkdir(mode=0o700, exist_ok=True)
    for stale in folder.glob("*.partial"):  # a copy cut short (a crash, a full disk) is never a backup
        stale.unlink(missing_ok=True)
    taken = (now or utc_now()).replace(microsecond=0)
    backup = Backup(folder / f"engram-{stamp(taken)}.duckdb", taken)
    store.backup_to(backup.path)
    for old in list_backups(store.path)[keep:]:
        old.path.unlink(missing_ok=True)
    return backup


def take_if_due(store: "Store", now: datetime | None = None) -> Backup | None:
    """The daily backup, taken when the store opens: only when writable, file-backed and due."""
    if store.path is None or store.read_only or not backup_due(store.path, now):
        return None
    return take_backup(store, now=now)


def restore_advice(database: Path) -> str:
    """What to do about a damaged store, for its error message (one line)."""
    newest = list_backups(database)[:1]
    if newest:
        return (f"Run `python -m memory restore` (or Restore on any page) to go back to the last good backup "
                f"(newest: {newest[0].label()}); the damaged file is kept.")
    return (f"There is no backup in {folder_of(database)}: move {Path(database).name} aside to start an empty "
            f"memory and index your vault again.")


def _backup_of(file: Path) -> Backup:
    """A file given with --from: its date from its name when it is one of ours, else its modification time."""
    match = _NAME.match(file.name)
    if match:
        return Backup(file, datetime.strptime(match.group(1), _STAMP).replace(tzinfo=timezone.utc))
    return Backup(file, datetime.fromtimestamp(file.stat().st_mtime, tz=timezone.utc))


def _choose(database: Path, source: Path | None) -> tuple[Backup, list[tuple[Path, str]]]:
    if source is not None:
        source = Path(source).expanduser()
        if not source.is_file():
            raise BadInputError(f"backup file {source} does not exist")
        problem = database_problem(source)
        if problem:
            raise BadInputError(f"backup file {source} cannot be used: {problem}")
        return _backup_of(source), []
    skipped = []
    for backup in list_backups(database):
        problem = database_problem(backup.path)
        if problem is None:
            return backup, skipped
        skipped.append((backup.path, problem))
    tried = "; ".join(f"{p.name}: {why}" for p, why in skipped)
    raise EngramError(f"no good backup to restore in {folder_of(database)}" + (f" ({tried})" if tried else ""))


def restore(database: Path, source: Path | None = None, now: datetime | None = None) -> RestoreReport:
    """Put the last good backup (or `source`) in place of `database`; the file it replaces is moved aside.

    The store must not be open: a healthy store held by another process raises StoreLockedError.
    """
    database = Path(database)
    problem = folder_problem(database.parent)
    if problem:
        raise StoreReadOnlyError(f"cannot restore: {problem}; make it writable (chmod u+w) and run restore again")
    state = ("damaged" if database_problem(database) else "replaced") if database.exists() else None
    chosen, skipped = _choose(database, source)
    report = RestoreReport(database, chosen, skipped=skipped)
    when = stamp(now or utc_now())
    if state:
        for current in (database, database.with_name(database.name + ".wal")):
            if current.exists():  # a stale WAL would be replayed onto the restored file
                aside = current.with_name(f"{current.name}.{state}-{when}")
                current.replace(aside)
                report.moved_aside.append(aside)
    partial = database.with_name(database.name + ".restoring")
    shutil.copyfile(chosen.path, partial)
    private_file(partial)
    os.replace(partial, database)
    return report
