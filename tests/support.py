"""Shared test builders: real Evidence records and real bundle files made by REA's own code."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from rea.bundle import bundle_chunks
from rea.evidence import Evidence, Provider, Subject, create_evidence, create_profile
from rea.session import Session, record

PROVIDER = Provider(id="fixture-engine", name="Fixture engine", version="1.0")
PROFILE = create_profile(PROVIDER, 1, {"cfg": "fast", "decompiler": {"structurer": "phoenix"}})


def make_evidence(
    i: int, *, payload_bytes: int = 200, sha: str | None = None, operation: str = "analyze_function"
) -> Evidence:
    subject = Subject(
        name=f"bin{i % 3}",
        sha256=sha or f"{i % 3:064x}",
        format="elf",
        architecture="x86_64",
        local_path=f"/tmp/bin{i % 3}",
    )
    return create_evidence(
        provider=PROVIDER,
        operation=operation,
        parameters={"address": f"0x{0x401000 + i:x}"},
        normalized_result={
            "procedure": {"address": f"0x{0x401000 + i:x}", "name": f"fn_{i}"},
            "pseudocode": "x" * payload_bytes,
            "score": i / 7,
        },
        subject=subject,
        analysis_profile=PROFILE,
        locations=[{"kind": "address", "address": f"0x{0x401000 + i:x}"}],
    ).unwrap()


def ledger(n: int, **kw: Any) -> Session:
    return record(Session(), (make_evidence(i, **kw) for i in range(n)))


def write_bundle(path: Path, session: Session) -> Path:
    with open(path, "wb") as handle:
        for chunk in bundle_chunks(session):
            handle.write(chunk)
    return path


NPM_FIXTURES = (
    Path(__file__).parent / "fixtures"
)  # tests/fixtures/{conformance,asar,evm,javascript,javascript-webpack4}


def npm_fixture(directory: Path) -> Path:
    """A fixture directory's node_modules, installed from its lockfile by `sh scripts/setup test`.

    A test run never reaches a registry: a missing install fails the test with the command
    that fixes it (a skip would hide that a whole family went untested)."""
    import json
    import shutil

    import pytest

    if shutil.which("node") is None:
        pytest.fail("Node.js is not installed: run sh scripts/setup test")
    wanted = json.loads((directory / "package.json").read_text()).get("dependencies", {})
    missing = [name for name in wanted if not (directory / "node_modules" / name / "package.json").exists()]
    if missing:
        pytest.fail(
            f"the npm fixture {directory.name}/ is not installed (missing {', '.join(missing)}): "
            "run sh scripts/setup test"
        )
    return directory / "node_modules"


def rea_command() -> list[str]:
    """The installed console script when present, else the same entry point through this interpreter."""
    exe = Path(sys.executable).parent / "rea"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "effects.cli"]


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REA_")}
    env.update(extra)
    return env


class RawMcp:
    """`rea mcp` over a real stdio pipe, spoken as raw JSON-RPC lines, so a test sees the exact bytes."""

    def __init__(self, unbuffered: bool = False, **env: str) -> None:
        import subprocess

        self.proc = subprocess.Popen(
            [*rea_command(), "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=clean_env(**env),
            bufsize=0 if unbuffered else -1,  # unbuffered: select() then tells whether anything was sent
        )
        self.next_id = 100
        self.notifications: list[dict[str, Any]] = []
        self.request(
            "initialize",
            {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        import json

        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def receive(self) -> dict[str, Any]:
        import json

        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, "the server closed its stdout"
        return json.loads(line)

    def request(self, method: str, params: dict[str, Any]) -> bytes:
        """The raw line of the reply (notifications before it are kept in `notifications`)."""
        import json

        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            assert line, "the server closed its stdout"
            message = json.loads(line)
            if message.get("id") == self.next_id and "method" not in message:
                return line
            if message.get("method") == "ping" and "id" in message:  # a client answers the server's pings
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": {}})
                continue
            self.notifications.append(message)

    def call(self, name: str, arguments: dict[str, Any]) -> bytes:
        return self.request("tools/call", {"name": name, "arguments": arguments})

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()

    def __enter__(self) -> RawMcp:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
