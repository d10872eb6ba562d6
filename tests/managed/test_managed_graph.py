"""project_managed_application_graph end to end: mcs-built assemblies, monodis as truth, the inventory linked."""

from __future__ import annotations

import subprocess

import anyio
import pytest

from artifact_fixtures import make_zip
from managed_fixtures import library, monodis_rows, needs_mono, signed
from mcp_client import connect, error, evidence
from support import clean_env, rea_command

pytestmark = [pytest.mark.slow, needs_mono]

INSPECTIONS = {
    "managed_artifact_evidence_id": "inspect_managed_artifact",
    "managed_members_evidence_id": "inspect_managed_members",
    "managed_native_boundaries_evidence_id": "inspect_managed_native_boundaries",
}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("graph")
    lib = library(out)
    bundle = make_zip(out / "app.nupkg", {"lib/net45/Library.exe": lib.read_bytes(), "readme.txt": b"hi\n"})
    return {"library": lib, "signed": signed(out), "bundle": bundle}


def _graph(built, extra_calls=()):
    async def main():
        async with connect() as s:
            ids = {arg: evidence(await s.call_tool(tool, {"path": str(built["library"])}))["evidence_id"]
                   for arg, tool in INSPECTIONS.items()}  # fmt: skip
            other = evidence(await s.call_tool("inspect_managed_artifact", {"path": str(built["signed"])}))
            await s.call_tool("open_binary", {"path": str(built["bundle"])})
            inventory = evidence(await s.call_tool("inventory_artifact", {}))
            ids["inventory_evidence_id"] = inventory["evidence_id"]
            first = await s.call_tool("project_managed_application_graph", ids)
            rest = [await s.call_tool("project_managed_application_graph", call(ids, other["evidence_id"]))
                    for call in extra_calls]  # fmt: skip
            return ids, inventory, first, rest

    return anyio.run(main)


def _labels(r, kind):
    return sorted(n["label"] for n in r["graph"]["nodes"] if n["kind"] == kind)


def test_graph_over_mcp_matches_monodis_and_links_the_inventory(built):
    lib = built["library"]
    ids, inventory, reply, _ = _graph(built)
    record = evidence(reply)
    r = record["normalized_result"]
    assert record["confidence"] == "derived" and record["evidence_links"] == list(ids.values())
    typedefs = monodis_rows(lib, "typedef")  # monodis lists <Module> too, as we do
    assert r["summary"]["types"] == len(typedefs)
    assert r["summary"]["methods"] == len(monodis_rows(lib, "method"))
    assert r["summary"]["fields"] == len(monodis_rows(lib, "fields"))
    refs = [row.split("Name=", 1)[1].split()[0] for row in subprocess.run(
        ["monodis", "--assemblyref", str(lib)], check=True, capture_output=True, text=True
    ).stdout.splitlines() if "Name=" in row]  # fmt: skip
    assert r["summary"]["assemblies"] == 1 + len(refs)
    assert r["summary"]["pinvoke_imports"] == len(monodis_rows(lib, "implmap")) == 3
    nodes = {n["node_id"]: n for n in r["graph"]["nodes"]}
    imports = [(nodes[e["source_node_id"]]["label"], e["kind"], nodes[e["target_node_id"]]["label"])
               for e in r["graph"]["edges"] if e["relation"] == "imports"]  # fmt: skip
    assert ("Fixture.Native.GetPid", "managed-pinvoke", "getpid") in imports
    assert sorted(t for s, k, t in imports if k == "references-assembly") == sorted(refs)
    # every method hangs off its declaring type; the P/Invoke edge rests on both the boundaries and members Evidence
    contains = {(e["target_node_id"]): e["source_node_id"] for e in r["graph"]["edges"] if e["relation"] == "contains"}
    for node in nodes.values():
        if node["kind"] == "managed-method":
            facts = node["observations"][0]["properties"]
            assert nodes[contains[node["node_id"]]]["label"] == facts["declaring_type"]
    pinvoke = next(e for e in r["graph"]["edges"] if e["kind"] == "managed-pinvoke")
    assert pinvoke["evidence"]["evidence_ids"] == [ids["managed_native_boundaries_evidence_id"],
                                                   ids["managed_members_evidence_id"]]  # fmt: skip
    # the file node is the nupkg entry the inventory lists: same art_ id, its logical path, the inventory Evidence
    root = nodes[r["graph"]["root_node_ids"][0]]
    entry = next(
        n for n in inventory["normalized_result"]["nodes"]["items"] if n["sha256"] == r["root_artifact_sha256"]
    )
    seen = root["observations"][-1]
    assert seen["evidence"]["evidence_ids"] == [ids["inventory_evidence_id"]]
    assert seen["properties"]["artifact_id"] == entry["artifact_id"] == seen["evidence"]["artifact"]["artifact_id"]
    assert seen["properties"]["logical_paths"] == ["lib/net45/Library.exe"]
    assert r["coverage"]["status"] == "complete-within-inputs" and r["projection_id"].startswith("magp_")
    assert len({n["node_id"] for n in r["graph"]["nodes"]}) == len(r["graph"]["nodes"])


def test_graph_bounds_and_refusals(built):
    calls = [
        lambda ids, other: {"managed_members_evidence_id": ids["managed_members_evidence_id"],
                            "limits": {"max_methods": 2, "max_types": 1}},
        lambda ids, other: {},
        lambda ids, other: {"managed_artifact_evidence_id": other,
                            "managed_members_evidence_id": ids["managed_members_evidence_id"]},
        lambda ids, other: {"managed_artifact_evidence_id": other, "inventory_evidence_id": ids["inventory_evidence_id"]},
        lambda ids, other: {"managed_artifact_evidence_id": ids["managed_members_evidence_id"]},
    ]  # fmt: skip
    _, _, _, rest = _graph(built, calls)
    cut = evidence(rest[0])["normalized_result"]
    assert cut["summary"]["methods"] == 2 and cut["summary"]["types"] == 1
    assert cut["coverage"]["status"] == "truncated" and cut["coverage"]["omitted_methods"] > 0
    assert cut["graph"]["coverage"]["truncated"] is True
    assert any("past max_methods" in text for text in cut["limitations"])
    assert cut["source_evidence"]["managed_artifact_evidence_id"] is None
    error(rest[1], "invalid_request")
    assert error(rest[2], "invalid_request")["details"]["accepted"].startswith("Evidence of one assembly")
    assert error(rest[3], "invalid_request")["details"]["field"] == "inventory_evidence_id"
    assert error(rest[4], "invalid_request")["details"]["field"] == "managed_artifact_evidence_id"


def test_graph_cli(built):
    out = subprocess.run([*rea_command(), "project-managed-application-graph", str(built["library"])],
                         capture_output=True, text=True, env=clean_env(), check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "Fixture.Native.GetPid -managed-pinvoke-> getpid" in out.stdout
    assert "-references-assembly-> mscorlib" in out.stdout
