"""Number detectors: labelled card/account/ID numbers, bank cards, IBANs, national IDs, phones, emails.

Each detector takes a text and yields `(kind, start, end)` spans. Checksums come from
`python-stdnum` (Luhn, IBAN mod-97, Chinese resident ID, US SSN) and phone numbers are validated
with `phonenumbers`; labels (English and Chinese) and the shapes that find candidates are ours.
Everything numeric starts from one scan for runs of six or more digits, shared by the detectors.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import date
from functools import wraps
from typing import Any, TypeVar

from stdnum import iban, luhn
from stdnum.cn import ric
from stdnum.exceptions import ValidationError
from stdnum.us import ssn

from .secret_detectors import Span, ends_word, starts_word

T = TypeVar("T")


def memo_last_text(func: Callable[[str], T]) -> Callable[[str], T]:
    """Remember `func`'s result for the last text, so the detectors of one text share a scan."""
    last: list[tuple[str | None, Any]] = [(None, None)]

    @wraps(func)
    def wrapper(text: str) -> T:
        seen, result = last[0]  # one tuple, swapped whole: safe across threads
        if seen is not text:
            result = func(text)
            last[0] = (text, result)
        return result

    return wrapper


_DIGIT_RUN = re.compile(r"\d(?:[ -]?\d){5,}[Xx]?")
_GROUP = re.compile(r"\d+[Xx]?")


@memo_last_text
def digit_runs(text: str) -> list[tuple[int, int]]:
    """Spans of six or more digits joined by single spaces or dashes, shared by the number detectors."""
    return [match.span() for match in _DIGIT_RUN.finditer(text)]


def _standalone(text: str, start: int, end: int) -> bool:
    """Not glued to letters, and not the fraction of a decimal (`3.14159…`) or followed by one."""
    if not (starts_word(text, start) and ends_word(text, end)):
        return False
    if start >= 2 and text[start - 1] == "." and text[start - 2].isdigit():
        return False
    return not (end + 1 < len(text) and text[end] == "." and text[end + 1].isdigit())


def _groups(text: str, start: int, end: int) -> list[tuple[int, int]]:
    return [match.span() for match in _GROUP.finditer(text, start, end)]


# --- labelled numbers ---------------------------------------------------------------------

_NUMBER_SUFFIX = r"(?:[ _-]?(?:number|num|no\.?|nr\.?|\#))"
_NUMBER_LABEL = re.compile(
    rf"""(?:
        (?<![A-Za-z0-9])(?:
            (?P<card>(?:(?:credit|debit|bank|visa|master|amex|union[ ]?pay)[ _-]?)?card{_NUMBER_SUFFIX}?)
          | (?P<account>(?:bank[ _-]?)?account{_NUMBER_SUFFIX}? | acct\.?{_NUMBER_SUFFIX}? | a/c{_NUMBER_SUFFIX}?)
          | (?P<iban>iban)
          | (?P<id>ssn | social[ _-]security(?:[ _-]number)?
                 # "passport no. …", and as chat writes it: "my irish passport 🇮🇪 numbers PA4827193"
                 | passport(?:[ \t]+[^\sA-Za-z0-9]{{1,4}})?(?:{_NUMBER_SUFFIX}|[ ]numbers)?
                 | national[ _-]id{_NUMBER_SUFFIX}? | id[ _-]?card{_NUMBER_SUFFIX}?)
          | (?P<member>(?:membership|member|policy|customer|patient|nhs|insurance)(?:{_NUMBER_SUFFIX}|[ _-]?id))
        )(?![A-Za-z0-9])
      | (?P<cn_card>(?:银行|銀行|信用|借记|借記|储蓄|儲蓄)?卡(?:号|號)(?:码|碼)?
                   | (?:银行|銀行|信用|借记|借記|储蓄|儲蓄)卡)
      | (?P<cn_account>(?:银行|銀行|收款|付款|对公|對公)?(?:账|帐|賬|帳)(?:号|號|户|戶)(?:号码|號碼|号|號)?)
      | (?P<cn_id>身份[证證](?:号码|號碼|号|號)?|[护護]照(?:号码|號碼|号|號)?)
    )
    [*_`"'\]]{{0,3}}
    (?:[ \t]*[(（][^)）\n]{{0,12}}[)）])?
    (?P<sep>[ \t]*(?:[:：=\#]|\bis\b|\bwas\b|是|为|為)?[ \t]*)
    # letters that open the value: "PA4827193", "BP-88213407", "LMN-4482-9917-X", "HX 2231 9981 22"
    (?P<lead>[A-Za-z]{{1,4}}(?:\d{{2}}[ -]?(?:[A-Za-z0-9]{{1,4}}[ -]?){{0,2}}|-)?|(?-i:[A-Z]{{1,4}})[ ])?
    \Z""",
    re.VERBOSE | re.IGNORECASE | re.ASCII,
)
_LABEL_KINDS = {
    "card": "bank_card", "cn_card": "bank_card", "account": "bank_account", "cn_account": "bank_account",
    "iban": "iban", "id": "national_id", "cn_id": "national_id", "member": "member_id",
}
_BARE_LABELS = ("card", "account")
_IBAN_TAIL = re.compile(r"(?:[ -]?[A-Z0-9]{1,4}){1,6}(?![A-Za-z0-9])", re.ASCII)
LABELLED_MIN_DIGITS = 6
BARE_LABEL_MIN_DIGITS = 12  # `card 6222…` with no `number`/`:`/`是` needs a card-length number


class LabelledNumbers:
    """Numbers after card / account / IBAN / ID labels, redacted whether or not a checksum holds."""

    def __init__(self, kinds: frozenset[str]) -> None:
        self.kinds = kinds

    def __call__(self, text: str) -> Iterator[Span]:
        for start, end in digit_runs(text):
            label = _NUMBER_LABEL.search(text, max(0, start - 48), start)
            if label is None:
                continue
            group = _matched_label(label)
            kind = _LABEL_KINDS[group]
            if kind not in self.kinds:
                continue
            digits = sum(char.isdigit() for char in text[start:end])
            bare = label.group(group).lower() in _BARE_LABELS and not label.group("sep").strip()
            if digits < (BARE_LABEL_MIN_DIGITS if bare else LABELLED_MIN_DIGITS) or not ends_word(text, end):
                continue
            value_start = label.start("lead") if label.group("lead") else start
            if (kind in ("iban", "member_id") or label.group("lead")) and (tail := _IBAN_TAIL.match(text, end)):
                end = tail.end()
            yield kind, value_start, end


def _matched_label(match: re.Match[str]) -> str:
    return next(name for name in _LABEL_KINDS if match.group(name) is not None)


# --- national IDs -------------------------------------------------------------------------


def _valid_date(year: int, month: int, day: int) -> bool:
    try:
        date(year, month, day)
    except ValueError:
        return False
    return True


def cn_resident_id_ok(number: str) -> bool:
    """An 18-character Chinese resident ID: birth date and ISO 7064 check digit (region codes not required)."""
    number = number.upper()
    if len(number) != 18 or not number[:17].isdigit() or number[0] == "0":
        return False
    if not 1800 <= int(number[6:10]) <= 2100:
        return False
    try:
        ric.get_birth_date(number)
    except ValidationError:
        return False
    return ric.calc_check_digit(number) == number[17]


def _cn_old_id_ok(number: str) -> bool:
    """The 15-digit resident ID issued before 1999 (no check digit: the birth date must be real)."""
    return (len(number) == 15 and number.isdigit() and number[0] != "0"
            and _valid_date(1900 + int(number[6:8]), int(number[8:10]), int(number[10:12])))


def _ssn_at(text: str, groups: list[tuple[int, int]], i: int) -> bool:
    """Groups i..i+2 read NNN-NN-NNNN, dash-joined, not part of a longer dashed number, and stdnum-valid."""
    if i + 2 >= len(groups):
        return False
    (a0, a1), (b0, b1), (c0, c1) = groups[i : i + 3]
    if (a1 - a0, b1 - b0, c1 - c0) != (3, 2, 4) or text[a1] != "-" or text[b1] != "-":
        return False
    if (i > 0 and text[a0 - 1] == "-") or (i + 3 < len(groups) and text[c1] == "-"):
        return False
    return ssn.is_valid(text[a0:c1])


_NINO_PREFIX_BANNED = {"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"}
_NINO_FIRST = frozenset("ABCEGHJKLMNOPRSTWXYZ")
_NINO_SECOND = frozenset("ABCEGHJKLMNPRSTWXYZ")
_NINO_TAIL = re.compile(r" ?[A-D](?![A-Za-z0-9])", re.ASCII)


def _nino(text: str, start: int, end: int) -> tuple[int, int] | None:
    """A UK National Insurance number around a six-digit run: `AB 12 34 56 C`."""
    if sum(char.isdigit() for char in text[start:end]) != 6 or not re.fullmatch(r"\d\d ?\d\d ?\d\d", text[start:end]):
        return None
    tail = _NINO_TAIL.match(text, end)
    head = start - 1 if start >= 1 and text[start - 1] == " " else start
    if tail is None or head < 2:
        return None
    letters = text[head - 2 : head]
    if letters[0] not in _NINO_FIRST or letters[1] not in _NINO_SECOND or letters in _NINO_PREFIX_BANNED:
        return None
    return (head - 2, tail.end()) if starts_word(text, head - 2) else None


def find_national_ids(text: str) -> Iterator[Span]:
    """Chinese resident IDs (18 digits with checksum, or 15 with a real date), US SSNs, UK NI numbers."""
    for start, end in digit_runs(text):
        if (found := _nino(text, start, end)) is not None:
            yield "national_id", *found
            continue
        if not _standalone(text, start, end):
            continue
        groups = _groups(text, start, end)
        for i, (g0, g1) in enumerate(groups):
            if g1 - g0 not in (3, 6, 15, 18):  # SSN, grouped ID, old ID, ID: nothing else starts here
                continue
            if cn_resident_id_ok(text[g0:g1]) or _cn_old_id_ok(text[g0:g1]):
                yield "national_id", g0, g1
            elif i + 2 < len(groups) and [b - a for a, b in groups[i : i + 3]] == [6, 8, 4] \
                    and cn_resident_id_ok(re.sub(r"[ -]", "", text[g0 : groups[i + 2][1]])):
                yield "national_id", g0, groups[i + 2][1]
            elif _ssn_at(text, groups, i):
                yield "national_id", g0, groups[i + 2][1]


# --- bank cards and IBANs -----------------------------------------------------------------

CARD_MIN_DIGITS = 13
CARD_MAX_DIGITS = 19


def _card_prefix(digits: str) -> bool:
    """Issuer prefixes: Visa 4, Mastercard 51–55/2221–2720, Maestro 5/6, Discover/UnionPay 6, Amex/JCB/Diners 3x."""
    if digits[0] in "456":
        return True
    if digits[0] == "3":
        return digits[1] in "0456789"
    return digits[0] == "2" and 2221 <= int(digits[:4]) <= 2720


def _card_shaped(parts: list[str]) -> bool:
    """One run of 13–19 digits, or groups like 4-4-4-4, 4-6-5, 4-4-4-4-3."""
    digits = "".join(parts)
    if not CARD_MIN_DIGITS <= len(digits) <= CARD_MAX_DIGITS or not digits.isdigit() or not _card_prefix(digits):
        return False
    if len(parts) == 1:
        return True
    return len(parts[0]) == 4 and all(3 <= len(part) <= 6 for part in parts[1:])


def find_bank_cards(text: str) -> Iterator[Span]:
    """Luhn-valid card numbers inside runs of digit groups; the longest valid stretch wins."""
    for start, end in digit_runs(text):
        if not _standalone(text, start, end):
            continue
        groups = _groups(text, start, end)
        parts = [text[a:b] for a, b in groups]
        i = 0
        while i < len(groups):
            if len(parts[i]) == 4 or CARD_MIN_DIGITS <= len(parts[i]) <= CARD_MAX_DIGITS:
                stop, digits = i, 0
                while stop < len(parts) and digits + len(parts[stop]) <= CARD_MAX_DIGITS:
                    digits += len(parts[stop])
                    stop += 1
                for j in range(stop, i, -1):
                    if _card_shaped(parts[i:j]) and luhn.is_valid("".join(parts[i:j])):
                        yield "bank_card", groups[i][0], groups[j - 1][1]
                        i = j - 1
                        break
            i += 1


_IBAN = re.compile(r"[A-Z]{2}\d\d(?: ?[A-Z0-9]){11,30}", re.ASCII)


def find_ibans(text: str) -> Iterator[Span]:
    """IBANs (country format and mod-97 check), compact or in groups of four, found from their account digits."""
    seen_end = -1
    for start, end in digit_runs(text):
        if end <= seen_end:
            continue
        for match in _IBAN.finditer(text, max(0, start - 40, seen_end), min(len(text), end + 40)):
            if match.end() <= start or not starts_word(text, match.start()):
                continue
            if (stop := _longest_iban(text, match.start(), match.end())) is not None:
                seen_end = stop
                yield "iban", match.start(), stop
                break


def _longest_iban(text: str, start: int, end: int) -> int | None:
    """Where the longest valid IBAN starting at `start` ends (it must end at a group boundary)."""
    for stop in range(end, start + 14, -1):
        if (stop == end or text[stop] == " ") and text[stop - 1] != " " and ends_word(text, stop) \
                and iban.is_valid(text[start:stop], check_country=False):
            return stop
    return None


# --- contact details ----------------------------------------------------------------------

_EMAIL_DOMAIN = re.compile(r"@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}(?![\w-])", re.ASCII)
_EMAIL_LOCAL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._%+-")


def find_emails(text: str) -> Iterator[Span]:
    """E-mail addresses, found from their `@domain` and extended back over the local part."""
    if "@" not in text:
        return
    for match in _EMAIL_DOMAIN.finditer(text):
        start, floor = match.start(), max(0, match.start() - 64)  # a local part has at most 64 characters
        while start > floor and text[start - 1] in _EMAIL_LOCAL:
            start -= 1
        if start < match.start():
            yield "email", start, match.end()


_PHONE = re.compile(
    r"""(?P<intl>\+\d{1,3}(?:[ -]?\(?\d{1,4}\)?){2,5})
      | (?P<CN>(?:86[ -]?)?1[3-9]\d[ -]?\d{4}[ -]?\d{4} | 0\d{2,3}-\d{7,8})   # mobile, landline
      | (?P<US>\(?\d{3}\)?[ .-]\d{3}[ .-]\d{4})                              # North American
    """,
    re.VERBOSE | re.ASCII,
)


_PHONE_STRETCH = re.compile(r"\d[\d ().-]{5,24}\d")  # digit-led, so cheap to search; shapes checked inside


def find_phones(text: str) -> Iterator[Span]:
    """Phone numbers: candidate shapes validated by `phonenumbers` (international, Chinese, North American)."""
    import phonenumbers  # only loaded when phone redaction is switched on

    for stretch in _PHONE_STRETCH.finditer(text):
        lo = stretch.start() - 1 if stretch.start() and text[stretch.start() - 1] in "+(" else stretch.start()
        for match in _PHONE.finditer(text, lo, stretch.end()):
            start, end = match.span()
            if not (starts_word(text, start) and ends_word(text, end)):
                continue
            if (start and text[start - 1] in "_+-") or (end < len(text) and text[end] in "_-"):
                continue
            region = None if match.lastgroup == "intl" else match.lastgroup
            try:
                number = phonenumbers.parse(match.group(), region)
            except phonenumbers.NumberParseException:
                continue
            if phonenumbers.is_valid_number(number):
                yield "phone", start, end
