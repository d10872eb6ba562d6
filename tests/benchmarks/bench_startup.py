"""`rea mcp` cold start: spawn, MCP initialize handshake, tools/list, over stdio.

Target: median wall time over 5 runs <= 0.8 s, from spawn to the tools/list
reply. Baseline (same spawn/timing, same runs interleaved): a fresh interpreter
doing only `import mcp.server.lowlevel` and printing a ready line (clock
stopped at that line, as the handshake stops at the reply), the SDK import every server built on
it pays. Raw newline-delimited JSON-RPC over the pipes, no client library.
Informational rows: an empty interpreter, `import effects.server`, and the
server spawned as `python -m effects.cli mcp` (no console-script launcher), plus
the five largest imports from `python -X importtime -c "import effects.server"`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any

import orjson

from tests.benchmarks import ROOT, Row, installed_env, median, verdict

BENCH = "startup"
TARGET_S = 0.8
RUNS = 5
TIMEOUT_S = 60.0
PROTOCOL = "2025-11-25"


def server_command() -> tuple[list[str], str]:
    exe = shutil.which("rea")
    if exe:
        return [exe, "mcp"], f"{exe} mcp"
    return [sys.executable, "-m", "effects.cli", "mcp"], "python -m effects.cli mcp"


def _launcher_note(cmd: list[str]) -> str:
    try:
        with open(cmd[0], "rb") as handle:
            first = handle.readline(200)
            rest = handle.read(400)
    except OSError:
        return ""
    if first.startswith(b"#!") and (b"bash" in first or first.rstrip().endswith(b"/sh")) and b"pyenv" in rest:
        return " (a pyenv shim: a bash launcher that runs `pyenv exec` before Python starts)"
    if first.startswith(b"#!") and b"python" in first:
        return " (a console-script launcher)"
    return ""


# Bytecode caches, as an installed package has them: this host exports PYTHONDONTWRITEBYTECODE=1, under which
# every start recompiles REA's own modules (about 40 ms; pip precompiles site-packages, so the SDK never pays
# it). The children write their caches under a private prefix, never into the tree; the warm-up fills it.
# BYTECODE = False measures the uncached start (reported as an info row).
PYCACHE = tempfile.mkdtemp(prefix="rea-bench-pycache-")
BYTECODE = True


def _env() -> dict[str, str]:
    env = installed_env(PYCACHE) if BYTECODE else dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    return env


def _message(method: str, ident: int | None = None, params: dict[str, Any] | None = None) -> bytes:
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if ident is not None:
        msg["id"] = ident
    if params is not None:
        msg["params"] = params
    return orjson.dumps(msg) + b"\n"


def _reply(proc: subprocess.Popen[bytes], ident: int) -> dict[str, Any]:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"server closed stdout before replying to request {ident} (exit {proc.poll()})")
        line = line.strip()
        if not line:
            continue
        msg = orjson.loads(line)
        if msg.get("id") == ident:
            if "error" in msg:
                raise RuntimeError(f"request {ident} failed: {msg['error']}")
            return msg["result"]


def handshake(cmd: list[str]) -> tuple[float, int]:
    """Seconds from spawn to the tools/list reply, and the number of tools listed."""
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, cwd=ROOT, env=_env())
        watchdog = threading.Timer(TIMEOUT_S, proc.kill)
        watchdog.start()
        try:
            assert proc.stdin is not None
            proc.stdin.write(
                _message(
                    "initialize",
                    1,
                    {
                        "protocolVersion": PROTOCOL,
                        "capabilities": {},
                        "clientInfo": {"name": "rea-bench", "version": "0"},
                    },
                )
            )
            proc.stdin.flush()
            init = _reply(proc, 1)
            proc.stdin.write(_message("notifications/initialized") + _message("tools/list", 2, {}))
            proc.stdin.flush()
            tools = _reply(proc, 2)["tools"]
            elapsed = time.perf_counter() - start
            if init.get("protocolVersion") != PROTOCOL:
                print(f"[{BENCH}] note: server negotiated {init.get('protocolVersion')!r}")
        except Exception:
            errors.seek(0)
            sys.stderr.write(errors.read().decode(errors="replace")[-2000:])
            raise
        finally:
            watchdog.cancel()
            if proc.stdin is not None and not proc.stdin.closed:
                proc.stdin.close()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
    return elapsed, len(tools)


def spawn_until_ready(code: str) -> float:
    """Seconds from spawn until `python -c code` prints its ready line (interpreter teardown not counted,
    as in the handshake, which stops the clock at the reply)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-c", code + "; print('ready', flush=True)"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=_env(),
    )
    watchdog = threading.Timer(TIMEOUT_S, proc.kill)
    watchdog.start()
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        elapsed = time.perf_counter() - start
        _, err = proc.communicate()
    finally:
        watchdog.cancel()
    if line.strip() != b"ready" or proc.returncode != 0:
        raise RuntimeError(f"python -c {code!r} exited {proc.returncode}: {err.decode(errors='replace')[-500:]}")
    return elapsed


def import_profile(
    module: str = "effects.server", top: int = 5
) -> tuple[list[tuple[int, int, str]], list[tuple[int, int, str]]]:
    """(self_us, cumulative_us, name) of the top imports by cumulative and by self time."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        capture_output=True,
        cwd=ROOT,
        env=_env(),
        timeout=TIMEOUT_S,
    )
    rows = []
    for line in done.stderr.decode(errors="replace").splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if m:
            rows.append((int(m.group(1)), int(m.group(2)), m.group(4)))
    cumulative = sorted((r for r in rows if r[2] != module), key=lambda r: -r[1])[:top]
    own = sorted(rows, key=lambda r: -r[0])[:top]
    return cumulative, own


def run() -> list[Row]:
    cmd, label = server_command()
    direct = [sys.executable, "-m", "effects.cli", "mcp"]
    cases: dict[str, Callable[[], float]] = {
        "server": lambda: handshake(cmd)[0],
        "sdk_import": lambda: spawn_until_ready("import mcp.server.lowlevel"),
        "python_empty": lambda: spawn_until_ready("pass"),
        "effects_import": lambda: spawn_until_ready("import effects.server"),
    }
    if cmd != direct:
        cases["server_direct"] = lambda: handshake(direct)[0]
    _, tool_count = handshake(cmd)  # warm-up (page cache, bytecode caches); also checks the reply
    for fn in cases.values():
        fn()
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(RUNS):  # interleaved so drift hits every case alike
        for name, fn in cases.items():
            times[name].append(fn())
    med = {name: median(ts) for name, ts in times.items()}
    ok = med["server"] <= TARGET_S

    print(f"[{BENCH}] server command: {label}{_launcher_note(cmd)}; tools listed: {tool_count}")
    for name, desc in (
        ("server", f"{label}: spawn -> initialize -> tools/list reply"),
        ("server_direct", "python -m effects.cli mcp: same handshake"),
        ("sdk_import", "python -c 'import mcp.server.lowlevel' (baseline)"),
        ("effects_import", "python -c 'import effects.server'"),
        ("python_empty", "python -c 'pass'"),
    ):
        if name in med:
            runs = " ".join(f"{t:.3f}" for t in times[name])
            print(f"  {desc:<62} median {med[name]:.3f} s  runs [{runs}]")
    print(
        f"  ratio server/sdk_import = {med['server'] / med['sdk_import']:.2f}x   "
        f"target median <= {TARGET_S} s: {verdict(ok)}"
    )
    cumulative, own = import_profile()
    print(
        "  -X importtime 'import effects.server', top 5 cumulative: "
        + ", ".join(f"{n} {c / 1e3:.0f} ms" for _, c, n in cumulative)
    )
    print("  top 5 self: " + ", ".join(f"{n} {s / 1e3:.0f} ms" for s, _, n in own))

    rows = [
        Row(
            BENCH,
            "rea mcp handshake (median)",
            med["server"],
            "s",
            "sdk import",
            med["sdk_import"],
            med["server"] / med["sdk_import"],
            f"<={TARGET_S} s",
            verdict(ok),
        )
    ]
    if "server_direct" in med:
        rows.append(
            Row(
                BENCH,
                "python -m effects.cli mcp",
                med["server_direct"],
                "s",
                "sdk import",
                med["sdk_import"],
                med["server_direct"] / med["sdk_import"],
                "",
                "info",
            )
        )
    rows.append(
        Row(
            BENCH,
            "import effects.server",
            med["effects_import"],
            "s",
            "sdk import",
            med["sdk_import"],
            med["effects_import"] / med["sdk_import"],
            "",
            "info",
        )
    )
    rows.append(
        Row(
            BENCH,
            "python -c pass",
            med["python_empty"],
            "s",
            "sdk import",
            med["sdk_import"],
            med["python_empty"] / med["sdk_import"],
            "",
            "info",
        )
    )
    global BYTECODE
    BYTECODE = False  # the same handshake with no bytecode cache for REA's modules (PYTHONDONTWRITEBYTECODE=1)
    try:
        uncached = median(handshake(cmd)[0] for _ in range(3))
    finally:
        BYTECODE = True
        shutil.rmtree(PYCACHE, ignore_errors=True)
    print(f"  without bytecode caches (PYTHONDONTWRITEBYTECODE=1, as this host exports): median {uncached:.3f} s")
    rows.append(
        Row(
            BENCH,
            "rea mcp handshake, no bytecode cache",
            uncached,
            "s",
            "sdk import",
            med["sdk_import"],
            uncached / med["sdk_import"],
            "",
            "info",
        )
    )
    return rows


if __name__ == "__main__":
    from tests.benchmarks import table

    print(table(run()))
