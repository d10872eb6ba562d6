"""How a scenario's process is started: its environment, the command shims, the network namespace, the
pseudo-terminal and the session that makes the terminal its controlling one.

The launch is one exec chain with one pid: `unshare --net` (a private network namespace; as a
non-root user with --map-root-user, so the target sees uid 0 there), then for `loopback` a
shell that brings the namespace's own `lo` up, then util-linux `setsid --ctty` (a new session
and process group led by that pid, the terminal on fd 0 made controlling), then the executable.
No step forks, so the pid REA holds is the group id it kills.
"""

from __future__ import annotations

import functools
import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rea.errors import ReaError
from rea.process_capture.records import CommandShim
from rea.wire.convert import to_wire

# the namespace's lo brought up by iproute2's ip, named absolutely: the target's environment may have no PATH
LOOPBACK_UP = shlex.quote(shutil.which("ip") or "/sbin/ip") + ' link set lo up || exit 125; exec "$@"'
SHIM_MAIN = str(Path(__file__).with_name("shim_main.py"))
TAP_MAIN = str(
    Path(__file__).with_name("tap_main.py")
)  # the loopback observer step (effects/process_capture/loopback.py)


def environment(declared: Mapping[str, str], inherited: tuple[str, ...], shim_dir: str | None) -> dict[str, str]:
    """Only the declared variables and the inherited names REA itself has; the shim directory first on PATH."""
    env = {name: os.environ[name] for name in inherited if name in os.environ}
    env.update(declared)
    if shim_dir is not None:
        env["PATH"] = shim_dir + (":" + env["PATH"] if env.get("PATH") else ":/usr/local/bin:/usr/bin:/bin")
    return env


def write_shims(shims: tuple[CommandShim, ...], scratch: str) -> str | None:
    """The shim directory (one script per name, running shim_main.py against plan.json), or None."""
    if not shims:
        return None
    directory = os.path.join(scratch, "shims")
    os.mkdir(directory, 0o700)
    plan = os.path.join(scratch, "shim-plan.json")
    journal = os.path.join(scratch, "shim-journal.jsonl")
    open(journal, "x").close()
    body = {"journal": journal, "shims": {s.name: [to_wire(r) for r in s.routes] for s in shims}}
    with open(plan, "x", encoding="utf-8") as handle:
        json.dump(body, handle)
    for shim in shims:
        script = os.path.join(directory, shim.name)
        command = " ".join(shlex.quote(p) for p in (sys.executable, "-I", SHIM_MAIN, plan, shim.name))
        with open(script, "x", encoding="utf-8") as handle:
            handle.write(f'#!/bin/sh\nexec {command} "$@"\n')
        os.chmod(script, 0o755)
    return directory


def read_journal(scratch: str) -> tuple[list[dict[str, Any]], bool]:
    """The shim calls recorded (JSON lines as parsed), and whether every line was whole."""
    path = os.path.join(scratch, "shim-journal.jsonl")
    if not os.path.exists(path):
        return [], True
    calls: list[dict[str, Any]] = []
    whole = True
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            try:
                calls.append(json.loads(line))
            except ValueError:
                whole = False
    return calls, whole


def _network_prefix(mode: str) -> list[str] | None:
    unshare = shutil.which("unshare") or "/usr/bin/unshare"
    if not os.access(unshare, os.X_OK):
        return None
    prefix = [unshare, "--net"] + ([] if os.geteuid() == 0 else ["--map-root-user"]) + ["--"]
    if mode == "loopback":
        prefix += ["/bin/sh", "-c", LOOPBACK_UP, "rea-loopback"]
    return prefix


@functools.cache
def _works(mode: str) -> str | None:
    """None when a private network namespace of this mode can be made here, else why not (probed once)."""
    prefix = _network_prefix(mode)
    if prefix is None:
        return "util-linux unshare is not installed"
    done = subprocess.run([*prefix, "/bin/true"], capture_output=True, timeout=30)
    if done.returncode != 0:
        return f"unshare --net failed: {done.stderr.decode(errors='replace').strip()[:300]}"
    return None


class Refused(Exception):
    """A capture that cannot go on, with its canonical error (the handler answers it as a Failure)."""

    def __init__(self, error: ReaError) -> None:
        super().__init__(error.message)
        self.error = error


def command(
    executable: str, arguments: tuple[str, ...], network: str, observer: Sequence[str] = ()
) -> tuple[list[str], str]:
    """The argv of the exec chain (with the `observer` step, if any, inside the namespace before setsid) and how
    the network is isolated; Refused (capability_unavailable) when this host cannot isolate it."""
    setsid = shutil.which("setsid") or "/usr/bin/setsid"
    why = _works(network) or (None if os.access(setsid, os.X_OK) else "util-linux setsid is not installed")
    if why is not None:
        raise Refused(
            ReaError(
                code="capability_unavailable",
                message=f"A process capture runs in a private network namespace, and this host cannot make one: {why}.",
                details={"network_access": network, "reason": why},
                action="Install util-linux (unshare, setsid) and allow user namespaces, or run REA as root.",
            )
        )
    prefix = _network_prefix(network) or []
    isolation = (
        "private network namespace with no interface up (unshare --net)"
        if network == "none"
        else "private network namespace with only its own loopback up (unshare --net; ip link set lo up)"
    )
    return [*prefix, *observer, setsid, "--ctty", executable, *arguments], isolation


def launchers(argv: list[str]) -> set[str]:
    """The argv[0] values of the chain's steps before the executable (not samples of the target)."""
    return {argv[0], shutil.which("setsid") or "/usr/bin/setsid"} if len(argv) > 1 else set()
