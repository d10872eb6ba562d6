"""The artifact_integrity_mismatch error, in the reference's strict detail shape.

REA 6.x clients parse its details strictly as {logical_path, declared_sha256,
calculated_sha256, unpacked}: any other key breaks them, so everything else an
agent needs (block indices, the container, the policy to rerun with) goes into
the message and the remediation, never into details. Every family raising the
error builds it here.
"""

from __future__ import annotations

from rea.errors import ReaError

RERUN = 'Rerun with integrity_policy "record-and-continue" to record the contradiction and continue.'


def integrity_mismatch(
    logical_path: str,
    declared_sha256: str | None,
    calculated_sha256: str | None,
    unpacked: bool,
    message: str,
    action: str | None = None,
) -> ReaError:
    return ReaError(
        code="artifact_integrity_mismatch",
        message=message,
        details={
            "logical_path": logical_path,
            "declared_sha256": declared_sha256,
            "calculated_sha256": calculated_sha256,
            "unpacked": unpacked,
        },
        action=action,
    )
