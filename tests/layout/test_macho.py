"""list_architectures on universal and thin Mach-O files, against Go's debug/macho (an independent reader).

Files: the Go toolchain's Mach-O test binaries (Debian golang-1.19-src) and
universal files assembled around them by the test, including lying headers.
"""

from __future__ import annotations

import json
import struct
import subprocess
from pathlib import Path

import anyio
import pytest
from returns.result import Failure, Success

from artifact_fixtures import call, run_tools
from layout_fixtures import fat, go_fat_arches, go_macho, go_read_macho, hardened
from mcp_client import connect, error, evidence
from support import clean_env, rea_command


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
            listed_ = await s.call_tool("list_architectures", {})
            macho = await s.call_tool("inspect_macho", {"architecture": "x86_64", "detail": "summary"})
            ref = {
                "kind": "retained-evidence",
                "evidence_id": macho.structured_content["normalized_result"]["parent_evidence_id"],
            }
            page = await s.call_tool(
                "inspect_analysis_view", {"source": ref, "view": {"kind": "macho", "facet": "dependencies"}}
            )
            return none, listed_, macho, page

    none, listed_, macho, page = anyio.run(main)
    summary = evidence(macho)["normalized_result"]
    assert summary["kind"] == "summary" and summary["summary"]["slice"] == "x86_64"
    body = evidence(page)["normalized_result"]
    assert (
        body["kind"] == "macho" and body["source_total"] == summary["summary"]["collections"]["dependencies"]["total"]
    )
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
    macho = subprocess.run(
        [*rea_command(), "inspect-macho", str(universal), "--architecture", "x86_64"],
        capture_output=True,
        text=True,
        env=clean_env(),
    )
    assert macho.returncode == 0 and "/usr/lib/libSystem.B.dylib" in macho.stdout and "segment __TEXT" in macho.stdout


Z3 = "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/z3/lib/libz3.dylib"


def inspected(path, **args):
    replies, conn = run_tools([("open_binary", {"path": str(path)}), ("inspect_macho", args)])
    assert isinstance(replies[1], Success), replies[1].failure()
    return replies[1].unwrap(), conn


def test_inspect_macho_matches_go(tmp_path):
    exe = go_macho("clang-amd64-darwin-exec-with-rpath", tmp_path)
    ev, _ = inspected(exe)
    nr = ev["normalized_result"]
    (want,) = go_read_macho(exe, tmp_path)
    assert nr["format"] == "mach-o" and nr["word_size"] == 64 and nr["endian"] == "little"
    assert nr["file_type"] == "MH_EXECUTE" and nr["uuid"] == want["Uuid"] and nr["uuid"]
    assert [d["path"] for d in nr["dependencies"]["items"]] == want["Libraries"]
    assert sorted(i["name"] for i in nr["imports"]["items"]) == sorted(want["Imported"])
    assert [(s["name"], int(s["vm_address"], 16), s["vm_size"]) for s in nr["segments"]["items"]] == [
        (s["Name"], s["Addr"], s["Memsz"]) for s in want["Segments"]
    ]
    sections = [x for s in nr["segments"]["items"] for x in s["sections"]["items"]]
    assert [(x["segment"], x["name"], int(x["address"], 16), x["size"]) for x in sections] == [
        (s["Seg"], s["Name"], s["Addr"], s["Size"]) for s in want["Sections"]
    ]
    rpath = next(c for c in nr["load_commands"]["items"] if c["kind"] == "LC_RPATH")
    assert rpath["fields"]["path"] == "/my/rpath"
    assert nr["build_metadata"]["items"][0]["platform"] == "macos" and nr["entrypoints"]["items"]
    assert all(nr[k]["exhaustive"] for k in ("imports", "exports", "segments", "load_commands"))


def test_inspect_macho_slices_caps_and_views(tmp_path):
    universal = go_macho("fat-gcc-386-amd64-darwin-exec", tmp_path)
    replies, _ = run_tools([("open_binary", {"path": str(universal)}), ("inspect_macho", {})])
    # no architecture: the slice open_binary selected (x86_64, the host-preferred one)
    assert replies[1].unwrap()["normalized_result"]["slice"] == "x86_64"
    ev, conn = inspected(universal, architecture="i386", max_symbols=1)
    nr = ev["normalized_result"]
    assert nr["slice"] == "i386" and nr["word_size"] == 32 and len(nr["architectures"]["items"]) == 2
    capped = [k for k in ("imports", "exports") if not nr[k]["exhaustive"]]
    assert capped and all(len(nr[k]["items"]) == 1 for k in capped)
    ref = {"kind": "retained-evidence", "evidence_id": ev["evidence_id"]}
    summary, _ = call("inspect_analysis_view", {"source": ref, "view": {"kind": "summary"}}, conn)
    s = summary.unwrap()["normalized_result"]["summary"]
    assert s["slice"] == "i386" and s["collections"]["imports"]["total"] == nr["imports"]["total"]
    rows, offset = [], 0
    while offset is not None:
        page, _ = call(
            "inspect_analysis_view",
            {"source": ref, "view": {"kind": "macho", "facet": "load_commands", "offset": offset, "limit": 3}},
            conn,
        )
        body = page.unwrap()["normalized_result"]
        assert body["source_total"] == nr["load_commands"]["total"] and body["source_exhaustive"] is True
        rows += body["item"]
        offset = body["coverage"]["next_offset"]
    assert rows == nr["load_commands"]["items"]
    partial, _ = call("inspect_analysis_view", {"source": ref, "view": {"kind": "macho", "facet": capped[0]}}, conn)
    assert partial.unwrap()["normalized_result"]["source_exhaustive"] is False


@pytest.mark.skipif(not Path(Z3).exists(), reason="z3-solver 4.13.0.0's libz3.dylib is not installed")
def test_a_signed_arm64_dylib_from_pypi(tmp_path):
    """libz3.dylib as the PyPI z3-solver 4.13.0.0 wheel on this machine ships it (arm64, signed)."""
    ev, _ = inspected(Z3, detail="summary")
    s = ev["normalized_result"]["summary"]
    assert s["file_type"] == "MH_DYLIB" and s["install_name"] == "libz3.dylib"
    (want,) = go_read_macho(Path(Z3), tmp_path)
    full, _ = inspected(Z3)
    nr = full["normalized_result"]
    assert [d["path"] for d in nr["dependencies"]["items"]] == [
        lib for lib in want["Libraries"] if lib != "libz3.dylib"
    ]
    assert nr["uuid"] == want["Uuid"] and s["collections"]["exports"]["total"] == nr["exports"]["total"] > 100
    layout, _ = call("inspect_binary_layout", {"path": Z3})
    mitigations = layout.unwrap()["normalized_result"]["mitigations"]["macho"]
    assert mitigations["code_signature"] is True and mitigations["hardened_runtime"] is False
