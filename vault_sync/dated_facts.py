"""Dated statements in note lines: ranges, starts, points, Tasks-plugin dates, dated headings, daily bullets.

Pure: text in, DatedStatement values out. Choices worth knowing:
- Input is a note with code and comments removed and its file line numbering kept
  (`ParsedNote.extraction_text`); a leading frontmatter block, if still there, is skipped.
- One statement per sentence at most, from its first date construct.
- Dates inside URLs and inside wikilinks to titled notes (`[[2021-09-04 Roundup]]`) are not the
  line's own dates; a link to a daily note (`[[2024-05-03]]`) is.
- A heading that is only a date (`## 2024-05-03`, `### March 2025`, `## Friday, 3 May 2024`)
  dates the lines below it up to the next heading of the same or a higher level; a dated heading
  with a title (`# 2022-07-23: Boolean queries`) is a statement itself and dates nothing else.
- Relative words ("yesterday", "上个月") resolve against the heading's day, else the note's date;
  without either they are not read.
- Kinds and their intervals ([valid_from, valid_until), None = open):
  range       "2019-2022: …", "from March 2023 to May 2024", "2021年至今"  start of first .. end of second
  since       "since …", "as of …", "自2024年起"                            start .. open
  change      a point with a verb that starts a state ("moved to", "joined", "搬到")  start .. open
  event       any other point ("released in March 2025")                    the period named
  heading     a line under a date-only heading                             the heading's period
  daily       a line of a daily note with no date of its own               the note's day
  task, task_done, task_cancelled   Tasks-plugin lines (📅 due, ✅ done, ❌ cancelled, ➕ created,
              🛫 start, ⏳ scheduled, or their dataview fields): from ➕/🛫/⏳, else the note's or
              heading's day, else the earliest date on the line; until the day after ✅/❌, else open.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from memory.clock import ensure_utc
from memory.when import Mention, Period, day, find_dates, may_hold_dates, resolve, year

KINDS = ("range", "since", "change", "event", "heading", "daily", "task", "task_done", "task_cancelled")


@dataclass(frozen=True, slots=True)
class DatedStatement:
    """A fact from one note line with its world-time interval."""

    line: int  # 1-based, in the note file
    text: str  # the fact: markdown and the date words removed
    valid_from: datetime
    valid_until: datetime | None
    kind: str
    words: str  # the date words as written
    granularity: str
    due: datetime | None = None  # Tasks 📅


# ---------------------------------------------------------------------------- markdown to plain text

_INLINE = re.compile(
    r"!\[\[[^\]\n]*\]\]"
    r"|\[\[(?P<wt>[^\]|\n]*)(?:\|(?P<wa>[^\]\n]*))?\]\]"
    r"|!\[[^\]\n]*\]\([^)\n]*\)"
    r"|\[(?P<lt>[^\]\n]*)\]\([^)\n]*\)"
    r"|(?P<url>(?:https?://|www\.)\S+)"
    r"|</?[A-Za-z][^>\n]*>"
    r"|\*\*|__|~~|=="
    r"|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])"
)
_LEAD_MARKUP = re.compile(r"^\s*(?:>\s*)*(?:(?:[-*+]|\d{1,3}[.)])\s+)?(?:\[(?P<box>.)\]\s+)?")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^\s*(?:>\s*)*(?:[-*+]|\d{1,3}[.)])\s+\S")


@dataclass(frozen=True, slots=True)
class PlainLine:
    """A note line as plain text, with the spans whose dates are not the line's own."""

    text: str
    blocked: list[tuple[int, int]]  # titled wikilinks: no date counts
    link_text: list[tuple[int, int]]  # markdown link text: only absolute dates count ("Tomorrow Night" theme)
    box: str | None  # the task checkbox mark


def clean_line(line: str) -> PlainLine:
    """Markdown removed: list and task markers, emphasis, links (their text kept), URLs and HTML tags."""
    lead = _LEAD_MARKUP.match(line)
    box = lead["box"] if lead else None
    body = line[lead.end():] if lead else line
    out: list[str] = []
    blocked: list[tuple[int, int]] = []
    link_text: list[tuple[int, int]] = []
    size = 0
    last = 0
    for m in _INLINE.finditer(body):
        piece = body[last:m.start()]
        out.append(piece)
        size += len(piece)
        last = m.end()
        shown = ""
        if m["wt"] is not None:
            target = m["wt"]
            shown = m["wa"] if m["wa"] else re.split(r"[#^]", target, maxsplit=1)[0].rsplit("/", 1)[-1] or target.lstrip("#^")
            if resolve(shown) is None:
                blocked.append((size, size + len(shown)))
        elif m["lt"] is not None:
            shown = m["lt"]
            link_text.append((size, size + len(shown)))
        out.append(shown)
        size += len(shown)
    out.append(body[last:])
    return PlainLine("".join(out), blocked, link_text, box)


# ---------------------------------------------------------------------------- one sentence

_RANGE_GAP = re.compile(r"\s*(?:-|–|—|~|～|to|until|till|through|thru|and|至|到|—|－)\s*", re.IGNORECASE)
_OPEN_END = re.compile(
    r"\s*(?:(?:-|–|—|~|～|to|until|till|through)\s*(?:the\s+)?(?:present|now|today|current|date|ongoing)\b|(?:至今|到现在|到今天|迄今|-\s*至今|—\s*至今|–\s*至今))",
    re.IGNORECASE)
_LEAD_WORDS = re.compile(
    r"(?:\b(?P<en>since|as\s+of|starting(?:\s+(?:from|on|in))?|effective(?:\s+from)?|from|between|in|on|during|at|around|by|circa|c\.|early|mid|late|back\s+in)[\s-]+(?:the\s+)?|(?P<zh>自从|自|从|在|于))$",
    re.IGNORECASE)
_TRAIL_ZH = re.compile(r"\s*(?P<zh>起|以来|开始|至今)")
_SINCE_EN = {"since", "as of", "starting", "starting from", "starting on", "starting in", "effective",
             "effective from"}
_CHANGE = re.compile(
    r"\b(?:moved|relocated|(?:started|began)\s+(?:at|as|with|working|work|studying|living|a\s+new|my\s+new|to\s+work)|joined|became|"
    r"got\s+(?:married|engaged|a\s+job|hired|promoted)|married|promoted|hired|switched|took\s+over|"
    r"adopted|founded|now\s+(?:live|work|lives|works))\b"
    r"|搬到|搬进|搬去|搬家|迁到|迁居|加入|入职|开始|成为|当上|结婚|升职|升为|换了工作|换工作|转到|调到|住进|定居",
    re.IGNORECASE)
_SENTENCE = re.compile(r".+?(?:(?<=[.!?])\s+(?=[A-Z\"“(\[])|[。！？；;]\s*|$)", re.DOTALL)
_LEFTOVER_LEAD = re.compile(r"^(?:[\s:：,，;；\-–—)\]]|['’]s\b)+")
_LEFTOVER_TRAIL = re.compile(r"[\s:：,，;；\-–—(\[]+$")


@dataclass(frozen=True, slots=True)
class _Found:
    kind: str
    start: datetime
    until: datetime | None
    words: str
    granularity: str
    text: str


def _sentence_fact(sentence: str, mentions: list[Mention]) -> _Found | None:
    """The dated fact of one sentence, from its first date construct."""
    first = mentions[0]
    cut_from, cut_to = first.start, first.end
    start, until, kind = first.period.start, first.period.end, "event"
    granularity = first.period.granularity
    open_end = _OPEN_END.match(sentence, first.end)
    if open_end:
        kind, until, cut_to = "range", None, open_end.end()
    elif len(mentions) > 1 and _RANGE_GAP.fullmatch(sentence, first.end, mentions[1].start):
        second = mentions[1]
        if second.period.end > start:
            kind, until, cut_to = "range", second.period.end, second.end
    lead = _LEAD_WORDS.search(sentence, 0, cut_from)
    if lead:
        word = " ".join((lead["en"] or lead["zh"]).lower().split())
        if kind != "range" and (word in _SINCE_EN or word in ("自从", "自")):
            kind, until = "since", None
        cut_from = lead.start()
    trail = _TRAIL_ZH.match(sentence, cut_to)
    if trail:
        if kind != "range" and trail["zh"] in ("起", "以来", "开始"):
            kind, until = "since", None
        elif trail["zh"] == "至今":
            kind, until = "range", None
        cut_to = trail.end()
    before = _LEFTOVER_TRAIL.sub("", sentence[:cut_from])
    after = _LEFTOVER_LEAD.sub("", sentence[cut_to:])
    joiner = "" if _is_cjk_edge(before[-1:]) or _is_cjk_edge(after[:1]) or after[:1] in ".,;!?'’" else " "
    text = (before + joiner + after).strip() if before and after else (before or after).strip()
    if kind == "event" and _CHANGE.search(sentence):
        kind, until = "change", None
    words = sentence[first.start:cut_to].strip() if kind == "range" else first.words
    return _Found(kind, start, until, words, granularity, text)


def _is_cjk_edge(ch: str) -> bool:
    return bool(ch) and "\u3000" <= ch <= "\u9fff"


# ---------------------------------------------------------------------------- Tasks plugin

_TASK_DATE = re.compile(
    r"(?P<emoji>📅|✅|➕|⏳|🛫|❌)\ufe0f?\s*(?P<date>\d{4}-\d{2}-\d{2})"
    r"|\[(?P<field>due|completion|created|start|scheduled|cancelled)::\s*(?P<fdate>\d{4}-\d{2}-\d{2})\s*\]")
_TASK_EMOJI = re.compile("[📅✅➕⏳🛫❌]")
_TASK_NOISE = re.compile(r"🔁[^📅✅➕⏳🛫❌⏫🔼🔽🔺⏬🆔⛔\n]*|🆔\s*\S+|⛔\s*\S+|[⏫🔼🔽🔺⏬]\ufe0f?")
_TASK_FIELD = {"📅": "due", "✅": "done", "➕": "created", "⏳": "scheduled", "🛫": "start", "❌": "cancelled",
               "due": "due", "completion": "done", "created": "created", "start": "start",
               "scheduled": "scheduled", "cancelled": "cancelled"}


def _task(line_no: int, text: str, default_from: datetime | None) -> DatedStatement | None:
    dates: dict[str, Period] = {}
    words: list[str] = []
    for m in _TASK_DATE.finditer(text):
        field = _TASK_FIELD[m["emoji"] or m["field"]]
        period = resolve(m["date"] or m["fdate"])
        if period is not None and field not in dates:
            dates[field] = period
            words.append(m.group())
    if not dates:
        return None
    fact = re.sub(r"\s{2,}", " ", _TASK_NOISE.sub("", _TASK_DATE.sub("", text))).strip()
    closed = dates.get("done") or dates.get("cancelled")
    opened = next((dates[k].start for k in ("created", "start", "scheduled") if k in dates), None)
    if opened is None:
        opened = default_from if default_from is not None else min(p.start for p in dates.values())
    if closed is not None:
        opened = min(opened, closed.start)
    kind = "task_done" if "done" in dates else "task_cancelled" if "cancelled" in dates else "task"
    due = dates["due"].start if "due" in dates else None
    return DatedStatement(line_no, fact, opened, closed.end if closed else None, kind, " ".join(words), "day", due)


# ---------------------------------------------------------------------------- a whole note

_FRONTMATTER = re.compile(r"\A---[ \t]*\n.*?\n---[ \t]*(?:\n|\Z)", re.DOTALL)
_WEEKDAY_WORDS = re.compile(
    r"\b(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|rsday|urday)?\b|星期[一二三四五六日天]|周[一二三四五六日天]|礼拜[一二三四五六日天]",
    re.IGNORECASE)
_BARE_YEAR = re.compile(r"\s*(1\d{3}|2\d{3})\s*年?\s*")
_WORDY = re.compile(r"[A-Za-z\u00c0-\u024f\u3040-\u30ff\u4e00-\u9fff]")


@dataclass
class _Context:
    level: int
    period: Period
    words: str


def heading_period(text: str, ref: datetime | None = None) -> tuple[Period, str] | None:
    """The period of a heading that is nothing but a date (and perhaps a weekday), with its words."""
    if (bare := _BARE_YEAR.fullmatch(text)) is not None:
        try:
            return year(int(bare[1])), text.strip()
        except ValueError:
            return None
    mentions = find_dates(text, ref)
    if len(mentions) != 1:
        return None
    rest = text[:mentions[0].start] + text[mentions[0].end:]
    if _WORDY.search(_WEEKDAY_WORDS.sub("", rest)):
        return None
    return mentions[0].period, mentions[0].words


def _joined_paragraphs(lines: list[str], first: int) -> list[str]:
    """A paragraph wrapped over several lines read as one line (at its first line; the others left empty):
    "moved to the⏎Netherlands in 2019" is one statement. List items, headings, tables and quotes stay lines."""
    out = list(lines)
    head = None  # index of the paragraph line the next plain line continues
    for index in range(first, len(lines)):
        line = lines[index]
        stripped = line.strip()
        block = (not stripped or _HEADING.match(line) or _ITEM.match(line) or stripped.startswith(("|", ">", "```", "~~~"))
                 or line.startswith(("    ", "\t")))
        if head is not None and not block and _continues(lines[index - 1], stripped):
            out[head] = f"{out[head].rstrip()} {stripped}"
            out[index] = ""
            continue
        head = None if block and not _ITEM.match(line) else index
    return out


_SENTENCE_GOES_ON = re.compile(r"(?:[,;(\-–—]|\b(?:the|a|an|to|in|of|and|or|but|at|on|for|with|from|since|until|by|into|my|our"
                               r"|his|her|their|its|this|that|was|were|is|are|been|have|has|had))$", re.IGNORECASE)


def _continues(previous: str, line: str) -> bool:
    """Whether `line` goes on with the sentence of `previous` (a wrapped line), rather than a new line of its
    own such as the next "Copyright (c) 2013-2020 …" of a licence block."""
    if previous.endswith("  "):  # markdown's hard line break
        return False
    return line[:1].islower() or _SENTENCE_GOES_ON.search(previous.rstrip()) is not None


def dated_statements(text: str, *, note_date: datetime | None = None, daily: bool = False) -> list[DatedStatement]:
    """Every dated statement of a note; `note_date` resolves relative words and dates a daily note's lines."""
    if not text:
        return []
    note_date = ensure_utc(note_date) if note_date is not None else None
    tasks = "::" in text or _TASK_EMOJI.search(text) is not None
    if not (daily and note_date) and not tasks and not may_hold_dates(text, note_date is not None):
        return []
    note_day = day(note_date.year, note_date.month, note_date.day) if note_date is not None else None
    skip = _FRONTMATTER.match(text)
    first_line = text.count("\n", 0, skip.end()) if skip else 0
    lines = _joined_paragraphs(text.split("\n"), first_line)
    contexts: list[_Context] = []
    out: list[DatedStatement] = []
    for index in range(first_line, len(lines)):
        raw = lines[index]
        if not raw.strip():
            continue
        line_no = index + 1
        heading = _HEADING.match(raw)
        if heading:
            level = len(heading[1])
            while contexts and contexts[-1].level >= level:
                contexts.pop()
            if not may_hold_dates(heading[2], note_date is not None):
                continue
            plain = clean_line(heading[2])
            dated = heading_period(plain.text, note_date)
            if dated is not None:
                contexts.append(_Context(level, dated[0], dated[1]))
                continue
            out.extend(_line_facts(line_no, plain, note_date))
            continue
        context = contexts[-1] if contexts else None
        ref = context.period.start if context and context.period.granularity == "day" else note_date
        if context is None and not (daily and note_day) and not may_hold_dates(raw, ref is not None) \
                and not (tasks and _TASK_DATE.search(raw)):
            continue
        if tasks and _TASK_DATE.search(raw):
            default_from = context.period.start if context else note_day.start if daily and note_day else note_date
            task = _task(line_no, clean_line(raw).text, default_from)
            if task is not None:
                out.append(task)
                continue
        plain = clean_line(raw)
        facts = _line_facts(line_no, plain, ref)
        if facts:
            out.extend(facts)
            continue
        if raw.lstrip().startswith("|") or len(_WORDY.findall(plain.text)) < 3:
            continue
        if context is not None:
            p = context.period
            out.append(_dated_line(line_no, plain.text, p, "heading", context.words))
        elif daily and note_day is not None:
            out.append(_dated_line(line_no, plain.text, note_day, "daily", note_date.date().isoformat()))
    return out


def _dated_line(line_no: int, plain: str, period: Period, kind: str, words: str) -> DatedStatement:
    """A line dated by its heading or its daily note; a line that starts a state stays open."""
    text = plain.strip()
    if _CHANGE.search(text):
        return DatedStatement(line_no, text, period.start, None, "change", words, period.granularity)
    return DatedStatement(line_no, text, period.start, period.end, kind, words, period.granularity)


_QUOTED = re.compile(r"\"[^\"\n]{1,80}\"|“[^”\n]{1,80}”|「[^」\n]{1,80}」")
_EXAMPLE = re.compile(r"\b(?:for\s+example|for\s+instance|e\.\s?g\.|such\s+as|example)\b|例如|比如|举例|示例", re.IGNORECASE)


def _own_mention(m: Mention, plain: PlainLine, quoted: list[tuple[int, int]]) -> bool:
    """False for dates in titled links and quotes, and for relative words in link text."""
    def inside(spans: list[tuple[int, int]]) -> bool:
        return any(s < m.end and m.start < e for s, e in spans)
    return not (inside(plain.blocked) or inside(quoted) or (m.relative and inside(plain.link_text)))


def _line_facts(line_no: int, plain: PlainLine, ref: datetime | None) -> list[DatedStatement]:
    mentions = find_dates(plain.text, ref)
    if not mentions:
        return []
    quoted = [q.span() for q in _QUOTED.finditer(plain.text)]
    mentions = [m for m in mentions if _own_mention(m, plain, quoted)]
    out = []
    for sentence in _SENTENCE.finditer(plain.text):
        s0, s1 = sentence.span()
        if _EXAMPLE.search(sentence.group()):  # "such as 2022-01-01" is an example, not a fact
            continue
        inside = [Mention(m.start - s0, m.end - s0, m.words, m.period, m.relative)
                  for m in mentions if s0 <= m.start and m.end <= s1]
        if not inside:
            continue
        found = _sentence_fact(sentence.group(), inside)
        if found is not None and _WORDY.search(found.text):
            out.append(DatedStatement(line_no, found.text, found.start, found.until, found.kind,
                                      found.words, found.granularity))
    return out

