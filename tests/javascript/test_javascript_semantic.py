"""The semantic companion graph and trace_javascript_semantics on programs with known data flow,
written here: a literal through three functions into fetch, a property written in one module and
read in another, an IPC payload built in the renderer and consumed in main; an Electron app whose
string seed lives only in code; hostile inputs (deep nesting, a million-element array, eval)."""

from __future__ import annotations

import json
import re
import subprocess

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from effects.calls import Connection
from effects.javascript.semantic_facts import _CONTROL_ANY, _CONTROL_NEEDLES
from javascript_fixtures import ELECTRON, analyze, assert_fits, call, semantic_graph, write_tree
from mcp_client import connect
from scripted import CTX
from support import clean_env, rea_command

FLOW = {
    "package.json": json.dumps({"name": "flow", "version": "1.0.0", "main": "src/index.js"}),
    "src/index.js": """const { send } = require('./net');
const API = "https://api.example.com/v1/items";
function first(u) { return second(u + "?page=1"); }
function second(v) { return third(v); }
const third = (w) => fetch(w);
first(API);
send('unused');
eval("globalThis.x = 1");
""",
    "src/net.js": "function send(body) { return fetch('https://other.example.com/', { body }); }\nmodule.exports = { send };\n",
    "src/config.js": "module.exports = {};\n",
    "src/writer.js": "const config = require('./config');\nconfig.endpoint = 'wss://stream.example.com/feed';\n",
    "src/reader.js": "const config = require('./config');\nfunction open() { return new WebSocket(config.endpoint); }\nopen();\n",
}


def semantic(conn, evidence, seed, direction, **query):
    return call(
        conn,
        "trace_javascript_semantics",
        {
            "application_evidence_id": evidence["evidence_id"],
            "query": {"seed": seed, "direction": direction, **query},
        },
    ).unwrap()["normalized_result"]


def labels(answer):
    return {(n["kind"], n["label"]) for n in answer["nodes"]}


@pytest.fixture()
def flow(tmp_path):
    conn = Connection(ctx=CTX)
    return conn, analyze(write_tree(tmp_path / "flow", FLOW), conn)


def test_semantic_graph_is_built_sealed_and_typed(flow):
    _conn, evidence = flow
    assert_fits("analyze_javascript_application", evidence)
    g = semantic_graph(evidence)
    held = evidence["normalized_result"]["semantic_graph"]  # the record names the graph Evidence it retained
    assert held["graph_id"] == g["graph_id"] and held["counts"]["nodes"] == len(g["nodes"]) > 0
    assert held["coverage"] == g["coverage"] and "nodes" not in held
    assert g["coverage"]["status"] == "complete"  # no bound reached; eval makes its family partial
    assert {f["family"]: f["status"] for f in g["coverage"]["families"]}["call-flow"] == "partial"
    assert (
        g["graph_id"].startswith("jsrg_")
        and g["application_graph_id"] == evidence["normalized_result"]["graph"]["graph_id"]
    )
    assert len(g["coverage"]["families"]) == 12
    kinds = {n["kind"] for n in g["nodes"]}
    assert {
        "module",
        "function",
        "parameter",
        "binding",
        "literal",
        "call-site",
        "return-site",
        "property-slot",
    } <= kinds
    fns = {n["label"]: n for n in g["nodes"] if n["kind"] == "function"}
    assert fns["first"]["properties"]["parameters"] == ["u"] and fns["third"]["properties"]["arity"] == 1
    fps = {f["function_node_id"]: f for f in g["fingerprints"]}
    assert "network" in fps[fns["third"]["node_id"]]["components"]["effects"]
    (ev,) = [u for u in g["unknowns"] if u["reason"] == "eval-or-generated-code"]
    assert "eval" in ev["detail"] and ev["family"] == "call-flow"
    ids = {n["node_id"] for n in g["nodes"]}
    assert all(r["source_node_id"] in ids and r["target_node_id"] in ids for r in g["relations"])
    again = analyze(
        evidence["normalized_result"]["input_path"]
        and __import__("pathlib").Path(evidence["normalized_result"]["input_path"])
    )
    assert semantic_graph(again)["graph_id"] == g["graph_id"]  # a function of the tree


def test_the_graph_vouches_truly_for_float_free_nodes_and_relations(flow, monkeypatch):
    """The workflow hashes the graph's nodes, relations and fingerprints without the float census
    (without_floats): they hold no float (the census finds none), and the vouched digest is the one of the full
    canonical bytes."""
    import hashlib

    import rea.canonical_json as cj
    from rea.canonical_json import _census, canonical_sha256, canonicalize, without_floats

    monkeypatch.setattr(cj, "SPLIT_ITEMS", 2)  # stream this small graph's arrays as a large one's are
    g = semantic_graph(flow[1])
    parts = g["nodes"], g["relations"], g["fingerprints"]
    assert all(parts) and all(_census(part) is None for part in parts)
    with without_floats(*parts):
        assert canonical_sha256(g) == hashlib.sha256(canonicalize(g)).hexdigest()


def test_a_literal_flows_through_three_functions_into_fetch(flow):
    conn, evidence = flow
    url = "https://api.example.com/v1/items"
    fwd = semantic(
        conn,
        evidence,
        {"kind": "literal", "value": url},
        "forward-influence",
        expected={"role": "sink", "classes": ["call-site"]},
    )
    assert fwd["status"] == "found" and len(fwd["seed_node_ids"]) == 1
    got = labels(fwd)
    assert {
        ("binding", "API"),
        ("parameter", "u"),
        ("parameter", "v"),
        ("parameter", "w"),
        ("call-site", "fetch"),
    } <= got
    fetch = next(n["node_id"] for n in fwd["nodes"] if n["label"] == "fetch")
    assert fetch in fwd["expected_match_node_ids"]
    assert {"argument-to-parameter", "defines", "reads"} <= {r["relation"] for r in fwd["relations"]}
    assert ("call-site", "send") not in got  # other calls are not this value's influence
    back = semantic(conn, evidence, {"kind": "semantic-node", "node_id": fetch}, "backward-provenance")
    assert ("literal", url) in labels(back) and ("literal", "?page=1") in labels(back)
    endpoint = semantic(conn, evidence, {"kind": "endpoint", "value": "api.example.com"}, "forward-influence")
    assert endpoint["seed_node_ids"] == fwd["seed_node_ids"]
    callers = semantic(
        conn,
        evidence,
        {
            "kind": "semantic-node",
            "node_id": next(
                n["node_id"]
                for n in semantic_graph(evidence)["nodes"]
                if n["kind"] == "function" and n["label"] == "third"
            ),
        },
        "callers",
    )
    assert {("function", "second"), ("call-site", "third")} <= labels(callers)
    # an import resolved through the application graph: send() in index.js calls net.js's send
    send = semantic(conn, evidence, {"kind": "literal", "value": "unused"}, "forward-influence")
    assert ("parameter", "body") in labels(send)


def test_a_property_written_in_one_module_is_read_in_another(flow):
    conn, evidence = flow
    fwd = semantic(conn, evidence, {"kind": "property", "name": "endpoint"}, "forward-influence")
    assert ("call-site", "WebSocket") in labels(fwd)
    back = semantic(conn, evidence, {"kind": "property", "name": "endpoint"}, "backward-provenance")
    assert ("literal", "wss://stream.example.com/feed") in labels(back)
    paths = {n["application_node_ids"][0] for n in fwd["nodes"]} | {n["application_node_ids"][0] for n in back["nodes"]}
    assert len(paths) == 2  # writer.js and reader.js
    owned = semantic(
        conn,
        evidence,
        {"kind": "semantic-node", "node_id": next(n["node_id"] for n in fwd["nodes"] if n["label"] == "WebSocket")},
        "ownership",
    )
    assert {("function", "open"), ("module", "src/reader.js")} <= labels(owned)


def test_an_ipc_payload_built_in_the_renderer_is_consumed_in_main(tmp_path):
    conn = Connection(ctx=CTX)
    evidence = analyze(write_tree(tmp_path / "e", ELECTRON), conn)
    channel = {"kind": "boundary-field", "field": "save-file"}
    back = semantic(conn, evidence, channel, "backward-provenance")
    assert {("binding", "request"), ("literal", "overwrite"), ("parameter", "name")} <= labels(back)
    fwd = semantic(conn, evidence, channel, "forward-influence")
    assert {
        ("parameter", "request"),
        ("call-site", "fs.writeFileSync"),
        ("call-site", "dialog.showSaveDialog"),
    } <= labels(fwd)
    modules = {n["application_node_ids"][0] for n in back["nodes"] + fwd["nodes"]}
    assert len(modules) >= 2  # preload.js builds it, main.js consumes it
    # application string seeds reach code, not only graph labels
    seed = call(
        conn,
        "trace_application_feature",
        {"application_evidence_id": evidence["evidence_id"], "seed": {"kind": "string", "value": "showSaveDialog"}},
    ).unwrap()["normalized_result"]
    assert [m["field"] for m in seed["seed_matches"]] == ["code:call-site"]
    # a main->renderer channel with no static sender points at the dynamic send it cannot resolve
    ready = call(
        conn,
        "trace_application_feature",
        {
            "application_evidence_id": evidence["evidence_id"],
            "seed": {"kind": "channel", "value": "status:ready"},
            "direction": "incoming",
        },
    ).unwrap()["normalized_result"]
    assert ready["coverage"]["status"] == "partial"
    assert [u["kind"] for u in ready["unknowns"]] == ["dynamic-ipc-channel"]
    assert "dynamically" in ready["coverage"]["incomplete_because"][0]


def test_no_match_and_unsupported_say_why(flow, tmp_path):
    conn, evidence = flow
    miss = semantic(conn, evidence, {"kind": "literal", "value": "nowhere"}, "forward-influence")
    assert miss["status"] == "no-match" and miss["coverage"]["status"] == "partial"  # eval'd code is unseen
    broken = analyze(write_tree(tmp_path / "b", {"a.js": "const x = 'seen';\n", "b.js": "\x00binary"}), conn)
    missed = semantic(conn, broken, {"kind": "literal", "value": "never"}, "forward-influence")
    assert missed["coverage"]["status"] == "partial" and any("not parsed" in x for x in missed["limitations"])


def test_hostile_inputs_are_bounded_and_never_run(tmp_path):
    deep = "x = " + "[" * 3000 + "]" * 3000 + ";\n" + "f(" * 2000 + ")" * 2000 + ";\n"
    huge = "const a = [" + ",".join("1" for _ in range(1_000_000)) + "];\n"
    tree = {
        "deep.js": deep,
        "huge.js": huge,
        "dyn.js": "eval('require(\"child_process\").exec(\"touch /tmp/rea-never\")');\nnew Function('return 1')();\n"
        "obj[key] = 1;\n",
    }
    evidence = analyze(write_tree(tmp_path / "h", tree))
    g = semantic_graph(evidence)
    reasons = sorted(u["reason"] for u in g["unknowns"])
    assert reasons == ["dynamic-property", "eval-or-generated-code", "eval-or-generated-code"]
    assert not __import__("os").path.exists("/tmp/rea-never")
    assert_fits("analyze_javascript_application", evidence)


def test_semantic_trace_through_mcp_and_cli(tmp_path):
    root = write_tree(tmp_path / "flow", FLOW)

    async def main():
        async with connect() as session:
            analysed = await session.call_tool("analyze_javascript_application", {"input_path": str(root)})
            ev = analysed.structured_content["evidence_id"]
            r = await session.call_tool(
                "trace_javascript_semantics",
                {
                    "application_evidence_id": ev,
                    "query": {"seed": {"kind": "property", "name": "endpoint"}, "direction": "backward-provenance"},
                },
            )
            assert not r.is_error, r.content
            return r.structured_content["normalized_result"]

    answer = anyio.run(main)
    assert ("literal", "wss://stream.example.com/feed") in labels(answer)
    query = {"seed": {"kind": "literal", "value": "https://api.example.com/v1/items"}, "direction": "forward-influence"}
    complete = subprocess.run(
        [*rea_command(), "analyze-javascript-application", str(root), "--detail", "complete", "--json"],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
    )
    record = json.loads(complete.stdout)
    # inline application Evidence on a fresh connection: its semantic graph Evidence is not here, and the
    # refusal names it (the record keeps only its header and id)
    proc = subprocess.run(
        [
            *rea_command(),
            "call",
            "trace_javascript_semantics",
            "--json",
            "--application",
            json.dumps(record),
            "--query",
            json.dumps(query),
        ],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
    )
    assert proc.returncode != 0
    refusal = json.loads(proc.stdout)["error"]
    assert refusal["details"]["evidence_id"] == record["normalized_result"]["semantic_graph"]["retained"]["evidence_id"]
    assert refusal["details"]["field"] == "semantic_graph"
    proc = subprocess.run(
        [*rea_command(), "trace-javascript-semantics", str(root), "--query", json.dumps(query), "--json"],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    text = subprocess.run(
        [*rea_command(), "trace-javascript-semantics", str(root), "--query", json.dumps(query)],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
    ).stdout
    assert "forward-influence from literal: found" in text and "call-site: fetch" in text
    got = json.loads(proc.stdout)["normalized_result"]
    assert ("call-site", "fetch") in labels(got)


# s-expression-like text: the needles, their pieces and near misses, parentheses and spaces
_SHAPES = st.lists(
    st.sampled_from([*_CONTROL_NEEDLES, "(", ")", " ", ": ", "for_in", "(for_", "_statement", "(if", "(do", "x"]),
    max_size=60,
).map("".join)


@given(_SHAPES)
def test_one_scan_counts_control_flow_as_the_needles_str_counts_do(shape):
    """A function's control_flow_sha256 digests this count: the single regex scan must equal the sum of each
    needle's str.count on any text (the needles cannot overlap)."""
    assert len(_CONTROL_ANY.findall(shape)) == sum(map(shape.count, _CONTROL_NEEDLES))


@given(st.text())
def test_compacted_text_drops_the_same_whitespace_as_the_regex(text):
    """_compact removes whitespace with str.split (faster); callee and object names must stay what `\\s+` gave."""
    assert "".join(text.split()) == re.sub(r"\s+", "", text)
