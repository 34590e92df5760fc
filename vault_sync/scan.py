"""Walk a vault: which notes and attachments exist, what they hash to, which files are skipped and why."""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from memory.errors import BadInputError

MAX_NOTE_BYTES = 10 * 1024 * 1024
SCAN_PROGRESS_EVERY = 500
BINARY_SNIFF_BYTES = 8192
TEMP_SUFFIXES = (".tmp", "~", ".swp", ".swx", ".crdownload", ".part")
TEMP_NAMES = frozenset({"4913"})  # vim probes a folder's writability with this file name


@dataclass
class VaultFile:
    rel_path: str  # vault-relative, forward slashes
    abs_path: Path
    size: int
    mtime: datetime
    is_note: bool


@dataclass
class ScanResult:
    notes: dict[str, VaultFile] = field(default_factory=dict)
    attachments: dict[str, VaultFile] = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)


@dataclass
class NoteText:
    text: str
    fingerprint: str
    warning: str | None = None


class NoteReadError(Exception):
    """A note that cannot be indexed; the message says why and names the file."""


SYSTEM_FOLDERS = frozenset(Path(p) for p in (
    "/", "/bin", "/boot", "/dev", "/etc", "/lib", "/lib64", "/opt", "/proc", "/run", "/sbin", "/srv", "/sys",
    "/tmp", "/usr", "/var", "/System", "/Library", "/Applications", "/Users", "/home", "/Volumes",
))


def check_vault(vault: str | Path) -> Path:
    """The vault folder, resolved; a missing path, a file, the root, the home folder or a system folder is refused."""
    path = Path(vault).expanduser()
    if not path.exists():
        raise BadInputError(f"vault folder {path} does not exist")
    if not path.is_dir():
        raise BadInputError(f"vault path {path} is not a folder")
    resolved = path.resolve()
    if resolved in SYSTEM_FOLDERS or resolved == Path.home().resolve() or resolved.parent == Path("/proc"):
        raise BadInputError(f"{resolved} is a system or home folder, not an Obsidian vault: point Engram at the "
                            "vault's own folder (the one that holds .obsidian/ and your notes)")
    return resolved


def is_hidden(name: str) -> bool:
    """A hidden file or folder: .obsidian/, .trash/, .git/, .#lock and .~lock.* files, …"""
    return name.startswith(".")


def is_temp(name: str) -> bool:
    """An editor's temp, swap, backup or partial-download file."""
    name = name.lower()
    return name in TEMP_NAMES or name.endswith(TEMP_SUFFIXES)


def is_ignored(rel_path: str) -> bool:
    """The one ignore rule (scan, watcher, sync): anything under a hidden name, and temp files."""
    parts = [part for part in rel_path.replace(os.sep, "/").split("/") if part not in ("", ".")]
    return bool(parts) and (any(is_hidden(part) for part in parts) or is_temp(parts[-1]))


def relative(vault: Path, path: Path) -> str:
    return path.relative_to(vault).as_posix()


def stat_file(vault: Path, rel_path: str) -> VaultFile | None:
    """The file at rel_path, or None when it is gone, a symlink, or not a regular file."""
    path = vault / rel_path
    try:
        info = path.lstat()
    except OSError:
        return None
    if not _is_regular(info):
        return None
    mtime = datetime.fromtimestamp(info.st_mtime, tz=timezone.utc)
    return VaultFile(rel_path, path, info.st_size, mtime, rel_path.lower().endswith(".md"))


def _is_regular(info: os.stat_result) -> bool:
    import stat

    return stat.S_ISREG(info.st_mode)


def scan_vault(vault: Path, progress: Callable[[int], None] | None = None) -> ScanResult:
    """Every note and attachment under the vault; symlinks are recorded as skipped, never followed.

    `progress(files_seen)` is called every SCAN_PROGRESS_EVERY files, so a long scan shows it is alive."""
    result = ScanResult()
    seen = 0
    for root, dirs, files in os.walk(vault, followlinks=False, onerror=lambda e: result.skipped.append(
            (relative(vault, Path(e.filename)) if e.filename else "?", f"folder unreadable: {e.strerror}"))):
        root_path = Path(root)
        kept = []
        for name in dirs:
            if is_hidden(name):
                continue
            if (root_path / name).is_symlink():
                result.skipped.append((relative(vault, root_path / name), "symlinked folder, not followed"))
                continue
            kept.append(name)
        dirs[:] = kept
        for name in files:
            seen += 1
            if progress and seen % SCAN_PROGRESS_EVERY == 0:
                progress(seen)
            path = root_path / name
            rel = relative(vault, path)
            if is_ignored(rel):
                continue
            if path.is_symlink():
                result.skipped.append((rel, "symlink, not followed"))
                continue
            found = stat_file(vault, rel)
            if found is None:
                result.skipped.append((rel, "vanished or not a regular file"))
            elif found.is_note:
                result.notes[rel] = found
            else:
                result.attachments[rel] = found
    return result


def read_note(file: VaultFile, max_bytes: int = MAX_NOTE_BYTES) -> NoteText:
    """Read and decode a note; raise NoteReadError naming the file for what cannot be indexed."""
    if file.size > max_bytes:
        raise NoteReadError(
            f"{file.rel_path}: {file.size / 1e6:.1f} MB is larger than the {max_bytes / 1e6:.0f} MB note limit; skipped"
        )
    try:
        data = file.abs_path.read_bytes()
    except FileNotFoundError:
        raise NoteReadError(f"{file.rel_path}: vanished while being read; it will be picked up if it returns") from None
    except PermissionError:
        raise NoteReadError(f"{file.rel_path}: cannot be read (permission denied)") from None
    except OSError as exc:
        raise NoteReadError(f"{file.rel_path}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > max_bytes:
        raise NoteReadError(f"{file.rel_path}: grew past the {max_bytes / 1e6:.0f} MB note limit; skipped")
    if _looks_binary(data[:BINARY_SNIFF_BYTES]):
        raise NoteReadError(f"{file.rel_path}: binary content in a .md file, not a text note; skipped")
    fingerprint = hashlib.sha256(data).hexdigest()
    try:
        return NoteText(data.decode("utf-8-sig"), fingerprint)
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", errors="replace")
        return NoteText(text, fingerprint,
                        f"{file.rel_path}: invalid UTF-8 at byte {exc.start}; undecodable bytes shown as �")


_CONTROL_BYTES = bytes(b for b in range(32) if b < 9 or 13 < b)


def _looks_binary(head: bytes) -> bool:
    if b"\x00" in head:
        return True
    if not head:
        return False
    control = len(head) - len(head.translate(None, _CONTROL_BYTES))
    return control / len(head) > 0.1
