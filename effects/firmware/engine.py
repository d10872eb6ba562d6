"""Find unblob and run it once as an owned, bounded process group.

unblob is a Python program whose dependencies clash with angr's (arpy), so it lives in its
own environment (`sh scripts/setup test` makes .venv-unblob/ beside the checkout) and runs
as a command: REA_UNBLOB_COMMAND (absolute), else `unblob` on PATH, else that environment.
Its extractors are other commands it starts (7z, unsquashfs, jefferson, ...); they inherit
the group, so one kill reaches all of them, and the group is checked empty after every
run, however it ended. Debian ships unsquashfs, not the sasquatch fork unblob asks for: a
two-line shim passes unblob's call on, without sasquatch's `-le`/`-no-exit-code` flags
(little-endian SquashFS 4 only; sasquatch's vendor variants stay unsupported).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, TypeVar

import anyio
from returns.result import Result

from effects import owned
from effects.process_group import terminate
from rea.errors import ReaError
from rea.firmware.records import FirmwareEngine

_T = TypeVar("_T")

POLL_S = 0.2
TAIL_BYTES = 16 << 10
VENV = Path(__file__).resolve().parents[2] / ".venv-unblob" / "bin" / "unblob"
SHIM = '#!/bin/sh\nfor a; do shift; case "$a" in -le|-no-exit-code) ;; *) set -- "$@" "$a";; esac; done\nexec unsquashfs "$@"\n'


class Refused(Exception):
    """A refusal inside the firmware handlers; the handler's entry answers it as Failure(error)."""

    def __init__(self, error: ReaError) -> None:
        super().__init__(error.message)
        self.error = error


def granted(result: Result[_T, ReaError]) -> _T:
    """A Result inside a handler: its value, or Refused with its error (which the handler's entry answers)."""

    def refuse(error: ReaError) -> NoReturn:
        raise Refused(error)

    return result.alt(refuse).unwrap()


def missing_unblob() -> ReaError:
    return ReaError(
        code="capability_unavailable",
        message="The firmware tools need unblob, which was not found (REA_UNBLOB_COMMAND, PATH, .venv-unblob).",
        details={"provider": "unblob", "reason": "provider_missing"},
        action="Run `sh scripts/setup test` (it makes .venv-unblob with unblob), or set REA_UNBLOB_COMMAND "
        "to an absolute unblob command.",
    )


def locate() -> str | None:
    """The unblob command, or None when there is none."""
    chosen = os.environ.get("REA_UNBLOB_COMMAND")
    if chosen:
        return chosen if os.path.isabs(chosen) and os.access(chosen, os.X_OK) else None
    return shutil.which("unblob") or (str(VENV) if os.access(VENV, os.X_OK) else None)


def sha256_file(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def environment(command: str, work: str) -> dict[str, str]:
    """unblob's PATH: the shim (when sasquatch is missing and unsquashfs is there), unblob's own environment (its
    Python extractors: jefferson, ubireader), then the caller's."""
    parts = [os.path.dirname(command), os.environ.get("PATH", "/usr/bin:/bin")]
    if shutil.which("sasquatch") is None and shutil.which("unsquashfs") is not None:
        shims = os.path.join(work, "bin")
        os.makedirs(shims, exist_ok=True)
        shim = os.path.join(shims, "sasquatch")
        with open(shim, "w") as handle:
            handle.write(SHIM)
        os.chmod(shim, stat.S_IRWXU)
        parts.insert(0, shims)
    return {**os.environ, "PATH": os.pathsep.join(parts)}


def _tail(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, os.path.getsize(path) - TAIL_BYTES))
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _wrapped(argv: list[str], timeout_s: float) -> list[str]:
    """No core dumps, a CPU ceiling: util-linux prlimit where it is installed."""
    prlimit = shutil.which("prlimit")
    return [prlimit, "--core=0", f"--cpu={int(timeout_s * 2)}", "--", *argv] if prlimit else argv


async def run(
    argv: list[str], env: dict[str, str], work: str, timeout_s: float, over: Callable[[], str | None]
) -> tuple[int, str]:
    """Exit code and output tail of one run; `over()` names a budget the run passed (then it is stopped and
    Refused raised, as it is when the group outlives the run)."""
    log = os.path.join(work, "engine.out")
    with open(log, "wb") as out:
        process = await anyio.open_process(
            _wrapped(argv, timeout_s), stdin=None, stdout=out, stderr=out, env=env, start_new_session=True
        )
    name = f"unblob-{process.pid}"
    owned.own(name, lambda: _kill(process.pid))
    stopped: str | None = None
    try:
        with anyio.move_on_after(timeout_s) as deadline:
            while process.returncode is None:
                stopped = await anyio.to_thread.run_sync(over)
                if stopped is not None:
                    break
                with anyio.move_on_after(POLL_S):
                    await process.wait()
        if deadline.cancelled_caught:
            stopped = f"the {timeout_s:.0f}-second deadline"
    finally:
        with anyio.CancelScope(shield=True):
            remaining = await terminate(process)
            owned.disown(name)
    if remaining:
        raise Refused(
            ReaError(
                code="cleanup_incomplete",
                message=f"unblob's processes outlived it: {', '.join(remaining)}",
                details={"owned_resources": remaining},
                action="Stop the listed processes, then call again.",
            )
        )
    if stopped is not None:
        raise Refused(
            ReaError(
                code="resource_constraint",
                message=f"unblob was stopped at {stopped}; nothing was published.",
                details={"limit": stopped, "output_tail": _tail(log)[-2000:]},
                action="Raise the named limit, or select a smaller range.",
            )
        )
    return (process.returncode if process.returncode is not None else -1, _tail(log))


def _kill(group: int) -> None:
    import signal

    try:
        os.killpg(group, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


_BANNERS: dict[tuple[str, int, int], str] = {}  # (command, size, mtime) -> banner: one --version per install


async def version(command: str, env: dict[str, str], work: str) -> str:
    info = os.stat(command)
    key = (command, info.st_size, info.st_mtime_ns)
    if key in _BANNERS:
        return _BANNERS[key]
    code, text = await run([command, "--version"], env, work, 60.0, lambda: None)
    banner = text.strip().splitlines()[-1].strip() if text.strip() else ""
    if code != 0 or not banner:
        raise Refused(missing_unblob())
    _BANNERS[key] = banner
    return banner


def engine_record(command: str, banner: str) -> FirmwareEngine:
    return FirmwareEngine(
        name="unblob",
        version=banner,
        executable_path=command,
        executable_sha256=sha256_file(command),
        source_revision=None,
        worker_count=1,
    )
