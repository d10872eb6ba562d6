"""The one interpreter: drives a program, performing each effect it yields.

Cancellation is checked between steps (anyio checkpoints), progress passes
through the pure rate law in `rea.progress`, and any exception a handler
raises becomes a canonical error instead of escaping to the transport.
Cancellation itself is re-raised: the transport decides what it means.
"""

from __future__ import annotations

import importlib
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
import anyio.lowlevel
from returns.result import Failure, Result, Success

from effects import fs
from effects.environment import resolve_command_path
from effects.native import runtime as native_runtime
from effects.progress import Progress
from rea.errors import ReaError
from rea.families import FAMILIES
from rea.program import (
    Context,
    IdentifyTarget,
    NewRunId,
    Outcome,
    ProgramCancelled,
    PublishAtomically,
    ReadJsonFile,
    ReportProgress,
    ResolveCommandPath,
    StampTarget,
    crashed,
)
from rea.session import Session


def _unexpected(effect: Any, exc: BaseException) -> ReaError:
    return ReaError(
        code="execution_failure",
        message=f"{type(effect).__name__} failed unexpectedly: {type(exc).__name__}: {exc}",
        details={"effect": type(effect).__name__, "exception": type(exc).__name__},
    )


async def _report(effect: ReportProgress, progress: Progress) -> None:
    await progress.report(effect.phase, effect.message)


async def _identify(effect: IdentifyTarget, progress: Progress) -> Result[Any, ReaError]:
    return await fs.identify_target(effect.path, progress.report)


async def _stamp(effect: StampTarget, progress: Progress) -> Result[Any, ReaError]:
    return Success(fs.stamp_target(effect.path))


async def _read_json(effect: ReadJsonFile, progress: Progress) -> Result[Any, ReaError]:
    return fs.read_json_file(effect.path, effect.max_bytes)


async def _publish(effect: PublishAtomically, progress: Progress) -> Result[Any, ReaError]:
    return await fs.publish_atomically(effect.path, effect.chunks(), effect.overwrite, progress.report, effect.phase)


async def _run_id(effect: NewRunId, progress: Progress) -> Result[Any, ReaError]:
    return Success(str(uuid.uuid4()))


async def _resolve(effect: ResolveCommandPath, progress: Progress) -> Result[Any, ReaError]:
    return Success(resolve_command_path(effect.path))


Handler = Callable[[Any, Progress], Awaitable[Result[Any, ReaError] | None]]


def _table(handlers: Mapping[type, Any]) -> dict[type, Handler]:
    """A family's handler table as the interpreter's: effects/native/runtime.py leaves its table unannotated,
    so mypy joins its handlers' distinct signatures to `function` (each one is a Handler)."""
    return dict(handlers)


# One handler per effect type; a family adds its own map here.
HANDLERS: dict[type, Handler] = {
    **_table(native_runtime.HANDLERS),
    ReportProgress: _report,
    IdentifyTarget: _identify,
    StampTarget: _stamp,
    ReadJsonFile: _read_json,
    PublishAtomically: _publish,
    NewRunId: _run_id,
    ResolveCommandPath: _resolve,
}
# Families whose handlers load on their first effect: an MCP server that never reads an archive or a
# JavaScript tree does not pay their imports (tree-sitter, zstandard, ...) at startup. Each family names
# its handler modules and its effect types (rea.families); the native runtime's handlers above are eager.
LAZY_FAMILIES: tuple[str, ...] = tuple(dict.fromkeys(module for f in FAMILIES for module in f.handlers))
# effect type -> the handler modules of the family that declares it
_MODULES_OF: dict[type, tuple[str, ...]] = {kind: f.handlers for f in FAMILIES for kind in f.effects}


_LOADED: set[str] = set()


def _load(module: str) -> None:
    HANDLERS.update(importlib.import_module(module).HANDLERS)
    _LOADED.add(module)


def load_every_family() -> None:
    """Import every lazy family's handlers now (a batch's warm parent does, so its forks never pay it)."""
    for module in LAZY_FAMILIES:
        _load(module)


def _handler_for(kind: type) -> Handler | None:
    """Load the handler modules of the family that declares `kind`, in order, until one handles it: a
    native call never pays lief or numpy, nor an archive call the JavaScript readers' tree-sitter."""
    for module in _MODULES_OF.get(kind, ()):
        if kind in HANDLERS:
            break
        if module not in _LOADED:
            _load(module)
    return HANDLERS.get(kind)


async def _perform(effect: Any, progress: Progress) -> Result[Any, ReaError] | None:
    handler = HANDLERS.get(type(effect)) or _handler_for(type(effect))
    if handler is None:
        raise TypeError(f"no handler for effect {type(effect).__name__}")
    return await handler(effect, progress)


def _settle(produced: Any, phase: str, partial: Any = None) -> Outcome | None:
    """Tell a cancelled program (synchronously, no effects run) and keep the Outcome it returns, if any;
    `partial` is what the cancelled effect observed before it stopped (see ProgramCancelled)."""
    try:
        produced.throw(ProgramCancelled(phase, partial))
    except StopIteration as stop:
        return stop.value if isinstance(stop.value, Outcome) else None
    except Exception:  # the program did not handle it (the usual case): nothing to keep
        return None
    produced.close()  # it yielded again instead of returning: stop it, keep nothing
    return None


async def run(
    program_fn: Callable[..., Any], session: Session, args: Mapping[str, Any], ctx: Context, progress: Progress
) -> Outcome:
    """Drive one program to its Outcome. Raises only anyio cancellation."""
    cancelled = anyio.get_cancelled_exc_class()
    try:
        produced = program_fn(session, args, ctx)
        if isinstance(produced, Outcome):
            return produced
        reply: Any = None
        while True:
            try:  # the program waits at its last yield: a cancel here is told to it, like one during an effect
                await anyio.lowlevel.checkpoint()
            except cancelled:
                progress.cancelled_outcome = _settle(produced, progress.phase)
                raise
            try:
                effect = produced.send(reply)
            except StopIteration as stop:
                ended: Outcome = stop.value
                return ended
            progress.effect_partial = None
            try:
                reply = await _perform(effect, progress)
            except cancelled:
                progress.cancelled_outcome = _settle(produced, progress.phase, progress.effect_partial)
                raise
            except Exception as exc:  # a handler bug must not crash the transport
                reply = Failure(_unexpected(effect, exc))
    except cancelled:
        raise
    except Exception as exc:
        return Outcome(session=session, reply=Failure(crashed(progress.phase, exc)))
