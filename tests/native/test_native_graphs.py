"""Call graph and call path rules on snapshots written in the test, where every case is chosen: the binary
tests (test_native.py) check the same rules on gcc-built code, where angr decides the shape."""

from __future__ import annotations

import pytest
from returns.result import Success

from native_fixtures import _bound_session, proc
from rea.native import annotations, graphs
from rea.native.effects import NativeFacts, ReadAnnotations
from rea.program import ProgramCancelled, ReportProgress
from rea.workflows import PROGRAMS
from scripted import CTX, SESSION_EFFECTS


def snapshot(*procs):
    """Callers filled in from callees, as the worker's call graph has them."""
    callers: dict[str, list[str]] = {}
    for p in procs:
        for c in p["callees"]:
            callers.setdefault(c, []).append(p["address"])
    return {"procedures": [{**p, "callers": sorted(callers.get(p["address"], []))} for p in procs]}


# main -> a -> c, main -> b -> c, main -> puts (an import); d calls nothing and nothing calls it
RESOLVED = snapshot(
    proc("0x10", "main", ["0x20", "0x30", "extern:0x1"]),
    proc("0x20", "a", ["0x40"]),
    proc("0x30", "b", ["0x40"]),
    proc("0x40", "c"),
    proc("0x50", "d"),
    proc("extern:0x1", "puts", kind="external"),
)
# the same, but b has an indirect call site angr could not resolve, and e calls angr's placeholder
UNRESOLVED = snapshot(
    *(p for p in RESOLVED["procedures"] if p["name"] != "b"),
    proc("0x30", "b", ["0x40"], unresolved=1),
    proc("0x60", "e", ["extern:0x9"]),
    proc("extern:0x9", "UnresolvableCallTarget", kind="external"),
)
LIMITS = {"max_depth": 5, "max_nodes": 100, "max_operations": 100}


def at(snap, address):
    return next(p for p in snap["procedures"] if p["address"] == address)


def trace(snap, start, goal=None, direction="forward", **limits):
    goal_proc = at(snap, goal) if goal else None
    args = {"direction": direction, **LIMITS, **limits}
    return graphs.finish(graphs.trace_walk(snap, at(snap, start), goal_proc, args))


def test_not_reached_only_when_every_expansion_was_resolved():
    exhausted = trace(RESOLVED, "0x20", "0x50")  # a -> c, both fully resolved: d is provably not reached
    assert exhausted.goal_status == "not_reached" and exhausted.residual_unknowns == ()
    assert exhausted.truncated is False and exhausted.frontier == ()
    via_import = trace(RESOLVED, "0x10", "0x50")  # main calls puts, whose callees are unknown
    assert via_import.goal_status == "unknown" and via_import.truncated is True
    assert via_import.residual_unknowns == (f"extern:0x1: {graphs.IMPORT_BODY}",)
    via_indirect = trace(UNRESOLVED, "0x30", "0x50")  # b has an unresolved indirect call
    assert via_indirect.goal_status == "unknown" and "0x30: 1 indirect call sites" in via_indirect.residual_unknowns[0]
    placeholder = trace(UNRESOLVED, "0x60", "0x50")
    assert placeholder.goal_status == "unknown"
    assert placeholder.residual_unknowns[1] == f"extern:0x9: {graphs.PLACEHOLDER}"
    reached = trace(UNRESOLVED, "0x10", "0x40")  # unresolved reads elsewhere do not hide an observed path
    assert reached.goal_status == "reached" and reached.traversal_path == ("0x10", "0x20", "0x40")


def test_backward_callers_are_partial_while_any_call_site_is_unresolved():
    clean = trace(RESOLVED, "0x40", "0x50", direction="backward")
    assert clean.goal_status == "not_reached" and clean.residual_unknowns == ()
    dirty = trace(UNRESOLVED, "0x40", "0x50", direction="backward")
    assert dirty.goal_status == "unknown" and dirty.truncated is True
    assert dirty.residual_unknowns == (
        "2 indirect call sites in this binary were not resolved: callers through them are not listed.",
    )
    # edges follow the call (caller -> callee) whichever way the trace walks
    assert {(e.source_address, e.target_address) for e in clean.edges} == {
        ("0x20", "0x40"),
        ("0x30", "0x40"),
        ("0x10", "0x20"),
        ("0x10", "0x30"),
    }


def test_each_limit_is_a_residual_unknown_and_truncates():
    deep = trace(RESOLVED, "0x10", "0x40", max_depth=1)
    assert deep.goal_status == "unknown" and deep.truncated is True and deep.frontier == ("0x20", "0x30")
    assert "0x20: max_depth 1 reached before expanding" in deep.residual_unknowns
    wide = trace(RESOLVED, "0x10", "0x40", max_nodes=2)
    assert (
        wide.truncated is True
        and wide.traversal.nodes_visited == 2
        and "0x10: max_nodes 2 reached" in wide.residual_unknowns
    )
    assert wide.goal_status == "unknown" and "0x10" in wide.frontier
    busy = trace(RESOLVED, "0x10", "0x40", max_operations=1)
    assert busy.truncated is True and busy.goal_status == "unknown"
    assert "max_operations 1 reached: 3 queued procedures were not expanded" in busy.residual_unknowns
    assert set(busy.frontier) == {"0x20", "0x30", "extern:0x1"}


def test_an_interrupted_walk_returns_what_it_saw():
    walk = graphs.trace_walk(RESOLVED, at(RESOLVED, "0x10"), at(RESOLVED, "0x50"), {"direction": "forward", **LIMITS})
    next(walk)
    next(walk)  # main expanded
    with pytest.raises(StopIteration) as done:
        walk.throw(graphs.Interrupted("cancelled during tracing"))
    partial = done.value.value
    assert partial.goal_status == "unknown" and partial.truncated is True
    assert "cancelled during tracing: 3 queued procedures were not expanded" in partial.residual_unknowns
    assert {n.address for n in partial.nodes} == {"0x10", "0x20", "0x30", "extern:0x1"}


def test_call_graph_coverage_and_deduplicated_limitations():
    graph = graphs.finish(graphs.call_graph_walk(UNRESOLVED, at(UNRESOLVED, "0x10"), None, "forward"))
    nodes = {n.address: n for level in graph.levels.values() for n in level}
    leaf = nodes["0x40"]  # c: no calls, and nothing left unresolved: an observed absence
    assert leaf.calls == () and leaf.coverage == "complete" and leaf.limitations == ()
    assert nodes["0x30"].coverage == "partial" and nodes["0x30"].calls == ("0x40",)  # b: one indirect site
    assert nodes["extern:0x1"].calls == () and nodes["extern:0x1"].coverage == "unknown"  # never "no calls"
    every = [c for level in graph.levels.values() for n in level for c in n.limitations]
    assert sorted(graph.limitations) == sorted(set(every)) and len(graph.limitations) == len(set(graph.limitations))
    two_imports = snapshot(
        proc("0x10", "main", ["extern:0x1", "extern:0x2"]),
        proc("extern:0x1", "puts", kind="external"),
        proc("extern:0x2", "exit", kind="external"),
    )
    shared = graphs.finish(graphs.call_graph_walk(two_imports, at(two_imports, "0x10"), None, "forward"))
    assert [n.limitations for n in shared.levels["1"]] == [(graphs.IMPORT_BODY,)] * 2
    assert shared.limitations == (graphs.IMPORT_BODY,)  # one caveat, said once at the top


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("get_call_graph", {"address": "0x10", "direction": "forward"}),
        ("trace_call_path", {"start": "0x10", "goal": "0x50", "direction": "forward", **LIMITS}),
    ],
)
def test_a_cancelled_traversal_keeps_its_partial_observation(tool, args):
    """Cancelled at the second checkpoint of the walk: cancelled, and the partial traversal is retained."""
    session = _bound_session()
    program = PROGRAMS[tool](session, args, CTX)
    reply, checkpoints = None, 0
    while True:
        effect = program.send(reply)
        if isinstance(effect, NativeFacts):
            reply = Success(RESOLVED)
        elif isinstance(effect, ReadAnnotations):
            reply = Success(annotations.EMPTY)  # no analyst annotations on this target
        elif isinstance(effect, ReportProgress) and effect.phase in ("call graph", "tracing"):
            checkpoints += 1
            if checkpoints == 2:
                with pytest.raises(StopIteration) as done:
                    program.throw(ProgramCancelled(effect.phase))
                break
            reply = None
        elif type(effect) in SESSION_EFFECTS:
            reply = SESSION_EFFECTS[type(effect)](effect)
        else:
            reply = None
    outcome = done.value.value
    error = outcome.reply.failure()
    assert error.code == "cancelled"
    kept = outcome.session.evidence[error.details["partial_observation"]["evidence_id"]]
    assert kept.operation == tool and any(lim.startswith("Partial: the call was cancelled") for lim in kept.limitations)
    assert kept.raw_result is None
    result = kept.normalized_result
    if tool == "trace_call_path":
        assert result["truncated"] is True and result["goal_status"] == "unknown"
        assert any(r.startswith("cancelled during tracing") for r in result["residual_unknowns"])
    else:
        assert set(result) == {"0", "1", "limitations"} and result["limitations"][0].startswith("Partial:")
