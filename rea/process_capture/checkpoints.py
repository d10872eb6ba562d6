"""Named filesystem checkpoints of capture_process_scenario, pure: which declared checkpoints are due at a
moment of the run, and each checkpoint's effects against the one before it.

A checkpoint is taken once, the first time its trigger holds: `time` once `at_ms` has passed while the
root runs, `terminal_literal` once the decoded terminal text holds `occurrence` non-overlapping copies of
`value` (looked at while the root runs and once more at its exit), `root_exit` when the root has exited
(before settlement), `settled` after settlement (the after_settlement snapshot, under its name). One that
never held is named in a residual unknown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request
from rea.process_capture.reactive_records import (
    Checkpoint,
    LiteralTrigger,
    RootExitTrigger,
    SettledTrigger,
    TimeTrigger,
)

RESERVED = ("before", "after_settlement")
Phase = Literal["running", "exited", "settled"]


def check(checkpoints: Sequence[Checkpoint]) -> Result[None, ReaError]:
    """Names unique and apart from the two checkpoints every capture has."""
    seen: set[str] = set()
    for i, c in enumerate(checkpoints):
        if c.name in RESERVED or c.name in seen:
            why = "is one of the capture's own checkpoints" if c.name in RESERVED else "is declared twice"
            return Failure(invalid_request(f"checkpoints[{i}].name: {c.name!r} {why}", field=f"checkpoints[{i}].name",
                                           accepted="unique names other than before and after_settlement"))  # fmt: skip
        seen.add(c.name)
    return Success(None)


def _holds(c: Checkpoint, text: str, now_ms: int, phase: Phase) -> bool:
    trigger = c.trigger
    if isinstance(trigger, TimeTrigger):
        return phase == "running" and now_ms >= trigger.at_ms
    if isinstance(trigger, LiteralTrigger):
        return phase != "settled" and text.count(trigger.value) >= trigger.occurrence
    if isinstance(trigger, RootExitTrigger):
        return phase == "exited"
    return isinstance(trigger, SettledTrigger) and phase == "settled"


def due(
    checkpoints: Sequence[Checkpoint], taken: frozenset[str], text: str, now_ms: int, phase: Phase
) -> tuple[str, ...]:
    """The names of the checkpoints not yet taken whose trigger holds now, in declared order."""
    return tuple(c.name for c in checkpoints if c.name not in taken and _holds(c, text, now_ms, phase))
