"""Memories: browse, search, edit, archive, forget and export everything Engram remembers."""
from __future__ import annotations

import re
from datetime import date, datetime, time as clock_time, timezone
from pathlib import Path

import pandas as pd
import streamlit as st

from memory import EngramError, MemoryUnit
from memory.clock import ensure_utc, utc_now
from memory.model import RESULT_TYPES
from memory.timeline import list_memories
from ui import common
from ui import shell

shell.inside_app()  # before anything is drawn: this page runs inside the app's frame

STATES = ("all", "valid", "superseded", "expired", "archived")
LIMITS = (50, 200, 1000)
ID_QUERY = re.compile(r"^\s*(?:m:)?(\d+)\s*$")


def _flash(kind: str, text: str) -> None:
    st.session_state.memories_flash = (kind, text)


def _show_flash() -> None:
    flash = st.session_state.pop("memories_flash", None)
    if flash:
        getattr(st, flash[0])(flash[1])


def _find(eng, text: str, types: list[str], state: str, limit: int) -> list[MemoryUnit]:
    """The filtered listing; "m:12" or "12" also finds memory 12 itself."""
    units = list_memories(eng.store, text=text or None, types=types or None, state=state, limit=limit)
    match = ID_QUERY.match(text or "")
    if match:
        try:
            unit = eng.store.memory(int(match.group(1)))
        except (EngramError, KeyError):
            pass
        else:
            units = [unit] + [u for u in units if u.id != unit.id]
    return units


def _day(value: datetime | None) -> str:
    return f"{ensure_utc(value):%Y-%m-%d %H:%M}" if value else ""


def _table(eng, units: list[MemoryUnit]) -> pd.DataFrame:
    rows = []
    for unit in units:
        rec = common.recollection(eng, unit)
        rows.append({
            "id": unit.id, "type": unit.type, "content": unit.content,
            "valid from": _day(unit.valid_from), "valid until": _day(unit.valid_until),
            "superseded_by": f"m:{unit.superseded_by}" if unit.superseded_by else "", "relevance": round(unit.relevance, 2),
            "archived": unit.archived, "source": common.source_label(rec),
        })
    return pd.DataFrame(rows)


def _as_datetime(day: date, keep: datetime | None) -> datetime:
    """A picked day at the original time of day (midnight UTC for a new date)."""
    at = ensure_utc(keep).timetz() if keep else clock_time(0, 0, tzinfo=timezone.utc)
    return datetime.combine(day, at)


def _edit_form(eng, unit: MemoryUnit) -> None:
    with st.form(f"memories_edit_{unit.id}"):
        content = st.text_area("Content", value=unit.content, height=120, key=f"memories_edit_content_{unit.id}")
        left, right = st.columns(2)
        start = left.date_input("Valid from", value=ensure_utc(unit.valid_from).date(), key=f"memories_edit_from_{unit.id}",
                                min_value=date(1900, 1, 1))
        open_ended = right.checkbox("Still valid (no end date)", value=unit.valid_until is None,
                                    key=f"memories_edit_open_{unit.id}")
        end = right.date_input("Valid until", value=ensure_utc(unit.valid_until).date() if unit.valid_until else None,
                               key=f"memories_edit_until_{unit.id}", min_value=date(1900, 1, 1),
                               help="Ignored while 'Still valid' is ticked.")
        if not st.form_submit_button("Save changes", type="primary"):
            return
    changes: dict = {}
    if content.strip() != unit.content:
        if not content.strip():
            st.error("The content cannot be empty; to remove a memory, forget it below.")
            return
        changes["content"] = content
    if start != ensure_utc(unit.valid_from).date():
        changes["valid_from"] = _as_datetime(start, unit.valid_from)
    if open_ended:
        if unit.valid_until is not None:
            changes["clear_valid_until"] = True
    elif end is None:
        st.error("Pick a 'Valid until' date, or tick 'Still valid (no end date)'.")
        return
    elif unit.valid_until is None or end != ensure_utc(unit.valid_until).date():
        changes["valid_until"] = _as_datetime(end, unit.valid_until)
    if not changes:
        st.info("Nothing changed.")
        return
    try:
        corrected = eng.edit(unit.id, **changes)
    except (EngramError, KeyError) as exc:
        st.error(f"Could not save m:{unit.id}: {exc}")
        return
    what = ", ".join(sorted(k.replace("clear_", "") for k in changes))
    _flash("success", f"Saved m:{unit.id} as m:{corrected.id} ({what}); m:{unit.id} is kept as the corrected "
                      "record of what Engram held before.")
    st.session_state["memories_pick_next"] = corrected.id
    st.rerun()


def _archive(eng, unit: MemoryUnit) -> None:
    label = "Unarchive" if unit.archived else "Archive"
    help_text = ("Archived memories are kept but not recalled." if not unit.archived
                 else "Make this memory recallable again.")
    if st.button(label, key="memories_archive", help=help_text):
        try:
            eng.set_archived(unit.id, not unit.archived)
        except (EngramError, KeyError) as exc:
            st.error(f"Could not change m:{unit.id}: {exc}")
            return
        _flash("success", f"m:{unit.id} {'unarchived' if unit.archived else 'archived'}.")
        st.rerun()


def _forget(eng, unit: MemoryUnit) -> None:
    sure = st.checkbox(f"I want m:{unit.id} deleted for good (this cannot be undone)", key=f"memories_forget_sure_{unit.id}")
    if st.button("Forget this memory", key="memories_forget", type="primary", disabled=not sure):
        try:
            eng.forget(unit.id, reason="forgotten from the memories page")
        except (EngramError, KeyError) as exc:
            st.error(f"Could not forget m:{unit.id}: {exc}")
            return
        st.session_state.memories_show_audit = True
        _flash("success", f"Forgotten m:{unit.id}. An audit entry was written (it keeps no content) — "
                          "see the audit log below.")
        st.rerun()


def _audit(eng) -> None:
    rows = eng.store.recent_audit(20)
    with st.expander(f"Audit log ({len(rows)} most recent)" if rows else "Audit log (empty)", expanded=bool(rows) and st.session_state.pop("memories_show_audit", False)):
        if rows:
            st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
        else:
            st.caption("Nothing edited, forgotten or archived yet.")


def _export(eng) -> None:
    st.subheader("Export everything")
    st.caption("One JSONL file per table, the graph as JSON and a manifest, written to a folder on this computer.")
    default = str(common.home() / f"export-{utc_now():%Y-%m-%d}")
    folder = st.text_input("Export folder", value=default, key="memories_export_folder")
    if st.button("Export everything", key="memories_export"):
        target = Path(folder.strip()).expanduser()
        if not folder.strip():
            st.error("Enter a folder to export to.")
            return
        if target.exists() and not target.is_dir():
            st.error(f"{target} exists and is not a folder; choose another path.")
            return
        try:
            with st.spinner("Exporting…"):
                counts = eng.export(target)
        except (EngramError, OSError) as exc:
            st.error(f"Export to {target} failed: {exc}. Check the folder is writable.")
            return
        st.success(f"Exported to {target}")
        st.dataframe(pd.DataFrame({"table": list(counts), "rows": list(counts.values())}), hide_index=True)


# ------------------------------------------------------------------- page
eng = common.open_or_stop()
st.title("🗂️ Memories")
st.caption("Everything Engram remembers, with where it came from. Edit, archive or forget any memory.")
_show_flash()

total = eng.store.count("memories")
if total == 0:
    st.info("No memories yet. Chat with Engram or link a vault under **Vault & settings**, and they appear here.")
else:
    search, kinds, state, limit = st.columns([3, 3, 2, 1])
    text = search.text_input("Search", key="memories_text", placeholder="words in the content, or m:ID")
    types = kinds.multiselect("Types", RESULT_TYPES, key="memories_types")
    chosen_state = state.selectbox("State", STATES, key="memories_state")
    shown = limit.selectbox("Show", LIMITS, index=1, key="memories_limit")
    try:
        units = _find(eng, text.strip(), types, chosen_state, shown)
    except EngramError as exc:
        st.error(f"Could not list memories: {exc}")
        st.stop()
    st.caption(f"{len(units)} shown of {total} memories.")
    if units:
        st.dataframe(
            _table(eng, units), hide_index=True, width="stretch",
            column_config={
                "id": st.column_config.NumberColumn("id", format="m:%d", width="small"),
                "content": st.column_config.TextColumn("content", width="large"),
                "relevance": st.column_config.ProgressColumn("relevance", min_value=0.0, max_value=2.0,
                                                             format="%.1f"),
                "superseded_by": st.column_config.TextColumn("superseded by", width="small"),
            },
        )
        by_id = {u.id: u for u in units}
        if st.session_state.get("memories_pick_next") in by_id:  # after an edit: open the corrected version
            st.session_state["memories_pick"] = st.session_state.pop("memories_pick_next")
        picked = st.selectbox(
            "Open a memory", list(by_id), key="memories_pick",
            format_func=lambda i: f"m:{i} · {by_id[i].type} · {by_id[i].content[:80]}",
        )
        unit = by_id[picked]
        rec = common.recollection(eng, unit)
        st.subheader(f"m:{unit.id}")
        badges = [f"`{unit.type}`", common.validity_label(rec), common.source_label(rec)]
        if unit.archived:
            badges.append(":orange-badge[archived]")
        if unit.superseded_at:
            badges.append(":red-badge[superseded]")
        st.markdown(" · ".join(badges))
        edit_tab, keep_tab = st.tabs(["Edit", "Archive or forget"])
        with edit_tab:
            _edit_form(eng, unit)
        with keep_tab:
            _archive(eng, unit)
            st.divider()
            _forget(eng, unit)
    else:
        st.info("No memory matches these filters.")

_audit(eng)
st.divider()
_export(eng)
