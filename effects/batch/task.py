"""The one task function both backends run: analyse one item in its own owned process.

`run_item(request) -> answer` takes and returns plain JSON, so the local pool calls it from a
thread and Ray ships it to a worker unchanged. The item's process (`effects.batch.child`) gets
a memory ceiling (RLIMIT_AS, inherited by the engine processes it starts), dies with the
thread that started it (PR_SET_PDEATHSIG), and on the deadline its whole process tree is
stopped and verified gone. The answer's Evidence is parsed strictly (ids recomputed) by the
caller, never trusted.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import subprocess
import sys
import threading
from typing import Any
from collections.abc import Callable

import orjson
import psutil

import effects
from rea.batch.failures import Ending, ending_error, reply_error

PR_SET_PDEATHSIG = 1
STDERR_TAIL = 4000
_LIVE: dict[int, subprocess.Popen[bytes]] = {}  # item processes in flight, by pid (SIGINT stops them)
_LOCK = threading.Lock()
STOPPING = threading.Event()  # set on SIGINT: no new item process starts


def _package_root() -> str:
    """The directory holding the `effects` package this process runs, so the item runs the same code."""
    return os.path.dirname(os.path.dirname(os.path.abspath(effects.__file__)))


def _preexec(memory_mb: int) -> Callable[[], None]:
    def setup() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # a backgrounded parent may have it ignored
        os.setpgrp()  # its own group: a terminal's SIGINT reaches the runner, which stops items itself
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        try:  # Linux: die with the thread that started us (a killed Ray worker takes its item with it)
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except (AttributeError, OSError):
            pass

    return setup


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
        live = list(_LIVE.values())
    survivors: list[int] = []
    for proc in live:
        survivors += stop_tree(proc.pid)
        proc.wait()
    return survivors


def _start(request: dict[str, Any]) -> subprocess.Popen[bytes] | None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [_package_root(), os.environ.get("PYTHONPATH")]))}
    with _LOCK:
        if STOPPING.is_set():
            return None
        proc = subprocess.Popen(
            [sys.executable, "-m", "effects.batch.child"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            preexec_fn=_preexec(request["memory_mb"]),
        )
        _LIVE[proc.pid] = proc
    return proc


def _ending(proc: subprocess.Popen[bytes], stderr: bytes) -> Ending:
    code = proc.returncode
    name = signal.Signals(-code).name if code is not None and code < 0 else None
    return Ending(returncode=code, signal_name=name, stderr_tail=stderr[-STDERR_TAIL:].decode("utf-8", "replace"))


def run_item(request: dict[str, Any]) -> dict[str, Any]:
    """Analyse one item; the answer is {sha256, evidence: [records], error: canonical body | None,
    not_run: bool}. Never raises for the item's own failures."""
    answer: dict[str, Any] = {"sha256": request["sha256"], "evidence": [], "error": None, "not_run": False}
    proc = _start(request)
    if proc is None:
        return {**answer, "not_run": True}
    out = b""
    try:
        out, err = proc.communicate(orjson.dumps(request), timeout=request["deadline_ms"] / 1000)
        ending = _ending(proc, err)
    except subprocess.TimeoutExpired:
        stop_tree(proc.pid)
        proc.communicate()
        ending = Ending(returncode=None)
    finally:
        with _LOCK:
            _LIVE.pop(proc.pid, None)
    if STOPPING.is_set() and ending.returncode != 0:
        return {**answer, "not_run": True}
    try:
        reply = orjson.loads(out) if ending.returncode == 0 else None
    except orjson.JSONDecodeError:
        reply = None
    if not isinstance(reply, dict):
        error = ending_error(ending, request["path"], request["deadline_ms"], request["memory_mb"])
        return {**answer, "error": error.to_json()}
    error = reply_error(reply.get("error"), request["path"], request["memory_mb"])
    return {**answer, "evidence": reply.get("evidence", []), "error": error}
