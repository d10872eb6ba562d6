"""Owned process groups: observe one, stop it, and prove it is gone.

Every helper REA starts (the angr worker, a headless Chromium, a Node under inspection)
runs in its own session, so its pid is its group id and one signal reaches everything it
started. The observation is the contract's process-lineage snapshot; `terminate` answers
what is still alive after TERM then KILL (empty when clean), never assumes.
"""

from __future__ import annotations

import datetime
import os
import signal
from typing import Any

import anyio
import anyio.abc

TERM_GRACE_S = 2.0


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def observe(pid: int) -> dict[str, Any]:
    """A lineage observation of the group led by `pid` right now."""
    import psutil  # only lineage and cleanup need it; kept off the server's startup path

    try:
        proc = psutil.Process(pid)
        descendants = [
            {"pid": c.pid, "parent_pid": c.ppid(), "process_group_id": os.getpgid(c.pid)}
            for c in proc.children(recursive=True)
        ]
        return {
            "status": "verified",
            "observed_at": now(),
            "schema_version": 1,
            "launcher_pid": pid,
            "process_group_id": os.getpgid(pid),
            "launcher_parent_pid": proc.ppid(),
            "descendants": descendants,
        }
    except (psutil.Error, ProcessLookupError, PermissionError) as exc:
        return {
            "status": "unavailable",
            "observed_at": now(),
            "launcher_pid": pid,
            "process_group_id": pid,
            "reason": f"{type(exc).__name__}: the process has exited",
        }


def members(group: int) -> list[int]:
    """Live (non-zombie) processes of a group."""
    import psutil

    found = []
    for proc in psutil.process_iter(["pid"]):
        try:
            if os.getpgid(proc.pid) == group and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc.pid)
        except (ProcessLookupError, psutil.Error, PermissionError):
            continue
    return found


async def _emptied(group: int) -> bool:
    """Whether every member of the group is gone within the grace: the leader's exit does not mean its
    children have finished dying (a signalled child takes a moment to become a zombie)."""
    with anyio.move_on_after(TERM_GRACE_S):
        while members(group):
            await anyio.sleep(0.05)
        return True
    return False


async def terminate(process: anyio.abc.Process) -> list[str]:
    """TERM, then KILL, the group `process` leads; answer what remains (empty when clean)."""
    group = process.pid  # start_new_session: the group id is the leader's pid
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(group, sig)
        except ProcessLookupError:
            break
        with anyio.move_on_after(TERM_GRACE_S):
            await process.wait()
        if await _emptied(group):
            break
    with anyio.move_on_after(TERM_GRACE_S):
        await process.wait()
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            await stream.aclose()
    return [f"process {pid} (group {group})" for pid in members(group)]


async def kill(process: anyio.abc.Process) -> list[str]:
    """KILL the group `process` leads at once (a reader past its deadline or cancelled: nothing to flush), wait for
    the leader and for every member to be gone; answer what remains (empty when clean)."""
    group = process.pid
    try:
        os.killpg(group, signal.SIGKILL)
    except ProcessLookupError:
        pass
    with anyio.move_on_after(TERM_GRACE_S):
        await process.wait()
    await _emptied(group)
    return [f"process {pid} (group {group})" for pid in members(group)]
