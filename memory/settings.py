"""Settings saved under ENGRAM_HOME/settings.json; environment variables override them (read when called)."""
from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from .errors import BadInputError
from .files import open_private
from .llm import DEFAULT_MODEL, normalise_url

SETTINGS_FILE = "settings.json"


class Settings(BaseModel):
    vault_path: str | None = None
    ollama_url: str = "http://127.0.0.1:11434"
    model: str = DEFAULT_MODEL
    context_window: int = Field(default=8192, ge=512, le=262144)
    request_timeout: float = Field(default=120.0, gt=0)
    embedder: str = "local"
    redaction: dict = Field(default_factory=dict)
    llm_extraction: bool = True


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
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        raise BadInputError(f"settings file {path} has bad values: {exc.errors()[0]['msg']}") from None
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
        out.write(settings.model_dump_json(indent=2))
    tmp.replace(path)
