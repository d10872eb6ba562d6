"""compare_functions' arguments and result: two analyze_function dossiers compared dimension by dimension."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.native.records.arguments import NO_TOTAL, Dimension, Verdict
from rea.wire.schema import Open, field


@attrs.frozen(kw_only=True)
class CompareArgs:
    """Exactly one of left / left_evidence_ids per side (checked by the program)."""

    left: Open = field(
        "analyze_function Evidence: the complete record or {kind: retained-evidence, evidence_id}",
        omit_none=True,
        schema={"type": "object"},
    )
    right: Open = field(
        "analyze_function Evidence: the complete record or {kind: retained-evidence, evidence_id}",
        omit_none=True,
        schema={"type": "object"},
    )
    left_evidence_ids: tuple[str, ...] | None = field(
        "Retained analyze_function Evidence ids (3.1)", omit_none=True, minItems=1, maxItems=100
    )
    right_evidence_ids: tuple[str, ...] | None = field(
        "Retained analyze_function Evidence ids (3.1)", omit_none=True, minItems=1, maxItems=100
    )
    offset: int = field("First change (3.1; changes are complete)", default=0, minimum=0, maximum=NO_TOTAL)
    limit: int = field("Changes (3.1; changes are complete)", default=100, minimum=1, maximum=100)


@attrs.frozen(kw_only=True)
class TextDelta:
    added_lines: int = field("", minimum=0)
    removed_lines: int = field("", minimum=0)
    hunks: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class DimensionResult:
    dimension: Dimension = field("What was compared")
    status: Verdict = field("The verdict of this dimension")
    left_digest: str | None = field("sha256 of the left side's compared facts (null: not observed)")
    right_digest: str | None = field("sha256 of the right side's compared facts (null: not observed)")
    left_count: int | None = field("Left items compared", minimum=0)
    right_count: int | None = field("Right items compared", minimum=0)
    text_delta: TextDelta | None = field("Line delta for text dimensions")
    conclusion_kind: Literal["derived_relationship", "contradiction", "unresolved_branch"] = field("What it rests on")
    evidence_links: tuple[str, ...] = field("The compared Evidence", minItems=2)
    limitations: tuple[str, ...] = field("Why it is unknown, or its caveats")
    added: tuple[str, ...] = field("Items only on the right (extra; first 50)")
    removed: tuple[str, ...] = field("Items only on the left (extra; first 50)")


@attrs.frozen(kw_only=True)
class FunctionMatch:
    status: Literal["matched", "mismatched", "ambiguous"] = field("Whether the two dossiers are the same function")
    method: Literal["symbol", "explicit"] = field("symbol: same name; explicit: the caller paired them")
    left_name: str = field("")
    right_name: str = field("")


@attrs.frozen(kw_only=True)
class DimensionSummary:
    unchanged: int = field("", minimum=0)
    changed: int = field("", minimum=0)
    truncated: int = field("", minimum=0)
    unknown: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class FunctionComparison:
    status: Verdict = field("Overall verdict")
    function_match: FunctionMatch = field("How the functions were paired")
    left_subject_sha256: str = field("Left binary", pattern="^[a-f0-9]{64}$")
    right_subject_sha256: str = field("Right binary", pattern="^[a-f0-9]{64}$")
    summary: DimensionSummary = field("Dimensions by status")
    dimensions: tuple[DimensionResult, ...] = field("All eight dimensions", minItems=8, maxItems=8)
    changes: tuple[DimensionResult, ...] = field("The changed dimensions")
    limitations: tuple[str, ...] = field("Caveats")
    left_evidence_ids: tuple[str, ...] = field("Left dossiers (extra)")
    right_evidence_ids: tuple[str, ...] = field("Right dossiers (extra)")
