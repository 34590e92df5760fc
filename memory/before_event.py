"""A question about the time before something the user told: "where did I work before the BBC?",
"what city did I live in before I moved to Glasgow?", "我换iPhone之前用的是什么手机？".

The thing is named (a word written with a capital, or in Chinese the object of 搬到, 换成, 去, 回 … before
之前/以前), or in lower case, in a question about the past, taken up ("before I switched to herbal tea", "before
I got the e-bike", "before my knee surgery", "before swimming"). The moment it began is when the user first said
something holding its name: a statement of the user's own, not a question (`§asks`), nor about someone else
(`§others`), nor the assistant's; the first that states one of the user's attributes ("first week at the BBC done!",
marked `§employer` when written) if any does, before a passing mention ("is the BBC a good place to work? thinking
of applying"). The
question then asks about the time before that moment, as "before 2023" would: the slot rules answer as of
then, and what began since, or names the thing, weighs `AFTER_WEIGHT`: the answer to "before the BBC" is
not about the BBC.
Without such a statement the question keeps the slot rules' reading of "before" (the value before the
latest). recall asks this only of a question in the first person that does not add up ("how many charity runs
did I do before the Run for the Cure?" needs the Run for the Cure too)."""
from __future__ import annotations

import re
from typing import Callable

import numpy as np

from .clock import from_epoch, to_epoch
from .extract.relations import ASKS_MARK, OTHERS_MARK
from .index import HybridIndex
from .model import ASSISTANT_MARK
from .slots import ASKS_PAST, SLOT_CUES
from .when import QueryTime

# what began at or after the named moment, or names it, for a question about the time before it: near nothing, so
# the weakest answer of the time before outranks the strongest after ("settled into the new place in Denver!" against
# "our apartment in Queens has zero closet space" for "where was I living before Denver?"). Scenario tune half, past
# class: 118/156 at 0.1 → 120 at 0.01 and 0.001, none lost
AFTER_WEIGHT = 0.001

_BEFORE_EN = re.compile(r"\b(?:before|prior to)\s+(?P<clause>[^,;?!.]+)", re.I)
_BEFORE_ZH = re.compile(r"(?P<clause>[^，。？！?!,\s]{1,24}?)(?:之前|以前)")
_NAME = re.compile(r"[A-Za-z0-9&+'’.-]*[A-Z][A-Za-z0-9&+'’.-]*")
_ZH_VERB = re.compile(r"^(?:我们|我)?(?:还)?(?:换成|换到|换了|换|搬到|搬去|搬来|跳槽到|跳槽去|去了|去|来到|来|回到|回|转到|转去"
                      r"|转(?!行|正|岗|账|发)|入职|加入|改成|改用|改|用上|到)"
                      r"(?P<name>[\u4e00-\u9fff]{2,8})$")
_NOT_A_NAME = {"I", "I'm", "I've", "I'd", "I'll"}
# a kind, not a thing: "换诊所之前" asks about the clinic before the switch of clinics, whose first mention is the old one
_ZH_KINDS = frozenset("诊所 医院 牙医 医生 大夫 公司 单位 工作 房子 城市 地方 手机 电脑 车子 学校 幼儿园 健身房 银行 运营商 套餐 宽带 "
                      "保险 房东 老师 教练 理发店 发型师 平台 软件 店".split())
_BEGAN = re.compile(r"^(?:i|we)\s+(?:(?:had|have)\s+)?(?:switched|moved|changed|went|came|got|bought|started|became"
                    r"|joined|took up|picked up|began|signed up|swapped|upgraded)"
                    r"(?:\s+(?:to|for|with|into|over to|up for))?\b")
_DETERMINERS = {"the", "a", "an", "my", "our"}
_DID = re.compile(r"[a-z]{2,}ed|put|got|gave|made|sent|told|took|said|set|sold|left|brought")
_NOT_A_THING = {"be", "get", "have", "do", "go", "live", "work", "it", "them", "that", "this", "then", "there", "here",
                "somewhere", "now", "today", "tonight", "tomorrow", "yesterday", "ever", "long", "anything",
                "everything", "i", "we", "you", "he", "she", "they"}
_ROUTINE = {"bed", "sleep", "breakfast", "lunch", "dinner", "work", "school", "class"}
# days, months and feasts come round again: "before Monday", "before Christmas" name no one moment the user told of
_RECURRING = set("""monday tuesday wednesday thursday friday saturday sunday january february march april may june july
august september october november december jan feb mar apr jun jul aug sep sept oct nov dec christmas xmas easter
halloween thanksgiving diwali eid ramadan hanukkah passover new year year's eve day weekend""".split())


# "where did I live before I moved to Denver?", "我搬来上海之前住哪": a question about the time before a change presupposes it
# and one someone made to the user's things ("before the podiatrist changed them"), or a new one ("before the new name")
_BEFORE_A_CHANGE = re.compile(r"\b(?:before|prior to)\s+(?:i|we)\s+(?:\w+\s+)?(?:moved|switched|changed|swapped|relocated"
                              r"|upgraded)\b|\b(?:before|prior to)\s+the\s+\w+\s+(?:changed|switched|swapped|replaced)\b"
                              r"|\b(?:before|prior to)\s+(?:the|my|our)\s+new\b(?!\s+year)"
                              r"|(?:搬|换|改|跳槽|来|转|回)[^，。？?]{0,12}(?:之前|以前)", re.I)


def before_a_change(query: str) -> bool:
    """Whether a question asks about the time before a change of the user's ("before I switched to the Mac"): what
    held then no longer holds, even when the change is no statement the rules read."""
    return _BEFORE_A_CHANGE.search(query) is not None


def named_before(query: str) -> str | None:
    """The name a "before …" question is anchored on, if it names one."""
    match = _BEFORE_EN.search(query)
    if match:
        names = [w.strip(".'’-") for w in _NAME.findall(match["clause"])
                 if w not in _NOT_A_NAME and w.strip(".'’-").lower() not in _RECURRING]
        if names:
            return " ".join(names)
        rest = query[: match.start()] + " " + query[match.end():]
        return _thing_begun(match["clause"]) if ASKS_PAST.search(rest) else None
    match = _BEFORE_ZH.search(query)
    if match:
        clause = match["clause"]
        latin = [w for w in _NAME.findall(clause) if w not in _NOT_A_NAME]
        if latin:
            return " ".join(latin)
        han = _ZH_VERB.match(clause)
        return han["name"] if han and han["name"] not in _ZH_KINDS else None
    return None


def _thing_begun(clause: str) -> str | None:
    """In lower case, what a past question's "before …" clause says the user took up: the object of a verb of
    beginning ("before I switched to herbal tea", "before I got the e-bike"), a thing of the user's ("before my
    knee surgery"), an activity ("before swimming"), a name in lower case ("before hoboken") or the doer of a change
    ("before the podiatrist changed them"); not a routine ("before bed") or a moment that comes round again."""
    words = clause.lower().split()
    begun = _BEGAN.match(" ".join(words))
    if begun:
        words = words[len(begun[0].split()):]
    elif not (words and words[0] in _DETERMINERS or len(words) <= 2 and all(w.isalpha() for w in words)):
        return None
    while words and words[0] in _DETERMINERS:
        words = words[1:]
    words = [w.strip(".'’-") for w in words[:3]]
    # a thing and what it did: "before the podiatrist changed them" began when the user first told of the podiatrist
    done = next((n for n, w in enumerate(words[1:], start=1) if _DID.fullmatch(w)), None)
    words = words[:done] if done else words
    if not words or words[0] in _NOT_A_THING or any(w in _RECURRING or w in _ROUTINE for w in words):
        return None  # "before I moved to be near my sister" says why, not what
    return " ".join(words)


def time_before_named(query: str, index: HybridIndex, keep: np.ndarray,
                      tokenize: Callable[[str], list[str]]) -> QueryTime | None:
    """The time before the user's first statement naming what the question is anchored on, or None."""
    name = named_before(query)
    terms = tokenize(name) if name else []
    if not terms:
        return None
    rows = None
    for term in terms:
        postings = index.postings(term)
        found = postings[0] if postings is not None else np.zeros(0, dtype=np.int64)
        rows = found if rows is None else np.intersect1d(rows, found)
    rows = rows[(rows < len(keep)) & index.alive[rows]]
    rows = rows[keep[rows]]
    for mark in (ASKS_MARK, OTHERS_MARK, ASSISTANT_MARK):
        rows = rows[~index.rows_holding(mark, rows)]
    stated = np.zeros(len(rows), dtype=bool)  # a statement of one of the user's attributes ("first week at the BBC")
    for attribute in SLOT_CUES:
        stated |= index.rows_holding(f"§{attribute}", rows)
    starts = index.valid_from[rows[stated] if stated.any() else rows]
    starts = starts[np.isfinite(starts)]
    if not len(starts):
        return None
    began = from_epoch(float(starts.min()))
    return QueryTime(start=None, end=began, words=name, granularity="event", query=query)


def weigh_before_named(index: HybridIndex, rows: np.ndarray, asked: QueryTime | None,
                       name_terms: list[str]) -> np.ndarray:
    """Per index row: AFTER_WEIGHT for what began at or after the named moment and for what names the thing
    (the answer to "before the BBC" is not about the BBC), else 1."""
    weights = np.ones(len(rows))
    if asked is None or asked.granularity != "event" or asked.end is None:
        return weights
    naming = np.ones(len(rows), dtype=bool) if name_terms else np.zeros(len(rows), dtype=bool)
    for term in name_terms:
        naming &= index.rows_holding(term, rows)
    weights[(index.valid_from[rows] >= to_epoch(asked.end)) | naming] = AFTER_WEIGHT
    return weights
