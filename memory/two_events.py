"""The two events a question asks about together: "how many days passed between the day I repotted the spider plant
and the day I gave Mrs. Johnson cuttings?", "which did I finish first, 'The Hate U Give' or 'The Nightingale'?",
"搬家和入职之间隔了多少天？". Such a question asks when things happened, not how things are now: the latest word on a
topic (memory/latest_word.py) is no answer to it."""
from __future__ import annotations

import re

# "between X and Y": the time from one to the other
_BETWEEN = re.compile(r"\bbetween\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)\s*[?.!]*\s*$", re.I)
# "which … first, X or Y?": the order of two
_WHICH_FIRST = re.compile(r"\b(?:first|earlier|sooner|later|last|more recently|most recently)\s*[,:]\s*"
                          r"(?P<a>[^,?]+?)\s+or\s+(?P<b>[^?]+?)\s*\??\s*$", re.I)
# "X和Y之间隔了多少天", "先X还是先Y"
_BETWEEN_ZH = re.compile(r"^(?:从)?(?P<a>[^，,。？?]{2,30}?)(?:和|跟|到)(?P<b>[^，,。？?]{2,30}?)(?:之间|中间)?(?:隔了|相隔|间隔|差了|过了)")
_WHICH_FIRST_ZH = re.compile(r"(?P<a>[^，,。？?先]{2,30}?)还是(?P<b>[^，,。？?先]{2,30}?)(?:先|早|在前)")
_FIRST_THIS_OR_THAT_ZH = re.compile(r"先(?P<a>[^，,。？?]{2,30}?)还是先(?P<b>[^，,。？?]{2,30}?)(?:的|了|呢)*[？?]?$")
# "the day I …", "the time when I …": what only says that an event is meant
_EVENT_LEAD = re.compile(r"^(?:the\s+)?(?:day|date|time|week|month|moment)\s+(?:when\s+|that\s+)?", re.I)


def two_events(question: str) -> tuple[str, str] | None:
    """The two events a question asks about together, each in the question's words; None for any other question."""
    for pattern in (_BETWEEN, _WHICH_FIRST, _BETWEEN_ZH, _WHICH_FIRST_ZH, _FIRST_THIS_OR_THAT_ZH):
        match = pattern.search(question.strip())
        if match:
            a, b = (_EVENT_LEAD.sub("", match.group(part).strip()) for part in ("a", "b"))
            if len(a) > 1 and len(b) > 1:
                return a, b
    return None
