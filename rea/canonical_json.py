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
import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import accumulate, chain, compress, repeat
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
    return _canonical(value, MAX_DEPTH)


def _canonical(value: Any, depth_limit: int) -> bytes:
    """canonicalize() of a value that sits `MAX_DEPTH - depth_limit` levels down in a larger one (a piece of
    canonical_sha256's stream): the nesting bound counts from the whole value's root."""
    census = _census(value, depth_limit)
    candidate = value
    if census is not None:
        dirty = _dirty_containers(census)
        if dirty is None:
            return _dumps_exact(_exact(value))
        candidate = _rebuild(value, dirty)
    return _serialized(value, candidate)


def _serialized(value: Any, candidate: Any) -> bytes:
    """The canonical bytes of `value` from orjson's output of `candidate` (the value with its floats as exact
    fragments): the exact rebuild when an integer is beyond 2**53 or the key orders may differ."""
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


def _census(value: Any, depth_limit: int = MAX_DEPTH) -> Census | None:
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
        if len(levels) > depth_limit:
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
    lower bound on the canonical length: every string value with its two quotes.
    `key_chars` (the object keys' characters) and `nodes` (every value in the tree)
    bound it from above, with `string_floor`: see `canonical_ceiling`."""

    reformatted: tuple[int | float, ...]
    string_floor: int
    key_chars: int = 0
    nodes: int = 0


# the longest canonical text of a non-string node (a number, a literal) with its share of punctuation:
# a comma, a colon, the two quotes of its key, and its container's brackets
_NODE_CEILING = 32
# a string character's longest canonical text: a control character as \u00XX
_CHAR_CEILING = 6


def canonical_ceiling(census: ScalarCensus) -> int:
    """An upper bound of len(canonicalize(value)) from its census alone."""
    return _CHAR_CEILING * (census.string_floor + census.key_chars) + _NODE_CEILING * census.nodes


def scalar_census(value: Any) -> ScalarCensus:
    """One breadth-first walk of the value, level by level in C (`gc.get_referents`)."""
    found: list[int | float] = []
    floor = keys = nodes = 0
    level = [value]
    for _ in range(MAX_DEPTH + 2):
        nodes += len(level)
        kinds = set(map(type, level))
        if float in kinds:
            found.extend(v for v in level if type(v) is float)
        if int in kinds:
            found.extend(v for v in level if type(v) is int and not -SAFE_INTEGER <= v <= SAFE_INTEGER)
        if str in kinds:
            strings = [v for v in level if type(v) is str]
            floor += sum(map(len, strings)) + 2 * len(strings)
        if dict in kinds:
            keys += sum(map(len, chain.from_iterable(v for v in level if type(v) is dict)))
        if kinds.isdisjoint(_CONTAINERS):
            return ScalarCensus(reformatted=tuple(found), string_floor=floor, key_chars=keys, nodes=nodes)
        level = gc.get_referents(*(v for v in level if type(v) in _CONTAINERS))
    raise CanonicalJsonError(f"the value nests deeper than {MAX_DEPTH} levels (or contains itself)")


_CONTROL = re.compile("[\x00-\x1f]")
_SHORT_ESCAPES = frozenset("\b\t\n\f\r")  # JCS writes these as two bytes, other controls as \u00XX
_SCALAR_BYTES = {True: 4, False: 5, None: 4}


@attrs.frozen(kw_only=True)
class Measure:
    """The canonical bytes' length and their `"` and `\\` counts, known without building them."""

    length: int
    quotes: int
    backslashes: int


def _strings_measure(strings: list[str]) -> tuple[int, int, int]:
    """(length, quotes, backslashes) of the strings as JCS writes them, each with its two quotes."""
    try:
        utf8 = sum(map(len, map(str.encode, strings)))
    except UnicodeEncodeError as exc:
        raise CanonicalJsonError("a string holds a lone surrogate, which is not I-JSON") from exc
    quoted = sum(map(str.count, strings, repeat('"')))
    slashed = sum(map(str.count, strings, repeat("\\")))
    short = other = 0
    for text in compress(strings, map(_CONTROL.search, strings)):
        controls = _CONTROL.findall(text)
        k = sum(c in _SHORT_ESCAPES for c in controls)
        short, other = short + k, other + len(controls) - k
    n = len(strings)
    length = utf8 + 2 * n + quoted + slashed + short + 5 * other
    return length, 2 * n + quoted, quoted + 2 * slashed + short + other


def _level_measure(level: list[Any], kinds: set[type]) -> tuple[int, int, int]:
    """The bytes one breadth-first level adds: its scalars, its containers' punctuation and keys."""
    strings = [v for v in level if type(v) is str] if str in kinds else []
    dicts = [v for v in level if type(v) is dict] if dict in kinds else []
    keys = list(chain.from_iterable(dicts))
    if not all(type(k) is str for k in keys):
        raise CanonicalJsonError("an object key is not a string")
    length, quotes, backslashes = _strings_measure(strings + keys)
    if int in kinds:
        ints = [v for v in level if type(v) is int]
        length += sum(len(str(v)) if -SAFE_INTEGER <= v <= SAFE_INTEGER else len(format_number(v)) for v in ints)
    if float in kinds:
        length += sum(len(format_number(v)) for v in level if type(v) is float)
    if bool in kinds or type(None) in kinds:
        length += sum(_SCALAR_BYTES[v] for v in level if v is None or type(v) is bool)
    arrays = [len(v) for v in level if type(v) is list or type(v) is tuple]
    objects = list(map(len, dicts))
    length += 2 * (len(arrays) + len(objects)) + sum(n - 1 for n in arrays if n) + sum(2 * n - 1 for n in objects if n)
    return length, quotes, backslashes


def canonical_measure(value: Any) -> Measure:
    """What `canonicalize(value)` would be, in size, from one breadth-first walk that builds nothing.

    Admission of a reply is decided on this before a document-sized string exists: each
    level's scalars and keys are measured in batches in C (`map` over the level), and the
    next level is the chained values of this level's containers."""
    length = quotes = backslashes = 0
    level = [value]
    for _ in range(MAX_DEPTH + 2):
        kinds = set(map(type, level))
        foreign = kinds - _PLAIN - {float}
        if foreign:
            raise CanonicalJsonError(f"{sorted(k.__name__ for k in foreign)[0]} is not a JSON value")
        if float in kinds and not all(math.isfinite(v) for v in level if type(v) is float):
            raise CanonicalJsonError("NaN and infinity are not JSON numbers")
        got = _level_measure(level, kinds)
        length, quotes, backslashes = length + got[0], quotes + got[1], backslashes + got[2]
        if kinds.isdisjoint(_CONTAINERS):
            return Measure(length=length, quotes=quotes, backslashes=backslashes)
        level = list(chain.from_iterable(v.values() if type(v) is dict else v for v in level if type(v) in _CONTAINERS))
    raise CanonicalJsonError(f"the value nests deeper than {MAX_DEPTH} levels (or contains itself)")


def canonical_sha256(value: Any) -> str:
    """Lowercase hex SHA-256 of the canonical form: the digest every REA identity uses.

    A value holding a long array near its root (a graph's nodes, a record's items) is hashed as a stream of
    canonical pieces: its outer objects key by key and the array a batch of items at a time, each batch
    canonicalized on its own. The bytes hashed are exactly `canonicalize(value)`, but never all held at once
    (nor the breadth-first census of the whole value): the peak is one batch's."""
    if not _splits(value, 0):
        return hashlib.sha256(canonicalize(value)).hexdigest()
    digest = hashlib.sha256()
    for piece in _pieces(value, 0):
        digest.update(piece)
    return digest.hexdigest()


# array items canonicalized (and held) at once by canonical_sha256's stream: a batch this size stays in the
# processor's caches, faster than larger ones (0.46 s against 0.58 s at 2,048 on a 128 MB semantic graph)
SPLIT_ITEMS = 512
SPLIT_DEPTH = 4  # how deep in objects canonical_sha256 looks for an array to stream


def _splits(value: Any, depth: int) -> bool:
    """Whether the value has an array longer than SPLIT_ITEMS within SPLIT_DEPTH levels of objects."""
    kind = type(value)
    if kind is list or kind is tuple:
        return len(value) > SPLIT_ITEMS
    return kind is dict and depth < SPLIT_DEPTH and any(_splits(v, depth + 1) for v in value.values())


def _pieces(value: Any, depth: int) -> Iterator[bytes | memoryview]:
    """canonicalize(value) as consecutive pieces (their concatenation is the canonical bytes)."""
    if not _splits(value, depth):
        yield _canonical(value, MAX_DEPTH - depth)
    elif type(value) is dict:
        for key in value:
            if type(key) is not str:
                raise CanonicalJsonError(f"object key {key!r} is not a string")
        yield b"{"
        for i, key in enumerate(sorted(value, key=_utf16_key)):
            yield (b"," if i else b"") + canonicalize(key) + b":"
            yield from _pieces(value[key], depth + 1)
        yield b"}"
    else:
        float_free = id(value) in _FLOAT_FREE.get()
        yield b"["
        for start in range(0, len(value), SPLIT_ITEMS):
            items = list(value[start : start + SPLIT_ITEMS])
            batch = _serialized(items, items) if float_free else _canonical(items, MAX_DEPTH - depth)
            if start:
                yield b","
            yield memoryview(batch)[1:-1]  # the batch's items without its brackets, not copied
        yield b"]"


# ids of the arrays that `without_floats` vouches for, in this thread or task
_FLOAT_FREE: ContextVar[frozenset[int]] = ContextVar("_FLOAT_FREE", default=frozenset())


@contextmanager
def without_floats(*arrays: Sequence[Any]) -> Iterator[None]:
    """While in the block, canonical_sha256 streams these long arrays without the float census: their builder
    vouches that no item holds a float (every number in them is an int, as a source range's are). The census is
    the only part of canonicalization that looks for floats; it walks every referent of every item (0.35 s of
    the 0.75 s a 2 MB bundle's 130 MB semantic graph takes to hash), and on such an array finds none. Foreign
    types, integers beyond 2**53 and key-order conflicts are still caught by orjson and the byte scan, so the
    bytes stay exactly canonicalize()'s; a float in a vouched array would not be (tests check the builders'
    claims). The arrays must stay alive in the block (they are keyed by id)."""
    token = _FLOAT_FREE.set(_FLOAT_FREE.get() | {id(a) for a in arrays})
    try:
        yield
    finally:
        _FLOAT_FREE.reset(token)


def canonical_text(value: Any) -> str:
    return canonicalize(value).decode("utf-8")
