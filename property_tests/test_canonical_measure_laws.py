"""The size law: `canonical_measure` is exactly the length and quote/backslash counts of
`canonicalize`, for every JSON value (controls, astral keys, floats, big integers, nesting)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rea.canonical_json import CanonicalJsonError, canonical_measure, canonicalize

_TEXT = st.text(st.characters(codec="utf-8"), max_size=12) | st.sampled_from(
    ["\x00\x1f\x7f", '"\\"', "\U0001f600\ue000"]
)
_SCALARS = (
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False, allow_infinity=False) | _TEXT
)
_VALUES = st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_TEXT, inner, max_size=5), max_leaves=40
)


@settings(max_examples=400)
@given(_VALUES)
def test_the_measure_is_the_canonical_bytes(value):
    out = canonicalize(value)
    m = canonical_measure(value)
    assert (m.length, m.quotes, m.backslashes) == (len(out), out.count(b'"'), out.count(b"\\"))


@given(st.sampled_from([float("nan"), float("inf"), "\ud800", {1: 2}, {"a": object()}, 10**400]))
def test_what_canonicalize_refuses_the_measure_refuses(value):
    for f in (canonicalize, canonical_measure):
        try:
            f(value)
        except (CanonicalJsonError, OverflowError, TypeError, ValueError):
            continue
        raise AssertionError(f"{f.__name__} accepted {value!r}")
