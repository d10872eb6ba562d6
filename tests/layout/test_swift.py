"""demangle_swift: typed unavailability without a Swift toolchain, and the run path with a stand-in.

No Swift toolchain installs from this project's registries, so swift-demangle
cannot exist here; the stand-in script below plays its documented interface
(--compact, one symbol per stdin line, unmangled input echoed) and says so.
"""

from __future__ import annotations

import json
import subprocess

import anyio
import pytest

from artifact_fixtures import call
from mcp_client import connect, error
from support import clean_env, rea_command

STAND_IN = """#!/bin/sh
# stands in for swift-demangle (no Swift toolchain can be installed here)
if [ "$1" = "--version" ]; then echo "Swift version 0.0 (stand-in)"; exit 0; fi
while IFS= read -r line; do
  case "$line" in
    '$s4Test3fooyyF') echo 'Test.foo() -> ()' ;;
    *) echo "$line" ;;
  esac
done
"""


def test_without_a_toolchain_the_answer_is_typed_unavailability(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    reply, _ = call("demangle_swift", {"symbols": ["$s4Test3fooyyF"]})
    failure = reply.failure()
    assert failure.code == "capability_unavailable" and failure.details["reason"] == "provider_missing"
    assert "swift-demangle" in failure.action and "PATH" in failure.action


def test_with_swift_demangle_each_symbol_gets_its_line(monkeypatch, tmp_path):
    tool = tmp_path / "swift-demangle"
    tool.write_text(STAND_IN)
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    reply, _ = call("demangle_swift", {"symbols": ["$s4Test3fooyyF", "main", "$sBogus"]})
    nr = reply.unwrap()["normalized_result"]
    assert [(r["output"], r["status"]) for r in nr["symbols"]] == [
        ("Test.foo() -> ()", "demangled"),
        ("main", "unchanged"),
        ("$sBogus", "invalid"),  # a Swift prefix it could not demangle
    ]
    (run,) = nr["provenance"]
    assert run["command"] == ["swift-demangle", "--compact"] and run["exit"] == {"code": 0, "signal": None}
    assert run["tool_version"] == "Swift version 0.0 (stand-in)"


def test_input_bounds_are_validated():
    assert call("demangle_swift", {"symbols": []})[0].failure().code == "invalid_request"
    assert call("demangle_swift", {"symbols": ["x" * 5000]})[0].failure().code == "invalid_request"


@pytest.mark.slow
def test_demangle_over_mcp_and_cli(tmp_path):
    env = {"PATH": str(tmp_path)}  # no swift-demangle here

    async def main():
        async with connect(**env) as s:
            return await s.call_tool("demangle_swift", {"symbols": ["$s4Test3fooyyF"]})

    error(anyio.run(main), "capability_unavailable")
    out = subprocess.run(
        [*rea_command(), "demangle-swift", "$s4Test3fooyyF", "--json"],
        capture_output=True,
        text=True,
        env=clean_env(**env),
    )
    assert out.returncode == 1 and json.loads(out.stdout)["error"]["code"] == "capability_unavailable"
