"""One tool call, the same for MCP and the CLI: validate, run, swap the session."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import attrs
from returns.result import Failure, Result, Success

from effects.chain import then
from effects.progress import Progress, Settle, Sink
from rea.catalog import BY_NAME, CATALOG
from rea.errors import ReaError, invalid_request
from rea.program import Context
from rea.session import Session, record
from rea.validation import validate_arguments
from rea.wire.convert import with_defaults


@attrs.define
class Connection:
    """The mutable cell around one immutable Session, plus what the transport knows."""

    ctx: Context
    session: Session = attrs.field(factory=Session)
    lock: anyio.Lock = attrs.field(factory=anyio.Lock)
    _native: Any = attrs.field(default=None, alias="native")
    cancelled_reply: Any = None  # the cancelled error a program returned with its partial observation
    # the connection's task group for work started ahead of a question (the server's; None for the CLI)
    background: Any = None

    @property
    def native(self) -> Any:
        """The connection's engines, created on first use (the server answers tools/list without them)."""
        if self._native is None:
            from effects.native.cache import cache_root
            from effects.native.runtime import NativeRuntime

            self._native = NativeRuntime(
                cache_root=Path(self.ctx.cache_dir or cache_root()),
                startup_timeout_ms=self.ctx.angr_startup_timeout_ms,
                memory_limit_mib=self.ctx.native_memory_limit_mib,
            )
        return self._native

    @property
    def native_started(self) -> bool:
        return self._native is not None

    def retain(self, evidence: Any) -> None:
        self.session = record(self.session, (evidence,))


def unknown_tool(name: str) -> ReaError:
    return invalid_request(
        f"There is no tool named {name!r}.",
        field="name",
        accepted="one of " + ", ".join(c.name for c in CATALOG),
    )


async def call_tool(
    conn: Connection, name: str, arguments: Any, sink: Sink | None, settle: Settle | None = None
) -> Result[Any, ReaError]:
    """Validated, interpreted, atomically committed. Raises only cancellation.
    `settle` runs after the terminal progress notification, before the reply is sent."""
    contract = BY_NAME.get(name)
    if contract is None:
        return Failure(unknown_tool(name))
    checked = validate_arguments(name, contract.input_schema, arguments)
    args_type = contract.args_type
    if args_type is not None:  # every default filled from the tool's one argument record
        checked = checked.bind(lambda args: with_defaults(args, args_type))
    return await then(checked, lambda args: _in_context(conn, name, contract, args, sink, settle))


async def _in_context(
    conn: Connection, name: str, contract: Any, args: dict[str, Any], sink: Sink | None, settle: Settle | None
) -> Result[Any, ReaError]:
    """The call with the connection's native engines in its Progress (the handlers that need them read them there)."""
    return await _call(conn, name, contract, args, Progress(sink, settle=settle, native=conn.native))


async def _call(
    conn: Connection, name: str, contract: Any, args: dict[str, Any], progress: Progress
) -> Result[Any, ReaError]:
    from effects.interpreter import run
    from rea.workflows.table import PROGRAMS  # a family's programs load on its first call, not at server startup

    if "mutatesSession" in contract.effects:  # serialized so no transition is lost; readers use a snapshot
        async with conn.lock:
            try:
                outcome = await run(PROGRAMS[name], conn.session, args, conn.ctx, progress)
            except anyio.get_cancelled_exc_class():
                kept = progress.cancelled_outcome
                if kept is not None:  # partial Evidence the program completed stays retained
                    conn.session = kept.session
                    conn.cancelled_reply = kept.reply
                raise
            conn.session = outcome.session
        if name == "open_binary":
            match outcome.reply:
                case Success():
                    _index_ahead(conn)
    else:
        outcome = await run(PROGRAMS[name], conn.session, args, conn.ctx, progress)
    ended = outcome.reply.map(lambda _: "completed").value_or("failed")
    await progress.finish(f"{name} {ended}")
    return outcome.reply


def _index_ahead(conn: Connection) -> None:
    """After open_binary bound an executable, its fast index starts building in the background
    (effects.native.runtime.index_ahead) on a server connection: the first native question reads it."""
    target, binding = conn.session.target, conn.session.provider_binding
    if conn.background is None or target is None or binding is None or target.target_kind != "executable":
        return
    from effects.native.runtime import index_ahead
    from rea.native.programs.common import NATIVE_MAX_BYTES

    if target.kind == "file" and target.size <= NATIVE_MAX_BYTES:
        index_ahead(conn.native, conn.background, binding, target.path, target.sha256)
