"""The traces over a recorded application: trace_application_feature (the graph, from a seed) and
trace_javascript_semantics (the semantic companion graph, one query)."""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping


from rea.errors import invalid_request
from rea.javascript import trace as tr
from rea.javascript.semantics import CursorError, applied_limits, semantic_query
from rea.program import Context, Outcome, failed
from rea.session import Session

from rea.javascript.programs.inputs import (
    STATIC_NOTICE,
    derive,
    native_refs,
    read_application,
    read_observations,
    with_semantic_graph,
)


def trace_application_feature(session: Session, args: Mapping[str, Any], ctx: Context) -> Outcome:
    app, problem = read_application(session, args, "application")
    if problem is not None:
        return failed(session, problem)
    assert app is not None
    seed = args["seed"]
    if seed["value"] == "" and (seed["match"] != "exact" or seed["kind"] == "node-id"):
        return failed(
            session,
            invalid_request(
                "An empty seed value must be an exact literal seed: empty containment would match every node.",
                field="seed.value",
                accepted='a non-empty value, or "" with match "exact" and a literal kind',
            ),
        )
    observations, problem = read_observations(session, native_refs(args, ""), "native_observations")
    if problem is not None:
        return failed(session, problem)
    application, graph_evidence, problem = with_semantic_graph(session, app, args.get("semantic_graph"))
    if problem is not None and (args.get("semantic_graph") is not None or seed["kind"] != "string"):
        return failed(session, problem)
    if problem is not None:  # a string seed without its code index: answered from the graph, and says so
        application = {**application, "semantic_graph": None}
    result = tr.trace_feature(application, app.evidence_id, args, [o.to_json() for o in observations])
    limitations = [STATIC_NOTICE]
    if seed["kind"] == "native-export":
        limitations.append("Native add-on exports are not modelled as nodes: a native-export seed matches nothing.")
    if observations and not any(h["evidence_ids"] for h in result["native_handoffs"]):
        limitations.append("No native observation names an add-on the trace reaches (matched by file name).")
    result["limitations"] = limitations
    graphs = [graph_evidence] if graph_evidence is not None and seed["kind"] == "string" else []
    return derive(session, "trace_application_feature", args, result, [app, *graphs, *observations])


def trace_javascript_semantics(session: Session, args: Mapping[str, Any], ctx: Context) -> Outcome:
    app, problem = read_application(session, args, "application")
    if problem is not None:
        return failed(session, problem)
    assert app is not None
    query = args["query"]
    limits = {**args["limits"], **{k: v for k, v in (query.get("limits") or {}).items() if k in args["limits"]}}
    application, graph_evidence, problem = with_semantic_graph(session, app, args.get("semantic_graph"))
    if problem is not None:
        return failed(session, problem)
    try:
        result = semantic_query(
            application, app.evidence_id, query, limits, applied_limits(query.get("limits"), limits)
        )
    except CursorError as bad:
        return failed(
            session,
            invalid_request(
                f"{bad}.", field="query.cursor", accepted="the page.next_cursor of an earlier answer to this query"
            ),
        )
    graphs = [graph_evidence] if graph_evidence is not None else []
    return derive(session, "trace_javascript_semantics", args, result, [app, *graphs])


PROGRAMS = {
    "trace_application_feature": trace_application_feature,
    "trace_javascript_semantics": trace_javascript_semantics,
}
