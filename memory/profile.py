"""The user profile: behaviour features per turn, explainable tags, interests, a prompt prefix.

Pure logic over plain dataclasses (interest counts read the store); the store keeps features, pins and removals.
"""
from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from statistics import median
from typing import TYPE_CHECKING

from .clock import ensure_utc
from .extract import is_question

if TYPE_CHECKING:
    from .store import Store

__all__ = [
    "ProfileTag",
    "TurnFeatures",
    "compile_prefix",
    "derive_tags",
    "features_for_turn",
    "interest_counts",
    "interests",
]

COLD_START_TURNS = 3  # fewer interactions than this: neutral profile
WINDOW_TURNS = 100  # tags describe the most recent turns only
SHORT_QUESTION_WORDS = 10
LONG_QUESTION_WORDS = 18
PRIMARY_MIN_RATIO = 0.3  # a tag needs its primary cue in at least this share of turns …
TAG_MIN_SCORE = 0.4  # … and a combined score at least this high
SNIPPET_CHARS = 60
EXAMPLES_PER_RULE = 2

EXPLORATORY, EXECUTIVE, CAUTIOUS = "exploratory", "executive", "cautious"


@dataclass
class TurnFeatures:
    """Behaviour features of one user turn. `snippet` is a short, already-redacted excerpt."""

    at: datetime
    session_id: str
    question_length: int  # approximate words; a CJK character counts half a word
    is_question: bool
    negation: bool
    correction: bool
    follow_up: bool
    cross_session_ref: bool
    asks_for_steps_or_action: bool
    asks_for_options_or_why: bool
    hedging_or_risk: bool
    snippet: str = ""


@dataclass
class ProfileTag:
    """A derived or pinned tag and the evidence behind it."""

    name: str
    score: float
    evidence: list[str] = field(default_factory=list)
    pinned: bool = False


# --- cues ---------------------------------------------------------------------------------


def _cues(english: Iterable[str], chinese: Iterable[str] = ()) -> re.Pattern[str]:
    """One pattern: English cues as whole words (case-insensitive), Chinese cues as substrings."""
    words = [r"\b" + re.escape(cue).replace(r"\ ", r"\s+") + r"\b" for cue in english]
    return re.compile("|".join(words + [re.escape(cue) for cue in chinese]), re.IGNORECASE | re.ASCII)


_NEGATION = _cues(
    ["not", "no", "never", "nothing", "none", "without", "don't", "doesn't", "didn't", "isn't",
     "aren't", "wasn't", "won't", "can't", "cannot", "shouldn't", "nope"],
    ["不", "没", "别", "未", "无"],
)
_CORRECTION = _cues(
    ["no, I meant", "I meant", "I mean", "that's wrong", "that is wrong", "that's not right",
     "that's not what", "not what I", "you misunderstood", "incorrect", "I said", "correction",
     "you're wrong", "you are wrong", "got it wrong", "actually, I"],
    ["不对", "我是说", "错了", "不是这个", "我的意思是", "搞错", "理解错", "说错"],
)
_CROSS_SESSION = _cues(
    ["last time", "as we discussed", "as discussed", "we talked about", "we discussed",
     "you told me", "you said before", "like before", "remember when", "previously", "the other day",
     "last week"],
    ["上次", "上回", "之前说", "之前聊", "之前提", "之前讨论", "以前说", "我们聊过", "你说过", "前几天"],
)
_FOLLOW_UP = _cues(
    ["what about", "how about", "what if", "and then", "tell me more", "more detail", "more details",
     "elaborate", "go deeper", "follow up", "also", "in that case", "and why"],
    ["那么", "还有", "那如果", "如果", "继续", "展开", "详细", "再说", "那为什么", "然后呢"],
)
_STEPS_OR_ACTION = _cues(
    ["just do", "do it", "give me the command", "the command", "command", "commands", "step by step",
     "steps", "how do I", "show me how", "fix it", "give me", "set up", "go ahead"],
    ["直接", "步骤", "命令", "帮我", "给我", "怎么做", "执行", "生成", "写一个", "改成"],
)
_OPTIONS_OR_WHY = _cues(
    ["why", "alternatives", "alternative", "options", "compare", "comparison", "pros and cons",
     "trade-off", "trade-offs", "tradeoff", "tradeoffs", "versus", "vs", "which is better",
     "what else", "other ways", "differences", "difference between"],
    ["为什么", "有哪些", "对比", "比较", "区别", "优缺点", "其他方案", "还有什么", "哪个好", "为啥", "原理"],
)
_HEDGING_OR_RISK = _cues(
    ["is it safe", "safe", "safely", "risk", "risks", "risky", "backup", "back up", "double-check",
     "double check", "make sure", "confirm", "verify", "careful", "irreversible", "undo", "rollback",
     "roll back", "are you sure", "evidence", "sources", "cite", "maybe", "perhaps", "I'm not sure", "might"],
    ["确认", "风险", "安全吗", "安全", "备份", "会不会", "确定吗", "依据", "出处", "验证", "回滚", "小心", "也许", "不确定"],
)
_IMPERATIVE_START = re.compile(
    r"^\s*(?:please\s+)?(?:give|show|write|make|fix|run|list|create|generate|convert|install|delete|"
    r"set|add|remove|update|send|tell|rename|put|use|run|check|find)\b|^\s*(?:请|帮|给|把)",
    re.IGNORECASE | re.ASCII,
)
_WORD = re.compile(r"[A-Za-z0-9']+")
_CJK = re.compile(r"[\u3400-\u9fff]")
_STOPWORDS = frozenset("this that with what which about there their have from your would could should "
                       "when where them then than they does into just like more some".split())


def _approx_words(text: str) -> int:
    return len(_WORD.findall(text)) + (len(_CJK.findall(text)) + 1) // 2


def _keywords(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if len(w) >= 4 and w.lower() not in _STOPWORDS}


def _snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    """A one-line excerpt cut at a word boundary."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return _clip(text, limit - 1) + "…"


def features_for_turn(
    text: str,
    *,
    at: datetime,
    session_id: str,
    previous_user_texts_in_session: list[str],
    earlier_session_ids: Collection[str] = (),
) -> TurnFeatures:
    """Behaviour features of one user turn (pass redacted text: the snippet is kept)."""
    text = text.replace("\u2019", "'")  # curly apostrophes: "don’t" reads as "don't"
    previous = previous_user_texts_in_session[-1] if previous_user_texts_in_session else None
    asks = is_question(text)
    follow_up = previous is not None and bool(
        _FOLLOW_UP.search(text) or (asks and _keywords(text) & _keywords(previous))
    )
    mentions_session = any(sid and sid in text for sid in earlier_session_ids)
    return TurnFeatures(
        at=ensure_utc(at),
        session_id=session_id,
        question_length=_approx_words(text),
        is_question=asks,
        negation=bool(_NEGATION.search(text)),
        correction=bool(_CORRECTION.search(text)),
        follow_up=follow_up,
        cross_session_ref=bool(_CROSS_SESSION.search(text)) or mentions_session,
        asks_for_steps_or_action=bool(_STEPS_OR_ACTION.search(text) or _IMPERATIVE_START.search(text)),
        asks_for_options_or_why=bool(_OPTIONS_OR_WHY.search(text)),
        hedging_or_risk=bool(_HEDGING_OR_RISK.search(text)),
        snippet=_snippet(text),
    )


# --- tags ---------------------------------------------------------------------------------


@dataclass
class _Signal:
    """One explainable ingredient of a tag score: which turns show it, and how to say so."""

    describe: str  # completes "N of M turns …"
    hits: list[TurnFeatures]
    weight: float
    inverted: bool = False  # the signal is the *absence* of the cue

    def ratio(self, total: int) -> float:
        share = len(self.hits) / total
        return 1.0 - share if self.inverted else share


def _longest_follow_up_chain(turns: list[TurnFeatures]) -> int:
    longest = current = 0
    last_session = None
    for turn in turns:
        current = current + 1 if turn.follow_up and turn.session_id == last_session else 0
        longest = max(longest, current)
        last_session = turn.session_id
    return longest


def _signals(turns: list[TurnFeatures]) -> dict[str, list[_Signal]]:
    """Each tag's signals, its primary signal first."""

    def having(flag: str) -> list[TurnFeatures]:
        return [t for t in turns if getattr(t, flag)]

    long = [t for t in turns if t.question_length >= LONG_QUESTION_WORDS]
    short = [t for t in turns if t.question_length <= SHORT_QUESTION_WORDS]
    follow_ups = having("follow_up")
    return {
        EXPLORATORY: [
            _Signal("ask for options or reasons", having("asks_for_options_or_why"), 2.0),
            _Signal("are follow-ups", follow_ups, 1.0),
            _Signal(f"are long (≥ {LONG_QUESTION_WORDS} words)", long, 1.0),
        ],
        EXECUTIVE: [
            _Signal("ask for steps, commands or an action", having("asks_for_steps_or_action"), 2.0),
            _Signal(f"are short (≤ {SHORT_QUESTION_WORDS} words)", short, 1.0),
            _Signal("are follow-ups", follow_ups, 1.0, inverted=True),
        ],
        CAUTIOUS: [
            _Signal("mention risk, safety, backups or confirmation", having("hedging_or_risk"), 2.0),
            _Signal("correct an earlier answer", having("correction"), 1.0),
            _Signal("contain a negation", having("negation"), 1.0),
        ],
    }


def _score(signals: list[_Signal], total: int) -> float:
    weighted = sum(s.weight * s.ratio(total) for s in signals)
    return round(weighted / sum(s.weight for s in signals), 2)


def _evidence(signals: list[_Signal], turns: list[TurnFeatures]) -> list[str]:
    """Human-readable lines: counts for each signal, then example turns for the primary one."""
    total = len(turns)
    lines = [
        f"{'only ' if s.inverted else ''}{len(s.hits)} of {total} turns {s.describe}" for s in signals
    ]
    lines.append(f"median question length: {median(t.question_length for t in turns):g} words")
    examples = [t.snippet for t in signals[0].hits if t.snippet][:EXAMPLES_PER_RULE]
    return lines + [f'e.g. "{example}"' for example in examples]


def _rule_tags(turns: list[TurnFeatures]) -> dict[str, tuple[ProfileTag, bool]]:
    """Every rule's tag with score and evidence, and whether it passes the thresholds."""
    total = len(turns)
    chain = _longest_follow_up_chain(turns)
    results = {}
    for name, signals in _signals(turns).items():
        evidence = _evidence(signals, turns)
        if name == EXPLORATORY and chain >= 2:
            evidence.insert(len(signals), f"longest chain of follow-ups: {chain} turns")
        tag = ProfileTag(name, _score(signals, total), evidence)
        passes = signals[0].ratio(total) >= PRIMARY_MIN_RATIO and tag.score >= TAG_MIN_SCORE
        results[name] = (tag, passes)
    return results


def derive_tags(
    features: list[TurnFeatures],
    pins: Collection[str] = frozenset(),
    removed: Collection[str] = frozenset(),
) -> list[ProfileTag]:
    """Tags with evidence; pinned tags always appear, removed ones never (removal wins)."""
    turns = sorted(features, key=lambda t: ensure_utc(t.at))[-WINDOW_TURNS:]
    cold = len(turns) < COLD_START_TURNS
    candidates = {} if cold else _rule_tags(turns)
    tags = [tag for tag, passes in candidates.values() if passes]
    shown = {tag.name for tag in tags}
    for name in sorted(set(pins) - shown):
        tag = candidates[name][0] if name in candidates else ProfileTag(name, 0.0)
        note = "pinned by you"
        if cold:
            note += f"; profile still neutral ({len(turns)} of {COLD_START_TURNS} interactions)"
        elif name in candidates:
            note += "; the evidence alone would not show this tag"
        tags.append(ProfileTag(name, tag.score, [note] + tag.evidence))
    for tag in tags:
        tag.pinned = tag.name in pins
    tags = [tag for tag in tags if tag.name not in removed]
    return sorted(tags, key=lambda t: (not t.pinned, -t.score, t.name))


# --- interests and prompt prefix ----------------------------------------------------------


def interests(entity_counts: dict[str, int], tag_counts: dict[str, int], top: int = 10) -> list[tuple[str, int]]:
    """Most frequent entities and tags; `#python` and `Python` count as one (entity spelling shown)."""
    totals: dict[str, int] = {}
    display: dict[str, str] = {}
    for counts in (entity_counts, tag_counts):
        for name, count in counts.items():
            key = name.lstrip("#").strip().casefold()
            if not key or count <= 0:
                continue
            totals[key] = totals.get(key, 0) + count
            display.setdefault(key, name.lstrip("#").strip())
    ranked = sorted(totals, key=lambda key: (-totals[key], key))
    return [(display[key], totals[key]) for key in ranked[: max(top, 0)]]


# Entity labels that say nothing about interests.
NOT_INTERESTS = ("DATE", "TIME", "MONEY", "ID", "EMAIL", "PHONE", "URL", "CARDINAL", "ORDINAL", "QUANTITY",
                 "PERCENT")


def interest_counts(store: "Store", top: int = 15) -> list[tuple[str, int]]:
    """Entity and #tag frequency over current memories (not the assistant's replies) and notes' tags."""
    entity_counts: dict[str, int] = {}
    tag_counts: dict[str, int] = {}
    for name, label, count in store.entity_mention_counts(NOT_INTERESTS):
        bucket = tag_counts if label == "TAG" else entity_counts
        bucket[name] = bucket.get(name, 0) + count
    for name, count in store.tagged_source_counts():
        key = name if name.startswith("#") else "#" + name
        tag_counts[key] = tag_counts.get(key, 0) + count
    return interests(entity_counts, tag_counts, top=top)


TAG_SENTENCES = {
    EXPLORATORY: "The user likes to explore: offer a few options with their trade-offs and explain why (exploratory).",
    EXECUTIVE: "The user prefers concise, actionable answers (executive).",
    CAUTIOUS: "The user is cautious: mention risks, suggest backups and confirm before irreversible steps (cautious).",
}


_PAUSE = set(" ,;:，。；：、！？)")


def _clip(text: str, limit: int) -> str:
    """The longest prefix within `limit` ending at a word boundary; prefers spaces and punctuation.

    Unsegmented CJK text falls back to a boundary between two CJK characters.
    """
    if len(text) <= limit:
        return text
    cuts = range(min(limit, len(text) - 1), 0, -1)
    for cut in cuts:
        if text[cut].isspace() or text[cut - 1] in _PAUSE:
            return text[:cut].rstrip("".join(_PAUSE))
    for cut in cuts:
        if _CJK.match(text[cut - 1]) and _CJK.match(text[cut]):
            return text[:cut]
    return ""


def _join(first: str, second: str) -> str:
    return f"{first} {second}" if first else second


def compile_prefix(tags: list[ProfileTag], preferences: list[str], max_chars: int = 400) -> str:
    """A short prompt prefix from tags and stated preferences, at most `max_chars` long."""
    prefix = ""
    for tag in tags:
        sentence = TAG_SENTENCES.get(tag.name, f"The user is tagged '{tag.name}'.")
        if len(_join(prefix, sentence)) <= max_chars:
            prefix = _join(prefix, sentence)
    stated = list(dict.fromkeys(p.strip().rstrip(".;。；") for p in preferences if p.strip()))
    lead = _join(prefix, "Stated preferences: ")
    body = ""
    for preference in stated:
        candidate = f"{body}; {preference}" if body else preference
        if len(lead) + len(candidate) + len(".") <= max_chars:
            body = candidate
            continue
        head = f"{body}; " if body else ""
        clipped = _clip(preference, max_chars - len(lead) - len(head) - len("…"))
        if clipped:
            return f"{lead}{head}{clipped}…"
        break
    return f"{lead}{body}." if body else prefix
