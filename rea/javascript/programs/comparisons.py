"""The comparisons of recorded applications: versions, source to bundle and export shapes."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs

from rea.effect_types import ToolProgram
from rea.errors import invalid_request
from rea.javascript import compare as cmp
from rea.javascript import compare_exports as export_cmp
from rea.javascript import compare_sources as source_cmp
from rea.javascript.programs.inputs import (
    STATIC_NOTICE,
    derive,
    native_refs,
    read_application,
    read_observations,
    read_pair,
)
from rea.javascript.records.arguments import CompareVersionsArgs, ExportShapesArgs, SourceToBundleArgs
from rea.javascript.records.comparison import ReferenceSide
from rea.javascript.views import check_application
from rea.program import Context, Outcome, must, refusable, refuse, typed
from rea.session import Session, resolve_analysis
from rea.wire.convert import to_wire


@typed
@refusable
def compare_application_versions(session: Session, args: CompareVersionsArgs, ctx: Context) -> Outcome:
    wire = to_wire(args)
    sides = read_pair(session, wire)
    native = []
    for side in ("left", "right"):
        native += read_observations(session, native_refs(wire, f"{side}_"), f"{side}_native_observations")
    left, right = (s.normalized_result for s in sides)
    links = [sides[0].evidence_id, sides[1].evidence_id]
    compared = cmp.compare_versions(left, right, args.limits.max_comparison_items, links)
    graph, omitted = cmp.change_graph(left, right, compared.items, args.limits)
    coverage = attrs.evolve(
        compared.coverage,
        omitted_graph_nodes=omitted[0],
        omitted_graph_edges=omitted[1],
        status="truncated" if any(omitted) else compared.coverage.status,
    )
    limitations = ["Static equality does not establish unchanged runtime behaviour."]
    if native:
        limitations.append("Native observations are linked as Evidence; native code is not compared here.")
    result = cmp.versions_result(
        attrs.evolve(compared, coverage=coverage),
        (cmp.graph_side(links[0], left), cmp.graph_side(links[1], right)),
        graph,
        list(dict.fromkeys([*links, *(n.evidence_id for n in native)])) if native else links,
        [STATIC_NOTICE, *limitations],
    )
    return derive(session, "compare_application_versions", wire, result, [*sides, *native], tuple(limitations))


HISTORICAL_STATES = ("complete", "partial", "unknown")


def _historical(reference: Mapping[str, Any]) -> None:
    """The HistoricalSourceGraph fields this comparison reads, checked (the rest are kept as given); a reference
    without them ends the program refused."""
    entries = reference.get("entries")
    ok = (
        reference.get("authority") == "historical-reference"
        and str(reference.get("schema", "HistoricalSourceGraph/v1")).startswith("HistoricalSourceGraph")
        and reference.get("inventory_state") in HISTORICAL_STATES
        and isinstance(reference.get("root_sha256"), str)
        and re.fullmatch("[a-f0-9]{64}", reference["root_sha256"]) is not None
        and isinstance(entries, list)
        and all(isinstance(e, Mapping) and isinstance(e.get("path"), str) and e.get("kind") for e in entries)
    )
    if not ok:
        refuse(
            invalid_request(
                "reference is not a HistoricalSourceGraph: it needs authority historical-reference, inventory_state, "
                "root_sha256 and entries [{kind, path, sha256?, language?}].",
                field="reference",
                accepted="a HistoricalSourceGraph object, or application Evidence (inline or retained)",
            )
        )


@typed
@refusable
def compare_source_to_bundle(session: Session, args: SourceToBundleArgs, ctx: Context) -> Outcome:
    wire = to_wire(args)
    app = read_application(session, wire, "application")
    application = app.normalized_result
    given, sources = args.reference, [app]
    if given is None:
        entries = source_cmp.own_sources(application)
        side = ReferenceSide(
            inventory_state="complete" if cmp.graph_status(application) == "complete" else "partial",
            root_sha256=application["root_artifact_sha256"],
            kind="source-map-sources",
        )
    elif given.get("authority") == "historical-reference" and "evidence_id" not in given:
        _historical(given)
        entries = source_cmp.historical_sources(given)
        side = ReferenceSide(
            inventory_state=given["inventory_state"], root_sha256=given["root_sha256"], kind="historical-source-graph"
        )
    else:
        found = must(resolve_analysis(session, given, "reference"))
        must(check_application(found, "reference"))
        tree = found.normalized_result
        entries = source_cmp.tree_sources(tree)
        side = ReferenceSide(
            inventory_state="complete" if cmp.graph_status(tree) == "complete" else "partial",
            root_sha256=tree["root_artifact_sha256"],
            kind="application-evidence",
            evidence_id=found.evidence_id,
        )
        sources.append(found)
    links = list(dict.fromkeys(s.evidence_id for s in sources))
    limitation = "Path mappings are static inferences; they do not prove what the bundle loads at runtime."
    sides = (cmp.graph_side(app.evidence_id, application), side)
    result = source_cmp.source_to_bundle(
        application, entries, sides, links, args.limits, limitations=(STATIC_NOTICE, limitation)
    )
    return derive(session, "compare_source_to_bundle", wire, to_wire(result), sources, (limitation,))


@typed
@refusable
def compare_javascript_export_shapes(session: Session, args: ExportShapesArgs, ctx: Context) -> Outcome:
    wire = to_wire(args)
    sides = read_pair(session, wire)
    links = [s.evidence_id for s in sides]
    requested = ((args.left_module_path, args.left_export_name), (args.right_module_path, args.right_export_name))
    found, out = [], []
    for evidence, (module, name) in zip(sides, requested):
        hit = export_cmp.find_export(evidence.normalized_result, module, name)
        found.append(hit)
        cap = args.limits.max_candidate_exports
        out.append(export_cmp.export_side(hit, evidence.evidence_id, evidence.normalized_result, module, name, cap))
    statuses = [cmp.graph_status(s.normalized_result) for s in sides]
    limitation = "Shapes come from literal objects, classes and direct object returns; nothing is executed."
    result = to_wire(
        export_cmp.export_shapes(
            out, found, statuses, links, args.limits.max_changes, limitations=(STATIC_NOTICE, limitation)
        )
    )
    result["limitations"] = result.pop("limitations")  # today's replies list the limitations after the status
    return derive(session, "compare_javascript_export_shapes", wire, result, sides, (limitation,))


PROGRAMS: Mapping[str, ToolProgram] = {
    "compare_application_versions": compare_application_versions,
    "compare_source_to_bundle": compare_source_to_bundle,
    "compare_javascript_export_shapes": compare_javascript_export_shapes,
}
