"""Pure compare_functions laws on dossiers built in the test (no engine)."""

import jsonschema
from hypothesis import given
from hypothesis import strategies as st

from native_fixtures import dossier
from rea.catalog import BY_NAME
from rea.native.compare import compare
from rea.wire.convert import to_wire


def _dims(comparison):
    return {d.dimension: d for d in comparison.dimensions}


def test_observed_empty_facets_compare_but_undeclared_ones_stay_unknown():
    assert _dims(compare([dossier([])], [dossier([])]))["calls"].status == "unchanged"
    legacy = _dims(compare([dossier([])], [dossier([], facets=False)]))["calls"]
    assert legacy.status == "unknown" and legacy.left_count is None and legacy.left_digest is None
    assert legacy.conclusion_kind == "unresolved_branch" and legacy.limitations


@given(st.sampled_from(["pseudocode", "assembly", "calls", "references", "strings_names", "cfg"]), st.booleans())
def test_a_facet_unavailable_on_either_side_makes_its_dimension_unknown(dimension, on_left):
    """Whichever side declares the facet unavailable, that dimension (only) is unknown, never "changed"."""
    facet = {"calls": "callees"}.get(dimension, dimension)
    blind = dossier(["g"], pseudocode="int f() { return 9; }", blocks=(("0x10", "0x20", ()),), blind=facet)
    seeing = dossier(["h"])
    left, right = (blind, seeing) if on_left else (seeing, blind)
    dims = _dims(compare([left], [right]))
    side = "left" if on_left else "right"
    assert dims[dimension].status == "unknown" and dims[dimension].left_digest is None
    assert dims[dimension].limitations == (f"{side} {facet}: not recovered",)
    others = {"pseudocode", "assembly", "calls", "references", "strings_names", "cfg"} - {dimension}
    assert all(dims[d].status != "unknown" for d in others), {d: dims[d].status for d in others}


def test_comparison_is_symmetric_up_to_sides_and_fits_the_advertised_schema():
    a, b = dossier(["g", "h"]), dossier(["h", "k"], pseudocode="int f() { return 2; }")
    ab, ba = compare([a], [b]), compare([b], [a])
    assert ab.status == ba.status == "changed"
    assert _dims(ab)["calls"].added == _dims(ba)["calls"].removed == ("k",)
    assert _dims(ab)["pseudocode"].text_delta.hunks == 1 and ab.limitations and "runtime" in ab.limitations[0]
    schema = BY_NAME["compare_functions"].output_schema["properties"]["normalized_result"]
    jsonschema.validate(to_wire(ab), schema)


_BLOCKS = st.lists(st.tuples(st.integers(0, 64), st.integers(1, 16)), min_size=1, max_size=6, unique_by=lambda b: b[0])


@given(_BLOCKS, st.integers(0, 2**20))
def test_cfg_ignores_where_the_function_was_linked(blocks, shift):
    """The cfg dimension compares topology relative to the first block, not absolute addresses."""

    def placed(base):
        rows = sorted((base + s, base + s + n) for s, n in blocks)
        return tuple((f"0x{s:x}", f"0x{e:x}", (f"0x{rows[0][0]:x}",)) for s, e in rows)

    here, there = dossier([], blocks=placed(0x1000)), dossier([], blocks=placed(0x1000 + shift))
    assert _dims(compare([here], [there]))["cfg"].status == "unchanged"


@given(st.lists(st.sampled_from("abcdef"), unique=True), st.lists(st.sampled_from("abcdef"), unique=True))
def test_summary_counts_every_dimension_once_and_changes_are_the_changed_ones(left, right):
    result = compare([dossier(left)], [dossier(right)])
    assert sum(getattr(result.summary, k) for k in ("unchanged", "changed", "truncated", "unknown")) == 8
    assert {d.dimension for d in result.changes} == {d.dimension for d in result.dimensions if d.status == "changed"}
    assert (result.status == "changed") == bool(result.changes)
