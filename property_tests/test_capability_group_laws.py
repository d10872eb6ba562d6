"""Laws of provider capability grouping: shared_limitations is the ordered common prefix, each
group's suffix gives back every operation's exact limitations, and every operation appears once."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rea.native.capability_groups import OperationCapability, common_prefix, group_capabilities
from rea.native.providers import PROVIDER_EFFECTS

PROVIDER = {"id": "p", "name": "P", "version": "1"}
limitations = st.lists(st.sampled_from(["cfg", "comments", "decompiler", "headless"]), max_size=4)
rows = st.lists(
    st.builds(
        OperationCapability,
        operation=st.text("abcdefgh_", min_size=1, max_size=6),
        available=st.booleans(),
        reason=st.sampled_from([None, "not installed", "headless"]),
        code=st.sampled_from([None, "not_configured", "unsupported_host"]),
        effects=st.lists(st.sampled_from(PROVIDER_EFFECTS), unique=True).map(tuple),
        limitations=limitations.map(tuple),
    ),
    max_size=12,
    unique_by=lambda r: r.operation,
)


def _facts(row: OperationCapability, shared: int) -> tuple:
    return (
        row.available,
        None if row.available else row.reason,
        None if row.available else row.code,
        tuple(sorted(row.effects)),
        row.limitations[shared:],
    )


@given(rows)
def test_grouping_loses_nothing_and_merges_only_equal_facts(declared):
    grouped = group_capabilities(PROVIDER, declared)
    shared = tuple(grouped["shared_limitations"])
    expanded = {op: (g, shared + tuple(g["limitations"])) for g in grouped["groups"] for op in g["operations"]}
    assert sorted(expanded) == sorted(r.operation for r in declared)  # every operation exactly once
    assert sum(len(g["operations"]) for g in grouped["groups"]) == len(declared)
    for row in declared:
        group, exact = expanded[row.operation]
        assert exact == row.limitations  # shared prefix + suffix recovers the exact ordered list
        assert group["available"] is row.available
        assert group["effects"] == sorted(row.effects) and set(group["effects"]) <= set(PROVIDER_EFFECTS)
        if row.available:
            assert group["reason"] is None and group["availability_code"] is None
    assert len(grouped["groups"]) == len({_facts(r, len(shared)) for r in declared})


@given(st.lists(limitations.map(tuple), min_size=1, max_size=6))
def test_common_prefix_is_the_longest_one(lists):
    prefix = common_prefix(lists)
    assert all(seq[: len(prefix)] == prefix for seq in lists)
    longer = len(prefix) + 1
    assert any(len(seq) < longer for seq in lists) or len({seq[:longer] for seq in lists}) > 1
