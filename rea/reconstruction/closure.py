"""Closure statuses, in one place: how reasons and claim verdicts combine into the status of the whole.

The order is the reference's: a failure reason makes the whole `failed`; otherwise an unresolved
reason makes it `unknown`; otherwise missing coverage makes it `partial`; `ready` (complete
closure) only with no reason at all. Adding a reason can only keep or worsen the status, so
more Evidence of a problem never reads as more closure (property_tests/test_reconstruction_laws.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

ClosureStatus = Literal["ready", "partial", "unknown", "failed"]

FAILED = frozenset({"verifier-failed", "active-contradiction", "authority-routing-detected",
                    "owner-path-missing", "owner-undistributed", "package-proof-failed"})  # fmt: skip
UNRESOLVED = frozenset({"verifier-result-stale", "verifier-result-incompatible", "verifier-unknown",
                        "active-unknown", "owner-path-unknown", "owner-distribution-unknown",
                        "authority-routing-unknown", "package-proof-unknown"})  # fmt: skip
# worst first: the status of a set of reasons is the worst class present
RANK: dict[ClosureStatus, int] = {"ready": 0, "partial": 1, "unknown": 2, "failed": 3}


def reason_class(code: str) -> ClosureStatus:
    return "failed" if code in FAILED else "unknown" if code in UNRESOLVED else "partial"


def coverage_status(codes: Iterable[str]) -> ClosureStatus:
    return max((reason_class(c) for c in codes), key=RANK.__getitem__, default="ready")


def probe_operation(code: str) -> str:
    """The kind of step that would close a reason."""
    if code.startswith(("owner-", "authority-routing")):
        return "reconcile_reconstruction_owner"
    if code.startswith("verifier-"):
        return "run_reconstruction_verifier"
    if code.startswith("package-proof"):
        return "verify_reconstruction_package"
    return {"active-contradiction": "resolve_contradiction", "active-unknown": "update_unknown"}.get(
        code, "update_reconstruction_inventory"
    )
