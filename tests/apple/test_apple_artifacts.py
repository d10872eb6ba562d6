"""The Apple artifacts family on real inputs, each checked against a reader or writer other than ours.

- keyed archives: written by plistlib in the NSKeyedArchiver layout, and by bpylist2's archiver (an
  independent NSKeyedArchiver writer); the expected table is what those writers put in $objects;
- compiled nibs and a storyboard: compiled by Apple's ibtool (tests/fixtures/apple/sources/README.md);
  the NIBArchive tables are checked against the nibarchive package's reader, the connections against the
  .xib/.storyboard sources ibtool compiled;
- the asset catalog: compiled by Apple's actool; asset and rendition names against the Contents.json of
  the image sets it was compiled from;
- the application graph: an .app tree and an IPA made here, inventoried by inventory_artifact.
Every tool is also called through MCP and through `rea call`.
"""

from __future__ import annotations

import json
import plistlib
import subprocess
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Any

import anyio
import pytest

from apple_fixtures import APP, FIXTURES, UID, cyclic_archive, make_app
from mcp_client import connect
from rea.apple_artifacts import car, keyed, nib
from rea.apple_artifacts.interface_graph import DecodedDocument, build
from rea.wire.convert import to_wire
from support import clean_env, rea_command

RESOURCES = APP / "Contents" / "Resources"
SOURCES = FIXTURES / "sources"
LIMITS = {"max_objects": 20_000, "max_connections": 40_000}


def as_xml_uids(value: Any) -> Any:
    """plistlib writes UIDs in binary plists only; XML keyed archives spell them {"CF$UID": n}, as Foundation does."""
    if isinstance(value, UID):
        return {"CF$UID": value.data}
    if isinstance(value, dict):
        return {k: as_xml_uids(v) for k, v in value.items()}
    return [as_xml_uids(v) for v in value] if isinstance(value, list) else value


def dump(archive: dict[str, Any], fmt: Any) -> bytes:
    return plistlib.dumps(archive if fmt == plistlib.FMT_BINARY else as_xml_uids(archive), fmt=fmt)


def _project(data: bytes, **page: Any) -> dict[str, Any]:
    value, _ = keyed.plist_json(plistlib.loads(data), data.startswith(b"bplist00"))
    return to_wire(keyed.project(value, page.get("root"), page.get("offset", 0), page.get("limit", 20_000)).unwrap())


@pytest.mark.parametrize("fmt", [plistlib.FMT_BINARY, plistlib.FMT_XML])
def test_a_cyclic_keyed_archive_is_a_table_of_links_never_a_recursion(fmt):
    written = cyclic_archive()
    graph = _project(dump(written, fmt))
    assert [o["id"] for o in graph["objects"]] == list(range(len(written["$objects"])))
    assert [o["kind"] for o in graph["objects"]] == ["nil", "archived-object", "archived-object", "class-descriptor"]
    assert graph["objects"][1]["class_name"] == "Node" and graph["objects"][1]["class_id"] == 3
    links = {(r["source"], tuple(r["path"])): (r["target"], r["status"]) for r in graph["references"]}
    assert links[(1, ("next",))] == (2, "resolved") and links[(2, ("next",))] == (1, "resolved")  # the cycle
    assert links[(1, ("missing",))] == (0, "nil")
    assert links[(2, ("dangling",))] == (40, "unresolved")
    assert links[(None, ("root",))] == (1, "resolved")
    marker = "UID" if fmt == plistlib.FMT_BINARY else "CF$UID"
    assert graph["objects"][1]["value"]["next"] == {marker: 2}


def test_paging_keeps_original_indices_and_root_selects_one_top_entry():
    data = plistlib.dumps(cyclic_archive(), fmt=plistlib.FMT_BINARY)
    page = _project(data, root="other", offset=2, limit=1)
    assert [o["id"] for o in page["objects"]] == [2]
    assert page["roots"] == {"other": {"UID": 2}} and page["next_offset"] == 3 and page["truncated"]
    assert {r["source"] for r in page["references"]} == {None, 2}


def test_an_independent_archiver_s_output_reads_back_as_it_wrote_it():
    archiver = pytest.importorskip("bpylist2.archiver")

    class Note:
        def __init__(self, title: str, body: str) -> None:
            self.title, self.body = title, body

        def encode_archive(self, archive: Any) -> None:
            archive.encode("title", self.title)
            archive.encode("body", self.body)

    archiver.update_class_map({"Note": Note})
    data = archiver.archive(Note("hello", "world"))
    written = plistlib.loads(data)  # what bpylist2 put in $objects, read by plistlib
    graph = _project(data)
    root = written["$top"]["root"].data
    assert graph["objects"][root]["class_name"] == "Note"
    for name in ("title", "body"):
        link = next(r for r in graph["references"] if r["source"] == root and r["path"] == [name])
        assert link["status"] == "resolved" and written["$objects"][link["target"]] in ("hello", "world")


def test_hostile_keyed_archives_are_refused_canonically():
    plain = plistlib.dumps({"CFBundleIdentifier": "a.b"})
    value, _ = keyed.plist_json(plistlib.loads(plain), False)
    refused = keyed.project(value, None, 0, 10).failure()
    assert refused.code == "invalid_request" and refused.details["reason"] == "not-keyed-archive"
    missing_root = keyed.project(keyed.plist_json(cyclic_archive(), True)[0], "nope", 0, 10).failure()
    assert missing_root.details["field"] == "root"
    nested: Any = "$null"
    for _ in range(keyed.MAX_DEPTH + 5):
        nested = [nested]
    with pytest.raises(keyed.TooDeep):
        keyed.plist_json(nested, True)


# ------------------------------------------------------------------ compiled nibs


def test_the_nib_archive_table_is_the_independent_reader_s():
    reader = pytest.importorskip("nibarchive.parse")
    data = (RESOURCES / "About.nib").read_bytes()
    ours = nib.parse_nib_archive(data).unwrap()
    with open(RESOURCES / "About.nib", "rb") as handle:
        theirs = reader.NIBArchiveParser().parse(handle)
    assert len(ours.objects) == len(theirs.objects)
    for mine, other in zip(ours.objects, theirs.objects, strict=True):
        assert mine.class_name == theirs.class_names[other.class_name_index].name.rstrip("\x00")
        keys = [
            theirs.keys[v.key_index].name
            for v in theirs.values[other.values_index : other.values_index + other.value_count]
        ]
        assert [k for k, _ in mine.fields] == keys


def _xib_connections(source: Path) -> set[tuple[str, str]]:
    tree = ET.parse(source)
    outlets = {("outlet", e.get("property", "")) for e in tree.iter("outlet")}
    return outlets | {("action", e.get("selector", "")) for e in tree.iter("action")}


def _decoded(path: Path, kind: str = "nib") -> DecodedDocument:
    return DecodedDocument(relative_path=path.name, sha256="0" * 64, kind=kind,
                           table=nib.parse_nib_archive(path.read_bytes()).unwrap())  # fmt: skip


def test_outlets_and_actions_are_those_of_the_source_ibtool_compiled():
    graph = to_wire(build("0" * 64, [_decoded(RESOURCES / "About.nib")], LIMITS, 1))
    found = {(n["kind"], n["name"]) for n in graph["graph"]["nodes"] if n["kind"] in ("outlet", "action")}
    assert found == _xib_connections(SOURCES / "About.xib")
    owner = next(n for n in graph["graph"]["nodes"] if n["kind"] == "placeholder")
    assert owner["name"] == "AboutWindowController"  # the xib's File's Owner customClass
    for edge in graph["graph"]["edges"]:
        assert edge["resolution"] == "observed"
    assert graph["documents"][0]["hierarchy_complete"]


def test_a_compiled_storyboard_keeps_its_scene_outlets():
    scenes = sorted((RESOURCES / "Base.lproj" / "Main.storyboardc").glob("*.nib"))
    graph = to_wire(build("0" * 64, [_decoded(p, "storyboard_scene") for p in scenes], LIMITS, len(scenes)))
    outlets = {n["name"] for n in graph["graph"]["nodes"] if n["kind"] == "outlet"}
    assert {name for kind, name in _xib_connections(SOURCES / "Main.storyboard") if kind == "outlet"} <= outlets
    classes = {n["attributes"].get("custom_class") for n in graph["graph"]["nodes"]}
    assert "_TtC7TestApp21ContentViewController" in classes  # the storyboard's customClass in module TestApp


def test_limits_cut_the_graph_and_say_so():
    graph = to_wire(build("0" * 64, [_decoded(RESOURCES / "About.nib")], {"max_objects": 3, "max_connections": 1}, 2))
    assert graph["graph"]["truncated"] and len(graph["graph"]["nodes"]) == 3
    facets = {c["facet"]: c for c in graph["graph"]["coverage"]}
    assert facets["documents"]["omitted"] == 1 and facets["connections:About.nib"]["omitted"] == 2
    assert all(
        e["to"] is None or e["to"] in {n["id"] for n in graph["graph"]["nodes"]} for e in graph["graph"]["edges"]
    )


def keyed_nib() -> bytes:
    """An AppKit nib in the older keyed-archive form: NSIBObjectData with one outlet connector."""
    objects = [
        "$null",
        {
            "$class": UID(7),
            "NSRoot": UID(2),
            "NSConnections": UID(4),
            "NSObjectsKeys": UID(8),
            "NSObjectsValues": UID(9),
        },
        {"$class": UID(6), "NSClassName": "AppDelegate"},
        {"$class": UID(10), "NSSubviews": UID(0)},
        {"$class": UID(11), "NS.objects": [UID(5)]},
        {"$class": UID(12), "NSSource": UID(2), "NSDestination": UID(3), "NSLabel": "window"},
        {"$classname": "NSCustomObject", "$classes": ["NSCustomObject", "NSObject"]},
        {"$classname": "NSIBObjectData", "$classes": ["NSIBObjectData", "NSObject"]},
        {"$class": UID(11), "NS.objects": [UID(3)]},
        {"$class": UID(11), "NS.objects": [UID(2)]},
        {"$classname": "NSWindowTemplate", "$classes": ["NSWindowTemplate", "NSObject"]},
        {"$classname": "NSArray", "$classes": ["NSArray", "NSObject"]},
        {"$classname": "NSNibOutletConnector", "$classes": ["NSNibOutletConnector", "NSNibConnector", "NSObject"]},
    ]
    archive = {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"IB.objectdata": UID(1)},
               "$objects": objects}  # fmt: skip
    return plistlib.dumps(archive, fmt=plistlib.FMT_BINARY)


def test_a_keyed_archive_nib_is_read_like_a_nib_archive():
    value, _ = keyed.plist_json(plistlib.loads(keyed_nib()), True)
    doc = DecodedDocument(relative_path="Old.nib", sha256="0" * 64, kind="nib", table=nib.keyed_table(value))
    graph = to_wire(build("0" * 64, [doc], LIMITS, 1))["graph"]
    outlet = next(n for n in graph["nodes"] if n["kind"] == "outlet")
    assert outlet["name"] == "window" and outlet["attributes"]["destination_id"] == "3"
    assert any(e["from"].endswith("object:2") and e["to"].endswith("object:3") for e in graph["edges"])


@pytest.mark.parametrize("cut", [0, 11, 40, 200, -1])
def test_a_truncated_nib_archive_is_malformed_never_a_crash(cut):
    data = (RESOURCES / "About.nib").read_bytes()
    refused = nib.parse_nib_archive(data[:cut]).failure()
    assert refused.code == "invalid_request" and refused.details["reason"] == "malformed"


# ------------------------------------------------------------------ asset catalog


def test_asset_and_rendition_names_are_those_actool_compiled():
    catalog = car.parse_car((RESOURCES / "Assets.car").read_bytes()).unwrap()
    assert catalog.records[0].kind == "catalog" and catalog.limitations == ()
    assert catalog.header.rendition_count == len(catalog.records) - 1
    names: dict[str, set[str]] = {}
    for record in catalog.records[1:]:
        if record.asset_name:
            names.setdefault(record.asset_name, set()).add(record.rendition_name)
    for contents in (SOURCES / "Images.xcassets").glob("*.imageset/Contents.json"):
        expected = {i["filename"] for i in json.loads(contents.read_text())["images"] if i.get("filename")}
        asset = contents.parent.name.removesuffix(".imageset")
        assert names[asset] and names[asset] <= expected, asset
    assert names["d_mac"] == {"image.png", "image@2x.png"}


@pytest.mark.parametrize("cut", [0, 7, 100, 1000, 50_000])
def test_a_truncated_catalog_is_malformed_never_a_crash(cut):
    refused = car.parse_car((RESOURCES / "Assets.car").read_bytes()[:cut]).failure()
    assert refused.code == "invalid_request" and refused.details["reason"] == "malformed"


# ------------------------------------------------------------------ MCP and CLI


async def _mcp(app: Path) -> dict[str, Any]:
    out = {}
    async with connect() as s:
        await s.call_tool("open_binary", {"path": str(app)})
        for tool, args in (("inspect_keyed_archive", {"path": "Contents/Resources/Model.plist"}),
                           ("decode_interface_builder", {}), ("inspect_asset_catalog", {"limit": 5}),
                           ("inspect_keyed_archive", {"path": "Contents/Resources/About.nib"})):  # fmt: skip
            reply = await s.call_tool(tool, args)
            out[f"{tool}{'!' if 'About' in str(args) else ''}"] = (
                json.loads(reply.content[0].text) if reply.is_error else reply.structured_content
            )
        inventory = (await s.call_tool("inventory_artifact", {})).structured_content
        ref = {"kind": "retained-evidence", "evidence_id": inventory["evidence_id"]}
        reply = await s.call_tool("project_apple_application_graph", {"inventory_evidence": [ref]})
        out["project_apple_application_graph"] = reply.structured_content
    return out


def test_every_tool_answers_over_mcp_on_an_app_bundle(tmp_path):
    replies = anyio.run(_mcp, make_app(tmp_path))
    archive = replies["inspect_keyed_archive"]["normalized_result"]
    assert archive["archive_format"] == "binary-plist" and archive["total_objects"] == 4
    ib = replies["decode_interface_builder"]["normalized_result"]
    assert {d["relative_path"] for d in ib["documents"]} == {
        "Contents/Resources/About.nib",
        "Contents/Resources/Base.lproj/Main.storyboardc/MainWC.nib",
        "Contents/Resources/Base.lproj/Main.storyboardc/vc1-00-002-view-vw1-00-002.nib",
    }
    catalog = replies["inspect_asset_catalog"]["normalized_result"]
    assert catalog["catalogs"][0]["path"] == "Contents/Resources/Assets.car" and len(catalog["records"]) == 5
    assert catalog["next_offset"] == 5 and catalog["total_records"] == catalog["catalogs"][0]["record_count"]
    assert replies["inspect_keyed_archive!"]["error"]["details"]["reason"] == "nib-archive"
    graph = replies["project_apple_application_graph"]["normalized_result"]
    roles = {b["path"].split("/")[-1]: b["role"] for b in graph["bundles"]}
    assert roles == {"Share.appex": "appex", "Fetch.xpc": "xpc", "Launcher.app": "login-item",
                     "Kit.framework": "framework", "Helper.app": "helper"}  # fmt: skip
    assert graph["application_roots"] == ["Demo.app"]
    assert [p["path"] for p in graph["launchd_plists"]] == [
        "Demo.app/Contents/Library/LaunchAgents/com.example.agent.plist"
    ]


def _cli(*args: str) -> dict[str, Any]:
    done = subprocess.run([*rea_command(), "call", *args, "--format", "json"], capture_output=True, text=True,
                          env=clean_env(), timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_cli_reaches_the_tools(tmp_path):
    archive = tmp_path / "Model.plist"
    archive.write_bytes(dump(cyclic_archive(), plistlib.FMT_XML))
    result = _cli("inspect_keyed_archive", "--target", str(archive), "--limit", "2")["normalized_result"]
    assert result["archive_format"] == "xml-plist" and result["next_offset"] == 2
    nibbed = _cli("decode_interface_builder", "--target", str(RESOURCES / "About.nib"))["normalized_result"]
    assert nibbed["documents"][0]["connection_count"] == 3
    ipa = tmp_path / "Demo.ipa"
    with zipfile.ZipFile(ipa, "w") as z:
        z.writestr("Payload/Demo.app/Info.plist", plistlib.dumps({"CFBundleIdentifier": "x"}))
        z.writestr("Payload/Demo.app/PlugIns/Widget.appex/Info.plist", plistlib.dumps({}))
    refused = subprocess.run([*rea_command(), "call", "decode_interface_builder", "--target", str(ipa), "--format",
                              "json"], capture_output=True, text=True, env=clean_env(), timeout=120)  # fmt: skip
    assert refused.returncode == 1 and '"archive_target"' in refused.stdout + refused.stderr
    inventory = _cli("inventory_artifact", "--target", str(ipa))
    graph = _cli("project_apple_application_graph", "--json-args", json.dumps({"inventory_evidence": [inventory]}))
    assert graph["normalized_result"]["bundles"][0]["role"] == "appex"
    assert graph["normalized_result"]["application_roots"] == ["Payload/Demo.app"]
