"""A second core for the JavaScript family: tree-sitter holds the GIL, so parsing in parallel needs a
process. This one is owned like the angr worker: started with `python -m` (never a fork of a threaded
server, never a re-import of the caller's main module), fed pickled requests on stdin, answering on
stdout, killed when its caller is cancelled, and gone when its stdin closes.
"""

from __future__ import annotations

import atexit
import pickle
import subprocess
import sys
from typing import Any


def main() -> int:
    from effects.javascript.runtime import _many
    from rea.collector import one_shot_process

    requests, replies = sys.stdin.buffer, sys.stdout.buffer
    with one_shot_process():  # one analysis' batches, then killed: the facts it builds are frozen, not walked
        while True:
            try:
                request = pickle.load(requests)
            except EOFError:
                return 0
            pickle.dump(_many(*request), replies, protocol=pickle.HIGHEST_PROTOCOL)
            replies.flush()


class Helper:
    """The parent's handle: one request at a time, sent with `submit` before the parent starts its own half
    (tree-sitter holds the GIL, so a thread could not send it during a parse) and collected with `result`.
    Any failure or cancel kills the process (a reply that arrives late would be read as the next request's);
    the next request starts a fresh one."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        atexit.register(self.kill)

    def submit(self, *request: Any) -> None:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "effects.javascript.parse_worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        assert self.proc.stdin is not None
        try:
            pickle.dump(request, self.proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self.proc.stdin.flush()
        except BaseException:
            self.kill()
            raise

    def result(self) -> list[dict[str, Any]]:
        proc = self.proc
        if proc is None or proc.stdout is None:
            raise EOFError("the parse worker was stopped")
        try:
            facts: list[dict[str, Any]] = pickle.load(proc.stdout)  # what the worker process pickled
            return facts
        except BaseException:
            self.kill()
            raise

    def kill(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
