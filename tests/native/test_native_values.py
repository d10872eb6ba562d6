"""trace_native_values against ground truth it does not share: gcc-built binaries whose value flow is
known from the source, read back through nm and objdump, over MCP and through the CLI."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest

from mcp_client import connect, err, ok
from native_fixtures import nm_functions, objdump_function
from support import clean_env, rea_command

pytestmark = pytest.mark.slow

SOURCE = """
__attribute__((noinline)) int g(int x) { return x * 3; }
__attribute__((noinline)) int f(int a) { int b = a + 1; return g(b); }
int main(int argc, char **argv) { return f(argc); }
"""


@pytest.fixture(scope="module", params=["-O0", "-O1"])
def sample(request, tmp_path_factory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    out = tmp_path_factory.mktemp("values")
    (out / "flow.c").write_text(SOURCE)
    subprocess.run(["gcc", request.param, "-o", str(out / "flow"), str(out / "flow.c")], check=True)
    return out / "flow"


def value(reply) -> dict:
    assert reply.is_error is False, reply.content[0].text
    return reply.structured_content["normalized_result"]


def truth(path: Path) -> dict:
    """What objdump says about f and g: instruction addresses, f's call to g, g's return, g's first read of x."""
    fn = nm_functions(path)
    rows = {name: objdump_function(path, name) for name in ("f", "g")}
    call = next(r for r in rows["f"] if r["mnemonic"] == "call" and int(r["text"].split()[0], 16) == int(fn["g"], 16))
    reads_x = next(r for r in rows["g"] if re.search(r"\b[re]di\b", r["text"]))
    return {
        "f": fn["f"],
        "g": fn["g"],
        "main": fn["main"],
        "insns": {name: {hex(r["address"]) for r in rows[name]} for name in rows},
        "call": hex(call["address"]),
        "ret": hex(next(r for r in rows["g"] if r["mnemonic"].startswith("ret"))["address"]),
        "reads_x": hex(reads_x["address"]),
    }


def edges_of(result: dict, kind: str) -> set[tuple]:
    return {(e["source"], e["target"], e["input_index"]) for e in result["edges"] if e["kind"] == kind}


def test_value_flow_binds_f_to_g_as_objdump_shows(sample):
    t = truth(sample)
    f, g = t["f"], t["g"]

    async def main():
        async with connect() as s:
            ok(await s.call_tool("open_binary", {"path": str(sample)}))
            reply = await s.call_tool("trace_native_values", {"procedure": "f"})
            r = value(reply)
            assert r["seed"] == "f" and len(r["target_sha256"]) == 64
            assert [(p["address"], p["depth"]) for p in r["procedures"]] == [(f, 0), (g, 1)]
            nodes = {n["id"]: n for n in r["nodes"]}
            # every instruction objdump prints is one operation node, and nothing else is
            for name, start in (("f", f), ("g", g)):
                ops = {n["operation"]["address"] for n in r["nodes"] if n["procedure"] == start and n["operation"]}
                assert ops == t["insns"][name]
            assert nodes[f"{f}/parameter:0"]["kind"] == "parameter" and nodes[f"{g}/parameter:0"]["parameter"]
            call = nodes[f"{f}/{t['call']}"]["operation"]
            assert call["opcode"] == "CALL" and call["inputs"][0]["location"] == g
            assert call["inputs"][1]["location"] == "rdi" and call["output"]["location"] == "rax"
            assert (f"{f}/{t['call']}", g, None) in edges_of(r, "call")
            assert edges_of(r, "argument-binding") == {(f"{f}/{t['call']}", f"{g}/parameter:0", 1)}
            assert edges_of(r, "return-binding") == {(f"{g}/{t['ret']}", f"{f}/{t['call']}", 1)}
            assert (f"{g}/parameter:0", f"{g}/{t['reads_x']}", 0) in edges_of(r, "parameter-use")
            # the argument's definition flows into the call, and g's result into its return
            assert any(tgt == f"{f}/{t['call']}" and i == 1 for _, tgt, i in edges_of(r, "def-use"))
            assert any(tgt == f"{g}/{t['ret']}" and i == 1 for _, tgt, i in edges_of(r, "def-use"))
            assert r["truncated"] is False and r["next_offset"] is None and r["unknowns"] == []
            assert r["budgets"]["functions"] == {"limit": 16, "used": 2, "exhausted": False}
            assert r["total_nodes"] == len(r["nodes"]) and r["total_edges"] == len(r["edges"])
            # each node cites its procedure's retained native_value_flow Evidence
            links = set(reply.structured_content["evidence_links"])
            assert {n["evidence_id"] for n in r["nodes"]} == links == {p["evidence_id"] for p in r["procedures"]}
            bundle = ok(
                await s.call_tool(
                    "get_evidence_bundle", {"detail": "summary", "filters": {"operation": "native_value_flow"}}
                )
            )
            assert {rec["evidence_id"] for rec in bundle["records"]} == links

    anyio.run(main)


def test_budgets_stop_the_trace_and_say_so(sample):
    t = truth(sample)

    async def main():
        async with connect() as s:
            ok(await s.call_tool("open_binary", {"path": str(sample)}))
            tiny = value(await s.call_tool("trace_native_values", {"procedure": "f", "max_nodes": 3}))
            assert tiny["total_nodes"] == 3 and tiny["truncated"] is True
            assert tiny["budgets"]["nodes"] == {"limit": 3, "used": 3, "exhausted": True}
            assert any("max_nodes" in u["reason"] for u in tiny["unknowns"])
            assert [p["address"] for p in tiny["procedures"]] == [t["f"]]  # nothing more is analysed once full
            shallow = value(await s.call_tool("trace_native_values", {"procedure": "f", "max_depth": 0}))
            assert [p["address"] for p in shallow["procedures"]] == [t["f"]] and shallow["truncated"] is True
            assert shallow["budgets"]["depth"]["exhausted"] is True
            assert any(u["address"] == t["call"] and "max_depth" in u["reason"] for u in shallow["unknowns"])
            one = value(await s.call_tool("trace_native_values", {"procedure": "main", "max_functions": 1}))
            assert one["decompilations"] == 1 and one["budgets"]["functions"]["exhausted"] is True
            assert any(u["procedure"] == t["f"] and "max_functions" in u["reason"] for u in one["unknowns"])
            sites = value(await s.call_tool("trace_native_values", {"procedure": "main", "max_call_sites": 1}))
            assert sites["budgets"]["call_sites"] == {"limit": 1, "used": 1, "exhausted": True}
            assert any(u["address"] == t["call"] for u in sites["unknowns"])
            few = value(await s.call_tool("trace_native_values", {"procedure": "f", "max_edges": 2}))
            assert few["total_edges"] == 2 and few["budgets"]["edges"]["exhausted"] is True

    anyio.run(main)


def test_pages_partition_the_graph_in_a_stable_order(sample):
    async def main():
        async with connect() as s:
            ok(await s.call_tool("open_binary", {"path": str(sample)}))
            whole = value(await s.call_tool("trace_native_values", {"procedure": "main"}))
            ids, edges, offset = [], [], 0
            while offset is not None:
                page = value(
                    await s.call_tool("trace_native_values", {"procedure": "main", "offset": offset, "limit": 4})
                )
                assert page["total_nodes"] == whole["total_nodes"] and len(page["nodes"]) <= 4
                assert page["page"]["offset"] == offset and page["truncated"] is (
                    len(page["nodes"]) != page["total_nodes"]
                )
                ids += [n["id"] for n in page["nodes"]]
                edges += page["edges"]
                offset = page["next_offset"]
            assert ids == [n["id"] for n in whole["nodes"]] and len(set(ids)) == len(ids)
            assert sorted(map(json.dumps, edges)) == sorted(map(json.dumps, whole["edges"]))

    anyio.run(main)


def test_bad_input_gets_canonical_errors(sample):
    async def main():
        async with connect() as s:
            ok(await s.call_tool("open_binary", {"path": str(sample)}))
            missing = err(await s.call_tool("trace_native_values", {"procedure": "no_such_fn"}), "invalid_request")
            assert "no_such_fn" in missing["message"]
            for field, bad in (("max_nodes", 0), ("limit", 5001), ("max_depth", 17), ("max_functions", 65)):
                body = err(await s.call_tool("trace_native_values", {"procedure": "f", field: bad}), "invalid_request")
                assert field in json.dumps(body)

    anyio.run(main)


def test_cli_traces_values(sample, tmp_path):
    t = truth(sample)
    env = clean_env(REA_CACHE_DIR=str(tmp_path / "cache"))

    def rea(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*rea_command(), *args], capture_output=True, text=True, env=env, timeout=600)

    done = rea("trace-native-values", str(sample), "--procedure", "f", "--format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)["normalized_result"]
    assert (f"{t['f']}/{t['call']}", f"{t['g']}/parameter:0", 1) in edges_of(result, "argument-binding")
    text = rea("trace-native-values", str(sample), "--procedure", "f")
    assert text.returncode == 0, text.stderr
    assert f"argument-binding: {t['f']}/{t['call']} -> {t['g']}/parameter:0" in text.stdout
    paged = rea("trace-native-values", str(sample), "--procedure", "f", "--limit", "2")
    assert paged.returncode == 0 and "more nodes from --offset 2" in paged.stdout
    called = rea(
        "call", "trace_native_values", "--target", str(sample), "--procedure", t["f"], "--max-depth", "0", "--json"
    )
    assert called.returncode == 0, called.stderr
    assert [p["address"] for p in json.loads(called.stdout)["normalized_result"]["procedures"]] == [t["f"]]
    bad = rea("trace-native-values", str(sample), "--procedure", "f", "--max-nodes", "0")
    assert bad.returncode != 0 and "max_nodes" in bad.stdout + bad.stderr
