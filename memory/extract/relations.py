"""People the user speaks of by their relation to the user ("my sister", "我爸"): whose statement a clause is.

A clause whose subject is someone else ("My sister's on the keto diet", "My brother just got a new job",
"我爸膝盖不好") speaks of that person, not of the user. Imported by recall, so it holds only what a question
needs besides the writer's rules: no spaCy, a few patterns."""
from __future__ import annotations

import re

__all__ = ["ASKS_MARK", "OTHERS_MARK", "about_someone_else", "names_someone", "someone_elses"]

#: The search token of a user's message about someone else (a question about the user weighs it less).
OTHERS_MARK = "§others"
#: ... and of one that only asks and says nothing of the user (`facts.asks_only`: "is hay fever worse in june?").
ASKS_MARK = "§asks"

_PARTNER_EN = r"wife|husband|partner|boyfriend|girlfriend|fianc\w*|spouse|bf|gf|hubby"
_CHILD_EN = r"kids?|children|child|sons?|daughters?|baby|toddler|twins|little ones?"
_RELATION_EN = (
    rf"{_PARTNER_EN}|{_CHILD_EN}|mum|mom|mother|dad|father|parents|brother|sister|siblings?|nephew|niece|cousin"
    r"|aunt|auntie|uncle|gran|granny|grandma|grandmother|grandad|granddad|grandpa|grandfather|grandparents|in-laws"
    r"|\w+-in-law|colleague|coworker|co-worker|workmate|boss|manager|friend|mate|bestie|flatmate|roommate|housemate"
    r"|neighbou?r|landlord|landlady|teacher|team")
_KIN_MODIFIER_EN = r"(?:(?:little|big|older|younger|elder|eldest|oldest|youngest|best|new|old|twin|step|baby)\s+)?"
_OTHER_SUBJECT_EN = re.compile(
    r"^(?:(?:oh|ok|okay|so|and|but|well|also|btw|anyway|update|heads up|fun fact)\W+)*(?:(?:my|our)\s+"
    rf"{_KIN_MODIFIER_EN}(?P<who>{_RELATION_EN})s?|(?P<named>mum|mom|mam|dad|nan|nana|gran|grandma|grandpa|grandad))\b"
    r"(?!\s+(?:and|&)\s+(?:i|me)\b)", re.I)  # "Mum keeps asking me …": a parent by the name the user calls them
_RELATION_ZH = (r"爸爸?|妈妈?|父母|爷爷|奶奶|外公|外婆|姥姥|姥爷|哥哥?|姐姐?|弟弟?|妹妹?|表[哥姐弟妹]|堂[哥姐弟妹]|老公|老婆|丈夫|妻子"
                r"|男朋友|女朋友|男友|女友|对象|爱人|儿子|女儿|孩子|闺女|同事|老板|领导|朋友|闺蜜|室友|邻居|舅舅|姑姑|阿姨|叔叔|舅妈|婶婶")
_OTHER_SUBJECT_ZH = re.compile(rf"^(?P<who>我的?(?:{_RELATION_ZH}))(?![和跟与]我)")
_PARTNER_ZH = re.compile(r"老公|老婆|丈夫|妻子|男朋友|女朋友|男友|女友|对象|爱人")
_CHILD_ZH = re.compile(r"儿子|女儿|孩子|闺女")
_NAMES_RELATION = re.compile(rf"\b(?:{_RELATION_EN})(?:s|'s|s')?(?!\w)|{_RELATION_ZH}", re.I)
_CLAUSE = re.compile(r"[,;:，；：。.!?！？—–]+\s*|\s+(?:and|but|so)\s+")
_NAMED = re.compile(r"\s+[A-Z][a-z]+\b")
_SAYS_OF_USER = re.compile(r"\b(?:said|says|told me|tells me|thinks|reckons|reckoned|mentioned)\s+(?:that\s+)?"
                           r"(?:i|i'm|i've|i'll|i'd|we|we're)\b|(?:说|觉得|告诉我)我", re.I)
_USER_SUBJECT = re.compile(r"^(?:(?:so|and|but|then|now|also|because|since)\s+)*"
                           r"(?:i|i'm|i've|i'd|i'll|im|ive|we|we're|we've|we'd|we'll)\b"
                           rf"|^我们|^我(?!的?(?:{_RELATION_ZH}))", re.I)


def someone_elses(clause: str) -> set[str] | None:
    """None for a clause about the user; else the user's topics it may still speak of, through the relation that
    is its subject ({"partner"} for "My boyfriend Marco keeps stealing the duvet", none for "My sister's on keto").
    "My wife and I moved to Leeds" is the user's own."""
    stripped = clause.strip()
    m = _OTHER_SUBJECT_EN.match(stripped)
    if m:
        who = (m.group("who") or m.group("named")).lower()
        return {"partner"} if re.fullmatch(_PARTNER_EN, who) else {"children"} if re.fullmatch(_CHILD_EN, who) else set()
    m = _OTHER_SUBJECT_ZH.match(stripped)
    if m:
        who = m.group("who")
        return {"partner"} if _PARTNER_ZH.search(who) else {"children"} if _CHILD_ZH.search(who) else set()
    return None


def about_someone_else(text: str) -> bool:
    """A message that begins with someone else as its subject and has the user as the subject of none of its
    clauses: "My daughter is allergic to cats — do hypoallergenic breeds help?", "我妈最近老咳嗽，应该挂哪个科？"."""
    clauses = [c.strip() for c in _CLAUSE.split(text.strip()) if c.strip()]
    subject = _OTHER_SUBJECT_EN.match(clauses[0]) or _OTHER_SUBJECT_ZH.match(clauses[0]) if clauses else None
    if subject is None or _NAMED.match(clauses[0], subject.end()):
        return False  # the user's own, or one of the user's people introduced by name ("My husband Kenji says hi")
    if _SAYS_OF_USER.search(clauses[0]):
        return False  # "My boss said I'm getting promoted": what they say is of the user
    return not any(_USER_SUBJECT.match(c) for c in clauses[1:])


def names_someone(question: str) -> bool:
    """A question that names one of the user's people ("what did I get my sister", "how many cousins' weddings",
    "我妈喜欢什么")."""
    return bool(_NAMES_RELATION.search(question))
