"""Native answers from the binary's own metadata: Go pclntab (ELF, PE, Mach-O builds by the Debian Go
toolchain, names checked against `go tool nm` of the unstripped build), exception-frame starts of
stripped static binaries (checked against readelf), and the overview surviving an engine fault."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest

from mcp_client import connect, err, ok
from native_fixtures import ok_evidence, result
from support import clean_env, rea_command

pytestmark = pytest.mark.slow
PROGRAM = """package main

import (
\t"fmt"
\t"os"

\t"example.com/greet"
)

//go:noinline
func helperAdd(a, b int) int { return a + b }

//go:noinline
func countdown(n int) int {
\tif n <= 0 {
\t\treturn 0
\t}
\treturn 1 + countdown(n-1)
}

func main() {
\tfmt.Println(greet.Hello(os.Args[0]), helperAdd(len(os.Args), countdown(len(os.Args))))
}
"""
DEPENDENCY = """package greet

import "strings"

//go:noinline
func Hello(name string) string { return "hello " + strings.ToUpper(name) }
"""
TARGETS = {"elf": ("linux", "amd64"), "pe": ("windows", "amd64"), "mach-o": ("darwin", "arm64")}


def _go(args: list[str], cwd: Path, env: dict[str, str]) -> None:
    subprocess.run(["go", *args], cwd=cwd, env=env, check=True, capture_output=True, timeout=600)


@pytest.fixture(scope="module")
def go_builds(tmp_path_factory) -> dict[str, dict[str, Path]]:
    """For each format: the stripped build (-s -w) and the unstripped one nm reads."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    root = tmp_path_factory.mktemp("go")
    (root / "greet").mkdir()
    (root / "greet" / "go.mod").write_text("module example.com/greet\n\ngo 1.19\n")
    (root / "greet" / "greet.go").write_text(DEPENDENCY)
    app = root / "app"
    app.mkdir()
    (app / "go.mod").write_text(
        "module example.com/reagotest\n\ngo 1.19\n\nrequire example.com/greet v0.1.0\n\n"
        "replace example.com/greet => ../greet\n"
    )
    (app / "main.go").write_text(PROGRAM)
    builds: dict[str, dict[str, Path]] = {}
    for fmt, (goos, goarch) in TARGETS.items():
        env = clean_env(
            GOOS=goos, GOARCH=goarch, GOCACHE=str(root / "cache"), GOFLAGS="-mod=mod", CGO_ENABLED="0", GOPROXY="off"
        )
        stripped, full = root / f"{fmt}-stripped", root / f"{fmt}-full"
        _go(["build", "-ldflags=-s -w", "-o", str(stripped), "."], app, env)
        _go(["build", "-o", str(full), "."], app, env)
        builds[fmt] = {"stripped": stripped, "full": full}
    return builds


def go_nm(path: Path) -> dict[tuple[str, str], int]:
    """(name, address) -> size of every text symbol `go tool nm` reads from the unstripped build (an
    assembly function's ABI0 name loses its `.abi0`, as pclntab stores it)."""
    out = subprocess.run(["go", "tool", "nm", "-size", str(path)], capture_output=True, text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "Tt":
            found[(parts[3].removesuffix(".abi0"), f"0x{int(parts[0], 16):x}")] = int(parts[1])
    return found


def nm_address(nm: dict[tuple[str, str], int], name: str) -> str:
    return next(address for (symbol, address) in nm if symbol == name)


def test_go_functions_and_build_info_from_pclntab(go_builds, tmp_path):
    version = subprocess.run(["go", "env", "GOVERSION"], capture_output=True, text=True, check=True).stdout.strip()

    async def main():
        answers = {}
        async with connect(REA_CACHE_DIR=str(tmp_path)) as s:
            for fmt, build in go_builds.items():
                ok(await s.call_tool("open_binary", {"path": str(build["stripped"])}))
                overview = ok_evidence(await s.call_tool("binary_overview", {}))
                listing = result(await s.call_tool("list_procedures", {}))
                answers[fmt] = overview, listing
        return answers

    for fmt, (overview, listing) in anyio.run(main).items():
        facts = overview["normalized_result"]
        # Go's darwin linker keeps the symbol table under -s (go tool nm lists it): that build is not stripped
        assert overview["subject"]["format"] == fmt and facts["stripped"] is (fmt != "mach-o")
        go = facts["go"]
        assert go["pclntab_layout"] == "1.18" and go["go_version"] == version and go["problems"] == []
        assert go["module_path"] == "example.com/reagotest"
        assert go["dependencies"] == [{"path": "example.com/greet", "version": "v0.1.0 => ../greet (devel)"}]
        assert facts["analysis"]["source"] == "index"  # pclntab names and extents, then the capstone sweep
        nm = go_nm(go_builds[fmt]["full"])
        if fmt == "mach-o":  # Mach-O symbols of unqualified (assembly) functions carry the C underscore
            nm = {(n[1:] if n.startswith("_") else n, a): size for (n, a), size in nm.items()}
        ours = {(r["value"], r["address"]): r["size"] for r in listing}
        assert {"main.main", "main.helperAdd", "example.com/greet.Hello", "runtime.main"} <= {n for n, _ in ours}
        simple = {k for k in nm if not k[0].startswith("type..") and k[0] not in ("runtime.text", "runtime.etext")}
        assert simple <= set(ours), sorted(simple - set(ours))[:5]
        for key in simple:  # pclntab extents include the alignment padding nm leaves out
            assert nm[key] <= ours[key] < nm[key] + 64, key


def test_go_cli_overview(go_builds, tmp_path):
    env = clean_env(REA_CACHE_DIR=str(tmp_path))
    path = str(go_builds["elf"]["stripped"])
    done = subprocess.run(
        [*rea_command(), "analyze", path, "--format", "json"], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    record = json.loads(done.stdout)
    assert record["normalized_result"]["go"]["module_path"] == "example.com/reagotest"
    assert any(r["name"] == "main.main" for r in record["normalized_result"]["largest_procedures"]) or (
        record["normalized_result"]["procedure_count"] > 1000
    )


def test_go_cfg_names_and_fragments(go_builds, tmp_path):
    """A stripped Go binary keeps pclntab names and extents: no listed function starts inside another's (a call
    into runtime.duffzero's middle is a call of duffzero), callers are other functions, never a function itself."""

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path)) as s:
            ok(await s.call_tool("open_binary", {"path": str(go_builds["elf"]["stripped"])}))
            callers = result(await s.call_tool("procedure_callers", {"procedure": "main.helperAdd"}))
            overview = result(await s.call_tool("binary_overview", {}))
            listing = result(await s.call_tool("list_procedures", {}))
            main_fn = result(await s.call_tool("procedure_info", {"procedure": "main.main"}))
            callees = {
                name: result(await s.call_tool("procedure_callees", {"procedure": name}))
                for name in ("main.main", "main.countdown")
            }
            return callers, overview, listing, main_fn, callees

    callers, overview, listing, main_fn, callees = anyio.run(main)
    nm = go_nm(go_builds["elf"]["full"])
    assert callers == [nm_address(nm, "main.main")]
    assert overview["analysis"]["source"] == "index"  # the fast index: pclntab extents, no fragments to fold
    functions = [r for r in listing if r["kind"] == "function"]
    named = {r["value"] for r in functions}
    assert {"main.main", "runtime.main"} <= named
    extents = sorted((int(a, 16), int(a, 16) + size) for (_, a), size in nm.items() if size)
    starts = {a for a, _ in extents}
    for row in functions:  # no listed function starts strictly inside another's extent
        at = int(row["address"], 16)
        assert at in starts or not any(lo < at < hi for lo, hi in extents), row
    assert main_fn["entrypoint"] == nm_address(nm, "main.main")
    # a function is its own callee only when it calls itself: main.main's morestack prologue jumps back to its
    # entry (objdump: jmp <main.main>), main.countdown calls itself (call <main.countdown>)
    branches = objdump_branches(go_builds["elf"]["full"])
    assert "jmp <main.main>" in branches["main.main"] and "call <main.main>" not in branches["main.main"]
    assert "call <main.countdown>" in branches["main.countdown"]
    assert nm_address(nm, "main.main") not in callees["main.main"]
    assert nm_address(nm, "main.countdown") in callees["main.countdown"]
    assert nm_address(nm, "main.countdown") in callees["main.main"]


def objdump_branches(path: Path) -> dict[str, set[str]]:
    """function -> its direct calls and jumps to function entries ("call <f>", "jmp <f>"), as objdump -d prints."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(path)], capture_output=True, text=True).stdout
    found: dict[str, set[str]] = {}
    current = ""
    for line in out.splitlines():
        header = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if header:
            current = header.group(1)
        branch = re.search(r"\s(call|jmp)q?\s+[0-9a-f]+ <([^>+]+)>$", line)
        if branch:
            found.setdefault(current, set()).add(f"{branch.group(1)} <{branch.group(2)}>")
    return found


# ----------------------------------------------------------- engine faults


@pytest.fixture(scope="module")
def static_stripped(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("static") / "static_s"
    source = Path(__file__).parents[1] / "fixtures" / "sample.c"
    subprocess.run(["gcc", "-static", "-s", "-O1", "-o", str(out), str(source)], check=True, capture_output=True)
    return out


def fde_starts(path: Path) -> dict[str, int]:
    """Every FDE's start -> size, as readelf decodes .eh_frame."""
    out = subprocess.run(
        ["readelf", "--debug-dump=frames", str(path)], capture_output=True, text=True, check=True
    ).stdout
    found = {}
    for lo, hi in re.findall(r"FDE cie=\w+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", out):
        if int(lo, 16):
            found[f"0x{int(lo, 16):x}"] = int(hi, 16) - int(lo, 16)
    return found


def test_overview_survives_an_engine_fault(static_stripped, tmp_path):
    """The fast index failing and CFG recovery raising in both profiles (forced) still answers, from .eh_frame,
    saying so."""

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path), REA_NATIVE_FAULT="index,default,safe") as s:
            ok(await s.call_tool("open_binary", {"path": str(static_stripped)}))
            listing = result(await s.call_tool("list_procedures", {}))
            first = listing[len(listing) // 2]["address"]
            callers = ok_evidence(await s.call_tool("procedure_callers", {"procedure": first}))  # the CFG fails
            overview = ok_evidence(await s.call_tool("binary_overview", {}))
            instructions = result(await s.call_tool("read_function_instructions", {"procedure": first}))
            pseudo = await s.call_tool("procedure_pseudo_code", {"procedure": first})
            return callers, overview, listing, instructions, pseudo

    callers, overview, listing, instructions, pseudo = anyio.run(main)
    facts = overview["normalized_result"]
    assert facts["analysis"]["source"] == "metadata" and facts["analysis"]["coverage"] == "partial"
    assert "forced engine fault in the safe profile" in facts["analysis"]["engine_error"]
    assert any("Coverage partial" in lim and "forced engine fault" in lim for lim in overview["limitations"])
    truth = fde_starts(static_stripped)
    assert {r["address"]: r["size"] for r in listing} == truth
    assert all(r["value"] == f"sub_{int(r['address'], 16):x}" for r in listing)
    assert instructions["total"] > 0 and instructions["instructions"][0].startswith(
        listing[len(listing) // 2]["address"]
    )
    assert err(pseudo, "capability_unavailable")["details"]["reason"] == "cfg-failed"
    assert callers["normalized_result"] == [] and any("Coverage partial" in lim for lim in callers["limitations"])


def test_busybox_first_overview_from_exception_frames(tmp_path):
    busybox = shutil.which("busybox")
    if busybox is None:
        pytest.skip("busybox-static is not installed (scripts/setup test installs it)")

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path)) as s:
            ok(await s.call_tool("open_binary", {"path": busybox}))
            overview = ok_evidence(await s.call_tool("binary_overview", {}))
            return overview, result(await s.call_tool("list_procedures", {}))

    overview, listing = anyio.run(main)
    facts = overview["normalized_result"]
    # the fast index: every .eh_frame start is a procedure, and so is every direct call target (busybox's own
    # code has no frame entries)
    assert facts["stripped"] is True and facts["analysis"]["source"] == "index"
    starts = fde_starts(Path(busybox))
    assert set(starts) <= {r["address"] for r in listing}
    assert facts["procedure_count"] > len(starts)


# ------------------------------------------------------------ loader formats


def test_a_macho_bundle_loads_as_a_dylib(go_builds, tmp_path):
    """A `.node`-style MH_BUNDLE (the Go Mach-O with its filetype set to MH_BUNDLE by lief, which
    file(1) then calls a bundle) is analysed instead of refused."""
    import lief

    image = lief.MachO.parse(str(go_builds["mach-o"]["stripped"])).at(0)
    image.header.file_type = lief.MachO.Header.FILE_TYPE.BUNDLE
    bundle = tmp_path / "addon.node"
    image.write(str(bundle))
    assert "bundle" in subprocess.run(["file", "-b", str(bundle)], capture_output=True, text=True).stdout

    scratch = tmp_path / "tmp"
    scratch.mkdir()

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path / "cache"), TMPDIR=str(scratch)) as s:
            ok(await s.call_tool("open_binary", {"path": str(bundle)}))
            overview = ok_evidence(await s.call_tool("binary_overview", {}))
            # the patched image stays in the worker's memory; the engine's own files (pyvex's parser cache,
            # angr's runtime database) go to the worker's scratch directory under the cache, not TMPDIR
            assert list(scratch.iterdir()) == []
            return overview

    overview = anyio.run(main)
    assert overview["subject"]["format"] == "mach-o" and overview["subject"]["architecture"] == "arm64"
    assert overview["normalized_result"]["go"]["module_path"] == "example.com/reagotest"


def test_an_arm64_pe_is_indexed_and_the_engine_refusal_says_what_and_what_to_do(tmp_path):
    """A PE whose COFF machine is ARM64 (0xaa64; a mingw x64 build with the field set, as file(1) reads it)."""
    source = tmp_path / "m.c"
    source.write_text("int main(void) { return 0; }\n")
    exe = tmp_path / "m.exe"
    subprocess.run(["x86_64-w64-mingw32-gcc", "-o", str(exe), str(source)], check=True, capture_output=True)
    data = bytearray(exe.read_bytes())
    at = int.from_bytes(data[0x3C:0x40], "little")
    data[at + 4 : at + 6] = (0xAA64).to_bytes(2, "little")
    arm = tmp_path / "arm64.exe"
    arm.write_bytes(bytes(data))
    assert "Aarch64" in subprocess.run(["file", "-b", str(arm)], capture_output=True, text=True).stdout

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path / "cache")) as s:
            ok(await s.call_tool("open_binary", {"path": str(arm)}))
            overview = ok_evidence(await s.call_tool("binary_overview", {}))  # the fast index reads it
            listing = result(await s.call_tool("list_procedures", {"limit": 1}))
            return overview, await s.call_tool("procedure_pseudo_code", {"procedure": listing[0]["address"]})

    overview, pseudo = anyio.run(main)
    assert overview["normalized_result"]["architecture"] == "arm64"
    error = err(pseudo, "target_unavailable")  # the engine still refuses it, saying what and what to do
    assert error["details"]["reason"] == "unsupported-architecture" and error["details"]["architecture"] == "ARM64"
    assert "inspect_binary_layout" in error["message"]
