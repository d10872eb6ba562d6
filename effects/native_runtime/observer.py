"""observe_native_calls through Debian's LLDB: find it, launch the bridge as an owned process group, collect facts.

Debian's python3-lldb-14 splits its module (lldb/__init__.py under llvm-14's python3.11
tree) from the extension it loads (liblldb-14.so.1), and `lldb -P` names a directory
that does not exist; REA assembles the package in a private temporary directory
(symlinks, removed afterwards) instead of depending on that layout. The bridge runs
under the system Python in its own session, so one signal reaches LLDB, lldb-server
and the launched process; when observation ends, is cancelled or times out, the
group is killed and every member, the launched pid included, is verified gone.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from returns.result import Failure, Result, Success

from effects import owned, process_group
from effects.progress import Progress
from rea.errors import ReaError
from rea.native_runtime.effects import ObserveNativeCalls

BRIDGE = Path(__file__).with_name("lldb_bridge.py")
PROVIDER = {"id": "lldb", "name": "LLDB (Debian)", "version": None}
GRACE_S = 60.0  # LLDB startup, symbol loading and teardown beyond the observation window
MAX_OUTPUT = 1 << 20  # per stream of the launched process
MAX_REPORT = 64 << 20  # bridge lines retained before the observation is cut (resource-limit)
INSTALL = "Install Debian's LLDB and its Python module (apt-get install lldb python3-lldb-14), then call again."


def _missing(what: str) -> ReaError:
    return ReaError(
        code="capability_unavailable",
        message=f"observe_native_calls needs Debian's LLDB: {what}.",
        details={"provider": "lldb", "reason": "provider_missing", "missing": what},
        action=INSTALL,
    )


def _first(patterns: list[str]) -> str | None:
    for pattern in patterns:
        found = sorted(glob.glob(pattern))
        if found:
            return found[-1]
    return None


def discover() -> Result[dict[str, str], ReaError]:
    """LLDB's executable, lldb-server, its Python package and library, and the Python to run the bridge."""
    lldb = os.environ.get("REA_LLDB") or shutil.which("lldb")
    if not lldb or not os.access(lldb, os.X_OK):
        return Failure(_missing("no lldb executable (PATH or REA_LLDB)"))
    real = os.path.realpath(lldb)
    prefix = os.path.dirname(os.path.dirname(real))
    server = os.environ.get("LLDB_DEBUGSERVER_PATH") or _first([os.path.join(os.path.dirname(real), "lldb-server")])
    package = _first(
        [
            f"{prefix}/lib/python3*/dist-packages/lldb/__init__.py",
            "/usr/lib/llvm-*/lib/python3*/dist-packages/lldb/__init__.py",
        ]
    )
    library = _first(
        [f"{prefix}/lib/liblldb.so*", "/usr/lib/*-linux-gnu/liblldb-*.so.1", "/usr/lib/*-linux-gnu/liblldb*.so*"]
    )
    if server is None:
        return Failure(_missing("lldb-server is not beside lldb"))
    if package is None or library is None:
        return Failure(_missing("LLDB's Python module (python3-lldb-14) is not installed"))
    python = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
    return Success(
        {"lldb": real, "server": server, "package": os.path.dirname(package), "library": library, "python": python}
    )


def _package(root: Path, found: dict[str, str]) -> Path:
    """A private `lldb` package: the module's files and the extension, side by side."""
    target = root / "py" / "lldb"
    target.mkdir(parents=True)
    for entry in os.listdir(found["package"]):
        if not entry.startswith("_lldb"):
            (target / entry).symlink_to(os.path.join(found["package"], entry))
    (target / "_lldb.so").symlink_to(found["library"])
    return root / "py"


def _digest(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _identity(path: str) -> dict[str, Any]:
    info = os.stat(path)
    return {"sha256": _digest(path), "dev": str(info.st_dev), "ino": str(info.st_ino)}


def _captured(path: Path) -> dict[str, Any]:
    size = path.stat().st_size if path.exists() else 0
    data = path.read_bytes()[:MAX_OUTPUT] if size else b""
    return {"text": data.decode("utf-8", "replace"), "bytes": size, "truncated": size > MAX_OUTPUT, "complete": True}


def _version(lldb: str) -> str | None:
    try:
        out = subprocess.run([lldb, "--version"], capture_output=True, text=True, timeout=20, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.strip().splitlines()[0] if out.strip() else None


def _gone(pid: int | None) -> bool:
    import psutil

    if pid is None:
        return True
    try:
        return bool(psutil.Process(pid).status() == psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return True


def _kill(pid: int | None) -> None:
    if pid is not None:
        try:
            os.kill(pid, 9)
        except (ProcessLookupError, PermissionError):
            pass


def _record_lineage(progress: Progress, pid: int) -> None:
    """The bridge's process group joins the connection's process lineage (binary_session reports it)."""
    runtime = progress.native
    if runtime is not None:
        runtime.lineage.append({"provider": dict(PROVIDER), "observation": process_group.observe(pid)})


async def _drain_errors(process: Any, state: dict[str, Any]) -> None:
    async for chunk in process.stderr:
        state["stderr"] = (state["stderr"] + chunk)[-16_384:]


async def _collect(process: Any, deadline_s: float, state: dict[str, Any], progress: Progress) -> None:
    """Read the bridge's JSON lines until it ends, the deadline passes, or the retention bound is hit."""
    with anyio.move_on_after(deadline_s):
        async with anyio.create_task_group() as group:
            group.start_soon(_drain_errors, process, state)
            await _lines(process, state, progress)
            group.cancel_scope.cancel()


async def _lines(process: Any, state: dict[str, Any], progress: Progress) -> None:
    buffer = b""
    async for chunk in process.stdout:
        buffer += chunk
        state["bytes"] += len(chunk)
        *complete, buffer = buffer.split(b"\n")
        for raw in complete:
            try:
                line = json.loads(raw)
            except ValueError:  # not the bridge's: kept as a note, never trusted
                state["notes"].append(f"LLDB bridge printed a line that is not JSON: {raw[:200]!r}")
                continue
            if not isinstance(line, dict):
                continue
            state["lines"].append(line)
            if line.get("type") == "started":
                state["pid"] = line["pid"]
                _record_lineage(progress, process.pid)
                await progress.report("observing", f"pid {line['pid']} under LLDB")
        if state["bytes"] > MAX_REPORT:
            state["resource_limit"] = True
            return


async def observe_native_calls(effect: ObserveNativeCalls, progress: Progress) -> Result[Any, ReaError]:
    match discover():
        case Success(found):
            pass
        case missing:
            return missing
    before = _identity(effect.path)
    if before["sha256"] != effect.sha256:
        return Failure(
            ReaError(
                code="artifact_integrity_mismatch",
                message=f"{effect.path} changed since open_binary: its digest is no longer the target's.",
                details={"path": effect.path, "expected_sha256": effect.sha256, "observed_sha256": before["sha256"]},
                action="Call open_binary on the file again, then observe.",
            )
        )
    with tempfile.TemporaryDirectory(prefix="rea-lldb-") as tmp:
        root = Path(tmp)
        request = {
            **effect.request,
            "environment": {**os.environ, **effect.request["environment"]},
            "stdout": str(root / "stdout"),
            "stderr": str(root / "stderr"),
        }
        env = {
            "PYTHONPATH": str(_package(root, found)),
            "LLDB_DEBUGSERVER_PATH": found["server"],
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LC_ALL": "C.UTF-8",
        }
        await progress.report("launching under LLDB", effect.path)
        started = time.monotonic()
        process = await anyio.open_process(
            [found["python"], str(BRIDGE)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            start_new_session=True,
        )
        state: dict[str, Any] = {
            "lines": [],
            "bytes": 0,
            "pid": None,
            "resource_limit": False,
            "stderr": b"",
            "notes": [],
        }
        name = f"lldb-observation-{process.pid}"

        def stop() -> None:
            _kill(state["pid"])
            try:
                os.killpg(process.pid, 9)
            except ProcessLookupError:
                pass

        owned.own(name, stop)
        remaining: list[str] = []
        cancelled = False
        try:
            assert process.stdin is not None
            await process.stdin.send((json.dumps(request) + "\n").encode())
            await process.stdin.aclose()
            await _collect(process, effect.request["duration_ms"] / 1000 + GRACE_S, state, progress)
        except anyio.get_cancelled_exc_class():
            cancelled = True
            raise
        finally:
            with anyio.CancelScope(shield=True):
                _kill(state["pid"])  # the launched process first, then the bridge's whole group
                remaining = await process_group.terminate(process)
                _kill(state["pid"])
                owned.disown(name)
                if cancelled:  # what was seen before the cancel goes to the program with ProgramCancelled
                    progress.effect_partial = _partial(effect, found, state, before, root, remaining, started)
        observed = _observed(effect, found, state, before, root, remaining, started)
    return Success(_judged(effect, state, observed, remaining))


def _observed(
    effect: ObserveNativeCalls,
    found: dict[str, str],
    state: dict[str, Any],
    before: dict[str, Any],
    root: Path,
    remaining: list[str],
    started: float,
) -> dict[str, Any]:
    """Everything the observation saw, whatever ended it (the pure side decides what it amounts to)."""
    after = _identity(effect.path)
    return {
        "lines": state["lines"],
        "pid": state["pid"],
        "resource_limit": state["resource_limit"],
        "terminated": not remaining and _gone(state["pid"]),
        "elapsed_ms": round((time.monotonic() - started) * 1000, 3),
        "stdout": _captured(root / "stdout"),
        "stderr": _captured(root / "stderr"),
        "debugger": {"path": found["lldb"], "sha256": _digest(found["lldb"]), "version": _version(found["lldb"])},
        "target": {
            "path": effect.path,
            "sha256": effect.sha256,
            "architecture": effect.request["architecture"],
            "file_device": before["dev"],
            "file_inode": before["ino"],
            "stable": before == after,
        },
        "notes": state["notes"][:16],
    }


def _partial(
    effect: ObserveNativeCalls,
    found: dict[str, str],
    state: dict[str, Any],
    before: dict[str, Any],
    root: Path,
    remaining: list[str],
    started: float,
) -> dict[str, Any] | None:
    """The cancelled observation's facts; None when they cannot be gathered (the target vanished, say),
    so the cancel stays a plain cancel rather than an error raised over it."""
    try:
        observed = _observed(effect, found, state, before, root, remaining, started)
    except OSError:
        return None
    return {**observed, "interrupted": {"reason": "cancelled"}}


def _judged(
    effect: ObserveNativeCalls, state: dict[str, Any], observed: dict[str, Any], remaining: list[str]
) -> dict[str, Any]:
    """The facts, with the failure the observation ended in (launch, cleanup) named beside what it saw."""
    failed = next((line for line in state["lines"] if line.get("type") == "failed"), None)
    if failed is not None or state["pid"] is None:
        message = (failed or {}).get("message") or "the LLDB bridge ended before the process started"
        error = ReaError(
            code="process_capture_failed",
            message=f"LLDB could not launch {effect.path}: {message}.",
            details={
                "provider": "lldb",
                "reason": (failed or {}).get("reason", "bridge"),
                "bridge_stderr": state["stderr"].decode("utf-8", "replace")[-4000:],
                "remaining": remaining,
            },
            action="Check that the open target is an executable for this host (a Linux ELF), then call again.",
        )
        return {**observed, "interrupted": {"reason": "launch-failed"}, "failure": error}
    if remaining:
        error = ReaError(
            code="cleanup_incomplete",
            message=f"The observed process group did not exit: {', '.join(remaining)} still run.",
            details={"owned_resources": ["process"], "remaining": remaining},
            action="Stop the listed processes (kill -9), then call again.",
        )
        return {**observed, "interrupted": {"reason": "cleanup-incomplete"}, "failure": error}
    return observed


HANDLERS = {ObserveNativeCalls: observe_native_calls}
