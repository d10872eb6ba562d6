"""A PE's export and import directories in inspect_binary_layout, and the size of a 32-bit DLL's reply.

DLLs are built here by mingw-w64 (i686 and x86_64) from a .def file that exports
by name, by ordinal only (NONAME), data (DATA) and a forwarder (`name =
kernel32.GetTickCount`); an executable imports one of them by ordinal through the
import library. Ground truth is binutils' `objdump -p` (the mingw objdump of the
image's machine), parsed here: the Export Address Table with each entry's RVA or
forwarder, the name pointer table, and each import descriptor's DLL, hint/name or
ordinal and First Thunk (IAT) RVA; base relocations from its `reloc` lines.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.result import Success

from artifact_fixtures import call, run_tools
from effects.layout.reader import read_layout
from effects.layout.runtime import guarded
from layout_fixtures import need, run

SOURCE = r"""
#include <windows.h>
#include <stdio.h>
__declspec(dllexport) int add(int a, int b) { return a + b; }
__declspec(dllexport) int hidden_by_ordinal(int a) { return a * 3; }
__declspec(dllexport) int _register_bufferutil_(void) { printf("%lu\n", GetCurrentProcessId()); return 0; }
int data_export = 5;
"""
DEF = """LIBRARY d
EXPORTS
  add @1
  hidden_by_ordinal @7 NONAME
  _register_bufferutil_ @3
  data_export @4 DATA
  forwarded = kernel32.GetTickCount @5
"""
USER = "int hidden_by_ordinal(int);\nint add(int, int);\nint main(void) { return hidden_by_ordinal(2) + add(1, 2); }\n"
TOOLCHAINS = {32: "i686-w64-mingw32", 64: "x86_64-w64-mingw32"}
CAPS = {"max_symbols": 10_000, "max_relocations": 10_000}


@cache
def _built(bits: int, root: str) -> dict[str, Path]:
    """d.dll (and its import library), use.exe importing from it, and a relocation-heavy stripped DLL."""
    prefix = TOOLCHAINS[bits]
    need(f"{prefix}-gcc")
    tmp = Path(root) / f"pe{bits}"
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "d.c").write_text(SOURCE)
    (tmp / "d.def").write_text(DEF)
    (tmp / "use.c").write_text(USER)
    gcc = f"{prefix}-gcc"
    run(gcc, "-shared", "-O1", "-o", "d.dll", "d.c", "d.def", "-Wl,--out-implib,libd.a", cwd=tmp)
    run(gcc, "-O1", "-s", "-o", "use.exe", "use.c", "-L.", "-ld", cwd=tmp)
    funcs = "\n".join(f"int f{i}(int x) {{ return x * {i} + {i}; }}" for i in range(1500))
    table = "int (*table[])(int) = {" + ",".join(f"f{i}" for i in range(1500)) + "};\n"
    names = "const char *names[] = {" + ",".join(f'"n{i}"' for i in range(1500)) + "};\n"
    entry = "__declspec(dllexport) int _register_bufferutil_(int i) { return table[i](i) + names[i][0]; }\n"
    (tmp / "big.c").write_text(funcs + "\n" + table + names + entry)
    run(gcc, "-shared", "-O1", "-s", "-o", "big.dll", "big.c", cwd=tmp)
    return {"dll": tmp / "d.dll", "exe": tmp / "use.exe", "big": tmp / "big.dll", "objdump": f"{prefix}-objdump"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("pe_directories"))
    return {bits: _built(bits, root) for bits in TOOLCHAINS}


def _objdump_exports(report: str) -> dict:
    base = int(re.search(r"^Ordinal Base\s+(\d+)", report, re.M).group(1))
    dll = re.search(r"^Name\s+[0-9a-f]+ (\S+)", report, re.M).group(1)
    table = report.split("Export Address Table -- Ordinal Base", 1)[1].split("[Ordinal/Name Pointer] Table", 1)
    entries = {}
    for m in re.finditer(
        r"^\s+\[\s*(\d+)\] \+base\[\s*(\d+)\] ([0-9a-f]+) (Export|Forwarder) RVA(?: -- (\S+))?", table[0], re.M
    ):
        entries[int(m.group(2))] = {"rva": int(m.group(3), 16), "forwarder": m.group(5)}
    names = {}
    for m in re.finditer(r"^\s+\[\s*(\d+)\] (\S+)$", table[1].split("\n\n", 1)[0], re.M):
        names[int(m.group(1)) + base] = m.group(2)
    return {"base": base, "dll": dll, "entries": entries, "names": names}


def _objdump_imports(report: str, pointer: int) -> list[tuple[str, int, list]]:
    """(DLL, IAT RVA, [(name or None, hint or ordinal, IAT slot RVA)]) per import descriptor."""
    found = []
    section = report.split("The Import Tables", 1)[1].split("\n\n\n", 1)[0]
    for m in re.finditer(
        r"^ [0-9a-f]+\t[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ [0-9a-f]+ ([0-9a-f]+)\n\n\tDLL Name: (\S+)\n\tvma:.*\n((?:\t[0-9a-f]+\t.*\n)*)",
        section,
        re.M,
    ):
        first = int(m.group(1), 16)
        rows = []
        for i, line in enumerate(m.group(3).splitlines()):
            value, number, name = re.match(r"\t([0-9a-f]+)\t\s*(\d+)\s+(\S+)", line).groups()
            rows.append((None if name == "<none>" else name, int(number), first + i * pointer))
        found.append((m.group(2), first, rows))
    return found


def _layout(path: Path, **args) -> dict:
    reply, _ = call("inspect_binary_layout", {"path": str(path), **args})
    assert isinstance(reply, Success), reply.failure()
    return reply.unwrap()


@pytest.mark.parametrize("bits", sorted(TOOLCHAINS))
def test_export_directory_matches_objdump(built, bits):
    files = built[bits]
    nr = _layout(files["dll"])["normalized_result"]
    exports = nr["pe_directories"]["exports"]
    truth = _objdump_exports(run(files["objdump"], "-p", str(files["dll"])))
    assert exports["ordinal_base"] == truth["base"] == 1 and exports["dll_name"] == truth["dll"] == "d.dll"
    got = {e["ordinal"]: e for e in exports["entries"]}
    assert set(got) == set(truth["entries"]) == {1, 3, 4, 5, 7}
    for ordinal, want in truth["entries"].items():
        e = got[ordinal]
        assert int(e["rva"], 16) == want["rva"], ordinal
        assert e["forwarder"] == want["forwarder"] and e["kind"] == ("forwarder" if want["forwarder"] else "export")
        assert e["name"] == truth["names"].get(ordinal), ordinal
    assert got[7]["name"] is None  # NONAME: exported by ordinal only
    assert got[5]["forwarder"] == "kernel32.GetTickCount"
    directory = int(exports["directory_rva"], 16)
    assert directory <= int(got[5]["rva"], 16) < directory + int(exports["directory_size"], 16)
    assert exports["name_table_entries"] == len(truth["names"]) == 4


@pytest.mark.parametrize("bits", sorted(TOOLCHAINS))
def test_import_directory_matches_objdump(built, bits):
    files = built[bits]
    for target in (files["exe"], files["dll"]):
        nr = _layout(target)["normalized_result"]
        truth = _objdump_imports(run(files["objdump"], "-p", str(target)), bits // 8)
        got = [
            (
                d["library"],
                int(d["address_table_rva"], 16),
                [(e["name"], e["hint"] if e["name"] else e["ordinal"], int(e["iat_rva"], 16)) for e in d["entries"]],
            )
            for d in nr["pe_directories"]["imports"]
        ]
        assert got == truth and truth
        slots = [(s["library"], s["name"], s["ordinal"], int(s["address"], 16)) for s in nr["linkage"]["import_slots"]]
        assert slots == [
            (d["library"], e["name"], e["ordinal"], int(e["iat_rva"], 16))
            for d in nr["pe_directories"]["imports"]
            for e in d["entries"]
        ]
    exe = _layout(files["exe"])["normalized_result"]["pe_directories"]
    (d,) = [d for d in exe["imports"] if d["library"] == "d.dll"]
    assert [(e["name"], e["ordinal"]) for e in d["entries"]] == [("add", None), (None, 7)]
    assert exe["exports"] is None


def test_a_relocation_heavy_32_bit_dll_fits_and_keeps_every_relocation(built):
    """Measured: a stripped 94 KB i686 DLL with 3,215 HIGHLOW relocations replied 385 KB (a row each); now < 40 KB."""
    files = built[32]
    evidence = _layout(files["big"])
    size = len(json.dumps(evidence, separators=(",", ":")))
    assert size < 40_000, size
    nr = evidence["normalized_result"]
    relocs = re.findall(
        r"^\s+reloc\s+\d+ offset\s+[0-9a-f]+ \[([0-9a-f]+)\] (\w+)",
        run(files["objdump"], "-p", str(files["big"])),
        re.M,
    )
    want = [(int(rva, 16), kind) for rva, kind in relocs if kind != "ABSOLUTE"]
    got = [
        (int(r["address"], 16) + offset, r["type"].removeprefix("IMAGE_REL_BASED_"))
        for r in nr["image_relocations"]
        for offset in r["offsets"]
    ]
    assert got == want and len(want) > 3000
    assert nr["coverage"]["relocations"] == {"returned": len(want), "total": len(want), "exhaustive": True}
    assert [e["name"] for e in nr["pe_directories"]["exports"]["entries"]] == ["_register_bufferutil_"]


def test_views_page_exports_and_imports(built):
    files = built[32]
    replies, conn = run_tools([("inspect_binary_layout", {"path": str(files["dll"]), "detail": "summary"})])
    summary = replies[0].unwrap()["normalized_result"]
    counts = summary["summary"]["counts"]
    assert (counts["exports"], counts["import_libraries"]) == (5, 2) and counts["imports"] > 10
    ref = {"kind": "retained-evidence", "evidence_id": summary["parent_evidence_id"]}

    def view(v):
        reply, _ = call("inspect_analysis_view", {"source": ref, "view": v}, conn)
        return reply.unwrap()["normalized_result"]

    page = view({"kind": "page", "collection": "exports", "offset": 0, "limit": 3})
    assert [e["ordinal"] for e in page["items"]] == [1, 3, 4] and page["coverage"]["next_offset"] == 3
    item = view({"kind": "item", "collection": "exports", "selector": {"name": "forwarded"}})
    assert item["item"]["forwarder"] == "kernel32.GetTickCount"
    dlls = view({"kind": "page", "collection": "imports", "offset": 0, "limit": 10})
    assert [d["library"] for d in dlls["items"]] == ["KERNEL32.dll", "msvcrt.dll"]
    facet = view({"kind": "facet", "facet": "pe_directories"})
    assert facet["facet"]["exports"]["entries"][1]["name"] == "_register_bufferutil_"


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_a_damaged_export_directory_never_raises(built, tmp_path, data):
    """Bytes of the export directory and its tables overwritten: a result or a canonical error, never a crash."""
    dll = built[32]["dll"]
    raw = bytearray(dll.read_bytes())
    start = raw.find(b"d.dll\0") - 0x60  # the export directory and its tables sit just before the DLL name
    for _ in range(data.draw(st.integers(1, 8))):
        raw[data.draw(st.integers(start, start + 0x90))] = data.draw(st.integers(0, 255))
    damaged = tmp_path / "damaged.dll"
    damaged.write_bytes(bytes(raw))
    got = guarded(str(damaged), lambda path, artifact: {"facts": read_layout(path, None, CAPS)})
    if isinstance(got, Success):
        exports = got.unwrap()["facts"]["pe"]["exports"]
        assert exports is None or all(isinstance(e["rva"], int) for e in exports["entries"])
    else:
        assert got.failure().code in ("invalid_request", "target_unavailable")
