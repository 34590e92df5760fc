"""Sources you can open: a note's memory as markdown, its path as an Obsidian link, its quoted lines on demand."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from memory import Engram, EngramError, Recollection
from memory.obsidian import escape, inline_markdown, note_file, note_markdown, obsidian_url, quoted_lines
from ui import common

CARD_CHARS = 300  # a card shows the start of a long note; the Chat and Memories pages show all of it


def vault() -> Path | None:
    """The linked vault's folder (notes' paths are relative to it), or None when no vault is linked."""
    path = common.settings().vault_path
    return Path(path).expanduser() if path else None


def _openable(rec: Recollection) -> bool:
    """A note source whose path can be put in a link: a path that held a secret is stored redacted."""
    src = rec.provenance
    return src.kind == "note" and bool(src.ref) and "[REDACTED:" not in src.ref


def source_markdown(rec: Recollection) -> str:
    """Where a memory came from, as markdown: a note's path and lines link to the note in Obsidian."""
    label = escape(common.source_label(rec))
    folder = vault()
    if folder is None or not _openable(rec):
        return label
    return f"[{label}]({obsidian_url(folder, rec.provenance.ref)})"


def memory_markdown(rec: Recollection) -> str:
    """A memory's text to show: a note's as markdown (wikilinks as links), anything else exactly as written."""
    if rec.provenance.kind == "note":
        return note_markdown(rec.unit.content, vault())
    return escape(rec.unit.content).replace("\n", "  \n")


def card_markdown(rec: Recollection, limit: int | None = CARD_CHARS) -> str:
    """A memory on one line (Time travel cards, lists): markup dropped, a note's wikilinks as links."""
    return inline_markdown(rec.unit.content, vault() if rec.provenance.kind == "note" else None, limit)


def quoted_lines_toggle(eng: Engram, rec: Recollection, key: str, where=st) -> None:
    """A switch that shows the lines a note memory quotes, read from the note file when switched on."""
    src = rec.provenance
    folder = vault()
    if src.kind != "note" or not src.lines or folder is None:
        return
    start, end = src.lines
    if not where.toggle(f"Lines {start}–{end} in the note", key=key,
                        help="Show these lines as the note reads now, in place."):
        return
    file = note_file(folder, src.ref, eng.redactor.path_ref)
    if file is None:
        st.caption(f"{src.ref} is not in the linked vault ({folder}) any more.")
        return
    try:
        text = quoted_lines(file, (start, end))
    except EngramError as exc:
        st.caption(f"Could not read the note: {exc}")
        return
    st.code(eng.redact(text) or "(these lines are empty now)", language="markdown", wrap_lines=True)
