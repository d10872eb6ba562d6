"""The traces over a recorded application: trace_application_feature (the graph, from a seed) and
trace_javascript_semantics (the semantic companion graph, one query)."""

from __future__ import annotations

from collections.abc import Mapping

from returns.result import Success

from rea.effect_types import ToolProgram
from rea.errors import invalid_request
from rea.javascript import trace as tr
from rea.javascript.programs.inputs import (
    STATIC_NOTICE,
    derive,
    native_refs,
    read_application,
    read_observations,
    with_semantic_graph,
)
from rea.javascript.records.arguments import TraceFeatureArgs, TraceSemanticsArgs
from rea.javascript.semantics import CursorError, applied_limits, semantic_query
from rea.program import Context, Outcome, must, refusable, refuse, typed
from rea.session import Session
from rea.wire.convert import to_wire


@typed
@refusable
def trace_application_feature(session: Session, args: TraceFeatureArgs, ctx: Context) -> Outcome:
    wire = to_wire(args)
    app = read_application(session, wire, "application")
    seed = wire["seed"]
    if seed["value"] == "" and (seed["match"] != "exact" or seed["kind"] == "node-id"):
        refuse(
            invalid_request(
                "An empty seed value must be an exact literal seed: empty containment would match every node.",
                field="seed.value",
                accepted='a non-empty value, or "" with match "exact" and a literal kind',
            )
        )
    observations = read_observations(session, native_refs(wire, ""), "native_observations")
    graphed = with_semantic_graph(session, app, wire.get("semantic_graph"))
    if wire.get("semantic_graph") is None and seed["kind"] == "string":
        # a string seed without its code index: answered from the graph, and says so
        graphed = graphed.lash(lambda _: Success(({**app.normalized_result, "semantic_graph": None}, None)))
    application, graph_evidence = must(graphed)
    result = tr.trace_feature(application, app.evidence_id, args, observations)
    limitations = [STATIC_NOTICE]
    if seed["kind"] == "native-export":
        limitations.append("Native add-on exports are not modelled as nodes: a native-export seed matches nothing.")
    if observations and not any(h["evidence_ids"] for h in result["native_handoffs"]):
        limitations.append("No native observation names an add-on the trace reaches (matched by file name).")
    result["limitations"] = limitations
    graphs = [graph_evidence] if graph_evidence is not None and seed["kind"] == "string" else []
    return derive(session, "trace_application_feature", wire, result, [app, *graphs, *observations])


@typed
@refusable
def trace_javascript_semantics(session: Session, args: TraceSemanticsArgs, ctx: Context) -> Outcome:
    wire = to_wire(args)
    app = read_application(session, wire, "application")
    query = wire["query"]
    limits = {**wire["limits"], **{k: v for k, v in (query.get("limits") or {}).items() if k in wire["limits"]}}
    application, graph_evidence = must(with_semantic_graph(session, app, wire.get("semantic_graph")))
    try:
        result = semantic_query(
            application, app.evidence_id, query, limits, applied_limits(query.get("limits"), limits)
        )
    except CursorError as bad:
        refuse(
            invalid_request(
                f"{bad}.", field="query.cursor", accepted="the page.next_cursor of an earlier answer to this query"
            )
        )
    graphs = [graph_evidence] if graph_evidence is not None else []
    return derive(session, "trace_javascript_semantics", wire, result, [app, *graphs])


PROGRAMS: Mapping[str, ToolProgram] = {
    "trace_application_feature": trace_application_feature,
    "trace_javascript_semantics": trace_javascript_semantics,
}
