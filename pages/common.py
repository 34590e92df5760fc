"""Shared by every page: one Engram, one vault sync and one chat model per process; small view helpers."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from memory import Engram, EngramError, StoreDamagedError
from memory.backups import RestoreReport, list_backups, restore
from memory.chat import Chat
from memory.embed import make_embedder
from memory.engram import database_path, resolve_home
from memory.llm import ChatModel
from memory.model import Recollection
from memory.privacy import Redactor, settings_from_dict
from memory.settings import Settings, load_settings, save_settings
from memory.timeline import recollection as as_recollection
from vault_sync.runner import VaultRunner

SAMPLE_VAULT = Path(__file__).resolve().parents[1] / "sample_vault"


def home() -> Path:
    return resolve_home()


def settings() -> Settings:
    return load_settings(home())


def save(new: Settings) -> None:
    save_settings(home(), new)


@st.cache_resource(show_spinner="Opening your memory…")
def _engram(home_path: str, embedder_spec: str, redaction_key: str) -> Engram:
    redaction = settings_from_dict(load_settings(Path(home_path)).redaction)
    return Engram(home_path, embedder=make_embedder(embedder_spec), redactor=Redactor(redaction),
                  allow_embedder_change=True)


def engram() -> Engram:
    """The process-wide Engram (opened once, shared by pages and the vault watcher)."""
    s = settings()
    return _engram(str(home()), s.embedder, repr(sorted(s.redaction.items())))


@st.cache_resource(show_spinner=False)
def _vault_sync(home_path: str, vault_path: str) -> VaultRunner:
    """One running vault sync per data folder and vault, on the process-wide Engram."""
    return VaultRunner(engram(), vault_path)


def vault_runner() -> VaultRunner | None:
    """The running vault sync for the configured vault, started on first call; None without a vault."""
    path = settings().vault_path
    if not path or not Path(path).expanduser().is_dir():
        return None
    return _vault_sync(str(home()), str(Path(path).expanduser().resolve()))


def link_vault(path: str | Path) -> VaultRunner | None:
    s = load_settings(home(), with_env=False)  # environment overrides are not written to the file
    s.vault_path = str(Path(path).expanduser().resolve())
    save(s)
    return vault_runner()


@st.cache_resource(show_spinner=False)
def _chat_model(url: str, model: str, window: int, timeout: float) -> ChatModel:
    return ChatModel(url, model, context_window=window, request_timeout=timeout)


def chat() -> Chat:
    s = settings()
    model = _chat_model(s.ollama_url, s.model, s.context_window, s.request_timeout)
    return Chat(engram(), model, context_window=s.context_window, llm_extraction=s.llm_extraction)


def open_or_stop() -> Engram:
    """The Engram, or an explanation (with a Restore button for a damaged store) and st.stop()."""
    try:
        eng = engram()
    except StoreDamagedError as exc:
        damaged_store(exc)
        st.stop()
    except EngramError as exc:
        st.error(f"Engram could not open its memory: {exc}")
        st.stop()
    show_restored()
    if eng.embedder_mismatch:
        st.warning(eng.embedder_mismatch)
    if eng.store.read_only_reason:
        st.warning(f"Your memory is open read-only: {eng.store.read_only_reason}. Recall, browsing and export "
                   "work; chats are not remembered and changes are refused until it is writable again.")
        return eng
    vault_runner()
    return eng


def restore_backup(source: Path | None = None) -> RestoreReport:
    """Back to the last good backup (or `source`), as `python -m memory restore` does: the open memory and its
    vault sync are closed first; the next engram() opens the restored file."""
    try:
        eng = engram()
    except EngramError:
        eng = None  # damaged or unreadable: nothing is open
    if eng is not None:
        runner = vault_runner() if not eng.store.read_only else None
        if runner is not None:
            runner.ready.wait(120)
            runner.sync.stop()
        _vault_sync.clear()
        eng.close()
    _engram.clear()
    return restore(database_path(home()), source)


def damaged_store(exc: StoreDamagedError) -> None:
    """The damaged-store message, and a button that restores the last good backup."""
    st.error(f"Engram could not open its memory: {exc}")
    if not list_backups(exc.path):
        return
    if st.button("Restore the last good backup", type="primary", key="restore_last_backup",
                 help="The damaged file is moved aside (never deleted) and the newest backup that opens "
                      "whole takes its place."):
        try:
            with st.spinner("Restoring…"):
                report = restore_backup()
        except EngramError as err:
            st.error(f"Restore failed: {err}")
            return
        st.session_state.engram_restored = report.summary()
        st.rerun()


def show_restored() -> None:
    """Say once, after the rerun, what a restore put back."""
    if done := st.session_state.pop("engram_restored", None):
        st.success(done[0].upper() + done[1:] + ".")


def source_label(rec: Recollection) -> str:
    src = rec.provenance
    if src.kind == "note":
        lines = f", lines {src.lines[0]}–{src.lines[1]}" if src.lines else ""
        return f"📄 {src.ref}{lines}"
    if src.kind == "chat":
        when = src.at.strftime("%Y-%m-%d %H:%M") if src.at else ""
        message = f", message {src.message_id}" if src.message_id else ""
        return f"💬 session {src.ref}, {when}{message}"
    return src.kind


def validity_label(rec: Recollection) -> str:
    unit = rec.unit
    start = f"{unit.valid_from:%Y-%m-%d}"
    if unit.superseded_at:
        by = f" by m:{unit.superseded_by}" if unit.superseded_by else ""
        return f"{start} → superseded {unit.superseded_at:%Y-%m-%d}{by}"
    if unit.valid_until:
        return f"{start} → {unit.valid_until:%Y-%m-%d}"
    return f"since {start}"


# --- small view helpers (graph, time travel, freshness, profile pages) ---------------------

_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]<>#|$~"})


def md_escape(text: str) -> str:
    """Text shown inside st.markdown as itself: no emphasis, links, headings or LaTeX."""
    return " ".join((text or "").split()).translate(_MD_SPECIAL)


def short(text: str, limit: int = 32) -> str:
    """A one-line label of at most `limit` characters, cut at a word boundary when there is one."""
    text = " ".join((text or "").split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return (text[:cut] if cut > limit // 2 else text[: limit - 1]).rstrip(" ,;:.") + "…"


def as_of_day(day):
    """The moment (a UTC datetime) a page means by a calendar day: its end, or now for today and later."""
    from datetime import datetime, time, timezone

    from memory.clock import utc_now

    now = utc_now()
    if day >= now.date():
        return now
    return datetime.combine(day, time(23, 59, 59), tzinfo=timezone.utc)


def recollection(eng: Engram, unit, as_of=None) -> Recollection:
    """A stored memory unit as a Recollection (for source_label / validity_label), valid by the time rule
    at `as_of` (default now)."""
    return as_recollection(unit, eng.provenance, as_of=as_of)


def plural(n: int, one: str, many: str | None = None) -> str:
    """'1 memory', '2 memories'."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def plain(text: str) -> str:
    """Note text for a one-line display: heading marks, quote marks and emphasis removed."""
    import re  # the pattern is compiled once and cached by `re`

    return " ".join(re.sub(r"(?m)^[ \t]*(?:#{1,6}|>)[ \t]+|\*\*|__|`", "", text or "").split())
