"""Laws of the Android family: descriptor names round-trip, search pages partition, hostile APKs get canonical answers."""

from __future__ import annotations

import functools
import sys
import tempfile
from collections import OrderedDict
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rea.android.code import search
from rea.android.names import PRIMITIVES, class_descriptor, class_name, split_parameters
from rea.errors import CATEGORY_BY_CODE

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
import android_fixtures as fx  # noqa: E402

_IDENT = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
CLASS = st.lists(_IDENT, min_size=1, max_size=4).map(lambda parts: "L" + "/".join(parts) + ";")
TYPE = st.tuples(st.integers(0, 2), st.one_of(st.sampled_from(sorted(set(PRIMITIVES) - {"V"})), CLASS)).map(
    lambda t: "[" * t[0] + t[1]
)


@given(st.lists(TYPE, max_size=6), st.one_of(st.just("V"), TYPE))
def test_method_descriptors_split_into_their_parameters(params, returned):
    assert split_parameters("(" + "".join(params) + ")" + returned) == (params, returned)


@given(CLASS)
def test_class_names_and_descriptors_convert_exactly(descriptor):
    assert class_descriptor(class_name(descriptor)) == descriptor


@given(st.lists(CLASS, unique=True, max_size=30), st.text("abcL/_", max_size=2), st.integers(1, 7))
def test_search_pages_partition_the_matches(classes, query, limit):
    whole, total, last = search(classes, query, 0, None)
    assert last is None and total == len(whole) and all(query in n for n in whole)
    pages, offset = [], 0
    while True:
        page, page_total, offset_next = search(classes, query, offset, limit)
        assert page_total == total
        pages += page
        if offset_next is None:
            break
        offset = offset_next
    assert pages == whole


LIMITS = {"max_apk_bytes": 1 << 30, "max_member_bytes": 64 << 20, "max_compression_ratio": 1000.0}


@functools.cache
def _apk() -> bytes:
    work = Path(tempfile.mkdtemp(prefix="rea-android-laws-"))
    return fx.signed_apk(work).read_bytes()


def _answers(data: bytes, op: str) -> dict:
    from effects.android import worker

    worker._quiet()
    with tempfile.NamedTemporaryFile(suffix=".apk") as f:
        f.write(data)
        f.flush()
        request = {"id": 1, "op": op, "path": f.name, "sha256": "x", "params": {"limits": LIMITS}}
        return worker.reply_for(OrderedDict(), request)


def _canonical(reply: dict) -> None:
    assert set(reply) == {"id", "ok"} or set(reply) == {"id", "error"}
    if "error" in reply:
        assert reply["error"]["code"] in CATEGORY_BY_CODE and reply["error"]["message"]


needs_tools = pytest.mark.skipif(bool(fx.missing_tools()), reason=f"needs {fx.missing_tools()}")


@needs_tools
@settings(max_examples=40)
@given(st.floats(0.0, 1.0))
def test_a_truncated_apk_gets_facts_or_a_canonical_error(fraction):
    data = _apk()
    _canonical(_answers(data[: int(len(data) * fraction)], "package"))


@needs_tools
@settings(max_examples=40)
@given(st.lists(st.tuples(st.floats(0.0, 1.0, exclude_max=True), st.integers(1, 255)), min_size=1, max_size=8))
def test_a_fuzzed_apk_gets_facts_or_a_canonical_error(flips):
    data = bytearray(_apk())
    for where, mask in flips:
        data[int(where * len(data))] ^= mask
    _canonical(_answers(bytes(data), "package"))
    _canonical(_answers(bytes(data), "classes"))
