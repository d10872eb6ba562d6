"""Laws of printable names: the result is always encodable (so canonical JSON can seal it), valid names pass
unchanged, and distinct undecodable byte names without '%' stay distinct."""

from __future__ import annotations

import os

from hypothesis import assume, given
from hypothesis import strategies as st

from rea.canonical_json import canonicalize
from rea.text import printable


@given(st.text())
def test_valid_names_pass_unchanged(name):
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return
    assert printable(name) == name


@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=20))
def test_any_name_becomes_encodable_and_canonical(name):
    shown = printable(name)
    shown.encode("utf-8")
    assert canonicalize({shown: shown})


@given(st.binary(max_size=12), st.binary(max_size=12))
def test_byte_names_stay_distinct(a, b):
    assume(a != b and b"%" not in a and b"%" not in b and b"\x00" not in a + b)
    assert printable(os.fsdecode(a)) != printable(os.fsdecode(b))
