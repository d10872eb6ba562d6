"""Native replies sized for a model, and one habit for arguments (issue 28, items 3 and 4).

A gcc-built fixture whose `hub` calls forty functions: the dossier holds one procedure
object and its references name their procedures by address (objdump's call targets), each
instruction is listed once (objdump -d's count), `detail: summary` answers a small view that
pages to the same rows, and `procedure`/`address` (names, addresses, sub_<hex> names) reach
the same procedure everywhere; callers and callees are named as nm names them. Through MCP
and the CLI.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest

from mcp_client import connect, err, ok
from native_fixtures import nm_functions, objdump_calls, universal
from support import clean_env, rea_command

pytestmark = pytest.mark.slow
LEAVES = 40
SOURCE = "\n".join(
    [
        "#include <stdio.h>",
        *(
            f'__attribute__((noinline)) int leaf{i}(int x) {{ printf("leaf {i} %d\\n", x); return x + {i}; }}'
            for i in range(LEAVES)
        ),
        "__attribute__((noinline)) int hub(int x) {",
        "  int total = 0;",
        *(f"  total += leaf{i}(x + total);" for i in range(LEAVES)),
        "  return total;",
        "}",
        "int main(int argc, char **argv) { (void)argv; return hub(argc) & 0xff; }",
    ]
)


@pytest.fixture(scope="module")
def fixture(tmp_path_factory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    out = tmp_path_factory.mktemp("agent-replies")
    (out / "calls.c").write_text(SOURCE)
    target = out / "calls"
    subprocess.run(["gcc", "-O0", "-o", str(target), str(out / "calls.c")], check=True, capture_output=True)
    return target


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("rea-cache"))


def objdump_instructions(path: Path, function: str) -> list[str]:
    """The addresses of `function`'s instructions, as objdump -d lists them."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(path)], capture_output=True, text=True, check=True)
    rows, inside = [], False
    for line in out.stdout.splitlines():
        header = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if header:
            inside = header.group(1) == function
            continue
        row = re.match(r"^\s+([0-9a-f]+):\s+\S", line)
        if inside and row:
            rows.append(f"0x{int(row.group(1), 16):x}")
    return rows


def evidence(reply) -> dict:
    assert reply.is_error is False, reply.content[0].text
    assert json.loads(reply.content[0].text) == reply.structured_content
    return reply.structured_content


def result(reply) -> dict:
    return evidence(reply)["normalized_result"]


def wire_bytes(reply) -> int:
    """What the reply costs a model: its text and its structured copy."""
    return len(reply.content[0].text.encode()) + len(json.dumps(reply.structured_content).encode())


def _procedure_objects(value) -> int:
    """Objects carrying a body: a whole procedure, as opposed to a reference to one."""
    if isinstance(value, dict):
        return ("body" in value and "address" in value) + sum(_procedure_objects(v) for v in value.values())
    if isinstance(value, list):
        return sum(_procedure_objects(v) for v in value)
    return 0


def test_the_dossier_holds_one_procedure_and_its_references_carry_objdumps_call_targets(fixture, cache_dir):
    calls = objdump_calls(fixture)["hub"]
    names = {address: name for name, address in nm_functions(fixture).items()}

    async def main():
        async with connect(REA_CACHE_DIR=cache_dir) as s:
            ok(await s.call_tool("open_binary", {"path": str(fixture)}))
            reply = await s.call_tool("analyze_function", {"procedure": "hub"})
            dossier = result(reply)
            assert _procedure_objects(dossier) == 1 and dossier["procedure"]["name"] == "hub"
            outgoing = dossier["outgoing_references"]
            assert {e["target_address"] for e in outgoing if e["kind"]["call"]} == calls
            for edge in [*outgoing, *dossier["incoming_references"]]:
                for end in ("source_procedure", "target_procedure"):
                    if edge[end] is not None:
                        assert set(edge[end]) == {"address", "name", "classification"}
                        assert names.get(edge[end]["address"], edge[end]["name"]) == edge[end]["name"]
            assert {c["address"] for c in dossier["callees"]} >= calls
            assert all(set(c) == {"address", "name", "classification"} for c in dossier["callees"])
            # one body however many references: the reply grows by a reference's own size, never a body's
            assert wire_bytes(reply) < 4 * len(json.dumps(dossier).encode())

    anyio.run(main)


def test_each_instruction_is_listed_once_as_objdump_counts_them(fixture, cache_dir):
    truth = objdump_instructions(fixture, "hub")

    async def main():
        async with connect(REA_CACHE_DIR=cache_dir) as s:
            ok(await s.call_tool("open_binary", {"path": str(fixture)}))
            reply = await s.call_tool("read_function_instructions", {"procedure": "hub", "limit": 500})
            window = result(reply)
            assert [line.split(":")[0] for line in window["instructions"]] == truth
            assert window["total"] == len(truth) and "bytes" not in window and "items" not in window
            text = reply.content[0].text
            assert all(text.count(f'"{at}: ') == 1 for at in truth)  # once in the text copy too
            with_bytes = result(
                await s.call_tool("read_function_instructions", {"address": "hub", "limit": 500, "include_bytes": True})
            )
            assert len(with_bytes["bytes"]) == len(truth) and with_bytes["instructions"] == window["instructions"]

    anyio.run(main)


SPELLINGS = (
    ("procedure_info", "procedure", "address", {}),
    ("procedure_callers", "procedure", "address", {}),
    ("procedure_callees", "procedure", "address", {}),
    ("procedure_references", "procedure", "address", {}),
    ("procedure_assembly", "procedure", "address", {}),
    ("read_function_instructions", "procedure", "address", {}),
    ("analyze_function", "procedure", "address", {"include_assembly": False}),
    ("get_call_graph", "address", "procedure", {"depth": 1}),
    ("xrefs", "address", "procedure", {}),
    ("address_name", "address", "procedure", {}),
)


def test_either_argument_and_any_spelling_reach_the_same_procedure(fixture, cache_dir):
    hub = nm_functions(fixture)["hub"]

    async def main():
        async with connect(REA_CACHE_DIR=cache_dir) as s:
            ok(await s.call_tool("open_binary", {"path": str(fixture)}))
            for tool, own, other, extra in SPELLINGS:
                answers = []
                for key, value in ((own, "hub"), (own, hub), (other, "hub"), (other, f"sub_{hub[2:]}")):
                    record = evidence(await s.call_tool(tool, {key: value, **extra}))
                    answers.append((record["subject"], record["normalized_result"]))
                assert all(a == answers[0] for a in answers), tool
            both = await s.call_tool("procedure_info", {"procedure": "hub", "address": "main"})
            assert both.is_error and json.loads(both.content[0].text)["error"]["code"] == "invalid_request"

    anyio.run(main)


def nm_names(path: Path) -> dict[str, str]:
    """address -> name of every defined function, as nm prints them."""
    return {address: name for name, address in nm_functions(path).items()}


def test_callers_and_callees_carry_the_names_nm_gives(fixture, cache_dir):
    nm, by_address = nm_functions(fixture), nm_names(fixture)

    async def main():
        async with connect(REA_CACHE_DIR=cache_dir) as s:
            ok(await s.call_tool("open_binary", {"path": str(fixture)}))
            callees = evidence(await s.call_tool("procedure_callees", {"procedure": "hub"}))
            leaves = {nm[f"leaf{i}"] for i in range(LEAVES)}
            assert leaves <= set(callees["normalized_result"])
            assert {a: n for a, n in callees["raw_result"]["names"].items() if a in leaves} == {
                a: by_address[a] for a in leaves
            }
            callers = evidence(await s.call_tool("procedure_callers", {"procedure": "leaf7"}))
            assert callers["normalized_result"] == [nm["hub"]] and callers["raw_result"]["names"] == {nm["hub"]: "hub"}
            graph = result(await s.call_tool("get_call_graph", {"procedure": "hub", "depth": 1}))
            named = {n["address"]: n["name"] for n in graph["1"]}
            assert {a: by_address[a] for a in leaves}.items() <= named.items()

    anyio.run(main)


def test_summary_detail_is_small_and_pages_to_the_complete_rows(fixture, cache_dir):
    async def main():
        async with connect(REA_CACHE_DIR=cache_dir) as s:
            ok(await s.call_tool("open_binary", {"path": str(fixture)}))
            complete = result(await s.call_tool("list_procedures", {}))
            reply = await s.call_tool("list_procedures", {"detail": "summary"})
            view = result(reply)
            assert view["kind"] == "summary" and view["parent_operation"] == "list_procedures"
            (rows,) = view["summary"]["collections"]
            assert rows["total"] == len(complete) and rows["first"] == complete[: len(rows["first"])]
            page = result(await s.call_tool(rows["next_view"]["name"], rows["next_view"]["arguments"]))
            assert page["item"] == complete[len(rows["first"]) : len(rows["first"]) + 64]
            for tool, args in (
                ("analyze_function", {"procedure": "hub"}),
                ("procedure_references", {"procedure": "hub"}),
                ("get_call_graph", {"address": "main"}),
                ("list_strings", {}),
                ("procedure_assembly", {"procedure": "hub"}),
                ("procedure_callees", {"procedure": "hub"}),
            ):
                full = await s.call_tool(tool, args)
                summary = await s.call_tool(tool, {**args, "detail": "summary"})
                summarized = result(summary)
                assert summarized["parent_evidence_id"] == evidence(full)["evidence_id"]  # detail never changes it
                assert wire_bytes(summary) <= 32 * 1024, tool

    anyio.run(main)


def test_the_cli_takes_either_argument(fixture, cache_dir):
    env = clean_env(REA_CACHE_DIR=cache_dir)
    hub = nm_functions(fixture)["hub"]
    runs = [
        ["call", "analyze_function", "--target", str(fixture), "--address", hub, "--no-include-assembly"],
        ["call", "procedure_info", "--target", str(fixture), "--procedure", f"sub_{hub[2:]}"],
        ["call", "get_call_graph", "--target", str(fixture), "--procedure", "hub", "--depth", "1"],
    ]
    replies = []
    for argv in runs:
        done = subprocess.run(
            [*rea_command(), *argv, "--format", "json"], capture_output=True, text=True, env=env, timeout=300
        )
        assert done.returncode == 0, done.stderr
        replies.append(json.loads(done.stdout))
    assert replies[0]["normalized_result"]["procedure"]["address"] == hub
    assert replies[1]["normalized_result"]["entrypoint"] == hub and replies[1]["subject"] == replies[0]["subject"]
    assert replies[2]["normalized_result"]["0"][0]["address"] == hub


def test_slice_aware_tools_default_to_the_slice_open_binary_selected(images, tmp_path, cache_dir):
    fat = universal(tmp_path, images, ("x86_64", "arm64"))

    async def main():
        async with connect(REA_CACHE_DIR=cache_dir) as s:
            for chosen in ("arm64", "x86_64"):
                ok(await s.call_tool("open_binary", {"path": str(fat), "architecture": chosen}))
                assert result(await s.call_tool("inspect_macho", {}))["slice"] == chosen
                signature = await s.call_tool("inspect_signature", {})
                assert signature.is_error is False, signature.content[0].text
                asked = evidence(await s.call_tool("inspect_signature", {"architecture": chosen}))
                assert evidence(signature)["normalized_result"] == asked["normalized_result"]

    anyio.run(main)


def objdump_bytes(path: Path, address: str, length: int) -> str:
    """The file's bytes at `address`, as objdump -d prints them (hex, no spaces)."""
    start = int(address, 16)
    out = subprocess.run(
        ["objdump", "-d", f"--start-address={start}", f"--stop-address={start + length}", str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = [re.match(r"^\s+[0-9a-f]+:\t((?:[0-9a-f]{2} )+)", line) for line in out.splitlines()]
    return "".join(r.group(1).replace(" ", "") for r in rows if r)[: 2 * length]


RAW_ADDRESS = (
    ("read_bytes", {"length": 8}),
    ("address_to_file_offset", {}),
    ("inspect_native_instruction", {}),
    ("resolve_native_call_targets", {}),
    ("goto_address", {}),
    ("next_address", {}),
    ("prev_address", {}),
    ("resolve_containing_procedure", {}),
    ("list_names", {}),
)


def test_raw_address_tools_take_a_name_resolved_to_the_address_nm_gives(fixture, cache_dir):
    hub = nm_functions(fixture)["hub"]

    async def main():
        async with connect(REA_CACHE_DIR=cache_dir) as s:
            ok(await s.call_tool("open_binary", {"path": str(fixture)}))
            for tool, extra in RAW_ADDRESS:
                answers = [
                    evidence(await s.call_tool(tool, {"address": value, **extra}))
                    for value in (hub, "hub", f"sub_{hub[2:]}")
                ]
                assert all(a["normalized_result"] == answers[0]["normalized_result"] for a in answers), tool
                located = [a["locations"] for a in answers]
                assert all(where == located[0] for where in located) and located[0] in (
                    [],
                    [{"kind": "address", "address": hub}],
                ), tool
            read = result(await s.call_tool("read_bytes", {"address": "hub", "length": 8}))
            assert read["address"] == hub and read["bytes_hex"] == objdump_bytes(fixture, hub, 8)
            named = result(await s.call_tool("list_names", {"address": "hub"}))
            assert [(r["address"], r["value"]) for r in named] == [(hub, "hub")]

    anyio.run(main)


def test_annotations_set_by_name_read_back_by_address(fixture, tmp_path):
    hub = nm_functions(fixture)["hub"]

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path)) as s:
            ok(await s.call_tool("open_binary", {"path": str(fixture)}))
            evidence(await s.call_tool("set_comment", {"address": "hub", "comment": "sums forty leaves"}))
            assert result(await s.call_tool("comment", {"address": hub})) == "sums forty leaves"
            evidence(await s.call_tool("set_bookmark", {"address": f"sub_{hub[2:]}", "name": "hub"}))
            marks = result(await s.call_tool("list_bookmarks", {}))
            assert [m["address"] for m in marks] == [hub]
            assert result(await s.call_tool("unset_bookmark", {"address": "hub"})) is True

    anyio.run(main)


def test_unknown_names_get_the_canonical_error_with_close_matches(fixture, cache_dir):
    async def main():
        async with connect(REA_CACHE_DIR=cache_dir) as s:
            ok(await s.call_tool("open_binary", {"path": str(fixture)}))
            for tool, args, field, meant in (
                ("read_bytes", {"address": "hbu"}, "address", "hub"),
                ("xrefs", {"address": "hubb"}, "address", "hub"),
                ("analyze_function", {"procedure": "leaf_7"}, "procedure", "leaf7"),
                ("trace_call_path", {"start": "mian"}, "start", "main"),
                ("trace_call_path", {"start": "main", "goal": "lef3"}, "goal", "leaf3"),
            ):
                body = err(await s.call_tool(tool, args), "invalid_request")
                details = body["details"]
                assert details["field"] == field and "sub_<hex>" in details["accepted"], (tool, body)
                assert meant in details["close_matches"] and meant in body["message"], (tool, body)

    anyio.run(main)


def test_call_paths_take_names_addresses_and_sub_names_alike(fixture, cache_dir):
    nm, names = nm_functions(fixture), nm_names(fixture)

    async def main():
        async with connect(REA_CACHE_DIR=cache_dir) as s:
            ok(await s.call_tool("open_binary", {"path": str(fixture)}))
            traced = []
            for start, goal in (("main", "leaf3"), (nm["main"], nm["leaf3"]), ("main", f"sub_{nm['leaf3'][2:]}")):
                reply = await s.call_tool("trace_call_path", {"start": start, "goal": goal, "max_depth": 2})
                traced.append(result(reply))
            assert all(t == traced[0] for t in traced) and traced[0]["goal_status"] == "reached"
            assert traced[0]["traversal_path"] == [nm["main"], nm["hub"], nm["leaf3"]]
            assert all(n["name"] == names.get(n["address"]) for n in traced[0]["nodes"])
            ids = [
                {
                    "kind": "retained-evidence",
                    "evidence_id": evidence(await s.call_tool("analyze_function", {"procedure": f}))["evidence_id"],
                }
                for f in ("main", "hub")
            ]
            built = []
            for start, goal in (("main", "leaf3"), (nm["main"], nm["leaf3"]), (f"sub_{nm['main'][2:]}", "leaf3")):
                args = {"functions": ids, "start": {"address": start}, "goal": {"address": goal}}
                built.append(result(await s.call_tool("build_call_path", args)))
            assert all(b == built[0] for b in built)
            assert [n["address"] for n in built[0]["paths"]["items"][0]["nodes"]] == [
                nm["main"],
                nm["hub"],
                nm["leaf3"],
            ]
            unknown = {"functions": ids, "start": {"address": "mian"}, "goal": {"address": "leaf3"}}
            body = err(await s.call_tool("build_call_path", unknown), "invalid_request")
            assert body["details"]["field"] == "start.address" and "main" in body["details"]["close_matches"]

    anyio.run(main)


TRACE = {"procedure": "hub", "max_depth": 1, "max_functions": 6}


def test_value_trace_summary_is_small_and_pages_to_the_complete_nodes(fixture, cache_dir):
    async def main():
        async with connect(REA_CACHE_DIR=cache_dir) as s:
            ok(await s.call_tool("open_binary", {"path": str(fixture)}))
            full = await s.call_tool("trace_native_values", TRACE)
            complete = result(full)
            reply = await s.call_tool("trace_native_values", {**TRACE, "detail": "summary"})
            view = result(reply)
            assert view["kind"] == "summary" and view["parent_operation"] == "trace_native_values"
            assert view["parent_evidence_id"] == evidence(full)["evidence_id"]  # delivery detail is not a parameter
            collections = {c["facet"]: c for c in view["summary"]["collections"]}
            assert set(collections) == {"nodes", "edges", "procedures", "unknowns"}
            for facet, c in collections.items():
                assert c["total"] == len(complete[facet]) and c["first"] == complete[facet][: len(c["first"])]
            facts = view["summary"]["facts"]
            for key in ("total_nodes", "total_edges", "next_offset", "truncated", "budgets", "page", "seed"):
                assert facts[key] == complete[key], key
            nodes = collections["nodes"]
            page = result(await s.call_tool(nodes["next_view"]["name"], nodes["next_view"]["arguments"]))
            shown = len(nodes["first"])
            assert page["item"] == complete["nodes"][shown : shown + 64]
            assert wire_bytes(reply) <= 32 * 1024 and 10 * wire_bytes(reply) < wire_bytes(full)

    anyio.run(main)


def test_a_dossier_summary_keeps_counts_and_the_pseudocode_head(fixture, cache_dir):
    truth = objdump_instructions(fixture, "hub")

    async def main():
        async with connect(REA_CACHE_DIR=cache_dir) as s:
            ok(await s.call_tool("open_binary", {"path": str(fixture)}))
            full = await s.call_tool("analyze_function", {"procedure": "hub"})
            dossier = result(full)
            reply = await s.call_tool("analyze_function", {"procedure": "hub", "detail": "summary"})
            summary = result(reply)["summary"]
            collections = {c["facet"]: c for c in summary["collections"]}
            assert collections["assembly"]["total"] == len(truth) and collections["assembly"]["first"] == []
            for facet in ("assembly", "basic_blocks", "incoming_references", "outgoing_references"):
                assert collections[facet]["first"] == [] and collections[facet]["total"] == len(dossier[facet])
                assert (collections[facet]["next_view"] is None) == (collections[facet]["total"] == 0)
            assert collections["callees"]["first"] == dossier["callees"][:3]
            assert collections["callees"]["total"] == len(dossier["callees"]) >= LEAVES
            head = collections["pseudocode"]["first"][0]
            assert dossier["pseudocode"].startswith(head) and "pseudocode" not in summary["facts"]
            procedure = summary["procedure"]
            assert procedure["address"] == dossier["procedure"]["address"] and "locals" not in procedure
            assert procedure["local_count"] == len(dossier["procedure"]["locals"])
            assert 3 * len(reply.content[0].text) < len(full.content[0].text)

    anyio.run(main)


def test_the_cli_summarizes_a_value_trace(fixture, cache_dir):
    env = clean_env(REA_CACHE_DIR=cache_dir)
    family = [*rea_command(), "trace-native-values", str(fixture), "--procedure", "hub", "--max-functions", "3"]
    done = subprocess.run([*family, "--detail", "summary"], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "nodes" in done.stdout and re.search(r"retained as ev_[0-9a-f]{64}", done.stdout)
    call = [
        *rea_command(),
        "call",
        "trace_native_values",
        "--target",
        str(fixture),
        "--procedure",
        "sub_" + nm_functions(fixture)["hub"][2:],
    ]
    done = subprocess.run(
        [*call, "--max-functions", "3", "--detail", "summary", "--format", "json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    view = json.loads(done.stdout)["normalized_result"]
    assert view["kind"] == "summary" and view["summary"]["facts"]["budgets"]["functions"]["limit"] == 3


def nm_objects(path: Path) -> dict[str, str]:
    """name -> link-time address of every defined data symbol, as nm prints it."""
    out = subprocess.run(["nm", "--defined-only", str(path)], capture_output=True, text=True, check=True).stdout
    rows = (line.split() for line in out.splitlines())
    return {r[2]: f"0x{int(r[0], 16):x}" for r in rows if len(r) == 3 and r[1] in "DdBb"}


def test_a_globals_type_and_bytes_are_read_by_its_symbol_name(tmp_path, cache_dir):
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    (tmp_path / "g.c").write_text(
        "struct point { int x; int y; };\nstruct point origin = {1, 2};\nint main(void) { return origin.x; }\n"
    )
    target = tmp_path / "g"
    subprocess.run(["gcc", "-g", "-O0", "-o", str(target), str(tmp_path / "g.c")], check=True, capture_output=True)
    origin = nm_objects(target)["origin"]

    async def main():
        async with connect(REA_CACHE_DIR=cache_dir) as s:
            ok(await s.call_tool("open_binary", {"path": str(target)}))
            by_name = evidence(await s.call_tool("inspect_native_data_type", {"address": "origin"}))
            by_address = evidence(await s.call_tool("inspect_native_data_type", {"address": origin}))
            assert by_name["normalized_result"] == by_address["normalized_result"]
            assert [f["name"] for f in by_name["normalized_result"]["fields"]] == ["x", "y"]
            assert by_name["locations"] == [{"kind": "address", "address": origin}]
            read = result(await s.call_tool("read_bytes", {"address": "origin", "length": 8}))
            assert read["address"] == origin and read["bytes_hex"] == "0100000002000000"  # {1, 2} little-endian

    anyio.run(main)
