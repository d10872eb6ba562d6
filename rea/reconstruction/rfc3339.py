"""RFC 3339 timestamps to epoch milliseconds, without the datetime module (the pure core reads no clock,
so it imports none); checked against datetime in property_tests/test_reconstruction_laws.py."""

from __future__ import annotations

import re

_STAMP = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$"
)
_DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil)."""
    year -= month <= 2
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def epoch_ms(text: str) -> int | None:
    """The instant in epoch milliseconds (fractions truncated), or None when `text` is not RFC 3339 with an offset."""
    m = _STAMP.match(text)
    if m is None:
        return None
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    if not (1 <= month <= 12 and 1 <= day <= _DAYS_IN_MONTH[month - 1]) or (
        month == 2 and day == 29 and not _leap(year)
    ):
        return None
    if hour > 23 or minute > 59 or second > 59:
        return None
    offset = 0
    if m.group(9) is not None:
        offset_h, offset_m = int(m.group(10)), int(m.group(11))
        if offset_h > 23 or offset_m > 59:
            return None
        offset = (offset_h * 60 + offset_m) * (1 if m.group(9) == "+" else -1)
    millis = int((m.group(7) or "0")[:3].ljust(3, "0"))
    seconds = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset * 60
    return seconds * 1000 + millis
