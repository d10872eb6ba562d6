"""RFC 8785 (JCS) canonical JSON, byte-exact and fast.

Identity in REA is `sha256(JCS(value))`, so this module decides what is equal.
The fast path lets orjson sort and serialize, which already matches JCS for
strings, integers inside the safe range and keys inside the Basic Multilingual
Plane. Three things differ: floats (ECMAScript formatting, and orjson writes
NaN as null), integers beyond 2**53 (ECMAScript formats them as doubles) and
keys beyond U+FFFF (JCS sorts by UTF-16 code units).

A breadth-first type census done in C (`gc.get_referents` over a whole level at
once) finds floats and foreign types; only the containers on a path to a float
are copied, with each float as an exact fragment. Big integers make orjson
raise and a byte scan of the output finds the rare key-order conflict; both
take the full exact rebuild. The answer never depends on which path ran.
"""

from __future__ import annotations

import gc
import hashlib
import math
from bisect import bisect_right
from itertools import accumulate, compress
from typing import Any

import attrs
import orjson

_PASSTHROUGH = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS
_FAST = orjson.OPT_SORT_KEYS | orjson.OPT_STRICT_INTEGER | _PASSTHROUGH

_PLAIN = frozenset({str, int, bool, type(None), dict, list, tuple})
_CONTAINERS = frozenset({dict, list, tuple})
_BELOW_F0 = bytes(range(0xF0))  # deleting these leaves only lead bytes of characters beyond U+FFFF
_NOT_EE_EF = bytes(b for b in range(256) if b not in (0xEE, 0xEF))  # leaves lead bytes of U+E000..U+FFFF

SAFE_INTEGER = 2**53 - 1
MAX_DEPTH = 255  # orjson's own nesting limit


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
    if 1e-4 <= abs(value) < 1e16:
        # Python's repr and ECMAScript both print the shortest round-trip digits, and in this range both
        # use plain decimal notation; ECMAScript just drops a ".0"
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
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
    census = _census(value)
    candidate = value
    if census is not None:
        dirty = _dirty_containers(census)
        if dirty is None:
            return _dumps_exact(_exact(value))
        candidate = _rebuild(value, dirty)
    try:
        out = orjson.dumps(candidate, default=_reject, option=_FAST)
    except orjson.JSONEncodeError as exc:
        if "Integer exceeds" not in str(exc):
            raise CanonicalJsonError(str(exc)) from exc
        return _dumps_exact(_exact(value))
    if _key_order_may_differ(out):
        return _dumps_exact(_exact(value))
    return out


def _dumps_exact(rebuilt: Any) -> bytes:
    try:
        return orjson.dumps(rebuilt, default=_reject, option=_PASSTHROUGH)
    except orjson.JSONEncodeError as exc:
        raise CanonicalJsonError(str(exc)) from exc
    except RecursionError as exc:
        raise CanonicalJsonError("value nests too deeply to canonicalize") from exc


def _key_order_may_differ(out: bytes) -> bool:
    """orjson sorts keys by code point, JCS by UTF-16 unit: they disagree only between a
    character beyond U+FFFF and one in U+E000..U+FFFF, so both must be present."""
    return not out.isascii() and bool(out.translate(None, _BELOW_F0)) and bool(out.translate(None, _NOT_EE_EF))


Census = tuple[list[list[Any]], set[int]]


def _census(value: Any) -> Census | None:
    """Breadth-first levels of the value, walked in C: each level is the flat list of
    referents of the one above (`gc.get_referents` skips scalars itself), and the depths
    holding floats. None when no float is present; a non-JSON type raises. Cycles never
    arrive: orjson refused them first."""
    kind = type(value)
    if kind not in _CONTAINERS:
        if kind not in _PLAIN and kind is not float:
            raise CanonicalJsonError(f"{kind.__name__} is not a JSON value")
        return ([[value]], {0}) if kind is float else None
    levels = [[value]]
    float_depths: set[int] = set()
    while True:
        refs = gc.get_referents(*levels[-1])
        if not refs:
            break
        kinds = set(map(type, refs))
        if not _PLAIN.issuperset(kinds):
            foreign = kinds - _PLAIN - {float}
            if foreign:
                raise CanonicalJsonError(f"{sorted(k.__name__ for k in foreign)[0]} is not a JSON value")
            float_depths.add(len(levels))
        levels.append(refs)
        if kinds.isdisjoint(_CONTAINERS):
            break
        if len(levels) > MAX_DEPTH:
            raise CanonicalJsonError(f"the value nests deeper than {MAX_DEPTH} levels (or contains itself)")
    return (levels, float_depths) if float_depths else None


def _dirty_containers(census: Census) -> set[int] | None:
    """ids of the containers on a path to a float, located per float rather than per node.

    A container contributes len(container) referents to the next level, so a
    referent's parent is found by bisecting cumulative lengths. None when that
    accounting does not hold (then the whole value is rebuilt)."""
    levels, float_depths = census
    dirty: set[int] = set()
    hits: set[int] = set()  # indices into the current level that are floats or dirty containers
    for depth in range(len(levels) - 1, 0, -1):
        level, above = levels[depth], levels[depth - 1]
        if depth in float_depths:
            kinds = list(map(type, level))
            index = -1
            while True:
                try:
                    index = kinds.index(float, index + 1)
                except ValueError:
                    break
                hits.add(index)
        if not hits:
            continue
        selector = list(map(_CONTAINERS.__contains__, map(type, above)))
        containers = list(compress(above, selector))
        positions = list(compress(range(len(above)), selector))
        bounds = list(accumulate(map(len, containers)))
        if not bounds or bounds[-1] != len(level):
            return None
        parents = {bisect_right(bounds, i) for i in hits}
        dirty.update(id(containers[p]) for p in parents)
        hits = {positions[p] for p in parents}
    return dirty


def _rebuild(value: Any, dirty: set[int]) -> Any:
    """Shallow copies of the dirty containers with floats as exact fragments; clean
    subtrees are shared, and orjson's key sort finishes the job."""
    kind = type(value)
    if kind is float:
        return orjson.Fragment(format_number(value))
    if id(value) not in dirty:
        return value
    if kind is dict:
        return {
            key: _rebuild(item, dirty) if type(item) is float or id(item) in dirty else item
            for key, item in value.items()
        }
    return [_rebuild(item, dirty) if type(item) is float or id(item) in dirty else item for item in value]


@attrs.frozen(kw_only=True)
class ScalarCensus:
    """What a size model needs from a value without serializing it.

    `reformatted` holds the numbers whose JCS text is not Python's decimal `str`: every
    float, and every integer beyond the safe range. Other serializers print exactly
    these differently (a whole float as `5.0`, a big integer in full), so their output
    is the canonical length plus one difference per such number. `string_floor` is a
    lower bound on the canonical length: every string value with its two quotes (object
    keys are not counted)."""

    reformatted: tuple[int | float, ...]
    string_floor: int


def scalar_census(value: Any) -> ScalarCensus:
    """One breadth-first walk of the value, level by level in C (`gc.get_referents`)."""
    found: list[int | float] = []
    floor = 0
    level = [value]
    for _ in range(MAX_DEPTH + 2):
        kinds = set(map(type, level))
        if float in kinds:
            found.extend(v for v in level if type(v) is float)
        if int in kinds:
            found.extend(v for v in level if type(v) is int and not -SAFE_INTEGER <= v <= SAFE_INTEGER)
        if str in kinds:
            strings = [v for v in level if type(v) is str]
            floor += sum(map(len, strings)) + 2 * len(strings)
        if kinds.isdisjoint(_CONTAINERS):
            return ScalarCensus(reformatted=tuple(found), string_floor=floor)
        level = gc.get_referents(*(v for v in level if type(v) in _CONTAINERS))
    raise CanonicalJsonError(f"the value nests deeper than {MAX_DEPTH} levels (or contains itself)")


def canonical_sha256(value: Any) -> str:
    """Lowercase hex SHA-256 of the canonical form: the digest every REA identity uses."""
    return hashlib.sha256(canonicalize(value)).hexdigest()


def canonical_text(value: Any) -> str:
    return canonicalize(value).decode("utf-8")
