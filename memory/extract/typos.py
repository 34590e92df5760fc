"""Chat's typos in the few words that tell a change: "swichted to progressive", "mila startd at Bright Horizons",
"joind PureMotion instaed". A word one slip from one of them (a letter missed, doubled, swapped with the next or
mistyped, or its letters shuffled between the same first two and last) is read as that word, unless it is another
form of one ("change", "starter", "switches") or a word of its own ("stated", "charged", "startled")."""
from __future__ import annotations

import re
from functools import lru_cache

# the words whose typos are read as meant: a change of something the user has (attributes._CHANGE, VERB_FIRST)
CHANGE_WORDS = ("switched", "switching", "started", "starting", "cancelled", "canceled", "cancelling", "finally",
                "officially", "changed", "instead", "joined", "upgraded")
# words of their own one slip from those
_REAL_WORDS = frozenset("""stated stared starred starved staring stating starling startled startling charged chanced
chanted joints jointed finale finals instated instep""".split())
_WORD = re.compile(r"[A-Za-z]{5,}")


def typed_right(text: str) -> str:
    """The text with each typo of a word that tells a change written as that word."""
    return _WORD.sub(lambda m: _meant(m.group()) or m.group(), text)


def _other_forms(word: str) -> set[str]:
    """The other forms of a word that ends in -ed or -ing: "change", "changes", "changer" for "changed"."""
    for ending in ("ed", "ing"):
        if word.endswith(ending):
            stem = word[: -len(ending)]
            return {stem + tail for tail in ("", "e", "s", "es", "er", "ers", "ed", "ing")}
    return set()


_OTHER_FORMS = frozenset().union(*(_other_forms(word) for word in CHANGE_WORDS))


@lru_cache(maxsize=4096)
def _meant(word: str) -> str | None:
    lowered = word.lower()
    if lowered in CHANGE_WORDS or lowered in _REAL_WORDS or lowered in _OTHER_FORMS:
        return None
    for meant in CHANGE_WORDS:
        if _one_slip(lowered, meant) or _shuffled(lowered, meant):
            return meant
    return None


def _one_slip(typed: str, meant: str) -> bool:
    """Whether `typed` is `meant` with one letter missed, added or mistyped, or two neighbours swapped."""
    if abs(len(typed) - len(meant)) > 1 or typed[0] != meant[0]:
        return False
    if len(typed) == len(meant):
        diff = [i for i, (a, b) in enumerate(zip(typed, meant)) if a != b]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and typed[diff[0]] == meant[diff[1]] and typed[diff[1]] == meant[diff[0]])
    short, long = sorted((typed, meant), key=len)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def _shuffled(typed: str, meant: str) -> bool:
    """Whether `typed` has `meant`'s letters shuffled between the same first two letters and last: "swichted"."""
    return (len(typed) >= 7 and typed[:2] == meant[:2] and typed[-1] == meant[-1]
            and sorted(typed) == sorted(meant))
