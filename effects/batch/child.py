"""One item's process: run its plan's tool calls on a fresh one-shot connection, answer JSON.

The local pool forks it from a warm parent (effects.batch.warm); Ray starts this module as
`python -m effects.batch.child` with the request on stdin. Either way a crash, a deadline or a
memory ceiling stops this process and never the batch. The tool calls are the catalog programs MCP and the CLI run, through the same `call_tool`.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import orjson
from returns.result import Failure

from effects.calls import Connection, call_tool
from effects.environment import load_context
from effects.native.runtime import release_all
from rea.batch.failures import EXIT_MEMORY
from rea.batch.kinds import bound_arguments
from rea.errors import ReaError
from rea.program import Context
from rea.results import either


async def _run(request: dict[str, Any]) -> dict[str, Any]:
    return await either(load_context("cli"), lambda context: _steps(context, request), _unstarted)


async def _unstarted(error: ReaError) -> dict[str, Any]:
    return {"evidence": [], "error": error.to_json()}


async def _steps(context: Context, request: dict[str, Any]) -> dict[str, Any]:
    """The plan's steps in order on one connection, until one fails (its error is the item's)."""
    conn = Connection(ctx=context)
    error = None
    try:
        for step in request["plan"]["steps"]:
            reply = await call_tool(conn, step["tool"], bound_arguments(step["arguments"], request["path"]), None)
            match reply:
                case Failure(failed):
                    error = failed.to_json()
                    break
    finally:
        await release_all(conn.native)
    return {"evidence": [e.to_json() for e in conn.session.ledger], "error": error}


def answer_to(request: dict[str, Any], reply_path: str | None = None) -> int:
    """Run the plan and write the reply (to reply_path, else stdout); the item process's exit status."""
    try:
        reply = orjson.dumps(anyio.run(_run, request))
    except MemoryError:  # the ceiling was hit outside any handler: the task function names it
        return EXIT_MEMORY
    if reply_path is None:
        sys.stdout.buffer.write(reply)
        sys.stdout.flush()
    else:
        with open(reply_path, "wb") as out:
            out.write(reply)
    return 0


def main() -> int:
    return answer_to(orjson.loads(sys.stdin.buffer.read()))


if __name__ == "__main__":
    sys.exit(main())
