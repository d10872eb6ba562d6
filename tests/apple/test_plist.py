"""inspect_plist over MCP and the CLI: XML written by hand, binary and JSON plists, a bundle directory,
and hostile plists (entity declarations, an exponential binary DAG, deep nesting, garbage)."""

from __future__ import annotations

import json
import plistlib
import subprocess

import anyio
import pytest

from apple_fixtures import INFO
from mcp_client import connect, error, evidence
from support import clean_env, rea_command

BOMB = """<?xml version="1.0"?>
<!DOCTYPE plist [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
<plist version="1.0"><string>&b;</string></plist>
"""


def _dag(depth: int) -> list:
    node: list = ["leaf"]
    for _ in range(depth):
        node = [node] * 10  # one object referenced ten times: plistlib writes it once
    return node


@pytest.mark.slow
def test_plists_over_mcp(tmp_path):
    bundle = tmp_path / "Demo.app"
    (bundle / "Contents").mkdir(parents=True)
    (bundle / "Contents/Info.plist").write_text(INFO)
    binary = tmp_path / "prefs.plist"
    binary.write_bytes(plistlib.dumps({"a": [1, 2, {"b": b"\x00\xff"}]}, fmt=plistlib.FMT_BINARY))
    as_json = tmp_path / "manifest.plist"
    as_json.write_text('{"CFBundleIdentifier": "com.example.json", "n": [1, 2]}')
    bomb, dag, garbage = tmp_path / "bomb.plist", tmp_path / "dag.plist", tmp_path / "junk.plist"
    bomb.write_text(BOMB)
    dag.write_bytes(plistlib.dumps(_dag(8), fmt=plistlib.FMT_BINARY))
    garbage.write_bytes(b"bplist00" + bytes(range(200)))

    async def main():
        async with connect() as s:
            out = {"none": await s.call_tool("inspect_plist", {})}
            await s.call_tool("open_binary", {"path": str(bundle)})
            out["info"] = await s.call_tool("inspect_plist", {})
            out["escape"] = await s.call_tool("inspect_plist", {"relative_path": "../../etc/passwd"})
            for name, path in (("binary", binary), ("json", as_json), ("bomb", bomb), ("dag", dag), ("junk", garbage)):
                out[name] = await s.call_tool("inspect_plist", {"path": str(path), "max_nodes": 10_000})
            return out

    out = anyio.run(main)
    error(out["none"], "target_unavailable")
    info = evidence(out["info"])["normalized_result"]
    assert info["format"] == "xml" and info["source_path"] == str(bundle / "Contents/Info.plist")
    assert info["bundle"] == {
        "identifier": "com.example.Demo",
        "executable": "Demo",
        "name": "Demo",
        "version": "42",
        "short_version": "1.2.3",
    }
    v = info["value"]
    assert v["Icon"] == {"$data": "AAEC"} and v["Built"] == {"$date": "2026-01-02T03:04:05"}
    assert v["Big"] == {"$integer": "18446744073709551615"} and v["Flags"] == [True, False, 1.5]
    assert error(out["escape"], "invalid_request")["details"]["field"] == "relative_path"
    binary_result = evidence(out["binary"])["normalized_result"]
    assert binary_result["format"] == "binary" and binary_result["value"] == {"a": [1, 2, {"b": {"$data": "AP8="}}]}
    assert evidence(out["json"])["normalized_result"]["bundle"]["identifier"] == "com.example.json"
    assert error(out["bomb"], "invalid_request")["details"]["reason"] == "malformed"  # entity declarations refused
    dag_result = evidence(out["dag"])["normalized_result"]
    assert any("max_nodes" in t for t in dag_result["limitations"])  # 10^8 nodes unfolded: cut at 10,000
    assert error(out["junk"], "invalid_request")["details"]["reason"] == "malformed"


@pytest.mark.slow
def test_plist_cli(tmp_path):
    bundle = tmp_path / "Demo.app"
    (bundle / "Contents").mkdir(parents=True)
    (bundle / "Contents/Info.plist").write_text(INFO)
    out = subprocess.run(
        [*rea_command(), "inspect-plist", str(bundle)], capture_output=True, text=True, env=clean_env()
    )
    assert out.returncode == 0, out.stderr
    assert "bundle com.example.Demo executable=Demo version=1.2.3 (42)" in out.stdout
    out = subprocess.run(
        [*rea_command(), "inspect-plist", str(bundle / "Contents/Info.plist"), "--json"],
        capture_output=True,
        text=True,
        env=clean_env(),
    )
    assert json.loads(out.stdout)["normalized_result"]["value"]["LSMinimumSystemVersion"] == "11.0"
