"""Prompt header fields: file names, titles, session and message ids made safe for one prompt line."""
from __future__ import annotations

import unicodedata

# Control, invisible format (bidi overrides, zero-width), line/paragraph separators, surrogates,
# private-use and unassigned code points: none may reach a header line.
_UNSAFE = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
ELLIPSIS = "…"


def header_field(value: object, limit: int = 120) -> str:
    """One line of plain text: unsafe characters become spaces, whitespace runs collapse, at most `limit` characters."""
    if limit < 1:
        raise ValueError(f"header field limit must be at least 1, got {limit}")
    text = "" if value is None else str(value)
    pieces: list[str] = []
    kept = 0  # non-space characters so far: past `limit` the rest cannot show
    step = 4 * limit + 16
    for offset in range(0, len(text), step):
        chunk = text[offset : offset + step]
        if chunk.isspace():
            pieces.append(" ")
            continue
        cleaned = "".join(" " if unicodedata.category(char) in _UNSAFE else char for char in chunk)
        pieces.append(cleaned)
        kept += len("".join(cleaned.split()))
        if kept > limit:
            break
    line = " ".join("".join(pieces).split())
    if len(line) <= limit:
        return line
    return line[: limit - 1].rstrip() + ELLIPSIS
