"""inspect_recorded_crash on real cores of gcc-built programs that crash, over MCP and the CLI.

Ground truth comes from readers that share nothing with REA's decoder: readelf (program
headers, note owners, types and sizes) and gdb with the executable (registers).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest

from layout_fixtures import make_core
from mcp_client import connect, error, evidence
from support import clean_env, rea_command

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("readelf") is None, reason="gcc, readelf")


@pytest.fixture(scope="module")
def crashed(tmp_path_factory) -> tuple[Path, Path]:
    return make_core(tmp_path_factory.mktemp("crash"))


def readelf_notes(core: Path) -> list[tuple[str, int, str]]:
    out = subprocess.run(["readelf", "-nW", str(core)], capture_output=True, text=True, check=True).stdout
    rows = re.findall(r"^\s+(\S+)\s+0x([0-9a-f]+)\s+(NT_\w+|Unknown note type: \(0x[0-9a-f]+\))", out, re.M)
    return [(owner, int(size, 16), kind) for owner, size, kind in rows]


def readelf_segments(core: Path) -> list[tuple[str, int, int]]:
    out = subprocess.run(["readelf", "-lW", str(core)], capture_output=True, text=True, check=True).stdout
    rows = re.findall(r"^\s+(NOTE|LOAD)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)", out, re.M)
    return [(kind, int(offset, 16), int(vaddr, 16)) for kind, offset, vaddr in rows]


def gdb_registers(exe: Path, core: Path) -> dict[str, int]:
    out = subprocess.run(
        ["gdb", "-nx", "-batch", "-ex", "info registers rip rsp rbp rax", str(exe), str(core)],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    return {m[0]: int(m[1], 16) for m in re.findall(r"^(rip|rsp|rbp|rax)\s+0x([0-9a-f]+)", out, re.M)}


def inspect(core: Path, **extra) -> dict:
    async def main():
        async with connect() as s:
            return await s.call_tool("inspect_recorded_crash", {"path": str(core), **extra})

    return evidence(anyio.run(main))


@pytest.mark.slow
def test_a_real_core_matches_readelf_and_gdb(crashed):
    exe, core = crashed
    ev = inspect(core)
    r = ev["normalized_result"]
    assert (
        r["artifact"]["sha256"] == ev["subject"]["digest"]["sha256"] and r["artifact"]["bytes"] == core.stat().st_size
    )
    truth = readelf_segments(core)
    got = [(s["type"].removeprefix("PT_"), int(s["offset"], 16), int(s["virtual_address"], 16)) for s in r["segments"]]
    assert got == truth
    truth_notes = readelf_notes(core)
    assert [(n["owner_display"], int(n["descriptor_location"]["bytes"], 16)) for n in r["notes"]] == [
        (owner, size) for owner, size, _ in truth_notes
    ]
    assert all(n["type"] == kind for n, (_, _, kind) in zip(r["notes"], truth_notes) if kind.startswith("NT_"))
    assert len(r["threads"]) == 2  # the crashing main thread and the spinning one
    regs = {x["name"]: int(x["value"], 16) for x in r["threads"][0]["registers"]}
    assert len(r["threads"][0]["registers"]) == 27
    truth_regs = gdb_registers(exe, core)
    assert truth_regs and all(regs[name] == value for name, value in truth_regs.items())
    (sig,) = r["signals"]
    assert (sig["number"], sig["code"], sig["fault_address"]) == (11, 1, "0x1234")
    assert r["process"]["command"] == "crash" and r["process"]["historical_pid"] == r["threads"][0]["historical_pid"]
    assert any(m["path"] == str(exe) for m in r["mapped_files"])
    assert r["debugger"] == {"status": "not-requested"} and r["target_execution"] == "not-performed"
    # every register's bytes are where the record says
    raw = core.read_bytes()
    rip = next(x for x in r["threads"][0]["registers"] if x["name"] == "rip")
    at = int(rip["location"]["offset"], 16)
    assert int.from_bytes(raw[at : at + 8], "little") == regs["rip"]


@pytest.mark.slow
def test_gdb_context_and_the_cli(crashed):
    exe, core = crashed
    r = inspect(core, include_debugger_context=True)["normalized_result"]
    debugger = r["debugger"]
    assert debugger["status"] == "available" and debugger["gdb_version"].startswith("GNU gdb")
    assert debugger["historical_pid"] == r["threads"][0]["historical_pid"]
    assert {m["pathname_display"] for m in debugger["maps"]} >= {str(exe)}
    assert all(m["permissions"] is None for m in debugger["maps"] if m["reported_flags"] == 0)
    assert debugger["frames"] and debugger["frames"][0].startswith("#0")
    out = subprocess.run(
        [*rea_command(), "inspect-recorded-crash", str(core)], capture_output=True, text=True, env=clean_env()
    )
    assert out.returncode == 0, out.stderr
    assert "signal 11 code 1 at 0x1234" in out.stdout and "thread" in out.stdout
    out = subprocess.run(
        [*rea_command(), "inspect-recorded-crash", str(core), "--json"], capture_output=True, text=True, env=clean_env()
    )
    assert json.loads(out.stdout)["normalized_result"]["signals"][0]["fault_address"] == "0x1234"


@pytest.mark.slow
def test_what_is_not_a_core_is_refused_and_a_truncated_core_says_so(crashed, tmp_path):
    exe, core = crashed
    cut = tmp_path / "cut.core"
    cut.write_bytes(core.read_bytes()[: core.stat().st_size // 2])
    empty = tmp_path / "empty"
    empty.write_bytes(b"")

    async def main():
        async with connect() as s:
            calls = {"exe": str(exe), "empty": str(empty), "cut": str(cut), "missing": str(tmp_path / "none")}
            out = {k: await s.call_tool("inspect_recorded_crash", {"path": v}) for k, v in calls.items()}
            out["relative"] = await s.call_tool("inspect_recorded_crash", {"path": "core"})
            return out

    out = anyio.run(main)
    assert error(out["exe"], "invalid_request")["details"]["reason"] == "not-core"
    assert error(out["empty"], "invalid_request")["details"]["reason"] == "not-elf"
    error(out["missing"], "target_unavailable")
    assert "relative" in error(out["relative"], "invalid_request")["message"]
    cut_result = evidence(out["cut"])["normalized_result"]
    assert any("truncated" in text for text in cut_result["limitations"])
    assert cut_result["threads"]  # the notes sit at the front: still read


def test_owned_gdb_leaves_nothing_behind(crashed):
    """The gdb child runs in its own group and is verified gone (no gdb left whose argv names this core)."""
    _, core = crashed
    inspect(core, include_debugger_context=True)
    import psutil

    for proc in psutil.process_iter(["cmdline"]):
        cmd = proc.info["cmdline"] or []
        assert not (cmd and os.path.basename(cmd[0]) == "gdb" and str(core) in cmd)
