"""Date words in English and Chinese, resolved against a reference moment; time in a question."""
from datetime import datetime, timezone

import pytest

from memory.when import find_dates, question_time, resolve

UTC = timezone.utc
THU = datetime(2024, 6, 20, 15, 30, tzinfo=UTC)  # Thursday, summer


def d(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


# text, reference, words found, start, end (exclusive), granularity
MENTIONS = [
    ("We finally moved into the flat in Leeds two weeks ago", THU, "two weeks ago", "2024-06-06", "2024-06-07", "week"),
    ("yesterday", THU, "yesterday", "2024-06-19", "2024-06-20", "day"),
    ("the day before yesterday", THU, "the day before yesterday", "2024-06-18", "2024-06-19", "day"),
    ("see you tomorrow", THU, "tomorrow", "2024-06-21", "2024-06-22", "day"),
    ("last week", THU, "last week", "2024-06-10", "2024-06-17", "week"),
    ("this month", THU, "this month", "2024-06-01", "2024-07-01", "month"),
    ("next year", THU, "next year", "2025-01-01", "2026-01-01", "year"),
    ("what did I do last March", THU, "last March", "2024-03-01", "2024-04-01", "month"),
    ("last June", THU, "last June", "2023-06-01", "2023-07-01", "month"),
    ("next Friday", THU, "next Friday", "2024-06-28", "2024-06-29", "day"),
    ("last Friday", THU, "last Friday", "2024-06-14", "2024-06-15", "day"),
    ("last Thursday", THU, "last Thursday", "2024-06-13", "2024-06-14", "day"),
    ("this summer", THU, "this summer", "2024-06-01", "2024-09-01", "season"),
    ("last summer", THU, "last summer", "2023-06-01", "2023-09-01", "season"),
    ("last summer", d("2024-10-02"), "last summer", "2024-06-01", "2024-09-01", "season"),
    ("this winter", d("2025-01-15"), "this winter", "2024-12-01", "2025-03-01", "season"),
    ("last winter", d("2025-01-15"), "last winter", "2023-12-01", "2024-03-01", "season"),
    ("three months ago", d("2024-05-31"), "three months ago", "2024-02-29", "2024-03-01", "month"),
    ("a couple of days ago", THU, "a couple of days ago", "2024-06-18", "2024-06-19", "day"),
    ("in 3 days", THU, "in 3 days", "2024-06-23", "2024-06-24", "day"),
    ("in 2024", None, "2024", "2024-01-01", "2025-01-01", "year"),
    ("since mid-2019", None, "2019", "2019-01-01", "2020-01-01", "year"),
    ("moved to Utrecht in March 2025", None, "March 2025", "2025-03-01", "2025-04-01", "month"),
    ("Since 1 February 2026: senior designer", None, "1 February 2026", "2026-02-01", "2026-02-02", "day"),
    ("on May 3rd, 2024 we met", None, "May 3rd, 2024", "2024-05-03", "2024-05-04", "day"),
    ("summer of 2021", None, "summer of 2021", "2021-06-01", "2021-09-01", "season"),
    ("2024-05-03T14:22:00Z", None, "2024-05-03T14:22:00Z", "2024-05-03", "2024-05-04", "day"),
    ("2022-03", None, "2022-03", "2022-03-01", "2022-04-01", "month"),
    ("31/12/2023", None, "31/12/2023", "2023-12-31", "2024-01-01", "day"),
    ("3.5.2024", None, "3.5.2024", "2024-05-03", "2024-05-04", "day"),
    ("去年", THU, "去年", "2023-01-01", "2024-01-01", "year"),
    ("上个月换了工作", THU, "上个月", "2024-05-01", "2024-06-01", "month"),
    ("上周我见了谁", THU, "上周", "2024-06-10", "2024-06-17", "week"),
    ("两周前", THU, "两周前", "2024-06-06", "2024-06-07", "week"),
    ("昨天", THU, "昨天", "2024-06-19", "2024-06-20", "day"),
    ("前天", THU, "前天", "2024-06-18", "2024-06-19", "day"),
    ("去年夏天去了海边", THU, "去年夏天", "2023-06-01", "2023-09-01", "season"),
    ("三天前", THU, "三天前", "2024-06-17", "2024-06-18", "day"),
    ("十五天后", THU, "十五天后", "2024-07-05", "2024-07-06", "day"),
    ("半年前", THU, "半年前", "2023-12-20", "2023-12-21", "month"),
    ("下周五开会", THU, "下周五", "2024-06-28", "2024-06-29", "day"),
    ("上周五", THU, "上周五", "2024-06-14", "2024-06-15", "day"),
    ("去年三月", THU, "去年三月", "2023-03-01", "2023-04-01", "month"),
    ("3月5日开会", THU, "3月5日", "2024-03-05", "2024-03-06", "day"),
    ("在2025年3月搬到乌得勒支", None, "2025年3月", "2025-03-01", "2025-04-01", "month"),
    ("2024年5月3日", None, "2024年5月3日", "2024-05-03", "2024-05-04", "day"),
    ("二〇二四年三月", None, "二〇二四年三月", "2024-03-01", "2024-04-01", "month"),
    ("2021年春天", None, "2021年春天", "2021-03-01", "2021-06-01", "season"),
    ("自2024年起", None, "2024年", "2024-01-01", "2025-01-01", "year"),
]


@pytest.mark.parametrize("text,ref,words,start,end,granularity", MENTIONS)
def test_mentions_resolve_to_periods(text, ref, words, start, end, granularity):
    found = find_dates(text, ref)
    assert [m.words for m in found] == [words]
    period = found[0].period
    assert (period.start, period.end, period.granularity) == (d(start), d(end), granularity)
    assert text[found[0].start:found[0].end] == words
    assert period.start.tzinfo is not None


@pytest.mark.parametrize("text,words", [
    ("2019–2022: studied", ["2019", "2022"]),
    ("2022-03 to 2026-01: designer at Blue Fern Agency", ["2022-03", "2026-01"]),
    ("from March 2023 to May 2024", ["March 2023", "May 2024"]),
    ("2023年3月至2024年5月", ["2023年3月", "2024年5月"]),
    ("Copyright (c) 2014-2020 Titus Wormer", ["2014", "2020"]),
])
def test_both_ends_of_a_range_are_found(text, words):
    assert [m.words for m in find_dates(text)] == words


@pytest.mark.parametrize("text", [
    "", "   ", "Gems of the Year 2021", "Set the max connections to 2048", "this may be of interest",
    "2023-02-30", "2023-13-01", "99999999999 days ago", "10000 years ago", "over a week ago",
    "files created in the last week", "Insider 0.15.7", "OneNote 2010-2016 Section", "9" * 5000,
    "年" * 2000, "上" * 500 + "周", "on Friday", "0000-00-00", "9999-12-31 plus 1",
])
def test_not_dates_and_broken_input_find_nothing_and_never_raise(text):
    found = find_dates(text, THU)
    assert all(1000 <= m.period.start.year <= 2999 for m in found)
    if text.strip() and not text.startswith(("9999", "上")):
        assert found == []


def test_relative_words_need_a_reference():
    assert find_dates("yesterday and 上个月") == []
    assert [m.words for m in find_dates("yesterday and 上个月", THU)] == ["yesterday", "上个月"]
    assert all(m.relative for m in find_dates("yesterday", THU))
    assert not find_dates("2024-05-03", THU)[0].relative


def test_naive_reference_is_taken_as_utc():
    assert find_dates("yesterday", datetime(2024, 6, 20, 23, 0))[0].period.start == d("2024-06-19")


def test_resolve_accepts_only_pure_date_words():
    assert resolve("2024年3月").start == d("2024-03-01")
    assert resolve("last March", THU).end == d("2024-04-01")
    assert resolve("moved in 2024") is None
    assert resolve("") is None


# question, now, start, end (None = open), words, query left
QUESTIONS = [
    ("what did I do last March", THU, "2024-03-01", "2024-04-01", "last March", "what did I do"),
    ("where did I live in 2024?", THU, "2024-01-01", "2025-01-01", "2024", "where did I live?"),
    ("what happened in March 2025", THU, "2025-03-01", "2025-04-01", "March 2025", "what happened"),
    ("who did I meet last summer", THU, "2023-06-01", "2023-09-01", "last summer", "who did I meet"),
    ("what changed since 2023", THU, "2023-01-01", None, "2023", "what changed"),
    ("where did I work before 2020", THU, None, "2020-01-01", "2020", "where did I work"),
    ("between 2019 and 2021 where was I", THU, "2019-01-01", "2022-01-01", "2019 and 2021", "where was I"),
    ("上周我见了谁", THU, "2024-06-10", "2024-06-17", "上周", "我见了谁"),
    ("去年我住在哪里", THU, "2023-01-01", "2024-01-01", "去年", "我住在哪里"),
    ("去年夏天去了哪里", THU, "2023-06-01", "2023-09-01", "去年夏天", "去了哪里"),
    ("2023年以来我做了什么", THU, "2023-01-01", None, "2023年以来", "我做了什么"),
    ("2020年以前在哪工作", THU, None, "2020-01-01", "2020年以前", "在哪工作"),
    ("what did I do last March", d("2022-01-10"), "2021-03-01", "2021-04-01", "last March", "what did I do"),
]


@pytest.mark.parametrize("question,now,start,end,words,rest", QUESTIONS)
def test_question_time(question, now, start, end, words, rest):
    asked = question_time(question, now)
    assert asked is not None
    assert asked.start == (d(start) if start else None)
    assert asked.end == (d(end) if end else None)
    assert asked.words == words
    assert asked.query == rest


def test_question_without_time_is_none():
    assert question_time("where do I work", THU) is None
    assert question_time("", THU) is None


def test_asked_period_overlap():
    asked = question_time("in 2024", THU)
    assert asked.overlaps(d("2023-05-01"), None)  # open-ended, started before
    assert asked.overlaps(d("2024-12-31"), d("2025-01-01"))
    assert not asked.overlaps(d("2025-01-01"), None)
    assert not asked.overlaps(d("2020-01-01"), d("2024-01-01"))


def test_a_bare_month_after_a_preposition_is_the_latest_such_month():
    assert [(m.words, m.period.start) for m in find_dates("Since March I've been freelancing", THU)][0][0] == "Since March"
    march = find_dates("in March", THU)[0].period
    assert march.start <= THU and march.start.month == 3 and march.granularity == "month"
    assert not find_dates("you may go", THU) and not find_dates("this may be of interest", THU)


@pytest.mark.parametrize("text, words", [
    ("what was my tuesday evening thing back in march?", "back in march"),  # chat writes it in lower case
    ("been freelancing since september", "since september"),
    ("where did i live in may", "in may"),
])
def test_a_bare_month_in_lower_case_is_a_month(text, words):
    (mention,) = find_dates(text, THU)
    assert mention.words == words and mention.period.granularity == "month" and mention.period.start <= THU


@pytest.mark.parametrize("text", ["in may be a problem", "the band will march on regardless", "we may be late"])
def test_a_lower_case_month_word_that_is_a_verb_is_no_month(text):
    assert not find_dates(text, THU)


@pytest.mark.parametrize("text, start, end", [
    ("While I am in Lisbon (12–17 May 2026) Lena waters.", "2026-05-12", "2026-05-18"),
    ("Conference May 3-5, 2025, Berlin", "2025-05-03", "2025-05-06"),
])
def test_a_range_of_days_in_one_month(text, start, end):
    (mention,) = find_dates(text)
    assert (mention.period.start.date().isoformat(), mention.period.end.date().isoformat()) == (start, end)


@pytest.mark.parametrize("text, expected", [
    ("Reminder: I am taking Christmas off. See y'all in January!", "2023-01-01"),
    ("The next book club will take place in February.", "2023-02-01"),
    ("I expect to have some extra time in January when my son starts daycare.", "2023-01-01"),
    ("There was a lot of fantastic content created in October.", "2022-10-01"),
    ("We went to Lisbon in January.", "2022-01-01"),
])
def test_a_bare_month_in_the_future_tense_is_the_next_such_month(text, expected):
    written = d("2022-12-17")
    (mention,) = find_dates(text, written)
    assert mention.period.start.date().isoformat() == expected
