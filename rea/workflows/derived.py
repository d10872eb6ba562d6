"""Derived workflows (comparisons, views) yield before they compute and before they publish.

Their work is pure and fast, but a plain function would never reach a cancellation
checkpoint: a cancel that arrived during the call could then be answered with new
Evidence. With a yield on each side of the computation, a cancelled call returns
cancelled and the session keeps nothing from it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Generator, Mapping
from typing import Any

from returns.result import Success

from rea.program import Context, Outcome, ReportProgress
from rea.session import Session

Plain = Callable[[Session, Mapping[str, Any], Context], Any]


def checkpointed(
    name: str, program: Plain
) -> Callable[[Session, Mapping[str, Any], Context], Generator[Any, Any, Outcome]]:
    """`program` (a plain function, or a generator) between two checkpoints: computing, then publishing."""

    @functools.wraps(program)
    def steps(session: Session, args: Mapping[str, Any], ctx: Context) -> Generator[Any, Any, Outcome]:
        yield ReportProgress(phase="computing", message=name)
        produced = program(session, args, ctx)
        outcome: Outcome = produced if isinstance(produced, Outcome) else (yield from produced)
        match outcome.reply:
            case Success():
                yield ReportProgress(phase="publishing", message=f"{name}: retaining the result")
        return outcome

    return steps
