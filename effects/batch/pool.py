"""The local backend: at most `jobs` items at once. Each pool thread keeps one warm parent
(effects.batch.warm) that forks the thread's items, so an item pays no interpreter start; the
thread only waits on its item, so the GIL is no bottleneck. Every warm parent is stopped and
verified gone when the batch ends or is interrupted.
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from functools import partial
from pathlib import Path
from typing import Any

import orjson

from effects.batch.limits import confine
from effects.batch.task import (
    STOPPING,
    admit,
    ending_of,
    item_environment,
    release,
    run_item,
    stop_all_items,
    stop_tree,
)
from rea.batch.failures import Ending

Done = Callable[[dict[str, Any]], None]
LOST = Ending(returncode=-9, signal_name="SIGKILL", stderr_tail="the warm parent forking this item died")


class WarmParent:
    """One pool thread's warm parent and the files its items answer through."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="rea-batch-"))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "effects.batch.warm"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=(self.dir / "warm.err").open("wb"),
            env=item_environment(),
            preexec_fn=lambda: confine(None),  # dies with the pool thread that started it
        )
        self.pending = b""
        self.count = 0

    def _line(self, timeout: float | None) -> dict[str, Any] | None:
        """The parent's next event; None on its death or when `timeout` seconds pass first."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        until = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.pending:
            left = None if until is None else max(0.0, until - time.monotonic())
            if not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 4096)
            if not chunk:
                return None
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        message: dict[str, Any] = orjson.loads(line)
        return message

    def run(self, request: dict[str, Any]) -> tuple[Ending, bytes] | None:
        """Fork one item, wait for it within its deadline, collect its reply and stderr."""
        self.count += 1
        reply, stderr = self.dir / f"{self.count}.json", self.dir / f"{self.count}.err"
        assert self.proc.stdin is not None
        order = {"request": request, "reply_path": str(reply), "stderr_path": str(stderr)}
        try:
            self.proc.stdin.write(orjson.dumps(order) + b"\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            return LOST, b""
        started = self._line(None)
        if started is None:
            return LOST, b""
        pid = started["pid"]
        if not admit(pid):
            self._line(None)
            return None
        try:
            ended = self._line(request["deadline_ms"] / 1000)
            if ended is None and self.proc.poll() is None:  # the deadline: stop the item, let the parent reap it
                stop_tree(pid)
                self._line(None)
                ending = Ending(returncode=None)
            elif ended is None:
                ending = LOST
            else:
                ending = ending_of(ended["returncode"], _take(stderr))
        finally:
            release(pid)
        return ending, _take(reply)

    def stop(self) -> None:
        """Close the parent's orders and verify it gone (it may already have died with its thread)."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            stop_tree(self.proc.pid)
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def _take(path: Path) -> bytes:
    """A file's bytes, removed after reading (an item that died before writing it answers b'')."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return b""
    path.unlink()
    return data


class WarmParents:
    """The warm parents of one batch, one per pool thread, started on a thread's first item."""

    def __init__(self) -> None:
        self.local = threading.local()
        self.all: list[WarmParent] = []
        self.lock = threading.Lock()

    def run(self, request: dict[str, Any]) -> tuple[Ending, bytes] | None:
        warm: WarmParent | None = getattr(self.local, "warm", None)
        if warm is None or warm.proc.poll() is not None:
            with self.lock:
                if STOPPING.is_set():
                    return None
                warm = WarmParent()
                self.all.append(warm)
            self.local.warm = warm
        return warm.run(request)

    def stop(self) -> None:
        with self.lock:
            for warm in self.all:
                warm.stop()
            self.all.clear()


def run_local(requests: Sequence[dict[str, Any]], jobs: int, done: Done) -> dict[str, Any]:
    """Run every request, calling `done` with each answer as it arrives (in the calling thread).
    On KeyboardInterrupt every item process and warm parent is stopped and verified gone before
    it propagates."""
    STOPPING.clear()  # a previous batch in this process may have been stopped
    parents = WarmParents()
    pool = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="rea-batch")
    pending: set[Future[dict[str, Any]]] = set()
    try:
        pending = {pool.submit(partial(run_item, runner=parents.run), r) for r in requests}
        while pending:
            finished, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for future in finished:
                done(future.result())
    except BaseException:
        for future in pending:
            future.cancel()
        survivors = stop_all_items()
        pool.shutdown(wait=True, cancel_futures=True)
        parents.stop()
        if survivors:  # pragma: no cover - SIGKILL is not refused
            raise RuntimeError(f"item processes survived SIGKILL: {survivors}") from None
        raise
    pool.shutdown(wait=True)
    parents.stop()
    return {"name": "local", "jobs": max(1, jobs)}
