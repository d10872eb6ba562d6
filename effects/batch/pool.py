"""The local backend: at most `jobs` item processes at once, each started by `run_item` from a
pool thread (a thread only waits on its process, so the GIL is no bottleneck)."""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any
from collections.abc import Callable, Sequence

from effects.batch.task import STOPPING, run_item, stop_all_items

Done = Callable[[dict[str, Any]], None]


def run_local(requests: Sequence[dict[str, Any]], jobs: int, done: Done) -> dict[str, Any]:
    """Run every request, calling `done` with each answer as it arrives (in the calling thread).
    On KeyboardInterrupt every item process is stopped and verified gone before it propagates."""
    STOPPING.clear()  # a previous batch in this process may have been stopped
    pool = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="rea-batch")
    pending: set[Future[dict[str, Any]]] = set()
    try:
        pending = {pool.submit(run_item, r) for r in requests}
        while pending:
            finished, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for future in finished:
                done(future.result())
    except BaseException:
        for future in pending:
            future.cancel()
        survivors = stop_all_items()
        pool.shutdown(wait=True, cancel_futures=True)
        if survivors:  # pragma: no cover - SIGKILL is not refused
            raise RuntimeError(f"item processes survived SIGKILL: {survivors}") from None
        raise
    pool.shutdown(wait=True)
    return {"name": "local", "jobs": max(1, jobs)}
