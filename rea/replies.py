"""What a tool reply looks like on the wire, and whether it fits the response budget.

Admission is decided before a document-sized string exists: a census of the value
bounds the reply from above, and only when that bound does not prove the fit is the
exact size measured from the value (`canonical_measure`, which builds nothing). The
wire document itself is never built here. The text copy is the canonical JSON as a
JSON string: each quote and backslash gains one byte (the canonical form has no
raw control characters). The structured copy is the value as the transport's
serializer prints it: the canonical bytes re-ordered (same length) with every
float and big integer printed its own way (`5` becomes `5.0`), so its length is
the canonical length plus one difference per such number. The frame around both
is measured by the transport (`rea.budget.WireFrame`).
"""

from __future__ import annotations

from typing import Any

import attrs
from returns.result import Failure, Result, Success

from rea.budget import ENVELOPE_RESERVE_BYTES, ResponseBudget, WireFrame
from rea.canonical_json import (
    Measure,
    ScalarCensus,
    canonical_ceiling,
    canonical_measure,
    canonicalize,
    format_number,
    scalar_census,
)
from rea.catalog.contract import ToolContract
from rea.catalog.projection import PROVENANCE
from rea.errors import ReaError
from rea.evidence import Evidence, Provider, create_evidence
from rea.views.records.requests import FIRST_VIEW, view_call

MAX_ERROR_MESSAGE = 4_096
EMPTY_STRUCTURE = 2  # the frame's `{}` (its `""` text keeps the quotes the real text needs)

ERROR_PROVIDER = Provider(id="rea-transport", name="REA transport", version="1")


def meta_for(contract: ToolContract | None) -> dict[str, Any] | None:
    """`_meta` of every result and error of a marked tool (unknown tools stay marked)."""
    return PROVENANCE if contract is None or contract.returns_target_content else None


def text_wire_bytes(canonical: bytes) -> int:
    """The canonical text inside its JSON string, without the two quotes."""
    return len(canonical) + canonical.count(b'"') + canonical.count(b"\\")


def success_bytes(canonical: bytes, value: Any, frame: WireFrame, census: ScalarCensus | None = None) -> int:
    """The exact bytes of the success line: the frame with both copies filled in."""
    census = scalar_census(value) if census is None else census
    measure = Measure(length=len(canonical), quotes=canonical.count(b'"'), backslashes=canonical.count(b"\\"))
    return measured_bytes(measure, census, frame)


def success_floor(census: ScalarCensus, frame: WireFrame) -> int:
    """A lower bound of the success line, known before anything is serialized: each copy holds
    at least every string value with its quotes."""
    return frame.frame_bytes + 2 * census.string_floor - EMPTY_STRUCTURE


def _number_excess(census: ScalarCensus, frame: WireFrame) -> int:
    return sum(len(frame.number_text(n)) - len(format_number(n)) for n in census.reformatted)


def success_ceiling(census: ScalarCensus, frame: WireFrame) -> int:
    """An upper bound of the success line from the census: the text copy at most doubles the
    canonical bytes (every byte a quote or backslash), the structured copy adds the numbers'."""
    canonical = canonical_ceiling(census)
    return frame.frame_bytes + 3 * canonical + max(0, _number_excess(census, frame)) - EMPTY_STRUCTURE


def measured_bytes(measure: Measure, census: ScalarCensus, frame: WireFrame) -> int:
    """The exact bytes of the success line from the value's measure (nothing serialized)."""
    text = measure.length + measure.quotes + measure.backslashes
    structured = measure.length + _number_excess(census, frame)
    return frame.frame_bytes + text + structured - EMPTY_STRUCTURE


def error_bytes(text: bytes, frame: WireFrame) -> int:
    """The exact bytes of the error line: the frame with its text filled in."""
    return frame.frame_bytes + text_wire_bytes(text)


def charged(reply_bytes: int, frame: WireFrame) -> int:
    """What a reply costs against the budget: its payload plus the frame, at least the reserve."""
    return reply_bytes - frame.frame_bytes + max(frame.frame_bytes, ENVELOPE_RESERVE_BYTES)


def admit_success(
    tool: str, payload: Any, budget: ResponseBudget, evidence_id: str | None, frame: WireFrame
) -> Result[bytes, ReaError]:
    """The canonical bytes when the reply fits, else resource_constraint naming the retained record.

    Decided before the canonical text (document-sized) is built: a reply the census proves
    small is built at once; any other is measured exactly from the value first, and refused
    with its exact wire size when it does not fit. The built text is checked once more."""
    census = scalar_census(payload)
    if charged(success_ceiling(census, frame), frame) > budget.max_response_bytes:
        size = measured_bytes(canonical_measure(payload), census, frame)
        if charged(size, frame) > budget.max_response_bytes:
            return Failure(_refusal(tool, budget, evidence_id, frame, size))
    canonical = canonicalize(payload)
    size = success_bytes(canonical, payload, frame, census)
    if charged(size, frame) <= budget.max_response_bytes:
        return Success(canonical)
    return Failure(_refusal(tool, budget, evidence_id, frame, size))


def _refusal(tool: str, budget: ResponseBudget, evidence_id: str | None, frame: WireFrame, size: int) -> ReaError:
    limits: dict[str, Any] = {
        "max_response_bytes": budget.max_response_bytes,
        "envelope_reserve_bytes": ENVELOPE_RESERVE_BYTES,
        "reply_bytes": size,
        "reply_bytes_exact": True,  # measured from the value, before any serialization
        "charged_bytes": charged(size, frame),
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
    needs = f"{size} bytes"
    return ReaError(
        code="resource_constraint",
        message=f"The {tool} reply needs {needs} on the wire, more than the {budget.max_response_bytes}-byte response budget. {advice}",
        details={"resource": "transport", "tool": tool, "reported_limits": limits},
        action=advice,
    )


def error_text(error: ReaError) -> bytes:
    return canonicalize(error.to_json())


@attrs.frozen(kw_only=True)
class BoundedError:
    """The diagnostic sent in place of an error too large to send, and the Evidence retaining the original
    (None when it could not be retained: the diagnostic says why)."""

    error: ReaError
    retained: Evidence | None


def oversized_error(tool: str, error: ReaError, budget: ResponseBudget) -> BoundedError:
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
    match retained:
        case Success(kept):
            evidence = kept
            details["reported_limits"]["evidence_reference"] = {
                "kind": "retained-evidence",
                "evidence_id": kept.evidence_id,
            }
            details["retention"] = "retained"
        case Failure(refused):
            details["retention"] = f"unavailable: {refused.message}"
    bounded = ReaError(
        code=error.code,
        message=error.message[:MAX_ERROR_MESSAGE]
        + (" [message truncated]" if len(error.message) > MAX_ERROR_MESSAGE else "")
        + " The complete diagnostic was too large to send; export_evidence_bundle writes it out.",
        details=details,
    )
    return BoundedError(error=bounded, retained=evidence)


def fits(text: bytes, budget: ResponseBudget, frame: WireFrame) -> bool:
    return charged(error_bytes(text, frame), frame) <= budget.max_response_bytes
