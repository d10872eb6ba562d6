"""Laws of build_call_path and trace_feature (rea.native.callpath, rea.native.feature): hostile dossiers
never crash and come back as a reason; paths are simple, shortest first, within max_depth, and follow
only supplied edges; not_found only when every reachable function was covered; a trace never spends
more than its budget and is truncated exactly when it says what it left unread."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rea.native import callpath, feature

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=25,
)
nodes = st.integers(min_value=1, max_value=9).map(lambda v: f"0x{v:x}")


@given(json_values)
def test_hostile_dossiers_are_refused_with_a_reason(document):
    made = callpath.dossier("ev_" + "0" * 64, document if isinstance(document, dict) else {"procedure": document})
    assert isinstance(made, (callpath.Dossier, str))


def _dossier(address: str, callees: list[str], complete: bool) -> callpath.Dossier:
    return callpath.Dossier(
        evidence_id="ev_" + address[2:].rjust(64, "0"),
        address=address,
        name=f"f{address}",
        callees=tuple((c, None) for c in callees),
        complete=complete,
    )


graphs = st.dictionaries(nodes, st.tuples(st.lists(nodes, max_size=4), st.booleans()), min_size=1, max_size=8)
ARGS = {"max_paths": 100, "offset": 0, "limit": 100}


@settings(max_examples=200)
@given(graphs, nodes, st.integers(min_value=0, max_value=6))
def test_paths_are_simple_bounded_shortest_first_and_honest(graph, goal, max_depth):
    dossiers = {a: _dossier(a, callees, complete) for a, (callees, complete) in graph.items()}
    start = sorted(dossiers)[0]
    built = callpath.build(dossiers, start, goal, {**ARGS, "max_depth": max_depth})
    assert not isinstance(built, str)
    hops = [p.hops for p in built.paths.items]
    assert hops == sorted(hops) and all(h <= max_depth for h in hops)
    for p in built.paths.items:
        route = [n.address for n in p.nodes]
        assert route[0] == start and route[-1] == goal and len(set(route)) == len(route)
        assert all(b in dict(dossiers[a].callees) for a, b in zip(route, route[1:]))
    if built.status == "not_found":
        assert built.search_scope.exhaustive and not built.limitations
    assert (built.status == "found") == bool(built.paths.items) or built.status == "truncated"


@settings(max_examples=100)
@given(
    st.lists(st.text(max_size=8), max_size=40), st.text(min_size=1, max_size=3), st.integers(1, 6), st.integers(1, 5)
)
def test_a_trace_stays_in_budget_and_names_what_it_left(values, query, budget, limit):
    snapshot = {
        "strings": [{"address": f"0x{i + 16:x}", "value": v} for i, v in enumerate(values)],
        "procedures": [],
        "segments": [],
        "data_references": [{"from": "0x9000", "to": f"0x{i + 16:x}", "kind": "data"} for i in range(len(values))],
    }
    args = {"query": query, "case_sensitive": False, "limit": limit, "max_operations": budget}
    traced = feature.trace(snapshot, args)
    assert traced.operations_used <= budget and len(traced.matches) <= limit and len(traced.references) <= limit
    assert traced.truncated == bool(traced.residual_unknowns)
    assert all(query.casefold() in m.value.casefold() for m in traced.matches)
