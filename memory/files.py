"""Private files: the data folder 0700, the database, backups, settings and exports 0600."""
from __future__ import annotations

import os
from pathlib import Path

FOLDER_MODE = 0o700
FILE_MODE = 0o600


def _tighten(path: Path, mode: int) -> None:
    """Clear group and other bits beyond `mode` (never add a bit: a read-only folder stays read-only)."""
    try:
        info = path.stat()
        if info.st_uid == os.geteuid() and info.st_mode & 0o077 & ~mode:
            os.chmod(path, info.st_mode & 0o7777 & ~(0o077 & ~mode))
    except OSError:
        pass  # not ours, gone, or a read-only file system: nothing to tighten


def private_folder(path: Path) -> Path:
    """Make `path` (and missing parents) a folder only its owner can enter."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True, mode=FOLDER_MODE)
    _tighten(path, FOLDER_MODE)
    return path


def private_file(path: Path) -> Path:
    _tighten(Path(path), FILE_MODE)
    return Path(path)


def open_private(path: Path, *, overwrite: bool = False):
    """A new text file only its owner can read (0600); an existing one is refused unless `overwrite`."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if overwrite else os.O_EXCL)
    handle = os.open(path, flags, FILE_MODE)
    os.fchmod(handle, FILE_MODE)  # an overwritten file keeps its old mode otherwise
    return os.fdopen(handle, "w", encoding="utf-8")


def tighten_home(home: Path) -> None:
    """Fix looser modes left by earlier versions: the data folder, its database, settings and backups."""
    home = Path(home)
    _tighten(home, FOLDER_MODE)
    _tighten(home / "backups", FOLDER_MODE)
    for pattern in ("engram.duckdb*", "settings.json", "backups/*.duckdb"):
        for path in home.glob(pattern):
            if path.is_file():
                _tighten(path, FILE_MODE)
