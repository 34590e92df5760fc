"""Freshness: how much of the memory is still valid, whether recall helps, what expires; archive and purge."""
from __future__ import annotations

from datetime import timedelta

import altair as alt
import pandas as pd
import streamlit as st

from memory import EngramError
from memory.health import (
    FRESHNESS_ALERT, HIT_RATE_ALERT, freshness_series, latency_label, megabytes, purgeable_ids, recall_series,
)
from memory.timeline import expiring_soon
from ui import common
from ui import shell

shell.inside_app()  # before anything is drawn: this page runs inside the app's frame

EXPIRING_WITHIN = timedelta(days=7)
DAY_AXIS = "%d %b"  # time axes read in days ("12 May"), never in seconds or milliseconds


def ratio_metric(column, label: str, value, threshold: float, help_text: str) -> None:
    if value is None:
        column.metric(label, "—", help=help_text + " Nothing to measure yet.")
        return
    points = (value - threshold) * 100
    column.metric(label, f"{value:.0%}", delta=f"{points:+.0f} pts vs {threshold:.0%} alert",
                  delta_color="normal", help=help_text, border=True)


def _flash(kind: str, text: str) -> None:
    st.session_state["freshness_flash"] = (kind, text)


def archive_stale() -> None:
    if not st.session_state.get("fr_archive_ok"):
        _flash("warning", "Tick the confirmation box first.")
        return
    try:
        n = common.engram().archive_stale()
    except EngramError as exc:
        _flash("error", f"Archiving failed: {exc}. Nothing was changed.")
        return
    st.session_state["fr_archive_ok"] = False
    _flash("success", f"Archived {common.plural(n, 'memory', 'memories')}: kept, but no longer recalled by default."
           if n else "Nothing was stale: no memory archived.")


def purge() -> None:
    if not st.session_state.get("fr_purge_ok"):
        _flash("warning", "Tick the confirmation box first.")
        return
    eng = common.engram()
    done = 0
    try:
        for memory_id in purgeable_ids(eng.store):
            eng.forget(memory_id, reason="purged from the freshness page (expired or archived)")
            done += 1
    except EngramError as exc:
        _flash("error", f"Purge stopped after {common.plural(done, 'memory', 'memories')}: {exc}")
        return
    st.session_state["fr_purge_ok"] = False
    _flash("success", f"Forgot {common.plural(done, 'memory', 'memories')} for good (the audit log keeps a line "
           "for each, without its content).")


st.title("🌱 Freshness")
eng = common.open_or_stop()
if flash := st.session_state.pop("freshness_flash", None):
    getattr(st, flash[0])(flash[1])

try:
    health = eng.health()
    series = freshness_series(eng.store)
    recalls = recall_series(eng.store)
    expiring = expiring_soon(eng.store, eng.provenance, within=EXPIRING_WITHIN)
    purgeable = purgeable_ids(eng.store)
except EngramError as exc:
    st.error(f"Health figures could not be computed: {exc}. Check the Vault & settings page, then reload.")
    st.stop()

if not health["memories"] and not health["chat_turns"]:
    st.info("Your memory is empty, so there is nothing to measure yet. Link an Obsidian vault (or the bundled "
            "sample vault) on the **Vault & settings** page, or chat on the **Chat** page; freshness, hit rate "
            "and expiring memories appear here as soon as there is something to remember.")

for alert in health["alerts"]:
    st.warning(f"⚠️ {alert[0].upper()}{alert[1:]}.")

c1, c2, c3, c4 = st.columns(4)
ratio_metric(c1, "Freshness", health["freshness"] if health["memories"] else None, FRESHNESS_ALERT,
             f"Valid memories / all memories (alert below {FRESHNESS_ALERT:.0%}).")
ratio_metric(c2, "Hit rate", health["hit_rate"], HIT_RATE_ALERT,
             f"Recalled memories used in an answer / recalled (alert below {HIT_RATE_ALERT:.0%}).")
c3.metric("Amnesia alert", "ON" if health["amnesia_alert"] else "off", border=True,
          delta="3 turns recalled nothing" if health["amnesia_alert"] else None, delta_color="inverse",
          help="On when the last 3 turns recalled nothing and each reply said it did not remember.")
latency = health["recall_latency_ms"]
c4.metric("Recall latency p50 / p95", latency_label(latency["p50"], latency["p95"]), border=True,
          help=f"Over the last {latency['samples']} recalls.")

counts = st.columns(6)
for column, (label, key) in zip(counts, [("Valid", "valid"), ("Superseded", "superseded"), ("Expired", "expired"),
                                         ("Archived", "archived"), ("Expiring in 24 h", "expiring_24h"),
                                         ("Chat turns", "chat_turns")]):
    column.metric(label, f"{health[key]:,}")
st.caption(f"{health['memories']:,} memories (chat turns counted apart) · {health['sources']:,} sources · "
           f"{health['entities']:,} entities · database {megabytes(health['db_bytes'])} · "
           f"embedder {health['embedder']}")

left, right = st.columns(2, gap="large")
with left:
    st.subheader("Freshness over 90 days")
    frame = pd.DataFrame(series)
    frame = frame[frame["freshness"].notna()] if not frame.empty else frame
    if frame.empty:
        st.caption("No memories yet.")
    else:
        frame["at"] = pd.to_datetime(frame["at"], utc=True)
        window = [series[0]["at"], series[-1]["at"]]  # the whole 90 days, even when one point has memories
        line = alt.Chart(frame).mark_line(point=True).encode(
            x=alt.X("at:T", title=None, scale=alt.Scale(domain=window), axis=alt.Axis(format=DAY_AXIS)), y=alt.Y("freshness:Q", title="freshness", axis=alt.Axis(format="%"),
                                                 scale=alt.Scale(domain=[0, 1])),
            tooltip=[alt.Tooltip("at:T", format="%Y-%m-%d"), alt.Tooltip("freshness:Q", format=".0%"),
                     "valid", "memories"])
        rule = alt.Chart(pd.DataFrame({"alert": [FRESHNESS_ALERT]})).mark_rule(
            color="#e45756", strokeDash=[4, 4]).encode(y="alert:Q")
        st.altair_chart((line + rule).properties(height=260), width="stretch")
with right:
    st.subheader("Recall, last 30 days")
    frame = pd.DataFrame(recalls)
    if frame.empty:
        st.caption("No recalls logged yet: chat on the Chat page to see how often recalled memories are used.")
    else:
        frame["day"] = pd.to_datetime(frame["day"])
        bars = alt.Chart(frame).mark_bar(opacity=0.35).encode(
            x=alt.X("day:T", title=None, axis=alt.Axis(format=DAY_AXIS)), y=alt.Y("recalls:Q", title="recalls"),
            tooltip=["day:T", "recalls", "returned", "used", "p95_ms"])
        hits = alt.Chart(frame[frame["hit_rate"].notna()]).mark_line(point=True, color="#f58518").encode(
            x="day:T", y=alt.Y("hit_rate:Q", title="hit rate", axis=alt.Axis(format="%"),
                               scale=alt.Scale(domain=[0, 1])),
            tooltip=["day:T", alt.Tooltip("hit_rate:Q", format=".0%")])
        rule = alt.Chart(pd.DataFrame({"alert": [HIT_RATE_ALERT]})).mark_rule(
            color="#e45756", strokeDash=[4, 4]).encode(y="alert:Q")
        chart = alt.layer(bars, alt.layer(hits, rule)).resolve_scale(y="independent")
        st.altair_chart(chart.properties(height=260), width="stretch")

st.subheader(f"Expiring in the next {EXPIRING_WITHIN.days} days")
if expiring:
    st.dataframe(pd.DataFrame([{
        "memory": rec.unit.content, "type": rec.unit.type,
        "expires": rec.unit.valid_until.strftime("%Y-%m-%d %H:%M"), "source": common.source_label(rec),
    } for rec in expiring]), hide_index=True, width="stretch")
else:
    st.caption("Nothing expires soon.")

st.divider()
st.subheader("Tidy up")
a, b = st.columns(2, gap="large")
with a:
    st.markdown("**Archive stale memories** — superseded or expired memories, and long-unused ones with lowered "
                "relevance, are archived: kept, shown as history, no longer recalled by default.")
    st.checkbox("I want to archive stale memories", key="fr_archive_ok")
    st.button("Archive stale memories", key="fr_archive", on_click=archive_stale,
              disabled=not st.session_state.get("fr_archive_ok"))
with b:
    st.markdown("**Purge** — forget for good every memory that is expired, superseded or archived "
                f"(now {common.plural(len(purgeable), 'memory', 'memories')}). This cannot be undone; the audit "
                "log keeps a line for each, without its content.")
    st.checkbox("Yes, forget " + ("it" if len(purgeable) == 1 else f"these {len(purgeable)} memories") + " for good",
                key="fr_purge_ok", disabled=not purgeable)
    st.button("Purge expired and archived", key="fr_purge", type="primary", on_click=purge,
              disabled=not (purgeable and st.session_state.get("fr_purge_ok")))
