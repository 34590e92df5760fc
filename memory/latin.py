"""Latin letters with marks, searched as their plain letters.

"café" and "cafe", "Zoë" and "Zoe", "Müller" and "Muller" are one word to search (as Lucene's ASCII folding
makes them). Only the Latin blocks are folded: a mark on a letter of another script (Japanese dakuten, Hangul
syllables, Greek tonos) is part of the letter.
"""
from __future__ import annotations

import unicodedata

__all__ = ["fold_latin"]

_LATIN_SPECIAL = {"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i"}


def _latin_folds() -> dict[int, str]:
    folds: dict[int, str] = {}
    for code in [*range(0x00C0, 0x0250), *range(0x1E00, 0x1F00)]:
        char = chr(code)
        plain = "".join(c for c in unicodedata.normalize("NFKD", char) if not unicodedata.combining(c))
        plain = _LATIN_SPECIAL.get(char.lower(), plain)
        if plain != char and plain.isascii() and plain.isalpha():
            folds[code] = plain
    return folds


_LATIN_FOLDS = _latin_folds()


def fold_latin(text: str) -> str:
    """`text` with its Latin letters' marks dropped (é → e, ü → u, ß → ss); other scripts unchanged."""
    return text if text.isascii() else text.translate(_LATIN_FOLDS)
