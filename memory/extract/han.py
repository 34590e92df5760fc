"""Han script ranges and the Chinese word segmenter, shared by entity spans, `compress` and search tokens."""
from __future__ import annotations

import re

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
WIDE = f"{HAN}\u3000-\u303f\uff00-\uffef"  # Han plus CJK punctuation and full-width forms
HAN_CHAR = re.compile(f"[{HAN}]")
HAN_RUN = re.compile(f"[{HAN}]+")


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


def load_segmenter() -> None:
    """Load the dictionary now rather than at the first Chinese text."""
    han_words("加载")
