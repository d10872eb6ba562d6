"""Canonical error records: what every failure looks like on the wire.

A failure is a value (`ReaError`), never an exception across a boundary. The
code decides category and retryability, so two producers cannot disagree about
what the same code means.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

# code -> category (the reference's closed category vocabulary)
CATEGORY_BY_CODE: Mapping[str, str] = {
    "invalid_request": "invalid_input",
    "unreadable_output": "execution_failure",
    "capability_unavailable": "unavailable",
    "provider_unavailable": "unavailable",
    "provider_timeout": "timeout",
    "cancelled": "cancelled",
    "artifact_integrity_mismatch": "integrity_mismatch",
    "artifact_operation_failed": "execution_failure",
    "evidence_integrity_mismatch": "integrity_mismatch",
    "truncated": "truncated",
    "permission_required": "permission_required",
    "process_capture_failed": "execution_failure",
    "cleanup_incomplete": "execution_failure",
    "revision_conflict": "execution_failure",
    "outside_approved_root": "permission_required",
    "configuration_invalid": "invalid_input",
    "target_unavailable": "unavailable",
    "execution_failure": "execution_failure",
    "plan_stale": "integrity_mismatch",
    # added by our contract: the reply would not fit the transport budget
    "resource_constraint": "truncated",
}

RETRYABLE_CODES = frozenset(
    {"invalid_request", "provider_timeout", "cancelled", "revision_conflict", "provider_unavailable"}
)

DEFAULT_ACTION: Mapping[str, str] = {
    "invalid_request": "Correct the named argument and call again.",
    "configuration_invalid": "Fix the named setting (see `rea doctor`), then restart REA.",
    "cancelled": "Start the operation again when ready.",
    "provider_timeout": "Retry with a smaller request or a longer deadline; run `rea doctor` if it persists.",
    "provider_unavailable": "Run `rea doctor` to see how to make the provider available, then retry.",
    "capability_unavailable": "Choose an operation listed as available in binary_session.tool_availability.",
    "target_unavailable": "Check the path exists and is readable, then call open_binary again.",
    "revision_conflict": "Read the current state (list_unknowns), then retry with its revision.",
    "evidence_integrity_mismatch": "Recreate the Evidence with its producer or re-export the bundle; do not edit records by hand.",
    "artifact_integrity_mismatch": 'Inspect the named member; rerun with integrity_policy "record-and-continue" to continue past it.',
    "truncated": "Narrow the request or raise the named limit.",
    "resource_constraint": "Read the retained Evidence through inspect_analysis_view pages or export_evidence_bundle.",
    "cleanup_incomplete": "Stop the listed owned resources, then call close_binary again.",
}


@attrs.frozen(kw_only=True)
class ReaError:
    """One canonical failure; `to_json()` is the `{"error": ...}` wire body."""

    code: str = attrs.field(validator=attrs.validators.in_(CATEGORY_BY_CODE))
    message: str
    details: Mapping[str, Any] | None = None
    action: str | None = None
    restart_required: bool = False

    @property
    def category(self) -> str:
        return CATEGORY_BY_CODE[self.code]

    @property
    def retryable(self) -> bool:
        return self.code in RETRYABLE_CODES

    def record(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "code": self.code,
            "category": self.category,
            "message": self.message,
            "retryable": self.retryable,
            # strict {action}, as the reference's clients parse it; a restart need travels in details
            "remediation": {
                "action": self.action or DEFAULT_ACTION.get(self.code, "Run `rea doctor`, then try again.")
            },
        }
        details = dict(self.details) if self.details is not None else {}
        if self.restart_required:
            details["restart_required"] = True
        if details or self.details is not None:
            body["details"] = details
        return body

    def to_json(self) -> dict[str, Any]:
        return {"error": self.record()}

    def with_details(self, **extra: Any) -> ReaError:
        return attrs.evolve(self, details={**(self.details or {}), **extra})


def configuration_invalid(variable: str, value: str, accepted: str) -> ReaError:
    """A startup setting REA cannot accept, naming what it would."""
    return ReaError(
        code="configuration_invalid",
        message=f"{variable}={value!r} is not accepted: {variable} must be {accepted}.",
        details={"variable": variable, "value": value, "accepted": accepted},
        action=f"Unset {variable} or set it to {accepted}, then restart REA.",
        restart_required=True,
    )


def invalid_request(message: str, *, field: str | None = None, accepted: str | None = None, **details: Any) -> ReaError:
    """A caller mistake, naming the field and what would be accepted."""
    extra: dict[str, Any] = dict(details)
    if field is not None:
        extra["field"] = field
    if accepted is not None:
        extra["accepted"] = accepted
    return ReaError(code="invalid_request", message=message, details=extra or None)


def missing_evidence(evidence_id: str) -> ReaError:
    """The reference's EvidenceReferenceError: a retained reference that resolves to nothing."""
    return ReaError(
        code="evidence_integrity_mismatch",
        message=(
            f"Evidence {evidence_id} is not retained by this connection. It was never recorded here, "
            "was cleared by close_binary, or belongs to another connection. Supply the complete inline "
            "Evidence, rerun its producer, or import an exported bundle first."
        ),
        details={"evidence_id": evidence_id, "reason": "missing", "expected": "retained Evidence", "actual": None},
        action="Pass the complete Evidence inline or import the bundle that holds it, then retry.",
    )


def processes_left(what: str, remaining: list[str], then: str) -> ReaError:
    """cleanup_incomplete: an owned process group (`what`) did not exit; `remaining` names what still runs."""
    return ReaError(
        code="cleanup_incomplete",
        message=f"The {what} group did not exit: {', '.join(remaining)} still run.",
        details={"owned_resources": ["process"], "remaining": remaining},
        action=f"Stop the listed processes (kill -9), then {then}.",
    )


def no_target(operation: str) -> ReaError:
    """The reference's NoBinaryOpenError: a target tool called before open_binary."""
    return ReaError(
        code="target_unavailable",
        message=f"{operation} needs an open target, and none is open.",
        details={"reason": "target_required", "operation": operation},
        action="Call open_binary with the absolute local path of an executable, library or archive.",
    )


def cancelled(phase: str, **details: Any) -> ReaError:
    return ReaError(code="cancelled", message=f"Cancelled during {phase}.", details={"phase": phase, **details})
