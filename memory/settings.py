"""Settings saved under ENGRAM_HOME/settings.json; environment variables override them (read when called)."""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from .errors import BadInputError
from .files import open_private
from .llm import DEFAULT_MODEL, normalise_url

SETTINGS_FILE = "settings.json"


@dataclass
class Settings:
    vault_path: str | None = None
    ollama_url: str = "http://127.0.0.1:11434"
    model: str = DEFAULT_MODEL
    context_window: int = 8192
    request_timeout: float = 120.0
    embedder: str | None = None  # None: the one the memory was built with (MiniLM for a new one)
    redaction: dict = field(default_factory=dict)
    llm_extraction: bool = True

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Settings:
        """Settings from saved values; a wrong type or an out-of-range value raises BadInputError naming the
        field. Names it does not know are ignored (a newer version's file still opens)."""
        if not isinstance(data, dict):
            raise BadInputError("settings must be a JSON object")
        known = {f.name for f in fields(cls)}
        values = {name: _checked(name, value) for name, value in data.items() if name in known}
        return cls(**values)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


_TEXT = ("ollama_url", "model", "embedder")


def _checked(name: str, value: Any) -> Any:
    """One saved value, of its field's type and within its bounds."""
    if name == "vault_path":
        if value is None or isinstance(value, str):
            return value
        raise BadInputError("vault_path must be a folder path or null")
    if name == "embedder" and value is None:
        return None
    if name in _TEXT:
        if isinstance(value, str) and value.strip():
            return value
        raise BadInputError(f"{name} must be a non-empty text")
    if name == "context_window":
        number = _number(value)
        if number is None or number != int(number) or not 512 <= number <= 262144:
            raise BadInputError("context_window must be a whole number of tokens from 512 to 262144")
        return int(number)
    if name == "request_timeout":
        number = _number(value)
        if number is None or number <= 0:
            raise BadInputError("request_timeout must be a number of seconds above 0")
        return float(number)
    if name == "redaction":
        if isinstance(value, dict):
            return value
        raise BadInputError("redaction must be an object of switches and patterns")
    if name == "llm_extraction":
        if isinstance(value, bool):
            return value
        raise BadInputError("llm_extraction must be true or false")
    return value


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) if value == value else None  # NaN is no number
    if isinstance(value, str):
        try:
            return _number(float(value))
        except ValueError:
            return None
    return None


def settings_path(home: Path) -> Path:
    return Path(home) / SETTINGS_FILE


def load_settings(home: Path, *, with_env: bool = True) -> Settings:
    """Saved settings, with ENGRAM_* (and OLLAMA_HOST) environment overrides applied unless with_env=False."""
    path = settings_path(home)
    data = {}
    if path.exists():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise BadInputError(f"settings file {path} is unreadable ({exc}); fix or delete it") from None
    try:
        settings = Settings.from_dict(data)
    except BadInputError as exc:
        raise BadInputError(f"settings file {path} has a bad value: {exc}; fix or delete it") from None
    if not with_env:
        return settings
    env = os.environ
    if env.get("ENGRAM_VAULT"):
        settings.vault_path = env["ENGRAM_VAULT"]
    if env.get("ENGRAM_OLLAMA_URL") or env.get("OLLAMA_HOST"):
        settings.ollama_url = normalise_url(env.get("ENGRAM_OLLAMA_URL") or env["OLLAMA_HOST"])
    if env.get("ENGRAM_MODEL"):
        settings.model = env["ENGRAM_MODEL"]
    if env.get("ENGRAM_EMBEDDER"):
        settings.embedder = env["ENGRAM_EMBEDDER"]
    return settings


def save_settings(home: Path, settings: Settings) -> None:
    path = settings_path(home)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_suffix(".tmp")
    with open_private(tmp, overwrite=True) as out:  # 0600: settings may hold redaction patterns
        out.write(json.dumps(settings.as_dict(), indent=2, ensure_ascii=False))
    tmp.replace(path)
