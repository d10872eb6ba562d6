"""Portable PDB companions and the inventory's .NET roles: an mcs-built assembly, a PDB written from the spec."""

from __future__ import annotations

import hashlib
import shutil
import subprocess

import anyio
import pytest

from artifact_fixtures import make_zip
from managed_fixtures import SHA256_GUID, library, monodis_rows, needs_mono, portable_pdb
from mcp_client import connect, evidence
from support import clean_env, rea_command

pytestmark = [pytest.mark.slow, needs_mono]
SOURCES = [("/build/src/Library.cs", hashlib.sha256(b"library source").digest()),
           ("/build/src/Native.cs", hashlib.sha256(b"native source").digest())]  # fmt: skip


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("pdb")
    lib = library(out)
    methods = len(monodis_rows(lib, "method"))
    pdb = portable_pdb(out / "Library.pdb", SOURCES, methods=methods, with_points=2, method_rows=methods)
    bare = out / "bare"
    bare.mkdir()
    shutil.copy(lib, bare / "Library.exe")
    damaged = out / "damaged"
    damaged.mkdir()
    shutil.copy(lib, damaged / "Library.exe")
    (damaged / "Library.pdb").write_bytes(pdb.read_bytes()[:60])
    bundle = make_zip(out / "app.nupkg", {"lib/net45/Library.exe": lib.read_bytes(),
                                          "lib/net45/Library.pdb": pdb.read_bytes(), "readme.txt": b"hi\n"})  # fmt: skip
    return {"library": lib, "pdb": pdb, "methods": methods, "bare": bare / "Library.exe",
            "damaged": damaged / "Library.exe", "bundle": bundle}  # fmt: skip


def _calls(calls):
    async def main():
        async with connect() as s:
            return [await s.call_tool(name, args) for name, args in calls]

    return anyio.run(main)


def test_the_pdb_beside_the_assembly_is_read(built):
    replies = _calls([("inspect_managed_artifact", {"path": str(p)})
                      for p in (built["library"], built["bare"], built["damaged"])])  # fmt: skip
    pdb = evidence(replies[0])["normalized_result"]["portable_pdb"]
    assert pdb["path"] == str(built["pdb"]) and pdb["sha256"] == hashlib.sha256(built["pdb"].read_bytes()).hexdigest()
    assert pdb["status"] == "read" and pdb["issues"] == []
    assert [(d["name"], d["hash"], d["hash_algorithm"], d["language"]) for d in pdb["documents"]] == [
        (name, digest.hex(), "sha256", "csharp") for name, digest in SOURCES
    ]
    assert {d["hash_algorithm_guid"] for d in pdb["documents"]} == {SHA256_GUID}
    # one MethodDebugInformation row per MethodDef monodis lists; two with sequence points, as written
    assert pdb["method_debug_information"] == {"rows": built["methods"], "with_sequence_points": 2}
    assert pdb["referenced_method_rows"] == built["methods"]
    assert pdb["matches_assembly"] == "no-codeview-record"  # mcs writes no RSDS debug record
    assert evidence(replies[1])["normalized_result"]["portable_pdb"] is None
    damaged = evidence(replies[2])["normalized_result"]["portable_pdb"]
    assert damaged["status"] == "unreadable" and damaged["issues"] and damaged["documents"] == []


def test_the_inventory_names_dotnet_files_and_their_tool(built):
    replies = _calls([("open_binary", {"path": str(built["bundle"])}), ("inventory_artifact", {})])
    r = evidence(replies[1])["normalized_result"]
    by_path = {o["logical_path"]: o["artifact_id"] for o in r["occurrences"]["items"]}
    nodes = {n["artifact_id"]: n for n in r["nodes"]["items"]}
    assembly, pdb = nodes[by_path["lib/net45/Library.exe"]], nodes[by_path["lib/net45/Library.pdb"]]
    assert assembly["format"] == "pe" and assembly["managed"]["role"] == "assembly"
    assert pdb["managed"]["role"] == "portable-pdb"
    assert {assembly["managed"]["next_tool"], pdb["managed"]["next_tool"]} == {"inspect_managed_artifact"}
    assert "managed" not in nodes[by_path["readme.txt"]]


def test_a_native_pe_is_not_called_managed(tmp_path):
    if shutil.which("x86_64-w64-mingw32-gcc") is None:
        pytest.skip("mingw")
    (tmp_path / "n.c").write_text("int main(void) { return 0; }\n")
    exe = tmp_path / "native.exe"
    subprocess.run(["x86_64-w64-mingw32-gcc", "-o", str(exe), str(tmp_path / "n.c")], check=True)
    bundle = make_zip(tmp_path / "n.zip", {"bin/native.exe": exe.read_bytes()})
    replies = _calls([("open_binary", {"path": str(bundle)}), ("inventory_artifact", {})])
    nodes = evidence(replies[1])["normalized_result"]["nodes"]["items"]
    assert [n["format"] for n in nodes if "managed" in n] == [] and "pe" in {n["format"] for n in nodes}


def test_pdb_cli(built):
    out = subprocess.run([*rea_command(), "inspect-managed-artifact", str(built["library"])],
                         capture_output=True, text=True, env=clean_env(), check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert f"portable pdb {built['pdb']} read no-codeview-record documents 2 method debug rows" in out.stdout
