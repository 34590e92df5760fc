"""The chat page below its title and input box (pages/chat.py draws those first): ask Engram; every answer
shows the memories it used and where each came from."""
from __future__ import annotations

import time
import uuid
from datetime import date, datetime, time as clock_time, timezone

import streamlit as st

from memory import EngramError, Recollection
from memory.clock import ensure_utc, utc_now
from memory.llm import ModelStatus, how_to_start_ollama
from memory.suggestions import questions_for, vault_summary
from ui import common

PENDING = "chat_pending"  # the question typed (kept by pages/chat.py until a run answers it)
PROBE_SECONDS = 30.0
SUGGESTED = 5
SESSIONS_SHOWN = 30
ABOUT = (
    "**Engram** is your private, local memory: it reads your Obsidian vault and your chats, "
    "remembers what was true when, and shows where every answer came from. Nothing leaves this computer."
)


# ------------------------------------------------------------------ state
def _new_session_id() -> str:
    return f"web-{utc_now():%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:4]}"


def _init_state() -> None:
    state = st.session_state
    state.setdefault("chat_session", _new_session_id())
    state.setdefault("chat_last_turn", None)  # {"session", "turn", "memories", "confident", "offline"}
    state.setdefault("chat_confirm_forget", None)
    state.setdefault("chat_flash", None)


def _start_session() -> None:
    st.session_state.chat_session = _new_session_id()
    st.session_state.chat_last_turn = None
    st.session_state.chat_confirm_forget = None


def _resume_session(session_id: str) -> None:
    if st.session_state.chat_session != session_id:
        st.session_state.chat_session = session_id
        st.session_state.chat_last_turn = None
        st.session_state.chat_confirm_forget = None


def _flash(kind: str, text: str) -> None:
    st.session_state.chat_flash = (kind, text)


def _show_flash() -> None:
    flash = st.session_state.chat_flash
    if flash:
        st.session_state.chat_flash = None
        getattr(st, flash[0])(flash[1])
        st.toast(flash[1], icon="✅" if flash[0] == "success" else "⚠️")


# -------------------------------------------------------------- callbacks
def _feedback(memory_id: int, kind: str) -> None:
    try:
        relevance = common.engram().feedback(memory_id, used=kind == "used", wrong=kind == "wrong")
    except (EngramError, KeyError) as exc:
        _flash("error", f"Could not record feedback for m:{memory_id}: {exc}")
        return
    what = "Thanks — marked as helpful" if kind == "used" else "Noted — marked as wrong"
    _flash("success", f"{what} (m:{memory_id}, relevance now {relevance:.1f}).")


def _ask_forget(memory_id: int | None) -> None:
    st.session_state.chat_confirm_forget = memory_id


def _forget(memory_id: int) -> None:
    st.session_state.chat_confirm_forget = None
    try:
        common.engram().forget(memory_id, reason="forgotten from chat")
    except (EngramError, KeyError) as exc:
        _flash("error", f"Could not forget m:{memory_id}: {exc}")
        return
    last = st.session_state.chat_last_turn
    if last:
        last["memories"] = [r for r in last["memories"] if r.unit.id != memory_id]
    _flash("success", f"Forgotten m:{memory_id} for good. An audit entry (without its content) was kept.")


# ---------------------------------------------------------------- helpers
def _model_status() -> ModelStatus:
    """Ollama's status, probed at most every PROBE_SECONDS per browser session."""
    s = common.settings()
    key = (s.ollama_url, s.model)
    cached = st.session_state.get("chat_probe")
    if cached and cached[0] == key and time.monotonic() - cached[1] < PROBE_SECONDS:
        return cached[2]
    status = common.chat_model().available()
    st.session_state.chat_probe = (key, time.monotonic(), status)
    return status


def _as_of_from(day: date | None) -> datetime | None:
    if day is None:
        return None
    return datetime.combine(day, clock_time(23, 59, 59), tzinfo=timezone.utc)


def _sessions_list(eng, box) -> None:
    """Filled last, so a session started by this run's question is listed too."""
    with box:
        st.subheader("Sessions")
        st.button("➕ New session", on_click=_start_session, width="stretch", key="chat_new_session")
        current = st.session_state.chat_session
        sessions = eng.store.chat_sessions(SESSIONS_SHOWN)
        if current not in {row["session_id"] for row in sessions}:
            st.caption("🟢 A new session — it appears here once you ask something.")
        for row in sessions:
            started = ensure_utc(row["started"])
            first = (row["first"] or "").replace("\n", " ")
            label = f"{started:%Y-%m-%d %H:%M} · {first[:28] + '…' if len(first) > 28 else first or row['session_id']}"
            st.button(label, key=f"chat_session_{row['session_id']}", width="stretch",
                      type="primary" if row["session_id"] == current else "secondary",
                      on_click=_resume_session, args=(row["session_id"],), help=f"session {row['session_id']}")


def _as_of_picker() -> datetime | None:
    with st.sidebar:
        st.divider()
        past = st.toggle("Chat with the past", key="chat_as_of_on",
                         help="Answer only from what Engram knew at the end of a chosen day.")
        if not past:
            return None
        day = st.date_input("As of", value=utc_now().date(), max_value=utc_now().date(), key="chat_as_of_day")
        as_of = _as_of_from(day)
        st.caption(f"Recall as of {as_of:%Y-%m-%d %H:%M} UTC.")
        return as_of


def _indexing_notice(runner) -> None:
    @st.fragment(run_every=2)
    def progress() -> None:
        if runner.ready.is_set():
            st.rerun()
        done, total = runner.progress
        text = f"Indexing your vault… {done}/{total} notes. You can chat meanwhile." if total else "Scanning your vault…"
        st.progress(done / total if total else 0.0, text=text)

    progress()


def _ask(question: str) -> None:
    st.session_state.chat_ask = question


def _first_questions(eng) -> None:
    """In an empty session once the vault is indexed: what was indexed, and questions to start with."""
    try:
        summary = vault_summary(eng.store)
        questions = questions_for(eng.store, SUGGESTED) if summary.notes else []
    except EngramError as exc:
        st.caption(f"Suggested questions are not available: {exc}")
        return
    if not summary.notes:
        return
    with st.container(border=True, key="chat_first_questions"):
        st.markdown(f"**Your vault is indexed:** {common.plural(summary.notes, 'note')} · "
                    f"{common.plural(summary.memories, 'memory', 'memories')} · "
                    f"{common.plural(summary.dated_facts, 'dated fact')} · "
                    f"{common.plural(summary.entities, 'entity', 'entities')}.")
        if questions:
            st.caption("Try asking:")
            row = st.container(horizontal=True)
            for number, suggestion in enumerate(questions):
                row.button(suggestion.question, key=f"chat_suggested_{number}", on_click=_ask,
                           args=(suggestion.question,))


def _show_history(history: list[tuple], last: dict | None) -> None:
    """The session's turns as the store gives them: (role, text, time, offline reply?)."""
    if not history:
        return
    from memory.obsidian import wikilinks_to_markdown
    from ui import sources

    for i, (role, text, _, _) in enumerate(history):
        with st.chat_message(role):
            st.markdown(wikilinks_to_markdown(text or "", sources.vault()))
            if last and i == len(history) - 1 and role == "assistant":
                _render_memories(last)


def _answer(prompt: str, session_id: str, as_of: datetime | None) -> None:
    """Ask: the chat (and what it loads) is built here, on the first question."""
    from memory.obsidian import wikilinks_streamed
    from ui import sources

    with st.chat_message("user"):
        st.markdown(prompt)
    with st.chat_message("assistant"):
        try:
            prepared = common.chat().turn(prompt, session_id=session_id, as_of=as_of)
            st.write_stream(wikilinks_streamed(prepared.stream(), sources.vault()))
        except EngramError as exc:
            st.error(f"Engram could not answer: {exc}. Try a shorter question, or check **Vault & settings**.")
        else:
            outcome = prepared.outcome
            recall = outcome.recall
            memories = list({r.unit.id: r for r in (recall.results if recall else [])}.values())
            st.session_state.chat_last_turn = {
                "session": session_id, "turn": outcome.reply_event_id or uuid.uuid4().hex[:8],
                "memories": memories, "confident": bool(recall and recall.confident), "offline": outcome.offline,
            }
            st.session_state.chat_confirm_forget = None
            _render_memories(st.session_state.chat_last_turn)


def _render_memories(last: dict) -> None:
    memories: list[Recollection] = last["memories"]
    pending = st.session_state.chat_confirm_forget
    expanded = pending is not None and any(r.unit.id == pending for r in memories)
    with st.expander(f"Memories used ({len(memories)})", expanded=expanded, key=f"chat_mem_{last['turn']}"):
        _show_flash()
        if not memories:
            st.caption("No memory was recalled for this question.")
        elif not last["confident"]:
            st.caption("None of these is a strong match — the answer says so.")
        for rec in memories:
            _render_memory(rec, pending)


def _render_memory(rec: Recollection, pending: int | None) -> None:
    from ui import sources

    unit = rec.unit
    badge = " :red-badge[superseded]" if not rec.valid else ""
    st.markdown(f"**m:{unit.id}** · `{unit.type}` · score {rec.score:.2f}{badge}")
    with st.container(border=True):
        st.markdown(sources.memory_markdown(rec))
    st.caption(f"{common.validity_label(rec)} · {sources.source_markdown(rec)}")
    row = st.container(horizontal=True, vertical_alignment="center")
    row.button("👍", key=f"chat_used_{unit.id}", help="This memory helped",
                on_click=_feedback, args=(unit.id, "used"))
    row.button("That's wrong", key=f"chat_wrong_{unit.id}", on_click=_feedback, args=(unit.id, "wrong"))
    row.button("Forget this", key=f"chat_forget_{unit.id}", on_click=_ask_forget, args=(unit.id,))
    sources.quoted_lines_toggle(common.engram(), rec, f"chat_lines_{unit.id}", where=row)
    if pending == unit.id:
        st.warning(f"Forget m:{unit.id} for good? It is deleted from the store; only an audit line remains.")
        confirm = st.container(horizontal=True)
        confirm.button("Yes, forget it", key=f"chat_forget_yes_{unit.id}", type="primary",
                   on_click=_forget, args=(unit.id,))
        confirm.button("Cancel", key=f"chat_forget_no_{unit.id}", on_click=_ask_forget, args=(None,))
    st.divider()


# ------------------------------------------------------------------- page
def show(opening) -> None:
    """Everything below the title and the input box; answers the kept question once the memory is open.
    `opening` holds the "Opening your memory…" line, cleared once it is open (or cannot be)."""
    _init_state()
    waiting = st.session_state.get(PENDING)
    eng = common.open_or_stop(waiting=waiting, opening=opening)
    st.session_state.chat_opened = True
    settings = common.settings()
    try:
        common.chat_model()
    except EngramError as exc:
        st.error(f"Chat is not available: {exc}")
        common.say_waiting(waiting)
        st.stop()

    sessions_box = st.sidebar.container()
    as_of = _as_of_picker()
    session_id = st.session_state.chat_session

    empty = eng.store.count("memories") == 0 and eng.store.count("events") == 0
    if empty:
        st.markdown(ABOUT)
        if not settings.vault_path:
            st.caption("No vault is linked yet. Try Engram on the bundled sample vault, or link your own under "
                       "**Vault & settings**.")
            if st.button("Link the sample vault", type="primary", key="chat_link_sample"):
                try:
                    common.link_vault(common.SAMPLE_VAULT)
                except EngramError as exc:
                    st.error(f"Could not link the sample vault: {exc}")
                else:
                    st.rerun()
    else:
        st.caption("Ask anything; answers show which memories they used and where each came from.")

    runner = common.vault_runner()
    if runner is not None and not runner.ready.is_set():
        _indexing_notice(runner)

    status = _model_status()
    if not status.ok:
        st.info(
            f"No language model is answering — {status.error}.\n\nChat still works in **offline recall mode**: "
            "Engram replies with the memories it finds, each with its source.\n\n"
            f"```text\n{how_to_start_ollama(status.model)}\n```"
        )
    if as_of is not None:
        st.warning(f"Chatting with the past: recall only sees what was known on {as_of:%Y-%m-%d}.")

    last = st.session_state.chat_last_turn
    if last and last["session"] != session_id:
        last = None
    history = eng.store.session_turns(session_id)
    prompt = st.session_state.pop(PENDING, None) or st.session_state.pop("chat_ask", None)  # typed, or clicked
    if not history and not prompt and runner is not None and runner.ready.is_set():
        _first_questions(eng)
    _show_history(history, last)
    if prompt:
        _answer(prompt, session_id, as_of)

    _show_flash()  # when the turn it belongs to is no longer shown
    _sessions_list(eng, sessions_box)
