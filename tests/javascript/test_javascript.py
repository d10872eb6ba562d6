"""The JavaScript / Electron family on real trees: an Electron-shaped app written here, real npm
packages installed from the registry (npm ci), a bundle built by the real esbuild; analysed
in-process, through the real MCP stdio server and by the CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest

from effects.calls import Connection, call_tool
from javascript_fixtures import APP, analyze, call, edges, label, labels, node, roles, semantic_graph, write_tree
from mcp_client import connect, err
from rea.evidence import parse_evidence
from rea.javascript.ids import node_id as jid
from rea.javascript.ids import semantic_node_id
from rea.javascript.views import application_view
from scripted import CTX
from support import clean_env, rea_command


@pytest.fixture()
def app(tmp_path) -> Path:
    return write_tree(tmp_path / "app", APP)


def test_electron_app_graph(app):
    evidence = analyze(app)
    assert parse_evidence(evidence).unwrap().evidence_id == evidence["evidence_id"]
    r = evidence["normalized_result"]
    assert roles(r, "module:src/main.js") == ["main"] and roles(r, "module:src/store.js") == ["main"]
    assert roles(r, "module:src/preload.js") == ["preload"]
    assert roles(r, "module:src/renderer/app.js") == ["renderer"]
    assert roles(r, "module:src/renderer/format.ts") == ["renderer"]
    assert roles(r, "module:src/worker.js") == ["utility"]
    # IPC both ways, both ends linked, each end with its file, line and byte range
    for channel, ends in (
        ("settings:get", {"renderer-to-main:handler": 1, "renderer-to-main:sender": 1}),
        ("log", {"renderer-to-main:handler": 1, "renderer-to-main:sender": 1}),
        ("tick", {"main-to-renderer:handler": 1, "main-to-renderer:sender": 1}),
    ):
        n = node(r, f"ipc-channel:{channel}")
        assert n["ends"] == ends and n["linked"] is True
    invoke = edges(r, "invokes", "module:src/preload.js", "ipc-channel:settings:get")[0]
    text = (app / "src/preload.js").read_bytes()
    loc = invoke["location"]
    assert text[loc["start"] : loc["end"]].startswith(b"ipcRenderer.invoke('settings:get'") and loc["line"] == 3
    assert edges(r, "handles", "module:src/main.js", "ipc-channel:settings:get")
    assert edges(r, "exposes", "module:src/preload.js", "context-bridge-api:api")
    assert node(r, "context-bridge-api:api")["members"] == ["getSetting", "log", "onTick"]
    assert edges(r, "calls", "module:src/renderer/app.js", "context-bridge-api:api")
    assert edges(r, "loads", "module:src/main.js", "html:src/renderer/index.html")
    assert edges(r, "loads", "html:src/renderer/index.html", "module:src/renderer/app.js")
    window = next(n for n in r["graph"]["nodes"] if n["kind"] == "browser-window")
    assert edges(r, "loads", window["node_id"], "module:src/preload.js")
    assert window["web_preferences"] == {"sandbox": False}
    assert any(f["kind"] == "sandbox-disabled" for f in r["findings"])
    # resolution: node: builtin, bare builtin, electron, relative, unresolved kept as an unknown
    assert edges(r, "imports", "module:src/main.js", "builtin:path")[0]["basis"] == "node-scheme"
    assert edges(r, "imports", "module:src/main.js", "builtin:fs")[0]["basis"] == "builtin-name"
    assert edges(r, "imports", "module:src/main.js", "electron:electron")
    assert edges(r, "imports", "module:src/main.js", "module:src/store.js")[0]["basis"] == "relative"
    unknown_kinds = {u["kind"] for u in r["unknowns"]}
    assert {"unresolved-import", "dynamic-ipc-channel"} <= unknown_kinds
    assert node(r, "unresolved:./not-here")["subkind"] == "unresolved-module"
    assert node(r, "unresolved:./not-here")["kind"] == "unknown"  # the reference's kind
    assert node(r, "route:GET /users/:id")["subkind"] == "route"
    # every node and edge id is the digest of its readable key, as the reference pins them
    assert all(n["node_id"] == jid(n["label"]) for n in r["graph"]["nodes"])
    assert all(e["edge_id"].startswith("jag_edge_") for e in r["graph"]["edges"])
    assert len({e["edge_id"] for e in r["graph"]["edges"]}) == len(r["graph"]["edges"])
    assert r["graph"]["root_node_ids"] == [e["node"] for e in r["entry_points"]]
    assert node(r, "url:https://api.example.com/v1/status")
    # exports and shapes
    fmt = node(r, "module:src/renderer/format.ts")
    assert fmt["language"] == "typescript"
    assert {e["name"]: e["shape"]["type"] for e in fmt["exports"]} == {"format": "function", "VERSION": "literal"}
    assert next(e for e in fmt["exports"] if e["name"] == "format")["shape"]["returns"] == [["text", "ts"]]
    store = next(e for e in node(r, "module:src/store.js")["exports"] if e["name"] == "default")
    assert store["shape"] == {"type": "object", "members": ["get", "set"]}
    # robustness: a directory named x.js is a directory; a broken file is recorded and the rest continues
    assert node(r, "module:lib.js/index.js")["parse"] == "ok"
    assert (
        node(r, "module:src/broken.js")["parse"] == "recovered"
        and node(r, "module:src/broken.js")["syntax_errors"] >= 1
    )
    s = r["statistics"]
    assert s["files"] == len(APP) and s["files_read"] == len(APP) and s["parse_failures"] == 0
    assert s["recovered_parses"] == 1 and s["bytes_read"] == sum(len(t.encode()) for t in APP.values())
    assert r["coverage"]["status"] == "complete"


def test_identity_is_stable_and_ids_do_not_depend_on_order(app, tmp_path):
    first, second = analyze(app), analyze(app)
    assert first["evidence_id"] == second["evidence_id"]
    # the same tree written in reverse order: same graph
    other = tmp_path / "again" / "app"
    write_tree(other, dict(reversed(list(APP.items()))))
    a, b = first["normalized_result"], analyze(other)["normalized_result"]
    assert [n["node_id"] for n in a["graph"]["nodes"]] == [n["node_id"] for n in b["graph"]["nodes"]]
    assert [(e["source_node_id"], e["target_node_id"]) for e in a["graph"]["edges"]] == [
        (e["source_node_id"], e["target_node_id"]) for e in b["graph"]["edges"]
    ]
    assert first["subject"]["digest"] == analyze(other)["subject"]["digest"]


def test_summary_detail_retains_complete_record_and_views(app):
    conn = Connection(ctx=CTX)
    view = analyze(app, conn, detail="summary")
    v = view["normalized_result"]
    parent = v["parent_evidence_id"]
    assert view["evidence_links"] == [parent] and parent in conn.session.evidence
    assert view["operation"] == "inspect_analysis_view"
    assert view["parameters"] == {
        "source": {"kind": "retained-evidence", "evidence_id": parent},
        "view": {"kind": "summary"},
    }
    assert v["kind"] == "summary" and v["summary"]["statistics"]["modules"] == 9
    assert v["parent_operation"] == "analyze_javascript_application" and v["artifact"]["path"] == str(app)
    highlights = v["summary"]["highlights"]
    assert highlights["ipc_channels"]["total"] == 3 and highlights["ipc_channels"]["unlinked"] == 0
    first_page = highlights["pages"]["modules"]
    assert first_page["arguments"]["source"] == {"kind": "retained-evidence", "evidence_id": parent}
    assert first_page["arguments"]["view"] == {"kind": "page", "collection": "modules", "offset": 0, "limit": 64}
    source = conn.session.evidence[parent]
    # pages partition the modules
    seen, offset = [], 0
    while offset is not None:
        page = application_view(
            source, {"kind": "page", "collection": "modules", "offset": offset, "limit": 3}
        ).unwrap()
        seen += [i["node_id"] for i in page["items"]]
        offset = page["coverage"]["next_offset"]
    assert len(seen) == len(set(seen)) == highlights["pages"]["module_total"]
    one = application_view(
        source, {"kind": "item", "collection": "modules", "selector": {"path": "src/preload.js"}}
    ).unwrap()
    assert one["item"]["node_id"] == jid("module:src/preload.js") and one["item"]["outgoing_total"] >= 4
    by_label = application_view(
        source, {"kind": "item", "collection": "modules", "selector": {"node_id": "module:src/preload.js"}}
    ).unwrap()
    assert by_label["item"]["node_id"] == one["item"]["node_id"]  # a selector may name the readable key
    missing = application_view(
        source, {"kind": "item", "collection": "modules", "selector": {"node_id": "module:nope"}}
    )
    assert missing.failure().code == "invalid_request"
    assert missing.failure().details["issues"][0]["path"] == ["view", "selector"]
    # the summary stands for its parent in the workflows; any other view is not application Evidence
    traced = call(
        conn,
        "trace_application_feature",
        {
            "application": {"kind": "retained-evidence", "evidence_id": view["evidence_id"]},
            "seed": {"kind": "ipc-channel", "value": "log"},
        },
    )
    assert parent in traced.unwrap()["evidence_links"]
    paged = call(
        conn,
        "inspect_analysis_view",
        {"source": first_page["arguments"]["source"], "view": first_page["arguments"]["view"]},
    ).unwrap()
    bad = call(
        conn,
        "trace_application_feature",
        {
            "application": {"kind": "retained-evidence", "evidence_id": paged["evidence_id"]},
            "seed": {"kind": "ipc-channel", "value": "log"},
        },
    )
    assert parent in bad.failure().message


def _items(c: dict, category: str, changed_only: bool = True) -> dict[str, str]:
    return {
        i["key"]: i["status"]
        for i in c["items"]
        if i["category"] == category and (i["status"] != "unchanged" or not changed_only)
    }


def test_trace_feature_from_renderer_through_ipc_to_main(app):
    conn = Connection(ctx=CTX)
    source = analyze(app, conn)
    ref = {"kind": "retained-evidence", "evidence_id": source["evidence_id"]}
    reply = call(
        conn,
        "trace_application_feature",
        {"application": ref, "seed": {"kind": "channel", "value": "settings:get"}},
    )
    r = reply.unwrap()["normalized_result"]
    assert r["seed_matches"] == [
        {"node_id": jid("ipc-channel:settings:get"), "kind": "ipc-channel", "basis": "property", "field": "channel"}
    ]
    assert r["trace_id"].startswith("jatr_") and r["source_evidence_id"] == source["evidence_id"]
    assert r["source_graph_id"] == source["normalized_result"]["graph"]["graph_id"]
    assert r["direction"] == "both" and r["seed"]["match"] is None
    assert r["coverage"] == {
        "status": "complete-within-source",
        "source_graph_status": "complete",
        "scanned_nodes": len(r["graph"]["nodes"]),
        "total_seed_matches": 1,
        "omitted_seed_matches": 0,
        "omitted_nodes": 0,
        "omitted_edges": 0,
        "omitted_paths": 0,
        "frontier_node_ids": [],
        "limits_reached": [],
        "incomplete_because": [],
        "relevance": r["coverage"]["relevance"],
    }
    # the handler module ends the outgoing path: what it imports is not this feature, and is counted
    assert jid("module:src/main.js") in r["coverage"]["relevance"]["pruned_node_ids"]
    assert jid("module:src/store.js") not in {n["node_id"] for n in r["graph"]["nodes"]}
    ends = {label(source["normalized_result"], p["end_node_id"]) for p in r["paths"]}
    assert "module:src/main.js" in ends  # outgoing: the implementing main-process handler
    assert "html:src/renderer/index.html" in ends  # incoming: the renderer entry point
    edges_by_id = {e["edge_id"]: e for e in r["graph"]["edges"]}
    backward = next(p for p in r["paths"] if p["end_node_id"] == jid("html:src/renderer/index.html"))
    assert backward["start_node_id"] == jid("ipc-channel:settings:get") and backward["direction"] == "incoming"
    assert [edges_by_id[e]["relation"] for e in backward["edge_ids"]] == ["invokes", "exposes", "calls", "loads"]
    assert backward["node_ids"][0] == jid("ipc-channel:settings:get") and backward["contains_inference"] is True
    assert r["summary"]["matched_seeds"] == 1 and r["summary"]["terminal_paths"] == len(r["paths"])
    assert r["summary"]["traced_nodes"] == len(r["graph"]["nodes"]) and r["evidence_links"] == [source["evidence_id"]]
    # our older spellings still work: forward and ipc-channel; module seeds are exact by default, as the reference
    fwd = call(
        conn,
        "trace_application_feature",
        {"application": ref, "direction": "forward", "seed": {"kind": "module", "value": "src/renderer/app.js"}},
    ).unwrap()["normalized_result"]
    assert fwd["direction"] == "outgoing"
    assert jid("ipc-channel:settings:get") in {n["node_id"] for n in fwd["graph"]["nodes"]}
    contains = call(
        conn,
        "trace_application_feature",
        {"application": ref, "seed": {"kind": "module", "value": "renderer/app", "match": "contains"}},
    ).unwrap()["normalized_result"]
    assert [m["node_id"] for m in contains["seed_matches"]] == [jid("module:src/renderer/app.js")]
    by_key = call(
        conn,
        "trace_application_feature",
        {"application": ref, "seed": {"kind": "node-id", "value": "route:GET /users/:id"}},
    ).unwrap()["normalized_result"]
    assert by_key["seed_matches"][0] == {
        "node_id": jid("route:GET /users/:id"),
        "kind": "endpoint",
        "basis": "label",
        "field": "label",
    }
    api = call(
        conn, "trace_application_feature", {"application": ref, "seed": {"kind": "api", "value": "api.getSetting"}}
    ).unwrap()["normalized_result"]
    assert (
        api["seed_matches"][0]["node_id"] == jid("context-bridge-api:api")
        and api["seed_matches"][0]["field"] == "members"
    )
    miss = call(conn, "trace_application_feature", {"application": ref, "seed": {"kind": "url", "value": "nowhere"}})
    missed = miss.unwrap()["normalized_result"]
    assert missed["coverage"]["status"] == "no-match" and missed["graph"] is None and missed["paths"] == []
    empty = call(conn, "trace_application_feature", {"application": ref, "seed": {"kind": "string", "value": ""}})
    assert empty.failure().code == "invalid_request"


def test_trace_javascript_semantics_in_the_reference_query_shape(app):
    conn = Connection(ctx=CTX)
    source = analyze(app, conn)
    ref = {"kind": "retained-evidence", "evidence_id": source["evidence_id"]}

    def query(**q):
        return call(conn, "trace_javascript_semantics", {"application": ref, "query": q}).unwrap()["normalized_result"]

    main = jid("module:src/main.js")
    found = query(seed={"kind": "application-node", "node_id": main}, direction="backward-provenance")
    assert found["status"] == "found" and found["seed_node_ids"] == [semantic_node_id(main)]
    stands_for = {n["application_node_ids"][0] for n in found["nodes"]}
    assert stands_for >= {main, jid("package:.")}
    assert all(n["node_id"] == semantic_node_id(n["application_node_ids"][0]) for n in found["nodes"])
    assert found["query_id"].startswith("jsrq_")
    assert found["source_graph_id"] == source["normalized_result"]["semantic_graph"]["graph_id"]
    assert found["application_graph_id"] == source["normalized_result"]["graph"]["graph_id"]
    assert found["summary"]["traversed_nodes"] == len(found["nodes"])
    assert found["coverage"] == {"status": "partial", "frontier": []}
    assert found["page"] == {"offset": 0, "size": len(found["relations"]), "next_cursor": None}
    assert found["applied_limits"]["page_size"] == 200 and found["accepted_limit_ranges"]["max_depth"] == {
        "minimum": 0,
        "maximum": 64,
    }
    assert found["evidence_links"] == [source["evidence_id"]]
    assert all(r["resolution"] == "resolved" for r in found["relations"])
    contexts = {c["context_id"] for c in found["evidence_contexts"]}  # shared, each record listed once
    assert contexts and all(r["evidence"]["context_id"] in contexts for r in (*found["nodes"], *found["relations"]))
    # the readable key names the same seed
    by_key = query(seed={"kind": "application-node", "node_id": "module:src/main.js"}, direction="backward-provenance")
    assert by_key["seed_node_ids"] == found["seed_node_ids"] and by_key["relations"] == found["relations"]
    # pages of one relation each partition the answer; every page has the query's id
    limits = {**found["applied_limits"], "page_size": 1}
    paged, cursor = [], None
    while True:
        page = query(
            seed={"kind": "application-node", "node_id": main},
            direction="backward-provenance",
            limits=limits,
            cursor=cursor,
        )
        assert page["page"]["size"] == len(page["relations"]) <= 1
        paged += page["relations"]
        cursor = page["page"]["next_cursor"]
        if cursor is None:
            break
    assert paged == found["relations"] and len(paged) > 1
    stale = call(
        conn,
        "trace_javascript_semantics",
        {
            "application": ref,
            "query": {
                "seed": {"kind": "literal", "value": 1},
                "direction": "callers",
                "cursor": cursor or "jsrqc_1_" + "0" * 64,
            },
        },
    )
    assert stale.failure().code == "invalid_request" and stale.failure().details["field"] == "query.cursor"
    owners = query(seed={"kind": "application-node", "node_id": main}, direction="ownership")
    assert owners["direction"] == "ownership"
    windows = [n["node_id"] for n in source["normalized_result"]["graph"]["nodes"] if n["kind"] == "browser-window"]
    owned = query(seed={"kind": "application-node", "node_id": windows[0]}, direction="ownership")
    assert {n["application_node_ids"][0] for n in owned["nodes"]} == {windows[0], main}
    # other seed kinds are answered over the semantic graph (tests/javascript/test_javascript_semantic.py)
    missing = query(seed={"kind": "property", "name": "nowhere"}, direction="forward-influence")
    assert (
        missing["status"] == "no-match" and missing["nodes"] == [] and "No semantic node" in missing["limitations"][0]
    )
    no_match = query(seed={"kind": "application-node", "node_id": "module:nope.js"}, direction="callers")
    assert no_match["status"] == "no-match"
    relations = query(
        seed={"kind": "application-node", "node_id": "module:src/main.js"},
        direction="forward-influence",
        allowed_relations=["reads-property"],
    )
    assert relations["status"] == "unsupported"
    old = call(
        conn,
        "trace_javascript_semantics",
        {"application": ref, "query": {"node_id": "module:src/main.js", "direction": "provenance"}},
    )
    assert old.failure().code == "invalid_request"


def test_compare_versions_and_export_shapes(app, tmp_path):
    conn = Connection(ctx=CTX)
    left = analyze(app, conn)
    v2 = dict(APP)
    v2["src/renderer/format.ts"] = "export function format(t: number) { return { text: String(t), iso: '' }; }\n"
    v2["src/main.js"] = APP["src/main.js"].replace("ipcMain.on('log'", "ipcMain.on('audit'")
    right = analyze(write_tree(tmp_path / "v2", v2), conn)
    result = call(
        conn,
        "compare_application_versions",
        {"left": {"kind": "retained-evidence", "evidence_id": left["evidence_id"]}, "right": right},
    ).unwrap()
    c = result["normalized_result"]
    assert _items(c, "ipc_channels") == {"audit": "added", "log": "changed"}
    # both modules changed only in their bytes: counted, summarized, not listed one by one
    assert _items(c, "modules") == {}
    assert c["content_only_changes"]["count"] == 2 and c["categories"]["modules"]["counts"]["changed"] == 2
    assert c["content_only_changes"]["sample_keys"] == ["src/main.js", "src/renderer/format.ts"]
    assert _items(c, "exports") == {
        "src/renderer/format.ts#VERSION": "removed",
        "src/renderer/format.ts#format": "changed",
    }
    assert c["comparison_id"].startswith("javc_") and c["schema_version"] == 1
    assert c["left"]["evidence_id"] == left["evidence_id"]
    assert c["left"]["graph_id"] == left["normalized_result"]["graph"]["graph_id"]
    assert c["right"]["root_artifact_sha256"] == right["normalized_result"]["root_artifact_sha256"]
    assert set(c["summary"]) == {"added", "changed", "removed", "unchanged", "unknown"}
    assert c["summary"]["added"] == 1 and c["summary"]["unchanged"] > 0  # unchanged items are listed too
    assert sum(c["summary"].values()) == len(c["items"]) + 2 and c["coverage"]["status"] == "complete-within-inputs"
    module = next(i for i in c["items"] if i["key"] == "src/renderer/format.ts#format")
    assert module["left_node_id"] == module["right_node_id"] == jid("module:src/renderer/format.ts")
    assert module["node_kind"] == "javascript-module" and module["item_id"].startswith("javc_item_")
    assert module["match"]["basis"] == "exact-node-identity" and module["dimensions"] == ["properties"]
    added = next(i for i in c["items"] if i["key"] == "audit")
    assert added["left_node_id"] is None and added["dimensions"] == ["availability"]
    assert added["match"] == {
        "status": "unmatched",
        "basis": "none",
        "confidence": "unknown",
        "candidate_left_node_ids": [],
        "candidate_right_node_ids": [jid("ipc-channel:audit")],
    }
    graph = c["graph"]
    ids = {n["node_id"] for n in graph["nodes"]}
    assert {jid("ipc-channel:audit"), jid("ipc-channel:log"), jid("module:src/main.js")} <= ids
    assert jid("module:src/store.js") not in ids  # unchanged entities are counted, not repeated
    (audit,) = [
        e
        for e in graph["edges"]
        if e["source_node_id"] == jid("module:src/main.js") and e["target_node_id"] == jid("ipc-channel:audit")
    ]
    assert audit in right["normalized_result"]["graph"]["edges"]  # the version's own edge, under its own id
    assert graph["coverage"]["status"] == "complete" and graph["graph_id"].startswith("jag_")
    assert result["evidence_links"] == [left["evidence_id"], right["evidence_id"]]
    assert c["evidence_links"] == [left["evidence_id"], right["evidence_id"]]
    shapes = call(
        conn,
        "compare_javascript_export_shapes",
        {
            "left_evidence_id": left["evidence_id"],
            "right_evidence_id": right["evidence_id"],
            "left_module_path": "src/renderer/format.ts",
            "left_export_name": "format",
            "right_module_path": "src/renderer/format.ts",
            "right_export_name": "format",
        },
    ).unwrap()["normalized_result"]
    assert shapes["status"] == "changed" and shapes["comparison_id"].startswith("jesc_")
    assert [(x["path"], x["status"]) for x in shapes["changes"]] == [("/iso", "added"), ("/ts", "removed")]
    assert shapes["changes"][0]["left"] == {"availability": "absent"}
    assert shapes["summary"] == {"added": 1, "changed": 0, "removed": 1, "unknown": 0}
    assert shapes["left"]["status"] == "selected" and shapes["left"]["selected_node_id"] == jid(
        "module:src/renderer/format.ts"
    )
    assert shapes["coverage"]["paired_variants"] == 1 and shapes["coverage"]["unpaired_left_variants"] == 0
    assert shapes["runtime_validation"]["automatically_started"] is False
    unknown = call(
        conn,
        "compare_javascript_export_shapes",
        {
            "left_evidence_id": left["evidence_id"],
            "right_evidence_id": right["evidence_id"],
            "left_module_path": "src/store.js",
            "left_export_name": "nope",
            "right_module_path": "src/store.js",
            "right_export_name": "get",
        },
    ).unwrap()["normalized_result"]
    assert unknown["status"] == "unknown" and unknown["left"]["status"] == "missing"
    assert "default" in {x["export_name"] for x in unknown["left"]["candidates"]}
    assert unknown["summary"]["unknown"] == 1 and unknown["coverage"]["status"] == "partial"
    both = call(
        conn, "compare_application_versions", {"left": left, "left_evidence_id": left["evidence_id"], "right": right}
    )
    assert both.failure().code == "invalid_request"


def test_limits_make_coverage_partial_and_say_which(app):
    r = analyze(app, limits={"max_text_files": 3})["normalized_result"]
    assert r["coverage"]["status"] == "partial" and r["coverage"]["limits_reached"] == ["max_text_files"]
    assert r["statistics"]["files_read"] == 3
    assert r["statistics"]["omissions_by_reason"]["max_text_files"] == len(APP) - 3
    r = analyze(app, limits={"max_ast_nodes": 20})["normalized_result"]
    assert "max_ast_nodes" in r["coverage"]["limits_reached"]
    assert node(r, "module:src/main.js")["omitted_reason"] == "max_ast_nodes"


def test_errors_are_canonical(app, tmp_path):
    conn = Connection(ctx=CTX)
    gone = call(conn, "analyze_javascript_application", {"input_path": str(tmp_path / "missing")})
    assert gone.failure().code == "target_unavailable"
    (tmp_path / "app.asar").write_bytes(b"\x04\x00\x00\x00")
    asar = call(conn, "analyze_javascript_application", {"input_path": str(tmp_path / "app.asar")})
    assert asar.failure().code == "artifact_operation_failed" and asar.failure().details["format"] == "asar"
    as_dir = call(
        conn, "analyze_javascript_application", {"input_path": str(tmp_path / "app.asar"), "format": "directory"}
    )
    assert as_dir.failure().details["field"] == "format"
    afile = call(conn, "analyze_javascript_application", {"input_path": str(app / "src/main.js")})
    assert afile.failure().code == "invalid_request"
    extra = call(conn, "analyze_javascript_application", {"input_path": str(app), "approved": True})
    assert extra.failure().code == "invalid_request"
    assert not conn.session.evidence


# ------------------------------------------------------------ real npm packages, real esbuild


@pytest.mark.slow
def test_real_packages_resolve_through_exports_and_main(npm_tree, tmp_path):
    root = tmp_path / "consumer"
    write_tree(
        root,
        {
            "package.json": json.dumps({"name": "consumer", "main": "index.js"}),
            "index.js": "const ms = require('ms');\nconst { v4 } = require('uuid');\nconst p = require('uuid/package.json');\n"
            "const hidden = require('uuid/dist/index.js');\n",
            "esm.mjs": "import { v4 } from 'uuid';\n",
        },
    )
    shutil.copytree(npm_tree / "ms", root / "node_modules" / "ms")
    shutil.copytree(npm_tree / "uuid", root / "node_modules" / "uuid")
    evidence = analyze(root)
    r = evidence["normalized_result"]
    # proportionate: the complete record is a fraction of the text it read (the bound is 10x)
    from rea.canonical_json import canonicalize

    # the application record stays proportionate: the semantic companion graph (one node per function, literal,
    # call: ~30-60x the text on node_modules trees) is retained as its own Evidence, which the record names
    assert len(canonicalize(evidence)) <= 10 * r["statistics"]["bytes_read"]
    assert len(semantic_graph(evidence)["nodes"]) > r["semantic_graph"]["counts"]["relations"] / 10 > 0
    key = labels(r)
    found = {
        (key[e["source_node_id"]], e["specifier"]): (key[e["target_node_id"]], e["basis"]) for e in edges(r, "imports")
    }
    assert found[("module:index.js", "ms")] == ("module:node_modules/ms/index.js", "package-main")
    assert found[("module:index.js", "uuid")] == ("module:node_modules/uuid/dist/index.js", "package-exports")
    assert found[("module:esm.mjs", "uuid")] == ("module:node_modules/uuid/wrapper.mjs", "package-exports")
    assert found[("module:index.js", "uuid/dist/index.js")] == ("unresolved:uuid/dist/index.js", "not-exported")
    assert node(r, "package:node_modules/uuid")["has_exports"] is True
    assert node(r, "module:node_modules/ms/index.js")["package"] == "node_modules/ms"


@pytest.mark.slow
def test_esbuild_bundle_with_source_map(npm_tree, tmp_path):
    src = write_tree(
        tmp_path / "src",
        {
            "src/main.js": "import { helper } from './util/helper.js';\nimport ms from 'ms';\nconsole.log(helper(ms('1h')));\n",
            "src/util/helper.js": "export function helper(x) { return { value: x }; }\n",
        },
    )
    shutil.copytree(npm_tree / "ms", src / "node_modules" / "ms")
    out = tmp_path / "dist"
    subprocess.run(
        [
            str(npm_tree / ".bin" / "esbuild"),
            str(src / "src/main.js"),
            "--bundle",
            "--sourcemap",
            "--platform=node",
            f"--outfile={out / 'bundle.js'}",
        ],
        check=True,
        capture_output=True,
        cwd=src,
    )
    conn = Connection(ctx=CTX)
    app = analyze(out, conn)
    r = app["normalized_result"]
    bundle = node(r, "module:bundle.js")
    assert "esbuild" in bundle["bundlers"]
    assert edges(r, "maps_to", "module:bundle.js", "source-map:bundle.js.map")
    smap = node(r, "source-map:bundle.js.map")
    assert smap["sources"] == 3 and smap["sources_with_content"] == 3
    originals = {n["source"] for n in r["graph"]["nodes"] if n["subkind"] == "original-source-module"}
    assert any(s.endswith("src/util/helper.js") for s in originals)
    bundled = {n["path"] for n in r["graph"]["nodes"] if n["subkind"] == "bundled-module"}
    assert any(p.endswith("ms/index.js") for p in bundled)
    # the reference source tree against the shipped bundle
    reference = analyze(src, conn)
    cmp = call(
        conn,
        "compare_source_to_bundle",
        {"application": {"kind": "retained-evidence", "evidence_id": app["evidence_id"]}, "reference": reference},
    ).unwrap()["normalized_result"]
    assert {i["source_path"]: i["status"] for i in cmp["items"]} == {
        "src/main.js": "unchanged",
        "src/util/helper.js": "unchanged",
    }
    assert cmp["summary"]["removed"] == 0 and cmp["summary"]["unchanged"] == 2
    assert cmp["reference"]["kind"] == "application-evidence" and cmp["comparison_id"].startswith("stbc_")
    helper = next(i for i in cmp["items"] if i["source_path"] == "src/util/helper.js")
    assert helper["confidence"] == "exact" and helper["candidates"][0]["signals"][0]["kind"] == "exact-source-digest"
    assert cmp["evidence_links"] == [app["evidence_id"], reference["evidence_id"]]
    own = call(conn, "compare_source_to_bundle", {"application_evidence_id": app["evidence_id"]}).unwrap()
    assert own["normalized_result"]["summary"]["unchanged"] == 3
    assert own["normalized_result"]["reference"]["kind"] == "source-map-sources"


@pytest.mark.slow
def test_two_versions_of_one_package(npm_tree):
    conn = Connection(ctx=CTX)
    old, new = analyze(npm_tree / "ms-old", conn), analyze(npm_tree / "ms", conn)
    c = call(conn, "compare_application_versions", {"left": old, "right": new}).unwrap()["normalized_result"]
    deps = {i["key"]: i for i in c["items"] if i["category"] == "dependencies"}
    assert deps["package.json:(self)"]["status"] == "changed"
    assert deps["package.json:(self)"]["left"]["version"] == "2.0.0"
    assert deps["package.json:(self)"]["changed_fields"] == ["version"]
    assert "index.js" in c["content_only_changes"]["sample_keys"]  # bytes changed, recorded facts did not
    assert c["categories"]["modules"]["counts"]["changed"] >= 1


# ------------------------------------------------------------ MCP end to end and the CLI


@pytest.mark.slow
def test_mcp_end_to_end(app):
    async def main():
        async with connect() as s:
            summary = await s.call_tool("analyze_javascript_application", {"input_path": str(app), "detail": "summary"})
            assert summary.is_error is False
            view = summary.structured_content
            assert json.loads(summary.content[0].text) == view
            parent = view["normalized_result"]["parent_evidence_id"]
            traced = await s.call_tool(
                "trace_application_feature",
                {
                    "application": {"kind": "retained-evidence", "evidence_id": parent},
                    "seed": {"kind": "ipc-channel", "value": "tick"},
                },
            )
            assert traced.is_error is False
            ends = {p["end_node_id"] for p in traced.structured_content["normalized_result"]["paths"]}
            assert jid("module:src/main.js") in ends
            bad = await s.call_tool("analyze_javascript_application", {"input_path": str(app / "nope")})
            err(bad, "target_unavailable")
            assert bad.meta == {"provenance": {"untrusted_content": True, "source": "analysis_target"}}

    anyio.run(main)


@pytest.mark.slow
def test_cli(app):
    env = clean_env()
    proc = subprocess.run(
        [*rea_command(), "analyze-javascript-application", str(app)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Electron application" in proc.stdout and "ipc 'settings:get'" in proc.stdout
    proc = subprocess.run(
        [
            *rea_command(),
            "analyze-javascript-application",
            str(app),
            "--detail",
            "complete",
            "--json",
            "--integrity-policy",
            "record-and-continue",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    record = json.loads(proc.stdout)
    assert record["normalized_result"]["integrity_policy"] == "record-and-continue"
    proc = subprocess.run(
        [*rea_command(), "analyze-javascript-application", str(app / "missing"), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 1 and json.loads(proc.stdout)["error"]["code"] == "target_unavailable"
    assert os.path.isdir(app)
    proc = subprocess.run(
        [*rea_command(), "analyze", str(app), "--integrity-policy", "record-and-continue", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    view = json.loads(proc.stdout)
    assert view["operation"] == "inspect_analysis_view" and view["normalized_result"]["kind"] == "summary"


# ------------------------------------------------------------ cancellation


def test_cancel_during_parsing_retains_partial_evidence(tmp_path):
    """Driven with the real effect handlers, cancelled at the second parsing batch: the program returns
    a cancelled error whose partial_observation names partial Evidence of the first batch."""
    from effects.javascript.runtime import HANDLERS
    from effects.progress import Progress
    from rea.javascript.effects import ExtractFiles
    from rea.javascript.programs.analysis import analyze_javascript_application
    from rea.program import ProgramCancelled, ReportProgress
    from rea.session import Session

    root = write_tree(tmp_path / "many", {f"m{i:03}.js": f"require('./m{i + 1:03}');\n" for i in range(150)})
    from rea.javascript.records.arguments import AnalyzeArgs
    from rea.wire.convert import structure

    args = structure({"input_path": str(root)}, AnalyzeArgs).unwrap()
    program = analyze_javascript_application(Session(), args, CTX)
    reply, batches = None, 0
    while True:
        effect = program.send(reply)
        if isinstance(effect, ReportProgress):
            reply = None
            continue
        if isinstance(effect, ExtractFiles):
            batches += 1
            if batches == 2:
                try:
                    program.throw(ProgramCancelled("parsing"))
                except StopIteration as stop:
                    outcome = stop.value
                break
        reply = anyio.run(HANDLERS[type(effect)], effect, Progress(None))
    error = outcome.reply.failure()
    assert error.code == "cancelled" and error.details["files_done"] == 64 and error.details["files_total"] == 150
    partial = outcome.session.evidence[error.details["partial_observation"]["evidence_id"]]
    r = partial.normalized_result
    assert r["coverage"]["status"] == "partial" and r["coverage"]["cancelled_during"] == "parsing"
    assert r["statistics"]["files_read"] == 64 and r["statistics"]["omissions_by_reason"]["cancelled"] == 86


def test_cancelled_call_keeps_the_programs_partial_session(app):
    """Through call_tool: a cancel that lands after the first batch keeps the partial record in the session."""
    from effects.interpreter import HANDLERS
    from rea.javascript.effects import ExtractFiles

    conn = Connection(ctx=CTX)
    original = HANDLERS[ExtractFiles]
    calls = {"n": 0}

    async def second_batch_cancels(effect, progress):
        calls["n"] += 1
        if calls["n"] == 2:
            await anyio.sleep(30)  # cancelled here
        return await original(effect, progress)

    root = write_tree(app / "more", {f"x{i:03}.js": "module.exports = 1;\n" for i in range(100)})

    async def main():
        with anyio.move_on_after(1) as scope:
            await call_tool(conn, "analyze_javascript_application", {"input_path": str(root)}, None)
        return scope.cancelled_caught

    HANDLERS[ExtractFiles] = second_batch_cancels  # type: ignore[index]
    try:
        assert anyio.run(main) is True
    finally:
        HANDLERS[ExtractFiles] = original  # type: ignore[index]
    assert conn.cancelled_reply.failure().code == "cancelled"
    kept = conn.cancelled_reply.failure().details["partial_observation"]["evidence_id"]
    assert conn.session.evidence[kept].normalized_result["coverage"]["status"] == "partial"


# ------------------------------------------------------------ ASAR packed by the official @electron/asar CLI


@pytest.mark.slow
def test_asar_packed_by_electron_asar(npm_tree, app, tmp_path):
    (app / "addon.node").write_bytes(b"\x7fELF not really")
    (app / "inner.asar").write_bytes(b"\x04\x00\x00\x00")
    archive = tmp_path / "app.asar"
    subprocess.run(
        [str(npm_tree / ".bin" / "asar"), "pack", str(app), str(archive), "--unpack-dir", "src/renderer"],
        check=True,
        capture_output=True,
    )
    assert (tmp_path / "app.asar.unpacked" / "src" / "renderer" / "app.js").exists()
    conn = Connection(ctx=CTX)
    evidence = analyze(archive, conn)
    r = evidence["normalized_result"]
    assert evidence["subject"]["format"] == "asar" and r["application"]["format"] == "asar"
    assert roles(r, "module:src/renderer/app.js") == ["renderer"]  # read from .asar.unpacked
    assert node(r, "ipc-channel:settings:get")["linked"] is True
    assert node(r, "asar:inner.asar") and any(u["kind"] == "nested-asar-not-read" for u in r["unknowns"])
    assert r["integrity_contradictions"] == [] and r["coverage"]["status"] == "complete"
    # a changed unpacked companion contradicts the header: fail closed by default ...
    (tmp_path / "app.asar.unpacked" / "src" / "renderer" / "app.js").write_text("window.api.log('changed');\n")
    refused = call(conn, "analyze_javascript_application", {"input_path": str(archive)}).failure()
    assert refused.code == "artifact_integrity_mismatch" and refused.details["unpacked"] is True
    assert set(refused.details) == {"logical_path", "declared_sha256", "calculated_sha256", "unpacked"}
    assert "record-and-continue" in refused.action and "unpacked" in refused.message
    # ... or record and continue with the verified siblings
    continued = analyze(archive, conn, integrity_policy="record-and-continue")["normalized_result"]
    (contradiction,) = continued["integrity_contradictions"]
    assert contradiction["logical_path"] == "src/renderer/app.js" and contradiction["unpacked"] is True
    assert contradiction["declared_sha256"] != contradiction["calculated_sha256"]
    assert continued["coverage"]["status"] == "partial"
    assert node(continued, "module:src/renderer/app.js")["parse"] == "quarantined"
    assert node(continued, "ipc-channel:settings:get")["linked"] is True  # verified main and preload continue


@pytest.mark.slow
def test_webpack_development_bundle_modules_are_recovered(npm_tree, tmp_path):
    src = write_tree(
        tmp_path / "proj",
        {
            "package.json": json.dumps({"name": "proj", "private": True}),
            "src/index.js": "import { helper } from './util.js';\nconsole.log(helper(2));\n",
            "src/util.js": "export function helper(x) { return { v: x }; }\n",
        },
    )
    subprocess.run(
        [
            str(npm_tree / ".bin" / "webpack"),
            "--mode",
            "development",
            "--devtool",
            "source-map",
            "--entry",
            "./src/index.js",
            "-o",
            str(tmp_path / "dist"),
        ],
        cwd=src,
        check=True,
        capture_output=True,
        timeout=300,
    )
    conn = Connection(ctx=CTX)
    app = analyze(tmp_path / "dist", conn)
    r = app["normalized_result"]
    assert node(r, "module:main.js")["bundlers"] == ["webpack"]
    assert node(r, "bundled-module:main.js#./src/util.js")["bundle"] == "main.js"
    cmp = call(
        conn,
        "compare_source_to_bundle",
        {"application_evidence_id": app["evidence_id"], "reference": analyze(src, conn)},
    ).unwrap()["normalized_result"]
    mapped = {i["source_path"] for i in cmp["items"] if i["status"] in ("unchanged", "modified")}
    assert mapped == {"src/index.js", "src/util.js"}


@pytest.mark.slow
def test_nested_asar_is_read_and_a_contradicted_one_stays_opaque(npm_tree, tmp_path):
    asar_cli = str(npm_tree / ".bin" / "asar")
    inner_src = write_tree(tmp_path / "inner", {"lib/plugin.js": "module.exports = { run() { return 1; } };\n"})
    outer = write_tree(
        tmp_path / "outer",
        {
            "package.json": json.dumps({"name": "outer", "main": "index.js"}),
            "index.js": "require('./plugins/inner.asar/lib/plugin.js');\n",
        },
    )
    (outer / "plugins").mkdir()
    subprocess.run(
        [asar_cli, "pack", str(inner_src), str(outer / "plugins" / "inner.asar")], check=True, capture_output=True
    )
    archive = tmp_path / "outer.asar"
    subprocess.run([asar_cli, "pack", str(outer), str(archive)], check=True, capture_output=True)
    conn = Connection(ctx=CTX)
    r = analyze(archive, conn)["normalized_result"]
    assert node(r, "asar:plugins/inner.asar")["status"] == "expanded"
    assert edges(r, "imports", "module:index.js", "module:plugins/inner.asar/lib/plugin.js")
    assert r["coverage"]["status"] == "complete"
    # corrupt one byte inside the nested archive's bytes: its declared hash no longer holds
    data = bytearray(archive.read_bytes())
    at = data.rindex(b"return 1")
    data[at + 7] = ord("2")
    archive.write_bytes(bytes(data))
    refused = call(conn, "analyze_javascript_application", {"input_path": str(archive)}).failure()
    assert refused.code == "artifact_integrity_mismatch" and refused.details["logical_path"] == "plugins/inner.asar"
    r = analyze(archive, conn, integrity_policy="record-and-continue")["normalized_result"]
    assert node(r, "asar:plugins/inner.asar")["status"] == "contradicted"
    assert [c["logical_path"] for c in r["integrity_contradictions"]] == ["plugins/inner.asar"]
    assert not any(
        n.get("path", "").startswith("plugins/inner.asar/") for n in r["graph"]["nodes"] if n["subkind"] == "module"
    )
    assert r["coverage"]["status"] == "partial"


def test_shared_inspect_analysis_view_pages_application_modules(app):
    conn = Connection(ctx=CTX)
    complete = call(conn, "analyze_javascript_application", {"input_path": str(app)}).unwrap()
    ref = {"kind": "retained-evidence", "evidence_id": complete["evidence_id"]}
    summary = call(conn, "inspect_analysis_view", {"source": ref}).unwrap()
    assert summary["provider"]["id"] == "rea-views"
    assert summary["normalized_result"]["parent_evidence_id"] == complete["evidence_id"]
    modules = {"kind": "page", "collection": "modules"}
    first = call(conn, "inspect_analysis_view", {"source": ref, "view": {**modules, "limit": 2}}).unwrap()[
        "normalized_result"
    ]
    assert first["kind"] == "page" and first["parent_operation"] == "analyze_javascript_application"
    assert first["coverage"]["next_offset"] == 2 and len(first["items"]) == 2
    rest = call(conn, "inspect_analysis_view", {"source": ref, "view": {**modules, "offset": 2, "limit": 500}}).unwrap()
    assert rest["normalized_result"]["view_digest"] != first["view_digest"]
    assert rest["normalized_result"]["coverage"]["next_offset"] is None
