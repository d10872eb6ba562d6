"""What agents asked the JavaScript family for and did not get (issues 28 and 30): a package's public
entry points from its `exports` map, Content-Security-Policy values, coverage that admits a pass read a
file in part, comparisons that show both sides the same way, trace answers that share their evidence
records, and descriptions and defaults that are true.

Independent readers: Node itself resolves the fixture packages (`require.resolve`, `import.meta.resolve`,
`--conditions`) and evaluates the policy module; the real npm packages are uuid 9.0.1, vite 5.4.11 and
terser (tests/fixtures/javascript, installed by scripts/setup)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from effects.calls import Connection
from javascript_fixtures import _SESSIONS, APP, analyze, call, labels, write_tree
from rea.javascript.contract.application import TOOLS
from rea.javascript.ids import node_id as jid
from scripted import CTX
from support import clean_env, npm_fixture, rea_command

FIXTURE = Path(__file__).parents[1] / "fixtures" / "javascript"


@pytest.fixture(scope="module")
def npm() -> Path:
    return npm_fixture(FIXTURE)


def node_resolves(specifier: str, kind: str, conditions: tuple[str, ...] = ()) -> str:
    """The file Node resolves `specifier` to from the fixture directory (absolute path)."""
    flags = [f"--conditions={c}" for c in conditions]
    if kind == "require":
        script = ["-e", f"process.stdout.write(require.resolve({specifier!r}))"]
    else:
        script = [
            "--input-type=module",
            "-e",
            f"import {{ fileURLToPath }} from 'node:url'; process.stdout.write(fileURLToPath(import.meta.resolve({specifier!r})))",
        ]
    proc = subprocess.run(["node", *flags, *script], cwd=FIXTURE, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def map_edges(result: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """(subpath, target label) -> the package's exports edge."""
    names = labels(result)
    return {
        (e["subpath"], names[e["target_node_id"]]): e
        for e in result["graph"]["edges"]
        if e["relation"] == "loads" and e.get("kind") == "exports" and names[e["source_node_id"]] == "package:."
    }


def active(kind: str, extra: tuple[str, ...]) -> set[str]:
    """The conditions Node matches for an import kind (plus --conditions)."""
    return {"node", "node-addons", "default", kind if kind == "require" else "import", *extra}


def agrees_with_node(result, package: str, specifier: str, kind: str, conditions: tuple[str, ...] = ()) -> None:
    """Node's answer is one of our exports edges, under a condition chain Node's conditions satisfy."""
    resolved = Path(node_resolves(specifier, kind, conditions))
    relative = resolved.relative_to((FIXTURE / "node_modules" / package).resolve()).as_posix()
    subpath = "." + specifier[len(package) :] if specifier != package else "."
    found = [e for (s, target), e in map_edges(result).items() if s == subpath and target.endswith(":" + relative)]
    assert found, (specifier, kind, conditions, relative, sorted(map_edges(result)))
    assert any(set(chain) <= active(kind, conditions) for chain in found[0]["conditions"]), found[0]


def test_uuid_exports_map_names_its_public_esm_and_commonjs_entry_points(npm):
    """uuid 9's `exports` (node: module/require/import, browser: import/require, default): every target is
    reached from the package with its conditions; wrapper.mjs is the Node ESM entry point. Node agrees on
    each branch it can take (the `node` condition is always on, so the browser branch is Node's to skip)."""
    result = analyze(npm / "uuid")["normalized_result"]
    edges = map_edges(result)
    assert {k: (e["conditions"], e["format"]) for k, e in edges.items() if k[0] == "."} == {
        (".", "module:dist/esm-node/index.js"): ([["node", "module"]], "commonjs"),
        (".", "module:dist/index.js"): ([["node", "require"]], "commonjs"),
        (".", "module:wrapper.mjs"): ([["node", "import"]], "esm"),
        (".", "module:dist/esm-browser/index.js"): ([["browser", "import"], ["default"]], "commonjs"),
        (".", "module:dist/commonjs-browser/index.js"): ([["browser", "require"]], "commonjs"),
    }
    # ESM text a bundler's `module`/`import` condition names, which Node would load as CommonJS
    assert edges[(".", "module:dist/esm-node/index.js")]["syntax"] == "esm"
    assert "syntax" not in edges[(".", "module:wrapper.mjs")]
    entries = {e["label"]: e for e in result["entry_points"] if e.get("subpath") == "."}
    assert entries["module:wrapper.mjs"]["format"] == "esm" and entries["module:wrapper.mjs"]["basis"] == (
        "package.json exports ."
    )
    wrapper = jid("module:wrapper.mjs")
    assert wrapper in result["graph"]["root_node_ids"]
    agrees_with_node(result, "uuid", "uuid", "require")
    agrees_with_node(result, "uuid", "uuid", "import")
    agrees_with_node(result, "uuid", "uuid", "require", ("module",))


@pytest.mark.slow
def test_vite_nested_conditions_and_subpath_patterns_agree_with_node(npm, tmp_path):
    """vite 5's exports: nested import/require -> types/default, a types-only subpath, `./dist/client/*` and
    `./types/*` patterns expanded over the files present. The files its exports name are copied as shipped
    (its large chunks, which they import, are left out to keep the test fast)."""
    source = npm / "vite"
    root = tmp_path / "vite"
    keep = ["package.json", "index.cjs", "index.d.cts", "client.d.ts", "dist/client", "types"]
    keep += [f"dist/node/{n}" for n in ("index.js", "index.d.ts", "runtime.js", "runtime.d.ts")]
    for rel in keep:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if (source / rel).is_dir() else shutil.copy2)(source / rel, root / rel)
    result = analyze(root)["normalized_result"]
    edges = map_edges(result)
    assert edges[(".", "module:dist/node/index.js")]["conditions"] == [["import", "default"]]
    assert edges[(".", "module:index.cjs")]["conditions"] == [["require", "default"]]
    assert edges[("./dist/client/env.mjs", "module:dist/client/env.mjs")]["conditions"] == [[]]
    assert edges[("./types/hot.d.ts", "module:types/hot.d.ts")]["format"] == "types"
    agrees_with_node(result, "vite", "vite", "require")
    agrees_with_node(result, "vite", "vite", "import")
    agrees_with_node(result, "vite", "vite/runtime", "import")
    agrees_with_node(result, "vite", "vite/dist/client/env.mjs", "import")
    agrees_with_node(result, "vite", "vite/client", "import", ("types",))


POLICY = """const csp = ["default-src 'self'", "script-src 'self' app:", "img-src 'self' data:"].join('; ');
function apply(details, callback) {
  callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [csp] } });
}
function strict(res) { res.setHeader('Content-Security-Policy', "default-src 'none'; " + "frame-ancestors 'none'"); }
function dynamic(res, policy) { res.setHeader('content-security-policy', policy); }
module.exports = { csp, apply, strict, dynamic };
"""
CSP_APP = {
    "package.json": json.dumps({"name": "csp-app", "main": "src/main.js", "dependencies": {"electron": "^30.0.0"}}),
    "src/main.js": """const { app, BrowserWindow, session, protocol } = require('electron');
const { apply } = require('./policy');
protocol.registerSchemesAsPrivileged([{ scheme: 'app', privileges: { standard: true, secure: true } }]);
app.whenReady().then(() => {
  protocol.registerFileProtocol('app', (request, callback) => callback({ path: request.url.slice(6) }));
  session.defaultSession.webRequest.onHeadersReceived(apply);
  new BrowserWindow({}).loadURL('app://./index.html');
});
""",
    "src/policy.js": POLICY,
    "src/index.html": """<!doctype html><html><head>
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; style-src 'self' 'unsafe-inline'">
</head><body><script src="./renderer.js"></script></body></html>
""",
    "src/renderer.js": "const policy = `default-src 'self'; connect-src https://api.example.com`;\n",
}


def node_policies(root: Path) -> dict[str, str]:
    """What the policy module really sets, run by Node: the joined constant and the headers it writes."""
    script = """const p = require('./src/policy.js'); const out = {csp: p.csp};
p.apply({responseHeaders: {}}, (r) => { out.header = r.responseHeaders['Content-Security-Policy'].join(', '); });
p.strict({setHeader: (k, v) => { out.strict = v; }});
process.stdout.write(JSON.stringify(out));"""
    proc = subprocess.run(["node", "-e", script], cwd=root, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_csp_values_are_recorded_and_the_summary_names_protocols_and_policies(tmp_path):
    root = write_tree(tmp_path / "app", CSP_APP)
    expected = node_policies(root)
    conn = Connection(ctx=CTX)
    evidence = analyze(root, conn)
    result = evidence["normalized_result"]
    found = [f for f in result["findings"] if f["kind"] == "content-security-policy"]
    by = {(f["path"], f["form"], f["line"]): f for f in found}
    assert by[("src/policy.js", "joined-array", 1)]["value"] == expected["csp"]
    assert by[("src/policy.js", "header", 3)]["value"] == expected["header"]
    assert by[("src/policy.js", "header", 3)]["header"] == "Content-Security-Policy"
    assert by[("src/policy.js", "header", 5)]["value"] == expected["strict"]
    assert (
        by[("src/policy.js", "header", 6)]["value"] is None and "policy" in by[("src/policy.js", "header", 6)]["reason"]
    )
    meta = by[("src/index.html", "meta", 2)]
    assert meta["value"] == "default-src 'self'; style-src 'self' 'unsafe-inline'" and meta["node"] == jid(
        "html:src/index.html"
    )
    assert by[("src/renderer.js", "literal", 1)]["directives"] == ["connect-src", "default-src"]
    source = (root / "src/policy.js").read_bytes()
    joined = by[("src/policy.js", "joined-array", 1)]
    assert source[joined["start"] : joined["end"]].decode().startswith('["default-src') and source[
        joined["start"] : joined["end"]
    ].decode().endswith(".join('; ')")
    view = call(
        conn,
        "inspect_analysis_view",
        {"source": {"kind": "retained-evidence", "evidence_id": evidence["evidence_id"]}, "view": {"kind": "summary"}},
    ).unwrap()
    highlights = view["normalized_result"]["summary"]["highlights"]
    assert highlights["protocols"]["items"] == [
        {
            "scheme": "app",
            "node_id": jid("protocol:app"),
            "registrations": ["registerFileProtocol", "registerSchemesAsPrivileged"],
            "location": highlights["protocols"]["items"][0]["location"],
        }
    ]
    assert highlights["content_security_policies"]["total"] == len(found) == 6
    assert expected["csp"] in {p["value"] for p in highlights["content_security_policies"]["items"]}


def test_the_cli_summary_names_protocols_and_policies(tmp_path):
    root = write_tree(tmp_path / "app", CSP_APP)
    proc = subprocess.run(
        [*rea_command(), "analyze-javascript-application", str(root)],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "  protocol app: (registerFileProtocol, registerSchemesAsPrivileged)" in lines
    policy = "default-src 'self'; script-src 'self' app:; img-src 'self' data:"
    assert f"  csp (joined-array) src/policy.js:1: {policy}" in lines
    assert "  csp (header) src/policy.js:6: (not a literal: policy is not a const of literals in this file)" in lines


@pytest.mark.slow
def test_a_bundle_the_semantic_pass_read_in_part_makes_the_analysis_partial(npm, tmp_path):
    """terser's 1.1 MB minified bundle is past the semantic byte bound: the analysis says partial and names
    the bound, in the record and in its summary view (never complete with limits_reached [])."""
    root = tmp_path / "bundle"
    root.mkdir()
    shutil.copy2(npm / "terser" / "dist" / "bundle.min.js", root / "bundle.min.js")
    conn = Connection(ctx=CTX)
    evidence = analyze(root, conn)
    coverage = evidence["normalized_result"]["coverage"]
    assert coverage["status"] == "partial" and "max_semantic_file_bytes" in coverage["limits_reached"]
    assert any("semantic pass" in lim for lim in evidence["limitations"])
    assert evidence["normalized_result"]["graph"]["coverage"]["truncated"] is True
    view = call(
        conn,
        "inspect_analysis_view",
        {"source": {"kind": "retained-evidence", "evidence_id": evidence["evidence_id"]}, "view": {"kind": "summary"}},
    ).unwrap()
    analysis = view["normalized_result"]["summary"]["coverage"]["analysis"]
    assert analysis["status"] == "partial" and "max_semantic_file_bytes" in analysis["limits_reached"]


UUID10_REGEX = (
    "/^(?:[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|"
    "00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/i"
)


def test_a_changed_literal_shows_both_values_and_both_digests(npm, tmp_path):
    """uuid 9.0.1 against the same files with uuid 10's validate regex (longer than the old 128-character
    cut): both sides carry the value and the digest, in compare_application_versions and in
    compare_javascript_export_shapes."""
    keep = ["package.json", "wrapper.mjs", "dist/index.js", "dist/regex.js", "dist/validate.js", "dist/esm-node"]
    left, right = tmp_path / "v9", tmp_path / "v10"
    for rel in keep:
        for root in (left, right):
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (shutil.copytree if (npm / "uuid" / rel).is_dir() else shutil.copy2)(npm / "uuid" / rel, root / rel)
    old = (left / "dist/esm-node/regex.js").read_text()
    regex = old.removeprefix("export default ").rstrip(";\n")
    (right / "dist/esm-node/regex.js").write_text(old.replace(regex, UUID10_REGEX))
    conn = Connection(ctx=CTX)
    a, b = analyze(left, conn), analyze(right, conn)
    ids = {"left_evidence_id": a["evidence_id"], "right_evidence_id": b["evidence_id"]}
    versions = call(conn, "compare_application_versions", ids).unwrap()["normalized_result"]
    item = next(i for i in versions["items"] if i["key"] == "dist/esm-node/regex.js#default")
    assert item["status"] == "changed"
    assert item["left"]["shape"]["value"] == regex and item["right"]["shape"]["value"] == UUID10_REGEX
    assert len(item["left"]["shape"]["sha256"]) == len(item["right"]["shape"]["sha256"]) == 64
    assert set(item["left"]["shape"]) == set(item["right"]["shape"])
    selectors = {
        "left_module_path": "dist/esm-node/regex.js",
        "left_export_name": "default",
        "right_module_path": "dist/esm-node/regex.js",
        "right_export_name": "default",
    }
    shapes = call(conn, "compare_javascript_export_shapes", {**ids, **selectors}).unwrap()["normalized_result"]
    assert shapes["status"] == "changed"
    change = shapes["changes"][0]
    assert change["path"] == "/value" and change["left"]["value"] == regex and change["right"]["value"] == UUID10_REGEX
    assert change["left"]["sha256"] != change["right"]["sha256"]


def _trace(conn, evidence, seed, direction) -> dict[str, Any]:
    ref = {"kind": "retained-evidence", "evidence_id": evidence["evidence_id"]}
    query = {"seed": seed, "direction": direction}
    return call(conn, "trace_javascript_semantics", {"application": ref, "query": query}).unwrap()


def test_trace_answers_share_their_evidence_contexts(tmp_path):
    """An application-node answer's nodes and relations point to shared evidence contexts (6.x's
    `{context_id, location}`) instead of repeating the extractor and coverage block on each; measured on the
    Electron app: the 10-node backward answer was 32,584 bytes with a full evidence record on every relation
    and an observation list on every node, 30,467 now."""
    conn = Connection(ctx=CTX)
    evidence = analyze(write_tree(tmp_path / "app", APP), conn)
    reply = _trace(
        conn, evidence, {"kind": "application-node", "node_id": jid("ipc-channel:settings:get")}, "backward-provenance"
    )
    answer = reply["normalized_result"]
    contexts = {c["context_id"]: c for c in answer["evidence_contexts"]}
    assert answer["relations"] and answer["nodes"]
    for row in (*answer["nodes"], *answer["relations"]):
        assert set(row["evidence"]) == {"context_id", "location"} and row["evidence"]["context_id"] in contexts
    assert all("extractor" in c and "coverage" in c for c in contexts.values())
    main = next(r for r in answer["relations"] if r["properties"].get("kind") == "preload")
    assert (
        main["evidence"]["location"]["value"]["path"] == "src/main.js"
        and main["evidence"]["location"]["value"]["line"] == 7
    )
    size = len(json.dumps(reply, separators=(",", ":")))
    assert size < 31_000, size


def _defaults(schema: dict[str, Any], path: tuple[str, ...] = ()) -> dict[tuple[str, ...], Any]:
    """Every default an input schema documents, by property path."""
    out = {}
    if "default" in schema:
        out[path] = schema["default"]
    for name, inner in (schema.get("properties") or {}).items():
        out.update(_defaults(inner, (*path, name)))
    return out


def test_javascript_documented_defaults_are_the_real_ones(tmp_path):
    """Calls with no optional argument: what they apply is what each schema's defaults say (analysis limits,
    integrity policy, complete detail; the trace's query limits)."""
    schemas = {t.name: t.input_schema for t in TOOLS}
    documented = _defaults(schemas["analyze_javascript_application"])
    conn = Connection(ctx=CTX)
    evidence = analyze(write_tree(tmp_path / "app", APP), conn)
    result = evidence["normalized_result"]
    assert result["limits"] == documented[("limits",)]
    assert result["integrity_policy"] == documented[("integrity_policy",)]
    assert documented[("detail",)] == "complete" and "graph" in result  # the complete record, not a view
    assert evidence["parameters"]["format"] == documented[("format",)]
    trace = _defaults(schemas["trace_javascript_semantics"])
    answer = _trace(conn, evidence, {"kind": "literal", "value": "settings:get"}, "forward-influence")
    applied = answer["normalized_result"]["applied_limits"]
    assert applied == {path[-1]: value for path, value in trace.items() if path[:2] == ("query", "limits")}
    assert answer["normalized_result"]["status"] == "found"  # a literal seed is answered (the description says so)
    description = next(t.description for t in TOOLS if t.name == "trace_javascript_semantics")
    assert "builds no semantic graph" not in description and "literal" in description
    assert _SESSIONS[evidence["evidence_id"]] is conn


def test_imports_maps_give_their_targets_incoming_edges(tmp_path):
    """A package's `imports` map (`#config`, `#utils/*`, `#env` by condition) loads its own files, like
    `exports`; a `./` target missing from the tree is an unknown, a bare target is left to the resolver."""
    from javascript_fixtures import IMPORTS_APP

    result = analyze(write_tree(tmp_path / "app", IMPORTS_APP))["normalized_result"]
    names = labels(result)
    loads = {
        (names[e["source_node_id"]], e["subpath"], names[e["target_node_id"]]): e["conditions"]
        for e in result["graph"]["edges"]
        if e.get("kind") == "imports"
    }
    assert loads[("package:.", "#config", "module:src/config.js")] == [[]]
    assert loads[("package:.", "#utils/strings", "module:src/utils/strings.js")] == [[]]
    assert loads[("package:.", "#env", "module:src/env.cjs")] == [["require"]]
    assert loads[("package:.", "#env", "module:src/env.mjs")] == [["import"]]
    assert loads[("package:.", "#fp", "module:src/browser.js")] == [["browser"]]
    assert loads[("package:node_modules/dep-pkg", "#own", "module:node_modules/dep-pkg/lib/own.js")] == [[]]
    assert not any(target.endswith("dep-pkg/index.js") for _, key, target in loads if key == "#dep")
    missing = {u["reference"] for u in result["unknowns"] if u["kind"] == "package-map-target-missing"}
    assert "#gone -> ./src/gone.js" in missing and "#fp -> ./src/nofp.js" in missing
    exported = {(e["label"], e["subpath"]) for e in result["entry_points"] if e.get("subpath")}
    assert exported == set()  # the root package has no `exports`: its imports are private, never entry points
