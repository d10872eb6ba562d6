"""Native answers name what the file names and nothing else, and write nothing beside a target.

- Exports name their procedures: ELF dynamic symbols (checked against `nm -D`), the PE export directory of a
  mingw DLL (`x86_64-w64-mingw32-objdump -p`), a Mach-O bundle's export trie (`llvm-objdump --exports-trie`).
- A static binary has no imports (`readelf -d`, `readelf --dyn-syms`): angr's placeholders for targets it did
  not resolve and the system calls it models are neither imports nor names; unresolved calls are counted.
- A function is its own callee only when a call instruction calls it (`objdump -d`).
- Every engine file (angr's runtime database, pyvex's parser cache) lives in the worker's scratch directory
  under REA_CACHE_DIR, removed when the worker stops, even when it was killed.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import stat
import subprocess
from pathlib import Path

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from effects.native.metadata import exports
from mcp_client import connect, ok
from native_fixtures import _workers, ok_evidence, result
from support import clean_env, rea_command

pytestmark = pytest.mark.slow
LIBRARY = """
int exported_add(int a, int b) { return a + b; }
int exported_data = 5;
static int hidden(int x) { return x * 2; }
int exported_mul(int a) { return hidden(a) * 3; }
"""
# static, no libc: a system call and a call through a pointer angr cannot resolve, and a recursive function
STATIC = """
int (*volatile handler)(int);
__attribute__((noipa)) int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
__attribute__((noipa)) int dispatch(int x) { return handler(x) + 1; }
void _start(void) {
    int status = fact(5) + dispatch(1);
    __asm__ volatile("mov $60, %%eax; syscall" :: "D"(status));
    for (;;) {}
}
"""
COUNT = 700  # more functions than angr keeps in memory for a file this size: it spills them to its database


def _build(tmp: Path, name: str, source: str, *flags: str, cc: str = "gcc") -> Path:
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    (tmp / f"{name}.c").write_text(source)
    out = tmp / name
    subprocess.run([cc, *flags, "-o", str(out), str(tmp / f"{name}.c")], check=True, capture_output=True)
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("exports")
    many = "char pad[300000] = {1};\n" + "".join(
        f"__attribute__((noinline)) int f{i}(int x) {{ return x * {i + 3} + pad[{i}]; }}\n" for i in range(COUNT)
    )
    many += (
        "void _start(void) { int s = 1; "
        + " ".join(f"s = f{i}(s);" for i in range(COUNT))
        + ' __asm__ volatile("mov $60, %%eax; syscall" :: "D"(s)); for (;;) {} }\n'
    )
    return {
        "library": _build(tmp, "libx.so", LIBRARY, "-O1", "-shared", "-fPIC", "-s"),
        "dll": _build(tmp, "x.dll", LIBRARY, "-O1", "-shared", cc="x86_64-w64-mingw32-gcc"),
        "static": _build(tmp, "static", STATIC, "-O0", "-static", "-nostdlib", "-no-pie", "-fno-pie"),
        "many": _build(tmp, "many", many, "-O1", "-static", "-nostdlib", "-no-pie", "-fno-pie"),
    }


# ----------------------------------------------------------------- exports


def nm_dynamic(path: Path) -> dict[str, str]:
    """name -> address of every defined dynamic symbol of the file, as `nm -D --defined-only` lists it."""
    out = subprocess.run(["nm", "-D", "--defined-only", str(path)], capture_output=True, text=True, check=True).stdout
    return {p[2]: f"0x{int(p[0], 16):x}" for p in (line.split() for line in out.splitlines()) if len(p) == 3}


def mingw_exports(path: Path) -> dict[str, str]:
    """name -> ImageBase + RVA of each export, as `x86_64-w64-mingw32-objdump -p` prints the export tables."""
    out = subprocess.run(
        ["x86_64-w64-mingw32-objdump", "-p", str(path)], capture_output=True, text=True, check=True
    ).stdout
    base = int(re.search(r"^ImageBase\s+([0-9a-fA-F]+)", out, re.M).group(1), 16)
    rvas = {int(i): int(rva, 16) for i, rva in re.findall(r"\[\s*(\d+)\] \+base\[\s*\d+\] ([0-9a-f]+) Export RVA", out)}
    table = out.split("[Ordinal/Name Pointer] Table", 1)[1]
    names = dict(re.findall(r"^\s+\[\s*(\d+)\] (\S+)$", table, re.M))
    return {name: f"0x{base + rvas[int(i)]:x}" for i, name in names.items()}


def trie_exports(path: Path) -> dict[str, str]:
    """name -> address of each export-trie entry, as `llvm-objdump --macho --exports-trie` prints it."""
    tool = shutil.which("llvm-objdump")
    if tool is None:
        pytest.skip("llvm-objdump is not installed")
    out = subprocess.run([tool, "--macho", "--exports-trie", str(path)], capture_output=True, text=True).stdout
    return {name: f"0x{int(a, 16):x}" for a, name in re.findall(r"^0x([0-9A-Fa-f]+)\s+(\S+)", out, re.M)}


def test_export_reader_against_binutils(built):
    """The worker's exports are exactly what nm -D and mingw objdump read (function exports are code)."""
    library = exports(str(built["library"]), "elf")
    assert {r["name"]: r["address"] for r in library} == nm_dynamic(built["library"])
    assert {r["name"]: r["kind"] for r in library} == {
        "exported_add": "function",
        "exported_mul": "function",
        "exported_data": "object",
    }
    dll = exports(str(built["dll"]), "pe")
    assert {r["name"]: r["address"] for r in dll} == mingw_exports(built["dll"])
    assert {r["name"] for r in dll if r["kind"] == "function"} >= {"exported_add", "exported_mul"}
    assert exports(str(built["static"]), "elf") == [] == exports(b"not a binary", "mach-o")


def test_exports_name_procedures_of_a_library_and_a_dll(built, tmp_path):
    async def main():
        listings = {}
        async with connect(REA_CACHE_DIR=str(tmp_path)) as s:
            for key in ("library", "dll"):
                ok(await s.call_tool("open_binary", {"path": str(built[key])}))
                listings[key] = result(await s.call_tool("list_procedures", {}))
        return listings

    listings = anyio.run(main)
    for key, truth in (("library", nm_dynamic(built["library"])), ("dll", mingw_exports(built["dll"]))):
        named = {r["address"]: r["value"] for r in listings[key]}
        for name in ("exported_add", "exported_mul"):
            assert named.get(truth[name]) == name, (key, name, truth[name])


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A `.node`-style Mach-O bundle whose export trie names two functions (a stripped Go darwin/arm64 build,
    its filetype set to MH_BUNDLE and two exports added by lief), and the Go names of those functions."""
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    import lief

    root = tmp_path_factory.mktemp("bundle")
    (root / "go.mod").write_text("module example.com/addon\n\ngo 1.19\n")
    (root / "main.go").write_text(
        "package main\n\n//go:noinline\nfunc register(n int) int { return n * 7 }\n\n"
        "func main() { println(register(3)) }\n"
    )
    env = clean_env(GOOS="darwin", GOARCH="arm64", CGO_ENABLED="0", GOCACHE=str(root / "cache"), GOPROXY="off")
    for name, flags in (("full", []), ("stripped", ["-ldflags=-s -w"])):
        subprocess.run(["go", "build", *flags, "-o", name, "."], cwd=root, env=env, check=True, capture_output=True)
    nm = subprocess.run(["go", "tool", "nm", str(root / "full")], capture_output=True, text=True, check=True).stdout
    go_names = {p[2]: f"0x{int(p[0], 16):x}" for p in (line.split() for line in nm.splitlines()) if len(p) == 3}
    image = lief.MachO.parse(str(root / "stripped")).at(0)
    image.add_exported_function(int(go_names["main.register"], 16), "_napi_register_module_v1")
    image.add_exported_function(int(go_names["main.main"], 16), "_addon_main")
    image.header.file_type = lief.MachO.Header.FILE_TYPE.BUNDLE
    out = root / "addon.node"
    image.write(str(out))
    return out, go_names


def test_a_bundle_export_trie_names_its_functions(bundle, tmp_path):
    path, go_names = bundle
    trie = trie_exports(path)
    assert trie["_napi_register_module_v1"] == go_names["main.register"]  # the reader sees what was added
    assert {r["name"]: r["address"] for r in exports(str(path), "mach-o")} == trie

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path)) as s:
            ok(await s.call_tool("open_binary", {"path": str(path)}))
            return result(await s.call_tool("list_procedures", {}))

    named = {r["address"]: r["value"] for r in anyio.run(main)}
    for name, address in trie.items():
        assert named.get(address) == name


# ---------------------------------------------------- imports of a static file


def test_a_static_binary_has_no_imports_and_no_engine_names(built, tmp_path):
    path = built["static"]
    dynamic = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, check=True).stdout
    assert "no dynamic section" in dynamic
    dyn_syms = subprocess.run(["readelf", "--dyn-syms", "-W", str(path)], capture_output=True, text=True).stdout
    assert "Symbol table" not in dyn_syms  # no dynamic symbols: nothing is imported
    calls = objdump_calls(path)
    assert any("*" in c for c in calls["dispatch"])  # the call through the pointer, which angr cannot resolve

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path)) as s:
            ok(await s.call_tool("open_binary", {"path": str(path)}))
            args = {"procedure": "dispatch", "direction": "outgoing"}
            references = result(await s.call_tool("procedure_references", args))  # recovers the CFG
            listing = result(await s.call_tool("list_procedures", {}))
            overview = ok_evidence(await s.call_tool("binary_overview", {"detail": "detailed"}))
            names = result(await s.call_tool("list_names", {}))
            return listing, overview["normalized_result"], names, references

    listing, overview, names, references = anyio.run(main)
    assert overview["analysis"]["source"] == "index"  # the fast index: metadata and the capstone sweep
    assert overview["imports"] == [] and overview["counts"]["imports"] == 0
    assert [r for r in listing if r["kind"] != "function"] == []
    engine_names = ("Unresolvable", "exit", "sys_")
    assert not [r for r in listing if str(r["value"]).startswith(engine_names)]
    assert not [r for r in names if str(r["value"]).startswith(engine_names)]
    assert {r["value"] for r in listing} >= {"fact", "dispatch", "_start"}
    unresolved = references["unresolved_calls"]  # the call through the pointer is counted, not a callee
    assert len(unresolved) == 1 and "indirect call" in unresolved[0]["reason"]
    assert not [r for r in references["references"] if r["kind"]["call"]]


# ---------------------------------------------------------------- recursion


def objdump_calls(path: Path) -> dict[str, list[str]]:
    """function name -> the operand of every call and jmp in it, as `objdump -d` prints them ("call <f>")."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(path)], capture_output=True, text=True).stdout
    found: dict[str, list[str]] = {}
    current = None
    for line in out.splitlines():
        header = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if header:
            current = header.group(1)
            continue
        branch = re.search(r"\s(call|jmp)q?\s+(.*)$", line)
        if branch and current:
            found.setdefault(current, []).append(f"{branch.group(1)} {branch.group(2).strip()}")
    return found


def test_recursion_is_a_call_to_the_own_entry(built, tmp_path):
    path = built["static"]
    truth = objdump_calls(path)
    assert any(c.endswith("<fact>") and c.startswith("call") for c in truth["fact"])
    assert not any(c.endswith("<dispatch>") for c in truth["dispatch"])

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path)) as s:
            ok(await s.call_tool("open_binary", {"path": str(path)}))
            fact = result(await s.call_tool("procedure_callees", {"procedure": "fact"}))
            dispatch = result(await s.call_tool("procedure_callers", {"procedure": "dispatch"}))
            return fact, dispatch

    fact, dispatch = anyio.run(main)
    symbols = nm_functions(path)
    assert symbols["fact"] in fact
    assert dispatch == [symbols["_start"]]


def nm_functions(path: Path) -> dict[str, str]:
    """name -> address of every text symbol, as nm prints it."""
    out = subprocess.run(["nm", "--defined-only", str(path)], capture_output=True, text=True, check=True).stdout
    return {
        p[2]: f"0x{int(p[0], 16):x}" for p in (line.split() for line in out.splitlines()) if p[1:2] in (["T"], ["t"])
    }


# ------------------------------------------------- nothing written beside a target


def tree(root: Path) -> dict[str, str]:
    """Every entry under root with its mode and, for files, its sha256."""
    found = {}
    for path in sorted(root.rglob("*")):
        mode = stat.filemode(path.lstat().st_mode)
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""
        found[str(path.relative_to(root))] = f"{mode} {digest}"
    return found


def test_nothing_is_written_beside_a_target(built, tmp_path):
    """A target in a read-only directory and one in a writable directory, analysed (CFG with angr spilling
    functions to its runtime database, a decompile) over MCP and by the CLI: both directories are unchanged,
    the database lived in the worker's scratch directory, and no scratch directory is left, even after the
    worker was killed."""
    readonly, writable, cache = tmp_path / "ro", tmp_path / "rw", tmp_path / "cache"
    for folder in (readonly, writable):
        folder.mkdir()
        shutil.copy(built["many"], folder / "many")
    readonly.chmod(0o555)
    before = {str(d): tree(d) for d in (readonly, writable)}
    scratch = cache / "engine"

    async def analyse(s, target: Path) -> list[str]:
        ok(await s.call_tool("open_binary", {"path": str(target)}))
        listing = result(await s.call_tool("list_procedures", {}))
        assert len(listing) > COUNT
        ok_evidence(await s.call_tool("procedure_pseudo_code", {"procedure": "f7"}))
        # without the fast index (forced off below) a value trace builds angr's whole-program CFG, which spills
        # its functions to the runtime database
        ok_evidence(await s.call_tool("trace_native_values", {"procedure": "f7", "max_depth": 0}))
        return [str(p.relative_to(scratch)) for p in scratch.glob("*/*")]

    async def main():
        async with connect(REA_CACHE_DIR=str(cache), REA_NATIVE_FAULT="index") as s:
            live = await analyse(s, readonly / "many")
            ok(await s.call_tool("close_binary", {}))
            closed = list(scratch.iterdir())
            killed = await analyse(s, writable / "many")
            for pid in _workers():
                os.kill(pid, signal.SIGKILL)
            ok(await s.call_tool("close_binary", {}))
            return live, closed, killed, list(scratch.iterdir())

    try:
        live, closed, killed, after_kill = anyio.run(main)
        done = subprocess.run(
            [*rea_command(), "analyze", str(writable / "many"), "--format", "json"],
            capture_output=True,
            text=True,
            env=clean_env(REA_CACHE_DIR=str(cache / "cli")),
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        assert before == {str(d): tree(d) for d in (readonly, writable)}
    finally:
        readonly.chmod(0o755)
    for seen in (live, killed):
        assert any(name.endswith("_angr_rtdb") for name in seen), seen  # the database was made, in the scratch
        assert any(name.split("/")[1].startswith("pyvex_ffi_parser_cache") for name in seen), seen
    cli_engine = cache / "cli" / "engine"  # `rea analyze` answers from the fast index: angr may never start
    assert closed == [] and after_kill == [] and (not cli_engine.exists() or list(cli_engine.iterdir()) == [])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(0, 4096), noise=st.binary(max_size=64), fmt=st.sampled_from(["elf", "pe", "mach-o"]))
def test_damaged_export_tables_give_a_bounded_answer(built, cut, noise, fmt):
    """A truncated or overwritten file never raises from the reader: at most the exports it could read."""
    source = {"elf": built["library"], "pe": built["dll"], "mach-o": built["library"]}[fmt].read_bytes()
    damaged = source[:cut] + noise + source[cut + len(noise) :]
    rows = exports(damaged, fmt)
    assert isinstance(rows, list) and all(set(r) == {"address", "name", "kind"} for r in rows)
