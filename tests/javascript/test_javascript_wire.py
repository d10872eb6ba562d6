"""The JavaScript family on the wire in REA 6.x shapes: every result checked against its advertised (typed)
output schema on the real fixture trees, all six tools through the real MCP stdio server (the SDK client
validates structuredContent against the schema), and the CLI routes."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import anyio
import jsonschema
import pytest

from effects.calls import Connection
from javascript_fixtures import APP, HERE, analyze, assert_fits, call, semantic_graph, write_tree
from mcp_client import connect, err
from rea.artifacts.graph import artifact_id
from rea.catalog import CATALOG
from rea.javascript.ids import edge_id
from rea.javascript.ids import node_id as jid
from scripted import CTX
from support import clean_env, rea_command


@pytest.fixture()
def app(tmp_path) -> Path:
    return write_tree(tmp_path / "app", APP)


def test_analysis_of_an_electron_app_has_the_reference_fields(app):
    evidence = analyze(app)
    assert_fits("analyze_javascript_application", evidence)
    r = evidence["normalized_result"]
    assert r["input_path"] == str(app) and r["format"] == "directory"
    assert r["root_artifact_sha256"] == evidence["subject"]["digest"]["sha256"]
    assert r["inventory_manifest_id"].startswith("agm_") and len(r["inventory_graph_sha256"]) == 64
    again = analyze(app)["normalized_result"]  # the inventory's identity is a function of the tree
    assert (again["inventory_manifest_id"], again["inventory_graph_sha256"]) == (
        r["inventory_manifest_id"],
        r["inventory_graph_sha256"],
    )
    graph = r["graph"]
    assert graph["schema"] == "JavaScriptApplicationGraph" and graph["graph_id"].startswith("jag_")
    assert "nodes" not in r and "edges" not in r  # the node list lives only under graph
    assert all(set(n) >= {"node_id", "kind", "identity", "observations", "label", "subkind"} for n in graph["nodes"])
    assert all("id" not in n and n["node_id"] == jid(n["label"]) for n in graph["nodes"])
    ids = {n["node_id"] for n in graph["nodes"]}
    assert all(e["source_node_id"] in ids and e["target_node_id"] in ids for e in graph["edges"])
    assert len({e["edge_id"] for e in graph["edges"]}) == len(graph["edges"])
    assert jid("module:src/main.js") in graph["root_node_ids"] and graph["coverage"]["status"] == "complete"
    main = next(n for n in graph["nodes"] if n["label"] == "module:src/main.js")
    assert (main["kind"], main["subkind"]) == ("javascript-module", "module")
    assert main["identity"] == {
        "strategy": "canonical-path",
        "stability": "artifact-version",
        "artifact_sha256": r["root_artifact_sha256"],
        "path": "src/main.js",
    }
    (seen,) = main["observations"]
    text = (app / "src/main.js").read_bytes()
    assert seen["evidence"]["artifact"] == {
        "available": True,
        "artifact_id": artifact_id(hashlib.sha256(text).hexdigest(), len(text)),  # as inventory_artifact names it
        "sha256": hashlib.sha256(text).hexdigest(),
    }
    assert seen["properties"]["path"] == "src/main.js" and seen["observation_id"].startswith("jag_observation_")
    channel = next(n for n in graph["nodes"] if n["label"] == "ipc-channel:settings:get")
    assert channel["identity"]["strategy"] == "artifact-local-key" and channel["identity"]["key"] == channel["label"]
    invoke = next(e for e in graph["edges"] if e["relation"] == "invokes")
    assert invoke["evidence"]["authority"] == "static-relationship-inference"  # paired by channel name
    assert invoke["properties"]["direction"] == "renderer-to-main" == invoke["direction"]
    assert r["summary"]["browser_windows"] == 1 and r["summary"]["context_bridge_apis"] == 1
    assert r["summary"]["exposed_api_members"] == 3 and r["summary"]["preload_entrypoints"] == 1
    assert r["summary"]["utility_processes"] == 1 and r["summary"]["resolved_utility_entrypoints"] == 1
    assert r["summary"]["ipc"] == {
        "operations": 7,
        "literal_channels": 3,
        "dynamic_channel_operations": 1,
        "renderer_transmissions": 2,
        "renderer_listeners": 1,
        "main_handlers": 3,
        "paired_renderer_transmissions": 2,
        "ambiguous_renderer_transmissions": 0,
        "unpaired_literal_renderer_transmissions": 0,
    }
    stats = r["statistics"]
    assert stats["relevant_files"] == 11 and stats["parse_failures"] == 0 and stats["truncated_scopes"] == 0
    assert stats["parsed_javascript_files"] == stats["parsed_files"] and stats["text_bytes_read"] > 0
    semantic = semantic_graph(evidence)
    assert semantic["coverage"]["status"] == "complete" and semantic["nodes"]
    assert r["semantic_graph"]["retained"]["kind"] == "retained-evidence"
    assert semantic["application_graph_id"] == graph["graph_id"]
    assert semantic["root_artifact_sha256"] == r["root_artifact_sha256"]
    modules = {n["node_id"] for n in graph["nodes"] if n["subkind"] == "module"}
    assert {i for n in semantic["nodes"] for i in n["application_node_ids"]} <= modules
    assert r["integrity_policy"] == "fail"


@pytest.mark.slow
@pytest.mark.parametrize("tree", ["javascript", "javascript-webpack4"])
def test_large_real_trees_fit_the_advertised_schema(npm_tree, tree):
    """Thousands of real npm files, bundles and maps: every node kind and edge the analyzer builds fits the
    typed schema (the MCP tests only see the small app)."""
    evidence = analyze(HERE.parent / tree)
    assert_fits("analyze_javascript_application", evidence)
    kinds = {n["subkind"] for n in evidence["normalized_result"]["graph"]["nodes"]}
    assert {"module", "package", "builtin-module"} <= kinds


def test_policy_spellings_and_limits_defaults(app):
    conn = Connection(ctx=CTX)
    for spelling, recorded in (("fail", "fail"), ("fail-closed", "fail"), ("record-and-continue",) * 2):
        r = analyze(app, conn, integrity_policy=spelling)["normalized_result"]
        assert r["integrity_policy"] == recorded
    bad = call(conn, "analyze_javascript_application", {"input_path": str(app), "integrity_policy": "ignore"})
    assert bad.failure().code == "invalid_request"
    schema = next(c for c in CATALOG if c.name == "analyze_javascript_application").input_schema
    assert schema["properties"]["integrity_policy"]["enum"][:2] == ["fail", "record-and-continue"]
    assert schema["properties"]["integrity_policy"]["default"] == "fail"


HISTORICAL = {
    "schema": "HistoricalSourceGraph/v1",
    "authority": "historical-reference",
    "root_alias": "$REFERENCE_ROOT",
    "root_sha256": "a" * 64,
    "inventory_state": "complete",
    "entries": [
        {
            "kind": "directory",
            "path": "src",
            "classifications": ["source"],
            "tree_state": "enumerated",
            "limitations": [],
        },
        {
            "kind": "file",
            "path": "src/helper.js",
            "content_state": "hashed",
            "sha256": None,
            "size": 10,
            "language": "javascript",
            "classifications": ["source"],
            "limitations": [],
        },
        {
            "kind": "file",
            "path": "src/gone.js",
            "content_state": "hashed",
            "sha256": "b" * 64,
            "size": 5,
            "language": "javascript",
            "classifications": ["source"],
            "limitations": [],
        },
    ],
    "exclusions": [],
    "languages": ["javascript"],
    "limitations": [],
    "manifests": [],
    "parse_failures": [],
    "relationships": [],
    "provenance": {"caller": "test", "importer": "hand-written", "importer_version": None},
    "vcs": None,
}


def _bundle_tree(root: Path) -> Path:
    """A bundle with a map whose embedded source is src/helper.js (content known, digest checkable)."""
    helper = "export const helper = () => 1;\n"
    smap = {
        "version": 3,
        "file": "app.js",
        "sources": ["src/helper.js"],
        "sourcesContent": [helper],
        "mappings": "AAAA",
    }
    return write_tree(
        root, {"app.js": "const helper = () => 1;\n//# sourceMappingURL=app.js.map\n", "app.js.map": json.dumps(smap)}
    )


@pytest.mark.slow
def test_all_six_tools_through_mcp_in_the_reference_shapes(app, tmp_path):
    v2 = dict(APP)
    v2["src/main.js"] = APP["src/main.js"].replace("ipcMain.on('log'", "ipcMain.on('audit'")
    right_tree = write_tree(tmp_path / "v2", v2)
    bundle = _bundle_tree(tmp_path / "bundle")

    async def main():
        async with connect() as s:

            async def ok(tool, args):
                reply = await s.call_tool(tool, args)
                assert reply.is_error is False, reply.content[0].text[:500]
                assert_fits(tool, reply.structured_content)
                return reply.structured_content

            left = await ok("analyze_javascript_application", {"input_path": str(app), "integrity_policy": "fail"})
            right = await ok("analyze_javascript_application", {"input_path": str(right_tree)})
            shipped = await ok("analyze_javascript_application", {"input_path": str(bundle)})
            lref = {"kind": "retained-evidence", "evidence_id": left["evidence_id"]}
            rref = {"kind": "retained-evidence", "evidence_id": right["evidence_id"]}
            trace = (
                await ok(
                    "trace_application_feature",
                    {
                        "application": lref,
                        "native_observations": [],
                        "seed": {"kind": "channel", "value": "tick", "match": None, "case_sensitive": False},
                        "direction": "outgoing",
                    },
                )
            )["normalized_result"]
            assert trace["direction"] == "outgoing" and trace["seed_matches"][0]["node_id"] == jid("ipc-channel:tick")
            assert all(p["path_id"].startswith("jatp_") for p in trace["paths"]) and trace["native_handoffs"] == []
            semantic = (
                await ok(
                    "trace_javascript_semantics",
                    {
                        "application": lref,
                        "query": {
                            "seed": {"kind": "literal", "value": "settings:get"},
                            "direction": "backward-provenance",
                            "include_ambiguous_dynamic_edges": False,
                            "expected": {"role": "source", "classes": ["literal"]},
                        },
                    },
                )
            )["normalized_result"]
            assert semantic["status"] == "found" and semantic["seed_node_ids"]  # the channel literal, in code
            versions = (
                await ok(
                    "compare_application_versions",
                    {"left": lref, "right": rref, "left_native_observations": [], "right_native_observations": []},
                )
            )["normalized_result"]
            assert versions["summary"]["added"] >= 1 and versions["summary"]["changed"] >= 1
            assert versions["left"] == {
                "evidence_id": left["evidence_id"],
                "graph_id": left["normalized_result"]["graph"]["graph_id"],
                "root_artifact_sha256": left["normalized_result"]["root_artifact_sha256"],
            }
            mapped = (
                await ok(
                    "compare_source_to_bundle",
                    {
                        "application": {"kind": "retained-evidence", "evidence_id": shipped["evidence_id"]},
                        "reference": HISTORICAL,
                    },
                )
            )["normalized_result"]
            assert (
                mapped["reference"]["inventory_state"] == "complete" and mapped["reference"]["root_sha256"] == "a" * 64
            )
            statuses = {i["source_path"]: i["status"] for i in mapped["items"]}
            assert statuses == {"src/gone.js": "removed", "src/helper.js": "unknown"}  # no digest: not comparable
            assert mapped["summary"]["removed"] == 1 and mapped["summary"]["unknown"] == 1
            helper = next(i for i in mapped["items"] if i["source_path"] == "src/helper.js")
            assert helper["current_node_ids"] == [jid("source:src/helper.js")]
            shapes = (
                await ok(
                    "compare_javascript_export_shapes",
                    {
                        "left": lref,
                        "right": rref,
                        "left_module_path": "src/store.js",
                        "left_export_name": "default",
                        "right_module_path": "src/store.js",
                        "right_export_name": "default",
                    },
                )
            )["normalized_result"]
            assert shapes["summary"] == {"added": 0, "changed": 0, "removed": 0, "unknown": 0}
            assert shapes["coverage"]["status"] == "complete-within-inputs" and shapes["changes"] == []
            bad = await s.call_tool(
                "compare_source_to_bundle",
                {"application": lref, "reference": {"authority": "historical-reference", "entries": "no"}},
            )
            err(bad, "invalid_request")

    anyio.run(main)


def test_historical_reference_with_a_digest_maps_unchanged(tmp_path):
    conn = Connection(ctx=CTX)
    shipped = analyze(_bundle_tree(tmp_path / "bundle"), conn)
    import hashlib

    digest = hashlib.sha256(b"export const helper = () => 1;\n").hexdigest()
    reference = json.loads(json.dumps(HISTORICAL))
    reference["entries"][1]["sha256"] = digest
    result = call(
        conn, "compare_source_to_bundle", {"application_evidence_id": shipped["evidence_id"], "reference": reference}
    ).unwrap()
    assert_fits("compare_source_to_bundle", result)
    items = {i["source_path"]: i for i in result["normalized_result"]["items"]}
    assert items["src/helper.js"]["status"] == "unchanged" and items["src/helper.js"]["confidence"] == "exact"


@pytest.mark.slow
def test_cli_routes_return_the_reference_fields(app):
    env = clean_env()
    proc = subprocess.run(
        [*rea_command(), "analyze-javascript-application", str(app), "--detail", "complete", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    r = json.loads(proc.stdout)["normalized_result"]
    assert r["graph"]["nodes"][0]["node_id"] and r["summary"]["ipc"]["main_handlers"] == 3
    assert r["integrity_policy"] == "fail" and r["semantic_graph"]["coverage"]["status"] == "complete"
    for detail in ("complete", "summary"):
        text = subprocess.run(
            [*rea_command(), "analyze-javascript-application", str(app), "--detail", detail],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        ).stdout
        assert text.strip() and max(len(x) for x in text.splitlines() if str(app) not in x) <= 100, text
        if detail == "complete":
            assert "3 main handlers, 2 renderer transmissions (2 paired)" in text, text
    proc = subprocess.run(
        [*rea_command(), "analyze", str(app), "--integrity-policy", "fail-closed", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["normalized_result"]["kind"] == "summary"


REFERENCE_CATALOG = Path("/work/shared/reference/rea-3.1-catalog.json")
FAMILY = (
    "analyze_javascript_application",
    "trace_application_feature",
    "trace_javascript_semantics",
    "compare_application_versions",
    "compare_source_to_bundle",
    "compare_javascript_export_shapes",
)


def _reference_examples() -> list[tuple[str, dict]]:
    """The reference's own example calls (approval flags dropped: 6.x removed them)."""
    tools = json.loads(REFERENCE_CATALOG.read_text())["tools"] if REFERENCE_CATALOG.exists() else []
    return [
        (t["name"], {k: v for k, v in e.items() if "approved" not in k})
        for t in tools
        if t["name"] in FAMILY
        for e in t["input_schema"].get("examples", [])
    ]


@pytest.mark.skipif(not REFERENCE_CATALOG.exists(), reason="reference catalog not on this machine")
@pytest.mark.parametrize(("tool", "example"), _reference_examples(), ids=lambda x: x if isinstance(x, str) else "")
def test_the_reference_example_calls_fit_our_input_schemas(tool, example):
    schema = next(c for c in CATALOG if c.name == tool).input_schema
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(example))
    assert not errors, [(list(e.absolute_path), e.message[:200]) for e in errors]


def test_native_observation_ids_and_comparison_bounds(app, tmp_path):
    conn = Connection(ctx=CTX)
    left = analyze(app, conn)
    v2 = dict(APP, **{"src/store.js": "module.exports = { get() {}, set() {}, clear() {}, size: 0 };\n"})
    right = analyze(write_tree(tmp_path / "v2", v2), conn)
    ids = {"left_evidence_id": left["evidence_id"], "right_evidence_id": right["evidence_id"]}
    traced = call(
        conn,
        "trace_application_feature",
        {
            "application_evidence_id": left["evidence_id"],
            "native_observation_evidence_ids": [right["evidence_id"]],
            "seed": {"kind": "module", "value": "src/main.js"},
        },
    ).unwrap()
    assert right["evidence_id"] in traced["normalized_result"]["evidence_links"]
    missing = call(
        conn,
        "trace_application_feature",
        {
            "application_evidence_id": left["evidence_id"],
            "native_observation_evidence_ids": ["ev_" + "9" * 64],
            "seed": {"kind": "module", "value": "src/main.js"},
        },
    )
    assert missing.failure().code == "evidence_integrity_mismatch"
    shapes = {
        **ids,
        "left_module_path": "src/store.js",
        "left_export_name": "default",
        "right_module_path": "src/store.js",
        "right_export_name": "default",
    }
    full = call(conn, "compare_javascript_export_shapes", shapes).unwrap()["normalized_result"]
    assert full["summary"]["added"] == 2 and len(full["changes"]) == 2
    cut = call(conn, "compare_javascript_export_shapes", {**shapes, "limits": {"max_changes": 1}}).unwrap()
    cut = cut["normalized_result"]
    assert len(cut["changes"]) == 1 and cut["summary"] == full["summary"]
    assert cut["coverage"]["status"] == "truncated" and cut["coverage"]["omitted_changes"] == 1
    reference = json.loads(json.dumps(HISTORICAL))
    mapped = call(
        conn,
        "compare_source_to_bundle",
        {"application_evidence_id": left["evidence_id"], "reference": reference, "limits": {"max_source_files": 1}},
    ).unwrap()["normalized_result"]
    assert len(mapped["items"]) == 1 and mapped["coverage"]["omitted_source_files"] == 1
    assert mapped["coverage"]["status"] == "truncated"
    versions = call(conn, "compare_application_versions", {**ids, "limits": {"max_comparison_items": 3}}).unwrap()
    assert len(versions["normalized_result"]["items"]) == 3
    assert versions["normalized_result"]["coverage"]["status"] == "truncated"
    small = call(conn, "compare_application_versions", {**ids, "limits": {"max_graph_nodes": 2}}).unwrap()
    assert_fits("compare_application_versions", small)
    small = small["normalized_result"]
    assert len(small["graph"]["nodes"]) == 2 and small["coverage"]["omitted_graph_nodes"] > 0
    assert small["graph"]["coverage"]["truncated"] is True and small["coverage"]["status"] == "truncated"


def test_change_graph_pairs_renamed_nodes_with_changed_from():
    """Two builds give one original source different bundled-module ids: the change graph links them."""
    from rea.javascript.compare import change_graph
    from rea.javascript.records.arguments import VersionLimits
    from rea.javascript.records.comparison import VersionItem, VersionMatch

    def side(mid: str) -> dict:
        loc = {"path": "main.js", "start": 0, "end": 10}
        node = {"node_id": mid, "kind": "bundled-module", "bundle": "main.js", "source": "src/a.js", "location": loc}
        root = {"node_id": "module:main.js", "kind": "module", "path": "main.js", "parse": "ok", "roles": []}
        edge = {
            "edge_id": edge_id({"from": "module:main.js", "relation": "contains", "to": mid}),
            "source_node_id": "module:main.js",
            "target_node_id": mid,
            "relation": "contains",
            "location": loc,
            "kind": "bundled",
        }
        coverage = {"status": "complete", "truncated": False, "omitted_count": 0, "limits": []}
        return {
            "graph": {"graph_id": f"jag_{mid}", "root_node_ids": ["module:main.js"], "nodes": [root, node]}
            | {"edges": [edge], "coverage": coverage}
        }

    item = VersionItem(
        item_id="jacmp_item_1",
        node_kind="bundled-module",
        left_node_id="bundled-module:main.js#1",
        right_node_id="bundled-module:main.js#2",
        status="changed",
        match=VersionMatch(
            status="matched",
            basis="semantic-key",
            confidence="medium",
            candidate_left_node_ids=("bundled-module:main.js#1",),
            candidate_right_node_ids=("bundled-module:main.js#2",),
        ),
        dimensions=("content",),
        evidence_links=(),
        limitations=(),
        category="bundled_modules",
        key="src/a.js",
        changed_fields=("generated_bytes",),
        left={},
        right={},
    )
    limits = VersionLimits(max_graph_nodes=100, max_graph_edges=100)
    graph, omitted = change_graph(side("bundled-module:main.js#1"), side("bundled-module:main.js#2"), [item], limits)
    assert omitted == (0, 0)
    (pair,) = [e for e in graph["edges"] if e["relation"] == "changed_from"]
    assert (pair["source_node_id"], pair["target_node_id"]) == ("bundled-module:main.js#2", "bundled-module:main.js#1")
    assert pair["properties"]["comparison_item_id"] == "jacmp_item_1"
    assert len({e["edge_id"] for e in graph["edges"]}) == len(graph["edges"]) == 3
    assert pair["edge_id"].startswith("jag_edge_") and pair["evidence"]["authority"] == "cross-version-comparison"
    assert graph["root_node_ids"] == ["module:main.js"]
