"""Objective-C and Swift metadata read from Mach-O files: against llvm-objdump/llvm-nm, hostile images, MCP, CLI.

The real file is pyobjc-core 10.3.1's clang-built universal extension (see apple_fixtures).
Swift sections and hostile structures are hand-written images (no Swift or Objective-C
compiler exists here): what they cover is the reader's bounds and walking rules, not
swiftc's or clang's output.
"""

from __future__ import annotations

import json
import re
import struct
import subprocess

import anyio
import pytest
from returns.result import Success

from apple_fixtures import needs_pyobjc, nm_symbols, objdump_classes, pyobjc_binary
from artifact_fixtures import run_tools
from mcp_client import connect, error, evidence
from rea.apple_metadata.dispatch import Artifact, dispatch_result
from rea.apple_metadata.image import MachImage, Section, Segment
from rea.apple_metadata.results import Reading, objc_classes, objc_protocols, swift_types
from rea.wire.convert import to_wire
from support import clean_env, rea_command

BASE = 0x1000


def call(path, tool, args):
    replies, _ = run_tools([("open_binary", {"path": str(path)}), (tool, args)])
    assert isinstance(replies[1], Success), replies[1].failure()
    return replies[1].unwrap()["normalized_result"]


@needs_pyobjc
@pytest.mark.parametrize("arch", ["x86_64", "arm64"])
def test_classes_match_llvm_objdump(tmp_path, arch):
    binary = pyobjc_binary(tmp_path)
    want = objdump_classes(binary, arch)
    got = call(binary, "get_objc_classes", {"architecture": arch})
    assert got["count"] == len(want) == 23 and got["coverage"]["invalid"] == 0
    rows = {c["name"]: c for c in got["classes"]}
    assert set(rows) == set(want)
    for name, facts in want.items():
        assert rows[name]["super_class"] == facts["super"], name
        assert rows[name]["instance_size"] == facts["size"], name
        assert rows[name]["method_count"] == sum(facts["counts"]), name
    filtered = call(binary, "get_objc_classes", {"architecture": arch, "pattern": "Builtin"})
    assert {c["name"] for c in filtered["classes"]} == {n for n in want if "Builtin" in n}


@needs_pyobjc
@pytest.mark.parametrize("arch", ["x86_64", "arm64"])
def test_dispatch_selectors_and_implementations_match_objdump_and_nm(tmp_path, arch):
    """x86_64 selectors as llvm-objdump prints them (it cannot decode arm64's relative lists: the arm64
    slice is checked against the same source's x86_64 selectors); every IMP against llvm-nm's -[C sel]."""
    binary = pyobjc_binary(tmp_path)
    want = objdump_classes(binary, "x86_64")
    symbols = nm_symbols(binary, arch)
    got = call(binary, "inspect_native_dispatch_metadata", {"architecture": arch})
    result = got["result"]
    assert got["target_sha256"] and got["provider"]["id"] == "rea-apple-metadata"
    for cls in result["objc_classes"]:
        instance = sorted(m["selector"] for m in cls["methods"] if m["method_type"] == "instance")
        klass = sorted(m["selector"] for m in cls["methods"] if m["method_type"] == "class")
        assert instance == sorted(want[cls["name"]]["selectors"]), cls["name"]
        assert klass == sorted(want[cls["name"]]["class_selectors"]), cls["name"]
    checked = 0
    for impl in result["objc_dispatch_implementations"]:
        sign = "+" if impl["method_type"] == "class" else "-"
        owner = impl["class_name"] + (f"({impl['category']})" if impl["category"] else "")
        symbol = f"{sign}[{owner} {impl['selector']}]"
        if symbol in symbols:
            assert int(impl["implementation_address"], 16) == symbols[symbol], symbol
            checked += 1
    assert checked >= 250
    categories = {(c["class_name"], c["name"]) for c in result["objc_categories"]}
    assert ("NSObject", "PyObjCSupport") in categories
    category = re.compile(
        r"^__OBJC_\$_CATEGORY_(?!INSTANCE_METHODS_|CLASS_METHODS_|PROTOCOLS_|PROP_LIST_)(\w+)_\$_(\w+)$"
    )
    assert categories == {m.groups() for m in map(category.match, symbols) if m}
    protocols = {p["name"] for p in result["objc_protocol_records"]}
    assert protocols == {s.removeprefix("__OBJC_PROTOCOL_$_") for s in symbols if s.startswith("__OBJC_PROTOCOL_$_")}
    ivars = [i for i in result["objc_ivars"] if i["class_name"] == "OC_PythonArray"]
    assert ivars and all(i["offset"] is not None and i["offset"] >= 8 for i in ivars)
    facets = {c["facet"]: c["status"] for c in result["coverage"]}
    assert facets["objc_classes"] == "complete" and facets["swift_conformances"] == "unsupported"


@needs_pyobjc
def test_protocols_and_a_file_without_swift(tmp_path):
    binary = pyobjc_binary(tmp_path)
    protocols = call(binary, "get_objc_protocols", {"architecture": "x86_64"})
    assert [p["name"] for p in protocols["protocols"]] == ["NSCopying"]
    swift = call(binary, "analyze_swift_types", {"architecture": "x86_64"})
    assert swift["total"] == 0 and set(swift["categories"]) == {
        "classes",
        "structs",
        "enums",
        "protocols",
        "extensions",
        "other",
    }


# ---------------------------------------------------------------- hand-written images


class Builder:
    """A little-endian 64-bit image in one __DATA segment at BASE, with named sections."""

    def __init__(self, size: int = 0x2000) -> None:
        self.data = bytearray(size)
        self.sections: list[Section] = []

    def put(self, addr: int, fmt: str, *values: int) -> None:
        struct.pack_into("<" + fmt, self.data, addr - BASE, *values)

    def text(self, addr: int, value: str) -> int:
        raw = value.encode() + b"\0"
        self.data[addr - BASE : addr - BASE + len(raw)] = raw
        return addr

    def section(self, segment: str, name: str, addr: int, size: int) -> None:
        self.sections.append(Section(segment=segment, name=name, addr=addr, size=size))

    def image(self) -> MachImage:
        segs = (Segment(name="__TEXT", vmaddr=BASE, vmsize=len(self.data), fileoff=0, filesize=len(self.data)),)
        return MachImage(data=bytes(self.data), segments=segs, sections=tuple(self.sections))


def _class(b: Builder, cls: int, ro: int, name: str, superclass: int, meta: int = 0) -> None:
    b.put(cls, "QQQQQ", meta, superclass, 0, 0, ro)
    b.put(ro, "IIII", 0, 8, 8, 0)
    b.put(ro + 16, "QQQQQQQ", 0, b.text(ro + 0x100, name), 0, 0, 0, 0, 0)


def _reading(b: Builder) -> Reading:
    return Reading(b.image(), None, 100)


def test_a_cyclic_superclass_chain_is_reported_not_followed():
    b = Builder()
    _class(b, 0x1100, 0x1200, "A", superclass=0x1400)
    _class(b, 0x1400, 0x1500, "B", superclass=0x1100)  # B's superclass is A: a cycle
    b.put(0x1800, "QQ", 0x1100, 0x1400)
    b.section("__DATA", "__objc_classlist", 0x1800, 16)
    got = to_wire(objc_classes(_reading(b), ""))
    assert [(c["name"], c["super_class"]) for c in got["classes"]] == [("A", "B"), ("B", "A")]
    assert all(c["decode"]["status"] == "partial" and "cyclic" in c["decode"]["reason"] for c in got["classes"])


def test_pointers_out_of_range_mark_one_record_invalid_and_the_rest_decode():
    b = Builder()
    _class(b, 0x1100, 0x1200, "Good", superclass=0)
    b.put(0x1400, "QQQQQ", 0, 0, 0, 0, 0xDEAD_BEEF_0000)  # class_ro_t far outside the image
    b.put(0x1800, "QQQ", 0x1100, 0x1400, 0x7FFF_0000_0000)
    b.section("__DATA", "__objc_classlist", 0x1800, 24)
    reading = _reading(b)
    got = to_wire(objc_classes(reading, ""))
    assert got["coverage"] == {"listed": 3, "examined": 3, "decoded": 1, "invalid": 2}
    assert got["classes"][0]["name"] == "Good" and got["classes"][0]["decode"]["status"] == "decoded"
    assert [c["decode"]["status"] for c in got["classes"][1:]] == ["invalid", "invalid"]
    assert any("outside every file-backed segment" in t for t in got["limitations"])
    facets = {c.facet: c for c in dispatch_result(reading, Artifact(path="/x", sha256="0" * 64), 100).result.coverage}
    assert facets["objc_classes"].status == "partial" and facets["objc_classes"].decoded == 1


def test_a_method_list_that_claims_more_than_the_image_holds_is_refused():
    b = Builder()
    _class(b, 0x1100, 0x1200, "Big", superclass=0)
    b.put(0x1200 + 32, "Q", 0x1600)  # baseMethods
    b.put(0x1600, "II", 24, 60_000)  # 60,000 entries of 24 bytes: far past the image
    b.put(0x1800, "Q", 0x1100)
    b.section("__DATA", "__objc_classlist", 0x1800, 8)
    got = to_wire(objc_classes(_reading(b), ""))
    assert got["classes"][0]["decode"]["status"] == "invalid"


def _rel(b: Builder, field: int, target: int) -> None:
    b.put(field, "i", target - field)


def swift_image() -> Builder:
    """Module M { struct S; class C { enum E } ; protocol P } and an extension of S nesting struct X."""
    b = Builder()
    module, struct_s, class_c, enum_e, proto, ext, nested = 0x1100, 0x1120, 0x1140, 0x1160, 0x1180, 0x11A0, 0x11C0
    b.put(module, "I", 0)
    _rel(b, module + 8, b.text(0x1400, "M"))
    for addr, kind, parent, name in (
        (struct_s, 17, module, "S"),
        (class_c, 16 | 0x80, module, "C"),
        (enum_e, 18, class_c, "E"),
        (proto, 3, module, "P"),
        (nested, 17, ext, "X"),
    ):
        b.put(addr, "I", kind)
        _rel(b, addr + 4, parent)
        _rel(b, addr + 8, b.text(0x1400 + addr - 0x1100 + 0x40, name))
    b.put(ext, "I", 1)
    _rel(b, ext + 4, module)
    for index, addr in enumerate((struct_s, class_c, enum_e, nested)):
        _rel(b, 0x1600 + 4 * index, addr)
    b.section("__TEXT", "__swift5_types", 0x1600, 16)
    _rel(b, 0x1700, proto)
    b.section("__TEXT", "__swift5_protos", 0x1700, 4)
    return b


def test_swift_descriptors_are_categorized_with_their_module_and_nesting():
    got = to_wire(swift_types(_reading(swift_image()), None, None))
    names = {k: [i["name"] for i in v["items"]] for k, v in got["categories"].items()}
    assert names == {
        "classes": ["M.C"],
        "structs": ["M.S"],
        "enums": ["M.C.E"],
        "protocols": ["M.P"],
        "extensions": ["M.X"],
        "other": [],
    }
    assert got["total"] == 5
    assert [i["generic"] for i in got["categories"]["classes"]["items"]] == [True]
    only = to_wire(swift_types(_reading(swift_image()), "enums", None))
    assert only["total"] == 1 and only["categories"]["structs"]["count"] == 0
    assert objc_protocols(_reading(swift_image())).protocols[0].name == "M.P"


def test_a_cyclic_swift_parent_chain_is_reported():
    b = swift_image()
    _rel(b, 0x1100 + 4, 0x1120)  # the module's parent is struct S, whose parent is the module
    reading = _reading(b)
    assert any("cyclic parent chain" in (getattr(t, "chain_problem", None) or "") for t in reading.swift.types)


# ---------------------------------------------------------------- MCP and CLI


@pytest.mark.slow
@needs_pyobjc
def test_apple_metadata_over_mcp(tmp_path):
    binary = pyobjc_binary(tmp_path)
    elf = tmp_path / "true"
    elf.write_bytes(open("/usr/bin/true", "rb").read())

    async def main():
        async with connect(TMPDIR=str(tmp_path)) as s:
            out = {}
            await s.call_tool("open_binary", {"path": str(binary)})
            out["opened_slice"] = await s.call_tool("get_objc_classes", {})  # open_binary chose x86_64
            out["x86_64"] = await s.call_tool("get_objc_classes", {"architecture": "x86_64"})
            for tool in ("get_objc_classes", "get_objc_protocols", "analyze_swift_types"):
                out[tool] = await s.call_tool(tool, {"architecture": "arm64"})
            out["dispatch"] = await s.call_tool(
                "inspect_native_dispatch_metadata", {"architecture": "x86_64", "max_records": 5}
            )
            out["bad"] = await s.call_tool("inspect_native_dispatch_metadata", {"max_records": 0})
            await s.call_tool("open_binary", {"path": str(elf)})
            out["elf"] = await s.call_tool("get_objc_classes", {})
            return out

    out = anyio.run(main)
    opened = evidence(out["opened_slice"])
    assert opened["normalized_result"] == evidence(out["x86_64"])["normalized_result"]
    assert evidence(out["get_objc_classes"])["normalized_result"]["count"] == 23
    assert evidence(out["get_objc_protocols"])["normalized_result"]["count"] == 1
    assert evidence(out["analyze_swift_types"])["normalized_result"]["total"] == 0
    dispatch = evidence(out["dispatch"])["normalized_result"]
    assert len(dispatch["result"]["objc_classes"]) == 5
    assert any("the first 5 were read" in t for t in dispatch["limitations"])
    error(out["bad"], "invalid_request")
    assert out["elf"].is_error


@pytest.mark.slow
@needs_pyobjc
def test_apple_metadata_cli(tmp_path):
    binary = pyobjc_binary(tmp_path)
    run = subprocess.run(
        [
            *rea_command(),
            "get-objc-classes",
            str(binary),
            "--architecture",
            "arm64",
            "--pattern",
            "OC_Python",
            "--json",
        ],
        capture_output=True,
        text=True,
        env=clean_env(),
    )
    assert run.returncode == 0, run.stderr
    names = [c["name"] for c in json.loads(run.stdout)["normalized_result"]["classes"]]
    assert names and all("OC_Python" in n for n in names)
    text = subprocess.run(
        [*rea_command(), "inspect-native-dispatch-metadata", str(binary), "--architecture", "x86_64"],
        capture_output=True,
        text=True,
        env=clean_env(),
    )
    assert text.returncode == 0 and "coverage swift_conformances: unsupported" in text.stdout
