"""Contract of the reconstruction family (REA 6.x §4.11): the tools that judge a reconstruction by its Evidence."""

from __future__ import annotations

from rea.reconstruction.records.claims import (
    ChangedArgs,
    ChangedBehavior,
    Correlated,
    CorrelateArgs,
    Verification,
    VerifyArgs,
)
from rea.wire.tool import evidence_tool

_EV = "ev_" + "0" * 64
_EV2 = "ev_" + "1" * 64
_REF = {"kind": "retained-evidence", "evidence_id": _EV}

VERIFY_RECONSTRUCTION = evidence_tool(
    "verify_reconstruction",
    "Verify Reconstruction",
    (
        "Verify a finite specification of claims, each settled by one retained comparison (compare_functions, "
        "compare_artifacts, compare_process_captures) for one dimension: pass only when that comparison observed "
        "no change and no active residual unknown cites it; a change fails the claim; missing or unresolved "
        "Evidence is unknown. The whole is fail, unknown or pass over the declared claims only, never an "
        "equivalence of the programs. Claims are paged."
    ),
    args=VerifyArgs,
    result=Verification,
    examples=[
        {
            "specification": {
                "schema_version": 1,
                "name": "Terminal compatibility",
                "claims": [
                    {"claim_id": "terminal-output", "title": "Terminal output remains equivalent",
                     "comparison_evidence_id": _EV, "kind": "behavioral", "dimension": "terminal"}
                ],
            },
            "offset": 0,
            "limit": 100,
        }
    ],  # fmt: skip
    surface="session",
    effects={"mutatesSession", "idempotent"},
)

FIND_CHANGED_BEHAVIOR = evidence_tool(
    "find_changed_behavior",
    "Find Changed Behavior",
    (
        "Aggregate comparison Evidence into findings: process-capture differences are observed runtime or "
        "protocol changes; function and artifact differences are static candidates only. behavior_status comes "
        "from process comparisons alone (none supplied: unknown). Findings are paged."
    ),
    args=ChangedArgs,
    result=ChangedBehavior,
    examples=[{"comparisons": [_REF], "offset": 0, "limit": 100}],
    surface="session",
    effects={"mutatesSession", "idempotent"},
)

CORRELATE_STATIC_AND_RUNTIME = evidence_tool(
    "correlate_static_and_runtime",
    "Correlate Static And Runtime",
    (
        "Test caller-declared hypotheses: each mapping pairs one static verdict (a compare_functions dimension "
        "or one compare_artifacts path) with one runtime dimension of a compare_process_captures record and "
        "reports the observed pattern (cochanged, static_only, runtime_only, both_unchanged, unknown) as a "
        "consistent hypothesis, a contradiction or unresolved. Never causal; nothing unmapped. Paged."
    ),
    args=CorrelateArgs,
    result=Correlated,
    examples=[
        {
            "static_comparisons": [_REF],
            "runtime_comparisons": [{"kind": "retained-evidence", "evidence_id": _EV2}],
            "mappings": [
                {"static": {"comparison_evidence_id": _EV, "selector": {"kind": "function", "dimension": "pseudocode"}},
                 "runtime": {"comparison_evidence_id": _EV2, "dimension": "terminal"},
                 "side_alignment": "left_to_left",
                 "hypothesis": {"statement": "Static implementation changed without terminal change.",
                                "expected_pattern": "static_only"}}
            ],
        }
    ],  # fmt: skip
    surface="session",
    effects={"mutatesSession", "idempotent"},
)

CLI_COMMANDS: tuple[str, ...] = ()
TOOLS = (VERIFY_RECONSTRUCTION, FIND_CHANGED_BEHAVIOR, CORRELATE_STATIC_AND_RUNTIME)
