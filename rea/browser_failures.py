"""Failures at the DevTools boundary (browser, Electron, Node inspector), as one table.

The reference names a stable reason for every way a CDP observation fails
(BrowserObservationFailureReason); each reason maps to one canonical error code and one
remediation here, so every tool of the browser, Electron and JavaScript-runtime families
fails the same way for the same cause. `details.reason` carries the reference's reason.
"""

from __future__ import annotations

from typing import Any, Literal

from rea.errors import ReaError

Reason = Literal[
    "endpoint_unreachable",
    "invalid_endpoint_response",
    "target_not_found",
    "target_not_allowed",
    "target_changed",
    "protocol_error",
    "disconnected",
    "payload_limit",
    "window_not_found",
    "window_metadata_missing",
    "process_ownership_unavailable",
    "cleanup_failed",
    "cancelled",
    "timeout",
    "secret_unavailable",
]

# reason -> (canonical code, what the caller does next)
FAILURES: dict[str, tuple[str, str]] = {
    "endpoint_unreachable": (
        "provider_unavailable",
        "Start the browser or runtime with a loopback debugging port (chromium --remote-debugging-port=9222, "
        "node --inspect=127.0.0.1:9229) and pass that endpoint.",
    ),
    "invalid_endpoint_response": (
        "provider_unavailable",
        "Pass the DevTools HTTP endpoint of a Chromium, Electron or Node inspector (it serves /json/version).",
    ),
    "target_not_found": ("target_unavailable", "List the targets again and pass a target_id from that list."),
    "target_not_allowed": (
        "permission_required",
        "Add the target's origin to allowed_origins, or pick another target.",
    ),
    "target_changed": ("execution_failure", "The page navigated or closed during observation; observe it again."),
    "protocol_error": ("execution_failure", "The endpoint refused a DevTools command; check its version supports it."),
    "disconnected": ("provider_unavailable", "The endpoint closed the connection; check it is still running."),
    "payload_limit": ("resource_constraint", "Narrow the request or raise the named limit."),
    "window_not_found": ("target_unavailable", "Pass a window that exists in the target."),
    "window_metadata_missing": ("execution_failure", "The target did not describe its window; observe it again."),
    "process_ownership_unavailable": (
        "capability_unavailable",
        "REA could not verify the process it started; run `rea doctor`.",
    ),
    "cleanup_failed": ("cleanup_incomplete", "Stop the listed owned resources, then retry."),
    "cancelled": ("cancelled", "Start the operation again when ready."),
    "timeout": ("provider_timeout", "Retry with a longer observation or deadline; check the endpoint answers."),
    "secret_unavailable": ("invalid_request", "Supply the named secret in the request's secrets."),
}


def browser_failure(operation: str, reason: Reason, message: str, **details: Any) -> ReaError:
    """The canonical error for `reason` during `operation` (a tool name), with the reason in details."""
    code, action = FAILURES[reason]
    return ReaError(
        code=code,
        message=f"{operation}: {message}",
        details={"operation": operation, "reason": reason, **details},
        action=action,
    )
