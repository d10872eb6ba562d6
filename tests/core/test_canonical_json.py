import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rea.canonical_json import CanonicalJsonError, canonical_sha256, canonicalize, format_number

VECTORS = Path(__file__).resolve().parents[3] / "shared" / "testdata" / "jcs"
NAMES = ["arrays", "french", "structures", "unicode", "values", "weird"]


def _vectors() -> Path:
    if not VECTORS.exists():  # a clean clone keeps a copy beside the tests
        return Path(__file__).parents[1] / "data" / "jcs"
    return VECTORS


@pytest.mark.parametrize("name", NAMES)
def test_reference_vectors_are_byte_exact(name):
    base = _vectors()
    value = json.loads((base / "input" / f"{name}.json").read_text(encoding="utf-8"))
    assert canonicalize(value) == (base / "output" / f"{name}.json").read_bytes()


@pytest.mark.parametrize(
    "value, text",
    [
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1.0, "1"),
        (-0.0, "0"),
        (0.000001, "0.000001"),
        (1e-7, "1e-7"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (2**53, "9007199254740992"),
        (2**53 + 1, "9007199254740992"),
        (-(2**60), "-1152921504606847000"),
        (123456789, "123456789"),
        (0.1 + 0.2, "0.30000000000000004"),
    ],
)
def test_ecmascript_number_formatting(value, text):
    assert format_number(value) == text
    assert canonicalize([value]) == f"[{text}]".encode()


def test_keys_sort_by_utf16_code_units_not_code_points():
    # U+1F602 is D83D DE02 in UTF-16, which sorts before U+FB33
    assert canonicalize({"\ufb33": 1, "\U0001f602": 2}) == '{"\U0001f602":2,"\ufb33":1}'.encode()


def test_fast_and_exact_paths_agree_on_strings_that_look_like_floats():
    value = {"note": "a:1.5,[2e3", "n": [1, 2, 3], "f": 2.5}
    assert canonicalize(value) == b'{"f":2.5,"n":[1,2,3],"note":"a:1.5,[2e3"}'


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "\ud800", {1: "x"}, {"a": object()}, 10**400])
def test_non_json_values_are_rejected(bad):
    with pytest.raises(CanonicalJsonError):
        canonicalize(bad)


def test_digest_is_sha256_of_canonical_bytes():
    import hashlib

    assert canonical_sha256({"b": 1, "a": [True, None]}) == hashlib.sha256(b'{"a":[true,null],"b":1}').hexdigest()


def test_cycles_and_excessive_nesting_are_refused():
    cyclic: list = []
    cyclic.append(cyclic)
    with pytest.raises(CanonicalJsonError):
        canonicalize(cyclic)
    deep: list = []
    for _ in range(400):
        deep = [deep]
    with pytest.raises(CanonicalJsonError):
        canonicalize(deep)


def test_shared_subtrees_with_floats_and_big_integers():
    shared = {"ratio": 0.5, "n": [1.0, 2]}
    value = {"a": shared, "b": [shared, (shared, 1e21)], "big": 2**64, "k\U0001f602": "x", "k\ufffd": 1}
    expected = (
        '{"a":{"n":[1,2],"ratio":0.5},"b":[{"n":[1,2],"ratio":0.5},[{"n":[1,2],"ratio":0.5},1e+21]],'
        '"big":18446744073709552000,"k\U0001f602":"x","k\ufffd":1}'
    ).encode()
    assert canonicalize(value) == expected


_KEYS = st.text(alphabet=st.sampled_from('ab\ue000\U0001f602"\\\n'), max_size=3)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=4)
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=7) | st.tuples(inner, inner) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=40,
)


def _outcome(compute, value):
    try:
        return compute(value)
    except CanonicalJsonError:
        return "refused"


@settings(max_examples=150, deadline=None)
@given(_VALUES)
def test_streamed_digest_is_the_digest_of_the_canonical_bytes(monkeypatch_split, value):
    """canonical_sha256 streams values holding long arrays (here: longer than 2) in pieces; the digest, and
    whether the value is refused, are those of canonicalize's bytes."""
    import hashlib

    whole = _outcome(lambda v: hashlib.sha256(canonicalize(v)).hexdigest(), value)
    assert _outcome(canonical_sha256, value) == whole


_FLOAT_FREE_SCALARS = st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.text(max_size=4)
_FLOAT_FREE_VALUES = st.recursive(
    _FLOAT_FREE_SCALARS,
    lambda inner: st.lists(inner, max_size=7) | st.tuples(inner, inner) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=40,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_FLOAT_FREE_VALUES, min_size=3, max_size=9))
def test_vouched_float_free_arrays_hash_as_canonical_bytes(monkeypatch_split, items):
    """An array vouched float-free (without_floats) skips the float census: its digest, and whether it is
    refused (big integers, non-string keys, key-order conflicts are still found), are canonicalize's."""
    import hashlib

    from rea.canonical_json import without_floats

    value = {"schema": "x", "result": {"nodes": items}}
    whole = _outcome(lambda v: hashlib.sha256(canonicalize(v)).hexdigest(), value)
    with without_floats(items):
        assert _outcome(canonical_sha256, value) == whole


@pytest.fixture(scope="module")
def monkeypatch_split():
    import rea.canonical_json as cj

    saved = cj.SPLIT_ITEMS
    cj.SPLIT_ITEMS = 2
    yield
    cj.SPLIT_ITEMS = saved


def test_streamed_digest_keeps_the_nesting_bound_and_key_checks(monkeypatch):
    import rea.canonical_json as cj

    monkeypatch.setattr(cj, "SPLIT_ITEMS", 1)
    for depth in (250, 252, 253, 254, 255, 256, 300):
        deep: list = [0]
        for _ in range(depth):
            deep = [deep]
        value = {"a": {"b": [deep, deep, 1]}}
        assert _outcome(canonical_sha256, value) == _outcome(
            lambda v: __import__("hashlib").sha256(canonicalize(v)).hexdigest(), value
        ), depth
    with pytest.raises(CanonicalJsonError):
        canonical_sha256({1: [1, 2, 3]})
    with pytest.raises(CanonicalJsonError):
        canonical_sha256({"a": [1, 2, float("nan")]})
