"""Notes about the vault's owner: which notes speak for the user, and their subjectless lines as statements.

An "About me" note says `2022-03 to 2026-01: designer at Blue Fern Agency` where a chat would say
"I worked as a designer at Blue Fern Agency". These lines feed the same slots as chat facts.
"""
from __future__ import annotations

import re

from .parse import ParsedNote

ABOUT_ME_TITLES = frozenset({
    "about me", "about", "me", "myself", "profile", "my profile", "personal", "bio", "my bio", "cv", "resume",
    "résumé", "关于我", "个人资料", "个人简介", "自我介绍", "我",
})
ABOUT_ME_TYPES = frozenset({"profile", "about-me", "about me", "person/me", "me"})
FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|my|me|mine)\b|我(?!们)")

_VERB_FIRST = re.compile(
    r"^(?:live|lived|living|moved|relocated|work|worked|working|joined|started|left|quit|study|studied|studying"
    r"|drink|drank|eat|ate|prefer|married|adopted|bought|drive|drove|switched|became)\b", re.I)
_ROLE_AT = re.compile(r"^(?P<role>[A-Za-z][\w/&' -]{1,60}?)\s+(?:at|@|for)\s+(?P<org>\S.{0,80})$")
_ZH_VERB_FIRST = re.compile(r"^(?:住在|住|搬到|搬去|在.{1,30}(?:工作|上班|任职)|加入|入职|跳槽|担任|喝|改喝|是)")


def is_about_owner(parsed: ParsedNote) -> bool:
    """A note that describes the vault's owner: an "About me" title or alias, or a profile type in frontmatter."""
    names = {parsed.title.strip().lower(), *(a.strip().lower() for a in parsed.aliases)}
    if names & ABOUT_ME_TITLES:
        return True
    kind = parsed.frontmatter.get("type") if isinstance(parsed.frontmatter, dict) else None
    return isinstance(kind, str) and kind.strip().lower() in ABOUT_ME_TYPES


def owner_statement(text: str) -> str:
    """A line from a note about the owner, as the owner would say it: `designer at Blue Fern` →
    `I work as a designer at Blue Fern`, `moved to Utrecht` → `I moved to Utrecht`, `住在上海` → `我住在上海`."""
    text = text.strip().rstrip(".。")
    if not text or FIRST_PERSON.search(text):
        return text
    if re.search(r"[\u4e00-\u9fff]", text):
        return "我" + text if _ZH_VERB_FIRST.match(text) else text
    if _VERB_FIRST.match(text):
        return "I " + text[0].lower() + text[1:]
    role_at = _ROLE_AT.match(text)
    if role_at and not role_at.group("role").lower().startswith(("the ", "a meeting", "meeting")):
        role = role_at.group("role").strip()
        article = "an" if role[:1].lower() in "aeiou" else "a"
        return f"I work as {article} {role[0].lower() + role[1:]} at {role_at.group('org').strip()}"
    return text
