"""Dates in text, English and Chinese: absolute and relative expressions resolved to UTC periods.

Choices worth knowing:
- A period is half-open: [start, end). Days, weeks, months and years are UTC calendar units;
  weeks start on Monday. Seasons are meteorological and northern: spring March-May, summer
  June-August, autumn September-November, winter December to February of the next year.
- Relative words need a reference moment; without one they are not reported.
- "N days/weeks/months/years ago" is the single day N units back (its granularity says how
  rough it is): "two weeks ago" sent on 2024-06-20 is 2024-06-06.
- "last Friday" is the latest Friday before today; "this Friday" the Friday of this week; "next
  Friday" the Friday of next week (as 下周五). "last March" / "last summer" is the latest one that
  began before the current month / season began.
- A bare year counts only with a word that makes it a date ("in 2024", "since 2019", "2019-2022",
  "2019:" at the start of a line); "Gems of the Year 2021" or "2048 connections" are not dates.
- Year-less dates ("in March", "on Friday") are left alone, except Chinese "3月5日", which takes
  the reference's year.
- Impossible dates (2023-02-30), years outside 1000-2999 and absurd counts are skipped, never raised.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Callable

from .clock import ensure_utc

UTC = timezone.utc
GRANULARITIES = ("day", "week", "month", "season", "year")
MAX_COUNT = 5000  # "5000 days ago" is the most a relative count may say


@dataclass(frozen=True, slots=True)
class Period:
    """A stretch of world time, [start, end), and how precise the words that gave it were."""

    start: datetime
    end: datetime
    granularity: str


@dataclass(frozen=True, slots=True)
class Mention:
    """Date words found in a text: character span, the words as written, the period they denote."""

    start: int
    end: int
    words: str
    period: Period
    relative: bool


@dataclass(frozen=True, slots=True)
class QueryTime:
    """The time a question asks about; an open side is None. `query` is the question without it."""

    start: datetime | None
    end: datetime | None
    words: str
    granularity: str
    query: str

    def overlaps(self, start: datetime | None, end: datetime | None) -> bool:
        """True when [start, end) (None = open) meets the asked period."""
        if self.end is not None and start is not None and ensure_utc(start) >= self.end:
            return False
        return self.start is None or end is None or ensure_utc(end) > self.start


# ---------------------------------------------------------------------------- period builders


def day(year: int, month: int, day_: int, granularity: str = "day") -> Period:
    start = datetime(year, month, day_, tzinfo=UTC)
    return Period(start, start + timedelta(days=1), granularity)


def month(year: int, month_: int) -> Period:
    start = datetime(year, month_, 1, tzinfo=UTC)
    return Period(start, _add_months(start, 1), "month")


def year(year_: int) -> Period:
    return Period(datetime(year_, 1, 1, tzinfo=UTC), datetime(year_ + 1, 1, 1, tzinfo=UTC), "year")


def week_of(moment: datetime) -> Period:
    start = _midnight(moment) - timedelta(days=moment.weekday())
    return Period(start, start + timedelta(days=7), "week")


SEASON_START = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}


def season(year_: int, name: str) -> Period:
    start = datetime(year_, SEASON_START[name], 1, tzinfo=UTC)
    return Period(start, _add_months(start, 3), "season")


def _midnight(moment: datetime) -> datetime:
    return datetime(moment.year, moment.month, moment.day, tzinfo=UTC)


def _add_months(moment: datetime, count: int) -> datetime:
    index = moment.year * 12 + moment.month - 1 + count
    return moment.replace(year=index // 12, month=index % 12 + 1, day=1)


def _season_containing(moment: datetime) -> Period:
    m = moment.month
    start_month = 12 if m == 12 else (m // 3) * 3 or 12
    start_year = moment.year - 1 if m < 3 else moment.year
    start = datetime(start_year, start_month, 1, tzinfo=UTC)
    return Period(start, _add_months(start, 3), "season")


def _shift_season(name: str, ref: datetime, step: int) -> Period:
    """The season `name` that is current (step 0), the last one before (-1), or the next one (+1)."""
    current = _season_containing(ref)
    here = season(ref.year, name)
    if ref.month < 3 and name == "winter":
        here = season(ref.year - 1, name)
    if step == 0:
        return current if current.start == here.start else here
    candidate = here
    while step < 0 and candidate.start >= current.start:
        candidate = season(candidate.start.year - 1, name)
    while step > 0 and candidate.start <= current.start:
        candidate = season(candidate.start.year + 1, name)
    return candidate


def _shift_month(month_: int, ref: datetime, step: int) -> Period:
    """The month `month_` of this year (0), the latest before this month (-1), the next after (+1)."""
    this_month = datetime(ref.year, ref.month, 1, tzinfo=UTC)
    candidate = month(ref.year, month_)
    if step < 0 and candidate.start >= this_month:
        candidate = month(ref.year - 1, month_)
    if step > 0 and candidate.start <= this_month:
        candidate = month(ref.year + 1, month_)
    return candidate


# ---------------------------------------------------------------------------- vocabulary

MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
    "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}
WEEKDAYS = {"monday": 0, "mon": 0, "tuesday": 1, "tue": 1, "tues": 1, "wednesday": 2, "wed": 2,
            "thursday": 3, "thu": 3, "thur": 3, "thurs": 3, "friday": 4, "fri": 4, "saturday": 5,
            "sat": 5, "sunday": 6, "sun": 6}
NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
                "a couple of": 2, "couple of": 2, "a couple": 2}
ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "俩": 2, "三": 3, "四": 4, "五": 5, "六": 6,
             "七": 7, "八": 8, "九": 9}
ZH_SEASONS = {"春": "spring", "夏": "summer", "秋": "autumn", "冬": "winter"}
ZH_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6,
               "1": 0, "2": 1, "3": 2, "4": 3, "5": 4, "6": 5, "7": 6}

_MONTH = r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
_WEEKDAY = r"(?P<wd>mon(?:day)?|tue(?:s|sday)?|wed(?:nesday)?|thu(?:r|rs|rsday)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)"
_SEASON = r"(?P<season>spring|summer|autumn|fall|winter)"
_YEAR = r"(?P<y>1\d{3}|2\d{3})"
_ORD = r"(?:st|nd|rd|th)?"
_COUNT_EN = r"(?P<n>\d{1,6}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|(?:a\s+)?couple(?:\s+of)?)"
_ZH_NUM = r"(?P<n>\d{1,6}|[零〇一二两俩三四五六七八九十百]+|半)"
_NOT_DIGIT_BEFORE = r"(?<![0-9A-Za-z/.\-])"
_NOT_DIGIT_AFTER = r"(?![0-9])"
#: words before a bare year that make it a date
YEAR_CONTEXT = r"(?:in|during|since|from|until|till|by|before|after|around|circa|c\.|early|mid|late|end\s+of|start\s+of|beginning\s+of|as\s+of|between|through)"


def _zh_number(text: str) -> float | None:
    """Chinese or Arabic numerals up to the thousands; 半 is 0.5."""
    if text.isdigit():
        return int(text)
    if text == "半":
        return 0.5
    total, current = 0, 0
    for ch in text:
        if ch in ZH_DIGITS:
            current = ZH_DIGITS[ch]
        elif ch == "十":
            total += (current or 1) * 10
            current = 0
        elif ch == "百":
            total += (current or 1) * 100
            current = 0
        else:
            return None
    return total + current


def _zh_year(text: str) -> int | None:
    """2024 or 二〇二四."""
    if text.isdigit():
        return int(text)
    digits = [ZH_DIGITS.get(ch) for ch in text]
    return None if None in digits else int("".join(map(str, digits)))


def _count(text: str) -> float | None:
    text = re.sub(r"\s+", " ", text.lower().strip())
    if text.isdigit():
        return int(text)
    return NUMBER_WORDS.get(text)


# ---------------------------------------------------------------------------- patterns

Resolver = Callable[[re.Match, "datetime | None"], "Period | None"]


@dataclass(frozen=True, slots=True)
class _Pattern:
    regex: re.Pattern
    resolve: Resolver
    relative: bool
    chinese: bool


_PATTERNS: list[_Pattern] = []
_CJK = re.compile(r"[\u3000-\u9fff]")


def _pattern(regex: str, *, relative: bool = False, flags: int = re.IGNORECASE):
    def register(resolve: Resolver) -> Resolver:
        _PATTERNS.append(_Pattern(re.compile(regex, flags), resolve, relative, bool(_CJK.search(regex))))
        return resolve
    return register


# --- absolute, numeric
@_pattern(_NOT_DIGIT_BEFORE + r"(?P<y>\d{4})(?P<sep>[-/.])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?" + _NOT_DIGIT_AFTER)
def _iso_day(m, ref):
    return day(int(m["y"]), int(m["m"]), int(m["d"]))


@_pattern(_NOT_DIGIT_BEFORE + r"(?P<y>\d{4})-(?P<m>\d{2})(?![0-9\-])")
def _iso_month(m, ref):
    return month(int(m["y"]), int(m["m"]))


@_pattern(_NOT_DIGIT_BEFORE + r"(?P<a>\d{1,2})(?P<sep>[./])(?P<b>\d{1,2})(?P=sep)(?P<y>\d{4})" + _NOT_DIGIT_AFTER)
def _numeric_day(m, ref):
    """d.m.yyyy (European); with slashes only when the order is unambiguous."""
    a, b, y = int(m["a"]), int(m["b"]), int(m["y"])
    if m["sep"] == "." or a > 12:
        return day(y, b, a)
    if b > 12:
        return day(y, a, b)
    return None


# --- absolute, English words
@_pattern(r"\b(?P<d>\d{1,2})" + _ORD + r"\s+(?:of\s+)?" + _MONTH + r",?\s+" + _YEAR + r"\b")
def _day_month_year(m, ref):
    return day(int(m["y"]), MONTHS[m["mon"].lower().rstrip(".")], int(m["d"]))


@_pattern(r"\b(?P<d1>\d{1,2})" + _ORD + r"\s*[-–—]\s*(?P<d>\d{1,2})" + _ORD + r"\s+(?:of\s+)?" + _MONTH + r",?\s+"
          + _YEAR + r"\b")
def _day_range_month_year(m, ref):
    """12–17 May 2026: the days from the first to the last, both included."""
    mon, y = MONTHS[m["mon"].lower().rstrip(".")], int(m["y"])
    first, last = day(y, mon, int(m["d1"])), day(y, mon, int(m["d"]))
    return Period(first.start, last.end, "day") if first.start < last.start else None


@_pattern(r"\b" + _MONTH + r"\s+(?P<d1>\d{1,2})" + _ORD + r"\s*[-–—]\s*(?P<d>\d{1,2})" + _ORD + r",?\s+" + _YEAR + r"\b")
def _month_day_range_year(m, ref):
    """May 12–17, 2026."""
    return _day_range_month_year(m, ref)


@_pattern(r"\b" + _MONTH + r"\s+(?P<d>\d{1,2})" + _ORD + r",?\s+" + _YEAR + r"\b")
def _month_day_year(m, ref):
    return day(int(m["y"]), MONTHS[m["mon"].lower().rstrip(".")], int(m["d"]))


@_pattern(r"\b" + _MONTH + r",?\s+(?:of\s+)?" + _YEAR + r"\b")
def _month_year(m, ref):
    return month(int(m["y"]), MONTHS[m["mon"].lower().rstrip(".")])


@_pattern(r"\b" + _SEASON + r"\s+(?:of\s+)?" + _YEAR + r"\b")
def _season_year(m, ref):
    return season(int(m["y"]), m["season"].lower())


@_pattern(r"\b" + YEAR_CONTEXT + r"[\s-]+(?:the\s+year\s+)?(?P<date>" + _YEAR + r")\b(?![-/.]\d)")
def _year_in_context(m, ref):
    return year(int(m["y"]))


_NAME_BEFORE = re.compile(r"\b[A-Z][A-Za-z]+\s+$")
_NAME_AFTER = re.compile(r"\s*[-–—~]\s*\d{4}\s+[A-Z]")
_NAME_AFTER_END = re.compile(r"\s+[A-Z]")


@_pattern(r"(?:^|(?<=[\s(\[]))" + _YEAR + r"(?=\s*(?:[-–—~]|to\b|until\b|till\b|through\b)\s*(?:1\d{3}|2\d{3})\b)")
def _year_before_range(m, ref):
    if _NAME_BEFORE.search(m.string, max(0, m.start() - 30), m.start()) and _NAME_AFTER.match(m.string, m.end()):
        return None  # "OneNote 2010-2016 Section" names a product
    return year(int(m["y"]))


@_pattern(r"\b(?:1\d{3}|2\d{3})\s*(?:[-–—~]|to\b|until\b|till\b|through\b|and\b)\s*(?P<date>" + _YEAR + r")\b(?![-/.]\d)")
def _year_after_range(m, ref):
    if _NAME_BEFORE.search(m.string, max(0, m.start() - 30), m.start()) and _NAME_AFTER_END.match(m.string, m.end()):
        return None
    return year(int(m["y"]))


@_pattern(r"^(?P<y>1\d{3}|2\d{3})(?=\s*[:：]|\s+[-–—]\s)", flags=re.MULTILINE)
def _year_label(m, ref):
    return year(int(m["y"]))


# --- absolute, Chinese
_ZH_YEAR = r"(?P<y>\d{4}|[零〇一二三四五六七八九]{4})\s*年"


@_pattern(_NOT_DIGIT_BEFORE + _ZH_YEAR + r"\s*(?P<m>\d{1,2}|[一二三四五六七八九十]{1,2})\s*月\s*(?P<d>\d{1,2}|[一二三四五六七八九十]{1,3})\s*[日号號]")
def _zh_day(m, ref):
    y, mo, d = _zh_year(m["y"]), _zh_number(m["m"]), _zh_number(m["d"])
    return day(y, int(mo), int(d)) if y and mo and d else None


@_pattern(_NOT_DIGIT_BEFORE + _ZH_YEAR + r"\s*(?P<m>\d{1,2}|[一二三四五六七八九十]{1,2})\s*月(?!\s*\d{1,2}\s*[日号])")
def _zh_month(m, ref):
    y, mo = _zh_year(m["y"]), _zh_number(m["m"])
    return month(y, int(mo)) if y and mo else None


@_pattern(_NOT_DIGIT_BEFORE + _ZH_YEAR + r"(?!\s*(?:\d{1,2}|[一二三四五六七八九十]{1,2})\s*月)(?!的?[春夏秋冬])")
def _zh_year_only(m, ref):
    y = _zh_year(m["y"])
    return year(y) if y else None


@_pattern(_NOT_DIGIT_BEFORE + _ZH_YEAR + r"的?(?P<s>[春夏秋冬])(?:天|季)")
def _zh_season_year(m, ref):
    y = _zh_year(m["y"])
    return season(y, ZH_SEASONS[m["s"]]) if y else None


# --- relative, English
@_pattern(r"\b(?P<w>the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|yesterday|today|tomorrow|tonight|last\s+night|this\s+morning|this\s+afternoon|this\s+evening)\b", relative=True)
def _named_day(m, ref):
    word = " ".join(m["w"].lower().split())
    shift = {"the day before yesterday": -2, "yesterday": -1, "last night": -1,
             "tomorrow": 1, "the day after tomorrow": 2}.get(word, 0)
    start = _midnight(ref) + timedelta(days=shift)
    return Period(start, start + timedelta(days=1), "day")


_STEP = {"last": -1, "past": -1, "previous": -1, "this": 0, "current": 0, "next": 1, "coming": 1}


_ROLLING_BEFORE = re.compile(r"\bthe\s+$", re.IGNORECASE)


@_pattern(r"\b(?P<rel>last|this|next|previous|current|coming)\s+(?P<unit>week|month|year|weekend)\b", relative=True)
def _this_unit(m, ref):
    if _ROLLING_BEFORE.search(m.string, max(0, m.start() - 8), m.start()):  # "in the last week": a rolling window
        return None
    step, unit = _STEP[m["rel"].lower()], m["unit"].lower()
    if unit == "week":
        return week_of(ref + timedelta(days=7 * step))
    if unit == "weekend":
        saturday = week_of(ref + timedelta(days=7 * step)).start + timedelta(days=5)
        return Period(saturday, saturday + timedelta(days=2), "day")
    if unit == "month":
        start = _add_months(datetime(ref.year, ref.month, 1, tzinfo=UTC), step)
        return month(start.year, start.month)
    return year(ref.year + step)


@_pattern(r"\b(?P<rel>last|this|next|coming)\s+" + _WEEKDAY + r"\b", relative=True)
def _this_weekday(m, ref):
    step, wd = _STEP[m["rel"].lower()], WEEKDAYS[m["wd"].lower()]
    today = _midnight(ref)
    if step < 0:
        back = (today.weekday() - wd) % 7 or 7
        start = today - timedelta(days=back)
    else:
        start = week_of(ref + timedelta(days=7 * step)).start + timedelta(days=wd)
    return Period(start, start + timedelta(days=1), "day")


@_pattern(r"\b(?P<rel>last|this|next|coming)\s+" + _MONTH + r"(?!\s*\d)", relative=True)
def _this_month_name(m, ref):
    if m["mon"] == "may":  # "this may be of interest"
        return None
    return _shift_month(MONTHS[m["mon"].lower().rstrip(".")], ref, _STEP[m["rel"].lower()])


@_pattern(r"\b(?:in|since|from|until|till|by|as of|starting|back in|early|late|mid-?)\s+(?P<mon>(?-i:January|February"
          r"|March|April|May|June|July|August|September|October|November|December)"
          # chat writes the month in lower case: "back in march", "since september" (not "may be", "march on")
          r"|(?-i:january|february|april|june|july|august|september|october|november|december"
          r"|march(?!\s+(?:on|past|through|to|in|of)\b)|may(?!\s+(?:be|have|not|i|we|you|it|as|well|also|need)\b)))"
          r"(?!\s*\d)", relative=True)
def _bare_month_name(m, ref):
    """"since March", "in May": the latest such month up to now (a month name alone says no year);
    said in the future tense ("see you in January", "will take place in February"), the next one."""
    wanted = MONTHS[m["mon"].lower()[:3]] if m["mon"].lower()[:3] in MONTHS else MONTHS[m["mon"].lower()]
    latest = month(ref.year, wanted)
    if latest.start > ref:
        latest = month(ref.year - 1, wanted)
    if _FUTURE_TENSE.search(_sentence_around(m.string, m.start(), m.end())) and latest.end <= ref:
        return month(latest.start.year + 1, wanted)
    return latest


_FUTURE_TENSE = re.compile(r"\b(?:will|shall|won't|going to|gonna|plan(?:ning)? to|expect(?:ing)? to|hope to"
                           r"|see (?:you|y'all|everyone)|upcoming|next)\b|\w'll\b", re.IGNORECASE)


def _sentence_around(text: str, start: int, end: int) -> str:
    """The sentence holding text[start:end]."""
    before = max(text.rfind(mark, 0, start) for mark in ".!?\n")
    after = [i for i in (text.find(mark, end) for mark in ".!?\n") if i >= 0]
    return text[before + 1 : min(after, default=len(text))]


@_pattern(r"\b(?P<rel>last|this|next|coming)\s+" + _SEASON + r"\b", relative=True)
def _this_season(m, ref):
    return _shift_season(m["season"].lower(), ref, _STEP[m["rel"].lower()])


_HEDGE_BEFORE = re.compile(r"\b(?:over|more\s+than|less\s+than|within|at\s+least|up\s+to|almost|nearly)\s+$", re.IGNORECASE)


@_pattern(r"\b" + _COUNT_EN + r"\s+(?P<unit>day|week|month|year)s?\s+(?P<dir>ago|before|earlier|back)\b", relative=True)
def _units_ago(m, ref):
    if _HEDGE_BEFORE.search(m.string, max(0, m.start() - 16), m.start()):  # "over a week ago" is not a day
        return None
    return _units_from(ref, _count(m["n"]), m["unit"].lower(), -1)


@_pattern(r"\bin\s+" + _COUNT_EN + r"\s+(?P<unit>day|week|month|year)s?(?:'|’)?\s*(?:time)?\b", relative=True)
def _in_units(m, ref):
    return _units_from(ref, _count(m["n"]), m["unit"].lower(), 1)


def _units_from(ref: datetime, count: float | None, unit: str, sign: int) -> Period | None:
    if count is None or count > MAX_COUNT:
        return None
    base = _midnight(ref)
    if unit in ("day", "week"):
        start = base + timedelta(days=sign * count * (7 if unit == "week" else 1))
        start = _midnight(start)
    else:
        months = round(sign * count * (12 if unit == "year" else 1))
        target = _add_months(base, months)
        last_day = (_add_months(target, 1) - timedelta(days=1)).day
        start = target.replace(day=min(ref.day, last_day))
    return Period(start, start + timedelta(days=1), unit)


# --- relative, Chinese
@_pattern(r"(?P<w>大前天|前天|昨天|昨日|昨晚|今天|今日|今晚|今早|明天|明日|后天|大后天)", relative=True, flags=0)
def _zh_named_day(m, ref):
    shift = {"大前天": -3, "前天": -2, "昨天": -1, "昨日": -1, "昨晚": -1, "明天": 1, "明日": 1,
             "后天": 2, "大后天": 3}.get(m["w"], 0)
    start = _midnight(ref) + timedelta(days=shift)
    return Period(start, start + timedelta(days=1), "day")


_ZH_STEP = {"上上": -2, "上": -1, "这": 0, "本": 0, "今": 0, "下": 1, "下下": 2}


@_pattern(r"(?P<rel>上上|下下|上|这|本|下)(?:个|一个)?(?P<unit>周|星期|礼拜|禮拜)(?P<wd>[一二三四五六日天1-7])?", relative=True, flags=0)
def _zh_week(m, ref):
    step = _ZH_STEP[m["rel"]]
    week = week_of(ref + timedelta(days=7 * step))
    if m["wd"]:
        start = week.start + timedelta(days=ZH_WEEKDAYS[m["wd"]])
        return Period(start, start + timedelta(days=1), "day")
    return week


@_pattern(r"(?P<rel>上上|下下|上|这|本|下)(?:个|一个)?月(?!\s*[初中底末份]?\s*\d)", relative=True, flags=0)
def _zh_month_rel(m, ref):
    start = _add_months(datetime(ref.year, ref.month, 1, tzinfo=UTC), _ZH_STEP[m["rel"]])
    return month(start.year, start.month)


_ZH_YEAR_WORDS = {"大前年": -3, "前年": -2, "去年": -1, "今年": 0, "明年": 1, "后年": 2, "大后年": 3}


@_pattern(r"(?P<yw>大前年|前年|去年|今年|明年|后年|大后年)(?:的)?(?:(?P<s>[春夏秋冬])(?:天|季)|(?P<m>\d{1,2}|[一二三四五六七八九十]{1,2})\s*月(?:\s*(?P<d>\d{1,2}|[一二三四五六七八九十]{1,3})\s*[日号])?)?", relative=True, flags=0)
def _zh_year_rel(m, ref):
    y = ref.year + _ZH_YEAR_WORDS[m["yw"]]
    if m["s"]:
        return season(y, ZH_SEASONS[m["s"]])
    if m["m"]:
        mo = int(_zh_number(m["m"]) or 0)
        if m["d"]:
            return day(y, mo, int(_zh_number(m["d"]) or 0))
        return month(y, mo)
    return year(y)


@_pattern(r"(?P<rel>这个|今年|这|今)(?P<s>[春夏秋冬])(?:天|季)", relative=True, flags=0)
def _zh_this_season(m, ref):
    return _shift_season(ZH_SEASONS[m["s"]], ref, 0)


@_pattern(r"(?<![年\d])(?P<m>\d{1,2})\s*月\s*(?P<d>\d{1,2})\s*[日号]", relative=True, flags=0)
def _zh_month_day(m, ref):
    return day(ref.year, int(m["m"]), int(m["d"]))


@_pattern(_ZH_NUM + r"\s*(?P<unit>天|日|周|个星期|星期|个礼拜|个月|年)(?:多)?(?P<dir>前|以前|之前|后|以后|之后)", relative=True, flags=0)
def _zh_units_ago(m, ref):
    unit = {"天": "day", "日": "day", "周": "week", "个星期": "week", "星期": "week", "个礼拜": "week",
            "个月": "month", "年": "year"}[m["unit"]]
    count = _zh_number(m["n"])
    if count is not None and count < 1 and unit in ("year", "month"):  # 半年 = 6 months, 半个月 = 15 days
        unit, count = ("month", count * 12) if unit == "year" else ("day", count * 30)
    return _units_from(ref, count, unit, -1 if "前" in m["dir"] else 1)


# ---------------------------------------------------------------------------- finding mentions

#: cheap tests that a text may hold dates at all (most note lines do not)
_YEAR_DIGITS = re.compile(r"[12]\d\d\d")
_CHINESE_HINT = re.compile(r"\d\s*[月日号年]|[〇零一二三四五六七八九十两半]\s*(?:[月日号年天周]|个|星期)|[昨今明前后去上下这本][天日晚早年周月个星礼]")
_ENGLISH_WORDS = ("yesterday", "today", "tomorrow", "tonight", " ago", "last ", "this ", "next ", "previous ",
                  "current ", "coming ", " day", " week", " month", " year", "uary", "march", "april", "may",
                  "june", "july", "august", "ember", "october")
_ENGLISH_RELATIVE = re.compile(  # searched in lower case
    r"yesterday|today|tomorrow|tonight|\bago\b"
    r"|\b(?:last|this|next|previous|current|coming)\s+(?:week|month|year|weekend|night|morning|afternoon|evening"
    r"|mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|spring|summer|autumn|fall|winter)"
    r"|\bin\s+(?:\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+couple\s+of)\s+(?:day|week|month|year)"
    r"|\b(?:in|since|from|until|till|by|as of|starting|back in|early|late|mid-?)\s+(?:january|february|march|april"
    r"|may|june|july|august|september|october|november|december)\b")


def _english_relative(text: str) -> bool:
    low = text.lower()
    return any(word in low for word in _ENGLISH_WORDS) and _ENGLISH_RELATIVE.search(low) is not None


def may_hold_dates(text: str, relative: bool) -> bool:
    """False when `text` surely has no date words (relative ones counted only when `relative`)."""
    if _YEAR_DIGITS.search(text):
        return True
    if _CJK.search(text) and _CHINESE_HINT.search(text):
        return True
    return relative and _english_relative(text)


def find_dates(text: str, ref: datetime | None = None) -> list[Mention]:
    """Date mentions in `text`, left to right, not overlapping; relative ones only when `ref` is given."""
    if not text:
        return []
    chinese = _CJK.search(text) is not None and _CHINESE_HINT.search(text) is not None
    english = _YEAR_DIGITS.search(text) is not None
    english_relative = ref is not None and _english_relative(text)
    if not (chinese or english or english_relative):
        return []
    ref = ensure_utc(ref) if ref is not None else None
    candidates: list[Mention] = []
    for pattern in _PATTERNS:
        wanted = chinese if pattern.chinese else english_relative if pattern.relative else english
        if not wanted or (pattern.relative and ref is None):
            continue
        for m in pattern.regex.finditer(text):
            period = _safe(pattern.resolve, m, ref)
            if period is not None:
                start, end = m.span("date") if "date" in m.re.groupindex else m.span()
                candidates.append(Mention(start, end, text[start:end], period, pattern.relative))
    candidates.sort(key=lambda c: (c.start, -(c.end - c.start), c.relative))
    chosen: list[Mention] = []
    for mention in candidates:
        if chosen and mention.start < chosen[-1].end:
            continue
        chosen.append(mention)
    return chosen


def _safe(resolve: Resolver, m: re.Match, ref: datetime | None) -> Period | None:
    try:
        period = resolve(m, ref)
    except (ValueError, OverflowError, KeyError, TypeError):  # 2023-02-30, year 99999, …
        return None
    if period is None or not 1000 <= period.start.year <= 2999:
        return None
    return period


def resolve(words: str, ref: datetime | None = None) -> Period | None:
    """The period of a text that is nothing but date words ("last March", "2024年3月"), else None."""
    stripped = words.strip()
    mentions = find_dates(stripped, ref)
    if len(mentions) == 1 and mentions[0].start == 0 and mentions[0].end == len(stripped):
        return mentions[0].period
    return None


# ---------------------------------------------------------------------------- time in a question

_BEFORE_WORDS = r"(?:before|prior\s+to|until|till|by)"
_AFTER_WORDS = r"(?:after)"
_SINCE_WORDS = r"(?:since|from)"
_LEAD_EN = re.compile(r"(?:\b(?P<word>in|on|during|over|at|around|for|since|from|before|prior\s+to|until|till|by|after|as\s+of|back\s+in)\s+(?:the\s+)?)$", re.IGNORECASE)
_LEAD_ZH = re.compile(r"(?P<word>在|于|自从|自|从)\s*$")
_TRAIL_ZH = re.compile(r"\s*(?P<word>以来|以前|之前|前|以后|之后|后|起|开始|的时候|期间|里|内)")
_GAP_RANGE = re.compile(r"^\s*(?:-|–|—|~|to|until|till|through|and|至|到)\s*$", re.IGNORECASE)
_BETWEEN = re.compile(r"\b(?:between|from)\s+$", re.IGNORECASE)


def question_time(query: str, now: datetime) -> QueryTime | None:
    """The period a question asks about ("in March 2025", "last summer", "去年", "上周"), relative to `now`.

    `now` is the moment the question is asked from (the present, or `as_of` in time travel).
    "since X" and "after X" leave the end open (None), "before X" the start.
    """
    mentions = find_dates(query, now)
    if not mentions:
        return None
    first = mentions[0]
    start, end = first.period.start, first.period.end
    cut_from, cut_to = first.start, first.end
    if len(mentions) > 1 and _GAP_RANGE.match(query[first.end:mentions[1].start]):
        second = mentions[1]
        end, cut_to = second.period.end, second.end
    lead = _LEAD_EN.search(query, 0, cut_from) or _LEAD_ZH.search(query, 0, cut_from)
    between = _BETWEEN.search(query, 0, cut_from)
    if between and cut_to > first.end:
        cut_from = between.start()
    elif lead:
        word = " ".join(lead["word"].lower().split())
        if re.fullmatch(_BEFORE_WORDS, word):
            start, end = None, first.period.start
        elif re.fullmatch(_AFTER_WORDS, word):
            start, end = first.period.end, None
        elif re.fullmatch(_SINCE_WORDS, word) or word in ("自从", "自", "从") and cut_to == first.end:
            end = None
        cut_from = lead.start()
    trail = _TRAIL_ZH.match(query, cut_to)
    if trail:
        word = trail["word"]
        if word in ("以来", "起", "开始"):
            end = None
        elif word in ("以前", "之前", "前"):
            start, end = None, first.period.start
        elif word in ("以后", "之后", "后"):
            start, end = first.period.end, None
        cut_to = trail.end()
    rest = (query[:cut_from] + " " + query[cut_to:]).strip()
    rest = re.sub(r"\s+([?？,，.。!！])", r"\1", re.sub(r"\s{2,}", " ", rest)).strip(" ,，")
    words = query[first.start:max(first.end, cut_to)].strip()
    return QueryTime(start, end, words, first.period.granularity, rest)

