"""A value the user holds, ended by name: "Sold the Panda" ends the car "Fiat Panda", "Rehomed Rufus" the pet
"Rufus", "卡罗拉卖了" the car "白色的卡罗拉".

The lexicons know the verbs that end a value of their classes together with the class's nouns ("sold my
car"); a message that names only the thing itself ("Sold the Panda last month") says which class it ends
through what the user said before. `closed_values(text, held)` reads the user's own clauses that start
with a verb that ends something (sold, gave away, cancelled, quit, 卖了, 辞了, …) and names one of the held
values after it: by a name it has ("Panda" of "Fiat Panda") or, a value with no name, by all its words
("herbal tea"). A held value that is the subject of a verb of dying or loss ends too ("Biscuit passed in his
sleep", "豆包去年冬天走了"). Someone else's loss ("My brother sold his Panda") ends nothing of the user's.
"""
from __future__ import annotations

import re

from .han import HAN_CHAR

__all__ = ["closed_values", "may_end", "names_either"]

_ENDING_VERBS_EN = (r"sold|got rid of|gave away|given away|gave up|given up|quit|ditched|cancell?ed|rehomed|re-homed"
                    r"|swapped|traded"  # "swapped leeds for bristol" ends leeds
                    r"|scrapped|broke up with|split up with|split from|divorced|moved out of|moved away from|resigned from")
_LEAD_EN = r"^(?:(?:so|and|but|well|finally|just|also|then|recently|eventually|actually|yesterday|today)\s+)*"
_ENDING_EN = re.compile(
    _LEAD_EN + r"(?:(?:i|we)\s+(?:(?:have|had|just|finally|recently|also|then|eventually|actually|'ve)\s+)*)?"
    rf"(?:'ve\s+)?(?:{_ENDING_VERBS_EN})\b",
    re.I,
)
# a value ended as the clause's subject: "Biscuit passed in his sleep", "Rufus had to be put down", "豆包去年冬天走了"
_GONE_EN = (r"passed away|passed on|passed|died|has died|had to be put down|was put down|ran away|went missing"
            r"|crossed the rainbow bridge")
_GONE_SUBJECT_EN = re.compile(
    _LEAD_EN + rf"(?:(?:my|our)\s+(?:[\w-]+\s+){{0,2}}?)?(?P<subject>(?-i:[A-Z])[\w'-]+)\s+(?:{_GONE_EN})"
    r"(?:$|\s+(?:in|at|on|last|this|yesterday|today|peacefully|suddenly|overnight|after|over|two|three|a)\b)",
    re.I)
_GONE_ZH = r"走了|去世了|过世了|死了|没了|跑丢了|走丢了"
_ANY_GONE_ZH = re.compile(_GONE_ZH)
_SWAPPED = re.compile(r"\b(?:swapped|traded)$", re.I)
_FOR = re.compile(r"\s+for\s+", re.I)
_ANY_ENDING_EN = re.compile(rf"\b(?:{_ENDING_VERBS_EN}|{_GONE_EN})\b", re.I)
_ENDING_ZH = re.compile(r"卖了|卖掉了|卖掉|送人了|送走了|不要了|退掉了|退了|辞了|辞掉了|离开了|分手了|离婚了|戒掉了|戒了|搬离了|搬出了")
_GONE_ZH_LEAD = re.compile(r"^(?:我们?家的?|家里的?|我们?的)?")
# someone else's loss: "我哥把车卖了", "朋友的猫送人了"
_OTHER_ZH = re.compile(r"^(?:我们?的?)?(?:他|她|它|哥|姐|弟|妹|爸|妈|老公|老婆|男朋友|女朋友|朋友|同事|邻居|室友|儿子|女儿|孩子)")
_CLAUSE = re.compile(r"[,;:，；：。.!?！？]+\s*|\s+(?:and|but|so)\s+")
_NAME = re.compile(r"\b(?-i:[A-Z])[\w'-]{2,}")
_WORD = re.compile(r"[a-z][\w'-]{2,}")
_NOT_CONTENT = frozenset("the and for from with now new old our my his her their this that these those".split())


def may_end(text: str) -> bool:
    """Whether `text` holds a verb that ends something (a cheap test before the held values are read)."""
    return bool(_ANY_ENDING_EN.search(text) or _ENDING_ZH.search(text) or _ANY_GONE_ZH.search(text))


def closed_values(text: str, held: dict[str, list[str]]) -> list[tuple[str, str]]:
    """(attribute, value) of each held value a clause of `text` ends, each once."""
    found: list[tuple[str, str]] = []
    for clause in (c.strip() for c in _CLAUSE.split(text) if c.strip()):
        after = _ended_part(clause)
        gone = _GONE_SUBJECT_EN.match(clause)
        if after is None and gone is None and not HAN_CHAR.search(clause):
            continue
        for attribute, values in held.items():
            for value in values:
                if (attribute, value) not in found and (
                        (after is not None and _names(after, value))
                        or (gone is not None and _names(gone.group("subject"), value))
                        or _gone_zh(clause, value)):
                    found.append((attribute, value))
    return found


def _gone_zh(clause: str, value: str) -> bool:
    """Whether a Chinese clause starts with `value` and says it died or was lost ("豆包去年冬天走了")."""
    if not HAN_CHAR.search(value):
        return False
    rest = clause[_GONE_ZH_LEAD.match(clause).end():]
    return any(len(name) >= 2 and re.match(rf"{re.escape(name)}[\u4e00-\u9fff\d]{{0,6}}?(?:{_GONE_ZH})", rest)
               for name in {value, value.split("的")[-1]})


def _ended_part(clause: str) -> str | None:
    """The part of a clause that may name what the user ended, or None when the clause ends nothing of theirs."""
    if HAN_CHAR.search(clause):
        if _ENDING_ZH.search(clause) is None or _OTHER_ZH.match(clause):
            return None
        return clause  # the value stands before the verb ("卡罗拉卖了") or after it ("卖了卡罗拉")
    m = _ENDING_EN.match(clause)
    if m is None:
        return None
    if _SWAPPED.search(m.group()):  # "swapped leeds for bristol": what went is what stands before "for"
        swapped = _FOR.split(clause[m.end():], maxsplit=1)
        return swapped[0] if len(swapped) == 2 else None
    return clause[m.end():]


def names_either(a: str, b: str) -> bool:
    """Whether one of two values names the other ("Deloitte" and "Deloitte UK", "nurse" and "senior nurse")."""
    return _names(a, b) or _names(b, a)


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
