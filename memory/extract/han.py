"""Han script ranges and the Chinese word segmenter, shared by entity spans, `compress` and search tokens."""
from __future__ import annotations

import re

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
WIDE = f"{HAN}\u3000-\u303f\uff00-\uffef"  # Han plus CJK punctuation and full-width forms
HAN_CHAR = re.compile(f"[{HAN}]")
HAN_RUN = re.compile(f"[{HAN}]+")
EMOJI = "\u2600-\u27bf\U0001f300-\U0001faff"  # the pictographs chat ends a sentence with, as a character-class range
# the user's old one passed on, so a new one came ("之前那对送表弟了", "旧的卖了"): a change to the statement rules and a switch
# to the latest word
OLD_ONE_PASSED_ON_ZH = (r"(?:(?:之前|以前|原来)(?:那|的)|旧的)[^，。,！？\s]{0,3}?(?:送|卖|出|给[^，。,！？\s]{1,4}了)")


def han_words(run: str, *, hmm: bool = True) -> list[str]:
    """jieba's words of a Han run; `hmm=False` keeps words the dictionary does not know in single characters.
    rjieba runs jieba's algorithm and dictionary compiled in Rust (the same words as jieba 0.42, a tenth of its
    load time and size); it is imported on first use."""
    import rjieba

    return rjieba.cut(run, hmm)


def han_search_words(run: str) -> list[str]:
    """jieba's search-mode words: each word, then the dictionary words of two and three characters inside it."""
    import rjieba

    return rjieba.cut_for_search(run, True)


def han_tagged(text: str) -> list[tuple[str, str]]:
    """The words of a text's Han runs with jieba's part-of-speech tags ("杭州" → ns, a place)."""
    import rjieba

    return [pair for run in HAN_RUN.findall(text) for pair in rjieba.tag(run)]


def han_places(text: str) -> set[str]:
    """The place names jieba's tagger finds in a text's Han runs ("终于在杭州租到房子了" → 杭州)."""
    return {word for word, tag in han_tagged(text) if tag == "ns"}


# characters of grammar and of the speakers, which make a pair of characters name nothing ("了，", "我的", "也退")
_GRAMMAR = frozenset("的了是我你他她它们在有也都就还很不这那个吗呢吧啊么和跟与把被给让着过得地又才")


def han_pairs(text: str) -> set[str]:
    """Every two neighbouring Han characters of `text` that hold no character of grammar: the words a segmenter may
    split ("跑团群" is cut 跑 / 团群, its pairs are 跑团 and 团群)."""
    return {run[i:i + 2] for run in HAN_RUN.findall(text) for i in range(len(run) - 1)
            if run[i] not in _GRAMMAR and run[i + 1] not in _GRAMMAR}


def load_segmenter() -> None:
    """Load the dictionary now rather than at the first Chinese text."""
    han_words("加载")
