"""A note's world time: when its author created and last edited it, and which evidence says so.

Evidence, strongest first (SPEC §3.1): frontmatter dates; the daily-note date in the file name
(the vault's `.obsidian/daily-notes.json` format, or the periodic-notes plugin's, default
YYYY-MM-DD); a date or Zettelkasten id at the start of the file name; a `published` date; the
vault's git history (one `git log` for the whole vault); the file's birth and modification times.

Choices worth knowing:
- Modification times shared by most of the vault within a few minutes are a copy, clone or sync,
  not authorship (`bulk_copy_window`); they are used only when nothing else is known, and the
  result then says `reliable = False`.
- Dates after `now` are ignored (a note for tomorrow does not hide until tomorrow).
- Git gives the author date; a rename carries the history along; a note changed but not yet
  committed was edited at its modification time. In a shallow clone the oldest commit only
  says a note existed by then, so it dates nothing. No git, no repository or no commits: no history.
- Naive frontmatter times are taken as UTC.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable, Mapping

from memory.clock import ensure_utc, utc_now
from memory.when import find_dates

UTC = timezone.utc
GIT_TIMEOUT_S = 120
BULK_WINDOW = timedelta(minutes=10)
BULK_SHARE = 0.5
BULK_MIN_NOTES = 5

# ---------------------------------------------------------------------------- frontmatter

#: normalised key (lower case, no spaces, dashes or underscores) → role; earlier roles win
CREATED_KEYS = ("created", "createdat", "createdon", "createddate", "createdtime", "datecreated",
                "creationdate", "creationtime", "creation", "ctime", "dateadded", "added")
DATE_KEYS = ("date", "day", "journaldate", "notedate")
UPDATED_KEYS = ("updated", "updatedat", "updatedon", "dateupdated", "lastupdated", "modified",
                "modifiedat", "modifiedon", "datemodified", "lastmodified", "lastmod", "mtime",
                "edited", "lastedited", "dateedited", "lastediteddate")
PUBLISHED_KEYS = ("published", "publishedat", "publishedon", "datepublished", "publishdate", "pubdate")
_KEY_NOISE = re.compile(r"[\s_\-]+")
_WIKILINK_VALUE = re.compile(r"^\[\[([^\]|#]+)(?:[|#][^\]]*)?\]\]$")
_CLOCK_TIME = re.compile(r"\b(?P<h>\d{1,2}):(?P<m>\d{2})(?::(?P<s>\d{2}))?\s*(?P<ampm>[ap]\.?m\.?)?", re.IGNORECASE)


def frontmatter_times(frontmatter: Mapping[str, Any]) -> dict[str, tuple[datetime, str]]:
    """{'created'|'date'|'updated'|'published': (UTC time, the key it came from)}, unreadable values skipped."""
    found: dict[str, tuple[int, datetime, str]] = {}
    for key, value in frontmatter.items():
        norm = _KEY_NOISE.sub("", str(key).lower())
        for role, keys in (("created", CREATED_KEYS), ("date", DATE_KEYS), ("updated", UPDATED_KEYS),
                           ("published", PUBLISHED_KEYS)):
            if norm in keys:
                rank = keys.index(norm)
                when = parse_time_value(value)
                if when is not None and (role not in found or rank < found[role][0]):
                    found[role] = (rank, when, str(key))
    return {role: (when, key) for role, (_, when, key) in found.items()}


def parse_time_value(value: Any) -> datetime | None:
    """A UTC time from a frontmatter value: date, datetime, epoch number, or text in common formats."""
    try:
        return _parse_time_value(value)
    except (ValueError, OverflowError, TypeError):
        return None


def _parse_time_value(value: Any) -> datetime | None:
    if isinstance(value, (list, tuple)):
        return next((t for t in map(parse_time_value, value) if t is not None), None)
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, datetime):
        return ensure_utc(value)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if isinstance(value, (int, float)):
        return _from_number(value)
    text = str(value).strip().strip("\"'")
    if not text or len(text) > 100:
        return None
    if (link := _WIKILINK_VALUE.match(text)) is not None:
        text = link[1].rsplit("/", 1)[-1]
    if re.fullmatch(r"\d{8,13}", text):
        return _from_number(int(text))
    iso = text[:-1] + "+00:00" if text.endswith("Z") else text
    try:
        return ensure_utc(datetime.fromisoformat(iso))
    except ValueError:
        pass
    mentions = find_dates(text)
    if not mentions or mentions[0].period.granularity != "day":
        return None
    moment = mentions[0].period.start
    clock = _CLOCK_TIME.search(text)
    if clock is not None:
        hour, minute, second = int(clock["h"]), int(clock["m"]), int(clock["s"] or 0)
        if clock["ampm"]:
            hour = hour % 12 + (12 if clock["ampm"].lower().startswith("p") else 0)
        if hour < 24 and minute < 60 and second < 60:
            moment = moment.replace(hour=hour, minute=minute, second=second)
    return moment


def _from_number(number: float) -> datetime | None:
    """20240503 (YYYYMMDD), epoch seconds or epoch milliseconds."""
    if 10_000_000 <= number <= 29_991_231 and float(number).is_integer():
        text = str(int(number))
        return datetime(int(text[:4]), int(text[4:6]), int(text[6:]), tzinfo=UTC)
    if 100_000_000 <= number < 10_000_000_000:
        return datetime.fromtimestamp(number, tz=UTC)
    if 100_000_000_000 <= number < 10_000_000_000_000:
        return datetime.fromtimestamp(number / 1000, tz=UTC)
    return None


# ---------------------------------------------------------------------------- daily notes

_MOMENT_TOKENS = re.compile(r"\[[^\]]*\]|YYYY|YY|MMMM|MMM|MM|M|Do|DD|D|dddd|ddd|dd|d|gggg|GGGG|ww|WW|w|W|.", re.DOTALL)
_MONTH_NAMES = ("january|february|march|april|may|june|july|august|september|october|november|december")
_MONTH_ABBR = "jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
_TOKEN_REGEX = {
    "YYYY": r"(?P<Y>\d{4})", "YY": r"(?P<y>\d{2})",
    "MMMM": rf"(?P<MMMM>{_MONTH_NAMES})", "MMM": rf"(?P<MMM>{_MONTH_ABBR})",
    "MM": r"(?P<M>\d{2})", "M": r"(?P<M>\d{1,2})",
    "Do": r"(?P<D>\d{1,2})(?:st|nd|rd|th)", "DD": r"(?P<D>\d{2})", "D": r"(?P<D>\d{1,2})",
    "dddd": r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)",
    "ddd": r"(?:mon|tue|wed|thu|fri|sat|sun)", "dd": r"(?:mo|tu|we|th|fr|sa|su)", "d": r"[0-6]",
    "gggg": r"\d{4}", "GGGG": r"\d{4}", "ww": r"\d{2}", "WW": r"\d{2}", "w": r"\d{1,2}", "W": r"\d{1,2}",
}
DEFAULT_DAILY_FORMAT = "YYYY-MM-DD"


def moment_regex(fmt: str) -> re.Pattern[str]:
    """A regex for names written with a moment.js date format such as 'YYYY/MM/YYYY-MM-DD dddd'."""
    parts, seen = [], set()
    for token in _MOMENT_TOKENS.findall(fmt):
        if token.startswith("[") and token.endswith("]"):
            parts.append(re.escape(token[1:-1]))
        elif token in _TOKEN_REGEX:
            piece = _TOKEN_REGEX[token]
            name = re.search(r"\(\?P<(\w+)>", piece)
            if name and name[1] in seen:  # a repeated token (YYYY/…/YYYY-MM-DD) must repeat its value
                piece = f"(?P={name[1]})"
            elif name:
                seen.add(name[1])
            parts.append(piece)
        else:
            parts.append(re.escape(token))
    return re.compile("".join(parts), re.IGNORECASE)


@dataclass(frozen=True)
class DailyNoteFormat:
    """Where daily notes live and how they are named (moment.js tokens)."""

    format: str = DEFAULT_DAILY_FORMAT
    folder: str = ""
    configured: bool = False

    @classmethod
    def of_vault(cls, vault: str | Path) -> DailyNoteFormat:
        """Read `.obsidian/daily-notes.json` (or the periodic-notes plugin's settings); default YYYY-MM-DD."""
        config = Path(vault) / ".obsidian"
        for path, pick in ((config / "daily-notes.json", lambda d: d),
                           (config / "plugins" / "periodic-notes" / "data.json", lambda d: d.get("daily") or {})):
            try:
                data = pick(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError, AttributeError):
                continue
            if isinstance(data, dict) and (data.get("format") or data.get("folder")):
                fmt = str(data.get("format") or DEFAULT_DAILY_FORMAT).strip() or DEFAULT_DAILY_FORMAT
                return cls(fmt, str(data.get("folder") or "").strip().strip("/"), True)
        return cls()

    def date_of(self, rel_path: str) -> datetime | None:
        """The day a daily note stands for, from its vault-relative path; None when it is not one."""
        stem = rel_path[:-3] if rel_path.lower().endswith(".md") else rel_path
        candidates = [stem.rsplit("/", 1)[-1]]
        if self.folder and stem.startswith(self.folder + "/"):
            candidates.insert(0, stem[len(self.folder) + 1:])
        elif not self.folder:
            candidates.insert(0, stem)
        pattern = self._regex()
        for candidate in candidates:
            m = pattern.fullmatch(candidate) or self._name_regex().fullmatch(candidate)
            if m is not None:
                return _date_from_groups(m.groupdict())
        return None

    def _regex(self) -> re.Pattern[str]:
        return _cached_regex(self.format)

    def _name_regex(self) -> re.Pattern[str]:
        return _cached_regex(self.format.rsplit("/", 1)[-1])


_REGEX_CACHE: dict[str, re.Pattern[str]] = {}


def _cached_regex(fmt: str) -> re.Pattern[str]:
    if fmt not in _REGEX_CACHE:
        _REGEX_CACHE[fmt] = moment_regex(fmt)
    return _REGEX_CACHE[fmt]


def _date_from_groups(groups: Mapping[str, str | None]) -> datetime | None:
    try:
        year = int(groups["Y"]) if groups.get("Y") else 2000 + int(groups["y"]) if groups.get("y") else None
        if groups.get("M"):
            month = int(groups["M"])
        elif groups.get("MMMM"):
            month = _MONTH_NAMES.split("|").index(groups["MMMM"].lower()) + 1
        elif groups.get("MMM"):
            month = _MONTH_ABBR.split("|").index(groups["MMM"].lower()) + 1
        else:
            return None
        if year is None or not groups.get("D"):
            return None
        return datetime(year, month, int(groups["D"]), tzinfo=UTC)
    except (ValueError, TypeError):
        return None


_NAME_DATE = re.compile(r"^(?P<Y>\d{4})-(?P<M>\d{2})-(?P<D>\d{2})(?!\d)")
_ZETTEL_ID = re.compile(r"^(?P<Y>(?:19|20)\d{2})(?P<M>\d{2})(?P<D>\d{2})(?P<h>\d{2})?(?P<m>\d{2})?(?!\d)")


def file_name_date(rel_path: str) -> datetime | None:
    """A date or Zettelkasten id (YYYYMMDDHHmm) at the start of a note's file name."""
    name = rel_path.rsplit("/", 1)[-1]
    m = _NAME_DATE.match(name) or _ZETTEL_ID.match(name)
    if m is None:
        return None
    try:
        moment = datetime(int(m["Y"]), int(m["M"]), int(m["D"]), tzinfo=UTC)
        if m.groupdict().get("h"):
            moment = moment.replace(hour=int(m["h"]), minute=int(m["m"] or 0))
        return moment
    except ValueError:
        return None


# ---------------------------------------------------------------------------- git


@dataclass
class GitHistory:
    """Created and last-edited author times of every file in one `git log` over the vault."""

    times: dict[str, tuple[datetime | None, datetime | None]] = field(default_factory=dict)
    dirty: set[str] = field(default_factory=set)  # changed or untracked in the working tree
    shallow: bool = False
    error: str | None = None  # why there is no history (no git, not a repository, …)

    @classmethod
    def read(cls, vault: str | Path, *, git: str | None = None) -> GitHistory:
        """History of the vault folder (which may be a sub-folder of a repository); never raises."""
        git = git or shutil.which("git")
        if git is None:
            return cls(error="git is not installed")
        vault = Path(vault)
        head = _git(git, vault, "rev-parse", "--show-prefix", "--is-shallow-repository")
        if head is None:
            return cls(error=f"{vault} is not in a git repository")
        lines = head.split("\n")
        prefix, shallow = lines[0], len(lines) > 1 and lines[1].strip() == "true"
        log = _git(git, vault, "-c", "core.quotepath=off", "log", "--reverse", "--topo-order", "-M",
                   "--name-status", "-z", "--no-show-signature", "--relative",
                   "--format=%x1e%H%x1f%P%x1f%aI", "--", ".")
        if log is None:
            return cls(shallow=shallow, error="git log failed (an empty repository?)")
        history = cls(times=parse_git_log(log, shallow=shallow), shallow=shallow)
        status = _git(git, vault, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".")
        history.dirty = parse_git_status(status or "", prefix)
        return history

    def created(self, rel_path: str) -> datetime | None:
        return self.times.get(rel_path, (None, None))[0]

    def updated(self, rel_path: str) -> datetime | None:
        return None if rel_path in self.dirty else self.times.get(rel_path, (None, None))[1]


def _git(git: str, cwd: Path, *args: str) -> str | None:
    env = dict(os.environ, LC_ALL="C", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0")
    try:
        done = subprocess.run([git, "--no-pager", *args], cwd=cwd, capture_output=True, timeout=GIT_TIMEOUT_S,
                              env=env, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", errors="surrogateescape")


def parse_git_log(log: str, *, shallow: bool = False) -> dict[str, tuple[datetime | None, datetime | None]]:
    """Path → (created, updated) from `git log --reverse -M --name-status -z --format=%x1e%H%x1f%P%x1f%aI`."""
    first: dict[str, datetime | None] = {}
    last: dict[str, datetime | None] = {}
    for record in log.split("\x1e")[1:]:
        header, _, changes = record.partition("\x00")
        fields = header.split("\x1f")
        if len(fields) < 3:
            continue
        try:
            at = ensure_utc(datetime.fromisoformat(fields[2].strip()))
        except ValueError:
            continue
        boundary = shallow and not fields[1].strip()  # the cut-off end of a shallow clone
        tokens = changes.lstrip("\n").split("\x00")
        i = 0
        while i < len(tokens):
            status = tokens[i]
            if not status:
                i += 1
                continue
            code = status[0]
            if code in "RC":
                old = tokens[i + 1] if i + 1 < len(tokens) else ""
                new = tokens[i + 2] if i + 2 < len(tokens) else ""
                i += 3
                if not new:
                    continue
                if code == "R":
                    first[new] = first.pop(old, at)
                    previous = last.pop(old, at)
                    last[new] = previous if status[1:] == "100" else at
                else:
                    first[new], last[new] = at, at
                continue
            path = tokens[i + 1] if i + 1 < len(tokens) else ""
            i += 2
            if not path:
                continue
            if code == "D":
                first.pop(path, None)
                last.pop(path, None)
            elif boundary:
                first[path], last[path] = None, None
            elif code == "A":
                first[path], last[path] = at, at
            else:
                first.setdefault(path, at)
                last[path] = at
    return {path: (first.get(path), last.get(path)) for path in last.keys() | first.keys()}


def parse_git_status(status: str, prefix: str = "") -> set[str]:
    """Vault-relative paths changed or untracked, from `git status --porcelain=v1 -z`."""
    dirty: set[str] = set()
    tokens = status.split("\x00")
    i = 0
    while i < len(tokens):
        entry = tokens[i]
        i += 1
        if len(entry) < 4:
            continue
        code, path = entry[:2], entry[3:]
        if "R" in code or "C" in code:
            i += 1  # the original path follows
        if path.startswith(prefix):
            dirty.add(path[len(prefix):])
    return dirty


# ---------------------------------------------------------------------------- file times


def bulk_copy_window(mtimes: Iterable[datetime]) -> tuple[datetime, datetime] | None:
    """The few minutes in which most notes were last written at once (a copy, clone or sync), if any."""
    stamps = sorted(ensure_utc(t) for t in mtimes)
    if len(stamps) < BULK_MIN_NOTES:
        return None
    need = max(int(len(stamps) * BULK_SHARE), 1)
    j = 0
    for i in range(len(stamps)):
        while stamps[i] - stamps[j] > BULK_WINDOW:
            j += 1
        if i - j + 1 >= need:
            return stamps[j], stamps[j] + BULK_WINDOW
    return None


# ---------------------------------------------------------------------------- a note's time

WEAK_EVIDENCE = ("file mtime (bulk copy)",)


@dataclass(frozen=True)
class NoteTime:
    """When a note was created and last edited in the world, and the evidence for each."""

    created: datetime
    updated: datetime
    created_by: str  # e.g. "frontmatter created", "daily-note name", "git", "file mtime"
    updated_by: str
    daily: datetime | None = None  # the day a daily note stands for

    @property
    def reliable(self) -> bool:
        """False when only a bulk copy's file times date the note."""
        return self.created_by not in WEAK_EVIDENCE


def note_time(rel_path: str, *, mtime: datetime, frontmatter: Mapping[str, Any] | None = None,
              daily_format: DailyNoteFormat | None = None, git: GitHistory | None = None,
              birthtime: datetime | None = None, mtime_trusted: bool = True,
              now: datetime | None = None) -> NoteTime:
    """A note's created and updated times from all the evidence there is (see the module docstring)."""
    now = ensure_utc(now) if now is not None else utc_now()
    mtime = min(ensure_utc(mtime), now)
    fm = frontmatter_times(frontmatter or {})
    daily = (daily_format or DailyNoteFormat()).date_of(rel_path)
    created_evidence: list[tuple[datetime | None, str]] = [
        *[(fm[k][0], f"frontmatter {fm[k][1]}") for k in ("created", "date") if k in fm],
        (daily, "daily-note name"),
        (file_name_date(rel_path), "file name"),
        *[(fm[k][0], f"frontmatter {fm[k][1]}") for k in ("published",) if k in fm],
        (git.created(rel_path) if git else None, "git"),
        (ensure_utc(birthtime) if birthtime else None, "file birth time"),
        (mtime if mtime_trusted else None, "file mtime"),
    ]
    created, created_by = next(((t, why) for t, why in created_evidence if t is not None and t <= now),
                               (mtime, "file mtime (bulk copy)"))
    if "updated" in fm and fm["updated"][0] < created and not created_by.startswith(("frontmatter", "daily", "file name")):
        created, created_by = fm["updated"][0], f"frontmatter {fm['updated'][1]} (created no later)"
    updated_evidence: list[tuple[datetime | None, str]] = [
        (fm["updated"][0] if "updated" in fm else None, f"frontmatter {fm['updated'][1]}" if "updated" in fm else ""),
        (git.updated(rel_path) if git else None, "git"),
        (mtime if mtime_trusted or (git is not None and rel_path in git.dirty) else None, "file mtime"),
    ]
    updated, updated_by = next(((t, why) for t, why in updated_evidence if t is not None and t <= now),
                               (created, created_by))
    if updated < created:
        updated, updated_by = created, created_by
    return NoteTime(created, updated, created_by, updated_by, daily)


@dataclass
class VaultClock:
    """Everything about a vault that dates its notes, read once per sync: daily-note format, git, file times."""

    daily_format: DailyNoteFormat
    git: GitHistory
    bulk_window: tuple[datetime, datetime] | None = None

    @classmethod
    def read(cls, vault: str | Path, mtimes: Iterable[datetime] = (), *, use_git: bool = True) -> VaultClock:
        return cls(DailyNoteFormat.of_vault(vault), GitHistory.read(vault) if use_git else GitHistory(error="off"),
                   bulk_copy_window(mtimes))

    def mtime_trusted(self, mtime: datetime) -> bool:
        window = self.bulk_window
        return window is None or not (window[0] <= ensure_utc(mtime) <= window[1])

    def note_time(self, rel_path: str, *, mtime: datetime, frontmatter: Mapping[str, Any] | None = None,
                  birthtime: datetime | None = None, now: datetime | None = None) -> NoteTime:
        return note_time(rel_path, mtime=mtime, frontmatter=frontmatter, daily_format=self.daily_format,
                         git=self.git, birthtime=birthtime, mtime_trusted=self.mtime_trusted(mtime), now=now)


def birth_time(stat: os.stat_result) -> datetime | None:
    """The file's creation time where the platform keeps one (macOS, BSD, Windows), else None."""
    seconds = getattr(stat, "st_birthtime", None)
    return datetime.fromtimestamp(seconds, tz=UTC) if seconds else None
