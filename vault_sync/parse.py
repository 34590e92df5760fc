"""Pure Obsidian markdown parsing: note text in, ParsedNote out. No I/O.

Choices worth knowing:
- Line numbers are 1-based and count the frontmatter lines of the original file; line endings
  are normalised (CRLF and lone CR count as one line break) and a leading BOM is dropped.
- Chunk text keeps fenced code (it is searchable) but drops %% comments %%; `extraction_text`
  drops comments, fenced code and inline code, and keeps the file's line numbering (removed
  spans leave their line breaks behind, frontmatter lines are left blank).
- A chunk's heading path starts with the note title: ("Note", "Heading", "Subheading"); text
  before the first heading is under ("Note",). A heading with no text of its own gives no chunk.
- Inline code spans end on the line where they start (multi-line spans are rare in notes).
- A `%%` without a closing `%%` comments out the rest of the note, as in Obsidian.
- Tasks are done when marked `[x]`/`[X]`; other marks such as `[/]` or `[-]` are open tasks.
- Tags and aliases are deduplicated case-insensitively, keeping the first spelling.
- `[[#Heading]]` links target the note itself (its path without .md).
"""
from __future__ import annotations

import posixpath
import re
from bisect import bisect_left
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator
from urllib.parse import unquote

import yaml

MAX_FRONTMATTER_CHARS = 64 * 1024
MAX_YAML_ALIASES = 8
MAX_YAML_DEPTH = 64
FAST_YAML_MAX_CHARS = 16 * 1024

CODE, COMMENT = "code", "comment"


@dataclass(frozen=True, slots=True)
class WikiLink:
    """A link or embed; `line` is 1-based in the original file."""

    target: str
    alias: str | None
    heading: str | None
    block: str | None
    embed: bool
    line: int


@dataclass(frozen=True, slots=True)
class Heading:
    level: int
    text: str
    line: int


@dataclass(frozen=True, slots=True)
class Task:
    text: str
    done: bool
    line: int


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of one section; lines are 1-based and inclusive in the original file."""

    heading_path: tuple[str, ...]
    text: str
    line_start: int
    line_end: int


@dataclass
class ParsedNote:
    """Everything the rest of Engram needs from one note."""

    path: str
    title: str
    frontmatter: dict[str, Any]
    frontmatter_error: str | None
    aliases: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    links: list[WikiLink] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)
    block_ids: list[str] = field(default_factory=list)
    tasks: list[Task] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    dates: dict[str, datetime] = field(default_factory=dict)
    extraction_text: str = ""


# ---------------------------------------------------------------------------- the whole note


def parse_note(path: str, text: str, *, max_chunk_chars: int = 1200) -> ParsedNote:
    """Parse one note's text; `path` is vault-relative with forward slashes."""
    if max_chunk_chars < 1:
        raise ValueError(f"max_chunk_chars must be at least 1, not {max_chunk_chars}")
    title = note_title(path)
    fm_source, body_text, offset = split_frontmatter(_normalise_newlines(text))
    frontmatter, fm_error = ({}, None) if fm_source is None else load_frontmatter(fm_source, offset)
    body = _Body.of(body_text, offset)
    headings = _headings(body)
    return ParsedNote(
        path=path,
        title=title,
        frontmatter=frontmatter,
        frontmatter_error=fm_error,
        aliases=_unique(_strings(_first_key(frontmatter, "aliases", "alias"))),
        tags=_unique(_frontmatter_tags(frontmatter) + _inline_tags(body.masked)),
        links=sorted(_wikilinks(body, _strip_md(path)) + _markdown_links(body), key=_line),
        headings=headings,
        block_ids=_unique(_block_ids(body.masked)),
        tasks=_tasks(body),
        chunks=_chunks(body, headings, title, max_chunk_chars),
        dates=frontmatter_dates(frontmatter),
        extraction_text=body.extraction_text(),
    )


@dataclass
class _Body:
    """A note body with its code and comments located, and a map from offsets to file lines."""

    text: str
    offset: int  # file lines before the body (the frontmatter)
    newlines: list[int]
    regions: list[tuple[int, int, str]]
    masked: str  # code and comments blanked out, same length and offsets as `text`
    lined: str  # "\n" + masked: line-start patterns can then begin with a literal "\n" (fast)
    readable_lines: list[str]  # the body's lines with comments removed

    @classmethod
    def of(cls, text: str, offset: int) -> _Body:
        newlines = [m.start() for m in _NEWLINE.finditer(text)]
        regions = find_code_and_comments(text, newlines)
        masked = _replace_regions(text, regions, _blank, (CODE, COMMENT))
        readable = _replace_regions(text, regions, _keep_breaks, (COMMENT,))
        return cls(text, offset, newlines, regions, masked, "\n" + masked, readable.split("\n"))

    def extraction_text(self) -> str:
        """Body without code and comments, preceded by blank lines standing for the frontmatter."""
        return "\n" * self.offset + _replace_regions(self.text, self.regions, _keep_breaks, (CODE, COMMENT))

    def line_of(self, offset: int) -> int:
        """1-based file line of a body offset."""
        return self.offset + 1 + bisect_left(self.newlines, offset)

    def readable_line(self, line: int) -> str:
        """A file line of the body, comments removed but inline code kept."""
        return self.readable_lines[line - self.offset - 1]


def note_title(path: str) -> str:
    """The note's title: its file name without the .md extension."""
    name = posixpath.basename(path)
    return name[:-3] if name.lower().endswith(".md") else posixpath.splitext(name)[0] or name


def _normalise_newlines(text: str) -> str:
    text = text.removeprefix("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


_NEWLINE = re.compile("\n")

# ---------------------------------------------------------------------------- frontmatter

_FM_OPEN = re.compile(r"---[ \t]*\n")
_FM_CLOSE = re.compile(r"\n---[ \t]*(?=\n|\Z)")


def split_frontmatter(text: str) -> tuple[str | None, str, int]:
    """Return (frontmatter source or None, body, number of file lines before the body)."""
    opening = _FM_OPEN.match(text)
    closing = _FM_CLOSE.search(text, opening.end() - 1) if opening else None
    if closing is None:
        return None, text, 0
    end = closing.end() + 1 if closing.end() < len(text) else closing.end()
    return text[opening.end() : closing.start() + 1], text[end:], text.count("\n", 0, end)


def load_frontmatter(source: str, lines: int) -> tuple[dict[str, Any], str | None]:
    """Load frontmatter YAML defensively; return (mapping, error naming the line or None)."""
    where = f"frontmatter (lines 1-{lines})"
    if len(source) > MAX_FRONTMATTER_CHARS:
        return {}, f"{where} too large: {len(source)} characters, limit {MAX_FRONTMATTER_CHARS}"
    if _flow_depth(source) > MAX_YAML_DEPTH:
        return {}, f"{where} nested more than {MAX_YAML_DEPTH} levels deep"
    try:
        data = yaml.load(source, Loader=_loader_for(source))  # noqa: S506 - both are safe loaders
    except yaml.MarkedYAMLError as exc:
        return {}, _yaml_error_message(exc, where)
    except Exception as exc:  # hostile YAML may raise ValueError, RecursionError, …
        return {}, f"invalid YAML {where}: {type(exc).__name__}: {exc}"
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return {}, f"{where} is a {type(data).__name__}, not a mapping of properties"
    return data, None


def _yaml_error_message(exc: yaml.MarkedYAMLError, where: str) -> str:
    """'invalid YAML frontmatter at line N: problem (context at line M)', in file lines."""
    problem, context = exc.problem_mark, exc.context_mark
    message = f"invalid YAML frontmatter at line {problem.line + 2}" if problem else f"invalid YAML {where}"
    message += f": {exc.problem or exc.context}"
    if exc.context and context and exc.problem:
        message += f" ({exc.context} at line {context.line + 2})"
    return message


_FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_COMPACT_NESTING = re.compile(r"(?:[-?][ \t]+){8}")  # "- - - - …" nests a level per dash


def _loader_for(source: str) -> type:
    """libyaml for small plain YAML; else the pure-Python guarded loader.

    libyaml is several times faster, but cannot count aliases and its C composer overflows the
    stack on deeply nested input (a segfault, not an exception); Python raises RecursionError.
    """
    plain = "&" not in source and len(source) <= FAST_YAML_MAX_CHARS and not _COMPACT_NESTING.search(source)
    return _FAST_LOADER if plain else _GuardedLoader

_FLOW_BRACKET = re.compile(r"[\[\]{}]")


def _flow_depth(source: str) -> int:
    """Deepest nesting of flow brackets (libyaml's C composer overflows the stack on deep nests)."""
    if source.count("[") + source.count("{") <= MAX_YAML_DEPTH:
        return 0
    depth = deepest = 0
    for m in _FLOW_BRACKET.finditer(source):
        depth = depth + 1 if m[0] in "[{" else max(depth - 1, 0)
        deepest = max(deepest, depth)
    return deepest


class _GuardedLoader(yaml.SafeLoader):
    """SafeLoader that refuses recursive aliases and more than a handful of aliases."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._aliases = 0
        self._open_anchors: set[str] = set()

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_YAML_ALIASES:
                problem = f"more than {MAX_YAML_ALIASES} aliases (possible alias bomb)"
                raise yaml.composer.ComposerError(None, None, problem, event.start_mark)
            if event.anchor in self._open_anchors:
                raise yaml.composer.ComposerError(None, None, "recursive alias", event.start_mark)
            return super().compose_node(parent, index)
        anchor = getattr(event, "anchor", None)
        if anchor is None:
            return super().compose_node(parent, index)
        self._open_anchors.add(anchor)
        try:
            return super().compose_node(parent, index)
        finally:
            self._open_anchors.discard(anchor)


def _first_key(frontmatter: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if frontmatter.get(key) is not None:
            return frontmatter[key]
    return None


def _strings(value: Any) -> list[str]:
    """Non-empty strings from a scalar or a (flat) list; nested mappings are ignored."""
    items = value if isinstance(value, (list, tuple, set)) else [value]
    out = []
    for item in items:
        if item is None or isinstance(item, (bool, dict, list, tuple, set)):
            continue
        text = str(item).strip()
        if text:
            out.append(text)
    return out


_TAG_SEPARATORS = re.compile(r"[,\s]+")


def _frontmatter_tags(frontmatter: dict[str, Any]) -> list[str]:
    tags = []
    for item in _strings(_first_key(frontmatter, "tags", "tag")):
        for word in _TAG_SEPARATORS.split(item):
            tag = word.lstrip("#").strip("/")
            if _is_tag(tag):
                tags.append(tag)
    return tags


_DATE_KEYS = {
    "date": "date",
    "created": "created",
    "createdat": "created",
    "creationdate": "created",
    "datecreated": "created",
    "updated": "updated",
    "updatedat": "updated",
    "dateupdated": "updated",
    "lastupdated": "updated",
    "modified": "modified",
    "modifiedat": "modified",
    "datemodified": "modified",
    "lastmodified": "modified",
}
_KEY_NOISE = re.compile(r"[\s_-]+")
_SLASH_DATE = re.compile(r"\d{4}/\d{1,2}/\d{1,2}")


def frontmatter_dates(frontmatter: dict[str, Any]) -> dict[str, datetime]:
    """UTC dates under canonical keys date/created/updated/modified; unreadable values are skipped."""
    dates: dict[str, datetime] = {}
    for key, value in frontmatter.items():
        canonical = _DATE_KEYS.get(_KEY_NOISE.sub("", str(key).lower()))
        if canonical and canonical not in dates and (when := _as_datetime(value)) is not None:
            dates[canonical] = when
    return dates


def _as_datetime(value: Any) -> datetime | None:
    """A UTC-aware datetime from a YAML date, datetime or ISO string (naive means UTC)."""
    if isinstance(value, str):
        value = value.strip()
        if _SLASH_DATE.fullmatch(value):
            value = "-".join(part.zfill(2) for part in value.split("/"))
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None
    if isinstance(value, datetime):
        try:
            return value.astimezone(timezone.utc) if value.tzinfo else value.replace(tzinfo=timezone.utc)
        except OverflowError:  # year 1 or 9999 shifted out of range
            return None
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
    return None


# ---------------------------------------------------------------------------- code and comments

# Patterns start with a literal character where possible: the regex engine then scans fast.
_TOKEN = re.compile(r"``*|~~~~*|%%")
_TICK_RUN = re.compile(r"``*")
_FENCE_PREFIX = re.compile(r"[ \t>]*")


@lru_cache(maxsize=64)
def _closing_fence(char: str, length: int) -> re.Pattern[str]:
    return re.compile(rf"\n[ \t>]*{char}{{{length},}}[ \t]*(?=\n|\Z)")


def find_code_and_comments(body: str, newlines: list[int]) -> list[tuple[int, int, str]]:
    """Sorted (start, end, kind) spans of fenced code, inline code and %% comments %%."""
    regions: list[tuple[int, int, str]] = []
    runs: dict[int, list[int]] | None = None
    pos = 0
    while m := _TOKEN.search(body, pos):
        end = m.end()
        if m[0] == "%%":
            closing = body.find("%%", end)
            end = closing + 2 if closing >= 0 else len(body)
            regions.append((m.start(), end, COMMENT))
        elif fence := _fence(body, m, newlines):
            regions.append(fence)
            end = fence[1]
        elif m[0][0] == "`":
            runs = _tick_runs(body) if runs is None else runs
            if code_end := _inline_code_end(body, m, runs, newlines):
                regions.append((m.start(), code_end, CODE))
                end = code_end
        pos = end
    return regions


def _line_bounds(body: str, offset: int, newlines: list[int]) -> tuple[int, int]:
    line = bisect_left(newlines, offset)
    return (newlines[line - 1] + 1 if line else 0), (newlines[line] if line < len(newlines) else len(body))


def _fence(body: str, m: re.Match[str], newlines: list[int]) -> tuple[int, int, str] | None:
    """The fenced code block opened by the run `m`, if it opens one (also inside > quotes)."""
    run = m[0]
    if len(run) < 3:
        return None
    line_start, line_end = _line_bounds(body, m.start(), newlines)
    if _FENCE_PREFIX.match(body, line_start).end() < m.start():
        return None
    if run[0] == "`" and body.find("`", m.end(), line_end) >= 0:
        return None  # ```x``` at the start of a line is inline code
    closing = _closing_fence(run[0], len(run)).search(body, line_end)
    return line_start, (closing.end() if closing else len(body)), CODE


def _tick_runs(body: str) -> dict[int, list[int]]:
    """Start offsets of every backtick run, by run length."""
    runs: dict[int, list[int]] = {}
    for m in _TICK_RUN.finditer(body):
        runs.setdefault(m.end() - m.start(), []).append(m.start())
    return runs


def _inline_code_end(body: str, m: re.Match[str], runs: dict[int, list[int]], newlines: list[int]) -> int:
    """End of the code span opened by the backtick run `m` on its own line, or 0 if none."""
    same = runs[len(m[0])]
    i = bisect_left(same, m.end())
    if i < len(same) and same[i] < _line_bounds(body, m.start(), newlines)[1]:
        return same[i] + len(m[0])
    return 0


def _blank(segment: str) -> str:
    return "\n".join(" " * len(part) for part in segment.split("\n"))


def _keep_breaks(segment: str) -> str:
    breaks = segment.count("\n")
    return "\n" * breaks if breaks else " "


def _replace_regions(
    body: str, regions: list[tuple[int, int, str]], replace: Callable[[str], str], kinds: tuple[str, ...]
) -> str:
    """The body with the regions of the given kinds replaced."""
    parts, last = [], 0
    for start, end, kind in regions:
        if kind in kinds:
            parts += [body[last:start], replace(body[start:end])]
            last = end
    parts.append(body[last:])
    return "".join(parts)


# ---------------------------------------------------------------------------- links, tags, blocks

_WIKILINK = re.compile(r"\[\[([^\[\]\n]+)\]\]")
_MD_LINK = re.compile(r"\[([^\[\]\n]*)\]\(([^()\n]+)\)")
_LINK_TITLE = re.compile(r"""\s+(?:"[^"]*"|'[^']*')$""")
_URL_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
# Obsidian's tag characters: anything but whitespace and punctuation (CJK punctuation included).
_TAG_CHARS = (
    r"""[^\s!"#$%&'()*+,.:;<=>?@\[\\\]^`{|}~"""
    r"\u2000-\u206f\u2e00-\u2e7f\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]"
)
_TAG = re.compile(rf"#({_TAG_CHARS}+)")
_NUMERIC_TAG = re.compile(r"[\d/]*")
_BLOCK_ID = re.compile(r"\^([A-Za-z0-9-]+)[ \t]*$", re.M)


def _is_tag(tag: str) -> bool:
    return bool(tag) and not _NUMERIC_TAG.fullmatch(tag)


def _after_space(text: str, offset: int) -> bool:
    return offset == 0 or text[offset - 1].isspace()


def _inline_tags(masked: str) -> list[str]:
    """#tags that start a word (so not URL anchors, not [[Note#Heading]]) and are not numbers."""
    tags = (m[1].strip("/") for m in _TAG.finditer(masked) if _after_space(masked, m.start()))
    return [tag for tag in tags if _is_tag(tag)]


def _block_ids(masked: str) -> list[str]:
    return [m[1] for m in _BLOCK_ID.finditer(masked) if _after_space(masked, m.start())]


def _line(link: WikiLink) -> int:
    return link.line


def _is_embed(text: str, offset: int) -> bool:
    return offset > 0 and text[offset - 1] == "!"


def _wikilinks(body: _Body, self_target: str) -> list[WikiLink]:
    """[[wikilinks]] and ![[embeds]]; [[#Heading]] targets the note itself."""
    links = []
    for m in _WIKILINK.finditer(body.masked):
        inner, _, alias = m[1].partition("|")
        target, hash_sign, subpath = inner.removesuffix("\\").partition("#")  # [[a\|b]] in tables
        if not target.strip() and not hash_sign:
            continue
        heading, block = _subpath(subpath)
        embed = _is_embed(body.masked, m.start())
        target = target.strip() or self_target
        links.append(WikiLink(target, alias.strip() or None, heading, block, embed, body.line_of(m.start())))
    return links


def _subpath(subpath: str) -> tuple[str | None, str | None]:
    """(heading, block id) from the part of a link after '#'."""
    subpath = subpath.strip()
    if subpath.startswith("^"):
        return None, subpath[1:].strip() or None
    return subpath or None, None


def _markdown_links(body: _Body) -> list[WikiLink]:
    """Markdown links to local .md notes, and local embeds such as ![alt](image.png)."""
    links = []
    for m in _MD_LINK.finditer(body.masked):
        url = _LINK_TITLE.sub("", m[2].strip())
        if url.startswith("<") and url.endswith(">"):
            url = url[1:-1]
        if not url or url.startswith(("#", "//")) or _URL_SCHEME.match(url):
            continue
        file_part, _, fragment = url.partition("#")
        file_part = unquote(file_part).strip()
        embed = _is_embed(body.masked, m.start())
        if not (file_part.lower().endswith(".md") or (embed and file_part)):
            continue
        heading, block = _subpath(unquote(fragment))
        alias = m[1].strip() or None
        links.append(WikiLink(_strip_md(file_part), alias, heading, block, embed, body.line_of(m.start())))
    return links


# ---------------------------------------------------------------------------- headings and tasks

# Searched in "\n" + masked body, so a match starts at the "\n" before its line.
_HEADING = re.compile(r"\n {0,3}(#{1,6})[ \t]+([^\n]*)")
_HEADING_LINE = re.compile(r" {0,3}#{1,6}[ \t]+(.*)")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_TASK = re.compile(r"\n[ \t>]*(?:[-*+]|\d+[.)])[ \t]+\[([^\n])\]([ \t][^\n]*)?(?=\n|\Z)")
_TASK_LINE = re.compile(r"[ \t>]*(?:[-*+]|\d+[.)])[ \t]+\[.\](.*)")


def _headings(body: _Body) -> list[Heading]:
    """ATX headings outside code; their text is taken from the line with inline code kept."""
    headings = []
    for m in _HEADING.finditer(body.lined):
        line = body.line_of(m.start())
        full = _HEADING_LINE.match(body.readable_line(line))
        text = _CLOSING_HASHES.sub("", (full or m)[1 if full else 2]).strip()
        if text:
            headings.append(Heading(len(m[1]), text, line))
    return headings


def _tasks(body: _Body) -> list[Task]:
    """Checkbox list items outside code; a trailing ^block-id is left out of the text."""
    tasks = []
    for m in _TASK.finditer(body.lined):
        line = body.line_of(m.start())
        full = _TASK_LINE.match(body.readable_line(line))
        text = _BLOCK_ID.sub("", (full[1] if full else m[2]) or "").strip()
        tasks.append(Task(text, m[1] in "xX", line))
    return tasks


# ---------------------------------------------------------------------------- chunks

_SPLITTERS = (
    re.compile(r"\n[ \t]*\n\s*"),  # paragraphs
    re.compile(r"(?<=[.!?])[\"')\]]*\s+|[。！？；]+[”’」』）]*\s*"),  # sentences
    re.compile(r"\s+|[，、：,;:]\s*"),  # words and clauses (Chinese has no spaces)
)


def _chunks(body: _Body, headings: list[Heading], title: str, limit: int) -> list[Chunk]:
    """Chunks per heading section, each section split to at most `limit` characters."""
    lines, chunks = body.readable_lines, []
    for first, last, path, has_heading in _sections(len(lines), headings, title, body.offset):
        if has_heading and not any(line.strip() for line in lines[first + 1 : last]):
            continue  # a heading with nothing under it
        heading_line = first + body.offset + 1
        section = _section_chunks("\n".join(lines[first:last]), path, heading_line, limit)
        if has_heading and len(section) > 1 and section[0].line_end == heading_line:
            section = section[1:]  # the heading line alone: the heading path already says it
        chunks += section
    return chunks


def _sections(
    line_count: int, headings: list[Heading], title: str, offset: int
) -> Iterator[tuple[int, int, tuple[str, ...], bool]]:
    """(first line index, end line index, heading path, starts with a heading) for each section."""
    starts = [h.line - offset - 1 for h in headings]
    if not starts or starts[0] > 0:
        yield 0, starts[0] if starts else line_count, (title,), False
    stack: list[Heading] = []
    for i, heading in enumerate(headings):
        while stack and stack[-1].level >= heading.level:
            stack.pop()
        stack.append(heading)
        end = starts[i + 1] if i + 1 < len(starts) else line_count
        yield starts[i], end, (title, *(h.text for h in stack)), True


def _section_chunks(text: str, path: tuple[str, ...], first_line: int, limit: int) -> list[Chunk]:
    newlines = [m.start() for m in _NEWLINE.finditer(text)]
    chunks = []
    for start, end in split_text(text, limit):
        piece = text[start:end]
        stripped = piece.strip()
        if not stripped:
            continue
        begin = start + len(piece) - len(piece.lstrip())
        finish = begin + len(stripped) - 1
        line_start = first_line + bisect_left(newlines, begin)
        chunks.append(Chunk(path, stripped, line_start, first_line + bisect_left(newlines, finish)))
    return chunks


def split_text(
    text: str, limit: int, start: int = 0, end: int | None = None, level: int = 0
) -> list[tuple[int, int]]:
    """Contiguous (start, end) pieces of at most `limit` characters, cut at the coarsest boundary."""
    end = len(text) if end is None else end
    if end - start <= limit:
        return [(start, end)]
    if level == len(_SPLITTERS):
        return [(i, min(i + limit, end)) for i in range(start, end, limit)]  # one huge "word"
    cuts = [m.end() for m in _SPLITTERS[level].finditer(text, start, end) if start < m.end() < end]
    pieces: list[tuple[int, int]] = []
    piece_start = unit_start = start
    for cut in cuts + [end]:
        if cut - piece_start > limit:
            if unit_start > piece_start:
                pieces.append((piece_start, unit_start))
                piece_start = unit_start
            if cut - unit_start > limit:
                pieces += split_text(text, limit, unit_start, cut, level + 1)
                piece_start = cut
        unit_start = cut
    if piece_start < end:
        pieces.append((piece_start, end))
    return pieces


# ---------------------------------------------------------------------------- link resolution


def resolve_link(target: str, titles: dict[str, list[str]], from_path: str) -> str | None:
    """Vault path a link points to, resolved as Obsidian does, or None when nothing matches.

    `titles` maps a lower-case note name (file stem; aliases too if wanted; attachments by full
    file name) to vault paths. An exact vault path wins, then a path relative to the linking note,
    then a path suffix; among same-name notes the one in the linking note's folder, then the one
    with the fewest folders, then the shortest.
    """
    key = _strip_md(target.strip().removeprefix("./").lstrip("/")).lower()
    if not key:
        return None
    name = key.rsplit("/", 1)[-1]
    candidates = titles.get(name, [])
    relative = posixpath.normpath(posixpath.join(posixpath.dirname(from_path), key)).lower()
    for wanted in (key, relative):
        exact = [p for p in candidates if _strip_md(p).lower() == wanted]
        if exact:
            return _closest(exact, from_path)
    if "/" in key:
        suffix = [p for p in candidates if _strip_md(p).lower().endswith("/" + key)]
        return _closest(suffix or titles.get(key, []), from_path)
    return _closest(candidates, from_path)


def _strip_md(path: str) -> str:
    return path[:-3] if path.lower().endswith(".md") else path


def _closest(paths: Iterable[str], from_path: str) -> str | None:
    """The path in from_path's folder, else the one with the fewest folders, then the shortest."""
    paths = list(paths)
    if not paths:
        return None
    folder = posixpath.dirname(from_path)
    same_folder = [p for p in paths if posixpath.dirname(p) == folder]
    return min(same_folder or paths, key=lambda p: (p.count("/"), len(p), p))


def _unique(items: Iterable[str]) -> list[str]:
    """Items in first-seen order without case-insensitive repeats."""
    seen: set[str] = set()
    out = []
    for item in items:
        if item.lower() not in seen:
            seen.add(item.lower())
            out.append(item)
    return out
