"""A value the user holds, ended by name: "Sold the Panda" ends the car "Fiat Panda", "Rehomed Rufus" the pet
"Rufus", "卡罗拉卖了" the car "白色的卡罗拉".

The lexicons know the verbs that end a value of their classes together with the class's nouns ("sold my
car"); a message that names only the thing itself ("Sold the Panda last month") says which class it ends
through what the user said before. `closed_values(text, held)` reads the user's own clauses that start
with a verb that ends something (sold, gave away, cancelled, quit, 卖了, 辞了, …) and names one of the held
values after it: by a name it has ("Panda" of "Fiat Panda") or, a value with no name, by all its words
("herbal tea"). Someone else's loss ("My brother sold his Panda") ends nothing of the user's.
"""
from __future__ import annotations

import re

from .han import HAN_CHAR

__all__ = ["closed_values", "may_end"]

_ENDING_VERBS_EN = (r"sold|got rid of|gave away|given away|gave up|given up|quit|ditched|cancell?ed|rehomed|re-homed"
                    r"|scrapped|broke up with|split up with|split from|divorced|moved out of|moved away from|resigned from")
_LEAD_EN = r"^(?:(?:so|and|but|well|finally|just|also|then|recently|eventually|actually|yesterday|today)\s+)*"
_ENDING_EN = re.compile(
    _LEAD_EN + r"(?:(?:i|we)\s+(?:(?:have|had|just|finally|recently|also|then|eventually|actually|'ve)\s+)*)?"
    rf"(?:'ve\s+)?(?:{_ENDING_VERBS_EN})\b",
    re.I,
)
_ANY_ENDING_EN = re.compile(rf"\b(?:{_ENDING_VERBS_EN})\b", re.I)
_ENDING_ZH = re.compile(r"卖了|卖掉了|卖掉|送人了|送走了|不要了|退掉了|退了|辞了|辞掉了|离开了|分手了|离婚了|戒掉了|戒了|搬离了|搬出了")
# someone else's loss: "我哥把车卖了", "朋友的猫送人了"
_OTHER_ZH = re.compile(r"^(?:我们?的?)?(?:他|她|它|哥|姐|弟|妹|爸|妈|老公|老婆|男朋友|女朋友|朋友|同事|邻居|室友|儿子|女儿|孩子)")
_CLAUSE = re.compile(r"[,;:，；：。.!?！？]+\s*|\s+(?:and|but|so)\s+")
_NAME = re.compile(r"\b(?-i:[A-Z])[\w'-]{2,}")
_WORD = re.compile(r"[a-z][\w'-]{2,}")
_NOT_CONTENT = frozenset("the and for from with now new old our my his her their this that these those".split())


def may_end(text: str) -> bool:
    """Whether `text` holds a verb that ends something (a cheap test before the held values are read)."""
    return bool(_ANY_ENDING_EN.search(text) or _ENDING_ZH.search(text))


def closed_values(text: str, held: dict[str, list[str]]) -> list[tuple[str, str]]:
    """(attribute, value) of each held value a clause of `text` ends, each once."""
    found: list[tuple[str, str]] = []
    for clause in (c.strip() for c in _CLAUSE.split(text) if c.strip()):
        after = _ended_part(clause)
        if after is None:
            continue
        for attribute, values in held.items():
            for value in values:
                if (attribute, value) not in found and _names(after, value):
                    found.append((attribute, value))
    return found


def _ended_part(clause: str) -> str | None:
    """The part of a clause that may name what the user ended, or None when the clause ends nothing of theirs."""
    if HAN_CHAR.search(clause):
        if _ENDING_ZH.search(clause) is None or _OTHER_ZH.match(clause):
            return None
        return clause  # the value stands before the verb ("卡罗拉卖了") or after it ("卖了卡罗拉")
    m = _ENDING_EN.match(clause)
    return clause[m.end():] if m else None


def _names(part: str, value: str) -> bool:
    """Whether `part` names `value`: a Chinese value as written; an English one by any of its names, else by
    all of its words."""
    if HAN_CHAR.search(value):  # "白色的卡罗拉" is named by "卡罗拉" too
        return any(len(name) >= 2 and name in part for name in {value, value.split("的")[-1]})
    names = [n for n in _NAME.findall(value) if n.lower() not in _NOT_CONTENT]
    if names:
        return any(re.search(rf"\b{re.escape(n)}\b", part, re.I) for n in names)
    words = [w for w in _WORD.findall(value.lower()) if w not in _NOT_CONTENT]
    lowered = part.lower()
    return bool(words) and all(re.search(rf"\b{re.escape(w)}\b", lowered) for w in words)
