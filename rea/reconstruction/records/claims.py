"""Wire records of verify_reconstruction, find_changed_behavior and correlate_static_and_runtime (REA 6.x shapes).

Comparison Evidence is passed the way every derived REA tool takes Evidence: a retained
reference `{"kind": "retained-evidence", "evidence_id": ...}` or the complete record inline.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.reconstruction.records.common import (
    CLAIM_ID,
    EVIDENCE_ID,
    SHA256,
    ComparisonStatus,
    limit_field,
    offset_field,
)
from rea.wire.schema import Open, field

ClaimKind = Literal["behavioral", "structural-function", "structural-artifact"]
_EVIDENCE_REF = {
    "type": "object",
    "description": "A retained reference {kind: retained-evidence, evidence_id} or a complete Evidence record",
}


# ---------------------------------------------------------------- verify_reconstruction


@attrs.frozen(kw_only=True)
class Claim:
    claim_id: str = field("Stable claim identity", pattern=CLAIM_ID)
    title: str = field("What the claim says", minLength=1, maxLength=500)
    comparison_evidence_id: str = field("The retained comparison Evidence that settles it", pattern=EVIDENCE_ID)
    kind: ClaimKind = field("Settled by compare_process_captures, compare_functions, compare_artifacts")
    dimension: str = field(
        "overall, or a dimension the comparison reports (structural-artifact: overall only)",
        minLength=1,
        maxLength=100,
    )


@attrs.frozen(kw_only=True)
class Specification:
    schema_version: Literal[1] = field("Specification version")
    name: str = field("The specification's name", minLength=1, maxLength=200)
    claims: tuple[Claim, ...] = field("The finite claims to verify; nothing else is inferred", minItems=1, maxItems=100)


@attrs.frozen(kw_only=True)
class CoverageRef:
    workspace_id: str = field("Coverage workspace", pattern="^rcw_[a-f0-9]{64}$")
    revision: int = field("Workspace revision", minimum=1)
    revision_sha256: str = field("Workspace revision digest", pattern=SHA256)
    boundary_id: str = field("Boundary", minLength=1, maxLength=200)


@attrs.frozen(kw_only=True)
class VerifyArgs:
    specification: Specification = field("The claims, each settled by one comparison Evidence record")
    coverage: CoverageRef | None = field(
        "A 3.1 coverage workspace revision evaluated in this session; its boundary must be ready",
        default=None,
        omit_none=True,
    )
    offset: int = offset_field()
    limit: int = limit_field()


@attrs.frozen(kw_only=True)
class ClaimResult:
    claim_id: str = field("", pattern=CLAIM_ID)
    kind: ClaimKind = field("")
    dimension: str = field("", minLength=1)
    status: Literal["pass", "fail", "unknown"] = field("pass only when the cited comparison observed no change")
    observed_status: ComparisonStatus = field("The comparison's verdict for this dimension (unknown when missing)")
    comparison_evidence_id: str = field("", pattern=EVIDENCE_ID)
    left_evidence_ids: tuple[str, ...] = field("The comparison's left sources")
    right_evidence_ids: tuple[str, ...] = field("The comparison's right sources")
    evidence_links: tuple[str, ...] = field("The comparison and its sources, sorted")
    unknown_ids: tuple[str, ...] = field("Active residual unknowns citing this Evidence", maxItems=100)
    limitations: tuple[str, ...] = field("Why the claim is not a pass, and caveats")


@attrs.frozen(kw_only=True)
class ClaimPage:
    items: tuple[ClaimResult, ...] = field("Claims sorted by claim_id", maxItems=100)
    offset: int = field("", minimum=0)
    limit: int = field("", minimum=1, maximum=100)
    total: int = field("", minimum=0)
    next_offset: int | None = field("null on the last page")


@attrs.frozen(kw_only=True)
class Probe:
    operation: str = field("The tool that would settle it", minLength=1, maxLength=200)
    rationale: str = field("Why", minLength=1, maxLength=1000)
    claim_ids: tuple[str, ...] = field("Claims it would settle", minItems=1, maxItems=100)
    unknown_ids: tuple[str, ...] = field("Unknowns it would settle", maxItems=100)


@attrs.frozen(kw_only=True)
class VerifySummary:
    total: int = field("", minimum=0)
    passed: int = field("", minimum=0)
    failed: int = field("", minimum=0)
    unknown: int = field("", minimum=0)
    behavioral: int = field("", minimum=0)
    structural: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class Verification:
    status: Literal["pass", "fail", "unknown"] = field("fail if any claim fails, else unknown if any is unknown")
    specification_sha256: str = field("Canonical digest of the specification, claims sorted", pattern=SHA256)
    summary: VerifySummary = field("Counts over every claim (not only this page)")
    claims: ClaimPage = field("One page of claim results")
    recommended_probes: tuple[Probe, ...] = field("What would settle the unknown claims", maxItems=2000)
    evidence_links: tuple[str, ...] = field("Every comparison and source cited, sorted")
    limitations: tuple[str, ...] = field("A pass is a pass of the declared claims only")


# ---------------------------------------------------------------- find_changed_behavior


@attrs.frozen(kw_only=True)
class ChangedArgs:
    comparisons: tuple[Open, ...] = field(
        "compare_process_captures, compare_functions or compare_artifacts Evidence (retained references or inline)",
        default=(),
        maxItems=100,
        schema={"type": "array", "items": _EVIDENCE_REF, "maxItems": 100, "default": []},
    )
    investigation_run: Open = field(
        "A 6.x cross-version investigation run: refused here (no investigation workspaces)",
        default=None,
        omit_none=True,
        schema={"type": "object"},
    )
    offset: int = offset_field()
    limit: int = limit_field()


@attrs.frozen(kw_only=True)
class Finding:
    scope: Literal["runtime", "protocol", "resource", "static_candidate"] = field(
        "runtime and protocol: observed by a process comparison; static_candidate: a static difference only"
    )
    dimension: str = field("", minLength=1)
    classification: Literal["observed_change", "derived_relationship", "contradiction", "unresolved_branch"] = field("")
    status: ComparisonStatus = field("")
    source_comparison_id: str = field("", pattern=EVIDENCE_ID)
    evidence_links: tuple[str, ...] = field("The comparison and the sources this finding rests on")
    limitations: tuple[str, ...] = field("")


@attrs.frozen(kw_only=True)
class FindingPage:
    items: tuple[Finding, ...] = field("Findings sorted by scope, dimension, comparison", maxItems=100)
    offset: int = field("", minimum=0)
    limit: int = field("", minimum=1, maximum=100)
    total: int = field("", minimum=0)
    next_offset: int | None = field("null on the last page")


@attrs.frozen(kw_only=True)
class ChangedSummary:
    observed_changes: int = field("", minimum=0)
    static_candidates: int = field("", minimum=0)
    contradictions: int = field("", minimum=0)
    unresolved: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class ChangedBehavior:
    behavior_status: Literal["observed_changed", "observed_unchanged", "unknown", "truncated"] = field(
        "From process comparisons only; static differences never make it observed_changed"
    )
    summary: ChangedSummary = field("Counts over every finding")
    findings: FindingPage = field("One page of findings")
    evidence_links: tuple[str, ...] = field("Every comparison and its sources, sorted")
    limitations: tuple[str, ...] = field("")


# ---------------------------------------------------------------- correlate_static_and_runtime

FunctionDimension = Literal[
    "identity", "pseudocode", "assembly", "comments", "calls", "references", "strings_names", "cfg"
]
RuntimeDimension = Literal["terminal", "interaction", "exit", "filesystem", "protocol", "process", "shim"]
Pattern = Literal["cochanged", "static_only", "runtime_only", "both_unchanged"]


@attrs.frozen(kw_only=True)
class Selector:
    kind: Literal["artifact", "function"] = field("artifact: one logical path; function: one dimension")
    logical_path: str | None = field("kind artifact: the path", default=None, omit_none=True, minLength=1)
    dimension: FunctionDimension | None = field("kind function: the dimension", default=None, omit_none=True)


@attrs.frozen(kw_only=True)
class StaticSide:
    comparison_evidence_id: str = field("A compare_functions or compare_artifacts record", pattern=EVIDENCE_ID)
    selector: Selector = field("What in it")


@attrs.frozen(kw_only=True)
class RuntimeSide:
    comparison_evidence_id: str = field("A compare_process_captures record", pattern=EVIDENCE_ID)
    dimension: RuntimeDimension = field("Which dimension")


@attrs.frozen(kw_only=True)
class Hypothesis:
    statement: str = field("The caller's hypothesis", minLength=1, maxLength=500)
    expected_pattern: Pattern = field("What it predicts")


@attrs.frozen(kw_only=True)
class HypothesisMapping:
    static: StaticSide = field("")
    runtime: RuntimeSide = field("")
    side_alignment: Literal["left_to_left", "left_to_right"] = field("How the two comparisons' sides line up")
    hypothesis: Hypothesis = field("")


@attrs.frozen(kw_only=True)
class CorrelateArgs:
    static_comparisons: tuple[Open, ...] = field(
        "compare_functions / compare_artifacts Evidence (retained references or inline)",
        schema={"type": "array", "items": _EVIDENCE_REF, "minItems": 1, "maxItems": 100},
    )
    runtime_comparisons: tuple[Open, ...] = field(
        "compare_process_captures Evidence (retained references or inline)",
        schema={"type": "array", "items": _EVIDENCE_REF, "minItems": 1, "maxItems": 100},
    )
    mappings: tuple[HypothesisMapping, ...] = field(
        "Explicit hypotheses; nothing unmapped is correlated", minItems=1, maxItems=500
    )
    offset: int = offset_field()
    limit: int = limit_field()


@attrs.frozen(kw_only=True)
class StaticObserved:
    comparison_evidence_id: str = field("", pattern=EVIDENCE_ID)
    selector: Selector = field("")
    status: ComparisonStatus = field("")
    conclusion_kind: Literal["derived_relationship", "contradiction", "unresolved_branch"] = field("")


@attrs.frozen(kw_only=True)
class RuntimeObserved:
    comparison_evidence_id: str = field("", pattern=EVIDENCE_ID)
    dimension: RuntimeDimension = field("")
    status: ComparisonStatus = field("")


@attrs.frozen(kw_only=True)
class Correlation:
    correlation_id: str = field("Digest of the mapping", pattern="^cor_[a-f0-9]{64}$")
    static: StaticObserved = field("")
    runtime: RuntimeObserved = field("")
    side_alignment: Literal["left_to_left", "left_to_right"] = field("")
    hypothesis: Hypothesis = field("")
    observed_pattern: Literal["cochanged", "static_only", "runtime_only", "both_unchanged", "unknown", "truncated"] = (
        field("")
    )
    classification: Literal["hypothesis", "contradiction", "unresolved_branch"] = field(
        "hypothesis: consistent with the observations (not proven causal)"
    )
    evidence_links: tuple[str, ...] = field("")
    limitations: tuple[str, ...] = field("")


@attrs.frozen(kw_only=True)
class CorrelationPage:
    items: tuple[Correlation, ...] = field("Sorted by correlation_id", maxItems=100)
    offset: int = field("", minimum=0)
    limit: int = field("", minimum=1, maximum=100)
    total: int = field("", minimum=0)
    next_offset: int | None = field("null on the last page")


@attrs.frozen(kw_only=True)
class CorrelationSummary:
    hypotheses: int = field("", minimum=0)
    contradictions: int = field("", minimum=0)
    unresolved: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class Correlated:
    status: Literal["correlated", "contradicted", "unknown", "truncated"] = field("")
    summary: CorrelationSummary = field("")
    correlations: CorrelationPage = field("")
    evidence_links: tuple[str, ...] = field("")
    limitations: tuple[str, ...] = field("")
