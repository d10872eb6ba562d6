"""The native family against ground truth: binaries compiled here with gcc, read by nm and objdump,
analysed by the real angr worker through the real MCP stdio server."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import anyio
import psutil
import pytest

from mcp_client import connect, err, ok
from native_fixtures import SOURCE, _workers, nm_functions, objdump_calls, ok_evidence, result
from support import clean_env, rea_command

pytestmark = pytest.mark.slow
FACETS = ("pseudocode", "assembly", "comments", "callers", "callees", "references", "strings_names", "cfg")


def nm_sizes(path: Path) -> dict[str, int]:
    """name -> symbol size of every defined function, as nm -S prints it."""
    out = subprocess.run(["nm", "-S", "--defined-only", str(path)], capture_output=True, text=True, check=True).stdout
    return {p[3]: int(p[1], 16) for p in (line.split() for line in out.splitlines()) if len(p) == 4 and p[2] in "Tt"}


async def _all_procedures(s) -> list[dict]:
    """The reference's complete array; `name` is read from `value`, as a reference client does."""
    return [{**row, "name": row["value"]} for row in result(await s.call_tool("list_procedures", {}))]


def test_every_symbol_is_a_procedure_and_objdump_calls_are_callees(binaries, cache_dir):
    truth = {name: nm_functions(path) for name, path in binaries.items() if "stripped" not in name}
    calls = objdump_calls(binaries["pie_O0_debug"])

    async def main():
        seen = {}
        async with connect(REA_CACHE_DIR=cache_dir) as s:
            for name, path in binaries.items():
                opened = ok(await s.call_tool("open_binary", {"path": str(path)}))
                assert opened["analysis_provider_binding"]["provider"]["id"] == "angr"
                ok_evidence(await s.call_tool("binary_overview", {}))
                seen[name] = await _all_procedures(s)
            ok(await s.call_tool("open_binary", {"path": str(binaries["pie_O0_debug"])}))
            callees = {
                fn: result(await s.call_tool("procedure_callees", {"procedure": fn}))
                for fn in ("main", "compute", "dispatch")
            }
            dossier = result(await s.call_tool("analyze_function", {"procedure": "greeting"}))
            overview = result(await s.call_tool("binary_overview", {}))
            return seen, callees, dossier, overview

    seen, callees, dossier, overview = anyio.run(main)
    for name, functions in truth.items():
        addresses = {p["address"] for p in seen[name]}
        missing = {f: a for f, a in functions.items() if a not in addresses}
        assert not missing, f"{name}: symbols without a procedure: {missing}"
    # the stripped build has the same code as the unstripped -O2 build: same procedure starts
    stripped = {p["address"] for p in seen["pie_O2_stripped"]}
    assert set(truth["pie_O2"].values()) - {a for a in truth["pie_O2"].values() if a not in stripped} <= stripped
    for fn in ("main", "compute", "dispatch"):
        got = set(callees[fn])  # the reference's bare address list
        assert calls[fn] <= got, f"{fn}: objdump calls {calls[fn]} not all in {got}"
    assert {"hello, world", "hello, many worlds"} <= {s["value"] for s in dossier["referenced_strings"]}
    assert all(s["source_address"].startswith("0x") for s in dossier["referenced_strings"])
    assert dossier["assembly"] and all(isinstance(line, str) for line in dossier["assembly"])
    assert all(set(b) == {"start", "end", "successors"} for b in dossier["basic_blocks"])
    assert any(b["successors"] for b in dossier["basic_blocks"]) or len(dossier["basic_blocks"]) == 1
    assert dossier["procedure"]["signature"] is None
    assert all(set(v) == {"description", "provenance"} for v in dossier["procedure"]["locals"])
    assert dossier["native_value_flow"]["available"] is False and dossier["limitations"]
    assert overview["procedure_count"] == overview["counts"]["procedures"] and overview["segment_count"] >= 2
    assert overview["string_count"] == overview["counts"]["strings"]
    # comments are REA's annotation store: observed (none yet)
    assert dossier["facet_availability"] == {facet: {"available": True} for facet in FACETS}
    assert dossier["comments"] == []
    assert "return" in dossier["pseudocode"]
    assert (
        overview["entry"]
        == f"0x{int(subprocess.run(['readelf', '-h', str(binaries['pie_O0_debug'])], capture_output=True, text=True).stdout.split('Entry point address:')[1].split()[0], 16):x}"
    )


def test_function_tools_paging_graphs_and_headless_facets(binaries, cache_dir):
    path = binaries["pie_O0_debug"]
    symbols = nm_functions(path)

    async def main():
        async with connect(REA_CACHE_DIR=cache_dir) as s:
            ok(await s.call_tool("open_binary", {"path": str(path)}))
            out = {
                "address": result(await s.call_tool("procedure_address", {"procedure": "compute"})),
                "containing": result(
                    await s.call_tool("resolve_containing_procedure", {"address": hex(int(symbols["compute"], 16) + 4)})
                ),
                "instructions": result(
                    await s.call_tool("read_function_instructions", {"procedure": "helper", "offset": 0, "limit": 2})
                ),
                "instructions2": result(
                    await s.call_tool("read_function_instructions", {"procedure": "helper", "offset": 2, "limit": 500})
                ),
                "asm": result(await s.call_tool("procedure_assembly", {"procedure": "helper"})),
                "pseudo": result(await s.call_tool("procedure_pseudo_code", {"procedure": "compute"})),
                "graph": result(await s.call_tool("get_call_graph", {"address": "main", "depth": 2})),
                "trace": result(await s.call_tool("trace_call_path", {"start": "main", "goal": "helper"})),
                "trace_back": result(
                    await s.call_tool("trace_call_path", {"start": "helper", "goal": "main", "direction": "backward"})
                ),
                "no_path": result(await s.call_tool("trace_call_path", {"start": "helper", "goal": "main"})),
                "xrefs": result(await s.call_tool("xrefs", {"address": symbols["helper"]})),
                "by_name": result(await s.call_tool("find_xrefs_to_name", {"name": "helper"})),
                "search": result(await s.call_tool("search_procedures", {"pattern": "^comp", "mode": "regex"})),
                "strings": result(await s.call_tool("search_strings", {"pattern": "WORLD"})),
                "names": result(await s.call_tool("list_names", {})),
                "segments": result(await s.call_tool("list_segments", {})),
                "batch": result(await s.call_tool("batch_decompile", {"addresses": ["compute", "nosuch", "puts"]})),
                "cursor": err(await s.call_tool("current_address", {}), "capability_unavailable"),
                "navigation": err(await s.call_tool("get_navigation_context", {}), "capability_unavailable"),
                "context": ok(await s.call_tool("inspect_address_context", {"address": symbols["main"]})),
                "bad_proc": await s.call_tool("procedure_info", {"procedure": "nosuch"}),
                "bad_addr": await s.call_tool("xrefs", {"address": "zzz"}),
                "bad_doc": await s.call_tool("list_segments", {"document": "other.bin"}),
                "bad_regex": await s.call_tool("search_strings", {"pattern": "(", "mode": "regex"}),
            }
            return out

    r = anyio.run(main)
    assert r["address"] == symbols["compute"]
    assert r["containing"]["found"] is True and r["containing"]["procedure"]["name"] == "compute"
    page1, page2 = r["instructions"], r["instructions2"]
    assert page1["next_offset"] == 2 and page1["total"] == page2["total"] and page2["next_offset"] is None
    assert page1["instructions"][0].startswith(symbols["helper"] + ": ") and len(page1["instructions"]) == 2
    assert "items" not in page1 and "bytes" not in page1  # each instruction once, as its line
    assert r["asm"].count("\n") + 1 == page1["total"] and r["asm"].startswith(symbols["helper"])
    assert "helper" in r["pseudo"]
    level = {d: [n["address"] for n in nodes] for d, nodes in r["graph"].items() if d != "limitations"}
    assert level["0"] == [symbols["main"]] and symbols["compute"] in level["1"]
    assert symbols["helper"] in level["2"] and r["graph"]["limitations"] and set(level) == {"0", "1", "2"}
    # main has no indirect call (objdump) and angr resolved every call site: its callees are complete
    assert "main" not in objdump_indirect_calls(path)
    assert r["graph"]["0"][0]["status"] == "ok" and r["graph"]["0"][0]["coverage"] == "complete"
    assert r["trace"]["goal_status"] == "reached" and r["trace"]["traversal_path"][0] == symbols["main"]
    assert r["trace"]["traversal_path"][-1] == symbols["helper"] and r["trace"]["start"] == symbols["main"]
    assert {e["target_address"] for e in r["trace"]["edges"]} >= {symbols["helper"]}
    assert r["trace_back"]["goal_status"] == "reached"
    # helper is a leaf objdump shows no call in, so nothing was left unexpanded: provably not reached
    assert "helper" not in objdump_calls(path)
    assert r["no_path"]["goal_status"] == "not_reached" and r["no_path"]["residual_unknowns"] == []
    assert r["no_path"]["truncated"] is False and r["no_path"]["frontier"] == []
    calls = objdump_calls(path)
    sites = {int(a, 16) for a in r["xrefs"]}
    assert len(sites) >= 2 and all(isinstance(a, str) for a in r["xrefs"])
    assert {"compute", "dispatch"} <= {fn for fn, targets in calls.items() if symbols["helper"] in targets}
    assert r["by_name"]["status"] == "resolved" and r["by_name"]["address"] == symbols["helper"]
    assert set(r["by_name"]["xrefs"]) == set(r["xrefs"])
    assert [i["value"] for i in r["search"]] == ["compute"]
    assert {s["value"] for s in r["strings"]} >= {"hello, world", "hello, many worlds"}
    assert all(s["string"]["encoding"] for s in r["strings"])
    sources = {n["symbol"]["source"] for n in r["names"]}
    assert {"default", "imported"} <= sources and all(n["address"] for n in r["names"])
    text = [sec for seg in r["segments"] for sec in seg["sections"] if sec["name"] == ".text"]
    assert len(text) == 1 and text[0]["executable"] and all(seg["permissions"]["available"] for seg in r["segments"])
    assert r["batch"]["succeeded"] == 1 and r["batch"]["failed"] == 2 and r["batch"]["total"] == 3
    assert [row["status"] for row in r["batch"]["items"]] == ["ok", "error", "error"]
    assert [row["address"] for row in r["batch"]["items"]] == ["compute", "nosuch", "puts"]
    assert r["cursor"]["code"] == "capability_unavailable" and "headless" in r["cursor"]["message"]
    modes = {m["name"]: m["available"] for m in r["navigation"]["details"]["modes"]}
    assert modes == {"current_selection": False, "explicit_document": True}
    assert r["context"]["procedure"]["state"] == "available" and r["context"]["procedure"]["value"]["name"] == "main"
    assert r["context"]["procedure"]["value"]["address"] == symbols["main"]
    assert r["context"]["name"] == {"state": "available", "value": "main"}
    assert r["context"]["comment"] == {"state": "available", "value": None}  # REA's store: none yet
    assert r["context"]["bookmarks"] == {"state": "available", "value": []}
    assert r["context"]["document"] == path.name
    assert err(r["bad_proc"], "invalid_request")["details"]["field"] == "procedure"
    assert err(r["bad_addr"], "invalid_request")["details"]["field"] == "address"
    assert err(r["bad_doc"], "invalid_request")["details"]["field"] == "document"
    assert err(r["bad_regex"], "invalid_request")["details"]["field"] == "pattern"


def objdump_indirect_calls(path: Path) -> dict[str, int]:
    """function name -> number of indirect calls (`call *...`) objdump disassembles in it."""
    out = subprocess.run(["objdump", "-d", str(path)], capture_output=True, text=True, check=True).stdout
    found: dict[str, int] = {}
    current = None
    for line in out.splitlines():
        if header := re.match(r"^[0-9a-f]+ <([^>]+)>:$", line):
            current = header.group(1)
        elif current and re.search(r"\scall\s+\*", line):
            found[current] = found.get(current, 0) + 1
    return found


def test_call_paths_and_graphs_say_what_they_did_not_see(binaries, cache_dir):
    path = binaries["pie_O0_debug"]
    symbols = nm_functions(path)
    indirect = objdump_indirect_calls(path)
    assert indirect, "gcc's startup code has an indirect call (the __gmon_start__ hook in _init)"

    async def main():
        async with connect(REA_CACHE_DIR=cache_dir) as s:
            ok(await s.call_tool("open_binary", {"path": str(path)}))
            trace = {
                "via_imports": {"start": "dispatch", "goal": "main"},
                "deep": {"start": "main", "goal": "helper", "max_depth": 1},
                "wide": {"start": "main", "goal": "helper", "max_nodes": 2},
                "backward": {"start": "greeting", "goal": "helper", "direction": "backward"},
            }
            out = {k: result(await s.call_tool("trace_call_path", v)) for k, v in trace.items()}
            out["graph"] = result(await s.call_tool("get_call_graph", {"address": "main"}))
            out["init"] = result(await s.call_tool("get_call_graph", {"address": "_init", "depth": 0}))
            return out

    r = anyio.run(main)
    plt = {a for fn, targets in objdump_calls(path).items() for a in targets if a not in symbols.values()}
    assert plt, "dispatch calls puts and strlen through the PLT"
    # dispatch calls imports, whose callees are outside the binary: not reached is not proven
    assert r["via_imports"]["goal_status"] == "unknown" and r["via_imports"]["truncated"] is True
    assert any("imported function" in u for u in r["via_imports"]["residual_unknowns"])
    # helper is two calls deep (main -> compute -> helper, as objdump shows)
    assert symbols["helper"] in objdump_calls(path)["compute"] and symbols["compute"] in objdump_calls(path)["main"]
    deep = r["deep"]
    assert deep["goal_status"] == "unknown" and deep["truncated"] is True and symbols["compute"] in deep["frontier"]
    assert f"{symbols['compute']}: max_depth 1 reached before expanding" in deep["residual_unknowns"]
    assert max(n["depth"] for n in deep["nodes"]) == 1 and deep["traversal_path"] == []
    wide = r["wide"]
    assert wide["truncated"] is True and wide["traversal"]["nodes_visited"] == 2 and wide["goal_status"] == "unknown"
    assert f"{symbols['main']}: max_nodes 2 reached" in wide["residual_unknowns"]
    # an unresolved indirect call anywhere may call anything: callers are never complete here
    back = r["backward"]
    assert back["goal_status"] == "unknown" and back["truncated"] is True
    assert any("indirect call sites in this binary were not resolved" in u for u in back["residual_unknowns"])
    assert all(
        (e["source_address"], e["target_address"]) != (symbols["greeting"], symbols["main"]) for e in back["edges"]
    )
    assert (symbols["main"], symbols["greeting"]) in {(e["source_address"], e["target_address"]) for e in back["edges"]}
    graph = r["graph"]
    nodes = {n["address"]: n for d, level in graph.items() if d != "limitations" for n in level}
    caveats = [c for n in nodes.values() for c in n["limitations"]]
    assert len(caveats) > len(set(caveats))  # several imports share one caveat ...
    assert sorted(graph["limitations"]) == sorted(set(caveats))  # ... said once at the top
    helper = nodes[symbols["helper"]]  # no call instruction (objdump): an observed absence
    assert helper["calls"] == [] and helper["coverage"] == "complete" and helper["limitations"] == []
    imports = [n for n in nodes.values() if n["address"].startswith("extern:")]
    assert imports and all(n["calls"] == [] and n["coverage"] == "unknown" and n["limitations"] for n in imports)
    init = r["init"]["0"][0]
    assert indirect.get("_init") and init["coverage"] == "partial" and init["limitations"]


def test_bad_input_lifecycle_and_no_orphans(binaries, cache_dir, tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("just text\n")
    truncated = tmp_path / "truncated.elf"
    truncated.write_bytes(binaries["pie_O0_debug"].read_bytes()[:200])
    before = _workers()

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path / "cache")) as s:  # a cold cache: the worker must run
            unbound = ok(await s.call_tool("open_binary", {"path": str(text)}))
            no_provider = await s.call_tool("binary_overview", {})
            refused = await s.call_tool("open_binary", {"path": str(text), "provider_id": "angr"})
            ok(await s.call_tool("open_binary", {"path": str(truncated)}))
            broken = await s.call_tool("binary_overview", {})
            ok(await s.call_tool("open_binary", {"path": str(binaries["pie_O2"])}))
            fine = await s.call_tool("binary_overview", {})
            session = ok(await s.call_tool("binary_session", {}))
            running = _workers() - before
            closing = await s.call_tool("close_binary", {})
            assert ok(closing) is None  # the reference's result; our cleanup facts sit beside it
            closed = closing.structured_content["closed"]
            after_close = _workers() - before
            return unbound, no_provider, refused, broken, fine, session, running, closed, after_close

    unbound, no_provider, refused, broken, fine, session, running, closed, after_close = anyio.run(main)
    assert unbound["analysis_provider_binding"] is None and unbound["limitations"]
    assert err(no_provider, "capability_unavailable")["details"]["reason"] == "target_unsupported"  # a text file
    assert err(refused, "capability_unavailable")["details"]["selection"]["status"] == "target_format_unsupported"
    assert err(broken, "target_unavailable")["details"]["reason"] == "unsupported-format"
    ok_evidence(fine)
    lineage = session["analysis_run"]["process_lineage"]
    assert lineage["status"] == "snapshots"
    # the overview came from the fast index: its process was observed while it ran, and is gone
    observation = {s["provider"]["id"]: s["observation"] for s in lineage["snapshots"]}["rea-fast-index"]
    assert observation["status"] == "verified" and not psutil.pid_exists(observation["launcher_pid"])
    assert observation["process_group_id"] == observation["launcher_pid"]
    assert not running, "no angr worker is needed for an overview"
    assert closed["cleanup"] == {"status": "complete", "owned_resources": []}
    assert after_close == set()
    assert _workers() - before == set()


def test_cancelled_decompile_kills_the_worker_and_the_next_query_recovers(tmp_path, cache_dir):
    target = Path("/usr/bin/ls")
    if not target.exists():
        pytest.skip("/usr/bin/ls is not present")
    before = _workers()

    async def main():
        async with connect(REA_CACHE_DIR=cache_dir) as s:
            ok(await s.call_tool("open_binary", {"path": str(target)}))
            overview = result(await s.call_tool("binary_overview", {}))
            biggest = overview["largest_procedures"][0]["address"]
            with anyio.move_on_after(3) as scope:
                await s.call_tool("procedure_pseudo_code", {"procedure": biggest})
            for _ in range(100):
                if not _workers() - before:
                    break
                await anyio.sleep(0.05)
            gone = _workers() - before
            again = result(await s.call_tool("procedure_info", {"procedure": overview["entry"]}))
            return scope.cancelled_caught, gone, again

    cancelled, gone, again = anyio.run(main)
    assert cancelled is True and gone == set()
    assert again["entrypoint"] and again["basicblock_count"] >= 1 and again["body"]["available"]


def test_reopening_from_the_cache_needs_no_engine(binaries, tmp_path):
    path = binaries["nopie_O0"]
    before = _workers()

    async def main():
        messages = []

        async def on_progress(progress, total, message):
            messages.append(message)

        async with connect(REA_CACHE_DIR=str(tmp_path)) as s:  # the first connection builds and caches
            ok(await s.call_tool("open_binary", {"path": str(path)}))
            ok_evidence(await s.call_tool("binary_overview", {}))
        async with connect(REA_CACHE_DIR=str(tmp_path)) as s:
            ok(await s.call_tool("open_binary", {"path": str(path)}))
            result(await s.call_tool("list_procedures", {"limit": 1}, progress_callback=on_progress))
            workers = _workers() - before
        return messages, workers

    messages, workers = anyio.run(main)
    assert any(m.startswith("analysis cache: reused") for m in messages)
    assert workers == set()


def test_cli_native_commands(binaries, cache_dir):
    env = clean_env(REA_CACHE_DIR=cache_dir)
    path = str(binaries["pie_O0_debug"])
    overview = subprocess.run([*rea_command(), "analyze", path], capture_output=True, text=True, env=env, timeout=300)
    assert overview.returncode == 0, overview.stdout + overview.stderr
    assert "x86_64" in overview.stdout and "evidence: ev_" in overview.stdout
    dossier = subprocess.run(
        [*rea_command(), "function", path, "compute", "--json"], capture_output=True, text=True, env=env, timeout=300
    )
    record = json.loads(dossier.stdout)
    assert record["operation"] == "analyze_function" and record["normalized_result"]["procedure"]["name"] == "compute"
    missing = subprocess.run(
        [*rea_command(), "decompile", path, "nosuch"], capture_output=True, text=True, env=env, timeout=300
    )
    assert missing.returncode == 2 and "No procedure" in missing.stdout
    listing = subprocess.run(
        [*rea_command(), "instructions", path, "helper", "--limit", "3"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert listing.returncode == 0 and listing.stdout.count("\n") >= 3
    refs = subprocess.run(
        [*rea_command(), "xrefs", path, nm_functions(binaries["pie_O0_debug"])["helper"]],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert refs.returncode == 0 and "references to 0x" in refs.stdout and refs.stdout.count("\n  0x") >= 2
    assert not _workers()


def test_startup_deadline_is_validated():
    for value in ("0", "abc", "2147483648"):
        proc = subprocess.run(
            [*rea_command(), "mcp"],
            env=clean_env(REA_ANGR_STARTUP_TIMEOUT_MS=value),
            input=b"",
            capture_output=True,
            timeout=60,
        )
        assert proc.returncode == 2 and b"REA_ANGR_STARTUP_TIMEOUT_MS" in proc.stderr


def test_startup_timeout_is_a_typed_provider_timeout(binaries, tmp_path):
    async def main():
        async with connect(REA_ANGR_STARTUP_TIMEOUT_MS="1", REA_CACHE_DIR=str(tmp_path)) as s:
            ok(await s.call_tool("open_binary", {"path": str(binaries["pie_O2"])}))
            ok_evidence(await s.call_tool("binary_overview", {}))  # the fast index needs no engine
            return await s.call_tool("procedure_pseudo_code", {"procedure": "main"})

    body = err(anyio.run(main), "provider_timeout")
    assert body["details"]["timeout_ms"] == 1 and body["retryable"] is True


def test_compare_functions_inline_retained_and_unknown_dimensions(binaries, cache_dir):
    async def main():
        async with connect(REA_CACHE_DIR=cache_dir) as s:
            ok(await s.call_tool("open_binary", {"path": str(binaries["pie_O0_debug"])}))
            o0 = ok_evidence(await s.call_tool("analyze_function", {"procedure": "compute"}))
            o0_again = ok_evidence(await s.call_tool("analyze_function", {"procedure": "compute"}))
            rows = result(await s.call_tool("list_procedures", {}))
            imported = next(r["address"] for r in rows if r["value"] == "puts" and r["procedure"]["external"])
            import_dossier = ok_evidence(await s.call_tool("analyze_function", {"procedure": imported}))
            vs_import = (
                await s.call_tool("compare_functions", {"left": o0, "right": import_dossier})
            ).structured_content
            ok(await s.call_tool("open_binary", {"path": str(binaries["pie_O2"])}))
            o2 = ok_evidence(await s.call_tool("analyze_function", {"procedure": "compute"}))
            same = (
                await s.call_tool(
                    "compare_functions",
                    {"left": {"kind": "retained-evidence", "evidence_id": o0["evidence_id"]}, "right": o0_again},
                )
            ).structured_content
            diff = (
                await s.call_tool(
                    "compare_functions",
                    {"left_evidence_ids": [o0["evidence_id"]], "right_evidence_ids": [o2["evidence_id"]]},
                )
            ).structured_content
            legacy = json.loads(json.dumps(o2))
            del legacy["normalized_result"]["facet_availability"]
            legacy["evidence_id"] = "ev_" + "0" * 64
            tampered = await s.call_tool("compare_functions", {"left": o0, "right": legacy})
            missing = await s.call_tool(
                "compare_functions",
                {"left": {"kind": "retained-evidence", "evidence_id": "ev_" + "9" * 64}, "right": o0},
            )
            both = await s.call_tool(
                "compare_functions", {"left": o0, "left_evidence_ids": [o0["evidence_id"]], "right": o0}
            )
            return o0, same, diff, tampered, missing, both, import_dossier, vs_import

    o0, same, diff, tampered, missing, both, import_dossier, vs_import = anyio.run(main)
    assert same["provider"]["id"] == "rea-compare" and o0["evidence_id"] in same["evidence_links"]
    # comments come from REA's annotation store, so every dimension is observed on both sides
    alike = same["normalized_result"]
    assert alike["summary"] == {"unchanged": 8, "changed": 0, "truncated": 0, "unknown": 0}
    comments = next(d for d in alike["dimensions"] if d["dimension"] == "comments")
    assert comments["status"] == "unchanged" and comments["left_count"] == comments["right_count"] == 0
    # an import's dossier declares every body facet unavailable: each of those dimensions is unknown, not "changed"
    declared = import_dossier["normalized_result"]["facet_availability"]
    assert set(declared) == set(FACETS) and declared["callers"] == declared["comments"] == {"available": True}
    assert {k for k, v in declared.items() if not v["available"]} == set(FACETS) - {"callers", "comments"}
    body = {d["dimension"]: d for d in vs_import["normalized_result"]["dimensions"]}
    for name in ("pseudocode", "assembly", "calls", "references", "strings_names", "cfg"):
        assert body[name]["status"] == "unknown" and body[name]["left_digest"] is None, name
        assert body[name]["right_count"] is None and any(x.startswith("right ") for x in body[name]["limitations"])
    assert body["identity"]["status"] == "changed" and vs_import["normalized_result"]["status"] == "changed"
    assert alike["status"] == "unchanged" and alike["function_match"]["status"] == "matched"
    assert [d["dimension"] for d in alike["dimensions"]] == [
        "identity",
        "pseudocode",
        "assembly",
        "comments",
        "calls",
        "references",
        "strings_names",
        "cfg",
    ]
    assert all(d["left_digest"] == d["right_digest"] for d in alike["dimensions"] if d["status"] == "unchanged")
    dims = {d["dimension"]: d for d in diff["normalized_result"]["dimensions"]}
    assert diff["normalized_result"]["status"] == "changed" and dims["cfg"]["status"] == "changed"
    assert dims["assembly"]["text_delta"]["hunks"] >= 1 and dims["cfg"] in diff["normalized_result"]["changes"]
    sizes = {b: nm_sizes(binaries[b])["compute"] for b in ("pie_O0_debug", "pie_O2")}
    assert sizes["pie_O0_debug"] != sizes["pie_O2"]  # nm: the optimized compute is another size
    assert (
        dims["identity"]["status"] == "changed" and dims["identity"]["left_digest"] != dims["identity"]["right_digest"]
    )
    assert err(tampered, "evidence_integrity_mismatch")
    assert err(missing, "evidence_integrity_mismatch")["details"]["reason"] == "missing"
    assert err(both, "invalid_request")["details"]["field"] == "left"


def test_inventory_answers_from_the_fast_index(binaries, tmp_path):
    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path)) as s:
            ok(await s.call_tool("open_binary", {"path": str(binaries["pie_O0_debug"])}))
            early = ok_evidence(await s.call_tool("list_procedures", {"limit": 500}))
            overview = ok_evidence(await s.call_tool("binary_overview", {}))
            callers = ok_evidence(await s.call_tool("procedure_callers", {"procedure": "helper"}))
            late = ok_evidence(await s.call_tool("list_procedures", {"limit": 500}))
            ok(await s.call_tool("open_binary", {"path": str(binaries["pie_O2_stripped"])}))
            stripped = ok_evidence(await s.call_tool("list_procedures", {"limit": 500}))
            return early, overview, callers, late, stripped

    early, overview, callers, late, stripped = anyio.run(main)
    analysis = overview["normalized_result"]["analysis"]
    assert analysis["source"] == "index" and analysis["undecoded_bytes"] == 0
    # coverage says whether indirect transfers were left unresolved (objdump shows them as `call *`/`jmp *`)
    listing = subprocess.run(["objdump", "-d", str(binaries["pie_O0_debug"])], capture_output=True, text=True)
    indirect = sum(1 for line in listing.stdout.splitlines() if re.search(r"\t(call|jmp)\s+\*%", line))
    assert analysis["coverage"] == ("partial" if indirect else "complete")
    assert overview["normalized_result"]["procedure_count"] >= 3
    assert any("fast index" in lim for lim in early["limitations"])
    assert {"main", "compute", "helper"} <= {p["value"] for p in early["normalized_result"]}
    assert early["normalized_result"] == late["normalized_result"], "one index answers both"
    assert callers["normalized_result"]
    # a stripped binary has no function symbols, but .eh_frame still gives every function's start and size
    rows = stripped["normalized_result"]
    assert len(rows) >= 5
    # unnamed, unless its bytes are one static library function's (the C runtime's start-up pieces)
    assert all(
        r["value"] == f"sub_{int(r['address'], 16):x}" or r["origin"]["source"] == "library-match"
        for r in rows
        if r["kind"] == "function"
    )


def test_unsupported_architecture_and_oversized_targets(binaries, tmp_path):
    mips = tmp_path / "mips.elf"
    data = bytearray(binaries["nopie_O0"].read_bytes())
    data[18:20] = (8).to_bytes(2, "little")  # e_machine = EM_MIPS: angr loads it, REA does not analyse it
    mips.write_bytes(bytes(data))
    huge = tmp_path / "huge.elf"
    with open(huge, "wb") as handle:
        handle.write(binaries["nopie_O0"].read_bytes())
        handle.truncate(600 * 1024 * 1024)  # sparse: 600 MiB of apparent size

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path / "cache")) as s:
            ok(await s.call_tool("open_binary", {"path": str(mips)}))
            arch = await s.call_tool("binary_overview", {})
            ok(await s.call_tool("open_binary", {"path": str(huge)}))
            too_big = await s.call_tool("list_procedures", {})
            return arch, too_big

    arch, too_big = anyio.run(main)
    body = err(arch, "target_unavailable")
    assert body["details"]["reason"] in ("unsupported-architecture", "unsupported-format")
    big = err(too_big, "truncated")
    assert big["details"]["limit"] == "max_target_bytes" and big["details"]["size"] == 600 * 1024 * 1024


def test_a_killed_worker_is_replaced_and_the_session_survives(binaries, tmp_path):
    import signal

    before = _workers()

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path)) as s:
            ok(await s.call_tool("open_binary", {"path": str(binaries["pie_O0_debug"])}))
            ok_evidence(await s.call_tool("binary_overview", {}))
            ok_evidence(await s.call_tool("procedure_pseudo_code", {"procedure": "main"}))  # starts the engine
            first = _workers() - before
            for pid in first:
                os.kill(pid, signal.SIGKILL)
            await anyio.sleep(0.3)
            again = await s.call_tool("procedure_pseudo_code", {"procedure": "compute"})
            second = _workers() - before
            state = ok(await s.call_tool("binary_session", {}))
            ok(await s.call_tool("close_binary", {}))
            return first, again, second, state

    first, again, second, state = anyio.run(main)
    assert len(first) == 1 and second and not (second & first)
    if again.is_error:  # the kill raced the query: a typed provider failure, never a crash
        err(again, "provider_unavailable")
    else:
        assert "helper" in again.structured_content["normalized_result"]
    assert state["ledger"]["records"] >= 1
    assert _workers() - before == set()


def test_aarch64_ground_truth(tmp_path):
    """AArch64 built by Debian's cross compiler (installed by scripts/setup test)."""
    compiler = shutil.which("aarch64-linux-gnu-gcc")
    assert compiler, "scripts/setup test installs gcc-aarch64-linux-gnu"
    binary = tmp_path / "sample_arm64"
    subprocess.run([compiler, "-O0", "-o", str(binary), str(SOURCE)], check=True, capture_output=True)
    out = subprocess.run(
        ["aarch64-linux-gnu-nm", "--defined-only", str(binary)], capture_output=True, text=True, check=True
    ).stdout
    symbols = {
        p[2]: f"0x{int(p[0], 16):x}"
        for p in (line.split() for line in out.splitlines())
        if len(p) == 3 and p[1] in "Tt"
    }
    dump = subprocess.run(
        ["aarch64-linux-gnu-objdump", "-d", str(binary)], capture_output=True, text=True, check=True
    ).stdout
    main_calls = set()
    current = None
    for line in dump.splitlines():
        header = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
        if header:
            current = header.group(2)
        elif current == "main" and (call := re.search(r"\tbl\s+([0-9a-f]+) <", line)):
            main_calls.add(f"0x{int(call.group(1), 16):x}")

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path / "cache")) as s:
            ok(await s.call_tool("open_binary", {"path": str(binary)}))
            overview = result(await s.call_tool("binary_overview", {}))
            procs = await _all_procedures(s)
            callees = result(await s.call_tool("procedure_callees", {"procedure": "main"}))
            return overview, procs, callees

    overview, procs, callees = anyio.run(main)
    assert overview["architecture"] == "arm64"
    addresses = {p["address"] for p in procs}
    assert {name: a for name, a in symbols.items() if a not in addresses and not name.startswith("$")} == {}
    assert main_calls and main_calls <= set(callees)


def test_inspect_analysis_view_over_a_retained_dossier(binaries, cache_dir):
    async def main():
        async with connect(REA_CACHE_DIR=cache_dir) as s:
            ok(await s.call_tool("open_binary", {"path": str(binaries["pie_O0_debug"])}))
            dossier = ok_evidence(await s.call_tool("analyze_function", {"procedure": "main"}))
            ref = {"kind": "retained-evidence", "evidence_id": dossier["evidence_id"]}
            pages, offset = [], 0
            while offset is not None:
                view = (
                    await s.call_tool(
                        "inspect_analysis_view",
                        {"source": ref, "view": {"kind": "native", "facet": "pseudocode", "offset": offset}},
                    )
                ).structured_content
                pages.append(view["normalized_result"]["item"]["text"])
                offset = view["normalized_result"]["coverage"]["next_offset"]
            callees = (
                await s.call_tool(
                    "inspect_analysis_view",
                    {
                        "source": {"kind": "inline", "evidence": dossier},
                        "view": {"kind": "native", "facet": "callees", "limit": 2},
                    },
                )
            ).structured_content
            bad = await s.call_tool(
                "inspect_analysis_view", {"source": ref, "view": {"kind": "native", "facet": "bogus"}}
            )
            return dossier, pages, view, callees, bad

    dossier, pages, last, callees, bad = anyio.run(main)
    assert "".join(pages) == dossier["normalized_result"]["pseudocode"]
    assert last["provider"]["id"] == "rea-views" and last["evidence_links"] == [dossier["evidence_id"]]
    assert last["normalized_result"]["parent_evidence_id"] == dossier["evidence_id"]
    page = callees["normalized_result"]
    assert len(page["item"]) == 2 and page["coverage"]["next_offset"] == 2 and page["coverage"]["total"] >= 4
    assert err(bad, "invalid_request")["details"]["issues"][0]["path"][:2] == ["view", "facet"]


def test_strings_answer_from_data_sections_with_their_referrers(binaries, tmp_path):
    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path)) as s:
            ok(await s.call_tool("open_binary", {"path": str(binaries["pie_O2_stripped"])}))
            listed = ok_evidence(await s.call_tool("list_strings", {"limit": 500}))
            found = ok_evidence(await s.call_tool("search_strings", {"pattern": "hello"}))
            return listed, found

    listed, found = anyio.run(main)
    values = {s["value"] for s in listed["normalized_result"]}
    assert all("section" in s and "referenced_by" in s for s in listed["normalized_result"])
    assert {"hello, world", "hello, many worlds", "unknown operation"} <= values
    referenced = {s["value"]: s["referenced_by"] for s in listed["normalized_result"]}
    assert referenced["unknown operation"]
    assert {s["value"] for s in found["normalized_result"]} >= {"hello, world", "hello, many worlds"}
