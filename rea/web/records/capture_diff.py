"""Wire records of compare_web_captures: two passive captures or two scenario captures, and their diff."""

from __future__ import annotations

from typing import Any, Literal

import attrs

from rea.web.records.browser import SHA256
from rea.wire.schema import Open, field

# ------------------------------------------------------------------ compare_web_captures

ArtifactKind = Literal["action_state", "screenshot", "dom", "accessibility", "url", "history", "storage", "events"]
NormalizableKind = Literal["action_state", "dom", "accessibility", "url", "history", "storage", "events"]
EvidenceState = Literal["captured", "not_requested", "missing", "truncated"]
DiffStatus = Literal["changed", "unchanged", "unknown"]
AlignmentCode = Literal[
    "duplicate_before_step_id",
    "duplicate_after_step_id",
    "missing_before_step",
    "missing_after_step",
    "action_mismatch",
    "capture_context_mismatch",
]
BuiltInRule = Literal[
    "ignore_step_elapsed_ms",
    "ignore_event_sequence",
    "ignore_event_step_index",
    "compare_screenshot_content_digest",
    "compare_normalized_text_content",
]


def _capture_field(description: str, nullable: bool = False) -> Any:
    """A producer result passed back whole: advertised as an object, validated in full by the program
    against the producer's own output schema (as 6.x does, to keep the advertised input small)."""
    body: dict[str, Any] = {"type": "object"}
    return field(
        description,
        default=None,
        omit_none=not nullable,
        schema={"anyOf": [body, {"type": "null"}]} if nullable else body,
    )


@attrs.frozen(kw_only=True)
class PassiveCapture:
    inspection: Open = field(
        "The complete normalized_result of inspect_web_page, unchanged (validated in full)", schema={"type": "object"}
    )
    webmcp: Open = _capture_field(
        "The complete normalized_result of discover_webmcp_tools for this capture, or null", nullable=True
    )


@attrs.frozen(kw_only=True)
class NormalizationRule:
    rule_id: str = field("Stable rule identity; rules run in rule_id order", minLength=1)
    artifacts: tuple[NormalizableKind, ...] = field("Artifact families whose strings use this rule", minItems=1)
    match: str = field("Exact public literal to replace (no regular expressions)", minLength=1)
    replacement: str = field("Its replacement in the normalized comparison")


@attrs.frozen(kw_only=True)
class Normalization:
    rules: tuple[NormalizationRule, ...] = field("Exact-literal rules", default=())


@attrs.frozen(kw_only=True)
class CompareWebCapturesArgs:
    before: PassiveCapture | None = field("Earlier passive page capture (with after)", default=None, omit_none=True)
    after: PassiveCapture | None = field("Later passive page capture (with before)", default=None, omit_none=True)
    before_scenario: Open = _capture_field("Earlier capture_browser_scenario normalized_result, unchanged")
    after_scenario: Open = _capture_field("Later capture_browser_scenario normalized_result, unchanged")
    normalization: Normalization | None = field(
        "Scenario pairs only: exact-literal rules (default {rules: []})", default=None, omit_none=True
    )
    max_changes: int = field("Change records retained", default=2000, minimum=1, maximum=20_000)


@attrs.frozen(kw_only=True)
class ArtifactDiff:
    artifact: ArtifactKind = field("")
    status: Literal["changed", "unknown"] = field("")
    before_state: EvidenceState = field("")
    after_state: EvidenceState = field("")
    before_sha256: str | None = field("Digest of the normalized value (null when not captured)")
    after_sha256: str | None = field("")
    reason: str | None = field("Why it is unknown")


@attrs.frozen(kw_only=True)
class AlignmentFailure:
    code: AlignmentCode = field("")
    step_id: str | None = field("")
    reason: str = field("", minLength=1)


@attrs.frozen(kw_only=True)
class Alignment:
    status: Literal["aligned", "partial", "failed"] = field("")
    aligned_steps: int = field("", minimum=0)
    before_only: tuple[str, ...] = field("")
    after_only: tuple[str, ...] = field("")
    failures: tuple[AlignmentFailure, ...] = field("")


@attrs.frozen(kw_only=True)
class StepDiff:
    step_id: str = field("", minLength=1)
    before_step_index: int = field("", minimum=0)
    after_step_index: int = field("", minimum=0)
    before_action: str = field("", minLength=1)
    after_action: str = field("", minLength=1)
    status: DiffStatus = field("")
    artifact_diffs: tuple[ArtifactDiff, ...] = field("")
    omitted_artifact_diffs: int = field("Our extra: records past max_changes", minimum=0)


@attrs.frozen(kw_only=True)
class CommittedNormalization:
    built_in_rules: tuple[BuiltInRule, ...] = field("", minItems=5, maxItems=5)
    rules: tuple[NormalizationRule, ...] = field("The caller's rules in rule_id order")
    sha256: str = field("Digest of the committed policy", pattern=SHA256)


@attrs.frozen(kw_only=True)
class DiffCount:
    total: int = field("", minimum=0)
    retained: int = field("Our extra", minimum=0)
    omitted: int = field("Our extra", minimum=0)


@attrs.frozen(kw_only=True)
class ScenarioDiff:
    schema_version: Literal[1] = field("")
    comparison_kind: Literal["browser_scenario"] = field("")
    overall_status: DiffStatus = field("unchanged only when both captures are complete and aligned")
    normalization: CommittedNormalization = field("")
    alignment: Alignment = field("")
    steps: tuple[StepDiff, ...] = field("")
    artifact_diffs: DiffCount = field("")
    limitations: tuple[str, ...] = field("")


@attrs.frozen(kw_only=True)
class Change:
    identity: str = field("")
    change: Literal["added", "removed", "modified"] = field("")


@attrs.frozen(kw_only=True)
class Dimension:
    status: DiffStatus = field("")
    total_changes: int = field("", minimum=0)
    changes: tuple[Change, ...] = field("")
    omitted_changes: int = field("", minimum=0)
    reason: str | None = field("Why it is unknown")


@attrs.frozen(kw_only=True)
class Dimensions:
    dom_structure: Dimension = field("")
    scripts: Dimension = field("")
    resources: Dimension = field("")
    network: Dimension = field("")
    metadata: Dimension = field("")
    webmcp: Dimension = field("")
    accessibility: Dimension = field("")
    storage: Dimension = field("")


@attrs.frozen(kw_only=True)
class TargetRef:
    target_id: str = field("")
    url: str = field("")


@attrs.frozen(kw_only=True)
class WebCaptureDiff:
    schema_version: Literal[1] = field("")
    overall_status: DiffStatus = field("")
    before_target: TargetRef = field("")
    after_target: TargetRef = field("")
    dimensions: Dimensions = field("")
    limitations: tuple[str, ...] = field("")


WebCaptureComparison = ScenarioDiff | WebCaptureDiff
