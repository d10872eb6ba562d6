"""How one item's process ended, as its canonical error: one table, so a crash, a deadline and a
memory stop read the same whichever backend ran the item."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
from returns.result import Failure, Result, Success

from rea.errors import ReaError

EXIT_MEMORY = 3  # the item process's own exit status when Python raised MemoryError outside a handler


@attrs.frozen(kw_only=True)
class Ending:
    """What the task function saw of the item process."""

    returncode: int | None  # None: it was stopped by the deadline
    signal_name: str | None = None
    stderr_tail: str = ""
    worker_lost: bool = False  # the backend lost the worker running the task (a Ray worker died)


def _limit(kind: str, value: int) -> dict[str, Any]:
    return {"resource": kind, "limit": value}


def ending_error(ending: Ending, path: str, deadline_ms: int, memory_mb: int) -> ReaError:
    """The canonical error of an item process that answered nothing."""
    if ending.worker_lost:
        return ReaError(
            code="execution_failure",
            message=f"The worker analysing {path} died and its retries ran out; the rest of the batch went on.",
            details={"path": path, "reason": "worker-lost"},
            action="Run the batch again with --resume to retry the items that failed.",
        )
    if ending.returncode is None:
        return ReaError(
            code="provider_timeout",
            message=f"Analysing {path} passed the per-item deadline of {deadline_ms} ms; its process was stopped.",
            details={"path": path, **_limit("deadline_ms", deadline_ms)},
            action="Raise --item-deadline-ms, or analyse this file on its own.",
        )
    if ending.returncode == EXIT_MEMORY or "MemoryError" in ending.stderr_tail:
        return memory_error(path, memory_mb)
    how = f"was killed by {ending.signal_name}" if ending.signal_name else f"exited with status {ending.returncode}"
    return ReaError(
        code="execution_failure",
        message=f"The process analysing {path} {how} without an answer.",
        details={"path": path, "returncode": ending.returncode, "stderr_tail": ending.stderr_tail[-2000:]},
        action="Analyse this file on its own to see the failure; the rest of the batch went on.",
    )


def memory_error(path: str, memory_mb: int) -> ReaError:
    return ReaError(
        code="resource_constraint",
        message=f"Analysing {path} passed the per-item memory ceiling of {memory_mb} MiB; its process was stopped.",
        details={"path": path, **_limit("memory_mb", memory_mb)},
        action="Raise --item-memory-mb, or analyse this file on its own.",
    )


def reply_error(error: Mapping[str, Any] | None, path: str, memory_mb: int) -> Mapping[str, Any] | None:
    """A tool's canonical error as the item's; a MemoryError a handler caught is the memory ceiling."""
    if error is None:
        return None
    details = error.get("error", {}).get("details") or {}
    if details.get("exception") == "MemoryError":
        return memory_error(path, memory_mb).to_json()
    return error


def same_subject(evidence_subjects: list[str | None], sha256: str, path: str) -> Result[None, ReaError]:
    """Evidence about other bytes than the ones identified is a failure: the file changed between
    identification and analysis."""
    others = sorted({s for s in evidence_subjects if s is not None and s != sha256})
    if not others:
        return Success(None)
    return Failure(
        ReaError(
            code="artifact_integrity_mismatch",
            message=f"{path} changed between identification (sha256 {sha256}) and analysis (sha256 {others[0]}).",
            details={"path": path, "identified_sha256": sha256, "analysed_sha256": others[0]},
            action="Run the batch again once the file stops changing.",
        )
    )
