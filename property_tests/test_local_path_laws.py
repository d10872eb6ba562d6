"""Laws of the one host-path rule: the advertised pattern, the validator and the predicate agree."""

from __future__ import annotations

import re

import jsonschema
from hypothesis import given
from hypothesis import strategies as st

from rea.local_paths import LOCAL_PATH_PATTERN, is_absolute_path, is_local_path

# An independent statement of the rule, by code point, not by regular expression.
_FORBIDDEN = {*range(0x00, 0x20), *range(0x7F, 0xA0), 0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F)}
_FORBIDDEN |= set(range(0x2066, 0x206A))


def _rooted(s: str) -> bool:
    return (
        s.startswith("/")
        or s.startswith("\\\\")
        or (len(s) >= 3 and s[0].isascii() and s[0].isalpha() and s[1] == ":" and s[2] in "/\\")
    )


def _expected(s: str) -> bool:
    return _rooted(s) and not any(ord(c) in _FORBIDDEN for c in s)


_TRICKY = st.sampled_from(
    ["/", "C:\\", "c:/", "\\\\", "a", ".", "\n", "\u202e", "\u2066", "\x00", "\x7f", "\u0085", "é"]
)
paths = st.one_of(st.text(), st.lists(_TRICKY, max_size=6).map("".join), st.tuples(_TRICKY, st.text()).map("".join))


@given(paths)
def test_predicate_matches_the_rule_by_code_point(s):
    assert is_local_path(s) is _expected(s)
    assert is_absolute_path(s) is _rooted(s)


@given(paths)
def test_the_advertised_pattern_is_the_enforced_rule(s):
    schema = {"type": "string", "pattern": LOCAL_PATH_PATTERN}
    assert jsonschema.Draft202012Validator(schema).is_valid(s) is is_local_path(s)
    assert (re.search(LOCAL_PATH_PATTERN, s) is not None) is is_local_path(s)
