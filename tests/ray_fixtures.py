"""A real Ray head on 127.0.0.1, started by a test and stopped after it.

`ray start --head --block` runs in its own session; every port it binds is a free port chosen
here (so it never meets another cluster on the machine), its state lives in a temporary
directory, and teardown kills exactly the processes it started (by pid, descendants included)
and verifies them gone. `ray stop` is never used: it stops every Ray of the user by name.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil

ROOT = str(Path(__file__).resolve().parents[1])


def free_port(avoid: range = range(0)) -> int:
    """A port free now, outside `avoid` (Ray refuses a component port inside its worker-port range)."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        if port not in avoid:
            return port


def ray_available() -> bool:
    return shutil.which("ray") is not None


def _descendants(proc: psutil.Process) -> list[psutil.Process]:
    try:
        return [proc, *proc.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _ready(address: str, env: dict[str, str], deadline: float, head_exited: Callable[[], bool]) -> bool:
    while time.monotonic() < deadline:
        if head_exited():
            return False
        probe = subprocess.run(
            ["ray", "status", "--address", address], env=env, capture_output=True, text=True, timeout=60
        )
        if probe.returncode == 0 and "CPU" in probe.stdout:
            return True
        time.sleep(1)
    return False


@contextlib.contextmanager
def ray_head(num_cpus: int = 2) -> Iterator[dict[str, object]]:
    """Yield {address, pid, processes()} of a fresh head; stopped and verified gone after."""
    # a short root: Ray's socket paths must stay under the 107-byte AF_UNIX limit
    temp = tempfile.mkdtemp(prefix="rr", dir="/tmp")
    low = 20000 + (os.getpid() % 400) * 100  # a worker-port range of our own
    workers = range(low, low + 100)
    port = free_port(workers)
    taken = [port]

    def fresh() -> int:  # free, outside the worker range, and distinct from the others chosen
        while (chosen := free_port(workers)) in taken:
            pass
        taken.append(chosen)
        return chosen

    # no token authentication: a token file another local Ray left in ~/.ray would otherwise switch it on
    env = {**os.environ, "PYTHONPATH": ROOT, "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}
    ports = {
        "--node-manager-port": fresh(),
        "--object-manager-port": fresh(),
        "--dashboard-agent-listen-port": fresh(),
        "--dashboard-agent-grpc-port": fresh(),
        "--runtime-env-agent-port": fresh(),
        "--metrics-export-port": fresh(),
    }
    cmd = [
        "ray", "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={port}",
        f"--num-cpus={num_cpus}", "--object-store-memory=100000000", "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp}",
        f"--min-worker-port={low}", f"--max-worker-port={low + 99}",
        *(f"{k}={v}" for k, v in ports.items()),
    ]  # fmt: skip
    log = open(os.path.join(temp, "head.log"), "wb")
    head = subprocess.Popen(
        cmd,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    address = f"127.0.0.1:{port}"
    root = psutil.Process(head.pid)
    seen: dict[int, psutil.Process] = {}
    try:
        if not _ready(address, env, time.monotonic() + 180, lambda: head.poll() is not None):
            tail = Path(temp, "head.log").read_text(errors="replace")[-3000:]
            raise RuntimeError(f"the Ray head at {address} did not come up:\n{tail}")

        def processes() -> list[psutil.Process]:
            for p in _descendants(root):
                seen.setdefault(p.pid, p)
            return [p for p in _descendants(root) if p.pid != head.pid]

        processes()
        yield {"address": address, "pid": head.pid, "processes": processes, "env": env}
    finally:
        for p in _descendants(root):
            seen.setdefault(p.pid, p)
        head.send_signal(signal.SIGTERM)
        try:
            head.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        for p in seen.values():
            with contextlib.suppress(psutil.NoSuchProcess):
                p.kill()
        _, alive = psutil.wait_procs(list(seen.values()), timeout=15)
        head.wait()
        log.close()
        shutil.rmtree(temp, ignore_errors=True)
        assert not alive, f"Ray processes survived teardown: {[p.pid for p in alive]}"
