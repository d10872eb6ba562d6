"""Laws of the JSONC normaliser (tsconfig.json): comments and trailing commas anywhere between tokens
vanish, strings that look like comments survive, and plain JSON passes through unchanged."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from prop_support import SAFE, json_values
from rea.jsonc import blank, to_json

TRICKY = st.text(st.sampled_from(list('/*",\\]}[{: \n\tab')) | st.characters(codec="utf-8"), max_size=12)
SCALARS = (
    st.none() | st.booleans() | st.integers(-SAFE, SAFE) | st.floats(allow_nan=False, allow_infinity=False) | TRICKY
)
VALUES = json_values(SCALARS, TRICKY)
LINE_COMMENT = st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=10).map(lambda t: f"//{t}\n")
BLOCK_COMMENT = TRICKY.filter(lambda t: "*/" not in t and not t.endswith("*")).map(lambda t: f"/*{t}*/")
GAP = st.lists(st.sampled_from(["", " ", "\n", "\t", "\r\n"]) | LINE_COMMENT | BLOCK_COMMENT, max_size=3).map("".join)


@st.composite
def jsonc(draw, value: Any) -> str:
    """`value` written as JSONC: comments and whitespace between any two tokens, sometimes a trailing comma."""
    if isinstance(value, list):
        items = [draw(jsonc(v)) for v in value]
        return "[" + draw(GAP) + _join(draw, items) + "]"
    if isinstance(value, dict):
        items = [
            json.dumps(k, ensure_ascii=draw(st.booleans())) + draw(GAP) + ":" + draw(GAP) + draw(jsonc(v))
            for k, v in value.items()
        ]
        return "{" + draw(GAP) + _join(draw, items) + "}"
    return json.dumps(value, ensure_ascii=draw(st.booleans()))


def _join(draw, items: list[str]) -> str:
    text = "".join(item + draw(GAP) + ("," + draw(GAP) if i < len(items) - 1 else "") for i, item in enumerate(items))
    return text + ("," + draw(GAP) if items and draw(st.booleans()) else "")


@st.composite
def documents(draw) -> tuple[Any, str]:
    value = draw(VALUES)
    return value, draw(GAP) + draw(jsonc(value)) + draw(GAP)


@given(documents())
def test_jsonc_parses_back_to_the_value(doc):
    value, text = doc
    assert json.loads(to_json(text)) == value


@given(documents())
def test_normalising_twice_changes_nothing(doc):
    _, text = doc
    once = to_json(text)
    assert to_json(once) == once


@given(VALUES, st.sampled_from([None, 0, 2]), st.booleans())
def test_plain_json_passes_through_unchanged(value, indent, ascii_only):
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert to_json(text) == text


@given(st.lists(st.sampled_from(["//", "/*", "*/", "http://x", ",]", ",}", '\\"', "\\\\"]), min_size=1).map("".join))
def test_strings_that_look_like_comments_survive(s):
    text = json.dumps({"k": s, "list": [s, s]})
    assert json.loads(to_json(text)) == {"k": s, "list": [s, s]}


@given(documents())
def test_blanking_keeps_every_offset_and_the_value(doc):
    value, text = doc
    view = blank(text)
    assert len(view) == len(text) and json.loads(view) == value
    assert [i for i, c in enumerate(view) if c == "\n"] == [i for i, c in enumerate(text) if c == "\n"]
    # outside comments and trailing commas nothing moved: every non-space character of the view is the original's
    assert all(v == t for v, t in zip(view, text) if v != " ")
