"""Secret detectors: private key blocks, provider tokens, JWTs, auth headers, labelled passwords and keys.

Each detector takes a text and yields `(kind, start, end)` spans. Provider token shapes come from
`detect-secrets` where it has them; labels in English and Chinese, multi-line key blocks and the
value rules are ours.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cache

Span = tuple[str, int, int]

_ASCII_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def starts_word(text: str, start: int) -> bool:
    """No ASCII letter or digit right before `start` (`_`, `-`, punctuation and CJK are boundaries)."""
    return start == 0 or text[start - 1] not in _ASCII_ALNUM


def ends_word(text: str, end: int) -> bool:
    """No ASCII letter or digit right at `end`."""
    return end >= len(text) or text[end] not in _ASCII_ALNUM


# --- private key blocks (multi-line) ------------------------------------------------------

_KEY_BEGIN = re.compile(r"-{3,5} ?BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)? ?-{3,5}|PuTTY-User-Key-File-\d+:")
_KEY_END = re.compile(r"-{3,5} ?END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)? ?-{3,5}|Private-MAC: ?[0-9a-fA-F]+")
_KEY_GATE = re.compile(r"PRIVATE KEY|PuTTY-User-Key-File")
_KEY_BODY_LINE = re.compile(r"[ \t>]*(?:[A-Za-z0-9+/=]+|[A-Za-z][\w-]*: [^\n]*)[ \t]*(?:\\n)?")


def find_private_keys(text: str) -> Iterator[Span]:
    """PEM, OpenSSH, PGP and PuTTY private keys, header to footer; a block cut short runs to its last body line."""
    if _KEY_GATE.search(text) is None:
        return
    position, footer, no_footer_from = 0, None, len(text) + 1
    while begin := _KEY_BEGIN.search(text, position):
        if (footer is None or footer.start() < begin.end()) and begin.end() < no_footer_from:
            footer = _KEY_END.search(text, begin.end())  # searched again only once passed: linear
            if footer is None:
                no_footer_from = begin.end()
        end = footer if footer is not None and footer.start() >= begin.end() else None
        stop = end.end() if end else _body_end(text, begin.end())
        if stop > begin.end():  # a lone header with no key material after it holds no secret
            yield "private_key", begin.start(), stop
        position = stop


def _body_end(text: str, position: int) -> int:
    """End of the key-looking lines after a header with no footer (base64 lines and `Name: value` headers)."""
    stop = position
    line_start = text.find("\n", position) + 1
    while 0 < line_start < len(text):
        body = _KEY_BODY_LINE.fullmatch(text, line_start, _line_end(text, line_start))
        if body is None:
            break
        stop = body.end()
        line_start = stop + 1
    return stop


def _line_end(text: str, position: int) -> int:
    end = text.find("\n", position)
    return len(text) if end < 0 else end


# --- provider tokens ----------------------------------------------------------------------

@dataclass(frozen=True)
class TokenPattern:
    """One token shape; when there is a `gate`, the pattern runs only on texts the gate matches."""

    pattern: re.Pattern[str]
    kind: str = "api_key"
    gate: re.Pattern[str] | None = None
    use_group: bool = False  # the secret is the longest matched group, not the whole match
    random_looking: bool = False  # require a letter and a digit in the match
    dense: bool = True  # every match holds a run of 15 token characters (see _DENSE_RUN)


def _own(pattern: str) -> TokenPattern:
    return TokenPattern(re.compile(pattern, re.ASCII), random_looking=True)


# What detect-secrets lacks. Literal-prefixed, so the regex engine skips ahead fast; word boundaries
# are checked after the match. (GitHub classic and AWS key ids come from detect-secrets.)
_OWN_TOKENS = (
    _own(r"sk-(?:ant-(?:api\d\d-)?|proj-|svcacct-|admin-)?[\w-]{20,}"),  # Anthropic, OpenAI
    _own(r"github_pat_\w{22,}"),                                         # GitHub fine-grained
    _own(r"xox[abprs]-[A-Za-z0-9-]{10,}"),                               # Slack
    _own(r"AIza[\w-]{30,}"),                                             # Google
    _own(r"hf_[A-Za-z0-9]{30,}"),                                        # Hugging Face
)


@cache
def _library_tokens() -> tuple[TokenPattern, ...]:
    """Token shapes maintained in detect-secrets (its `denylist` regexes).

    A regex that does not start with a literal is slow to search, so it runs only where its
    literal-led `gate` matches. detect-secrets' keyword detectors (IBM, Cloudant, SoftLayer
    keys, AWS secrets in quotes) are left out: `find_labelled_secrets` covers `…key = <token>`.
    """
    from detect_secrets.plugins import (
        artifactory,
        aws,
        azure_storage_key,
        basic_auth,
        cloudant,
        discord,
        github_token,
        gitlab_token,
        mailchimp,
        npm,
        openai,
        pypi_token,
        sendgrid,
        slack,
        softlayer,
        square_oauth,
        stripe,
        telegram_token,
        twilio,
    )

    def of(*patterns, kind="api_key", gate=None, use_group=True, dense=True):
        compiled_gate = re.compile(gate) if gate else None
        return [TokenPattern(p, kind, compiled_gate, use_group, dense=dense) for p in patterns]

    return tuple(
        of(aws.AWSKeyDetector.denylist[0])
        + of(*azure_storage_key.AzureStorageKeyDetector.denylist, dense=False)
        + of(*basic_auth.BasicAuthDetector.denylist, kind="password", dense=False)
        + of(*discord.DiscordBotTokenDetector.denylist, gate=r"\.[\w-]{6}\.[\w-]{27}")
        + of(*github_token.GitHubTokenDetector.denylist, use_group=False)
        + of(*gitlab_token.GitLabTokenDetector.denylist, use_group=False)
        + of(*mailchimp.MailchimpDetector.denylist, gate=r"-us\d")
        + of(*npm.NpmDetector.denylist, gate=r"_authToken", dense=False)  # `//.+/` is quadratic on long lines
        + of(*openai.OpenAIDetector.denylist)
        + of(*pypi_token.PypiTokenDetector.denylist)
        + of(*sendgrid.SendGridDetector.denylist)
        + of(slack.SlackDetector.denylist[0], gate=r"-(?:\d+-)+[a-z0-9]", dense=False)
        + of(slack.SlackDetector.denylist[1], gate=r"hooks\.slack\.com")
        + of(*square_oauth.SquareOAuthDetector.denylist)
        + of(*stripe.StripeDetector.denylist, gate=r"k_live_")
        + of(*telegram_token.TelegramBotTokenDetector.denylist, gate=r":[0-9A-Za-z_-]{35}")
        + of(*twilio.TwilioKeyDetector.denylist)
        + of(*artifactory.ArtifactoryDetector.denylist, gate=r"AKC[a-zA-Z0-9]{10}|AP[\dA-F][a-zA-Z0-9]{8}",
             dense=False)
        + of(*cloudant.CloudantDetector.denylist[2:], gate=r"\.cloudant\.com")
        + of(softlayer.SoftlayerDetector.denylist[1], gate=r"api\.softlayer\.com")
    )


_TRIM = " \t\r\n\"'=:"
_TOKEN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+/")


def _token_span(match: re.Match[str], use_group: bool) -> tuple[int, int]:
    if use_group and match.lastindex:
        spans = [match.span(i) for i in range(1, match.lastindex + 1) if match.start(i) >= 0]
        if spans:
            return max(spans, key=lambda span: span[1] - span[0])
    start, end = match.span()
    text = match.string
    while start < end and text[start] in _TRIM:
        start += 1
    while end > start and text[end - 1] in _TRIM:
        end -= 1
    while end < len(text) and text[end] in _TOKEN_CHARS:  # a fixed-length shape still runs to its token's end
        end += 1
    return start, end


def _has_letter_and_digit(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


_DENSE_RUN = re.compile(r"[\w.\\-]{15}", re.ASCII)  # most token shapes hold one; most prose does not


def find_provider_tokens(text: str) -> Iterator[Span]:
    """Cloud, API and chat-platform tokens recognised by their shape."""
    dense = _DENSE_RUN.search(text) is not None
    for token in _OWN_TOKENS + _library_tokens():
        if (token.dense and not dense) or (token.gate is not None and token.gate.search(text) is None):
            continue
        for match in token.pattern.finditer(text):
            start, end = _token_span(match, token.use_group)
            if end <= start or not starts_word(text, start):
                continue
            if token.random_looking and not (ends_word(text, end) and _has_letter_and_digit(text[start:end])):
                continue
            yield token.kind, start, end


# --- JWTs and Authorization headers -------------------------------------------------------

_JWT = re.compile(r"eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]*(?:\.[\w-]+\.[\w-]+)?", re.ASCII)


def find_jwts(text: str) -> Iterator[Span]:
    """JSON Web Tokens (signed, unsigned and encrypted forms)."""
    for match in _JWT.finditer(text):
        if starts_word(text, match.start()):
            yield "token", match.start(), match.end()


_AUTH_HEADER = re.compile(
    r"""(?:\bauthorization["']?[ \t]*[:=][ \t]*["']?(?:(?:basic|bearer|token)[ \t]+)?
          (?P<value>[A-Za-z0-9._~+/-]{7,}[A-Za-z0-9_~+/-]=*)
      | \bbearer[ \t]+(?P<bearer>(?=[\w.~+/-]*\d)[\w.~+/-]{15,}[\w~+/-]=*))""",
    re.VERBOSE | re.IGNORECASE | re.ASCII,
)
_AUTH_GATE = ("earer", "EARER", "uthorization", "UTHORIZATION")  # `in` beats a regex of mixed first letters


def find_auth_headers(text: str) -> Iterator[Span]:
    """`Authorization: Basic|Bearer|Token …` values and `Bearer …` tokens."""
    if not any(literal in text for literal in _AUTH_GATE):
        return
    for match in _AUTH_HEADER.finditer(text):
        group = "value" if match.group("value") is not None else "bearer"
        yield "token", match.start(group), match.end(group)


# --- labelled secrets: `password: …`, `api_key = "…"`, `密码是…` ----------------------------

# the start of a label's keyword: pass, pwd, pw, pin; secret; token; key; code (every letter pair of one keyword, not
# of another: "tin" of "meeting" is no hit); the lookahead lets the engine skip other letters fast
_EN_HIT = re.compile(r"(?=[PpSsTtKkCc])(?:[Pp](?:ass|ASS|wd|WD|[wW][^A-Za-z0-9]|IN|in)|[Ss](?:ecret|ECRET)"
                     r"|[Tt](?:oken|OKEN)|[Kk](?:ey|EY)|[Cc]ode|CODE)")
_CN_HIT = re.compile(r"密码|密碼|口令|密钥|密鑰|秘钥|秘鑰|令牌")

_EN_LABEL = re.compile(
    r"""(?<![A-Za-z0-9])[\w-]{0,40}?
    (?: (?P<api_key>api[ _-]?(?:key|token|secret) | apikey
                   | (?:access|license|licence|encryption|signing|master|client|app)[ _-]?key)
      | (?P<private_key>private[ _-]?key)
      | (?P<secret>secret(?:[ _-]?(?:access[ _-]?)?key)?)
      | (?P<token>token)
      | (?P<key>key)
      | (?P<password>pass(?:word|wd|phrase|code)? | pass[ _-]word | pwd | pw
                    | pin(?:[ _-]?(?:code|number)|码|碼)?
                    | (?:front[ _-]?door|door|gate|alarm|building|entry|entrance|lock|safe|keypad|garage|locker|access
                      |security|lockbox|key[ _-]?safe|key[ _-]?box)[ _-]?code)
    )(?![A-Za-z0-9])
    (?:[ \t]+(?:for|of|to|on|at)[ \t]+(?:(?:the|my|our|this|that)[ \t]+)?[\w.@'’-]{1,40})?   # password for gmail: …,
                                                    # door code for the villa is …
    (?:\*\*|__|[*_`])?(?:["']\]?)?                 # **password**, "password", ['password']
    (?P<sep> [ \t]*(?::=|=>|==|=|:|：)[ \t]*(?P<newline>\n[ \t>]*)?
           | [ \t]+\|[ \t]+                        # a table row; `[[x|y]]` is a link alias
           | [ \t]+(?:is|was)[ \t]+
           | [ \t]*(?:是|为|為)[ \t]*
           | (?P<aside>[ \t,]+(?:[\w'’]+[ \t,]+){0,8}?[\w'’]+[ \t]*:[ \t]*)  # `the wifi pw here so i dont lose it: …`
           | (?P<space>[ \t]+) )                       # `my password Tr0ub4dor!`: password-like values only""",
    re.VERBOSE | re.IGNORECASE | re.ASCII,
)
_CN_LABEL = re.compile(
    r"(?:(?P<password>密码|密碼|口令)|(?P<secret>密钥|密鑰|秘钥|秘鑰)|(?P<token>令牌))"
    r"(?P<sep>[ \t]*(?:是|为|為|：|:|=)?[ \t]*(?P<newline>\n[ \t>]*)?)"
)
_KINDS = ("api_key", "private_key", "secret", "token", "key", "password")
_LABEL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")

_MAX_VALUE = 4096
_VALUE = re.compile(
    r"""(?:"(?P<dq>(?:[^"\\\n]|\\.){1,4096})"
         |'(?P<sq>(?:[^'\\\n]|\\.){1,4096})'
         |`(?P<bq>[^`\n]{1,4096})`
         |[“「『](?P<cq>[^”」』\n]{1,4096})[”」』]
         |["'`]?(?P<bare>[!-~]{1,4096}))""",
    re.VERBOSE,
)
_YAML_BLOCK = re.compile(r"[|>][+-]?\d?")
_YAML_BLOCK_LINE = re.compile(r"[ \t]*\n[ \t]+(?P<line>[^\n]*[^\s])")
_NEXT_ASSIGNMENT = re.compile(r"[A-Za-z_][\w.-]*=", re.ASCII)
_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}
_PLACEHOLDER_PREFIXES = ("[REDACTED", "$", "<", "{{", "%(", "***", "os.environ", "getenv(", "process.env", "ENV[")
_NOT_SECRETS = frozenset(
    "none null nil n/a na empty true false yes no required optional hidden unknown tbd todo same redacted".split()
)


def _bare_end(text: str, start: int, end: int) -> int:
    """A bare value runs to the end of its token; list separators and unopened closers stay outside."""
    for index in range(start, end):
        char = text[index]
        if char in ",;" and (index + 1 == end or _NEXT_ASSIGNMENT.match(text, index + 1, end)):
            end = index
            break
        if char == "&" and _NEXT_ASSIGNMENT.match(text, index + 1, end):
            end = index
            break
    while end > start:
        last = text[end - 1]
        value = text[start:end]
        if last in _CLOSERS and value.count(_CLOSERS[last]) < value.count(last):
            end -= 1
        elif last in "\"'`" and value.count(last) % 2 == 1:
            end -= 1
        else:
            break
    return end


def _value_span(text: str, position: int) -> tuple[int, int] | None:
    match = _VALUE.match(text, position, min(len(text), position + _MAX_VALUE + 2))
    if match is None:
        return None
    for group in ("dq", "sq", "bq", "cq"):
        if match.group(group) is not None:
            return match.span(group)
    if _YAML_BLOCK.fullmatch(match.group("bare")):  # `password: |` puts the value on the next line
        block = _YAML_BLOCK_LINE.match(text, match.end("bare"))
        return block.span("line") if block else None
    start = match.start("bare")
    end = _bare_end(text, start, match.end("bare"))
    return (start, end) if end > start else None


def _plausible(kind: str, value: str, loose_separator: bool) -> bool:
    """Keep prose (`the password is weak`, `tokens: 500`, `secret: practice.`) out of the findings."""
    core = value.rstrip(".!?,;:")
    if not core or value.startswith(_PLACEHOLDER_PREFIXES) or core.lower() in _NOT_SECRETS:
        return False
    if loose_separator and (core.strip("*_`").isalpha() or len(core) < 4):
        return False
    if kind == "password":
        return not (set(core) <= {"*", "•"} or (len(core) >= 3 and set(core) <= {"x", "X"}))
    if kind == "key":  # `key: …` alone: only a token-like value is a secret (`hotkey: Ctrl+K` is not)
        return len(core) >= 16 and _has_letter_and_digit(core)
    if len(core) < 8 or core.isdigit():
        return False
    return not (core.isalpha() and (core.islower() or core.isupper() or core.istitle()))


def _label_starts(text: str, keyword: int) -> list[int]:
    """Where a label ending in the keyword at `keyword` may begin: its own word, or one or two words before."""
    starts, position = [], keyword
    for _ in range(3):
        while position > 0 and text[position - 1] in _LABEL_CHARS and keyword - position < 48:
            position -= 1
        starts.append(position)
        if position < 2 or text[position - 1] != " " or text[position - 2] not in _ASCII_ALNUM:
            break
        position -= 1
    return starts[::-1]


def _looks_like_password(value: str) -> bool:
    """A word right after "password" with no `:`/`is` between: a secret only if it mixes letters with
    digits or symbols (`Tr0ub4dor&3`), never plain prose (`password manager`, `password reset`)."""
    core = value.rstrip(".!?,;:")
    has_letter = any(c.isalpha() for c in core)
    has_other = any(c.isdigit() or (not c.isalnum() and c not in "-'") for c in core)
    return len(core) >= 6 and has_letter and has_other


_PIN = re.compile(r"[#*]?\d{4,8}[#*]?")


def _looks_like_token(value: str) -> bool:
    """A word right after "API key" or "token" with no `:`/`is` between: a secret only if it is token-shaped
    (`sk-live-9f8A2bQ7xLm30`), never prose (`API key rotation`)."""
    core = value.rstrip(".!?,;:")
    return len(core) >= 16 and _has_letter_and_digit(core)


def _labelled_value(text: str, match: re.Match[str]) -> Span | None:
    span = _value_span(text, match.end())
    if span is None:
        return None
    start, end = span
    groups = match.groupdict()
    kind = next(name for name in _KINDS if groups.get(name) is not None)
    label = groups[kind].lower()
    # a PIN, or the code of a door, a gate or an alarm ("building door code is 4471#"): digits only
    numeric = kind == "password" and (label[:3] == "pin" or label.endswith("code") and not label.startswith("pass"))
    pin_digits = numeric and bool(_PIN.fullmatch(text[start:end].rstrip(".!?,;:")))
    if kind != "password" or pin_digits:  # trailing sentence punctuation is no part of a token; in a password it may be
        while end > start and text[end - 1] in ".!?,;:":
            end -= 1
    value = text[start:end]
    if numeric and not pin_digits and (groups[kind][:3] in ("pin", "Pin") or label.endswith("code")):
        return None  # "pin" not in capitals labels only a PIN's digits ("my pin is 4829", not "the pin is bent")
    if (groups.get("space") is not None or groups.get("aside") is not None) and not (
            pin_digits or kind == "password" and _looks_like_password(value)
            or kind != "password" and _looks_like_token(value)):
        return None
    separator = match.group("sep").strip()
    loose = match.group("newline") is not None or separator in ("is", "was", "|", "")
    if kind == "password" and groups[kind].lower() == "pass":
        loose = True  # `pass: 3` is often not a password
    if not _plausible(kind, text[span[0] : span[1]], loose):
        return None
    return ("api_key" if kind == "key" else kind), start, end


def find_labelled_secrets(text: str) -> Iterator[Span]:
    """Values after secret labels, English (`password=…`, `API key: …`) and Chinese (`密码是…`)."""
    seen_end = -1
    for hit in _EN_HIT.finditer(text):
        if hit.start() < seen_end:
            continue
        for start in _label_starts(text, hit.start()):
            match = _EN_LABEL.match(text, start, min(len(text), hit.end() + 80))
            if match is not None and match.end() > hit.start() and (found := _labelled_value(text, match)):
                seen_end = found[2]
                yield found
                break
    for hit in _CN_HIT.finditer(text):
        match = _CN_LABEL.match(text, hit.start())
        if hit.start() >= seen_end and (found := _labelled_value(text, match)):
            yield found


SECRET_DETECTORS: tuple[Callable[[str], Iterable[Span]], ...] = (
    find_private_keys,
    find_provider_tokens,
    find_jwts,
    find_auth_headers,
    find_labelled_secrets,
)
