"""The Ray backend: the same `run_item` on `jobs` long-lived Ray actors, on a cluster at an address or on
a local Ray started for the batch (`auto`). Each actor keeps one warm parent (effects.batch.warm, as a
local pool thread does) that has imported REA and every engine once and forks one process per item, so
an item pays no interpreter start on Ray either. Inputs are read where they lie: an actor receives the
item's path (a shared filesystem path on a real cluster) and answers its Evidence as JSON; with
`--ship-max-mb` the items within that size are sent as Ray objects instead (effects.batch.shipping).

An actor that dies mid-item (killed, OOM) takes its warm parent and item with it (death signals); the
item is sent again to a fresh actor `retries` times, then fails with a canonical error and the batch
goes on.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Sequence
from typing import Any

from returns.result import Failure, Result, Success

from effects.batch.pool import WarmParent
from effects.batch.shipping import run_item_anywhere, shipped_bytes
from effects.batch.task import _package_root
from rea.batch.failures import Ending, ending_error
from rea.errors import ReaError

RAY_EXTRA = "pip install 'rea-py[ray]'"
Done = Callable[[dict[str, Any]], None]


def ray_missing() -> ReaError:
    return ReaError(
        code="capability_unavailable",
        message="--ray needs the Ray client library, which is not installed in this Python environment.",
        details={"reason": "provider_missing", "provider": "ray", "remediation": RAY_EXTRA},
        action=f"Install it with {RAY_EXTRA} (or run without --ray on the local process pool).",
    )


def _unreachable(address: str, exc: BaseException) -> ReaError:
    return ReaError(
        code="provider_unavailable",
        message=f"Cannot join the Ray cluster at {address!r}: {type(exc).__name__}: {exc}",
        details={"provider": "ray", "address": address},
        action="Start the cluster (ray start --head) or pass its address (--ray HOST:PORT), or use --ray auto.",
    )


def _connect(ray: Any, address: str, jobs: int) -> Result[dict[str, Any], ReaError]:
    # the task imports effects.batch.task on the worker: point the workers at the code this driver runs
    runtime_env = {"env_vars": {"PYTHONPATH": _package_root()}}
    try:
        if address == "auto":
            ray.init(
                address="local",
                num_cpus=max(1, jobs),
                include_dashboard=False,
                runtime_env=runtime_env,
                log_to_driver=False,
            )
        else:
            ray.init(address=address, runtime_env=runtime_env, log_to_driver=False)
    except Exception as exc:
        return Failure(_unreachable(address, exc))
    return Success({"name": "ray", "address": address, "jobs": max(1, jobs)})


def _lost(request: dict[str, Any]) -> dict[str, Any]:
    error = ending_error(
        Ending(returncode=None, worker_lost=True), request["path"], request["deadline_ms"], request["memory_mb"]
    )
    return {"sha256": request["sha256"], "evidence": [], "error": error.to_json(), "not_run": False}


def run_ray(
    requests: Sequence[dict[str, Any]],
    address: str,
    jobs: int,
    retries: int,
    done: Done,
    shipped: frozenset[str] = frozenset(),
) -> Result[dict[str, Any], ReaError]:
    """Run every request on Ray, at most `jobs` in flight, `done` called with each answer; the items
    whose digest is in `shipped` are sent their bytes as a Ray object instead of reading their path."""
    try:
        import ray
    except ImportError:
        return Failure(ray_missing())
    # Ray prints its cluster's complaints (a dead worker, ...) on stdout: keep stdout for the summary
    with contextlib.redirect_stdout(sys.stderr):
        return _run(ray, requests, address, jobs, retries, done, shipped)


class WarmWorker:
    """A Ray actor: one warm parent, started on the first item and again if it died, stopped on `stop`."""

    def __init__(self) -> None:
        self.parent: WarmParent | None = None

    def run(self, request: dict[str, Any], data: bytes | None) -> dict[str, Any]:
        if self.parent is None or self.parent.proc.poll() is not None:
            self.parent = WarmParent()
        return run_item_anywhere(request, data, runner=self.parent.run)

    def stop(self) -> bool:
        if self.parent is not None:
            self.parent.stop()
            self.parent = None
        return True


def _run(
    ray: Any,
    requests: Sequence[dict[str, Any]],
    address: str,
    jobs: int,
    retries: int,
    done: Done,
    shipped: frozenset[str],
) -> Result[dict[str, Any], ReaError]:
    return _connect(ray, address, jobs).map(
        lambda joined: {**joined, **_pool(ray, requests, jobs, retries, done, shipped)}
    )


def _pool(
    ray: Any, requests: Sequence[dict[str, Any]], jobs: int, retries: int, done: Done, shipped: frozenset[str]
) -> dict[str, Any]:
    """Every request through warm actors on the joined cluster (a lost actor's item retried), then shut down."""
    # one task at a time per actor, on the actor's own thread: the warm parent's death signal is that thread's
    actor = ray.remote(num_cpus=1, max_restarts=0, max_concurrency=1)(WarmWorker)
    idle = [actor.remote() for _ in range(max(1, jobs))]
    queue = [(request, 0) for request in requests]
    inflight: dict[Any, tuple[dict[str, Any], int, Any]] = {}
    try:
        while queue or inflight:
            while queue and idle:
                (request, tries), worker = queue.pop(0), idle.pop()
                data = ray.put(shipped_bytes(request)) if request["sha256"] in shipped else None
                inflight[worker.run.remote(request, data)] = (request, tries, worker)
            ready, _ = ray.wait(list(inflight), num_returns=1, timeout=0.5)
            for ref in ready:
                request, tries, worker = inflight.pop(ref)
                try:
                    done(ray.get(ref))
                    idle.append(worker)
                except (ray.exceptions.RayActorError, ray.exceptions.RayTaskError, ray.exceptions.TaskCancelledError):
                    ray.kill(worker, no_restart=True)
                    idle.append(actor.remote())  # a fresh actor (and warm parent) for what follows
                    if tries < retries:
                        queue.insert(0, (request, tries + 1))
                    else:
                        done(_lost(request))
        ray.get([worker.stop.remote() for worker in idle], timeout=60)
    except BaseException:
        for _, _, worker in inflight.values():  # the actor's process is killed, its warm parent and item with it
            ray.kill(worker, no_restart=True)
        raise
    finally:
        ray.shutdown()
    return {"retries": retries, "shipped": len(shipped), "workers": "warm actors"}
