"""Vault & settings: the vault and its sync, the Ollama model, the embedder, redaction, the data folder."""
from __future__ import annotations

import os
import time
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import streamlit as st

from memory import BadInputError, EngramError, StoreDamagedError
from memory.backups import KEEP, folder_of, list_backups
from memory.clock import ensure_utc
from memory.engram import database_path
from memory.health import database_bytes, megabytes
from memory.llm import ChatModel, ModelStatus, model_matches, normalise_url
from memory.privacy import RedactionSettings, settings_from_dict
from memory.settings import Settings, load_settings
from ui import common
from ui import shell
from vault_sync.scan import check_vault

shell.inside_app()  # before anything is drawn: this page runs inside the app's frame

PROBE_SECONDS = 30.0
EMBEDDERS = {None: "as built — the one this memory's vectors came from, when it runs on this computer (else local)",
             "local": "local — all-MiniLM-L6-v2 on this computer",
             "local-static": "local-static — distilled from it once (about half a minute): a big vault in minutes, "
                             "ranks a little lower",
             "hash": "hash — instant keyword hashing (fast, weakest)"}
REDACTION_LABELS = {
    "secrets": "API keys, tokens and passwords",
    "national_ids": "National ID, passport, membership and policy numbers",
    "bank_cards": "Bank card numbers",
    "emails": "E-mail addresses",
    "phones": "Phone numbers",
}


# ----------------------------------------------------------- saved settings
def _saved() -> Settings:
    """The settings file as saved, without environment overrides (so saving never bakes them in)."""
    return load_settings(common.home(), with_env=False)


def _update(**changes) -> bool:
    """Save some settings; a bad value is shown as an error and nothing is saved."""
    try:
        new = Settings.from_dict({**_saved().as_dict(), **changes})
    except BadInputError as exc:
        st.error(f"Not saved: {exc}.")
        return False
    try:
        common.save(new)
    except OSError as exc:
        st.error(f"Not saved: {exc.strerror or exc} writing {exc.filename or common.home()}.")
        return False
    return True


def _overridden(*names: str) -> str | None:
    found = [f"{name}={os.environ[name]}" for name in names if os.environ.get(name)]
    return ", ".join(found) or None


def _flash(section: str, kind: str, text: str) -> None:
    """A message shown once, in its section, after the rerun that follows a change."""
    st.session_state[f"settings_flash_{section}"] = (kind, text)


def _show_flash(section: str) -> None:
    flash = st.session_state.pop(f"settings_flash_{section}", None)
    if flash:
        getattr(st, flash[0])(flash[1])


# ------------------------------------------------------- process-wide parts
def _stop_runner() -> None:
    """Stop the running vault sync (after its current pass) and forget it, so a new one can start."""
    runner = common.vault_runner()
    if runner is not None:
        if not runner.ready.is_set():
            with st.spinner("Waiting for the running vault sync to finish…"):
                runner.ready.wait(120)
        runner.sync.stop()
    common._vault_sync.clear()


def _reopen_memory() -> None:
    """Open the memory again with the new embedder or redactor; the vault sync restarts with it."""
    _stop_runner()
    common._engram.clear()


def _probe(url: str, model: str) -> ModelStatus:
    """Ollama's status at `url`, remembered for PROBE_SECONDS (a fresh probe on 'Test connection')."""
    key = (url, model)
    cached = st.session_state.get("settings_probe")
    if cached and cached[0] == key and time.monotonic() - cached[1] < PROBE_SECONDS:
        return cached[2]
    status = ChatModel(url, model).available()
    st.session_state.settings_probe = (key, time.monotonic(), status)
    return status


# ------------------------------------------------------------------ sections
def _vault_section(s: Settings) -> None:
    st.subheader("Vault")
    st.caption("Engram indexes your Obsidian vault once, then follows every edit, rename and deletion.")
    if env := _overridden("ENGRAM_VAULT"):
        st.caption(f"⚠️ {env} is set and overrides the saved vault path.")
    pending = st.session_state.pop("settings_vault_pending", None)
    if pending or "settings_vault_path" not in st.session_state:
        st.session_state.settings_vault_path = pending or s.vault_path or ""
    path = st.text_input("Vault folder", key="settings_vault_path",
                         placeholder="/home/you/Documents/MyVault")
    link = sample = st.container(horizontal=True)
    if link.button("Link this vault", type="primary", key="settings_link"):
        if not path.strip():
            st.error("Enter the path of your Obsidian vault folder first.")
        else:
            try:
                _link(check_vault(path.strip()))
            except EngramError as exc:
                st.error(f"Cannot link {path.strip()}: {exc}. Enter the path of an existing folder.")
    if sample.button("Use the sample vault", key="settings_sample",
                     help=f"A small example vault bundled with Engram: {common.SAMPLE_VAULT}"):
        _link(common.SAMPLE_VAULT)
    _show_flash("vault")


def _link(vault: Path) -> None:
    vault = Path(vault).resolve()
    current = common.settings().vault_path
    if current and Path(current).expanduser().resolve() != vault:
        _stop_runner()
    if _update(vault_path=str(vault)):
        st.session_state.settings_vault_pending = str(vault)
        common.vault_runner()
        _flash("vault", "success", f"Linked {vault}. The first sync runs in the background; watch its progress below.")
        st.rerun()


@st.fragment(run_every=2)
def _sync_status() -> None:
    st.markdown("##### Sync status")
    try:
        runner = common.vault_runner()
    except EngramError as exc:
        st.error(f"The vault sync cannot start: {exc}")
        return
    if runner is None:
        vault = common.settings().vault_path
        if vault:
            st.error(f"The linked vault folder {vault} is not there any more. Reconnect the drive, or link "
                     "another folder above.")
            return
        st.info("No vault linked yet. Enter your vault's folder above, or try the sample vault.")
        return
    if runner.error:
        st.error(f"The vault sync stopped: {runner.error}. Check the folder, then press **Sync now** or "
                 "link the vault again.")
    if not runner.ready.is_set():
        done, total = runner.progress
        st.progress(done / total if total else 0.0,
                    text=f"First sync: {done}/{total} notes" if total else "First sync: scanning the vault…")
    status = runner.sync.status()
    if status["vectors_pending"]:
        filled, total = status["vectors_progress"]["filled"], status["vectors_progress"]["total"]
        st.progress(filled / total if total else 0.0,
                    text=f"Keyword search is ready; {status['vectors_pending']:,} passages still to embed for "
                         "meaning search")
    report = status["last_report"] or {}
    mode = {"inotify": "live (inotify)", "polling": "polling"}.get(status["mode"], status["mode"])
    cols = st.columns(4)
    cols[0].metric("Watching", mode)
    cols[1].metric("Last sync", _when(status["last_sync"]))
    cols[2].metric("Backlog", status["backlog"])
    cols[3].metric("Notes", common.engram().store.live_note_count(), help="Notes from this vault in the memory now.")
    st.caption(f"Vault: `{status['vault']}`")
    if status["message"]:
        st.caption(status["message"])
    if report:
        skipped = len(report.get("skipped", []))
        st.markdown(
            f"Last sync: **{report.get('notes', 0)}** notes ({report.get('indexed', 0)} indexed, "
            f"{report.get('unchanged', 0)} unchanged, {report.get('renamed', 0)} renamed, "
            f"{report.get('deleted', 0)} deleted) · **{report.get('chunks', 0)}** chunks · "
            f"**{report.get('entities', 0)}** entities · **{report.get('links', 0)}** links · "
            f"{skipped} skipped · {report.get('seconds', 0):.1f} s"
        )
    errors = status["errors"]
    if errors:
        with st.expander(f"Recent errors ({len(errors)})", expanded=False):
            for line in reversed(errors):
                st.text(line)
    if st.button("Sync now", key="settings_sync_now", disabled=not runner.ready.is_set(),
                 help="Rescan the whole vault now (unchanged notes cost nothing)."):
        try:
            with st.spinner("Syncing…"):
                done = runner.sync.sync_now()
        except EngramError as exc:
            st.session_state.settings_sync_result = ("error", f"Sync failed: {exc}")
        except OSError as exc:
            st.session_state.settings_sync_result = ("error", f"Sync failed reading the vault: {exc}")
        else:
            st.session_state.settings_sync_result = (
                "success", f"Synced {done.notes} notes: {done.indexed} indexed, {done.unchanged} unchanged, "
                           f"{done.deleted} deleted, {len(done.skipped)} skipped ({done.seconds:.1f} s).")
    if result := st.session_state.get("settings_sync_result"):
        getattr(st, result[0])(result[1])


def _when(value: str | None) -> str:
    if not value:
        return "never"
    return f"{ensure_utc(datetime.fromisoformat(value)).astimezone():%H:%M:%S}"


def _ollama_section(s: Settings) -> None:
    st.subheader("Language model (Ollama)")
    st.caption("Engram chats through a local Ollama server. Without one it answers in offline recall mode.")
    if env := _overridden("ENGRAM_OLLAMA_URL", "OLLAMA_HOST", "ENGRAM_MODEL"):
        st.caption(f"⚠️ {env} is set and overrides the saved values below.")
    url = st.text_input("Ollama URL", value=s.ollama_url, key="settings_ollama_url")
    try:
        url = normalise_url(url)
    except EngramError as exc:
        st.error(f"{exc}. Use a URL such as http://127.0.0.1:11434.")
        return
    if st.button("Test connection", key="settings_test"):
        st.session_state.pop("settings_probe", None)
    status = _probe(url, s.model)
    if status.reachable and status.models:
        options = list(dict.fromkeys([*status.models, *([s.model] if s.model not in status.models else [])]))
        model = st.selectbox("Chat model", options, index=options.index(s.model), key="settings_model",
                             help="Models pulled on this Ollama server.")
    else:
        model = st.text_input("Chat model", value=s.model, key="settings_model_text",
                              help="The server did not list its models; type the model's name.")
    window = st.number_input("Context window (tokens)", min_value=512, max_value=262144, step=1024,
                             value=s.context_window, key="settings_window",
                             help="Prompts are trimmed to fit; larger windows need more memory in Ollama.")
    shown = status
    if model != status.model:  # same server, another model: no second probe needed
        present = status.reachable and model_matches(model, status.models)
        missing = f"model {model!r} is not pulled at {url}; run `ollama pull {model}`"
        shown = replace(status, model=model, model_present=present,
                        error=status.error if not status.reachable else ("" if present else missing))
    if shown.ok:
        st.success(f"Ollama at {shown.base_url} answers; model **{shown.model}** is ready "
                   f"({len(shown.models)} models pulled).")
    elif shown.reachable:
        st.warning(f"Ollama at {shown.base_url} answers, but {shown.error}.")
    else:
        st.warning(f"{shown.error}. Chat works in offline recall mode until Ollama runs.")
        st.code(shown.hint, language="text")
    _show_flash("ollama")
    if st.button("Save model settings", type="primary", key="settings_save_model"):
        if _update(ollama_url=url, model=model.strip() or s.model, context_window=int(window)):
            common._chat_model.clear()
            st.session_state.pop("chat_probe", None)
            _flash("ollama", "success", f"Saved: {model} at {url}, context window {int(window)} tokens.")
            st.rerun()


def _embedder_section(s: Settings, eng) -> None:
    st.subheader("Embedder")
    st.caption("Turns memories into vectors for meaning-based recall. Vectors of two models are never mixed.")
    options = dict(EMBEDDERS)
    status = st.session_state.get("settings_probe")
    for name in (status[2].models if status and status[2].reachable else ()):
        options[f"ollama:{name}"] = f"ollama:{name} — served by Ollama"
    options.setdefault(s.embedder, s.embedder)
    env = _overridden("ENGRAM_EMBEDDER")
    if env:
        st.caption(f"⚠️ {env} is set and overrides this setting.")
    choice = st.selectbox("Embedder", list(options), index=list(options).index(s.embedder),
                          format_func=options.get, key="settings_embedder", disabled=bool(env))
    if choice != s.embedder and not env:
        if _update(embedder=choice):
            _reopen_memory()
            _flash("embedder", "info", f"Embedder set to {choice}. Re-embed your memories so recall uses it."
                   if choice else "Embedder set to the one your memories were embedded with.")
            st.rerun()
    if eng is None:
        return
    _show_flash("embedder")
    st.caption(f"In use: **{eng.embedder.name}** ({eng.embedder.dim} dimensions).")
    if eng.embedder_mismatch:
        st.warning("The stored vectors come from another embedder, so meaning-based recall is off until "
                   "every memory is re-embedded (keyword recall still works). " + eng.embedder_mismatch)
    if st.button("Re-embed all memories", key="settings_reembed", type="primary" if eng.embedder_mismatch else "secondary"):
        total = max(1, eng.store.count("memories"))
        bar = st.progress(0.0, text="Re-embedding…")
        done = [0]

        def progress(n: int) -> None:
            done[0] += n
            bar.progress(min(1.0, done[0] / total), text=f"Re-embedding… {done[0]}/{total}")

        try:
            count = eng.reembed(progress=progress)
        except EngramError as exc:
            st.error(f"Re-embedding failed, the old vectors are kept: {exc}")
            return
        _flash("embedder", "success", f"Re-embedded {count} memories with {eng.embedder.name}.")
        st.rerun()


def _redaction_section(s: Settings) -> None:
    st.subheader("Privacy")
    st.caption("What is removed from everything Engram stores, shows or sends to a model. Existing memories "
               "are not rewritten.")
    try:
        current = settings_from_dict(s.redaction)
    except EngramError as exc:
        st.error(f"The saved redaction settings are invalid ({exc}); saving below replaces them.")
        current = RedactionSettings()
    with st.form("settings_redaction"):
        flags = {name: st.checkbox(label, value=getattr(current, name), key=f"settings_redact_{name}")
                 for name, label in REDACTION_LABELS.items()}
        patterns = st.text_area("Custom patterns (regular expressions, one per line)",
                                value="\n".join(current.custom_patterns), key="settings_redact_patterns")
        submitted = st.form_submit_button("Save privacy settings")
    _show_flash("privacy")
    if submitted:
        data = {**flags, "custom_patterns": [p for p in patterns.splitlines() if p.strip()]}
        try:
            checked = settings_from_dict(data)
        except EngramError as exc:
            st.error(f"Not saved: {exc}")
            return
        if _update(redaction=checked.as_dict()):
            _reopen_memory()
            _flash("privacy", "success", "Privacy settings saved; the new redaction applies from now on.")
            st.rerun()


def _data_section(eng) -> None:
    st.subheader("Data folder")
    home = common.home()
    cols = st.columns(3)
    cols[0].metric("Database size", megabytes(database_bytes(database_path(home))))
    if eng is not None:
        cols[1].metric("Memories", eng.store.count("memories"))
        cols[2].metric("Sources", eng.store.count("sources"))
    st.markdown(f"Everything Engram keeps is in `{home}` (set `ENGRAM_HOME` to move it). Nothing leaves "
                "this computer.")
    _backups(eng)


def _backups(eng) -> None:
    st.markdown("##### Backups")
    database = database_path(common.home())
    backups = {str(b.path): b for b in list_backups(database)}
    st.caption(f"A backup is taken once a day when Engram opens; the newest {KEEP} are kept in "
               f"`{folder_of(database)}`. Restoring moves the current file aside, it never deletes it.")
    _show_flash("backups")
    if backups:
        st.dataframe([{"taken": b.label(), "size": megabytes(b.size), "file": b.path.name}
                      for b in backups.values()], hide_index=True)
    else:
        st.info("No backup yet.")
    row = st.container(horizontal=True)
    if eng is not None and row.button("Back up now", key="settings_backup_now", disabled=eng.store.read_only):
        try:
            with st.spinner("Backing up…"):
                backup = eng.backup()
        except (EngramError, OSError) as exc:
            st.error(f"Backup failed: {exc}")
        else:
            _flash("backups", "success", f"Backed up to {backup.path}.")
            st.rerun()
    if not backups:
        return
    chosen = st.selectbox("Backup to restore", list(backups), key="settings_backup_choice",
                          format_func=lambda path: backups[path].label())
    if st.button("Restore this backup", key="settings_restore",
                 help="Your memory goes back to this backup; what was written after it is no longer in it."):
        try:
            with st.spinner("Restoring…"):
                report = common.restore_backup(Path(chosen))
        except (EngramError, OSError) as exc:
            st.error(f"Restore failed: {exc}")
        else:
            st.session_state.engram_restored = report.summary()
            st.rerun()


# ------------------------------------------------------------------- page
st.title("⚙️ Vault & settings")
try:
    settings = common.settings()
except EngramError as exc:
    st.error(f"The settings cannot be read: {exc}")
    st.stop()
try:
    engram = common.engram()
except StoreDamagedError as exc:  # the page stays usable: restore below, or from the message
    common.damaged_store(exc)
    engram = None
except EngramError as exc:  # keep the page usable so the setting that broke it can be changed
    st.error(f"Engram could not open its memory: {exc}")
    engram = None
common.show_restored()
if engram is not None and engram.store.read_only_reason:
    st.warning(f"Your memory is open read-only: {engram.store.read_only_reason}.")

_vault_section(settings)
if engram is not None and not engram.store.read_only:
    _sync_status()
st.divider()
_ollama_section(settings)
st.divider()
_embedder_section(settings, engram)
st.divider()
_redaction_section(settings)
st.divider()
_data_section(engram)
