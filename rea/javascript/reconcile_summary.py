"""The summaries in reconcile_javascript_runtime's result: the inputs' completeness, the counts by kind and
status, and one row per static layer and per runtime capture (rea.javascript.reconcile builds the rest)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rea.javascript import reconcile_nodes as rn
from rea.javascript.reconcile_inputs import Capture, Layer
from rea.javascript.records.reconciliation import (
    CaptureSummary,
    LayerSummary,
    Reconciliation,
    StaticLoadState,
    Summary,
)


def input_status(layers: Sequence[Layer], captures: Sequence[Capture]) -> str:
    coverage = [layer.graph.get("coverage") or {} for layer in layers]
    if any(c.get("truncated") for c in coverage) or any("truncated" in c.completeness.conditions for c in captures):
        return "truncated"
    whole = all(c.get("status") == "complete" for c in coverage) and all(
        c.completeness.status == "complete_within_window" for c in captures
    )
    return "complete" if whole else "partial"


def summary(
    runtime: rn.RuntimeProjection, items: Sequence[Reconciliation], states: Sequence[StaticLoadState]
) -> Summary:
    kinds = [r.entity.kind for r in runtime.entities]
    outcomes = [i.status for i in items]
    loads = [s.status for s in states]
    return Summary(
        runtime_targets=kinds.count("target"),
        runtime_frames=kinds.count("frame"),
        runtime_scripts=kinds.count("script"),
        runtime_workers=kinds.count("worker"),
        matched=outcomes.count("matched"),
        ambiguous=outcomes.count("ambiguous"),
        unmatched=outcomes.count("unmatched"),
        unknown=outcomes.count("unknown"),
        static_loaded=loads.count("loaded"),
        static_resident=loads.count("resident-in-loaded-asset"),
        static_not_observed=loads.count("not-observed-in-capture"),
        static_unknown=loads.count("unknown"),
    )


def _stored(values: Mapping[str, Any], key: str) -> Any:
    """A value of the stored analysis as it was written (a record older than today's may lack one: null)."""
    return values.get(key)


def layer_summary(layer: Layer) -> LayerSummary:
    """One static layer's row; its graph id, digest, path and format as the stored analysis wrote them."""
    r = layer.result
    return LayerSummary(
        layer_id=layer.layer_id,
        role=layer.role,  # type: ignore[arg-type]  # checked against Role by the arguments' schema
        evidence_id=layer.evidence.evidence_id,
        graph_id=_stored(layer.graph, "graph_id"),
        root_artifact_sha256=_stored(r, "root_artifact_sha256"),
        input_path=_stored(r, "input_path"),
        format=_stored(r, "format"),
        runtime_mappings=layer.mappings,
        source_map_read_approved=layer.source_map_read_approved,
    )


def capture_summary(c: Capture, runtime: rn.RuntimeProjection) -> CaptureSummary:
    return CaptureSummary(
        evidence_id=c.evidence.evidence_id,
        capture_sha256=c.capture_sha256,
        kind=c.kind,  # type: ignore[arg-type]  # one of READERS' kinds
        target_node_id=runtime.targets[c.evidence.evidence_id].node_id,
        target_key=c.target.key,
        target_location=c.target.location.value,
        frames=len(c.frames),
        scripts=len(c.scripts),
        workers=len(c.workers),
        scripts_complete_within_scope=c.scripts_complete,
    )
