"""Redaction: find secrets, ID, card and account numbers in text and replace them with tokens.

A separate layer from storage: the write path scrubs everything it stores, displays or sends to a
model with one `Redactor` built from the saved settings (`Redactor(settings_from_dict(saved))`):
`scrub(text)` for a text, `scrub_many(texts)` for many short ones (tags, titles), `scrub_data(value)`
for parsed frontmatter (a key labels its value), `needs_redaction(text)` for checks. Scrub whole
texts before splitting them into tokens or entities: labels and values are read in context.
The detectors live in `secret_detectors` and `number_detectors`.
"""
from __future__ import annotations

import hashlib

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from typing import Any

from . import number_detectors as numbers
from .errors import BadInputError
from .secret_detectors import SECRET_DETECTORS, Span

__all__ = [
    "Finding",
    "RedactionResult",
    "RedactionSettings",
    "Redactor",
    "settings_from_dict",
    "token",
]


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
    """The redacted text and what was replaced (spans into the original text)."""

    text: str
    found: list[Finding]


Detector = Callable[[str], Iterable[Span]]


def token(kind: str) -> str:
    """The text that replaces a finding of this kind."""
    return f"[REDACTED:{kind}]"


def _replace(text: str, found: Iterable[Finding], shift: int = 0) -> str:
    """`text` with each finding (in text order, spans moved left by `shift`) replaced by its token.

    A finding that spans lines keeps its line breaks after the token, so line numbers still hold."""
    pieces, cursor = [], 0
    for finding in found:
        start = max(0, finding.start - shift)
        pieces += [text[cursor:start], token(finding.kind), "\n" * text.count("\n", start, finding.end - shift)]
        cursor = finding.end - shift
    pieces.append(text[cursor:])
    return "".join(pieces)


def _compile_custom(patterns: list[str]) -> list[re.Pattern[str]]:
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(re.compile(pattern))
        except re.error as error:
            raise BadInputError(f"bad custom redaction pattern {pattern!r}: {error}") from None
    return compiled


def _custom_detector(pattern: re.Pattern[str]) -> Detector:
    """Each match of a user pattern, or its `value` group when it has one."""

    def find(text: str) -> Iterator[Span]:
        for match in pattern.finditer(text):
            group = "value" if "value" in pattern.groupindex and match.group("value") is not None else 0
            if match.end(group) > match.start(group):
                yield "custom", match.start(group), match.end(group)

    return find


def _detectors(settings: RedactionSettings) -> list[Detector]:
    """Detectors in priority order: on overlap, the earlier detector wins."""
    detectors: list[Detector] = list(SECRET_DETECTORS) if settings.secrets else []
    detectors += [_custom_detector(pattern) for pattern in _compile_custom(settings.custom_patterns)]
    labelled = {"bank_card", "bank_account", "iban"} if settings.bank_cards else set()
    if settings.national_ids:
        labelled |= {"national_id", "member_id"}  # membership, policy and patient numbers identify a person too
    if labelled:
        detectors.append(numbers.LabelledNumbers(frozenset(labelled)))
    if settings.national_ids:
        detectors.append(numbers.find_national_ids)
    if settings.bank_cards:
        detectors += [numbers.find_bank_cards, numbers.find_ibans]
    if settings.emails:
        detectors.append(numbers.find_emails)
    if settings.phones:
        detectors.append(numbers.find_phones)
    return detectors


class _Taken:
    """Disjoint spans kept sorted, so an overlap test is a binary search."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def add_if_free(self, start: int, end: int) -> bool:
        index = bisect_left(self.starts, start)
        if index > 0 and self.ends[index - 1] > start:
            return False
        if index < len(self.starts) and self.starts[index] < end:
            return False
        self.starts.insert(index, start)
        self.ends.insert(index, end)
        return True


_SEPARATOR = "\x00"  # no detector reads across it: labels, values and digit runs all stop there


class Redactor:
    """Replaces sensitive spans with `[REDACTED:kind]`, keeping the rest of the text exactly."""

    def __init__(self, settings: RedactionSettings | None = None) -> None:
        self.settings = settings or RedactionSettings()
        self._detectors = _detectors(self.settings)

    def find(self, text: str) -> list[Finding]:
        """Non-overlapping findings, in text order."""
        taken = _Taken()
        found: list[Finding] = []
        for detector in self._detectors:
            for kind, start, end in sorted(detector(text), key=lambda span: (span[1], span[1] - span[2])):
                if end > start and taken.add_if_free(start, end):
                    found.append(Finding(kind, start, end))
        return sorted(found, key=lambda f: f.start)

    def needs_redaction(self, text: str) -> bool:
        """Whether the text still holds anything this redactor would replace (for checks and tests)."""
        return any(end > start for detector in self._detectors for _, start, end in detector(text))

    def redact(self, text: str) -> RedactionResult:
        """The redacted text and what was found (spans refer to the original text)."""
        found = self.find(text)
        return RedactionResult(_replace(text, found), found)

    def scrub(self, text: str) -> str:
        """Just the redacted text."""
        return self.redact(text).text if text else text

    def scrub_many(self, texts: Sequence[str]) -> list[str]:
        """Each text scrubbed, as `scrub` would, in one pass over them joined (cheaper for many short texts)."""
        if len(texts) < 2 or any(_SEPARATOR in text for text in texts):
            return [self.scrub(text) for text in texts]
        joined = _SEPARATOR.join(texts)
        found = self.find(joined)
        if any(_SEPARATOR in joined[f.start : f.end] for f in found):
            return [self.scrub(text) for text in texts]  # a finding spans two texts: no shortcut
        return _replace(joined, found).split(_SEPARATOR)

    def path_ref(self, path: str) -> str:
        """How a file path is stored and shown: itself, or when it holds a secret, the path redacted plus a
        short fingerprint of the real path (so the file is still found by the same path, never by its secret)."""
        scrubbed = self.scrub(path)
        if scrubbed == path:
            return path
        return f"{scrubbed} #{hashlib.sha256(path.encode('utf-8', 'surrogatepass')).hexdigest()[:12]}"

    def scrub_data(self, value: Any) -> Any:
        """Strings inside parsed data (frontmatter) scrubbed; a mapping key labels its value (`password: x`)."""
        return self._scrub_value(value, None)

    def _scrub_value(self, value: Any, key: str | None) -> Any:
        if isinstance(value, Mapping):
            return {self._scrub_value(k, None) if isinstance(k, str) else k: self._scrub_value(v, str(k))
                    for k, v in value.items()}
        if isinstance(value, (list, tuple, set)):
            items = [self._scrub_value(item, key) for item in value]
            return items if isinstance(value, list) else type(value)(items)
        if isinstance(value, bool) or value is None or isinstance(value, (date, datetime)):
            return value
        if isinstance(value, (str, int, float)):
            text = str(value)
            scrubbed = self._scrub_labelled(text, key) if key else self.scrub(text)
            return value if scrubbed == text else scrubbed
        return value

    def _scrub_labelled(self, text: str, key: str) -> str:
        """Scrub `text` as the value of `key: text`, so the key's label applies."""
        prefix = f"{key}: "
        found = [f for f in self.find(prefix + text) if f.end > len(prefix)]
        return _replace(text, found, shift=len(prefix))
