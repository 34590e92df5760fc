"""`compress`: shorten text at a sentence, clause or word boundary, never with a blind cut."""
from __future__ import annotations

import re

from .han import HAN, HAN_CHAR, WIDE, han_words

__all__ = ["compress"]

_LW = rf"[^\W{HAN}]"  # a word character that is not Han
_ATOM = re.compile(rf"[$¥￥€£#]?{_LW}(?:(?:{_LW}|[.,:/@%'’+-])*(?:{_LW}|%))?|[{HAN}]+|\s+|.")
_LATIN_SENTENCE_END = set(".!?")
_CJK_SENTENCE_END = set("。！？")
_CLAUSE_END = set(",;:，；：、")
_WIDE_CHAR = re.compile(f"[{WIDE}]")


def _weight(text: str, ratio: float) -> float:
    """Length where a CJK character or CJK punctuation mark counts `ratio` Latin characters."""
    cjk = len(_WIDE_CHAR.findall(text))
    return len(text) - cjk + cjk * ratio


def _atoms(text: str) -> list[str]:
    """Uncuttable pieces: Latin words and numbers whole, Chinese runs whole (see `_words`), spaces, punctuation."""
    return _ATOM.findall(text)


def _words(run: str) -> list[str]:
    """A Chinese run as jieba words: only the run a cut falls in is segmented (the segmenter's dictionary loads
    on first use)."""
    return han_words(run)


def compress(text: str, limit_latin: int = 300, limit_cjk: int = 150) -> str:
    """Shorten text to the limit at a sentence, clause or word boundary, never inside a word or number."""
    text = " ".join(text.split())
    ratio = limit_latin / limit_cjk
    if _weight(text, ratio) <= limit_latin:
        return text
    budget = limit_latin - 1  # room for the ellipsis
    used, cut, sentence_cut, clause_cut = 0.0, 0, 0, 0
    weight_at: dict[int, float] = {0: 0.0}  # length of the first n atoms (where a sentence or clause ends)
    atoms = _atoms(text)
    i = 0
    while i < len(atoms):
        atom = atoms[i]
        weight = _weight(atom, ratio)
        if used + weight > budget and len(atom) > 1 and HAN_CHAR.match(atom):
            atoms[i : i + 1] = _words(atom)  # the cut falls in this run: at a word boundary inside it
            atom = atoms[i]
            weight = _weight(atom, ratio)
        used += weight
        if used > budget:
            break
        cut = i + 1
        weight_at[cut] = used
        next_is_space = i + 1 == len(atoms) or atoms[i + 1].isspace()
        if atom in _CJK_SENTENCE_END or (atom in _LATIN_SENTENCE_END and next_is_space):
            sentence_cut = cut
        elif atom in _CLAUSE_END:
            clause_cut = cut
        i += 1
    if cut == 0:
        return _hard_cut(text, budget, ratio) + "…"
    if sentence_cut and weight_at[sentence_cut] * 2 >= weight_at[cut]:  # a whole sentence, if it keeps half the room
        return "".join(atoms[:sentence_cut]).strip()
    end = clause_cut if clause_cut and weight_at[clause_cut] * 3 >= weight_at[cut] * 2 else cut
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
