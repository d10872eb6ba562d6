"""The accepted input groups of each tool whose input is a union at the root.

Model APIs refuse a root anyOf/oneOf, so such a tool is advertised as one object holding every group's
properties; the root description is then the only place a client (and the compact profile, which keeps
it) learns which combinations are accepted. The server validates the exact union either way."""

from __future__ import annotations

INPUT_GROUPS: dict[str, str] = {
    "compare_web_captures": (
        "Exactly one group: before + after (inspect_web_page results, each optionally with webmcp), or "
        "before_scenario + after_scenario (capture_browser_scenario results, optionally with normalization); "
        "max_changes applies to both."
    ),
    "project_managed_application_graph": (
        "At least one of managed_artifact_evidence_id, managed_members_evidence_id, "
        "managed_native_boundaries_evidence_id (one assembly); inventory_evidence_id and limits are optional."
    ),
    "trace_application_feature": "Give seed and exactly one of application or application_evidence_id.",
    "trace_javascript_semantics": "Give query and exactly one of application or application_evidence_id.",
    "compare_application_versions": (
        "Each side exactly once: left or left_evidence_id, and right or right_evidence_id; the native "
        "observation lists and limits are optional."
    ),
    "compare_source_to_bundle": (
        "Exactly one of application or application_evidence_id; reference is optional (omitted: the bundle's "
        "own source-map sources)."
    ),
    "compare_javascript_export_shapes": (
        "The four module and export names, with each side exactly once: left or left_evidence_id, and right "
        "or right_evidence_id."
    ),
}
