"""The one task function both backends run: analyse one item in its own owned process.

`run_item(request) -> answer` takes and returns plain JSON, so the local pool calls it from a
thread and Ray ships it to a worker unchanged. The item's process (`effects.batch.child`) gets
a memory ceiling (RLIMIT_AS, inherited by the engine processes it starts), dies with the
thread that started it (PR_SET_PDEATHSIG), and on the deadline its whole process tree is
stopped and verified gone. The answer's Evidence is parsed strictly (ids recomputed) by the
caller, never trusted.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

import orjson
import psutil

import effects
from effects.batch.limits import confine
from rea.batch.failures import Ending, ending_error, reply_error

STDERR_TAIL = 4000
_LIVE: set[int] = set()  # item process ids in flight (SIGINT stops them)
_LOCK = threading.Lock()
STOPPING = threading.Event()  # set on SIGINT: no new item process starts


def _package_root() -> str:
    """The directory holding the `effects` package this process runs, so the item runs the same code."""
    return os.path.dirname(os.path.dirname(os.path.abspath(effects.__file__)))


def item_environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [_package_root(), os.environ.get("PYTHONPATH")]))}


def stop_tree(pid: int) -> list[int]:
    """SIGKILL a process and every descendant (engines start their own sessions), reap them, and
    answer the pids still alive afterwards (empty when all are verified gone)."""
    try:
        root = psutil.Process(pid)
        tree = [*root.children(recursive=True), root]
    except psutil.NoSuchProcess:
        return []
    for proc in tree:
        try:
            proc.kill()
        except psutil.NoSuchProcess:
            pass
    _, alive = psutil.wait_procs(tree, timeout=5)
    return [p.pid for p in alive]


def stop_all_items() -> list[int]:
    """Stop every item process in flight (SIGINT); answer what survived."""
    STOPPING.set()
    with _LOCK:
        live = list(_LIVE)
    survivors: list[int] = []
    for pid in live:
        survivors += stop_tree(pid)
    return survivors


def admit(pid: int) -> bool:
    """Record a started item; False (and the item stopped) when the batch is stopping."""
    with _LOCK:
        if not STOPPING.is_set():
            _LIVE.add(pid)
            return True
    stop_tree(pid)
    return False


def release(pid: int) -> None:
    with _LOCK:
        _LIVE.discard(pid)


def ending_of(code: int | None, stderr: bytes) -> Ending:
    name = signal.Signals(-code).name if code is not None and code < 0 else None
    return Ending(returncode=code, signal_name=name, stderr_tail=stderr[-STDERR_TAIL:].decode("utf-8", "replace"))


def spawn_item(request: dict[str, Any]) -> tuple[Ending, bytes] | None:
    """A fresh interpreter for the item (Ray workers, which outlive a batch, keep no warm parent)."""
    with _LOCK:
        if STOPPING.is_set():
            return None
        proc = subprocess.Popen(
            [sys.executable, "-m", "effects.batch.child"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=item_environment(),
            preexec_fn=lambda: confine(request["memory_mb"]),
        )
        _LIVE.add(proc.pid)
    try:
        out, err = proc.communicate(orjson.dumps(request), timeout=request["deadline_ms"] / 1000)
        return ending_of(proc.returncode, err), out
    except subprocess.TimeoutExpired:
        stop_tree(proc.pid)
        proc.communicate()
        return Ending(returncode=None), b""
    finally:
        release(proc.pid)


Runner = Callable[[dict[str, Any]], "tuple[Ending, bytes] | None"]


def run_item(request: dict[str, Any], runner: Runner = spawn_item) -> dict[str, Any]:
    """Analyse one item; the answer is {sha256, evidence: [records], error: canonical body | None,
    not_run: bool}. Never raises for the item's own failures."""
    answer: dict[str, Any] = {"sha256": request["sha256"], "evidence": [], "error": None, "not_run": False}
    ran = runner(request)
    if ran is None or (STOPPING.is_set() and ran[0].returncode != 0):
        return {**answer, "not_run": True}
    ending, out = ran
    try:
        reply = orjson.loads(out) if ending.returncode == 0 else None
    except orjson.JSONDecodeError:
        reply = None
    if not isinstance(reply, dict):
        error = ending_error(ending, request["path"], request["deadline_ms"], request["memory_mb"])
        return {**answer, "error": error.to_json()}
    body = reply_error(reply.get("error"), request["path"], request["memory_mb"])
    return {**answer, "evidence": reply.get("evidence", []), "error": body}
