"""The settings file: saved and read back, bad values refused by name, no validation library on the way."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory import BadInputError
from memory.settings import Settings, load_settings, save_settings

ROOT = Path(__file__).resolve().parents[1]


def test_saved_settings_read_back_and_unknown_names_are_ignored(tmp_path: Path) -> None:
    saved = Settings(vault_path="/notes", context_window=4096, request_timeout=30, redaction={"emails": False})
    save_settings(tmp_path, saved)
    assert load_settings(tmp_path, with_env=False) == saved
    data = json.loads((tmp_path / "settings.json").read_text())
    data["added_by_a_newer_version"] = 1
    data["context_window"] = "2048"  # hand-edited as text
    (tmp_path / "settings.json").write_text(json.dumps(data))
    assert load_settings(tmp_path, with_env=False).context_window == 2048


@pytest.mark.parametrize("field, value, named", [
    ("context_window", 100, "context_window"),
    ("context_window", 4096.5, "context_window"),
    ("context_window", True, "context_window"),
    ("request_timeout", 0, "request_timeout"),
    ("request_timeout", "soon", "request_timeout"),
    ("llm_extraction", "yes", "llm_extraction"),
    ("model", "", "model"),
    ("vault_path", 3, "vault_path"),
    ("redaction", ["emails"], "redaction"),
])
def test_a_bad_value_is_refused_naming_the_file_and_the_field(tmp_path: Path, field, value, named) -> None:
    (tmp_path / "settings.json").write_text(json.dumps({field: value}))
    with pytest.raises(BadInputError) as caught:
        load_settings(tmp_path)
    assert named in str(caught.value) and "settings.json" in str(caught.value)


def test_a_cold_command_does_not_import_pydantic(tmp_path: Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT), ENGRAM_HOME=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", "import sys, memory.__main__; from memory.engram import Engram; "
                          f"Engram({str(tmp_path)!r}).close(); print('pydantic' in sys.modules)"],
                         cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False"]
