"""Handlers of the Android family: the owned androguard worker, its deadline and its ceiling.

One worker per server process, started on the first query and kept for the next (it
caches the parsed program per APK digest). A request past its deadline, or a worker
that dies on hostile bytes, is stopped with its whole process group and answered with a
canonical error; the next query starts a fresh worker.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import signal
import subprocess
import sys
from typing import Any

import anyio
import orjson
from returns.result import Failure, Result, Success

from effects.android import clients
from effects.owned import own
from effects.progress import Progress
from rea.android.effects import AndroidQuery
from rea.errors import ReaError

ADDRESS_SPACE_MIB = 4096
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_REPLY_BYTES = 1 << 30


def engine_identity() -> dict[str, Any]:
    """androguard's name, version and the SHA-256 of its installed file record."""
    try:
        dist = importlib.metadata.distribution("androguard")
    except importlib.metadata.PackageNotFoundError:
        return {}
    record = dist.read_text("RECORD") or dist.version
    return {
        "name": "androguard",
        "version": dist.version,
        "artifact_sha256": hashlib.sha256(record.encode()).hexdigest(),
        "source_revision": None,
        "worker_count": 1,
        "heap_limit_mib": ADDRESS_SPACE_MIB,
    }


class Worker:
    """The one owned worker process (its own session, so a kill takes its children too)."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[bytes] | None = None
        self.lock = anyio.Lock()
        self.next_id = 0

    def _start(self) -> subprocess.Popen[bytes]:
        if self.process is None or self.process.poll() is not None:
            env = {**os.environ, "REA_ANDROID_WORKER_MAX_BYTES": str(ADDRESS_SPACE_MIB << 20)}
            env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH", "")) if p)
            self.process = subprocess.Popen(
                [sys.executable, "-m", "effects.android.worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=env,
                start_new_session=True,
            )
        return self.process

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()

    def _exchange(self, process: subprocess.Popen[bytes], line: bytes) -> bytes:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(line)
        process.stdin.flush()
        return process.stdout.readline(MAX_REPLY_BYTES)

    async def ask(self, request: dict[str, Any], deadline_ms: int) -> Result[Any, ReaError]:
        async with self.lock:
            process = self._start()
            self.next_id += 1
            line = orjson.dumps({**request, "id": self.next_id}) + b"\n"
            try:
                with anyio.fail_after(deadline_ms / 1000):
                    raw = await anyio.to_thread.run_sync(self._exchange, process, line, abandon_on_cancel=True)
            except TimeoutError:
                self.stop()
                return Failure(_timeout(request, deadline_ms))
            except BaseException:
                self.stop()  # cancelled or broken pipe: the worker may be mid-parse, stop it
                raise
            if not raw:
                code = process.poll()
                self.stop()
                return Failure(_died(request, code))
        reply = orjson.loads(raw)
        if "error" in reply:
            e = reply["error"]
            return Failure(ReaError(code=e["code"], message=e["message"], details=e.get("details") or None))
        return Success(reply["ok"])


WORKER = Worker()
own("android worker", WORKER.stop)


def _timeout(request: dict[str, Any], deadline_ms: int) -> ReaError:
    return ReaError(
        code="provider_timeout",
        message=f"androguard did not finish {request['op']} of {request['path']} within {deadline_ms} ms; it was stopped.",
        details={"operation": request["op"], "deadline_ms": deadline_ms},
        action="Retry with a larger deadline_ms if the APK is large; a hostile file may never finish.",
    )


def _died(request: dict[str, Any], code: int | None) -> ReaError:
    return ReaError(
        code="resource_constraint" if code in (-9, -6, -11, 137) else "execution_failure",
        message=f"the androguard worker stopped (exit {code}) while reading {request['path']}: "
        f"the file exhausted its {ADDRESS_SPACE_MIB} MiB ceiling or crashed its parser.",
        details={"operation": request["op"], "exit_code": code, "resource": "memory"},
        action="Check the file is a well-formed APK; the next call starts a fresh worker.",
    )


async def _query(effect: AndroidQuery, progress: Progress) -> Result[Any, ReaError]:
    engine = engine_identity()
    if not engine:
        return Failure(
            ReaError(
                code="capability_unavailable",
                message="androguard is not installed, so APKs cannot be parsed.",
                details={"provider": "androguard"},
                action="pip install 'androguard>=4.1,<5' and restart REA.",
            )
        )
    await progress.report("reading APK", f"androguard {effect.operation} {effect.path}")
    limits = dict(effect.limits)
    request = {
        "op": effect.operation,
        "path": effect.path,
        "sha256": effect.sha256,
        "params": {**effect.params, "limits": limits},
    }
    facts = await WORKER.ask(request, int(limits.get("deadline_ms", 120_000)))
    return facts.map(lambda f: {"engine": engine, "facts": f})


HANDLERS = {AndroidQuery: _query, **clients.HANDLERS}
