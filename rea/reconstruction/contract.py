"""Contract of the reconstruction family (REA 6.x §4.11): the tools that judge a reconstruction by its Evidence."""

from __future__ import annotations

from rea.reconstruction.records.claims import (
    ChangedArgs,
    ChangedBehavior,
    CorrelateArgs,
    Correlated,
    Verification,
    VerifyArgs,
)
from rea.reconstruction.records.coverage import Closure, CoverageArgs
from rea.reconstruction.records.ledger import Ledger, LedgerArgs
from rea.wire.tool import evidence_tool

_EV = "ev_" + "0" * 64
_EV2 = "ev_" + "1" * 64
_REF = {"kind": "retained-evidence", "evidence_id": _EV}

VERIFY_RECONSTRUCTION = evidence_tool(
    "verify_reconstruction",
    "Verify Reconstruction",
    (
        "Verify declared claims, each settled by one retained comparison for one dimension: pass only when it "
        "observed no change and no active unknown cites it; a change fails; missing or unresolved Evidence is "
        "unknown. The whole passes only the declared claims, never equivalence. Paged."
    ),
    args=VerifyArgs,
    result=Verification,
    examples=[
        {
            "specification": {
                "schema_version": 1,
                "name": "Terminal compatibility",
                "claims": [
                    {
                        "claim_id": "terminal-output",
                        "title": "Terminal output remains equivalent",
                        "comparison_evidence_id": _EV,
                        "kind": "behavioral",
                        "dimension": "terminal",
                    }
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
        "Test declared hypotheses: each mapping pairs a static verdict (a compare_functions dimension or a "
        "compare_artifacts path) with a compare_process_captures dimension; the observed pattern agrees, "
        "contradicts or is unresolved. Never causal; nothing unmapped. Paged."
    ),
    args=CorrelateArgs,
    result=Correlated,
    examples=[
        {
            "static_comparisons": [_REF],
            "runtime_comparisons": [{"kind": "retained-evidence", "evidence_id": _EV2}],
            "mappings": [
                {
                    "static": {
                        "comparison_evidence_id": _EV,
                        "selector": {"kind": "function", "dimension": "pseudocode"},
                    },
                    "runtime": {"comparison_evidence_id": _EV2, "dimension": "terminal"},
                    "side_alignment": "left_to_left",
                    "hypothesis": {
                        "statement": "Static implementation changed without terminal change.",
                        "expected_pattern": "static_only",
                    },
                }
            ],
        }
    ],  # fmt: skip
    surface="session",
    effects={"mutatesSession", "idempotent"},
)

EMPTY_BUNDLE = {"bundle_version": 2, "artifacts": [], "providers": [], "environments": [], "scenarios": [],
                "captures": [], "unknowns": [], "records": []}  # fmt: skip

BUILD_RECONSTRUCTION_OBLIGATION_LEDGER = evidence_tool(
    "build_reconstruction_obligation_ledger",
    "Build Reconstruction Obligation Ledger",
    (
        "Ledger reconstruction obligations, reviewed and generated from the bundle's application graphs and "
        "process captures, against an exported Evidence bundle and a manifest (owners, cases, fixtures, "
        "verifiers): verified only when all close it with comparable authority; the ledger ready, open, failed "
        "or unknown. Order-independent identity; paged."
    ),
    args=LedgerArgs,
    result=Ledger,
    examples=[
        {
            "evidence_bundle": EMPTY_BUNDLE,
            "reviewed_obligations": [],
            "manifest": {"schema_version": 1, "bindings": [], "contradictions": []},
            "limits": {"max_obligations": 1000},
            "page": {"offset": 0, "limit": 50},
        }
    ],  # fmt: skip
    surface="application",
    effects={"mutatesSession", "idempotent"},
)

EVALUATE_RECONSTRUCTION_COVERAGE = evidence_tool(
    "evaluate_reconstruction_coverage",
    "Evaluate Reconstruction Coverage",
    (
        "Evaluate inline reconstruction coverage data (artifacts, surfaces, owners, claims, verifier contracts and "
        "results, unknowns, contradictions, package proofs, with the Evidence bundle they cite) against one named "
        "boundary: every reason it is not closed, and the status ready (complete), partial, unknown or failed."
    ),
    args=CoverageArgs,
    result=Closure,
    examples=[
        {
            "coverage": {
                "evidence_bundle": EMPTY_BUNDLE,
                "artifacts": [],
                "surfaces": [],
                "owners": [],
                "claims": [],
                "verifier_contracts": [],
                "verifier_results": [],
                "residual_unknown_ids": [],
                "contradictions": [],
                "package_proofs": [],
                "boundaries": [
                    {
                        "boundary_id": "release",
                        "title": "Release",
                        "required_surface_ids": ["cli"],
                        "required_claim_ids": ["cli.help"],
                        "required_package_proof_kinds": ["build"],
                        "allowed_dispositions": [],
                        "allowed_unknown_ids": [],
                    }
                ],
            },
            "boundary_id": "release",
        }
    ],  # fmt: skip
    surface="application",
    effects={"mutatesSession", "idempotent"},
)

CLI_COMMANDS: tuple[str, ...] = ()
TOOLS = (
    VERIFY_RECONSTRUCTION,
    FIND_CHANGED_BEHAVIOR,
    CORRELATE_STATIC_AND_RUNTIME,
    BUILD_RECONSTRUCTION_OBLIGATION_LEDGER,
    EVALUATE_RECONSTRUCTION_COVERAGE,
)
