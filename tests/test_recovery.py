"""A damaged store recovers; a read-only data folder still reads; files are private (issue 9).

Real DuckDB files, damaged the ways a disk or a user damages them; the CLI as a user runs it.
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import textwrap
import threading
from datetime import timedelta
from pathlib import Path

import pytest

from memory import BadInputError, EngramError, StoreDamagedError, StoreLockedError, StoreReadOnlyError
from memory.backups import KEEP, folder_of, list_backups, restore, stamp, take_backup
from memory.clock import utc_now
from memory.settings import Settings, save_settings
from memory.store import Store, database_problem
from tests.helpers import open_engram

ROOT = Path(__file__).resolve().parents[1]
# As root, file modes do not stop writes; without these capabilities root obeys them like any user.
UNPRIVILEGED = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"] if os.geteuid() == 0 else []


def cli(*args: str, home: Path, unprivileged: bool = False) -> subprocess.CompletedProcess:
    env = dict(os.environ, ENGRAM_HOME=str(home), ENGRAM_EMBEDDER="hash", HF_HUB_OFFLINE="1")
    prefix = UNPRIVILEGED if unprivileged else []
    return subprocess.run([*prefix, sys.executable, "-m", "memory", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def truncate(path: Path) -> None:
    os.truncate(path, path.stat().st_size // 2)


def garbage(path: Path) -> None:
    path.write_bytes(bytes(range(256)) * 64)


def empty(path: Path) -> None:
    path.write_bytes(b"")


def text(path: Path) -> None:
    path.write_text("these are my notes, not a database\n")


def corrupt_blocks(path: Path) -> None:
    """Keep the headers, overwrite every block after them: the catalog fails its checksum."""
    size = path.stat().st_size
    with path.open("r+b") as f:
        f.seek(12288)
        f.write(b"\xa5" * (size - 12288))


def seeded(home: Path) -> Path:
    """A store holding one memory, written in this process (as `python -m memory remember` would)."""
    eng = open_engram(home)
    eng.remember("I live in Porto")
    eng.close()
    return home / "engram.duckdb"


# ---------------------------------------------------------------- backups
def test_daily_backup_on_open_at_most_one_a_day_newest_kept(engram_home):
    database = seeded(engram_home)
    first = list_backups(database)
    assert len(first) == 1 and mode(first[0].path) == 0o600 and mode(folder_of(database)) == 0o700
    open_engram(engram_home).close()
    assert list_backups(database) == first  # taken today already: none on this open

    two_days_ago = first[0].path.with_name(f"engram-{stamp(utc_now() - timedelta(days=2))}.duckdb")
    first[0].path.rename(two_days_ago)
    eng = open_engram(engram_home)
    assert eng.daily_backup is not None and eng.daily_backup.taken_at > utc_now() - timedelta(minutes=5)
    assert len(list_backups(database)) == 2
    for day in range(1, 8):
        take_backup(eng.store, now=utc_now() + timedelta(days=day))
    eng.close()
    kept = list_backups(database)
    assert len(kept) == KEEP
    assert kept[0].taken_at > utc_now() + timedelta(days=6)  # the newest five, newest first
    assert [b.taken_at for b in kept] == sorted((b.taken_at for b in kept), reverse=True)


def test_backups_taken_while_writes_go_on_are_whole(engram_home):
    eng = open_engram(engram_home)
    stop = threading.Event()
    written: list[int] = []
    errors: list[Exception] = []

    def keep_writing() -> None:
        try:
            while not stop.is_set():
                eng.remember(f"Ticket INC-{len(written)} is about printer number {len(written)}", session_id="busy")
                written.append(1)
        except Exception as exc:  # reported below
            errors.append(exc)

    def after_writes(n: int) -> None:
        for _ in range(600):
            if len(written) >= n or errors:
                return
            threading.Event().wait(0.1)

    writer = threading.Thread(target=keep_writing)
    writer.start()
    backups = []
    try:
        for day in range(3):  # each backup is taken while the writer is still going
            after_writes(2 * day + 1)
            backups.append(take_backup(eng.store, now=utc_now() + timedelta(days=day + 1)))
    finally:
        stop.set()
        writer.join(120)
    live = eng.store.count("memories")
    backups.append(take_backup(eng.store, now=utc_now() + timedelta(days=4)))  # the last write is in it
    eng.close()
    assert not errors
    counts = []
    for backup in backups:
        assert database_problem(backup.path) is None
        copy = Store(backup.path, read_only=True)
        counts.append(copy.count("memories"))
        copy.close()
    assert counts == sorted(counts) and counts[0] > 0 and counts[-1] == live


# ------------------------------------------------------------ damaged store
@pytest.mark.parametrize("damage", [truncate, garbage, empty, text, corrupt_blocks])
def test_a_damaged_store_is_one_clear_error(engram_home, damage):
    database = seeded(engram_home)
    damage(database)
    with pytest.raises(StoreDamagedError) as err:
        open_engram(engram_home)
    message = str(err.value)
    assert str(database) in message and "damaged" in message and "\n" not in message
    assert "python -m memory restore" in message and "newest:" in message  # a backup exists: it says so


def test_truncated_store_cli_says_one_line_and_restore_keeps_earlier_writes(tmp_path):
    home = tmp_path / "home"
    seeded(home)
    backed = cli("backup", home=home)
    assert backed.returncode == 0 and "backed up to" in backed.stdout, backed.stderr
    eng = open_engram(home)
    eng.remember("I work at Acme")
    eng.close()
    database = home / "engram.duckdb"
    truncate(database)
    damaged_bytes = database.read_bytes()

    failed = cli("recall", "where do I live", home=home)
    assert failed.returncode == 1
    assert failed.stderr.count("\n") == 1 and "Traceback" not in failed.stderr
    assert str(database) in failed.stderr and "python -m memory restore" in failed.stderr

    newest = list_backups(database)[0]
    restored = cli("restore", home=home)
    assert restored.returncode == 0, restored.stderr
    assert newest.label() in restored.stdout and str(newest.path) in restored.stdout
    aside = list(home.glob("engram.duckdb.damaged-*"))
    assert len(aside) == 1 and aside[0].read_bytes() == damaged_bytes  # moved aside, never deleted
    assert str(aside[0]) in restored.stdout
    recalled = cli("recall", "where do I live", home=home)
    assert recalled.returncode == 0 and "Porto" in recalled.stdout


def test_restore_uses_the_newest_backup_that_reads_whole(engram_home):
    database = seeded(engram_home)
    eng = open_engram(engram_home)
    older = take_backup(eng.store, now=utc_now() + timedelta(days=1))
    newer = take_backup(eng.store, now=utc_now() + timedelta(days=2))
    eng.close()
    corrupt_blocks(newer.path)
    garbage(database)
    report = restore(database)
    assert report.source == older
    assert [p for p, _ in report.skipped] == [newer.path]
    assert report.moved_aside[0].name.startswith("engram.duckdb.damaged-")
    eng = open_engram(engram_home)
    assert "Porto" in eng.recall("where do I live").results[0].unit.content
    eng.close()


def test_restore_refuses_what_it_cannot_use(engram_home, tmp_path):
    database = seeded(engram_home)
    not_a_store = tmp_path / "notes.duckdb"
    text(not_a_store)
    with pytest.raises(BadInputError, match="notes.duckdb cannot be used"):
        restore(database, not_a_store)
    with pytest.raises(BadInputError, match="does not exist"):
        restore(database, tmp_path / "missing.duckdb")
    shutil.rmtree(folder_of(database))
    truncate(database)
    with pytest.raises(EngramError, match="no good backup"):
        restore(database)
    assert database.exists() and not list(engram_home.glob("*.damaged-*"))  # nothing moved when refused
    with pytest.raises(StoreDamagedError, match="There is no backup"):
        open_engram(engram_home)


def test_restore_from_a_file_replaces_a_healthy_store_and_keeps_it(engram_home, tmp_path):
    database = seeded(engram_home)
    copy = tmp_path / "keep.duckdb"
    shutil.copyfile(list_backups(database)[0].path, copy)
    report = restore(database, copy)
    assert report.source.path == copy
    assert report.moved_aside[0].name.startswith("engram.duckdb.replaced-")
    assert database_problem(report.moved_aside[0]) is None


def test_restore_is_refused_while_another_process_holds_the_store(engram_home):
    database = seeded(engram_home)
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys
            from memory.store import Store
            s = Store({str(database)!r}); print('ready', flush=True); sys.stdin.readline()
        """)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(StoreLockedError, match="another Engram process"):
            restore(database)
        assert not list(engram_home.glob("*.replaced-*"))
    finally:
        holder.communicate("\n", timeout=30)


def damage_a_data_block(home: Path) -> Path:
    """Damage one block the catalog does not need: the file opens, and the index's first read fails."""
    database = home / "engram.duckdb"
    original = database.read_bytes()
    for offset in range(12288, len(original), 4096):
        database.write_bytes(original[:offset + 100] + b"\xa5" * 64 + original[offset + 164:])
        if database_problem(database) and "catalog" not in database_problem(database):
            try:
                open_engram(home).close()
            except StoreDamagedError as exc:
                if "checksum" in exc.reason:
                    return database
    pytest.fail("found no data block to damage")


@pytest.mark.parametrize("damage", [corrupt_blocks, lambda database: damage_a_data_block(database.parent)])
def test_a_process_restores_and_reopens_its_damaged_store(engram_home, damage):
    """What the app's Restore button does: a failed open leaves nothing open, so the file can be replaced."""
    database = seeded(engram_home)
    damage(database)
    with pytest.raises(StoreDamagedError) as failed:  # kept, as a page keeps it while it shows the message
        open_engram(engram_home)
    restore(database)
    eng = open_engram(engram_home)
    eng.remember("I work at Acme")
    assert eng.check().clean
    eng.close()
    assert "damaged" in str(failed.value)


# ------------------------------------------------------------ read-only use
needs_setpriv = pytest.mark.skipif(os.geteuid() == 0 and not shutil.which("setpriv"),
                                   reason="as root, a read-only folder needs setpriv to drop CAP_DAC_OVERRIDE")


@needs_setpriv
def test_read_only_data_folder_reads_and_refuses_writes_clearly(tmp_path):
    home = tmp_path / "home"
    seeded(home)
    home.chmod(0o500)
    try:
        recalled = cli("recall", "where do I live", home=home, unprivileged=True)
        assert recalled.returncode == 0 and "Porto" in recalled.stdout, recalled.stderr
        assert f"the data folder {home} is read-only" in recalled.stderr
        health = cli("health", home=home, unprivileged=True)
        assert health.returncode == 0 and "memories:" in health.stdout
        out = tmp_path / "out"
        assert cli("export", str(out), home=home, unprivileged=True).returncode == 0
        assert (out / "memories.jsonl").exists()

        for write in (["remember", "I like tea"], ["backup"], ["restore"]):
            refused = cli(*write, home=home, unprivileged=True)
            assert refused.returncode == 1 and "Traceback" not in refused.stderr, write
            assert f"the data folder {home} is read-only" in refused.stderr, write
        assert not list(home.glob("*.damaged-*")) and not list(home.glob("*.replaced-*"))
    finally:
        home.chmod(0o700)


@needs_setpriv
def test_read_only_database_file_reads_and_refuses_writes_clearly(tmp_path):
    home = tmp_path / "home"
    seeded(home)
    (home / "engram.duckdb").chmod(0o400)
    recalled = cli("recall", "where do I live", home=home, unprivileged=True)
    assert recalled.returncode == 0 and "Porto" in recalled.stdout, recalled.stderr
    refused = cli("forget", "1", home=home, unprivileged=True)
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert f"the database file {home / 'engram.duckdb'} is read-only" in refused.stderr


def test_writes_to_a_read_only_store_are_a_clear_error(engram_home):
    seeded(engram_home)
    eng = open_engram(engram_home, read_only=True)
    assert eng.recall("where do I live").results
    with pytest.raises(StoreReadOnlyError, match="opened read-only"):
        eng.remember("I like tea")
    with pytest.raises(StoreReadOnlyError):
        eng.backup()
    eng.close()


# -------------------------------------------------------------- permissions
def test_data_folder_and_files_are_private(engram_home, tmp_path):
    database = seeded(engram_home)
    save_settings(engram_home, Settings())
    assert mode(engram_home) == 0o700
    assert mode(database) == 0o600 and mode(engram_home / "settings.json") == 0o600
    assert all(mode(b.path) == 0o600 for b in list_backups(database))
    eng = open_engram(engram_home)
    eng.export(tmp_path / "out")
    eng.close()
    assert {mode(p) for p in (tmp_path / "out").iterdir()} == {0o600}
    assert mode(tmp_path / "out") == 0o700

    for path, loose in ((engram_home, 0o755), (database, 0o644), (engram_home / "settings.json", 0o644),
                        (list_backups(database)[0].path, 0o644), (folder_of(database), 0o755)):
        path.chmod(loose)
    open_engram(engram_home).close()
    assert mode(engram_home) == 0o700 and mode(folder_of(database)) == 0o700
    assert mode(database) == mode(engram_home / "settings.json") == mode(list_backups(database)[0].path) == 0o600


def test_export_does_not_overwrite_without_force(tmp_path):
    home = tmp_path / "home"
    seeded(home)
    out = tmp_path / "out"
    assert cli("export", str(out), home=home).returncode == 0
    (out / "memories.jsonl").write_text("my edits\n")
    again = cli("export", str(out), home=home)
    assert again.returncode == 2 and "Traceback" not in again.stderr
    assert str(out) in again.stderr and "memories.jsonl" in again.stderr and "--force" in again.stderr
    assert (out / "memories.jsonl").read_text() == "my edits\n"
    forced = cli("export", str(out), "--force", home=home)
    assert forced.returncode == 0 and "Porto" in (out / "memories.jsonl").read_text()
    assert mode(out / "memories.jsonl") == 0o600

    a_file = tmp_path / "report.txt"
    a_file.write_text("not a folder")
    onto_file = cli("export", str(a_file), home=home)
    assert onto_file.returncode == 2 and "Traceback" not in onto_file.stderr
    assert f"{a_file} is a file" in onto_file.stderr
