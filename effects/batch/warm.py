"""A warm parent per pool thread: it imports the analysis code once and forks one process per item.

Starting a fresh interpreter per item cost about a second of imports (the catalog, the effect
handlers) before any analysis. The warm parent pays that once; each item is still its own forked
process with its own memory ceiling, deadline, process group and death signal, so isolation is
what it was. The parent speaks one JSON line per event on stdout: `{"pid"}` when an item starts,
`{"pid", "returncode"}` when it has been reaped. Replies and stderr go to files the pool thread
names, never to the protocol pipe.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import orjson

from effects.batch import child
from effects.batch.limits import confine
from effects.heap import settle_startup_heap
from effects.interpreter import load_every_family
from rea.batch.failures import EXIT_MEMORY


def _address_space() -> int:
    """This process's virtual size in bytes (what RLIMIT_AS counts)."""
    with open("/proc/self/statm", "rb") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _item(request: dict[str, Any], reply_path: str, stderr_path: str) -> int:
    """In the forked item process: confine, detach the protocol pipe, answer. A ceiling below what
    the item inherits (the imported analysis code) is passed before any work: it is reported as the
    memory stop it is, not left to fail at some allocation inside a library."""
    if _address_space() >= request["memory_mb"] * 1024 * 1024:
        return EXIT_MEMORY
    confine(request["memory_mb"])
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)  # nothing the analysis prints may reach the parent's protocol pipe
    err = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(err, 2)
    return child.answer_to(request, reply_path)


def _say(message: dict[str, Any]) -> None:
    sys.stdout.buffer.write(orjson.dumps(message) + b"\n")
    sys.stdout.buffer.flush()


def _serve_one(line: bytes) -> None:
    order = orjson.loads(line)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the forked item, measured by its answers
        code = 1
        try:
            code = _item(order["request"], order["reply_path"], order["stderr_path"])
        finally:
            os._exit(code)
    _say({"pid": pid})
    _, status = os.waitpid(pid, 0)
    _say({"pid": pid, "returncode": os.waitstatus_to_exitcode(status)})


def main() -> int:
    """Serve items until stdin closes (the pool is done) or the pool thread dies (death signal).
    Every family's handlers are imported and the heap frozen first: the forks share them."""
    load_every_family()
    settle_startup_heap()
    for line in sys.stdin.buffer:
        _serve_one(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
