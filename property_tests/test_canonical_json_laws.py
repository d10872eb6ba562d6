"""Laws of rea.canonical_json: byte-equality with the rfc8785 reference implementation."""

from __future__ import annotations

import json
import math
import struct

import orjson
import pytest
import rfc8785
from hypothesis import example, given
from hypothesis import strategies as st

from prop_support import SAFE, json_keys, json_scalars, json_value, json_values, reorder_keys
from rea.canonical_json import (
    _PASSTHROUGH,
    CanonicalJsonError,
    _exact,
    canonical_sha256,
    canonicalize,
    format_number,
)

# Keys and strings drawn to stress UTF-16 ordering: ASCII, the U+E000..U+FFFF block (which sorts
# *after* surrogate pairs in UTF-16 but before them by code point) and astral characters.
tricky_chars = st.one_of(
    st.characters(min_codepoint=0x20, max_codepoint=0x7E),
    st.characters(min_codepoint=0xE000, max_codepoint=0xFFFF),
    st.characters(min_codepoint=0x10000, max_codepoint=0x10FFFF),
    st.characters(max_codepoint=0x1F),
)
tricky_keys = st.text(tricky_chars, max_size=4)
tricky_values = json_values(scalars=json_scalars | st.text(tricky_chars, max_size=6), keys=tricky_keys)

doubles_from_bits = (
    st.integers(0, 2**64 - 1).map(lambda b: struct.unpack("<d", b.to_bytes(8, "little"))[0]).filter(math.isfinite)
)


@given(tricky_values)
def test_matches_rfc8785(value):
    assert canonicalize(value) == rfc8785.dumps(value)


@given(json_value)
def test_matches_rfc8785_plain(value):
    assert canonicalize(value) == rfc8785.dumps(value)


@given(tricky_values)
def test_idempotent(value):
    once = canonicalize(value)
    assert canonicalize(json.loads(once)) == once
    assert canonicalize(orjson.loads(once)) == once


@given(tricky_values)
def test_independent_of_key_insertion_order(value):
    assert canonicalize(reorder_keys(value)) == canonicalize(value)
    assert canonical_sha256(reorder_keys(value)) == canonical_sha256(value)


@given(st.dictionaries(tricky_keys, st.integers(0, 9), min_size=2, max_size=8))
def test_keys_sorted_by_utf16_code_units(obj):
    out = canonicalize(obj)
    assert out == rfc8785.dumps(obj)
    parsed_order = list(json.loads(out, object_pairs_hook=lambda pairs: [k for k, _ in pairs]))
    assert parsed_order == sorted(obj, key=lambda k: k.encode("utf-16-be"))


@example(0xE000, 0x10000)  # U+E000 sorts after U+10000 in UTF-16, before it by code point
@given(st.integers(0xE000, 0xFFFF), st.integers(0x10000, 0x10FFFF))
def test_astral_keys_sort_before_high_bmp(bmp, astral):
    obj = {chr(bmp): 1, chr(astral): 2}
    assert canonicalize(obj) == rfc8785.dumps(obj)
    assert canonicalize(obj).index(chr(astral).encode()) < canonicalize(obj).index(chr(bmp).encode())


@example(5e-324)
@example(1e21)
@example(1e-7)
@example(-0.0)
@example(9007199254740993.0)
@given(st.floats(allow_nan=False, allow_infinity=False) | doubles_from_bits)
def test_format_number_matches_rfc8785(x):
    assert format_number(x).encode() == rfc8785.dumps(x)
    assert canonicalize(x) == rfc8785.dumps(x)
    assert canonicalize([x]) == b"[" + rfc8785.dumps(x) + b"]"
    assert canonicalize({"k": x}) == b'{"k":' + rfc8785.dumps(x) + b"}"


@given(st.integers(-SAFE, SAFE))
def test_safe_integers_are_plain(n):
    assert format_number(n) == str(n)
    assert canonicalize(n) == rfc8785.dumps(n)


@example(2**53)
@example(2**53 + 1)
@example(2**64)
@example(-(2**63) - 1)
@given(st.integers(SAFE + 1, 2**1023) | st.integers(-(2**1023), -SAFE - 1))
def test_large_integers_format_as_doubles(n):
    expected = rfc8785.dumps(float(n))
    assert format_number(n).encode() == expected
    assert canonicalize(n) == expected
    assert canonicalize({"n": [n]}) == b'{"n":[' + expected + b"]}"


@given(st.integers(2**1024, 2**1100) | st.integers(-(2**1100), -(2**1024)))
def test_integers_beyond_double_range_rejected(n):
    with pytest.raises(CanonicalJsonError):
        canonicalize({"n": n})


bad_numbers = st.sampled_from([math.nan, math.inf, -math.inf])
lone = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
lone_surrogate_text = st.tuples(st.text(max_size=3), lone, st.text(max_size=3)).map("".join)


@st.composite
def embedded(draw, bad):
    """A JSON value with one non-I-JSON leaf (or key) somewhere inside."""
    leaf = draw(bad)
    wrap = draw(st.lists(st.sampled_from(["list", "dict", "key"]), max_size=3))
    value = leaf
    for kind in wrap:
        if kind == "list":
            value = [draw(json_value), value] if draw(st.booleans()) else [value]
        elif kind == "dict":
            value = {draw(json_keys): value}
        elif isinstance(leaf, str):
            value = {leaf: value}
    return value


@given(embedded(bad_numbers))
def test_nan_and_infinity_rejected(value):
    with pytest.raises(CanonicalJsonError):
        canonicalize(value)


@given(embedded(lone_surrogate_text))
def test_lone_surrogates_rejected(value):
    with pytest.raises(CanonicalJsonError):
        canonicalize(value)


@given(lone_surrogate_text, json_value)
def test_lone_surrogate_keys_rejected(key, value):
    with pytest.raises(CanonicalJsonError):
        canonicalize({key: value})
    with pytest.raises(CanonicalJsonError):
        canonicalize([{"a": 1, key: value}])


@given(tricky_values | st.integers(SAFE + 1, 2**200).map(lambda n: {"big": n}))
def test_fast_and_exact_paths_agree(value):
    """The orjson fast path (taken when its output has no float/astral trace) equals the rebuilt one."""
    exact = orjson.dumps(_exact(value), option=_PASSTHROUGH)
    assert canonicalize(value) == exact


no_float_values = json_values(
    scalars=st.none() | st.booleans() | st.integers(-SAFE, SAFE) | st.text(tricky_chars, max_size=6),
    keys=tricky_keys,
)


@given(no_float_values, st.floats(allow_nan=False, allow_infinity=False))
def test_paths_agree_with_and_without_floats(value, x):
    for v in (value, [value, x], {"v": value, "x": x}):
        assert canonicalize(v) == orjson.dumps(_exact(v), option=_PASSTHROUGH) == rfc8785.dumps(v)


@given(json_value)
def test_tuples_equal_lists(value):
    assert canonicalize((value, value)) == canonicalize([value, value])


# ------------------------------------------------------------------ representation independence
# The output must not depend on how CPython happens to store an equal value: tuples vs lists,
# dicts whose key table is "general" (a non-str key was inserted then deleted), instance
# __dict__ split tables, and subtrees shared by several parents.


class _Holder:
    pass


def _general(d: dict) -> dict:
    g: dict = {0: None}
    g.update(d)
    del g[0]
    return g


def _split(d: dict) -> dict:
    holder = _Holder()
    holder.__dict__.update(d)
    return holder.__dict__


def _restyle(value, rnd):
    if isinstance(value, dict):
        inner = {k: _restyle(v, rnd) for k, v in value.items()}
        style = rnd.choice(["plain", "general", "split"])
        return {"plain": dict, "general": _general, "split": _split}[style](inner)
    if isinstance(value, list):
        inner = [_restyle(v, rnd) for v in value]
        if inner and rnd.random() < 0.3:  # share one child subtree twice
            inner.append(inner[rnd.randrange(len(inner))])
        return tuple(inner) if rnd.random() < 0.3 else inner
    return value


float_heavy = json_values(
    scalars=st.floats(allow_nan=False, allow_infinity=False)
    | st.integers(-SAFE, SAFE)
    | st.text(tricky_chars, max_size=4),
    keys=tricky_keys,
    max_leaves=16,
)


@given(float_heavy | tricky_values, st.randoms(use_true_random=False))
def test_independent_of_python_representation(value, rnd):
    styled = _restyle(value, rnd)
    assert canonicalize(styled) == rfc8785.dumps(styled)
    assert canonicalize(styled) == orjson.dumps(_exact(styled), option=_PASSTHROUGH)
