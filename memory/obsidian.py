"""Notes as the person opens them: obsidian:// addresses, wikilinks as readable links, a source's quoted lines."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Iterable, Iterator
from urllib.parse import quote

from .errors import BadInputError, NotFoundError
from .extract import compress

# ![[target#heading^block|alias]] — an embed or a link; the target ends at '#', '^', '|' or ']]'
WIKILINK = re.compile(r"!?\[\[([^\]|#^\n]*)((?:[#^][^\]|\n]*)?)(?:\|([^\]\n]*))?\]\]")
HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_HEADING_LINES = re.compile(r"(?m)^[ \t]{0,3}#{1,6}[ \t]+(.+?)[ \t#]*$")
_MARKS = re.compile(r"(?m)^[ \t]*(?:#{1,6}|>)[ \t]+|\*\*|__|`")  # heading and quote marks, bold, code
_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]<>#|$~"})
MAX_QUOTED_LINES = 200


def obsidian_url(vault: str | Path, note_path: str) -> str:
    """`obsidian://open?vault=<vault folder name>&file=<note path without .md>`, URL-encoded."""
    name = Path(vault).name
    file = note_path[:-3] if note_path.lower().endswith(".md") else note_path
    return f"obsidian://open?vault={quote(name, safe='')}&file={quote(file, safe='')}"


def link_label(match: re.Match) -> str:
    """What a wikilink reads as: its alias, else its target (› heading or block)."""
    target, part, alias = match.group(1).strip(), match.group(2).lstrip("#^").strip(), match.group(3)
    return (alias or "").strip() or " › ".join(p for p in (target, part) if p)


def wikilinks_to_markdown(text: str, vault: str | Path | None) -> str:
    """Each [[wikilink]] as a markdown link that opens its note in Obsidian (its words alone without a vault);
    the rest of the text is left as it is.

    Obsidian resolves `file=` by name just as it resolves the wikilink, so the target is passed as written."""

    def link(match: re.Match) -> str:
        shown, target = escape(link_label(match)), match.group(1).strip()
        return f"[{shown}]({obsidian_url(vault, target)})" if vault is not None and target else shown

    return WIKILINK.sub(link, text or "")


def wikilinks_streamed(parts: Iterable[str], vault: str | Path | None) -> Iterator[str]:
    """A streamed reply with its wikilinks as links: text from an unclosed `[[` is held back until `]]`."""
    held = ""
    for part in parts:
        held += part
        opened = held.rfind("[[")
        cut = opened if opened != -1 and "]]" not in held[opened:] else len(held)
        if cut:
            yield wikilinks_to_markdown(held[:cut], vault)
            held = held[cut:]
    if held:
        yield wikilinks_to_markdown(held, vault)


def wikilinks_to_text(text: str) -> str:
    """Each [[wikilink]] replaced by the words it reads as."""
    return WIKILINK.sub(link_label, text or "")


def snippet(text: str, limit_latin: int = 300, limit_cjk: int = 150) -> str:
    """A memory's text for one result line: compressed, headings read "Stay:", wikilinks as their words."""
    return compress(wikilinks_to_text(_HEADING_LINES.sub(r"\1:", text or "")), limit_latin, limit_cjk)


def escape(text: str) -> str:
    """Text that markdown shows as itself (no emphasis, links, headings, HTML or LaTeX); spacing kept."""
    return (text or "").translate(_MD_SPECIAL)


def note_markdown(text: str, vault: str | Path | None) -> str:
    """A note's text as markdown inside a page: headings as bold paragraphs, wikilinks as links, no LaTeX."""
    lines = []
    for line in (text or "").strip().splitlines():
        heading = HEADING.match(line)
        lines.append(f"\n**{heading.group(1).strip()}**\n" if heading else line)
    return _outside_links("\n".join(lines).strip(), lambda part: part.replace("$", "\\$"), vault)


def inline_markdown(text: str, vault: str | Path | None, limit: int | None = None) -> str:
    """A note's text on one line: heading, quote and emphasis marks dropped, other markup shown as itself,
    wikilinks as links; cut to about `limit` characters at a word, never inside a wikilink."""
    flat = " ".join(_MARKS.sub("", text or "").split())
    if limit is not None and len(flat) > limit:
        cut = flat.rfind(" ", 0, limit)
        cut = cut if cut > limit // 2 else limit
        opened = flat.rfind("[[", 0, cut)
        if opened > flat.rfind("]]", 0, cut):  # the cut falls inside a wikilink: keep the link whole
            closed = flat.find("]]", cut)
            cut = closed + 2 if closed != -1 else opened
        flat = flat[:cut].rstrip(" ,;:.") + "…"
    return _outside_links(flat, escape, vault)


def _outside_links(text: str, change: Callable[[str], str], vault: str | Path | None) -> str:
    """`change` applied to the text between wikilinks, the wikilinks made links."""
    out, last = [], 0
    for match in WIKILINK.finditer(text):
        out.append(change(text[last : match.start()]))
        out.append(wikilinks_to_markdown(match.group(0), vault))
        last = match.end()
    out.append(change(text[last:]))
    return "".join(out)


def note_file(vault: str | Path, ref: str, path_ref: Callable[[str], str] | None = None) -> Path | None:
    """The file in `vault` that a stored note path names; None when it is not there (moved, deleted, elsewhere).

    A path that held a secret is stored redacted with a `#<hash>` suffix: it is found by scanning the vault
    for the path whose `path_ref` gives back the stored one."""
    root = Path(vault).expanduser().resolve()
    direct = (root / ref).resolve()
    if direct.is_relative_to(root) and direct.is_file():
        return direct
    if path_ref is None or " #" not in ref:
        return None
    for candidate in root.rglob("*.md"):
        relative = candidate.relative_to(root).as_posix()
        if not any(part.startswith(".") for part in relative.split("/")) and path_ref(relative) == ref:
            return candidate
    return None


def quoted_lines(file: Path, lines: tuple[int, int] | list[int]) -> str:
    """Lines start..end (1-based, inclusive) of a note file, at most MAX_QUOTED_LINES of them."""
    start, end = int(lines[0]), int(lines[1])
    if start < 1 or end < start:
        raise BadInputError(f"lines {start}–{end} are not a range of lines")
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise NotFoundError(f"cannot read the note {file}: {exc.strerror or exc}") from None
    chosen = text.splitlines()[start - 1 : min(end, start + MAX_QUOTED_LINES - 1)]
    return "\n".join(chosen)
