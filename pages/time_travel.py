"""Time travel: what Engram held true on a past day, each memory's validity over time, and what changed."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import altair as alt
import pandas as pd
import streamlit as st

from memory import EngramError
from memory.clock import ensure_utc, utc_now
from memory.obsidian import snippet
from memory.temporal import true_at
from memory.timeline import diff, valid_at
from ui import common
from ui import shell, sources

shell.inside_app()  # before anything is drawn: this page runs inside the app's frame

RESULTS = 30
RESULTS_FOR_QUERY = 10  # recall ranks by relevance: the top few answer the question
SHOWN = 8  # result cards shown before "more"
CHART_ROWS = 60
TYPE_ICONS = {"user_profile": "🙂", "session_state": "🧵", "tool_result": "🛠️", "fact_reference": "📄",
              "chat_turn": "💬"}


def show_result(rec) -> None:
    unit = rec.unit
    with st.container(border=True):
        state = "" if rec.valid else " · *history: no longer valid then*"
        st.markdown(f"{TYPE_ICONS.get(unit.type, '•')} {sources.card_markdown(rec)}")
        st.caption(f"{unit.type} · {common.md_escape(common.validity_label(rec))} · {sources.source_markdown(rec)}{state}")


def show_results(recs, empty: str) -> None:
    if not recs:
        st.info(empty)
        return
    for rec in recs[:SHOWN]:
        show_result(rec)
    if len(recs) > SHOWN:
        with st.expander(f"{len(recs) - SHOWN} more"):
            for rec in recs[SHOWN:]:
                show_result(rec)


def chart_units(eng, recs) -> list:
    """The shown memories and the other values of their slots (what came before and after)."""
    units = {r.unit.id: r.unit for r in recs}
    for rec in recs:
        if rec.unit.slot:
            for unit in eng.store.slot_history(*rec.unit.slot):
                units.setdefault(unit.id, unit)
    return sorted(units.values(), key=lambda u: u.valid_from)[-CHART_ROWS:]


def timeline_chart(eng, units, as_of: datetime) -> alt.LayerChart:
    now = utc_now()
    rows = []
    for unit in units:
        rec = common.recollection(eng, unit)
        end = unit.valid_until or unit.superseded_at or max(now, unit.valid_from + timedelta(hours=12))
        rows.append({
            "memory": f"m:{unit.id} {common.short(common.plain(unit.content), 34)}", "content": unit.content,
            "type": unit.type, "from": unit.valid_from, "until": end,
            "open": "open" if unit.valid_until is None and unit.superseded_at is None else "closed",
            "valid then": "yes" if true_at(unit, as_of) else "no", "source": common.source_label(rec),
        })
    frame = pd.DataFrame(rows)
    for column in ("from", "until"):
        frame[column] = pd.to_datetime(frame[column], utc=True)
    base = alt.Chart(frame).encode(
        y=alt.Y("memory:N", title=None, sort=alt.EncodingSortField("from", op="min"),
                axis=alt.Axis(labelLimit=230, labelOverlap=False)),
        color=alt.Color("type:N", title="type", legend=alt.Legend(orient="top", title=None)),
        opacity=alt.condition(alt.datum["valid then"] == "yes", alt.value(1.0), alt.value(0.35)),
        tooltip=["content", "type", alt.Tooltip("from:T", format="%Y-%m-%d"),
                 alt.Tooltip("until:T", format="%Y-%m-%d"), "open", "valid then", "source"],
    )
    bars = base.mark_bar(cornerRadius=3).encode(x=alt.X("from:T", title="valid (world time)"), x2="until:T")
    starts = base.mark_point(filled=True, size=40).encode(x="from:T")  # short intervals stay visible
    rule = alt.Chart(pd.DataFrame({"as of": [pd.Timestamp(as_of)]})).mark_rule(
        color="#e45756", strokeWidth=2).encode(x="as of:T", tooltip=[alt.Tooltip("as of:T", format="%Y-%m-%d")])
    return (bars + starts + rule).properties(height=alt.Step(22))  # one row per memory, however many


CHANGE_TITLES = {"added": "Added", "superseded": "Superseded", "expired": "Expired"}


def show_changes(changes) -> None:
    tabs = st.tabs([f"{title} ({sum(c.kind == kind for c in changes)})" for kind, title in CHANGE_TITLES.items()])
    for tab, kind in zip(tabs, CHANGE_TITLES):
        with tab:
            items = [c.unit for c in changes if c.kind == kind]
            if not items:
                st.caption(f"Nothing {kind} in this period.")
                continue
            st.markdown("\n".join(
                f"- {common.md_escape(snippet(rec.unit.content, 200, 100))}  \n"
                f"  <small>{common.md_escape(rec.unit.type)} · {common.md_escape(common.validity_label(rec))} · "
                f"{sources.source_markdown(rec)}</small>" for rec in items), unsafe_allow_html=True)


QUESTIONS = {"What was true on this day (world time)": False,
             "What Engram had recorded by this day (system time)": True}


def empty_explanation(eng, day, query: str, recorded: bool) -> str:
    """Why nothing shows: the words, or a day before what the vault's notes (or the record) cover."""
    about = " about that" if query else ""
    text = (f"Engram had recorded nothing{about} by {day:%d %b %Y}." if recorded
            else f"Nothing{about} was true on {day:%d %b %Y}, as far as Engram knows.")
    first, last, first_recorded = eng.store.note_time_span()
    if first is not None:
        text += (f" Your vault's notes are dated from {first:%d %b %Y} to {last:%d %b %Y}"
                 + (f" and were first recorded on {first_recorded:%d %b %Y}." if recorded else "."))
    return text + (" Move the slider later or change the words." if query else " Move the slider later.")


@st.fragment
def as_of_view(eng, first_day, today) -> None:
    """The slider, the optional words and what was valid that day: a step of the slider reruns only this part."""
    question = st.radio("Question", list(QUESTIONS), key="tt_question", horizontal=True,
                        help="World time: what held on that day, by everything Engram knows now (a note synced "
                             "today that says where you worked in 2021 answers for 2021). Recorded by: what Engram "
                             "itself had written down by that day; a note counts as recorded when its author "
                             "wrote it.")
    recorded = QUESTIONS[question]
    day = st.slider("As of", min_value=first_day, max_value=today, value=today, format="YYYY-MM-DD",
                    key="tt_day", help="Drag to a past day.")
    query = st.text_input("About (optional)", key="tt_query", placeholder="coffee, Mira, the garden project…")
    as_of = common.as_of_day(day)
    recorded_by = as_of if recorded else None

    try:
        if query.strip():
            recs = valid_at(eng.store, eng.provenance, as_of, query=query.strip(), recall=eng.recall,
                            k=RESULTS_FOR_QUERY, recorded_by=recorded_by)
        else:
            recs = valid_at(eng.store, eng.provenance, as_of, k=RESULTS, recorded_by=recorded_by)
        units = chart_units(eng, recs)
    except EngramError as exc:
        st.error(f"Time travel failed: {exc}")
        return

    left, right = st.columns([2, 3], gap="large")
    with left:
        current = sum(r.valid for r in recs)
        st.subheader(f"On {day:%d %b %Y}")
        st.caption(f"{common.plural(current, 'memory', 'memories')} valid then" + (f" about “{query.strip()}”" if query.strip() else " (most recent first)")
                   + (f", plus {common.plural(len(recs) - current, 'older version')}" if len(recs) > current else ""))
        show_results(recs, empty_explanation(eng, day, query.strip(), recorded))
    with right:
        st.subheader("Validity over time")
        if units:
            st.altair_chart(timeline_chart(eng, units, as_of), width="stretch")
            st.caption("Each bar is a memory's validity in world time (open intervals run to today); faded bars were "
                       "not valid on the chosen day; the red line is the chosen day. A slot's earlier and later "
                       "values are shown next to the current one.")
        else:
            st.caption("No memories to draw for this day.")


st.title("⏳ Time travel")
st.caption("What Engram knew or believed on a given day — and what changed between two days.")
eng = common.open_or_stop()

try:
    first, count = eng.store.memory_span()
except EngramError as exc:
    st.error(f"The memory store could not be read: {exc}. Check the Vault & settings page.")
    st.stop()
if not count:
    st.info("Nothing to travel through yet: your memory is empty. Link an Obsidian vault (or the bundled "
            "sample vault) on the **Vault & settings** page, or tell Engram something on the **Chat** page — "
            "every memory keeps the time it became true, so you can come back here and look into the past.")
    st.stop()

today = utc_now().date()
first_day = min(ensure_utc(first).date(), today - timedelta(days=1))
as_of_view(eng, first_day, today)

st.divider()
st.subheader("What changed between two days")
if "tt_from" not in st.session_state:
    st.session_state["tt_from"] = first_day
if "tt_to" not in st.session_state:
    st.session_state["tt_to"] = today
c1, c2 = st.columns(2)
start_day = c1.date_input("From", key="tt_from", min_value=first_day, max_value=today)
end_day = c2.date_input("To", key="tt_to", min_value=first_day, max_value=today)
if start_day >= end_day:
    st.warning("Pick a “From” day before the “To” day.")
else:
    start = datetime(start_day.year, start_day.month, start_day.day, tzinfo=timezone.utc)
    try:
        changes = diff(eng.store, eng.provenance, start, common.as_of_day(end_day))
    except EngramError as exc:
        st.error(f"The comparison failed: {exc}")
        st.stop()
    st.caption(f"From the start of {start_day:%d %b %Y} to the end of {end_day:%d %b %Y}: memories recorded "
               "(added), replaced by a newer value (superseded) and past their end (expired), each with its source.")
    show_changes(changes)
