"""The app with a damaged store: every page names the file and offers Restore; settings backs up and restores."""
from __future__ import annotations

import os
import subprocess
import sys

from memory.backups import list_backups
from tests.helpers import open_engram
from tests.pages_support import ROOT, page, page_env, texts  # noqa: F401  (fixture)
from tests.test_recovery import needs_setpriv

PAGES = ["chat.py", "graph.py", "time_travel.py", "freshness.py", "profile.py", "memories.py", "settings.py"]


def damaged_with_a_backup(home):
    eng = open_engram(home)
    eng.remember("My sister Mara lives in Lisbon.")
    eng.backup()
    eng.close()
    database = home / "engram.duckdb"
    os.truncate(database, database.stat().st_size // 2)
    return database


def test_every_page_names_the_damaged_file_and_restores_it(page_env):
    database = damaged_with_a_backup(page_env)
    for name in PAGES:
        at = page(name).run()
        assert not at.exception, name
        assert str(database) in texts(at.error) and "damaged" in texts(at.error), name
        assert at.button(key="restore_last_backup"), name

    at = page("memories.py").run()
    at.button(key="restore_last_backup").click().run()
    assert not at.exception
    assert "Restored" in texts(at.success) and "damaged-" in texts(at.success)
    assert not at.error
    assert "Lisbon" in at.dataframe[0].value.to_string()
    assert len(list(page_env.glob("engram.duckdb.damaged-*"))) == 1


def test_settings_backs_up_now_and_restores_a_chosen_backup(page_env):
    from ui import common

    database = page_env / "engram.duckdb"
    at = page("settings.py").run()
    assert not at.exception
    at.button(key="settings_backup_now").click().run()
    assert not at.exception
    assert "Backed up to" in texts(at.success)
    newest = list_backups(database)[0]
    assert newest.path.exists()

    common.engram().remember("My sister Mara lives in Lisbon.")
    at.run()
    assert next(m.value for m in at.metric if m.label == "Memories") != "0"
    at.selectbox(key="settings_backup_choice").set_value(str(newest.path)).run()
    at.button(key="settings_restore").click().run()
    assert not at.exception
    assert "Restored" in texts(at.success) and newest.label() in texts(at.success)
    assert common.engram().store.count("memories") == 0  # back to the empty store of the backup
    assert len(list(page_env.glob("engram.duckdb.replaced-*"))) == 1


READ_ONLY_PAGE = """
import sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=60).run()
print("EXCEPTION" if at.exception else "ok")
print("\\n".join(str(w.value) for w in at.warning))
print("TITLE", at.title[0].value if at.title else "")
"""


@needs_setpriv
def test_a_read_only_data_folder_is_said_and_the_page_still_reads(page_env):
    """Run as a user the folder's modes bind (root keeps CAP_DAC_OVERRIDE otherwise), in a child process."""
    eng = open_engram(page_env)
    eng.remember("My sister Mara lives in Lisbon.")
    eng.close()
    page_env.chmod(0o500)
    try:
        prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"] if os.geteuid() == 0 else []
        shown = subprocess.run([*prefix, sys.executable, "-c", READ_ONLY_PAGE, str(ROOT / "pages" / "memories.py")],
                               cwd=ROOT, env=dict(os.environ), capture_output=True, text=True, timeout=300)
    finally:
        page_env.chmod(0o700)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == "ok", shown.stdout
    assert f"the data folder {page_env} is read-only" in shown.stdout and "open read-only" in shown.stdout
    assert "TITLE 🗂️ Memories" in shown.stdout
