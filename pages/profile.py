"""Profile: how Engram reads you (tags with their evidence, which you can pin or remove), stated
preferences, interests, and the prompt prefix they compile to."""
from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from memory import EngramError
from memory.profile import COLD_START_TURNS, TAG_SENTENCES, interest_counts
from memory.timeline import list_memories
from ui import common
from ui import shell

shell.inside_app()  # before anything is drawn: this page runs inside the app's frame

TOP_INTERESTS = 15


def choose(tag: str, **choice) -> None:
    try:
        common.engram().set_profile_choice(tag, **choice)
    except EngramError as exc:
        st.session_state["profile_flash"] = f"Could not save your choice for “{tag}”: {exc}"


def stated_preferences(eng) -> list:
    units = list_memories(eng.store, types=["user_profile"], state="valid", limit=500)
    return sorted((u for u in units if u.subject == "user"), key=lambda u: u.valid_from, reverse=True)


st.title("🪪 Profile")
st.caption("How Engram reads the way you ask, with the evidence behind each tag. Pin what fits, remove what "
           "does not: your choices shape the prompt prefix below.")

eng = common.open_or_stop()
if message := st.session_state.pop("profile_flash", None):
    st.error(message)
try:
    chat = common.chat()
    features = chat.turn_features()
    tags = chat.profile_tags()
    pinned, removed = eng.profile_choices()
    preferences = stated_preferences(eng)
    top = interest_counts(eng.store, top=TOP_INTERESTS)
    prefix = chat.profile_prefix()
    anchor = chat.anchor()
except EngramError as exc:
    st.error(f"The profile could not be read: {exc}. Check the Vault & settings page, then reload.")
    st.stop()

st.subheader("Tags")
turns = len(features)
if turns < COLD_START_TURNS:
    st.info(f"**Cold start:** {common.plural(turns, 'interaction')} so far. The profile stays neutral until "
            f"{COLD_START_TURNS} — chat a little on the Chat page and tags appear here with their evidence."
            + (" Pinned tags still apply." if pinned - removed else ""))
elif not tags:
    st.caption(f"No tag stands out in your last {common.plural(turns, 'turn')}: the profile is neutral.")
else:
    st.caption(f"Derived from your last {common.plural(turns, 'turn')}.")

for tag in tags:
    title = f"{'📌 ' if tag.pinned else ''}**{tag.name}** — score {tag.score:.2f}"
    with st.expander(title, expanded=True):
        st.caption(TAG_SENTENCES.get(tag.name, f"The user is tagged '{tag.name}'."))
        if tag.evidence:
            st.markdown("\n".join(f"- {common.md_escape(line)}" for line in tag.evidence))
        else:
            st.caption("No evidence recorded.")
        b1, b2, _ = st.columns([1, 1, 8], gap="small")
        if tag.pinned:
            b1.button("Unpin", key=f"unpin_{tag.name}", on_click=choose, args=(tag.name,), kwargs={"pinned": False},
                      help="Let the evidence decide again.")
        else:
            b1.button("📌 Pin", key=f"pin_{tag.name}", on_click=choose, args=(tag.name,), kwargs={"pinned": True},
                      help="Keep this tag even when the evidence fades.")
        b2.button("Remove", key=f"remove_{tag.name}", on_click=choose, args=(tag.name,),
                  kwargs={"removed": True, "pinned": False}, help="Never use this tag.")

shown = {t.name for t in tags}
addable = [name for name in TAG_SENTENCES if name not in shown and name not in removed]
if removed or addable:
    with st.expander("Removed and other tags", expanded=bool(removed)):
        for name in sorted(removed):
            c1, c2 = st.columns([3, 1])
            c1.markdown(f"~~{name}~~ — removed by you")
            c2.button("Restore", key=f"restore_{name}", on_click=choose, args=(name,), kwargs={"removed": False})
        for name in addable:
            c1, c2 = st.columns([3, 1])
            c1.markdown(f"**{name}** — not shown by the evidence. {TAG_SENTENCES[name]}")
            c2.button("📌 Pin", key=f"pin_{name}", on_click=choose, args=(name,), kwargs={"pinned": True})

left, right = st.columns(2, gap="large")
with left:
    st.subheader("Stated preferences")
    if preferences:
        st.dataframe(pd.DataFrame([{
            "preference": unit.content, "since": unit.valid_from.strftime("%Y-%m-%d"),
            "source": common.source_label(common.recollection(eng, unit)),
        } for unit in preferences]), hide_index=True, width="stretch")
        st.caption("What you told Engram about yourself that still holds; a newer statement on the same "
                   "topic replaces the old one (see Time travel).")
    else:
        st.caption("None yet. Tell Engram about yourself in a chat — “I drink oat latte”, “call me Ada”.")
with right:
    st.subheader("Interests")
    if top:
        frame = pd.DataFrame(top, columns=["interest", "mentions"])
        chart = alt.Chart(frame).mark_bar(color="#4c78a8").encode(
            x=alt.X("mentions:Q", title="mentions"),
            y=alt.Y("interest:N", sort="-x", title=None, axis=alt.Axis(labelLimit=240, labelOverlap=False)),
            tooltip=["interest", "mentions"])
        st.altair_chart(chart.properties(height=max(120, 26 * len(frame))), width="stretch")
        st.caption("How often people, projects, places, notes and #tags come up in your current memories.")
    else:
        st.caption("No interests yet: they come from the entities and #tags in your notes and chats.")

st.subheader("Prompt prefix")
st.caption("What the chat model is told about you before every answer (tags only; your stated preferences "
           "are sent alongside as core facts).")
st.code(prefix or "(empty — the profile is neutral)", language=None, wrap_lines=True)
if anchor:
    st.caption("Core facts sent with it:")
    st.code("\n".join(f"- {fact}" for fact in anchor), language=None, wrap_lines=True)
