"""Handler of ReadRecordedCrash: map the core, decode it in pure code, and ask gdb when the caller wants it.

gdb runs on the core alone (`-c CORE`, no executable, `-nx` so no init file runs) as an
owned child in its own process group under address-space, CPU and file-size limits; a
deadline, a cancel or a crash of gdb stops the group and is reported in the record,
never as a failure of the whole read.
"""

from __future__ import annotations

import functools
import hashlib
import mmap
import os
import shutil
import stat
import subprocess
from typing import Any

import anyio
from returns.result import Failure, Result, Success

from effects import process_group
from effects.layout.runtime import unavailable
from effects.progress import Progress
from rea.errors import ReaError, invalid_request
from rea.layout.core import CoreFacts, CoreRefused, CrashRead, read_core
from rea.layout.crash_records import DebuggerContext, DebuggerLimits, DebuggerUnavailable, NotRequested
from rea.layout.gdb_view import COMMANDS, parse_core_view
from rea.layout.model import ReadRecordedCrash
from rea.layout.records import Diagnostics, LayoutArtifact

ACCEPTED = "a Linux x86-64 ELF64 core file (ET_CORE), as the kernel or gdb's gcore writes it"
GDB_DEADLINE_S = 60.0
GDB_LIMITS = {"address_space_bytes": 2 << 30, "cpu_seconds": 60, "file_size_bytes": 0}
MAX_OUTPUT = 1 << 20


def _decode(path: str) -> tuple[LayoutArtifact, CoreFacts]:
    """One mapping of the core serves both its digest and the decoder (the file is read once)."""
    with open(path, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("it is not a regular file")
        if info.st_size == 0:
            raise CoreRefused("not-elf", "the file is empty")
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            view = memoryview(mapped)
            try:
                artifact = LayoutArtifact(path=path, sha256=hashlib.sha256(view).hexdigest(), bytes=len(view))
                return artifact, read_core(view)
            finally:
                view.release()


def _limited(argv: list[str]) -> list[str]:
    """argv under util-linux prlimit (anyio starts processes without a preexec hook)."""
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        raise OSError("prlimit (util-linux) is not on PATH, so gdb cannot be started under its limits")
    limits = GDB_LIMITS
    return [
        prlimit,
        f"--as={limits['address_space_bytes']}",
        f"--cpu={limits['cpu_seconds']}",
        f"--fsize={limits['file_size_bytes']}",
        "--",
        *argv,
    ]


def _unavailable(reason: str) -> DebuggerUnavailable:
    return DebuggerUnavailable(
        status="unavailable",
        reason=reason,
        remediation="Install Debian's gdb (scripts/setup does: apt-get install gdb), or call without "
        "include_debugger_context.",
    )


@functools.lru_cache(maxsize=4)  # one `gdb --version` per gdb path per server, not one per call
def _version(gdb: str) -> str | None:
    try:
        out = subprocess.run([gdb, "--version"], capture_output=True, text=True, timeout=10, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return out.splitlines()[0].strip() if out.strip() else None


async def _gdb(path: str) -> DebuggerContext | DebuggerUnavailable:
    gdb = shutil.which("gdb")
    version = None if gdb is None else await anyio.to_thread.run_sync(_version, gdb)
    if gdb is None or version is None:
        return _unavailable("gdb is not on PATH" if gdb is None else "gdb --version did not answer")
    argv = [gdb, "-nx", "-batch", *(a for c in COMMANDS for a in ("-ex", c)), "-c", path]
    try:
        process = await anyio.open_process(
            _limited(argv), stdin=subprocess.DEVNULL, start_new_session=True, env={**os.environ, "LC_ALL": "C"}
        )
    except OSError as exc:
        return _unavailable(str(exc))
    chunks: dict[str, bytes] = {"stdout": b"", "stderr": b""}
    timed_out = False

    async def drain(name: str, stream: Any) -> None:
        async for chunk in stream:
            if len(chunks[name]) < MAX_OUTPUT:
                chunks[name] += chunk

    try:
        with anyio.move_on_after(GDB_DEADLINE_S) as scope:
            async with anyio.create_task_group() as group:
                group.start_soon(drain, "stdout", process.stdout)
                group.start_soon(drain, "stderr", process.stderr)
            await process.wait()
        timed_out = scope.cancelled_caught
    finally:
        with anyio.CancelScope(shield=True):
            await process_group.terminate(process)
    stdout, stderr = (chunks[k].decode("utf-8", "replace") for k in ("stdout", "stderr"))
    view = parse_core_view(stdout)
    note = f"\n[gdb stopped after {GDB_DEADLINE_S:g} s]" if timed_out else ""
    return DebuggerContext(
        status="available",
        gdb_version=version,
        pwndbg_version=None,
        connection="core",
        executable=None,
        historical_pid=view.historical_pid if view.historical_pid is not None else 0,
        reported_limits=DebuggerLimits(**GDB_LIMITS),
        maps=view.maps,
        frames=view.frames,
        confidence="derived",
        completeness="unknown",
        diagnostics=Diagnostics(
            stdout=stdout[:MAX_OUTPUT],
            stderr=stderr[:MAX_OUTPUT] + note,
            truncated=timed_out or any(len(c) >= MAX_OUTPUT for c in chunks.values()),
        ),
    )


async def read_recorded_crash(effect: ReadRecordedCrash, progress: Progress) -> Result[Any, ReaError]:
    try:
        decoded = await anyio.to_thread.run_sync(_decode, effect.path)
    except CoreRefused as refused:
        return Failure(
            invalid_request(
                f"{effect.path} cannot be read as a core: {refused}.",
                field="path",
                accepted=ACCEPTED,
                reason=refused.reason,
            )
        )
    except (OSError, ValueError) as exc:
        return Failure(unavailable(effect.path, getattr(exc, "strerror", None) or str(exc)))
    debugger: NotRequested | DebuggerUnavailable | DebuggerContext = NotRequested(status="not-requested")
    if effect.include_debugger_context:
        await progress.report("asking gdb", f"gdb -batch -c {effect.path} (core only)")
        debugger = await _gdb(effect.path)
    artifact, core = decoded
    return Success(CrashRead(artifact=artifact, core=core, debugger=debugger))


HANDLERS = {ReadRecordedCrash: read_recorded_crash}
