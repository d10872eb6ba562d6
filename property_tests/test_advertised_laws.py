"""Laws of the advertised input schema (rea.catalog.advertised) on generated schemas with repeated parts:
sharing only moves text (inlining every reference gives back the schema it was given), never grows it,
never passes the reference-expansion budget, and leaves a schema the advertisement rules accept."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rea.catalog.advertised import expansions, shared_input
from rea.catalog.schemas import advertisement_problems, inline_refs

NAMES = st.sampled_from(["a", "b", "value", "kind", "locator"])
PROSE = st.sampled_from(["The value", "Where to", "Its kind"])

leaves = st.one_of(
    st.builds(lambda n: {"type": "string", "minLength": n, "maxLength": 64}, st.integers(0, 2)),
    st.just({"type": "integer", "minimum": 0, "maximum": 2**53 - 1}),
    st.builds(lambda v: {"const": v, "type": "string"}, NAMES),
)


def _annotated(schema: dict[str, Any], prose: str | None) -> dict[str, Any]:
    return {**schema, "description": prose} if prose else schema


schemas = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.builds(
            lambda props, closed: {
                "type": "object",
                "properties": props,
                **({"additionalProperties": False} if closed else {}),
            },
            st.dictionaries(NAMES, st.builds(_annotated, inner, st.none() | PROSE), min_size=1, max_size=4),
            st.booleans(),
        ),
        st.builds(lambda alts: {"anyOf": alts}, st.lists(inner, min_size=2, max_size=3)),
        st.builds(lambda item: {"type": "array", "items": item}, inner),
    ),
    max_leaves=24,
)
roots = st.builds(
    lambda props: {"type": "object", "properties": props, "additionalProperties": False},
    st.dictionaries(NAMES, st.builds(_annotated, schemas, st.none() | PROSE), min_size=1, max_size=5),
)


@settings(max_examples=200, deadline=None)
@given(roots, st.integers(0, 40))
def test_sharing_moves_text_within_the_budget(schema, budget):
    shared = shared_input(schema, budget)
    assert inline_refs(shared, 10**9) == schema
    assert expansions(shared) <= budget
    assert advertisement_problems(shared) == []
    assert len(json.dumps(shared, separators=(",", ":"))) <= len(json.dumps(schema, separators=(",", ":")))


@settings(max_examples=100, deadline=None)
@given(roots)
def test_sharing_is_idempotent(schema):
    once = shared_input(schema)
    assert shared_input(once) == once
