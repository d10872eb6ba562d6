"""The Ray backend: the same `run_item` as a Ray task, on a cluster at an address or on a local
Ray started for the batch (`auto`). Inputs are read where they lie: a task receives the item's
path (a shared filesystem path on a real cluster) and answers its Evidence as JSON; with
`--ship-max-mb` the items within that size are sent as Ray objects instead (effects.batch.shipping).

A worker that dies mid-item (killed, OOM) is retried `retries` times by Ray; when retries run
out that item fails with a canonical error and the batch goes on.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any
from collections.abc import Callable, Sequence

from returns.result import Failure, Result, Success

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


def _run(
    ray: Any,
    requests: Sequence[dict[str, Any]],
    address: str,
    jobs: int,
    retries: int,
    done: Done,
    shipped: frozenset[str],
) -> Result[dict[str, Any], ReaError]:
    joined = _connect(ray, address, jobs)
    if not isinstance(joined, Success):
        return joined
    task = ray.remote(num_cpus=1, max_retries=retries, retry_exceptions=False)(run_item_anywhere)
    queue = list(requests)
    inflight: dict[Any, dict[str, Any]] = {}
    try:
        while queue or inflight:
            while queue and len(inflight) < max(1, jobs):
                request = queue.pop(0)
                data = ray.put(shipped_bytes(request)) if request["sha256"] in shipped else None
                inflight[task.remote(request, data)] = request
            ready, _ = ray.wait(list(inflight), num_returns=1, timeout=0.5)
            for ref in ready:
                request = inflight.pop(ref)
                try:
                    done(ray.get(ref))
                except (
                    ray.exceptions.WorkerCrashedError,
                    ray.exceptions.RayTaskError,
                    ray.exceptions.TaskCancelledError,
                ):
                    done(_lost(request))
    except BaseException:
        for ref in inflight:  # force: the worker process is killed, its item process dies with it
            ray.cancel(ref, force=True)
        raise
    finally:
        ray.shutdown()
    return Success({**joined.unwrap(), "retries": retries, "shipped": len(shipped)})
