"""inspect_analysis_view: one selected view of completed Evidence, as derived Evidence linked to its parent.

The parent's operation picks the family projection (VIEW_DISPATCH); the shared
seal adds parent identity and the view digest. The view is retained beside its
parent and is content-addressed like any record; no provider is started.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from returns.result import Failure, Result, Success

from rea import __version__
from rea.android.views import android_view
from rea.artifacts.views import artifact_view
from rea.effect_types import Program, ToolProgram
from rea.errors import ReaError
from rea.evidence import Evidence, Provider, create_evidence, parse_evidence
from rea.javascript.comparison_views import comparison_view
from rea.javascript.views import application_view
from rea.layout.views import layout_view, macho_view
from rea.managed.views import managed_view
from rea.native.views import native_view
from rea.program import Context, Outcome, failed, must, need, refusable, typed
from rea.session import RETAINED_KIND, Session, record, resolve_analysis, through_summary
from rea.views.projection import seal, view_error
from rea.views.records.requests import NATIVE_SUMMARIZED, AnalysisViewArgs
from rea.wasm.model import ReadWatPage
from rea.wasm.views import wasm_view, wat_page_request
from rea.web_network.views import capture_view
from rea.wire.convert import to_wire

VIEW_PROVIDER = Provider(id="rea-views", name="REA analysis views", version=__version__)
Projection = Callable[[Evidence, Mapping[str, Any]], Result[dict[str, Any], ReaError]]

VIEW_DISPATCH: Mapping[str, Projection] = {
    "inspect_artifact": artifact_view,
    "inventory_artifact": artifact_view,
    "analyze_function": native_view,
    "analyze_javascript_application": application_view,
    "search_android_classes": android_view,
    "inspect_android_class": android_view,
    "inspect_binary_layout": layout_view,
    "inspect_wasm_artifact": wasm_view,
    "inspect_macho": macho_view,
    "inspect_web_network_capture": capture_view,
    "inspect_managed_artifact": managed_view,
    "inspect_managed_members": managed_view,
    "compare_application_versions": comparison_view,
    **{operation: native_view for operation in NATIVE_SUMMARIZED},
}
# view kinds that read one producer's Evidence only; a producer this server lacks is said so
KIND_PARENT = {
    "wasm": "inspect_wasm_artifact",
    "macho": "inspect_macho",
    "facet": "inspect_binary_layout",
    "api-surface": "inspect_web_network_capture",
    "comparison": "compare_application_versions",
}
LAYOUT_COLLECTIONS = ("sections", "symbols")
COLLECTION_PARENT = {"records": "inspect_web_network_capture"}


def _produced(source: Evidence, view: Mapping[str, Any]) -> Result[Evidence, ReaError]:
    """The source, when a view of this kind may read Evidence of its producer."""
    producer = KIND_PARENT.get(view["kind"])
    if producer is None and view.get("collection") in LAYOUT_COLLECTIONS:
        producer = "inspect_binary_layout"
    producer = producer or COLLECTION_PARENT.get(view.get("collection", ""))
    if producer is None or source.operation == producer:
        return Success(source)
    if producer not in VIEW_DISPATCH:
        why = f"this server has no {producer} tool yet, so no such parent exists here."
    else:
        why = f"the source is {source.operation} Evidence."
    return Failure(view_error(f"{view['kind']} views read {producer} Evidence, and {why}", required_operation=producer))


def _projection(source: Evidence, page: Mapping[str, Any] | None) -> Result[Projection, ReaError]:
    """The family projection of the source's operation (a WAT page read from the page cache: the wasm view's)."""
    if page is not None:
        return Success(functools.partial(wasm_view, page=page))
    projection = VIEW_DISPATCH.get(source.operation)
    if projection is None:
        return Failure(
            view_error(
                f"inspect_analysis_view has no views of {source.operation} Evidence; its parents are "
                + ", ".join(sorted(VIEW_DISPATCH)),
                ("source",),
                accepted="Evidence from " + ", ".join(sorted(VIEW_DISPATCH)),
            )
        )
    return Success(projection)


def project(
    source: Evidence, view: Mapping[str, Any], page: Mapping[str, Any] | None = None
) -> Result[dict[str, Any], ReaError]:
    """The sealed normalized_result of one view of `source` (`page`: a WAT page read from the page cache)."""
    return (
        _produced(source, view)
        .bind(lambda _: _projection(source, page))
        .bind(lambda projection: projection(source, view))
        .bind(lambda unsealed: seal(source, unsealed))
    )


def view_evidence(
    source: Evidence, view: Mapping[str, Any], page: Mapping[str, Any] | None = None
) -> Result[Evidence, ReaError]:
    """Derived Evidence of one view, linked to (and parameterized by) its parent's exact reference."""
    return project(source, view, page).bind(
        lambda result: create_evidence(
            provider=VIEW_PROVIDER,
            operation="inspect_analysis_view",
            parameters={"source": {"kind": RETAINED_KIND, "evidence_id": source.evidence_id}, "view": dict(view)},
            normalized_result=result,
            subject=source.subject,
            # a view is derived from its parent; the api-surface grouping is inferred when it templated a path
            confidence="inferred" if result.get("inferred") is True else "derived",
            authority=source.authority,
            limitations=list(result["limitations"]),
            evidence_links=[source.evidence_id],
        )
    )


def _source(session: Session, value: Mapping[str, Any]) -> Result[Evidence, ReaError]:
    """The parent to project; a summary view given as the source is read as the analysis it summarizes."""
    if value.get("kind") == "inline":
        parsed = parse_evidence(value["evidence"]).alt(lambda e: e.with_details(field="source.evidence"))
        return parsed.bind(lambda evidence: through_summary(session, evidence, "source"))
    return resolve_analysis(session, value, "source")


@typed
@refusable
def inspect_analysis_view(session: Session, args: AnalysisViewArgs, ctx: Context) -> Program:
    # the JSON form: the projections read the view as JSON, and it is the view Evidence's parameters
    wire = to_wire(args)
    parent = must(_source(session, wire["source"]))
    page = None
    request = wat_page_request(parent, wire["view"])
    if request is not None:  # a WAT page past the carried text: read from the page cache, WABT is not run
        page = yield from need(ReadWatPage(**request))
    view = must(view_evidence(parent, wire["view"], page))
    return Outcome(session=record(session, [parent, view]), reply=Success(view.to_json()))


PROGRAMS: Mapping[str, ToolProgram] = {"inspect_analysis_view": inspect_analysis_view}


def deliver(session: Session, evidence: Evidence, detail: str) -> Outcome:
    """complete: the Evidence; summary: retain it and answer with its summary view (parent_evidence_id)."""
    retained = record(session, [evidence])
    if detail == "complete":
        return Outcome(session=retained, reply=Success(evidence.to_json()))
    summarized = view_evidence(evidence, {"kind": "summary"}).map(
        lambda view: Outcome(session=record(retained, [view]), reply=Success(view.to_json()))
    )
    return summarized.lash(lambda error: Success(failed(session, error))).unwrap()  # a refusal keeps the session
