"""list_architectures on universal and thin Mach-O files, against Go's debug/macho (an independent reader).

Files: the Go toolchain's Mach-O test binaries (Debian golang-1.19-src) and
universal files assembled around them by the test, including lying headers.
"""

from __future__ import annotations

import json
import struct
import subprocess

import anyio
import pytest
from returns.result import Failure, Success

from artifact_fixtures import run_tools
from layout_fixtures import fat, go_fat_arches, go_macho, hardened
from support import clean_env, rea_command
from test_artifact_mcp import error, evidence
from test_mcp_e2e import connect


def listed(path):
    replies, _ = run_tools([("open_binary", {"path": str(path)}), ("list_architectures", {})])
    assert isinstance(replies[0], Success), replies[0]
    return replies[1]


def test_universal_slices_match_go(tmp_path):
    shipped = go_macho("fat-gcc-386-amd64-darwin-exec", tmp_path)
    for path in (
        shipped,
        fat(
            tmp_path,
            [
                (7, 3, go_macho("gcc-386-darwin-exec", tmp_path).read_bytes()),
                (0x01000007, 3, go_macho("gcc-amd64-darwin-exec", tmp_path).read_bytes()),
                (0x0100000C, 2, go_macho("gcc-amd64-darwin-exec", tmp_path).read_bytes()),
            ],
            align=14,
        ),
    ):
        ev = listed(path).unwrap()
        got = ev["normalized_result"]["architectures"]
        want = go_fat_arches(path, tmp_path)
        assert got["total"] == len(want) and got["exhaustive"] is True
        assert [(r["file_offset"], r["size"], r["alignment"]) for r in got["items"]] == [
            (a["Offset"], a["Size"], 1 << a["Align"]) for a in want
        ]
        assert all(r["universal"] for r in got["items"]) and ev["subject"]["format"] == "mach-o-universal"
    names = [r["name"] for r in got["items"]]
    assert names == ["i386", "x86_64", "arm64e"]
    assert [r["cpu_type"] for r in got["items"]] == ["CPU_TYPE_X86", "CPU_TYPE_X86_64", "CPU_TYPE_ARM64"]
    assert got["items"][2]["cpu_subtype"] == "CPU_SUBTYPE_ARM64E"


def test_thin_file_and_refusals(tmp_path):
    thin = go_macho("gcc-amd64-darwin-exec", tmp_path)
    (row,) = listed(thin).unwrap()["normalized_result"]["architectures"]["items"]
    assert row == {
        "name": "x86_64",
        "cpu_type": "CPU_TYPE_X86_64",
        "cpu_subtype": "CPU_SUBTYPE_X86_64_ALL",
        "file_offset": 0,
        "size": thin.stat().st_size,
        "alignment": None,
        "universal": False,
    }
    elf = listed(hardened(tmp_path))
    assert isinstance(elf, Failure) and elf.failure().code == "invalid_request"
    assert "Mach-O" in elf.failure().details["accepted"]
    good = fat(tmp_path, [(7, 3, thin.read_bytes()), (0x01000007, 3, thin.read_bytes())]).read_bytes()
    lying = bytearray(good)
    struct.pack_into(">I", lying, 8 + 20 + 12, len(good) * 2)
    path = tmp_path / "lying"
    path.write_bytes(bytes(lying))
    refused = listed(path)
    assert refused.failure().code == "invalid_request" and refused.failure().details["reason"] == "malformed"
    replies, _ = run_tools([("list_architectures", {})])
    assert replies[0].failure().code == "target_unavailable"


@pytest.mark.slow
def test_list_architectures_over_mcp_and_cli(tmp_path):
    universal = go_macho("fat-gcc-386-amd64-darwin-exec", tmp_path)

    async def main():
        async with connect() as s:
            none = await s.call_tool("list_architectures", {})
            await s.call_tool("open_binary", {"path": str(universal)})
            return none, await s.call_tool("list_architectures", {})

    none, listed_ = anyio.run(main)
    error(none, "target_unavailable")
    items = evidence(listed_)["normalized_result"]["architectures"]["items"]
    assert [r["name"] for r in items] == ["i386", "x86_64"]
    out = subprocess.run(
        [*rea_command(), "list-architectures", str(universal), "--json"],
        capture_output=True,
        text=True,
        env=clean_env(),
    )
    assert out.returncode == 0 and len(json.loads(out.stdout)["normalized_result"]["architectures"]["items"]) == 2
    text = subprocess.run(
        [*rea_command(), "list-architectures", str(universal)], capture_output=True, text=True, env=clean_env()
    )
    assert "x86_64" in text.stdout and "offset 20480" in text.stdout
