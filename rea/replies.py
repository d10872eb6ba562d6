"""What a tool reply looks like on the wire, and whether it fits the response budget.

Admission is decided from the canonical bytes' size and escape counts: the
text copy is a JSON string (each quote and backslash gains one byte), the
structured copy is the same JSON again. No document-sized wire string is built
to find out it does not fit.
"""

from __future__ import annotations

from typing import Any

from returns.result import Failure, Result, Success

from rea.budget import ENVELOPE_RESERVE_BYTES, ResponseBudget
from rea.canonical_json import canonicalize
from rea.catalog.contract import ToolContract
from rea.catalog.projection import PROVENANCE
from rea.errors import ReaError
from rea.evidence import Evidence, Provider, create_evidence
from rea.wire.views import FIRST_VIEW, view_call

MAX_ERROR_MESSAGE = 4_096

ERROR_PROVIDER = Provider(id="rea-transport", name="REA transport", version="1")


def meta_for(contract: ToolContract | None) -> dict[str, Any] | None:
    """`_meta` of every result and error of a marked tool (unknown tools stay marked)."""
    return PROVENANCE if contract is None or contract.returns_target_content else None


def text_wire_bytes(canonical: bytes) -> int:
    return len(canonical) + canonical.count(b'"') + canonical.count(b"\\")


def success_bytes(canonical: bytes, meta: dict[str, Any] | None) -> int:
    return text_wire_bytes(canonical) + len(canonical) + (len(canonicalize(meta)) if meta else 0)


def admit_success(
    tool: str, payload: Any, contract: ToolContract | None, budget: ResponseBudget, evidence_id: str | None
) -> Result[bytes, ReaError]:
    """The canonical bytes when the reply fits, else resource_constraint naming the retained record."""
    canonical = canonicalize(payload)
    size = success_bytes(canonical, meta_for(contract))
    if size <= budget.payload_limit:
        return Success(canonical)
    limits: dict[str, Any] = {
        "max_response_bytes": budget.max_response_bytes,
        "envelope_reserve_bytes": ENVELOPE_RESERVE_BYTES,
        "reply_bytes": size + ENVELOPE_RESERVE_BYTES,
    }
    if evidence_id is not None:
        limits["evidence_reference"] = {"kind": "retained-evidence", "evidence_id": evidence_id}
        first = FIRST_VIEW.get(tool)
        if first is not None:  # a ready first page; the retained record stays whole
            limits["continuation"] = view_call(evidence_id, first)
        advice = (
            "The complete Evidence is retained in this session: read it with inspect_analysis_view using "
            "details.reported_limits.evidence_reference, or write it out with export_evidence_bundle."
        )
    else:
        advice = (
            'Ask for less (get_evidence_bundle with detail "summary", a smaller page), or write the session '
            "out with export_evidence_bundle."
        )
    return Failure(
        ReaError(
            code="resource_constraint",
            message=f"The {tool} reply needs {size + ENVELOPE_RESERVE_BYTES} bytes, more than the {budget.max_response_bytes}-byte response budget. {advice}",
            details={"resource": "transport", "tool": tool, "reported_limits": limits},
            action=advice,
        )
    )


def error_text(error: ReaError) -> bytes:
    return canonicalize(error.to_json())


def oversized_error(tool: str, error: ReaError, budget: ResponseBudget) -> tuple[ReaError, Evidence | None]:
    """An error too large to send is retained as Evidence and replaced by a bounded diagnostic."""
    retained = create_evidence(
        provider=ERROR_PROVIDER,
        operation=tool,
        parameters={},
        normalized_result=error.to_json(),
        predicate_type="rea.oversized-error/v1",
        confidence="observed",
        authority="shipped-artifact",
    )
    details: dict[str, Any] = {
        "resource": "transport",
        "original_code": error.code,
        "reported_limits": {"max_response_bytes": budget.max_response_bytes},
    }
    evidence = None
    if isinstance(retained, Success):
        evidence = retained.unwrap()
        details["reported_limits"]["evidence_reference"] = {
            "kind": "retained-evidence",
            "evidence_id": evidence.evidence_id,
        }
        details["retention"] = "retained"
    else:
        details["retention"] = f"unavailable: {retained.failure().message}"
    bounded = ReaError(
        code=error.code,
        message=error.message[:MAX_ERROR_MESSAGE]
        + (" [message truncated]" if len(error.message) > MAX_ERROR_MESSAGE else "")
        + " The complete diagnostic was too large to send; export_evidence_bundle writes it out.",
        details=details,
    )
    return bounded, evidence


def fits(canonical: bytes, meta: dict[str, Any] | None, budget: ResponseBudget) -> bool:
    return text_wire_bytes(canonical) + (len(canonicalize(meta)) if meta else 0) <= budget.payload_limit
