"""trace_feature, build_call_path and inspect_native_api against ground truth they do not share: a
gcc-built binary read by nm, readelf and objdump."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest

from mcp_client import connect, err, ok
from native_fixtures import SOURCE, nm_functions, objdump_function, readelf_offset
from support import clean_env, rea_command

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    out = tmp_path_factory.mktemp("analyses") / "sample"
    subprocess.run(["gcc", "-O0", "-o", str(out), str(SOURCE)], check=True, capture_output=True)
    return out


def value(reply) -> dict:
    assert reply.is_error is False, reply.content[0].text
    return reply.structured_content["normalized_result"]


def rodata_strings(path: Path) -> dict[str, str]:
    """text -> address of every string readelf dumps from .rodata."""
    sections = subprocess.run(["readelf", "-SW", str(path)], capture_output=True, text=True, check=True).stdout
    line = next(row for row in sections.splitlines() if " .rodata " in row)
    base = int(line.split("]", 1)[1].split()[2], 16)
    dump = subprocess.run(["readelf", "-p", ".rodata", str(path)], capture_output=True, text=True, check=True).stdout
    found = {}
    for row in dump.splitlines():
        m = re.match(r"^\s*\[\s*([0-9a-f]+)\]\s+(.*)$", row)
        if m:
            found[m[2]] = hex(base + int(m[1], 16))
    return found


def referencing(path: Path, function: str, target: str) -> list[str]:
    """Instructions of `function` whose objdump comment or call names `target` (an address)."""
    rows = objdump_function(path, function)
    hit = re.compile(rf"(?:^|#\s*){int(target, 16):x}\b")
    return [hex(r["address"]) for r in rows if hit.search(r["text"])]


def test_trace_feature_matches_readelf_and_objdump(sample):
    fn, strings = nm_functions(sample), rodata_strings(sample)
    hello = {t: a for t, a in strings.items() if "hello" in t}
    assert len(hello) == 2

    async def main():
        async with connect() as s:
            ok(await s.call_tool("open_binary", {"path": str(sample)}))
            traced = value(await s.call_tool("trace_feature", {"query": "HELLO", "max_operations": 100}))
            assert traced["search_mode"] == "literal" and traced["query"] == "HELLO"
            assert {(m["type"], m["value"], m["address"]) for m in traced["matches"]} == {
                ("string", t, a) for t, a in hello.items()
            }
            want = {(a, site) for a in hello.values() for site in referencing(sample, "greeting", a)}
            assert {(r["target_address"], r["source_address"]) for r in traced["references"]} == want and want
            assert {r["containing_procedure"]["procedure"]["address"] for r in traced["references"]} == {fn["greeting"]}
            assert traced["truncated"] is False and traced["residual_unknowns"] == []
            # a procedure name: its callers are the call sites objdump shows
            named = value(await s.call_tool("trace_feature", {"query": "compute", "case_sensitive": True}))
            assert [(m["type"], m["address"]) for m in named["matches"]] == [("procedure", fn["compute"])]
            sites = {site for caller in ("main", "dispatch") for site in referencing(sample, caller, fn["compute"])}
            assert {r["source_address"] for r in named["references"]} == sites and len(sites) == 2
            assert (
                value(await s.call_tool("trace_feature", {"query": "HELLO", "case_sensitive": True}))["matches"] == []
            )
            # one read: the strings' first page; the rest is named, never silently dropped
            tight = value(await s.call_tool("trace_feature", {"query": "hello", "max_operations": 1}))
            assert tight["operations_used"] == 1 and tight["references"] == []
            assert (
                tight["truncated"] is True
                and "Investigation reached the operation budget." in tight["residual_unknowns"]
            )
            capped = value(await s.call_tool("trace_feature", {"query": "hello", "limit": 1, "max_operations": 100}))
            assert len(capped["matches"]) == 1 and len(capped["references"]) == 1 and capped["truncated"] is True
            err(await s.call_tool("trace_feature", {"query": ""}), "invalid_request")

    anyio.run(main)


def _calls(path: Path, function: str, fn: dict[str, str]) -> set[str]:
    """Local functions `function` calls, from objdump."""
    wanted = {int(a, 16): a for a in fn.values()}
    rows = objdump_function(path, function)
    out = set()
    for r in rows:
        m = re.match(r"([0-9a-f]+)\b", r["text"]) if r["mnemonic"] == "call" else None
        if m and int(m[1], 16) in wanted:
            out.add(wanted[int(m[1], 16)])
    return out


def test_build_call_path_from_dossiers_matches_objdump_calls(sample):
    fn = nm_functions(sample)
    edges = {f: _calls(sample, f, fn) for f in ("main", "dispatch", "compute", "helper")}
    assert fn["helper"] in edges["compute"] and fn["compute"] in edges["main"]

    async def main():
        async with connect() as s:
            ok(await s.call_tool("open_binary", {"path": str(sample)}))
            ids = {}
            for f in ("main", "dispatch", "compute", "helper", "greeting"):
                reply = await s.call_tool("analyze_function", {"procedure": f})
                ids[f] = {"kind": "retained-evidence", "evidence_id": reply.structured_content["evidence_id"]}
            start, goal = {"address": fn["main"]}, {"address": fn["helper"]}
            four = [ids[f] for f in ("main", "dispatch", "compute", "helper")]
            found = await s.call_tool("build_call_path", {"functions": four, "start": start, "goal": goal})
            result = value(found)
            assert result["status"] == "found"
            # every simple path through those four functions, from objdump's call edges
            want, stack = set(), [(fn["main"],)]
            while stack:
                path = stack.pop()
                if path[-1] == fn["helper"]:
                    want.add(path)
                    continue
                for f, a in fn.items():
                    if f in edges and a == path[-1]:
                        stack += [(*path, n) for n in edges[f] if n not in path]
            got = {tuple(n["address"] for n in p["nodes"]) for p in result["paths"]["items"]}
            assert got == want and result["paths"]["total"] == len(want)
            hops = [p["hops"] for p in result["paths"]["items"]]
            assert hops == sorted(hops) and result["shortest_hops"] == min(len(p) - 1 for p in want)
            assert set(found.structured_content["evidence_links"]) == {r["evidence_id"] for r in four}
            # PLT stubs main reaches have no dossier here: a path was found, but the search was not exhaustive
            assert result["search_scope"]["exhaustive"] is False
            assert any("No analyze_function Evidence covers" in n for n in result["limitations"])
            # compute -> helper only, both complete: greeting is provably not reached
            none = value(
                await s.call_tool(
                    "build_call_path",
                    {
                        "functions": [ids["compute"], ids["helper"]],
                        "start": {"address": fn["compute"]},
                        "goal": {"address": fn["greeting"]},
                    },
                )
            )
            assert none["status"] == "not_found" and none["search_scope"]["exhaustive"] is True
            assert none["paths"]["items"] == [] and none["shortest_hops"] is None
            # the same goal from main, with main's callees undocumented: unknown, not not_found
            open_ = value(
                await s.call_tool(
                    "build_call_path", {"functions": [ids["main"]], "start": start, "goal": {"address": "0x1"}}
                )
            )
            assert open_["status"] == "unknown"
            capped = value(
                await s.call_tool("build_call_path", {"functions": four, "start": start, "goal": goal, "max_paths": 1})
            )
            assert (
                capped["status"] == "truncated"
                and capped["paths"]["total"] is None
                and capped["paths"]["lower_bound"] == 2
            )
            shallow = value(
                await s.call_tool("build_call_path", {"functions": four, "start": start, "goal": goal, "max_depth": 1})
            )
            assert shallow["status"] == "unknown" and any("max_depth=1" in n for n in shallow["limitations"])
            missing = err(
                await s.call_tool("build_call_path", {"functions": [ids["helper"]], "start": start, "goal": goal}),
                "invalid_request",
            )
            assert "start" in missing["message"]
            overview = await s.call_tool("binary_overview", {})
            ref = {"kind": "retained-evidence", "evidence_id": overview.structured_content["evidence_id"]}
            err(
                await s.call_tool("build_call_path", {"functions": [ref], "start": start, "goal": goal}),
                "invalid_request",
            )

    anyio.run(main)


def test_cli_trace_feature_and_build_call_path(sample, tmp_path):
    fn = nm_functions(sample)
    env = clean_env(REA_CACHE_DIR=str(tmp_path / "cache"))

    def rea(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*rea_command(), *args], capture_output=True, text=True, env=env, timeout=600)

    traced = rea("trace-feature", str(sample), "hello, world", "--format", "json")
    assert traced.returncode == 0, traced.stderr
    matches = json.loads(traced.stdout)["normalized_result"]["matches"]
    assert [m["address"] for m in matches] == [rodata_strings(sample)["hello, world"]]
    text = rea("trace-feature", str(sample), "hello")
    assert text.returncode == 0 and "in greeting" in text.stdout
    paths = rea("build-call-path", str(sample), "main", "helper", "--through", "compute", "dispatch")
    assert paths.returncode == 0, paths.stderr
    assert f"{fn['main']} -> {fn['helper']}: found" in paths.stdout and "main -> compute -> helper" in paths.stdout


SWITCH = """
int pick(int op, long v) {
    switch (op) {
    case 0: return v + 1; case 1: return v * 3; case 2: return v - 7; case 3: return v << 2;
    case 4: return v ^ 9; case 5: return v / 5; case 6: return v % 11; case 7: return -v;
    default: return 0;
    }
}
int main(int argc, char **argv) { return pick(argc, argc * 2L); }
"""


@pytest.fixture(scope="module")
def switch(tmp_path_factory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    out = tmp_path_factory.mktemp("switch")
    (out / "switch.c").write_text(SWITCH)
    subprocess.run(["gcc", "-O0", "-no-pie", "-o", str(out / "switch"), str(out / "switch.c")], check=True)
    return out / "switch"


def test_native_api_boundary_and_jump_table_match_objdump_and_the_bytes(switch):
    fn = nm_functions(switch)
    rows = objdump_function(switch, "pick")
    starts = {hex(r["address"]) for r in rows}
    jumps = [hex(r["address"]) for r in rows if "jmp" in r["mnemonic"] and r["text"] in ("rax", "rdx")]
    prologue = [r["text"] for r in rows[:8]]
    assert any(t.endswith(",edi") for t in prologue) and any(t.endswith(",rsi") for t in prologue)

    async def main():
        async with connect() as s:
            ok(await s.call_tool("open_binary", {"path": str(switch)}))
            got = value(await s.call_tool("inspect_native_api", {"procedure": "pick"}))
            assert got["schema_version"] == 1 and got["procedure"] == {"address": fn["pick"], "name": "pick"}
            b = got["boundary"]
            assert b["available"] is True and "SystemV" in b["calling_convention"]
            assert b["parameters"][0]["storage"] == "rdi" and "rsi" in b["parameters"][1]["storage"]
            assert [p["ordinal"] for p in b["parameters"]] == list(range(len(b["parameters"])))
            assert b["return_type"]["role"] == "return" and b["return_type"]["storage"] == "rax"
            (table,) = b["jump_tables"]
            assert [table["dispatch_address"]] == jumps
            (source,) = table["data_sources"]
            assert source["entry_size_bytes"] == 4 and source["entry_count"] == 8 == len(table["mappings"])
            raw = switch.read_bytes()
            at = readelf_offset(switch, int(source["address"], 16))
            base = int(source["address"], 16)  # gcc's table holds 32-bit offsets from its own start
            want = [
                hex(base + int.from_bytes(raw[at + 4 * i : at + 4 * i + 4], "little", signed=True)) for i in range(8)
            ]
            assert [m["target_address"] for m in table["mappings"]] == want and set(want) <= starts
            assert [m["data_addresses"] for m in table["mappings"]] == [
                [hex(int(source["address"], 16) + 4 * i)] for i in range(8)
            ]
            assert [s_["operation"] for s_ in got["substeps"]] == [
                "analyze_function",
                "project_native_api_boundary",
                "preserve_residual_unknowns",
            ]
            small = value(await s.call_tool("inspect_native_api", {"procedure": "pick", "max_instructions": 1}))
            assert small["boundary"]["available"] is False and "max_instructions=1" in small["boundary"]["reason"]
            assert small["residual_unknowns"] and small["substeps"][1]["status"] == "unsupported"
            err(await s.call_tool("inspect_native_api", {"procedure": "no_such_function"}), "invalid_request")

    anyio.run(main)


def test_cli_inspect_native_api(switch, tmp_path):
    env = clean_env(REA_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run(
        [*rea_command(), "inspect-native-api", str(switch), "pick"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    dispatch = next(
        hex(r["address"])
        for r in objdump_function(switch, "pick")
        if r["mnemonic"].endswith("jmp") and r["text"] == "rax"
    )
    assert f"jump table at {dispatch}: 8 targets" in done.stdout and "[rdi]" in done.stdout
