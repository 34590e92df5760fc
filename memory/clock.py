"""The only place datetimes are made: everything is UTC-aware."""
from __future__ import annotations

import math
from datetime import date, datetime, timezone

from .errors import BadInputError

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def ensure_utc(value: datetime) -> datetime:
    """Naive datetimes are taken as UTC; aware ones are converted to UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


def parse_when(value: str | datetime | date | None, *, what: str = "date") -> datetime | None:
    """Parse an ISO date or datetime given by a user; raise BadInputError naming the value."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return ensure_utc(value)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=timezone.utc)
    text = str(value).strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        return ensure_utc(datetime.fromisoformat(text))
    except ValueError:
        raise BadInputError(
            f"bad {what} {value!r}: expected an ISO date such as 2026-04-15 or 2026-04-15T09:30:00Z"
        ) from None


def to_epoch(value: datetime | None, *, none_is: float = math.inf) -> float:
    """Seconds since the epoch; None maps to `none_is` (open intervals are +inf)."""
    if value is None:
        return none_is
    return ensure_utc(value).timestamp()


def from_epoch(seconds: float | None) -> datetime | None:
    if seconds is None or math.isinf(seconds) or math.isnan(seconds):
        return None
    return datetime.fromtimestamp(seconds, tz=timezone.utc)


def iso(value: datetime | None) -> str | None:
    return ensure_utc(value).isoformat() if value is not None else None
