"""A note's world time: frontmatter, daily-note names, git history (real repositories), file times."""
import json
import os
import shutil
import subprocess
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from vault_sync.note_time import (
    DailyNoteFormat, GitHistory, VaultClock, bulk_copy_window, file_name_date, frontmatter_times, moment_regex,
    note_time, parse_time_value,
)

UTC = timezone.utc
NOW = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def d(text: str) -> datetime:
    value = datetime.fromisoformat(text)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


# ---------------------------------------------------------------------------- frontmatter values

@pytest.mark.parametrize("value,expected", [
    (date(2024, 5, 3), "2024-05-03"),
    (datetime(2024, 5, 3, 14, 22), "2024-05-03T14:22:00"),
    (datetime(2024, 5, 3, 14, 22, tzinfo=timezone(timedelta(hours=2))), "2024-05-03T12:22:00"),
    ("2024-05-03", "2024-05-03"),
    ("2024-05-03 14:22", "2024-05-03T14:22:00"),
    ("2024-05-03T14:22:00Z", "2024-05-03T14:22:00"),
    ("2024/05/03", "2024-05-03"),
    ("2024/05/03 14:22", "2024-05-03T14:22:00"),
    ("[[2024-05-03]]", "2024-05-03"),
    ("[[Journal/2024-05-03|Friday]]", "2024-05-03"),
    ("Friday, May 3rd 2024, 2:22:51 pm", "2024-05-03T14:22:51"),
    ("3 May 2024", "2024-05-03"),
    ("2024年5月3日", "2024-05-03"),
    (20240503, "2024-05-03"),
    (1714745000, "2024-05-03T14:03:20"),
    (1714745000000, "2024-05-03T14:03:20"),
    ("1714745000000", "2024-05-03T14:03:20"),
    (["not a date", "2024-05-03"], "2024-05-03"),
])
def test_frontmatter_values(value, expected):
    assert parse_time_value(value) == d(expected)


@pytest.mark.parametrize("value", [
    None, True, "", "   ", "{{date}}", "<% tp.file.creation_date() %>", "2023-02-30", "2024-13-01", "March 2024",
    10 ** 30, -5, float("nan"), float("inf"), {"a": 1}, [], "x" * 10_000, "99999-01-01",
])
def test_unreadable_frontmatter_values_are_none(value):
    assert parse_time_value(value) is None


def test_frontmatter_keys_from_plugins():
    times = frontmatter_times({
        "Date Created": "2024-01-02", "date modified": "2024-03-04", "date": "2024-01-01",
        "published": "2022-07-23T12:30:00", "title": "2020-01-01",
    })
    assert times["created"] == (d("2024-01-02"), "Date Created")
    assert frontmatter_times({"created_at": "2019-01-01", "created": "2018-01-01"})["created"][1] == "created"
    assert times["updated"] == (d("2024-03-04"), "date modified")
    assert times["date"][0] == d("2024-01-01")
    assert times["published"][0] == d("2022-07-23T12:30:00")
    assert frontmatter_times({"last_modified": "2024-02-02", "creation date": "2023-01-01"}) == {
        "updated": (d("2024-02-02"), "last_modified"), "created": (d("2023-01-01"), "creation date")}
    assert frontmatter_times({"created": "soon"}) == {}


# ---------------------------------------------------------------------------- names

@pytest.mark.parametrize("fmt,folder,path,expected", [
    ("YYYY-MM-DD", "", "2024-05-03.md", "2024-05-03"),
    ("YYYY-MM-DD", "", "Daily/2024-05-03.md", "2024-05-03"),
    ("YYYY-MM-DD", "", "2024-05-03 Trip.md", None),
    ("YYYY-MM-DD", "", "2024-02-30.md", None),
    ("YYYY/MM/YYYY-MM-DD dddd", "Journal", "Journal/2024/05/2024-05-03 Friday.md", "2024-05-03"),
    ("YYYY/MM/YYYY-MM-DD dddd", "Journal", "Journal/2024/06/2024-05-03 Friday.md", "2024-05-03"),
    ("DD.MM.YY", "", "03.05.24.md", "2024-05-03"),
    ("[Day] Do MMMM YYYY", "", "Day 3rd May 2024.md", "2024-05-03"),
    ("dddd, MMM D, YYYY", "Daily", "Daily/Friday, May 3, 2024.md", "2024-05-03"),
    ("YYYYMMDD", "", "20240503.md", "2024-05-03"),
    ("YYYY-[W]ww", "", "2024-W18.md", None),  # a weekly note is not a day
])
def test_daily_note_names(fmt, folder, path, expected):
    got = DailyNoteFormat(fmt, folder, True).date_of(path)
    assert got == (d(expected) if expected else None)


def test_moment_literals_are_escaped():
    assert moment_regex("[Log] YYYY.MM.DD").fullmatch("Log 2024.05.03")
    assert not moment_regex("[Log] YYYY.MM.DD").fullmatch("Log 2024x05x03")


def test_daily_format_from_vault_settings(tmp_path):
    assert DailyNoteFormat.of_vault(tmp_path) == DailyNoteFormat()
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / ".obsidian" / "daily-notes.json").write_text(json.dumps({"format": "DD-MM-YYYY", "folder": "Days/"}))
    fmt = DailyNoteFormat.of_vault(tmp_path)
    assert (fmt.format, fmt.folder, fmt.configured) == ("DD-MM-YYYY", "Days", True)
    assert fmt.date_of("Days/03-05-2024.md") == d("2024-05-03")
    (tmp_path / ".obsidian" / "daily-notes.json").write_text("{not json")
    plugin = tmp_path / ".obsidian" / "plugins" / "periodic-notes"
    plugin.mkdir(parents=True)
    (plugin / "data.json").write_text(json.dumps({"daily": {"format": "YYYY_MM_DD", "folder": "", "enabled": True}}))
    assert DailyNoteFormat.of_vault(tmp_path).date_of("2024_05_03.md") == d("2024-05-03")


@pytest.mark.parametrize("path,expected", [
    ("Roundup/2021-04-17 RSS Tips.md", "2021-04-17"),
    ("202105011230 Zettel.md", "2021-05-01T12:30:00"),
    ("20210501 Note.md", "2021-05-01"),
    ("2021-13-01 x.md", None),
    ("Notes/Plain.md", None),
    ("1234567890123.md", None),
])
def test_file_name_dates(path, expected):
    assert file_name_date(path) == (d(expected) if expected else None)


# ---------------------------------------------------------------------------- evidence order

def test_frontmatter_beats_name_and_file_times():
    t = note_time("2023-01-01.md", mtime=NOW, frontmatter={"created": "2022-05-01", "updated": "2022-06-01"}, now=NOW)
    assert (t.created, t.created_by, t.updated, t.updated_by) == (
        d("2022-05-01"), "frontmatter created", d("2022-06-01"), "frontmatter updated")
    assert t.daily == d("2023-01-01") and t.reliable


def test_never_today_only_because_synced_today():
    t = note_time("Journal/2021-03-04.md", mtime=NOW, mtime_trusted=False, now=NOW)
    assert (t.created, t.updated) == (d("2021-03-04"), d("2021-03-04"))
    assert t.created_by == t.updated_by == "daily-note name"
    alone = note_time("Plain.md", mtime=NOW, mtime_trusted=False, now=NOW)
    assert alone.created == NOW and not alone.reliable  # nothing else: said so


def test_future_dates_are_ignored_and_updated_is_not_before_created():
    t = note_time("n.md", mtime=d("2024-01-01"), frontmatter={"created": "2030-01-01", "date": "2023-05-05",
                                                               "modified": "2020-01-01"}, now=NOW)
    assert (t.created, t.created_by) == (d("2023-05-05"), "frontmatter date")
    assert t.updated == d("2023-05-05")


def test_a_note_is_created_no_later_than_its_frontmatter_says_it_was_updated():
    """Only an `updated` date in frontmatter, file (or git) times later: the note existed by `updated`."""
    t = note_time("About.md", mtime=d("2026-11-29"), frontmatter={"updated": "2026-04-15"}, now=NOW)
    assert (t.created, t.updated) == (d("2026-04-15"), d("2026-04-15"))
    assert t.created_by.startswith("frontmatter updated")
    daily = note_time("2021-03-04.md", mtime=NOW, frontmatter={"updated": "2020-01-01"}, now=NOW)
    assert daily.created == d("2021-03-04")  # a stronger created date stands


def test_trusted_mtime_and_birth_time():
    t = note_time("n.md", mtime=d("2024-02-02"), birthtime=d("2023-01-01"), now=NOW)
    assert (t.created_by, t.updated_by) == ("file birth time", "file mtime")


def test_bulk_copy_window():
    copied = [NOW + timedelta(seconds=i) for i in range(30)]
    real = [NOW - timedelta(days=i) for i in range(10)]
    window = bulk_copy_window(copied + real)
    assert window is not None and window[0] <= NOW <= window[1]
    assert bulk_copy_window(real + real) is None
    assert bulk_copy_window(copied[:3]) is None  # too few notes to tell
    assert bulk_copy_window([]) is None


# ---------------------------------------------------------------------------- git, for real

def git(cwd: Path, *args: str, when: str | None = None) -> str:
    env = dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1",
               GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org")
    if when:
        env.update(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when)
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout


def commit(repo: Path, files: dict[str, str | None], when: str, message: str = "change") -> None:
    for rel, text in files.items():
        path = repo / rel
        if text is None:
            git(repo, "rm", "-q", rel)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        git(repo, "add", rel)
    git(repo, "commit", "-q", "-m", message, when=when)


@pytest.fixture
def repo(tmp_path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    return root


@needs_git
def test_git_created_and_edited_times_with_renames(repo):
    body = "a note long enough that git sees a rename, not a delete and an add\n" * 3
    commit(repo, {"My Notes/Café notes.md": body, "other.md": "x\n"}, "2021-03-01T10:00:00+02:00")
    commit(repo, {"My Notes/Café notes.md": body + "more\n"}, "2022-04-02T12:00:00Z")
    (repo / "Archive").mkdir()
    git(repo, "mv", "My Notes/Café notes.md", "Archive/Café, renamed.md")
    git(repo, "commit", "-q", "-m", "rename", when="2023-05-03T09:00:00Z")
    commit(repo, {"other.md": None}, "2023-06-01T00:00:00Z")
    commit(repo, {"other.md": "back\n"}, "2024-01-01T00:00:00Z")
    history = GitHistory.read(repo)
    assert history.error is None and not history.shallow
    created, updated = history.times["Archive/Café, renamed.md"]
    assert created == d("2021-03-01T08:00:00")  # the history came along with the rename
    assert updated == d("2022-04-02T12:00:00")  # a pure rename is not an edit
    assert "My Notes/Café notes.md" not in history.times
    assert history.times["other.md"] == (d("2024-01-01"), d("2024-01-01"))  # re-added after deletion


@needs_git
def test_uncommitted_and_untracked_notes_use_the_file_time(repo):
    commit(repo, {"a.md": "a\n", "b.md": "b\n"}, "2021-01-01T00:00:00Z")
    (repo / "a.md").write_text("edited but not committed\n")
    (repo / "new note.md").write_text("untracked\n")
    history = GitHistory.read(repo)
    assert history.dirty == {"a.md", "new note.md"}
    assert history.created("a.md") == d("2021-01-01") and history.updated("a.md") is None
    edited = note_time("a.md", mtime=d("2025-02-02"), git=history, mtime_trusted=False, now=NOW)
    assert (edited.created_by, edited.updated, edited.updated_by) == ("git", d("2025-02-02"), "file mtime")
    clean = note_time("b.md", mtime=NOW, git=history, mtime_trusted=False, now=NOW)
    assert (clean.created, clean.updated, clean.updated_by) == (d("2021-01-01"), d("2021-01-01"), "git")


@needs_git
def test_vault_in_a_subfolder_of_the_repository(repo):
    commit(repo, {"vault/notes/n.md": "n\n", "elsewhere.md": "e\n"}, "2020-02-02T00:00:00Z")
    (repo / "vault" / "notes" / "n.md").write_text("changed\n")
    history = GitHistory.read(repo / "vault")
    assert set(history.times) == {"notes/n.md"}
    assert history.dirty == {"notes/n.md"}


@needs_git
def test_shallow_clone_dates_only_what_it_saw_change(repo, tmp_path):
    commit(repo, {"old.md": "old\n", "busy.md": "1\n"}, "2019-01-01T00:00:00Z")
    commit(repo, {"busy.md": "2\n"}, "2020-01-01T00:00:00Z")
    commit(repo, {"busy.md": "3\n"}, "2021-01-01T00:00:00Z")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "2", repo.as_uri(), str(clone)], check=True,
                   env=dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull), capture_output=True)
    history = GitHistory.read(clone)
    assert history.shallow
    assert history.times["old.md"] == (None, None)  # seen only at the cut-off: no date
    assert history.times["busy.md"] == (None, d("2021-01-01"))


@needs_git
def test_empty_repository_and_no_repository_and_no_git(repo, tmp_path):
    empty = GitHistory.read(repo)
    assert empty.times == {} and empty.error
    plain = tmp_path / "plain"
    plain.mkdir()
    assert GitHistory.read(plain).error
    assert GitHistory.read(repo, git=str(tmp_path / "no-such-git")).error
    assert GitHistory.read(tmp_path / "missing folder").error


@needs_git
def test_a_fresh_clone_is_dated_by_its_content_and_history(repo, tmp_path):
    """File times all 'today'; frontmatter, daily-note names and git carry the real dates."""
    commit(repo, {f"filler {i}.md": f"{i}\n" for i in range(25)}, "2020-06-01T00:00:00Z")
    commit(repo, {"About me.md": "---\ncreated: 2019-04-01\n---\nhi\n", "Journal/2021-03-04.md": "- ran\n",
                  "Project.md": "p\n", ".obsidian/daily-notes.json": json.dumps({"folder": "Journal"})},
           "2021-05-05T00:00:00Z")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", repo.as_uri(), str(clone)], check=True,
                   env=dict(os.environ, GIT_CONFIG_GLOBAL=os.devnull), capture_output=True)
    notes = sorted(p for p in clone.rglob("*.md") if ".git" not in p.parts)
    mtimes = {p.relative_to(clone).as_posix(): datetime.fromtimestamp(p.stat().st_mtime, UTC) for p in notes}
    clock = VaultClock.read(clone, mtimes.values())
    assert clock.bulk_window is not None and clock.daily_format.folder == "Journal"
    got = {rel: clock.note_time(rel, mtime=m, frontmatter={"created": "2019-04-01"} if rel == "About me.md" else {})
           for rel, m in mtimes.items()}
    assert (got["About me.md"].created, got["About me.md"].created_by) == (d("2019-04-01"), "frontmatter created")
    assert got["About me.md"].updated == d("2021-05-05")  # git, not the clone's file time
    assert (got["Journal/2021-03-04.md"].created, got["Journal/2021-03-04.md"].daily) == (d("2021-03-04"),) * 2
    assert (got["Project.md"].created, got["Project.md"].created_by) == (d("2021-05-05"), "git")
    assert got["filler 3.md"].updated == d("2020-06-01")
    assert all(t.reliable and t.created.year < 2026 and t.updated.year < 2026 for t in got.values())
