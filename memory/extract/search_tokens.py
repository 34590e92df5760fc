"""Keyword tokens for BM25: Snowball-stemmed English words and ids, Chinese segmented by jieba."""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Iterator

import snowballstemmer

from ..latin import fold_latin
from .han import HAN, HAN_CHAR, han_search_words
from .word_forms import stem_forms

__all__ = ["STORED_VARIANTS", "fold_stored_token", "one_word_form", "tokenize_for_search", "with_han_characters"]

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


def _snowball_stem(word: str) -> str:
    """Snowball (Porter 2) stem of an English word: `painted` and `paintings` both give `paint`."""
    if not word.isalpha() or not word.isascii():
        return word
    return _SNOWBALL.stemWord(word)


#: British spellings and chat shorthand, as stems, to the stem of the word they stand for (word_forms.py).
_STEM_FORMS = stem_forms(_snowball_stem)


@lru_cache(maxsize=1 << 17)
def _stem(word: str) -> str:
    """A word's search form: its stem, in one spelling (`colours` and `color` both give `color`)."""
    stem = _snowball_stem(word)
    return _STEM_FORMS.get(stem, stem)


@lru_cache(maxsize=1 << 17)
def _word_tokens(token: str) -> tuple[str, ...]:
    """A Latin/number token, plus the parts of a compound such as `ord-2024-0042`."""
    if "," in token:
        return (token.replace(",", ""),)
    parts = _PART.findall(token)
    if len(parts) == 1:
        return (_stem(token),) if token not in _EN_STOP and (len(token) > 1 or token.isdigit()) else ()
    if _DECIMAL.fullmatch(token):
        return (token,)
    return (token, *(_stem(part) for part in parts if part not in _EN_STOP and (len(part) > 1 or part.isdigit())))


def _chinese_tokens(run: str) -> Iterator[str]:
    """jieba search-mode words of a Han run without stop words, then each content character once.

    The characters let a word meet its variants: 爬山 (a question) and 爬了香山 (what was said) share 爬
    and 山 though jieba cuts them apart; being common, single characters weigh little in BM25."""
    chars: dict[str, None] = {}
    for word in han_search_words(run):
        if word in _ZH_STOP:
            continue
        yield word
        if len(word) > 1:
            chars.update((c, None) for c in word if c not in _ZH_STOP)
    yield from chars


def tokenize_for_search(text: str) -> list[str]:
    """Lowercase keyword tokens for BM25: English words and ids, Chinese segmented by jieba."""
    tokens: list[str] = []
    for m in _SEARCH_TOKEN.finditer(fold_latin(unicodedata.normalize("NFKC", text).lower())):
        token = m.group()
        if HAN_CHAR.match(token):
            tokens.extend(_chinese_tokens(token))
        else:
            tokens.extend(_word_tokens(token))
    return tokens


def fold_stored_token(token: str) -> str | None:
    """A search token stored before tokens were folded, as the tokenizer gives it now: folded and, a plain
    word, stemmed; None when it folds into a stop word. Context keys keep their mark; other tokens are unchanged."""
    mark = token[0] if token[:1] in ("^", "§") else ""
    word = token[len(mark):]
    folded = fold_latin(word)
    if folded == word or mark == "§":
        return token
    if _PART.fullmatch(folded):
        kept = _word_tokens(folded)
        return mark + kept[0] if kept else None
    return mark + folded


#: The stored tokens `one_word_form` changes (plain letters and digits: safe in a regular expression).
STORED_VARIANTS = frozenset(_STEM_FORMS)


def one_word_form(token: str) -> str:
    """A stored search token (a context key keeps its mark) in the one form the tokenizer gives it now."""
    mark = token[0] if token[:1] == "^" else ""
    word = token[len(mark):]
    return mark + _STEM_FORMS.get(word, word)


def with_han_characters(tokens: list[str]) -> list[str]:
    """Tokens stored before Chinese words brought their characters along, brought up to date (idempotent)."""
    present = set(tokens)
    extra: dict[str, None] = {}
    for token in tokens:
        if len(token) > 1 and HAN_CHAR.match(token):
            extra.update((c, None) for c in token if HAN_CHAR.match(c) and c not in _ZH_STOP and c not in present)
    return tokens + list(extra)
