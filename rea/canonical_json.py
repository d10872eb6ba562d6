"""RFC 8785 (JCS) canonical JSON, byte-exact and fast.

Identity in REA is `sha256(JCS(value))`, so this module decides what is equal.
The fast path lets orjson sort and serialize, which already matches JCS for
strings, integers inside the safe range and keys inside the Basic Multilingual
Plane. Three things differ: floats (ECMAScript formatting, and orjson writes
NaN as null), integers beyond 2**53 (ECMAScript formats them as doubles) and
keys beyond U+FFFF (JCS sorts by UTF-16 code units). Big integers make orjson
raise; floats and foreign types are found by a breadth-first type census done
in C (`gc.get_referents` over a whole level at once); non-BMP characters by a
byte scan of the output. Any of them sends the value through the exact path,
so the answer never depends on which path ran.
"""

from __future__ import annotations

import gc
import hashlib
import math
from itertools import compress
from typing import Any

import orjson

_PASSTHROUGH = (
    orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)
_FAST = orjson.OPT_SORT_KEYS | orjson.OPT_STRICT_INTEGER | _PASSTHROUGH

_PLAIN = frozenset({str, int, bool, type(None), dict, list, tuple})
_CONTAINERS = frozenset({dict, list, tuple})
_BELOW_F0 = bytes(range(0xF0))  # deleting these leaves only lead bytes of non-BMP characters

SAFE_INTEGER = 2**53 - 1


class CanonicalJsonError(ValueError):
    """The value is not an I-JSON value (NaN, infinity, lone surrogate, non-JSON type)."""


def _reject(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not a JSON value")


def format_number(value: int | float) -> str:
    """ECMAScript Number::toString for a finite double (the JCS number rule)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if -SAFE_INTEGER <= value <= SAFE_INTEGER:
            return str(value)
        try:
            value = float(value)
        except OverflowError as exc:
            raise CanonicalJsonError(f"integer {value} is beyond the IEEE-754 double range") from exc
    if math.isnan(value) or math.isinf(value):
        raise CanonicalJsonError(f"{value!r} is not a JSON number (NaN and infinity are not allowed)")
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    mantissa, _, exp = repr(abs(value)).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    # position of the decimal point relative to the first significant digit
    point = len(whole.lstrip("0")) if whole.strip("0") else -(len(frac) - len(frac.lstrip("0")))
    point += int(exp) if exp else 0
    digits = digits.rstrip("0") or "0"
    k, n = len(digits), point
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        text = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + text


def _utf16_key(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def _exact(value: Any) -> Any:
    """Rebuild a value so plain orjson output is canonical: fragments for numbers, UTF-16 key order."""
    kind = type(value)
    if kind is dict:
        for key in value:
            if type(key) is not str:
                raise CanonicalJsonError(f"object key {key!r} is not a string")
        return {k: _exact(value[k]) for k in sorted(value, key=_utf16_key)}
    if kind is list or kind is tuple:
        return [_exact(v) for v in value]
    if kind is float or (kind is int and not -SAFE_INTEGER <= value <= SAFE_INTEGER):
        return orjson.Fragment(format_number(value))
    if kind is str or kind is int or kind is bool or value is None:
        return value
    raise CanonicalJsonError(f"{kind.__name__} is not a JSON value")


def canonicalize(value: Any) -> bytes:
    """The RFC 8785 canonical UTF-8 bytes of a JSON value (dict/list/tuple/str/int/float/bool/None)."""
    try:
        out = orjson.dumps(value, default=_reject, option=_FAST)
    except orjson.JSONEncodeError as exc:
        if "Integer exceeds" not in str(exc):
            raise CanonicalJsonError(str(exc)) from exc
        out = None
    if out is not None and not _needs_exact(value) and (out.isascii() or not out.translate(None, _BELOW_F0)):
        return out
    try:
        return orjson.dumps(_exact(value), default=_reject, option=_PASSTHROUGH)
    except orjson.JSONEncodeError as exc:
        raise CanonicalJsonError(str(exc)) from exc
    except RecursionError as exc:
        raise CanonicalJsonError("value nests too deeply to canonicalize") from exc


def _needs_exact(value: Any) -> bool:
    """True when the value holds a float or a non-JSON type anywhere (cycles were refused by orjson)."""
    if type(value) not in _CONTAINERS:
        return type(value) not in _PLAIN
    level = [value]
    while level:
        refs = gc.get_referents(*level)
        kinds = list(map(type, refs))
        if not _PLAIN.issuperset(kinds):
            return True
        level = list(compress(refs, map(_CONTAINERS.__contains__, kinds)))
    return False


def canonical_sha256(value: Any) -> str:
    """Lowercase hex SHA-256 of the canonical form: the digest every REA identity uses."""
    return hashlib.sha256(canonicalize(value)).hexdigest()


def canonical_text(value: Any) -> str:
    return canonicalize(value).decode("utf-8")
