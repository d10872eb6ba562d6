"""The one interpreter: drives a program, performing each effect it yields.

Cancellation is checked between steps (anyio checkpoints), progress passes
through the pure rate law in `rea.progress`, and any exception a handler
raises becomes a canonical error instead of escaping to the transport.
Cancellation itself is re-raised: the transport decides what it means.
"""

from __future__ import annotations

import time
import uuid
from typing import Any, Awaitable, Callable, Mapping

import anyio
import anyio.lowlevel
from returns.result import Failure, Result, Success

from effects import fs
from rea.errors import ReaError
from rea.progress import ProgressState, observe
from effects.environment import resolve_command_path
from rea.program import (
    Context, IdentifyTarget, NewRunId, Outcome, PublishAtomically, ReadJsonFile, ReportProgress, ResolveCommandPath,
)
from rea.session import Session

Sink = Callable[[int, str], Awaitable[None]]
TERMINAL_SETTLE_S = 0.01


class Progress:
    """Numbers and rate-limits status observations for one request; silent without a sink."""

    def __init__(self, sink: Sink | None, clock: Callable[[], float] = time.monotonic) -> None:
        self._sink = sink
        self._clock = clock
        self._state = ProgressState()
        self._phase = "starting"

    async def report(self, phase: str, message: str, *, terminal: bool = False) -> None:
        self._phase = phase
        if self._sink is None:
            return
        self._state, number = observe(self._state, self._clock(), terminal=terminal)
        if number is not None:
            await self._sink(number, f"{phase}: {message}")

    async def finish(self, message: str) -> None:
        await self.report("finished", message, terminal=True)
        if self._sink is not None:
            # The pinned TypeScript client (2.3.1) dispatches notifications asynchronously
            # and responses synchronously: a notification immediately followed by its
            # response is reported as "unknown token". A short pause lets it land first.
            await anyio.sleep(TERMINAL_SETTLE_S)

    @property
    def phase(self) -> str:
        return self._phase


def _unexpected(effect: Any, exc: BaseException) -> ReaError:
    return ReaError(
        code="execution_failure",
        message=f"{type(effect).__name__} failed unexpectedly: {type(exc).__name__}: {exc}",
        details={"effect": type(effect).__name__, "exception": type(exc).__name__},
    )


async def _perform(effect: Any, progress: Progress) -> Result[Any, ReaError] | None:
    if isinstance(effect, ReportProgress):
        await progress.report(effect.phase, effect.message)
        return None
    if isinstance(effect, IdentifyTarget):
        return await fs.identify_target(effect.path, progress.report)
    if isinstance(effect, ReadJsonFile):
        return fs.read_json_file(effect.path, effect.max_bytes)
    if isinstance(effect, PublishAtomically):
        return await fs.publish_atomically(effect.path, effect.chunks(), effect.overwrite, progress.report, effect.phase)
    if isinstance(effect, NewRunId):
        return Success(str(uuid.uuid4()))
    if isinstance(effect, ResolveCommandPath):
        return Success(resolve_command_path(effect.path))
    raise TypeError(f"no handler for effect {type(effect).__name__}")


async def run(program_fn: Callable[..., Any], session: Session, args: Mapping[str, Any], ctx: Context,
              progress: Progress) -> Outcome:
    """Drive one program to its Outcome. Raises only anyio cancellation."""
    cancelled = anyio.get_cancelled_exc_class()
    try:
        produced = program_fn(session, args, ctx)
        if isinstance(produced, Outcome):
            return produced
        reply: Any = None
        while True:
            await anyio.lowlevel.checkpoint()
            try:
                effect = produced.send(reply)
            except StopIteration as stop:
                return stop.value
            try:
                reply = await _perform(effect, progress)
            except cancelled:
                produced.close()
                raise
            except Exception as exc:  # a handler bug must not crash the transport
                reply = Failure(_unexpected(effect, exc))
    except cancelled:
        raise
    except Exception as exc:
        return Outcome(session=session, reply=Failure(ReaError(
            code="execution_failure",
            message=f"REA failed while {progress.phase}: {type(exc).__name__}: {exc}. The session is unchanged.",
            details={"phase": progress.phase, "exception": type(exc).__name__},
        )))
