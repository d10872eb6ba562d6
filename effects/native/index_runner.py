"""Run the fast index program (effects.native.indexer) as an owned process and read its snapshot.

The program runs in its own session, so a cancelled call stops it with everything it started; the group is
verified gone before the answer (or the cancellation) returns. A notice goes to the client every few seconds
while it runs, so a long index on a large binary is never silent.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import orjson
from returns.result import Failure, Result, Success

from effects import process_group
from rea.collector import collector_paused
from rea.errors import ReaError, processes_left

Report = Callable[[str, str], Awaitable[None]]
NOTICE_S = 5.0
PROVIDER = {"id": "rea-fast-index", "name": "REA fast index (capstone sweep)", "version": "1"}


async def build(
    path: str, fat_slice: dict[str, Any] | None, report: Report, lineage: list[dict[str, Any]]
) -> Result[dict[str, Any], ReaError]:
    """The index snapshot of `path` (or of a universal binary's slice), or why there is none. The process is
    observed once while it runs, and its observation appended to `lineage`."""
    argv = [sys.executable, "-m", "effects.native.indexer", path]
    if fat_slice is not None:
        argv += [str(fat_slice["offset"]), str(fat_slice["size"])]
    started = time.monotonic()
    process = await anyio.open_process(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True
    )
    chunks: list[bytes] = []
    lineage.append({"provider": dict(PROVIDER), "observation": process_group.observe(process.pid)})
    try:
        async with anyio.create_task_group() as group:

            async def notices() -> None:
                while True:
                    await anyio.sleep(NOTICE_S)
                    elapsed = time.monotonic() - started
                    await report("fast index", f"{elapsed:.0f}s: sweeping the code with capstone")

            group.start_soon(notices)
            assert process.stdout is not None
            async for chunk in process.stdout:
                chunks.append(chunk)
            group.cancel_scope.cancel()
        await process.wait()
    finally:
        with anyio.CancelScope(shield=True):
            remaining = await process_group.terminate(process)
    if remaining:
        return Failure(processes_left("fast index process", remaining, "call again"))
    return _reply(b"".join(chunks), process.returncode)


def _reply(output: bytes, status: int | None) -> Result[dict[str, Any], ReaError]:
    try:
        with collector_paused():
            reply = orjson.loads(output)
    except orjson.JSONDecodeError:
        reply = None
    if not isinstance(reply, dict):
        return Failure(
            ReaError(
                code="execution_failure",
                message=f"The fast index program stopped without an answer (exit status {status}).",
                details={"reason": "index-failed", "exit_status": status},
            )
        )
    if not reply.get("ok"):
        return Failure(
            ReaError(
                code="capability_unavailable",
                message=f"The fast index cannot read this file: {reply.get('message')}",
                details={"reason": reply.get("reason", "index-failed")},
            )
        )
    return Success(reply["snapshot"])
