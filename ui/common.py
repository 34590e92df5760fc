"""Shared by every page: one Engram, one vault sync and one chat model per process; small view helpers."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import streamlit as st

from memory import Engram, EngramError, StoreDamagedError, StoreLockedError
from memory.backups import RestoreReport, list_backups, restore
from memory.embed import chosen_embedder
from memory.engram import database_path, resolve_home
from memory.llm import ChatModel
from memory.model import Recollection
from memory.service import find_holder, serve, stop_serving
from memory.settings import Settings, load_settings, save_settings
from memory.timeline import recollection as as_recollection

if TYPE_CHECKING:  # loaded where first used: the first page draws without them
    from memory.chat import Chat
    from memory.service import Holder
    from vault_sync.runner import VaultRunner

SAMPLE_VAULT = Path(__file__).resolve().parents[1] / "sample_vault"
APP_LABEL = "the Engram app (`streamlit run app.py`)"
LOCK_WAIT_S = 10.0  # for a one-off CLI command, or a holder that is starting or stopping


def home() -> Path:
    return resolve_home()


def settings() -> Settings:
    return load_settings(home())


def save(new: Settings) -> None:
    save_settings(home(), new)


@st.cache_resource(show_spinner="Opening your memory…")
def _engram(home_path: str, embedder_spec: str | None, redaction_key: str) -> Engram:
    """Opened again when the embedder or the redaction settings change (Engram reads the saved ones); with no
    embedder chosen, the memory opens with the one it was built with."""
    eng = Engram(home_path, embedder=chosen_embedder(embedder_spec), allow_embedder_change=True)
    serve(eng, kind="app", label=APP_LABEL, watched=_linked_vaults)  # CLI commands on this folder run here
    return eng


def _linked_vaults() -> list[Path]:
    path = load_settings(home()).vault_path
    return [Path(path).expanduser()] if path else []


def engram() -> Engram:
    """The process-wide Engram (opened once, shared by pages, the vault watcher and CLI commands sent here).
    While another process holds the store: StoreLockedError naming it, after a short wait for a one-off one."""
    s = settings()
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            return _engram(str(home()), s.embedder, repr(sorted(s.redaction.items())))
        except StoreLockedError:
            holder = find_holder(home())
            if (holder is None or holder.kind == "cli") and time.monotonic() < deadline:
                time.sleep(0.3)
                continue
            if holder is None:
                raise
            raise StoreLockedError(f"your memory is open in {holder.describe()}; {holder.how_to_stop()}, "
                                   f"then reload this page") from None


@st.cache_resource(show_spinner=False)
def _vault_sync(home_path: str, vault_path: str) -> VaultRunner:
    """One running vault sync per data folder and vault, on the process-wide Engram."""
    from vault_sync.runner import VaultRunner

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


def chat_model() -> ChatModel:
    """The process-wide chat model of the current settings."""
    s = settings()
    return _chat_model(s.ollama_url, s.model, s.context_window, s.request_timeout)


def chat() -> "Chat":
    from memory.chat import Chat

    s = settings()
    return Chat(engram(), chat_model(), context_window=s.context_window, llm_extraction=s.llm_extraction)


def open_or_stop(waiting: str | None = None, opening=None) -> Engram:
    """The Engram, or an explanation (with a Restore button for a damaged store) and st.stop(); `waiting` is
    a question kept until the memory opens, said so when it cannot; `opening`, a placeholder saying the
    memory is opening, is cleared either way."""
    try:
        eng = engram()
    except EngramError as exc:
        if opening is not None:
            opening.empty()
        if isinstance(exc, StoreDamagedError):
            damaged_store(exc)
        elif isinstance(exc, StoreLockedError):
            held_elsewhere(exc)
        else:
            st.error(f"Engram could not open its memory: {exc}")
        say_waiting(waiting)
        st.stop()
    if opening is not None:
        opening.empty()
    show_restored()
    if eng.embedder_mismatch:
        st.warning(eng.embedder_mismatch)
    if eng.store.read_only_reason:
        st.warning(f"Your memory is open read-only: {eng.store.read_only_reason}. Recall, browsing and export "
                   "work; chats are not remembered and changes are refused until it is writable again.")
        return eng
    vault_runner()
    return eng


def say_waiting(question: str | None) -> None:
    """A question that cannot be answered yet is kept, and answered on this page once that is possible."""
    if question:
        st.caption(f"Your question is kept and answered here once your memory opens: “{short(question, 80)}”")


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
        stop_serving(eng.home)
        eng.close()
    _engram.clear()
    return restore(database_path(home()), source)


def held_elsewhere(exc: StoreLockedError) -> None:
    """Another Engram process holds the store: which one and how to stop it (or take over from `watch`);
    meanwhile the memory is searched through that process."""
    holder = find_holder(home())
    if holder is None:
        st.error(f"Engram could not open its memory: {exc}")
        st.button("Try again", key="held_retry")
        return
    st.warning(f"Your memory is open in another Engram process: **{holder.describe()}**. One process writes it, "
               f"so this app searches it through that one; chat, the graph and editing come back here when it "
               f"stops ({holder.how_to_stop()}).")
    if holder.kind == "watch":
        vault = holder.watching[0] if holder.watching else "its vault"
        if st.button("Take over here", type="primary", key="held_take_over",
                     help=f"Stops `watch` (as Ctrl+C would) and opens your memory in the app, which follows "
                          f"{vault} from then on."):
            try:
                with st.spinner("Taking over…"):
                    take_over(holder)
            except EngramError as err:
                st.error(f"Could not take over: {err}")
            else:
                st.rerun()
    try:
        _search_there(holder)
    except EngramError as err:
        st.error(f"{err}")
    st.button("Check again", key="held_retry")


def _search_there(holder: "Holder") -> None:
    from memory.forward import run_there

    code, out, err = run_there(holder, ["health", "--json"], home())
    if code == 0:
        figures = json.loads(out)
        st.caption(f"{plural(figures['memories'], 'memory', 'memories')} from {plural(figures['sources'], 'source')}.")
    query = st.text_input("Search your memory", key="held_query", placeholder="e.g. where is my dentist?")
    if not query.strip():
        return
    code, out, err = run_there(holder, ["recall", query, "--json", "--k", "10"], home())
    if code:
        st.error(err.removeprefix("error: ").strip() or f"recall failed ({code})")
        return
    results = json.loads(out)["results"]
    if not results:
        st.info("Nothing in your memory matches that.")
    for found in results:
        src = found["source"]
        where = src["ref"] or ""
        if src["lines"]:
            where += f", lines {src['lines'][0]}–{src['lines'][1]}"
        until = f" → {found['valid_until'][:10]}" if found["valid_until"] else ""
        state = f"superseded by m:{found['superseded_by']}" if found["superseded_by"] else "current"
        with st.container(border=True):
            st.markdown(md_escape(short(found["content"], 400)))
            st.caption(f"m:{found['id']} · {state}, {found['valid_from'][:10]}{until} · {src['kind']} {md_escape(where)}")


def take_over(holder: "Holder") -> None:
    """Ask `watch` to stop, open the store here, and follow its vault when the app links none yet."""
    from memory.forward import ask_to_release

    ask_to_release(holder)
    deadline = time.monotonic() + 60
    while find_holder(home()) is not None:
        if time.monotonic() > deadline:
            raise EngramError(f"{holder.describe()} agreed to stop but still runs after a minute; "
                              f"{holder.how_to_stop()}")
        time.sleep(0.2)
    engram()  # waits for the store to be let go
    if holder.watching and not settings().vault_path:
        link_vault(holder.watching[0])


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
