"""What the JavaScript programs that read application Evidence share: the application (inline or a
retained reference, never rerun), its semantic graph, native observations, and the derived record they write."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request, missing_evidence
from rea.evidence import (
    Evidence,
    Provider,
    create_evidence,
)
from rea.javascript.record import (
    SEMANTIC_OPERATION,
    semantic_reference,
)
from rea.javascript.views import check_application
from rea.program import Outcome, must, refuse
from rea.session import RETAINED_KIND, Session, record, resolve, resolve_analysis, summary_parent, summary_parent_of
from rea.views.programs import deliver

WORKFLOW_PROVIDER = Provider(id="rea-javascript-workflows", name="REA application graph workflows", version="1")
STATIC_NOTICE = (
    "Static analysis of shipped files: nothing was executed; dynamic behaviour (computed requires, "
    "channels, URLs) is listed under unknowns, never taken as absence."
)


Graphed = tuple[Mapping[str, Any], Evidence | None]


def with_semantic_graph(session: Session, app: Evidence, given: Any = None) -> Result[Graphed, ReaError]:
    """The application result with its semantic graph in place, and the Evidence that holds it: `given`
    (inline or a retained reference) or, without it, the one this connection retained. A record whose graph
    is inline (unavailable) is returned as it is."""
    result = app.normalized_result
    ref = semantic_reference(result)
    if ref is None:
        return Success((result, None))
    if given is not None:
        return resolve(session, given, "semantic_graph").bind(lambda graph: _named(app, ref, graph))
    graph = session.evidence.get(ref)
    if graph is None:
        missing = missing_evidence(ref).with_details(field="semantic_graph", application=app.evidence_id)
        return Failure(
            attrs.evolve(
                missing,
                message=f"The semantic graph of {app.evidence_id} is retained as its own Evidence {ref}, which this "
                "connection does not hold.",
                action="Pass that Evidence as semantic_graph (inline), or analyse the application on this connection.",
            )
        )
    return _named(app, ref, graph)


def _named(app: Evidence, ref: str, graph: Evidence) -> Result[Graphed, ReaError]:
    """The application with the semantic graph it names in place; another Evidence is refused."""
    if graph.evidence_id != ref or graph.operation != SEMANTIC_OPERATION:
        return Failure(
            invalid_request(
                f"semantic_graph is {graph.evidence_id} ({graph.operation}); the application record names {ref}.",
                field="semantic_graph",
                accepted=f"the {SEMANTIC_OPERATION} Evidence {ref}",
                reason="wrong_evidence_kind",
            )
        )
    return Success(({**app.normalized_result, "semantic_graph": graph.normalized_result}, graph))


def read_application(session: Session, args: Mapping[str, Any], field: str) -> Evidence:
    """The application Evidence named by `field` (inline or retained) or `{field}_evidence_id`, exactly one."""
    inline, by_id = args.get(field), args.get(f"{field}_evidence_id")
    if (inline is None) == (by_id is None):
        refuse(
            invalid_request(
                f"Give exactly one of {field} and {field}_evidence_id.",
                field=field,
                accepted=f'{field}: application Evidence or {{"kind": "retained-evidence", '
                f'"evidence_id": ...}}; or {field}_evidence_id',
            )
        )
    ref = inline if inline is not None else {"kind": "retained-evidence", "evidence_id": by_id}
    evidence = must(resolve_analysis(session, ref, field))  # a summary's own id reads the analysis it summarizes
    must(check_application(evidence, field))
    return evidence


def _by_reference(session: Session, value: Any) -> Any:
    """Inline Evidence in the parameters becomes its reference (the record itself is linked, not copied), and a
    summary view the reference of the analysis it stands for, so either spelling records the same call."""
    if isinstance(value, str):  # the {field}_evidence_id spelling
        retained = session.evidence.get(value)
        return (summary_parent(retained) if retained is not None else None) or value
    if not isinstance(value, Mapping):
        return value
    if "normalized_result" in value:  # inline, already parsed strictly when it was resolved
        parent = summary_parent_of(value.get("operation"), value["normalized_result"])
        return {"kind": RETAINED_KIND, "evidence_id": parent or value.get("evidence_id")}
    retained = session.evidence.get(value["evidence_id"]) if value.get("kind") == RETAINED_KIND else None
    parent = summary_parent(retained) if retained is not None else None
    return {"kind": RETAINED_KIND, "evidence_id": parent} if parent else value


def derive(
    session: Session,
    operation: str,
    args: Mapping[str, Any],
    result: Any,
    sources: list[Evidence],
    limitations: tuple[str, ...] = (),
) -> Outcome:
    parameters = {
        k: [_by_reference(session, x) for x in v] if isinstance(v, list) else _by_reference(session, v)
        for k, v in args.items()
        if k != "detail"  # delivery detail never changes the derived record's identity
    }
    evidence = must(
        create_evidence(
            provider=WORKFLOW_PROVIDER,
            operation=operation,
            parameters=parameters,
            normalized_result=result,
            subject=sources[0].subject if all(s.subject == sources[0].subject for s in sources) else None,
            confidence="derived",
            authority="analyst-inference",
            limitations=(STATIC_NOTICE, *limitations),
            evidence_links=tuple(dict.fromkeys(s.evidence_id for s in sources)),
        )
    )
    if args.get("detail") == "summary":
        return deliver(record(session, sources), evidence, "summary")
    return Outcome(session=record(session, sources + [evidence]), reply=Success(evidence.to_json()))


def read_observations(session: Session, items: Any, field: str) -> list[Evidence]:
    """Native observation Evidence (inline or retained), checked like any other Evidence input."""
    out = [must(resolve(session, item, f"{field}[{index}]")) for index, item in enumerate(items)]
    if len({e.evidence_id for e in out}) != len(out):
        refuse(invalid_request(f"{field} must be unique.", field=field, accepted="distinct Evidence records"))
    return out


def native_refs(args: Mapping[str, Any], side: str) -> list[Any]:
    """Native observations given inline and by retained id (the reference's two spellings)."""
    ids = args[f"{side}native_observation_evidence_ids"]
    return [*args[f"{side}native_observations"], *({"kind": "retained-evidence", "evidence_id": i} for i in ids)]


def read_pair(session: Session, args: Mapping[str, Any]) -> list[Evidence]:
    """The left and right application Evidence, in that order."""
    return [read_application(session, args, side) for side in ("left", "right")]
