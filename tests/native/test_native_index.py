"""The fast index against an independent reader: every call and every RIP-relative reference objdump prints is
found, procedures never overlap, no instruction is listed twice, a static binary has no imports and a jump back to
a function's entry is not a call. Real binaries: Debian's busybox (static, stripped), gcc builds (PIE, static,
AArch64 cross) and a Go executable built with Debian's Go; the index itself runs as REA runs it."""

from __future__ import annotations

import bisect
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from effects.native import indexer
from mcp_client import connect
from support import clean_env, rea_command

LINE = re.compile(r"^\s*([0-9a-f]+):\t(?:[0-9a-f]{2,8} )+\s*\t(\S+)\s*(.*)$")
COMMENT = re.compile(r"#\s*(?:0x)?([0-9a-f]+)")
DIRECT = re.compile(r"^(?:0x)?([0-9a-f]+)(?:\s+<[^>]*>)?$")
SAMPLE = r"""
#include <stdio.h>
#include <string.h>
static const char *secret = "index-secret-marker";
int helper(int n) { return n <= 1 ? 1 : n * helper(n - 1); }
int decode_config(char *out, int n) {
    for (int i = 0; i < n; i++) out[i] = secret[i] ^ 0x20;
    return strlen(out);
}
int main(int argc, char **argv) {
    char buf[64] = {0};
    printf("configured: %d\n", decode_config(buf, argc + 3));
    puts("index-second-marker");
    return helper(argc);
}
"""
GO_SOURCE = """package main

import (
\t"fmt"
\t"os"
)

func main() {
\tfmt.Println("index-go-marker", len(os.Args))
}
"""


def objdump(path: Path, tool: str = "objdump") -> list[tuple[int, str, str]]:
    """(address, mnemonic, operands and comment) of every instruction objdump decodes."""
    out = subprocess.run([tool, "-d", "-w", str(path)], capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            rows.append((int(m.group(1), 16), m.group(2), m.group(3)))
    return rows


def build_index(path: Path) -> dict:
    return indexer.build(str(path), None)


def procedure_spans(snapshot: dict) -> list[tuple[int, int, dict]]:
    return sorted(
        (int(p["address"], 16), int(p["address"], 16) + p["size"], p)
        for p in snapshot["procedures"]
        if p["kind"] != "external"
    )


def owner_of(spans: list[tuple[int, int, dict]], address: int) -> dict | None:
    i = bisect.bisect_right([s for s, _, _ in spans], address) - 1
    return spans[i][2] if i >= 0 and address < spans[i][1] else None


def check_against_objdump(snapshot: dict, rows: list[tuple[int, str, str]]) -> dict[str, int]:
    """Every direct call and every `# address` operand objdump prints is a reference of the index."""
    spans = procedure_spans(snapshot)
    for (_start, end, p), (nxt, _, q) in zip(spans, spans[1:]):
        assert end <= nxt, f"{p['name']} {p['address']}+{p['size']} overlaps {q['name']} {q['address']}"
    refs: dict[int, set[str]] = {}
    for ref in snapshot["data_references"]:
        refs.setdefault(int(ref["from"], 16), set()).add(ref["to"])
    calls: dict[int, str] = {}
    for p in snapshot["procedures"]:
        for site in p["call_sites"]:
            calls[int(site["instruction"], 16)] = site["target"]
    checked = {"calls": 0, "rip": 0}
    for address, mnemonic, operands in rows:
        if mnemonic.startswith("call") and (direct := DIRECT.match(operands)):
            assert calls.get(address) == f"0x{int(direct.group(1), 16):x}", (hex(address), operands)
            checked["calls"] += 1
        elif "(%rip)" in operands and (
            comment := COMMENT.search(operands.partition("#")[1] + operands.partition("#")[2])
        ):
            target = f"0x{int(comment.group(1), 16):x}"
            owner = owner_of(spans, address)
            found = target in refs.get(address, ()) or f"extern:{target}" in (
                refs.get(address, set()) | {calls.get(address, "")} | set(owner["callees"] if owner else ())
            )
            assert found, (hex(address), mnemonic, operands)
            checked["rip"] += 1
    return checked


@pytest.fixture(scope="module")
def samples(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("index")
    source = out / "sample.c"
    source.write_text(SAMPLE)
    built = {}
    for name, flags in {"pie": ["-O0"], "static": ["-O0", "-static"], "static_O1": ["-O1", "-static"]}.items():
        built[name] = out / name
        subprocess.run(["gcc", *flags, "-o", str(built[name]), str(source)], check=True, capture_output=True)
    # the same image without its symbol table: nm of static_O1 names the stripped copy's functions
    built["static_stripped"] = out / "static_stripped"
    shutil.copy(built["static_O1"], built["static_stripped"])
    subprocess.run(["strip", str(built["static_stripped"])], check=True)
    return built


def test_busybox_every_objdump_reference_is_indexed():
    busybox = Path(shutil.which("busybox") or "/bin/busybox")
    if not busybox.exists():
        pytest.skip("busybox-static is not installed (scripts/setup installs it)")
    snapshot = build_index(busybox)
    checked = check_against_objdump(snapshot, objdump(busybox))
    assert checked["calls"] > 10_000 and checked["rip"] > 10_000
    assert snapshot["index"]["instructions"] == len(objdump(busybox)) or snapshot["index"]["undecoded_bytes"] == 0
    assert not [p for p in snapshot["procedures"] if p["kind"] == "external"], "a static binary has no imports"
    found = [s for s in snapshot["strings"] if "applet not found" in s["value"]]
    assert found and found[0]["referenced_by"], found
    # the referrer is the procedure whose range holds the lea objdump shows for that string
    sites = [
        a
        for a, _, ops in objdump(busybox)
        if "(%rip)" in ops
        and COMMENT.search(ops)
        and int(COMMENT.search(ops).group(1), 16) == int(found[0]["address"], 16)
    ]
    spans = procedure_spans(snapshot)
    assert {owner_of(spans, a)["address"] for a in sites} == set(found[0]["referenced_by"])


def test_busybox_index_is_the_same_forked_or_in_one_process(monkeypatch):
    """Where a core is spare the sweep runs as two halves (a forked child) and the stack-string pass beside the
    snapshot; where none is, everything runs in this process. The snapshot is the same (timings aside)."""
    busybox = Path(shutil.which("busybox") or "/bin/busybox")
    if not busybox.exists():
        pytest.skip("busybox-static is not installed (scripts/setup installs it)")
    snapshots = []
    for spare in (True, False):
        monkeypatch.setattr(indexer, "_spare_core", lambda spare=spare: spare)
        snapshot = build_index(busybox)
        for key in ("elapsed_ms", "stack_strings_ms"):
            snapshot["index"].pop(key)
        snapshots.append(snapshot)
    assert snapshots[0] == snapshots[1]


@pytest.mark.parametrize(("cores", "load", "spare"), [(2, 0.4, True), (2, 1.0, True), (2, 1.6, False), (1, 0.0, False)])
def test_a_core_is_spare_only_when_the_load_leaves_one_idle(monkeypatch, cores, load, spare):
    monkeypatch.setattr(indexer.os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    monkeypatch.setattr(indexer.os, "getloadavg", lambda: (load, load, load))
    assert indexer._spare_core() is spare


def test_gcc_builds_calls_imports_and_recursion(samples):
    for name, path in samples.items():
        if name == "static_O1":
            continue  # the unstripped reference of static_stripped
        snapshot = build_index(path)
        check_against_objdump(snapshot, objdump(path))
        by_name = {p["name"]: p for p in snapshot["procedures"]}
        externs = {p["name"] for p in snapshot["procedures"] if p["kind"] == "external"}
        if name == "pie":
            dyn = subprocess.run(["readelf", "-W", "--dyn-syms", str(path)], capture_output=True, text=True).stdout
            undefined = {
                line.split()[7].split("@")[0] for line in dyn.splitlines() if " UND " in line and len(line.split()) > 7
            }
            assert externs == undefined, "the imports are the file's undefined dynamic symbols"
            assert {"puts", "printf"} <= externs | {n for n, p in by_name.items() if p["kind"] == "thunk"}
        else:
            assert not externs, f"{name} is static: {externs}"
        if name == "static_stripped":  # library functions are named by their bytes, as nm names them unstripped
            nm = subprocess.run(["nm", str(samples["static_O1"])], capture_output=True, text=True).stdout
            truth: dict[str, set[str]] = {}
            for line in nm.splitlines():
                parts = line.split()
                if len(parts) == 3:
                    truth.setdefault(f"0x{int(parts[0], 16):x}", set()).add(parts[2])
            named = [p for p in snapshot["procedures"] if p["kind"] == "function" and not p["name"].startswith("sub_")]
            assert len(named) > 300
            wrong = [(p["address"], p["name"]) for p in named if p["name"] not in truth.get(p["address"], ())]
            assert len(wrong) <= len(named) // 50, wrong[:10]  # identical bodies share bytes (aliases, clones)
        else:
            helper, main = by_name["helper"], by_name["main"]
            assert helper["address"] in helper["callees"], "helper calls itself"
            assert main["address"] not in main["callees"]
            assert helper["address"] in main["callees"] and main["address"] in helper["callers"]
        strings = {s["value"]: s for s in snapshot["strings"]}
        assert strings["index-second-marker"]["referenced_by"], "puts' argument is referenced by main"


def test_no_string_starts_inside_another_and_no_procedure_lists_an_instruction_twice(samples):
    snapshot = build_index(samples["static"])
    rows = sorted((int(s["address"], 16), s["length"]) for s in snapshot["strings"])
    for (a, n), (b, _) in zip(rows, rows[1:]):
        assert a + n <= b
    from rea.native.sweep import decode

    data = samples["static"].read_bytes()
    text = next(s for s in snapshot["sections"] if s["name"] == ".text")
    main = next(p for p in snapshot["procedures"] if p["name"] == "main")
    # the file offset of .text from readelf, the independent reader
    head = subprocess.run(["readelf", "-W", "-S", str(samples["static"])], capture_output=True, text=True).stdout
    fields = next(line for line in head.splitlines() if " .text " in line).split()
    address, offset = int(fields[fields.index(".text") + 2], 16), int(fields[fields.index(".text") + 3], 16)
    assert f"0x{address:x}" == text["start"]
    start = int(main["address"], 16)
    body = data[offset + start - address : offset + start - address + main["size"]]
    listed = [i.address for i in decode("x86_64", body, start)]
    assert len(listed) == len(set(listed))
    truth = [a for a, _, _ in objdump(samples["static"]) if start <= a < start + main["size"]]
    assert listed == truth


def test_aarch64_adrp_pairs_and_calls(tmp_path):
    if shutil.which("aarch64-linux-gnu-gcc") is None:
        pytest.skip("gcc-aarch64-linux-gnu is not installed (scripts/setup installs it)")
    source = tmp_path / "sample.c"
    source.write_text(SAMPLE)
    binary = tmp_path / "sample-arm64"
    subprocess.run(["aarch64-linux-gnu-gcc", "-O0", "-static", "-o", str(binary), str(source)], check=True)
    snapshot = build_index(binary)
    assert snapshot["architecture"] == "arm64"
    rows = objdump(binary, "aarch64-linux-gnu-objdump")
    refs = {(int(r["from"], 16), r["to"]) for r in snapshot["data_references"]}
    calls = {int(s["instruction"], 16): s["target"] for p in snapshot["procedures"] for s in p["call_sites"]}
    pages: dict[str, int] = {}
    pairs = bls = 0
    for address, mnemonic, operands in rows:
        if mnemonic == "bl" and (m := re.match(r"([0-9a-f]+)", operands)):
            assert calls.get(address) == f"0x{int(m.group(1), 16):x}", (hex(address), operands)
            bls += 1
            pages = {k: v for k, v in pages.items() if int(k[1:]) in range(19, 30)}  # callee-saved survive a call
        elif mnemonic in ("b", "br", "ret"):
            pages = {}
        elif mnemonic == "adrp" and (m := re.match(r"(x\d+), ([0-9a-f]+)", operands)):
            pages[m.group(1)] = int(m.group(2), 16)
        elif (
            mnemonic == "add" and (m := re.match(r"(x\d+), (x\d+), #0x([0-9a-f]+)$", operands)) and m.group(2) in pages
        ):
            assert (address, f"0x{pages[m.group(2)] + int(m.group(3), 16):x}") in refs, (hex(address), operands)
            pairs += 1
            pages.pop(m.group(1), None)  # the destination now holds the full address, not a page
        elif not mnemonic.startswith(("str", "stp", "st", "cmp", "tst", "cb", "tb", "b.")):
            pages = {k: v for k, v in pages.items() if not re.match(k + r"\b", operands)}
    assert bls > 1000 and pairs > 1000
    strings = {s["value"]: s for s in snapshot["strings"]}
    main = next(p for p in snapshot["procedures"] if p["name"] == "main")
    assert main["address"] in strings["index-second-marker"]["referenced_by"]


def test_go_executable_jump_to_entry_is_not_a_call(tmp_path):
    if shutil.which("go") is None:
        pytest.skip("golang-go is not installed (scripts/setup installs it)")
    (tmp_path / "main.go").write_text(GO_SOURCE)
    (tmp_path / "go.mod").write_text("module example.com/indexed\n\ngo 1.19\n")
    env = {
        **os.environ,
        "GOCACHE": str(tmp_path / "cache"),
        "GOPATH": str(tmp_path / "gopath"),
        "GOFLAGS": "-mod=mod",
        "GOPROXY": "off",
    }
    binary = tmp_path / "indexed"
    subprocess.run(["go", "build", "-o", str(binary), "."], cwd=tmp_path, env=env, check=True, capture_output=True)
    snapshot = build_index(binary)
    check_against_objdump(snapshot, objdump(binary))
    main = next(p for p in snapshot["procedures"] if p["name"] == "main.main")
    rows = objdump(binary)
    jumps_back = [
        a
        for a, m, ops in rows
        if m == "jmp" and DIRECT.match(ops) and int(DIRECT.match(ops).group(1), 16) == int(main["address"], 16)
    ]
    assert jumps_back, "Go's stack-growth prologue jumps back to main.main"
    assert main["address"] not in main["callees"]
    # Go's unterminated strings come back with their exact bytes (the lea + length the code passes), and
    # no reported string starts inside another
    marker = [s for s in snapshot["strings"] if s["value"] == "index-go-marker"]
    assert marker and marker[0]["length"] == len("index-go-marker") and main["address"] in marker[0]["referenced_by"]
    offset = binary.read_bytes().index(b"index-go-marker")
    head = subprocess.run(["readelf", "-W", "-S", str(binary)], capture_output=True, text=True).stdout
    fields = next(line for line in head.splitlines() if " .rodata " in line).split()
    at = fields.index(".rodata")
    assert int(marker[0]["address"], 16) == int(fields[at + 2], 16) + offset - int(fields[at + 3], 16)
    spans = sorted((int(s["address"], 16), s["length"]) for s in snapshot["strings"])
    assert all(a + n <= b for (a, n), (b, _) in zip(spans, spans[1:]))
    # every RIP-relative operand of main.main (the string header, the itab, os.Args) is a reference from it
    begin, end = int(main["address"], 16), int(main["address"], 16) + main["size"]
    operands = {int(COMMENT.search(o).group(1), 16) for a, _, o in rows if begin <= a < end and "(%rip)" in o}
    mine = {int(r["to"], 16) for r in snapshot["data_references"] if r["from_procedure"] == main["address"]}
    assert operands and operands <= mine


def test_mcp_answers_from_the_index_without_the_cfg(samples, tmp_path):
    """search_strings, xrefs, callers and instructions answer without angr's whole-program CFG: no angr worker
    is started for them, and the instructions are objdump's, each once."""
    target = str(samples["static"])

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path / "cache")) as s:
            assert (await s.call_tool("open_binary", {"path": target})).is_error is False
            started = time.monotonic()
            found = await s.call_tool("search_strings", {"pattern": "index-second-marker"})
            assert found.is_error is False, found.content[0].text
            row = found.structured_content["normalized_result"][0]
            assert row["referenced_by"]
            xrefs = await s.call_tool("xrefs", {"address": row["address"]})
            assert xrefs.is_error is False
            sites = xrefs.structured_content["normalized_result"]
            spans = procedure_spans(build_index(samples["static"]))
            assert sites and {owner_of(spans, int(a, 16))["address"] for a in sites} == set(row["referenced_by"])
            listing = await s.call_tool("read_function_instructions", {"procedure": "main", "limit": 500})
            assert listing.is_error is False, listing.content[0].text
            lines = listing.structured_content["normalized_result"]["instructions"]
            addresses = [int(line.split(":")[0], 16) for line in lines]
            assert len(addresses) == len(set(addresses))
            main_row = next(p for p in build_index(samples["static"])["procedures"] if p["name"] == "main")
            begin = int(main_row["address"], 16)
            truth = [a for a, _, _ in objdump(samples["static"]) if begin <= a < begin + main_row["size"]]
            assert addresses == truth
            elapsed = time.monotonic() - started
            assert not _angr_workers(), "no angr worker was needed"
            bare = await s.call_tool("analyze_function", {"procedure": "main", "include_assembly": False})
            assert bare.is_error is False, bare.content[0].text
            dossier = bare.structured_content["normalized_result"]
            assert dossier["assembly"] == [] and not dossier["facet_availability"]["assembly"]["available"]
            assert "include_assembly" in dossier["facet_availability"]["assembly"]["reason"]
            # the outgoing references hold main's calls and its string reference, as objdump shows them
            kinds = {r["kind"]["type"] for r in dossier["outgoing_references"]}
            assert "call" in kinds and dossier["callees"] and dossier["referenced_strings"]
            return elapsed

    anyio.run(main)


def _angr_workers() -> list[int]:
    import psutil

    me = psutil.Process()
    return [p.pid for p in me.children(recursive=True) if "effects.native.worker" in " ".join(p.cmdline())]


def test_cli_search_strings_from_the_index(samples, tmp_path):
    out = subprocess.run(
        [
            *rea_command(),
            "call",
            "search_strings",
            "--target",
            str(samples["pie"]),
            "--pattern",
            "index-second",
            "--json",
        ],
        capture_output=True,
        text=True,
        env=clean_env(REA_CACHE_DIR=str(tmp_path / "cache")),
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    row = record["normalized_result"][0]
    assert row["value"] == "index-second-marker" and row["referenced_by"]
    assert any("fast index" in text for text in record["limitations"])


PE_SOURCE = r"""
#include <stdio.h>
__declspec(dllexport) int exported_one(int x) { return x * 3; }
int main(void) { printf("pe-marker %d\n", exported_one(2)); return 0; }
"""


@pytest.fixture(scope="module")
def mingw_pe(tmp_path_factory) -> Path:
    if shutil.which("x86_64-w64-mingw32-gcc") is None:
        pytest.skip("gcc-mingw-w64 is not installed (scripts/setup installs it)")
    out = tmp_path_factory.mktemp("pe")
    (out / "pe.c").write_text(PE_SOURCE)
    subprocess.run(["x86_64-w64-mingw32-gcc", "-O1", "-o", str(out / "pe.exe"), str(out / "pe.c")], check=True)
    return out / "pe.exe"


def test_pe_references_imports_and_exports_against_mingw_objdump(mingw_pe):
    snapshot = build_index(mingw_pe)
    checked = check_against_objdump(snapshot, objdump(mingw_pe, "x86_64-w64-mingw32-objdump"))
    assert checked["calls"] > 50 and checked["rip"] > 50
    by_name = {p["name"]: p for p in snapshot["procedures"]}
    exports = subprocess.run(["x86_64-w64-mingw32-objdump", "-p", str(mingw_pe)], capture_output=True, text=True).stdout
    assert "exported_one" in exports and by_name["exported_one"]["kind"] == "function"
    imports = {p["name"] for p in snapshot["procedures"] if p["kind"] == "external"}
    assert {"printf", "DeleteCriticalSection"} <= imports or {"DeleteCriticalSection"} <= imports
    thunks = [p for p in snapshot["procedures"] if p["kind"] == "thunk"]
    assert len({t["name"] for t in thunks}) == len(thunks), "one stub per import, no tail jump made a stub"


def _arm64_pe(pe: Path, arm_elf: Path, out: Path) -> tuple[Path, int, bytes]:
    """An ARM64 PE: the mingw image with its machine set to ARM64 (0xaa64) and its .text holding AArch64 code (a
    cross build's .text); no ARM64 Windows toolchain exists here. Returns the file, .text's VA and the code."""
    data = bytearray(pe.read_bytes())
    head = subprocess.run(["x86_64-w64-mingw32-objdump", "-h", str(pe)], capture_output=True, text=True).stdout
    row = next(line.split() for line in head.splitlines() if " .text " in line)
    size, vma, offset = int(row[2], 16), int(row[3], 16), int(row[5], 16)
    elf = subprocess.run(["readelf", "-W", "-S", str(arm_elf)], capture_output=True, text=True).stdout
    fields = next(line for line in elf.splitlines() if " .text " in line).split()
    at = fields.index(".text")
    code = arm_elf.read_bytes()[int(fields[at + 3], 16) :][:size]
    code = code[: len(code) // 4 * 4]
    data[offset : offset + len(code)] = code
    pe_header = int.from_bytes(data[0x3C:0x40], "little")
    data[pe_header + 4 : pe_header + 6] = (0xAA64).to_bytes(2, "little")
    target = out / "arm64.exe"
    target.write_bytes(bytes(data))
    return target, vma, code


def test_arm64_pe_gets_the_index_and_the_engine_refusal_is_stated(mingw_pe, tmp_path):
    if shutil.which("aarch64-linux-gnu-gcc") is None:
        pytest.skip("gcc-aarch64-linux-gnu is not installed (scripts/setup installs it)")
    (tmp_path / "sample.c").write_text(SAMPLE)
    arm_elf = tmp_path / "sample-arm64"
    subprocess.run(
        ["aarch64-linux-gnu-gcc", "-O0", "-static", "-o", str(arm_elf), str(tmp_path / "sample.c")], check=True
    )
    target, vma, code = _arm64_pe(mingw_pe, arm_elf, tmp_path)
    assert "Aarch64" in subprocess.run(["file", str(target)], capture_output=True, text=True).stdout
    snapshot = build_index(target)
    assert snapshot["format"] == "pe" and snapshot["architecture"] == "arm64"
    # every bl objdump decodes in the same bytes is a call site of the index
    (tmp_path / "text.bin").write_bytes(code)
    listing = subprocess.run(
        [
            "aarch64-linux-gnu-objdump",
            "-D",
            "-w",
            "-b",
            "binary",
            "-m",
            "aarch64",
            f"--adjust-vma=0x{vma:x}",
            str(tmp_path / "text.bin"),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    bls = [
        (int(m.group(1), 16), int(m.group(2), 16))
        for m in re.finditer(r"^\s*([0-9a-f]+):\t[0-9a-f]{8}\s+bl\t(?:0x)?([0-9a-f]+)", listing, re.M)
    ]
    calls = {int(s["instruction"], 16): s["target"] for p in snapshot["procedures"] for s in p["call_sites"]}
    assert len(bls) > 200
    assert all(calls.get(site) == f"0x{dest:x}" for site, dest in bls)

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path / "cache")) as s:
            opened = await s.call_tool("open_binary", {"path": str(target)})
            assert opened.is_error is False, opened.content[0].text
            callees = await s.call_tool("procedure_callees", {"procedure": snapshot["procedures"][0]["address"]})
            dossier = await s.call_tool(
                "analyze_function", {"procedure": next(p["address"] for p in snapshot["procedures"] if p["call_sites"])}
            )
            return callees, dossier

    callees, dossier = anyio.run(main)
    assert callees.is_error is False, callees.content[0].text
    assert dossier.is_error is False, dossier.content[0].text
    result = dossier.structured_content["normalized_result"]
    assert result["assembly"] and result["callees"] and result["pseudocode"] is None
    reasons = json.dumps(result.get("facet_availability", {})) + json.dumps(dossier.structured_content["limitations"])
    assert "ARM64" in reasons or "unsupported" in reasons.lower(), reasons


def test_one_function_graph_per_decompile_in_any_order(samples, tmp_path):
    """Pseudocode from each function's own graph: asking again after other functions still answers (a graph
    kept across questions went stale once another function's graph was built)."""

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path / "cache")) as s:
            assert (await s.call_tool("open_binary", {"path": str(samples["pie"])})).is_error is False
            replies = []
            for name in ("decode_config", "main", "helper", "decode_config", "main"):
                reply = await s.call_tool("procedure_pseudo_code", {"procedure": name})
                assert reply.is_error is False, (name, reply.content[0].text)
                replies.append(reply.structured_content["normalized_result"])
            return replies

    first, main_code, helper, again, main_again = anyio.run(main)
    assert first == again and main_code == main_again
    assert "decode_config" in main_code and "helper" in helper


def test_pseudocode_calls_read_the_index_names(samples, tmp_path):
    """On a stripped static build the decompiler prints the callee names the index knows (library functions
    named by their bytes), not `sub_…`."""
    snapshot = build_index(samples["static_stripped"])
    string = next(s for s in snapshot["strings"] if s["value"] == "index-second-marker")
    caller = string["referenced_by"][0]  # main: it passes the marker to puts
    by_address = {p["address"]: p for p in snapshot["procedures"]}
    named = {
        by_address[s["target"]]["name"]
        for s in by_address[caller]["call_sites"]
        if s["target"] in by_address and not by_address[s["target"]]["name"].startswith("sub_")
    }
    assert named, "main calls library functions the index names"

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path / "cache")) as s:
            assert (await s.call_tool("open_binary", {"path": str(samples["static_stripped"])})).is_error is False
            reply = await s.call_tool("procedure_pseudo_code", {"procedure": caller})
            assert reply.is_error is False, reply.content[0].text
            own = await s.call_tool("procedure_pseudo_code", {"procedure": smallest["address"]})
            assert own.is_error is False, own.content[0].text
            return reply.structured_content["normalized_result"], own.structured_content["normalized_result"]

    # a function the index names (by its bytes) is printed under that name, not its engine's sub_ name
    smallest = min((p for p in by_address.values() if p["name"] in named), key=lambda p: p["size"])
    pseudocode, own = anyio.run(main)
    assert any(f"{name}(" in pseudocode for name in named), (named, pseudocode)
    assert f" {smallest['name']}(" in own and f"sub_{smallest['address'][2:]}(" not in own, own


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(0, 20_000), at=st.integers(0, 4096), noise=st.binary(min_size=1, max_size=64))
def test_hostile_files_get_a_bounded_answer(samples, tmp_path, cut, at, noise, capsysbinary):
    """A truncated or overwritten binary (headers, section table, code) gives the index program an answer, never
    an exception: a snapshot, or a refusal the caller turns into the engine's attempt."""
    data = samples["pie"].read_bytes()
    damaged = (data[:at] + noise + data[at + len(noise) :])[: max(cut, 64)]
    target = tmp_path / f"damaged-{cut}-{at}"
    target.write_bytes(damaged)
    assert indexer.main(["indexer", str(target)]) == 0
    reply = json.loads(capsysbinary.readouterr().out)
    assert reply["ok"] in (True, False)
    if reply["ok"]:
        spans = sorted(
            (int(p["address"], 16), p["size"]) for p in reply["snapshot"]["procedures"] if p["kind"] != "external"
        )
        assert all(a + n <= b for (a, n), (b, _) in zip(spans, spans[1:]))
    else:
        assert reply["reason"] in ("unsupported-format", "index-failed") and reply["message"]
