"""inspect_binary_layout against independent readers: readelf/objdump (ELF), mingw objdump (PE), Go debug/macho.

Every binary is built here (gcc, aarch64 gcc, mingw-w64) or taken from the Go
toolchain's test data (Debian golang-1.19-src); every expected value comes from a
reader other than lief. Calls go in-process through validation, the program and
the real effect handler, and each reply is checked against the advertised schema.
"""

from __future__ import annotations

import base64
import re
import struct
from pathlib import Path

from returns.result import Failure, Success

from artifact_fixtures import call, run_tools
from layout_fixtures import (
    START,
    fat,
    gcc,
    go_macho,
    go_read_macho,
    hardened,
    mingw,
    need,
    objdump_plt,
    readelf_relocations,
    readelf_sections,
    readelf_segments,
    readelf_symbols,
    run,
)

ELF_TYPE_ALIASES = {"GNU_versym": "VERSYM", "GNU_verneed": "VERNEED", "GNU_verdef": "VERDEF"}


def layout(path: Path, **args):
    reply, _ = call("inspect_binary_layout", {"path": str(path), **args})
    assert isinstance(reply, Success), reply.failure()
    return reply.unwrap()["normalized_result"]


def refused(path: Path, **args):
    reply, _ = call("inspect_binary_layout", {"path": str(path), **args})
    assert isinstance(reply, Failure), reply
    return reply.failure()


def h(text: str) -> int:
    return int(text, 16)


# ----------------------------------------------------------------------- ELF


def test_elf_sections_and_segments_match_readelf(tmp_path):
    exe = hardened(tmp_path)
    got = layout(exe)
    assert got["format"] == "elf" and got["image_type"] == "ET_DYN"
    assert got["architecture"] == {"machine": "EM_X86_64", "bits": 64, "byte_order": "little"}
    entry = re.search(r"Entry point address:\s+0x([0-9a-f]+)", run("readelf", "-hW", str(exe))).group(1)
    assert got["entry_point"] == {
        "reported_value": f"0x{entry}",
        "meaning": "linked-virtual-address",
        "execution_status": "unknown",
    }
    expected = readelf_sections(exe)
    sections = got["sections"]
    assert len(sections) == len(expected) + 1 and sections[0]["type"] == "SHT_NULL"
    for want in expected:
        have = sections[want["index"]]
        assert have["name"]["display"] == want["name"]
        assert (
            ELF_TYPE_ALIASES.get(str(have["type"]).removeprefix("SHT_"), str(have["type"]).removeprefix("SHT_"))
            == want["type"]
        )
        for key in ("address", "offset", "size", "entry_size", "alignment"):
            assert h(have[key]) == want[key], (want["name"], key)
        assert (have["link"], have["info"]) == (want["link"], want["info"])
        # the name bytes sit where the row says they do
        loc = have["name"]["location"]
        assert exe.read_bytes()[h(loc["offset"]) : h(loc["offset"]) + h(loc["bytes"])] == want["name"].encode()
    bss = next(s for s in sections if s["name"]["display"] == ".bss")
    assert bss["file_backing"] == "none" and sections[1]["file_backing"] == "file"
    segs = readelf_segments(exe)
    assert [s["type"].removeprefix("PT_") for s in got["segments"]] == [s["type"] for s in segs]
    for have, want in zip(got["segments"], segs):
        assert (h(have["offset"]), h(have["virtual_address"]), h(have["physical_address"])) == (
            want["offset"],
            want["vaddr"],
            want["paddr"],
        )
        assert (h(have["file_size"]), h(have["memory_size"]), h(have["alignment"])) == (
            want["filesz"],
            want["memsz"],
            want["align"],
        )
        perms = have["permissions"]
        assert (
            "".join(c if perms[k] else " " for c, k in (("R", "read"), ("W", "write"), ("E", "execute")))
            == want["flags"]
        )


def test_elf_symbols_and_relocations_match_readelf(tmp_path):
    exe = hardened(tmp_path)
    got = layout(exe)
    tables = {s["index"]: s["name"]["display"] for s in got["sections"]}
    expected = readelf_symbols(exe)
    by_table: dict[str, list[dict]] = {}
    for sym in got["symbols"]:
        by_table.setdefault(tables[sym["table_index"]], []).append(sym)
    assert set(by_table) == set(expected) == {".symtab", ".dynsym"}
    for table, rows in expected.items():
        assert len(by_table[table]) == len(rows)
        for have, want in zip(by_table[table], rows):
            assert have["entry_index"] == want["index"] and have["name"]["display"] == want["name"]
            assert (h(have["value"]), h(have["size"])) == (want["value"], want["size"])
            assert have["type"] == "STT_" + want["type"] and have["binding"] == "STB_" + want["bind"]
            assert have["visibility"] == "STV_" + want["vis"]
            ndx = have["section_index"]
            assert (ndx if isinstance(ndx, int) else {"SHN_UNDEF": "UND", "SHN_ABS": "ABS"}[ndx]) == (
                int(want["ndx"]) if want["ndx"].isdigit() else want["ndx"]
            )
    tls = next(s for s in got["symbols"] if s["name"]["display"] == "per_thread")
    assert tls["value_meaning"] == "tls-offset"
    undefined = next(s for s in got["symbols"] if s["name"]["display"] == "puts")
    assert undefined["value_meaning"] == "undefined"
    want_relocs = readelf_relocations(exe)
    have_relocs: dict[str, list[dict]] = {}
    for r in got["relocations"]:
        have_relocs.setdefault(tables[r["section_index"]], []).append(r)
    assert set(have_relocs) == set(want_relocs)
    for table, rows in want_relocs.items():
        assert [
            (h(r["reported_offset"]), r["type_name"], r["symbol_name"], int(r["addend"])) for r in have_relocs[table]
        ] == [(w["offset"], w["type"], w["name"], w["addend"]) for w in rows]
    assert all(
        r["target"] == {"kind": "linked-virtual-address", "address": r["reported_offset"]} for r in got["relocations"]
    )


def test_elf_linkage_and_mitigations(tmp_path):
    exe = hardened(tmp_path)
    got = layout(exe)
    dynamic = run("readelf", "-dW", str(exe))
    needed = re.findall(r"Shared library: \[([^\]]+)\]", dynamic)
    assert [n["display"] for n in got["linkage"]["needed_libraries"]] == needed
    interp = re.search(r"Requesting program interpreter: ([^\]]+)\]", run("readelf", "-lW", str(exe))).group(1)
    assert [i["display"] for i in got["linkage"]["interpreters"]] == [interp]
    plt = objdump_plt(exe)
    assert {p["display_name"]: h(p["address"]) for p in got["linkage"]["plt"]} == {
        name: addr for name, addr in plt.items() if name in {p["display_name"] for p in got["linkage"]["plt"]}
    }
    assert len(got["linkage"]["plt"]) == len([r for r in readelf_relocations(exe)[".rela.plt"]])
    m = got["mitigations"]
    assert m["position_independent"] is True and m["relro"] == "Full" and m["nx_indicator"] is True
    assert m["stack_canary_indicator"] is True and "printf_chk" in m["fortify_symbols"]
    assert m["executable_stack_indicator"] is False

    plain = gcc(tmp_path, "plain", "-O0", "-fno-stack-protector", "-no-pie", "-Wl,-z,norelro", "-Wl,-z,execstack")
    p = layout(plain)["mitigations"]
    assert "GNU_RELRO" not in run("readelf", "-lW", str(plain))
    assert p["relro"] is None and p["position_independent"] is False and p["stack_canary_indicator"] is False
    assert p["executable_stack_indicator"] is True and p["nx_indicator"] is False and p["fortify_symbols"] == []


def test_cet_and_bti_properties_match_readelf_notes(tmp_path):
    cet = gcc(tmp_path, "cet", "-nostdlib", "-static", "-fcf-protection=full", "-Wl,-z,ibt,-z,shstk", source=START)
    assert "x86 feature: IBT, SHSTK" in run("readelf", "-n", str(cet))
    assert layout(cet)["mitigations"]["cet"] == {"ibt": True, "shstk": True}
    bti = gcc(
        tmp_path,
        "bti",
        "-nostdlib",
        "-static",
        "-mbranch-protection=standard",
        "-Wl,-z,force-bti",
        source=START,
        compiler="aarch64-linux-gnu-gcc",
    )
    assert "AArch64 feature: BTI, PAC" in run("readelf", "-n", str(bti))
    got = layout(bti)
    assert got["architecture"]["machine"] == "EM_AARCH64" and got["mitigations"]["arm"] == {"bti": True, "pac": True}
    assert got["mitigations"]["cet"] is None


def test_relocatable_object_targets_sections(tmp_path):
    obj = gcc(tmp_path, "unit.o", "-c")
    got = layout(obj)
    assert got["image_type"] == "ET_REL" and got["entry_point"]["meaning"] == "not-applicable"
    tables = {s["index"]: s for s in got["sections"]}
    want = readelf_relocations(obj)[".rela.text"]
    text = [r for r in got["relocations"] if tables[r["section_index"]]["name"]["display"] == ".rela.text"]
    assert [h(r["reported_offset"]) for r in text] == [w["offset"] for w in want]
    for r in text:
        owner = tables[r["section_index"]]
        assert r["target"] == {"kind": "section-offset", "section_index": owner["info"], "offset": r["reported_offset"]}
        assert r["symbol_table_index"] == owner["link"]
    counter = next(s for s in got["symbols"] if s["name"]["display"] == "counter")
    assert counter["value_meaning"] == "section-offset"


def test_relr_tables_decode_to_readelf_offsets(tmp_path):
    exe = gcc(tmp_path, "relr", "-fPIE", "-pie", "-Wl,-z,pack-relative-relocs")
    want = readelf_relocations(exe).get(".relr.dyn")
    assert want, "the linker wrote no RELR table"
    got = layout(exe)
    (table,) = got["packed_relative_relocations"]
    assert [h(e["reported_offset"]) for e in table["entries"]] == [w["offset"] for w in want]
    section = got["sections"][table["section_index"]]
    assert section["type"] == "SHT_RELR" and table["location"] == {
        "offset": section["offset"],
        "bytes": section["size"],
    }
    start, size = h(section["offset"]), h(section["size"])
    assert base64.b64decode(table["encoded_bytes_base64"]) == exe.read_bytes()[start : start + size]


def test_missing_and_malformed_section_tables_are_reported_not_guessed(tmp_path):
    exe = hardened(tmp_path)
    data = bytearray(exe.read_bytes())
    stripped = tmp_path / "no-sections"
    absent = bytearray(data)
    struct.pack_into("<Q", absent, 0x28, 0)  # e_shoff
    struct.pack_into("<HH", absent, 0x3C, 0, 0)  # e_shnum, e_shstrndx
    stripped.write_bytes(bytes(absent))
    got = layout(stripped)
    assert got["sections"] == [] and got["symbols"] == [] and got["coverage"]["section_table"] == "absent"
    assert len(got["segments"]) == len(readelf_segments(exe)) and got["linkage"]["interpreters"]
    assert any("section header table is absent" in text for text in got["limitations"])
    lying = tmp_path / "lying-sections"
    bad = bytearray(data)
    struct.pack_into("<Q", bad, 0x28, len(data) + 4096)
    lying.write_bytes(bytes(bad))
    got = layout(lying)
    assert got["sections"] == [] and got["coverage"]["section_table"] == "malformed"


def test_caps_are_reported(tmp_path):
    exe = hardened(tmp_path)
    got = layout(exe, max_symbols=3, max_relocations=2)
    assert len(got["symbols"]) == 3 and got["coverage"]["symbols"]["exhaustive"] is False
    assert got["coverage"]["symbols"]["total"] == sum(len(t) for t in readelf_symbols(exe).values())
    assert any("symbols were not returned" in text for text in got["limitations"])


# ------------------------------------------------------------------------ PE


def test_pe_from_mingw_matches_objdump(tmp_path):
    need("x86_64-w64-mingw32-objdump")
    exe = mingw(tmp_path)
    got = layout(exe)
    private = run("x86_64-w64-mingw32-objdump", "-p", str(exe))
    assert got["format"] == "pe" and got["architecture"]["machine"] == "IMAGE_FILE_MACHINE_AMD64"
    entry = re.search(r"AddressOfEntryPoint\s+([0-9a-f]+)", private).group(1)
    assert got["entry_point"] == {
        "reported_value": hex(int(entry, 16)),
        "meaning": "relative-virtual-address",
        "execution_status": "unknown",
    }
    chars = int(re.search(r"DllCharacteristics\s+([0-9a-f]+)", private).group(1), 16)
    assert h(got["mitigations"]["pe"]["dll_characteristics"]) == chars
    assert got["mitigations"]["nx_indicator"] is bool(chars & 0x100)
    assert [n["display"] for n in got["linkage"]["needed_libraries"]] == re.findall(r"DLL Name: (\S+)", private)
    image_base = int(re.search(r"ImageBase\s+([0-9a-f]+)", private).group(1), 16)
    headers = re.findall(
        r"^\s*\d+\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)",
        run("x86_64-w64-mingw32-objdump", "-h", str(exe)),
        re.M,
    )
    assert [(s["name"]["display"], h(s["address"]) + image_base, h(s["offset"])) for s in got["sections"]] == [
        (name, int(vma, 16), int(off, 16)) for name, _size, vma, off in headers
    ]
    imported = re.findall(r"^\s+[0-9a-f]+\s+\d+\s+(\w+)$", private, re.M)
    assert {s["name"] for s in got["linkage"]["import_slots"]} >= set(imported) - {""}
    syms = run("x86_64-w64-mingw32-objdump", "-t", str(exe))
    count = int(re.search(r"SYMBOL TABLE:", syms) is not None)
    assert count and got["coverage"]["symbols"]["total"] == len(re.findall(r"^\[\s*\d+\]", syms, re.M))
    assert [s["entry_index"] for s in got["symbols"]] == [int(i) for i in re.findall(r"^\[\s*(\d+)\]", syms, re.M)]
    main = next(s for s in got["symbols"] if s["name"]["display"] == "main")
    assert main["value_meaning"] == "section-offset"
    dll = mingw(tmp_path, "lib.dll", "-shared", "-Wl,--dynamicbase,--nxcompat,--high-entropy-va")
    d = layout(dll)
    assert d["image_type"] == "IMAGE_FILE_DLL"
    assert {"IMAGE_DLLCHARACTERISTICS_DYNAMIC_BASE", "IMAGE_DLLCHARACTERISTICS_NX_COMPAT"} <= set(
        d["mitigations"]["pe"]["flags"]
    )
    assert d["mitigations"]["position_independent"] is True
    relocs = re.findall(
        r"^\s+reloc\s+\d+ offset\s+([0-9a-f]+) \[([0-9a-f]+)\] (\w+)",
        run("x86_64-w64-mingw32-objdump", "-p", str(dll)),
        re.M,
    )
    based = [(int(rva, 16), kind) for _off, rva, kind in relocs if kind != "ABSOLUTE"]
    expanded = [
        (h(r["address"]) + offset, r["type"].removeprefix("IMAGE_REL_BASED_"))
        for r in d["image_relocations"]
        for offset in r["offsets"]  # one row per run of a base relocation block and type
    ]
    assert expanded == based


# -------------------------------------------------------------------- Mach-O


def _compare_macho(got, want) -> None:
    assert [(s["name"]["display"], s["segment"], h(s["address"]), h(s["size"])) for s in got["sections"]] == [
        (s["Name"], s["Seg"], s["Addr"], s["Size"]) for s in want["Sections"]
    ]
    assert [(s["name"], h(s["virtual_address"]), h(s["memory_size"]), h(s["file_size"])) for s in got["segments"]] == [
        (s["Name"], s["Addr"], s["Memsz"], s["Filesz"]) for s in want["Segments"]
    ]
    assert [(s["name"]["display"], s["type"], s["section_index"], h(s["value"])) for s in got["symbols"]] == [
        (s["Name"], s["Type"], s["Sect"], s["Value"]) for s in want["Symbols"] or []
    ]
    assert [n["display"] for n in got["linkage"]["needed_libraries"]] == want["Libraries"]


def test_thin_macho_matches_go_debug_macho(tmp_path):
    exe = go_macho("clang-amd64-darwin-exec-with-rpath", tmp_path)
    got = layout(exe)
    (want,) = go_read_macho(exe, tmp_path)
    assert got["format"] == "macho" and got["image_type"] == "MH_EXECUTE" and got["slice"] is None
    _compare_macho(got, want)
    assert got["linkage"]["library_search_paths"] == ["/my/rpath"]
    assert got["entry_point"]["meaning"] == "file-offset"
    assert got["mitigations"]["macho"]["pie"] is bool(want["Flags"] & 0x200000)
    assert got["linkage"]["interpreters"][0]["display"] == "/usr/lib/dyld"
    first = got["sections"][0]
    name = exe.read_bytes()[h(first["name"]["location"]["offset"]) :][:16].split(b"\0")[0]
    assert name.decode() == first["name"]["display"]


def test_universal_binary_slices(tmp_path):
    i386 = go_macho("gcc-386-darwin-exec", tmp_path)
    amd64 = go_macho("gcc-amd64-darwin-exec", tmp_path)
    universal = fat(tmp_path, [(7, 3, i386.read_bytes()), (0x01000007, 3, amd64.read_bytes())])
    want = go_read_macho(universal, tmp_path)
    error = refused(universal)
    assert error.code == "invalid_request" and error.details["available"] == ["i386", "x86_64"]
    for arch, expected in zip(("i386", "x86_64"), want):
        got = layout(universal, architecture=arch)
        assert got["slice"] == arch and got["architecture"]["bits"] == (32 if arch == "i386" else 64)
        _compare_macho(got, expected)
        # offsets are in the whole file: the slice's section bytes are where the row says
        text = got["sections"][0]
        thin = (i386 if arch == "i386" else amd64).read_bytes()
        start = h(text["offset"])
        assert universal.read_bytes()[start : start + 16] == thin[start - _slice_offset(universal, arch) :][:16]
    assert refused(universal, architecture="arm64").details["reason"] == "no-slice"


def _slice_offset(path: Path, arch: str) -> int:
    data = path.read_bytes()
    for i in range(struct.unpack_from(">I", data, 4)[0]):
        cpu, _sub, offset, _size, _align = struct.unpack_from(">iiIII", data, 8 + 20 * i)
        if (cpu == 7) == (arch == "i386"):
            return offset
    raise AssertionError(arch)


def test_lying_fat_headers_are_refused(tmp_path):
    amd64 = go_macho("gcc-amd64-darwin-exec", tmp_path).read_bytes()
    good = fat(tmp_path, [(7, 3, amd64), (0x01000007, 3, amd64)]).read_bytes()
    past = bytearray(good)
    struct.pack_into(">I", past, 8 + 20 + 12, len(good))  # slice 1 size runs past the end
    overlap = bytearray(good)
    struct.pack_into(">I", overlap, 8 + 20 + 8, struct.unpack_from(">I", good, 8 + 8)[0] + 16)  # slice 1 inside 0
    many = bytearray(good)
    struct.pack_into(">I", many, 4, 100000)
    for name, data, words in (("past", past, "outside"), ("overlap", overlap, "overlap"), ("many", many, "declares")):
        path = tmp_path / name
        path.write_bytes(bytes(data))
        error = refused(path, architecture="x86_64")
        assert error.code == "invalid_request" and words in error.message and error.details["reason"] == "malformed"


def test_non_binaries_and_missing_files(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello, not a binary\n")
    error = refused(text)
    assert error.code == "invalid_request" and error.details["field"] == "path" and "ELF" in error.details["accepted"]
    assert refused(tmp_path / "absent").code == "target_unavailable"
    assert refused(tmp_path).code == "target_unavailable"
    exe = hardened(tmp_path)
    assert refused(exe, architecture="x86_64").details["reason"] == "no-slice"


# --------------------------------------------------------------------- views


def test_summary_detail_and_views(tmp_path):
    exe = hardened(tmp_path)
    replies, conn = run_tools([("inspect_binary_layout", {"path": str(exe), "detail": "summary"})])
    summary = replies[0].unwrap()
    nr = summary["normalized_result"]
    assert summary["operation"] == "inspect_analysis_view" and nr["kind"] == "summary"
    assert nr["parent_operation"] == "inspect_binary_layout" and summary["evidence_links"] == [nr["parent_evidence_id"]]
    complete, _ = call("inspect_binary_layout", {"path": str(exe)})
    parent = complete.unwrap()
    assert parent["evidence_id"] == nr["parent_evidence_id"]  # delivery detail does not change the source id
    assert nr["summary"]["counts"]["sections"] == len(parent["normalized_result"]["sections"])
    ref = {"kind": "retained-evidence", "evidence_id": nr["parent_evidence_id"]}

    def view(v):
        reply, _ = call("inspect_analysis_view", {"source": ref, "view": v}, conn)
        return reply

    facet = view({"kind": "facet", "facet": "mitigations"}).unwrap()["normalized_result"]
    assert facet["facet"] == parent["normalized_result"]["mitigations"]
    linkage = view({"kind": "facet", "facet": "linkage"}).unwrap()["normalized_result"]
    assert linkage["facet"]["needed_libraries"][0]["display"] == "libc.so.6"
    item = view({"kind": "item", "collection": "sections", "selector": {"name": ".text"}}).unwrap()
    assert item["normalized_result"]["item"]["name"]["display"] == ".text"
    by_index = view({"kind": "item", "collection": "symbols", "selector": {"index": 1}}).unwrap()
    assert by_index["normalized_result"]["item"] == parent["normalized_result"]["symbols"][1]
    pages, offset = [], 0
    while offset is not None:
        page = view({"kind": "page", "collection": "symbols", "offset": offset, "limit": 7}).unwrap()[
            "normalized_result"
        ]
        pages.extend(page["items"])
        offset = page["coverage"]["next_offset"]
    assert pages == parent["normalized_result"]["symbols"]
    # a name both tables hold is ambiguous: the error lists the indices to choose from
    ambiguous = view({"kind": "item", "collection": "symbols", "selector": {"name": "__gmon_start__"}})
    assert ambiguous.failure().code == "invalid_request" and len(ambiguous.failure().details["expected"]) == 2
    missing = view({"kind": "item", "collection": "sections", "selector": {"index": 999}})
    assert missing.failure().code == "invalid_request"
    wrong = view({"kind": "page", "collection": "modules", "offset": 0, "limit": 1})
    assert "analyze_javascript_application" in wrong.failure().message


def test_java_class_file_is_not_a_universal_macho(tmp_path):
    """cafebabe opens both; a javac-built class (file(1) is the independent reader) is refused as Java."""
    need("javac")
    source = tmp_path / "Hello.java"
    source.write_text("public class Hello { public static void main(String[] a) { System.out.println(1); } }\n")
    run("javac", "-d", str(tmp_path), str(source))
    klass = tmp_path / "Hello.class"
    assert "Java class" in run("file", "-b", str(klass))
    error = refused(klass)
    assert error.code == "invalid_request" and error.details["reason"] == "unsupported"
    assert "Java class file" in error.message and "Mach-O" in error.message
