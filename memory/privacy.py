"""Redaction: find secrets, ID and card numbers in text and replace them with tokens.

A separate layer from storage: callers scrub what they store, display or send to a model.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any

from .errors import BadInputError

__all__ = [
    "Finding",
    "RedactionResult",
    "RedactionSettings",
    "Redactor",
    "settings_from_dict",
]

_FLAGS = re.ASCII  # \w and \b must not treat CJK characters as word characters


@dataclass
class RedactionSettings:
    """Which kinds of sensitive text are redacted; saved in the settings file."""

    secrets: bool = True
    national_ids: bool = True
    bank_cards: bool = True
    emails: bool = False
    phones: bool = False
    custom_patterns: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON/TOML-ready dict."""
        return asdict(self)


def settings_from_dict(data: Mapping[str, Any] | None) -> RedactionSettings:
    """Settings from a saved dict; unknown keys are ignored, bad values raise BadInputError."""
    data = dict(data or {})
    settings = RedactionSettings()
    for name in ("secrets", "national_ids", "bank_cards", "emails", "phones"):
        if name in data:
            value = data[name]
            if not isinstance(value, bool):
                raise BadInputError(f"redaction setting {name!r} must be true or false, got {value!r}")
            setattr(settings, name, value)
    patterns = data.get("custom_patterns", [])
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise BadInputError(f"redaction setting 'custom_patterns' must be a list of strings, got {patterns!r}")
    _compile_custom(patterns)
    settings.custom_patterns = list(patterns)
    return settings


@dataclass(frozen=True)
class Finding:
    """A redacted span of the original text."""

    kind: str
    start: int
    end: int


@dataclass
class RedactionResult:
    text: str
    found: list[Finding]


Finder = Callable[[str], Iterable[Finding]]


def token(kind: str) -> str:
    """The text that replaces a finding of this kind."""
    return f"[REDACTED:{kind}]"


# --- secrets -------------------------------------------------------------------------------

_PEM_BEGIN = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----")
_PEM_END = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----")


def _find_private_keys(text: str) -> Iterator[Finding]:
    """PEM private key blocks, header to footer (searched forward once, so linear)."""
    position = 0
    while begin := _PEM_BEGIN.search(text, position):
        end = _PEM_END.search(text, begin.end())
        if end is None:
            return
        yield Finding("private_key", begin.start(), end.end())
        position = end.end()


_PROVIDER_KEY = re.compile(
    r"""(?<![\w-])(?:
        sk-ant-[\w-]{20,}                            # Anthropic
      | sk-(?:proj-|svcacct-|admin-)?[\w-]{20,}      # OpenAI
      | gh[pousr]_[A-Za-z0-9]{30,}                   # GitHub classic tokens
      | github_pat_\w{22,}                           # GitHub fine-grained tokens
      | (?:AKIA|ASIA)[0-9A-Z]{16}                    # AWS access key id
      | xox[abprs]-[A-Za-z0-9-]{10,}                 # Slack
      | AIza[\w-]{30,}                               # Google
    )(?![\w-])""",
    re.VERBOSE | _FLAGS,
)

_JWT = re.compile(r"(?<![\w-])eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}(?![\w-])", _FLAGS)

_BEARER = re.compile(r"\bbearer[ \t]+(?P<value>(?=[\w.~+/-]*\d)[\w.~+/-]{15,}[\w~+/-]=*)", re.IGNORECASE | _FLAGS)

_AWS_SECRET = re.compile(
    r"""\baws[ _-]?secret(?:[ _-]?access)?(?:[ _-]?key)?["']?[ \t]*(?:[:=]|\bis\b)[ \t]*["']?
        (?P<value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])""",
    re.VERBOSE | re.IGNORECASE | _FLAGS,
)

# A bare value is a run of printable ASCII; trailing sentence punctuation stays in the text.
_VALUE = r"""(?:"(?P<dq>[^"\n]+)"|'(?P<sq>[^'\n]+)'|(?P<bare>(?:(?!["',;])[!-~])+?)(?=[.!?)\]]*(?:[^!-~]|[,;"']|$)))"""

_ASSIGNMENT = re.compile(
    r"""(?P<label>\b[\w-]{0,40}?
          (?:api[_-]?key|apikey|access[_-]?key|secret|token|password|passphrase|passwd|pwd)
          (?:[_-]?access)?(?:[_-]?key)?)
        (?![\w-])["']?(?P<sep>[ \t]*(?::=|=>|=|:)[ \t]*|[ \t]+is[ \t]+)"""
    + _VALUE,
    re.VERBOSE | re.IGNORECASE | _FLAGS,
)

_CN_ASSIGNMENT = re.compile(
    r"(?P<label>密码|密碼|口令|密钥|秘钥|令牌)(?:是|为|為|：|:|=|\s)+" + _VALUE,
    _FLAGS,
)

_PLACEHOLDER_PREFIXES = ("[REDACTED", "$", "<", "{{", "***", "os.environ", "getenv(")


def _label_kind(label: str) -> str:
    label = label.lower()
    if any(word in label for word in ("pass", "pwd", "密码", "密碼", "口令")):
        return "password"
    if "token" in label or "令牌" in label:
        return "token"
    if "secret" in label or "密钥" in label or "秘钥" in label:
        return "secret"
    return "api_key"


def _plausible_secret(kind: str, value: str) -> bool:
    """Keep ordinary words and numbers (`tokens: 500`) out of token/secret assignments."""
    if value.startswith(_PLACEHOLDER_PREFIXES):
        return False
    if kind == "password":
        return True
    return len(value) >= 8 and not value.isdigit()


def _value_span(match: re.Match[str]) -> tuple[int, int]:
    groups = match.groupdict()
    for name in ("value", "dq", "sq", "bare"):
        if groups.get(name) is not None:
            return match.span(name)
    return match.span()


def _regex_finder(kind: str, pattern: re.Pattern[str], check: Callable[[str], bool] | None = None) -> Finder:
    """Findings for each match (or its value group) that passes `check`."""

    def find(text: str) -> Iterator[Finding]:
        for match in pattern.finditer(text):
            start, end = _value_span(match)
            if end > start and (check is None or check(text[start:end])):
                yield Finding(kind, start, end)

    return find


def _assignment_finder(pattern: re.Pattern[str]) -> Finder:
    """`password=…`-style findings: only the value is redacted, kind taken from the label."""

    def find(text: str) -> Iterator[Finding]:
        for match in pattern.finditer(text):
            kind = _label_kind(match.group("label"))
            start, end = _value_span(match)
            value = text[start:end]
            if match.groupdict().get("sep", "").strip() == "is" and value.isalpha():
                continue  # "the password is weak" is prose, "the password is hunter2" is not
            if _plausible_secret(kind, value):
                yield Finding(kind, start, end)

    return find


# --- national IDs -------------------------------------------------------------------------

_CN_ID18 = re.compile(
    r"(?<!\w)[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?!\w)", _FLAGS
)
_CN_ID15 = re.compile(r"(?<!\w)[1-9]\d{5}\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}(?!\w)", _FLAGS)
_US_SSN = re.compile(r"(?<![\w-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\w-])", _FLAGS)
_UK_NINO = re.compile(
    r"(?<!\w)(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?!\w)", _FLAGS
)

_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def _valid_date(year: int, month: int, day: int) -> bool:
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


def cn_id_checksum_ok(number: str) -> bool:
    """ISO 7064 MOD 11-2 check of an 18-character Chinese resident ID number."""
    if len(number) != 18 or not number[:17].isdigit():
        return False
    total = sum(int(digit) * weight for digit, weight in zip(number[:17], _ID_WEIGHTS))
    return _ID_CHECK[total % 11] == number[17].upper()


def _valid_cn_id18(number: str) -> bool:
    birth = _valid_date(int(number[6:10]), int(number[10:12]), int(number[12:14]))
    return birth and cn_id_checksum_ok(number)


def _valid_cn_id15(number: str) -> bool:
    return _valid_date(1900 + int(number[6:8]), int(number[8:10]), int(number[10:12]))


# --- bank cards ---------------------------------------------------------------------------

# At most 25 groups per run keeps backtracking linear on long lists of numbers.
_DIGIT_RUN = re.compile(r"(?<![\w-])(?<!\d\.)\d+(?:[ -]\d+){0,24}(?![\w-]|\.\d)", _FLAGS)
CARD_MIN_DIGITS = 13
CARD_MAX_DIGITS = 19


def luhn_ok(digits: str) -> bool:
    """The Luhn checksum used by payment card numbers."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _card_prefix(digits: str) -> bool:
    """Issuer prefixes: Visa 4, Mastercard 51–55/2221–2720, Maestro 5/6, Discover/UnionPay 6, Amex/JCB/Diners 3x."""
    if digits[0] in "456":
        return True
    if digits[0] == "3":
        return digits[1] in "0456789"
    return digits[0] == "2" and 2221 <= int(digits[:4]) <= 2720


def _card_shaped(groups: list[str]) -> bool:
    """One run of 13–19 digits, or groups like 4-4-4-4, 4-6-5, 4-4-4-4-3."""
    digits = "".join(groups)
    if not CARD_MIN_DIGITS <= len(digits) <= CARD_MAX_DIGITS or not _card_prefix(digits):
        return False
    if len(groups) == 1:
        return True
    return len(groups[0]) == 4 and all(3 <= len(group) <= 6 for group in groups[1:])


def _find_bank_cards(text: str) -> Iterator[Finding]:
    """Card numbers inside runs of digit groups; the longest Luhn-valid stretch wins."""
    for run in _DIGIT_RUN.finditer(text):
        groups = list(re.finditer(r"\d+", run.group()))
        i = 0
        while i < len(groups):
            for j in range(min(len(groups), i + CARD_MAX_DIGITS), i, -1):
                parts = [g.group() for g in groups[i:j]]
                if _card_shaped(parts) and luhn_ok("".join(parts)):
                    yield Finding("bank_card", run.start() + groups[i].start(), run.start() + groups[j - 1].end())
                    i = j
                    break
            else:
                i += 1


# --- contact details ----------------------------------------------------------------------

_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-])", _FLAGS)
_PHONE = re.compile(
    r"""(?<![\w+-])(?:
        (?:\+?86[ -]?)?1[3-9]\d[ -]?\d{4}[ -]?\d{4}          # Chinese mobile
      | \+\d{1,3}(?:[ -]?\(?\d{1,4}\)?){2,5}                 # international
      | \(?\d{3}\)?[ .-]\d{3}[ .-]\d{4}                      # North American
    )(?![\w-])""",
    re.VERBOSE | _FLAGS,
)


def _phone_digits_ok(value: str) -> bool:
    return 7 <= sum(char.isdigit() for char in value) <= 15


# --- the redactor -------------------------------------------------------------------------


def _compile_custom(patterns: list[str]) -> list[re.Pattern[str]]:
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(re.compile(pattern))
        except re.error as error:
            raise BadInputError(f"bad custom redaction pattern {pattern!r}: {error}") from None
    return compiled


def _finders(settings: RedactionSettings) -> list[Finder]:
    """Finders in priority order: on overlap, the earlier finder wins."""
    finders: list[Finder] = []
    if settings.secrets:
        finders += [
            _find_private_keys,
            _regex_finder("api_key", _PROVIDER_KEY),
            _regex_finder("token", _JWT),
            _regex_finder("token", _BEARER),
            _regex_finder("secret", _AWS_SECRET),
            _assignment_finder(_ASSIGNMENT),
            _assignment_finder(_CN_ASSIGNMENT),
        ]
    finders += [_regex_finder("custom", pattern) for pattern in _compile_custom(settings.custom_patterns)]
    if settings.national_ids:
        finders += [
            _regex_finder("national_id", _CN_ID18, _valid_cn_id18),
            _regex_finder("national_id", _CN_ID15, _valid_cn_id15),
            _regex_finder("national_id", _US_SSN),
            _regex_finder("national_id", _UK_NINO),
        ]
    if settings.bank_cards:
        finders.append(_find_bank_cards)
    if settings.emails:
        finders.append(_regex_finder("email", _EMAIL))
    if settings.phones:
        finders.append(_regex_finder("phone", _PHONE, _phone_digits_ok))
    return finders


def _overlaps(finding: Finding, taken: list[Finding]) -> bool:
    return any(finding.start < other.end and other.start < finding.end for other in taken)


class Redactor:
    """Replaces sensitive spans with `[REDACTED:kind]`, keeping the rest of the text exactly."""

    def __init__(self, settings: RedactionSettings | None = None) -> None:
        self.settings = settings or RedactionSettings()
        self._finders = _finders(self.settings)

    def find(self, text: str) -> list[Finding]:
        """Non-overlapping findings, in text order."""
        taken: list[Finding] = []
        for finder in self._finders:
            for finding in sorted(finder(text), key=lambda f: (f.start, f.start - f.end)):
                if not _overlaps(finding, taken):
                    taken.append(finding)
        return sorted(taken, key=lambda f: f.start)

    def redact(self, text: str) -> RedactionResult:
        """The redacted text and what was found (spans refer to the original text)."""
        found = self.find(text)
        pieces, cursor = [], 0
        for finding in found:
            pieces += [text[cursor : finding.start], token(finding.kind)]
            cursor = finding.end
        pieces.append(text[cursor:])
        return RedactionResult("".join(pieces), found)

    def scrub(self, text: str) -> str:
        """Just the redacted text."""
        return self.redact(text).text
