"""Dated statements in note lines, English and Chinese."""
from datetime import datetime, timezone

import pytest

from vault_sync.dated_facts import clean_line, dated_statements, heading_period
from vault_sync.parse import parse_note

UTC = timezone.utc
NOTE_DAY = datetime(2024, 5, 3, 9, 0, tzinfo=UTC)


def d(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text).replace(tzinfo=UTC) if text else None


# one line, the note's date, kind, valid_from, valid_until, fact text, date words
LINES = [
    ("- 2019–2022: studied at Leeds", None, "range", "2019-01-01", "2023-01-01", "studied at Leeds", "2019–2022"),
    ("2022-03 to 2026-01: designer at Blue Fern Agency", None, "range", "2022-03-01", "2026-02-01",
     "designer at Blue Fern Agency", "2022-03 to 2026-01"),
    ("From March 2023 to May 2024 I worked at [[Acme Corp]].", None, "range", "2023-03-01", "2024-06-01",
     "I worked at Acme Corp.", "March 2023 to May 2024"),
    ("2023年3月至2024年5月在北京工作", None, "range", "2023-03-01", "2024-06-01", "在北京工作", "2023年3月至2024年5月"),
    ("2021年至今 学习中文", None, "range", "2021-01-01", None, "学习中文", "2021年至今"),
    ("* 2019 - present: member of the chess club", None, "range", "2019-01-01", None,
     "member of the chess club", "2019 - present"),
    ("Since 1 February 2026: senior designer at **Northwind Studio**", None, "since", "2026-02-01", None,
     "senior designer at Northwind Studio", "1 February 2026"),
    ("As of 2024-09 the team uses Linear.", None, "since", "2024-09-01", None, "the team uses Linear.", "2024-09"),
    ("自2024年起在上海生活", None, "since", "2024-01-01", None, "在上海生活", "2024年"),
    ("从2023年3月开始学钢琴", None, "since", "2023-03-01", None, "学钢琴", "2023年3月"),
    ("I moved to Utrecht in March 2025.", None, "change", "2025-03-01", None, "I moved to Utrecht.", "March 2025"),
    ("在2025年3月搬到乌得勒支", None, "change", "2025-03-01", None, "搬到乌得勒支", "2025年3月"),
    ("Released version 2 on 3 May 2024", None, "event", "2024-05-03", "2024-05-04", "Released version 2", "3 May 2024"),
    ("We finally moved into the flat in Leeds two weeks ago", d("2024-06-20"), "change", "2024-06-06", None,
     "We finally moved into the flat in Leeds", "two weeks ago"),
    ("两周前我们终于搬进了利兹的公寓", d("2024-06-20"), "change", "2024-06-06", None, "我们终于搬进了利兹的公寓", "两周前"),
    ("Last week we shipped the beta", NOTE_DAY, "event", "2024-04-22", "2024-04-29", "we shipped the beta", "Last week"),
    ("上个月换了工作", NOTE_DAY, "change", "2024-04-01", None, "换了工作", "上个月"),
    ("- [ ] Submit report 📅 2026-04-24 ➕ 2026-04-01", None, "task", "2026-04-01", None, "Submit report",
     "📅 2026-04-24 ➕ 2026-04-01"),
    ("- [x] Ship v2 ⏫ ✅ 2026-04-20", None, "task_done", "2026-04-20", "2026-04-21", "Ship v2", "✅ 2026-04-20"),
    ("- [x] Ship v2 🛫 2026-03-02 ✅ 2026-04-20 📅 2026-04-24", None, "task_done", "2026-03-02", "2026-04-21",
     "Ship v2", "🛫 2026-03-02 ✅ 2026-04-20 📅 2026-04-24"),
    ("- [-] Old plan ❌ 2026-01-05 🔁 every week", None, "task_cancelled", "2026-01-05", "2026-01-06", "Old plan",
     "❌ 2026-01-05"),
    ("- [ ] Call the bank [due:: 2026-05-01] [created:: 2026-04-20]", None, "task", "2026-04-20", None,
     "Call the bank", "[due:: 2026-05-01] [created:: 2026-04-20]"),
    ("Met Bob on [[2024-05-02]]", None, "event", "2024-05-02", "2024-05-03", "Met Bob", "2024-05-02"),
]


@pytest.mark.parametrize("line,note_date,kind,start,until,text,words", LINES)
def test_one_line(line, note_date, kind, start, until, text, words):
    found = dated_statements(line, note_date=note_date)
    assert len(found) == 1, found
    s = found[0]
    assert (s.kind, s.valid_from, s.valid_until) == (kind, d(start), d(until))
    assert s.text == text
    assert s.words == words
    assert s.line == 1


def test_task_due_date_is_kept():
    s = dated_statements("- [ ] Submit report 📅 2026-04-24")[0]
    assert s.due == d("2026-04-24")
    assert s.valid_from == d("2026-04-24")  # nothing else dates it
    assert dated_statements("- [ ] Submit report 📅 2026-04-24", note_date=NOTE_DAY)[0].valid_from == NOTE_DAY


@pytest.mark.parametrize("line", [
    "See [[2021-09-04 View transclusions in edit mode]] for more",  # a titled note, not this line's date
    "Read https://example.com/2021-05-01/ now",
    "The regex matches an ISO 8601 date, such as 2022-01-01.",  # an example
    'It returns a string such as "2025-12-31 00:00:00".',
    "* [Tomorrow Night Bright](https://github.com/x/y) is very dark.",  # a theme's name
    'Tasks added "created today" to the menu',
    "Gems of the Year 2021",
    "To export choose OneNote 2010-2016 Section in step 4.",
    "yesterday I met Anna",  # no date to resolve against
    "",
    "- [ ] a task with a bad date 📅 2023-02-30",
])
def test_lines_without_a_dated_fact(line):
    assert dated_statements(line) == []
    if "yesterday" not in line:
        assert dated_statements(line, note_date=NOTE_DAY) == []


JOURNAL = """---
tags: [journal]
date: 2020-01-01
---
# Journal

## 2024-05-03
- met Anna for lunch
- yesterday's call with Bob went well
### Evening
- read a book

## Friday, 10 May 2024
- dentist
- [x] paid the invoice

## Notes
- nothing dated here

## 2024
- moved to Leeds

## 2024年5月
- 开始学日语
# 2022-07-23: Boolean Task Queries
- a bullet under a titled dated heading
"""


def test_dated_headings_date_the_lines_below_them():
    found = {s.line: s for s in dated_statements(JOURNAL)}
    assert [(s.line, s.kind) for s in found.values()] == [
        (8, "heading"), (9, "event"), (11, "heading"), (14, "heading"), (15, "heading"), (21, "change"),
        (24, "change"), (25, "event")]
    assert (found[8].valid_from, found[8].valid_until, found[8].text) == (d("2024-05-03"), d("2024-05-04"),
                                                                          "met Anna for lunch")
    assert found[9].valid_from == d("2024-05-02")  # "yesterday" under the 2024-05-03 heading
    assert found[11].valid_from == d("2024-05-03")  # a sub-heading keeps its parent's day
    assert found[14].valid_from == d("2024-05-10") and found[14].words == "10 May 2024"
    assert (found[21].valid_from, found[21].valid_until) == (d("2024-01-01"), None)  # a move starts a state
    assert found[24].valid_from == d("2024-05-01")
    assert found[25].text == "Boolean Task Queries"  # the titled heading itself, not its bullets


def test_frontmatter_lines_are_not_read():
    assert all(s.line > 4 for s in dated_statements(JOURNAL))


def test_line_numbers_follow_parse_note_extraction_text():
    note = "---\ncreated: 2024-05-03\n---\n\n```\n2019-2022: inside code\n```\nSince 2021: outside code\n"
    found = dated_statements(parse_note("n.md", note).extraction_text)
    assert [(s.line, s.kind, s.text) for s in found] == [(8, "since", "outside code")]


def test_daily_note_lines_are_events_of_the_day():
    note = "- went for a run\n- [[Project X]] meeting\n- started at Northwind today\n\n| a | b |\n- ok\n"
    found = dated_statements(note, note_date=NOTE_DAY, daily=True)
    assert [(s.line, s.kind, s.valid_from, s.valid_until) for s in found] == [
        (1, "daily", d("2024-05-03"), d("2024-05-04")),
        (2, "daily", d("2024-05-03"), d("2024-05-04")),
        (3, "change", d("2024-05-03"), None),
    ]
    assert found[1].text == "Project X meeting"
    assert dated_statements(note, note_date=None, daily=True) == []


def test_two_sentences_two_facts():
    found = dated_statements("Last week we released the beta. Yesterday I met Anna.", note_date=NOTE_DAY)
    assert [(s.words, s.text) for s in found] == [("Last week", "we released the beta."), ("Yesterday", "I met Anna.")]


def test_clean_line_keeps_link_text_and_drops_urls():
    plain = clean_line("- [ ] see [docs](https://x.org/2020-01-01) and [[Note|alias]] <b>now</b> **bold**")
    assert plain.text == "see docs and alias now bold"
    assert plain.box == " "


def test_heading_period_only_for_date_only_headings():
    assert heading_period("2024-05-03")[0].start == d("2024-05-03")
    assert heading_period("Monday, 6 May 2024")[0].start == d("2024-05-06")
    assert heading_period("2024")[0].granularity == "year"
    assert heading_period("2024-05-03: a trip") is None
    assert heading_period("Plans") is None


@pytest.mark.parametrize("text", ["", "\n\n", "---\n", "---\nx: [\n---\n- 2019-2022 x", "#" * 300, "2023-02-30: x",
                                  "- 99999-01-01: x", "📅" * 100, "- [ ] 📅 2024-05-03", "自" * 1000 + "年起"])
def test_broken_notes_never_raise(text):
    for found in (dated_statements(text), dated_statements(text, note_date=NOTE_DAY, daily=True)):
        assert all(s.valid_until is None or s.valid_until > s.valid_from for s in found)


def test_a_paragraph_wrapped_over_lines_is_one_statement():
    text = "# Tomás\n\nGrew up in Lisbon and moved to the\nNetherlands in 2019. Loves football.\n\n- a list item\n- Since 2021: coach"
    found = dated_statements(text)
    moved = next(s for s in found if "Netherlands" in s.text)
    assert moved.text.startswith("Grew up in Lisbon and moved to the Netherlands") and moved.line == 3
    assert moved.valid_from.year == 2019
    coach = next(s for s in found if "coach" in s.text)
    assert coach.line == 7 and coach.kind == "since"


def test_lines_of_a_block_that_each_end_their_statement_stay_apart():
    text = "### remark\n\nMIT License\nCopyright (c) 2014-2020 Titus Wormer\nCopyright (c) 2011-2014, Christopher Jeffrey\n"
    found = sorted((s.line, s.valid_from.year, s.valid_until.year) for s in dated_statements(text))
    assert found == [(4, 2014, 2021), (5, 2011, 2015)]
