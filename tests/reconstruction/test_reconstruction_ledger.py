"""Generated reconstruction obligations on Evidence REA itself produced in the test, through MCP and `rea call`:
an Electron application written here analysed by analyze_javascript_application (its application graph and
the semantic graph Evidence it retains) and real capture_process_scenario runs of /bin/sh scripts, exported
with export_evidence_bundle and fed to build_reconstruction_obligation_ledger.

The ground truth is computed here from the exported bundle's JSON, independently of the family's generator:
the reference's candidate policies (node kind -> application layer, family, case kinds, authority) are
written out below as facts, and each obligation id is SHA-256 over the key's canonical JSON by hashlib and
json (the keys are ASCII)."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from javascript_fixtures import ELECTRON, write_tree
from mcp_client import connect
from support import clean_env, rea_command

# the reference's candidate policies (layer, family, fixture/verifier authority, original authority, case kinds)
RUNTIME3 = ("positive", "negative", "malformed")
APPLICATION = {
    "package": ("packaging", "package-lifecycle", "packaged-process", "runtime", ("positive", "negative", "teardown")),
    "context-bridge-api": ("electron", "context-bridge", "renderer", "runtime", RUNTIME3),
    "ipc-channel": ("electron", "ipc", "renderer", "runtime", RUNTIME3),
    "ipc-handler": ("electron", "ipc", "renderer", "runtime", RUNTIME3),
    "endpoint": ("protocol", "endpoint", "protocol", "runtime", RUNTIME3),
}
SEMANTIC = {"boundary": ("application", "parser-boundary", "integration", "runtime", RUNTIME3)}
SCRIPTS = {"ok": "echo one", "fails": "echo two; exit 3"}


def obligation_id(key: str) -> str:
    text = json.dumps({"key": key, "schema": "ReconstructionObligation"}, sort_keys=True, separators=(",", ":"))
    return "obl_" + hashlib.sha256(text.encode()).hexdigest()


async def _call(s: Any, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    reply = await s.call_tool(tool, args)
    if reply.is_error:
        return {"error": json.loads(reply.content[0].text)["error"]}
    return reply.structured_content


def request(bundle: dict[str, Any], reviewed: list | None = None, bindings: list | None = None) -> dict[str, Any]:
    return {"evidence_bundle": bundle, "reviewed_obligations": reviewed or [],
            "manifest": {"schema_version": 1, "bindings": bindings or [], "contradictions": []},
            "limits": {"max_obligations": 1000}, "page": {"offset": 0, "limit": 100}}  # fmt: skip


async def _produce(root: Path) -> dict[str, Any]:
    app = write_tree(root / "saver", ELECTRON)
    scenario = {"approved": True, "executable": "/bin/sh", "working_directory": str(root), "timeout_ms": 10_000}
    out: dict[str, Any] = {}
    async with connect() as s:
        out["captures"] = [await _call(s, "capture_process_scenario", {**scenario, "arguments": ["-c", script]})
                           for script in (SCRIPTS["ok"], SCRIPTS["fails"], SCRIPTS["ok"])]  # fmt: skip
        await _call(s, "export_evidence_bundle", {"path": str(root / "captures.json")})  # the captures alone
        out["captures_bundle"] = json.loads((root / "captures.json").read_text())
        out["analysis"] = await _call(s, "analyze_javascript_application", {"input_path": str(app)})
        await _call(s, "export_evidence_bundle", {"path": str(root / "bundle.json")})
        bundle = json.loads((root / "bundle.json").read_text())
        out["bundle"] = bundle
        out["ledger"] = await _call(s, "build_reconstruction_obligation_ledger", request(bundle))
        out["pages"] = [await _call(s, "build_reconstruction_obligation_ledger",
                                    {**request(bundle), "page": {"offset": o, "limit": 7}}) for o in range(0, 70, 7)]  # fmt: skip
        out.update(await _judged(s, bundle))
    return out


def _semantic_record(bundle: dict[str, Any]) -> dict[str, Any]:
    (analysis,) = [r for r in bundle["records"] if r["operation"] == "analyze_javascript_application"]
    held = analysis["normalized_result"]["semantic_graph"]["retained"]["evidence_id"]
    return next(r for r in bundle["records"] if r["evidence_id"] == held)


async def _judged(s: Any, bundle: dict[str, Any]) -> dict[str, Any]:
    """The same bundle with a manifest binding one generated obligation, a reviewer redeclaring another, and the
    semantic graph record left out (what it would name is then unknown, not absent)."""
    ipc = _expected(bundle)["application"]
    save = next(k for k, v in ipc.items() if v["title"] == "ipc-channel:save-file")
    original = next(r["evidence_id"] for r in bundle["records"] if r["operation"] == "capture_process_scenario")
    binding = {"obligation_id": save, "owner": {"module_path": "src/ipc.py", "symbol": "save_file",
                                                "owner_sha256": "c" * 64},
               "parser_type": None,
               "original_cases": [{"kind": "positive", "evidence_id": original, "location": "/normalized_result"}],
               "fixtures": [], "verifier": None}  # fmt: skip
    reviewed = {"obligation_id": save, "obligation_version": 2, "title": "save", "application_layer": "electron",
                "family": "ipc", "target": {"artifact_sha256": None, "application_node_id": None,
                                            "semantic_node_id": None, "location": "main.js"},
                "required": True, "required_case_kinds": ["positive"], "required_original_authority": "runtime",
                "required_fixture_authority": "renderer", "required_verifier_authority": "renderer",
                "requires_parser_type": False, "dependency_obligation_ids": [], "residual_unknown_ids": [],
                "unavailable_authority": [], "required_next_evidence": [], "disposition": "active",
                "review_evidence_ids": [original]}  # fmt: skip
    graph = _semantic_record(bundle)["evidence_id"]
    partial = {**bundle, "records": [r for r in bundle["records"] if r["evidence_id"] != graph]}
    return {
        "bound": await _call(s, "build_reconstruction_obligation_ledger", request(bundle, bindings=[binding])),
        "redeclared": await _call(s, "build_reconstruction_obligation_ledger", request(bundle, [reviewed])),
        "without_graph": await _call(s, "build_reconstruction_obligation_ledger", request(partial)),
        "save": save,
    }


@pytest.fixture(scope="module")
def produced(tmp_path_factory):
    return anyio.run(_produce, tmp_path_factory.mktemp("ledger"))


def _expected(bundle: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """Every obligation the bundle names, read from its JSON here: {source kind: {obligation id: facts}}."""
    (analysis,) = [r for r in bundle["records"] if r["operation"] == "analyze_javascript_application"]
    graph, root = analysis["normalized_result"]["graph"], analysis["normalized_result"]["root_artifact_sha256"]
    app = {}
    for n in graph["nodes"]:
        if n["kind"] in APPLICATION:
            layer, family, authority, original, cases = APPLICATION[n["kind"]]
            app[obligation_id(f"application:{n['node_id']}:{family}")] = {
                "title": n["observations"][0]["label"], "layer": layer, "family": family, "authority": authority,
                "original": original, "cases": list(cases), "source": analysis["evidence_id"],
                "target": {"artifact_sha256": root, "application_node_id": n["node_id"], "semantic_node_id": None}}  # fmt: skip
    semantic = _semantic_record(bundle)
    sem = {}
    for n in semantic["normalized_result"]["nodes"]:
        if n["kind"] in SEMANTIC:
            layer, family, authority, original, cases = SEMANTIC[n["kind"]]
            sem[obligation_id(f"semantic:{n['node_id']}:{family}")] = {
                "title": n["label"], "layer": layer, "family": family, "authority": authority, "original": original,
                "cases": list(cases), "source": semantic["evidence_id"],
                "target": {"artifact_sha256": n["identity"]["artifact_sha256"],
                           "application_node_id": n["application_node_ids"][0], "semantic_node_id": n["node_id"]}}  # fmt: skip
    return {"application": app, "semantic": sem, "process": _expected_processes(bundle)}


def _expected_processes(bundle: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for r in bundle["records"]:
        if r["operation"] != "capture_process_scenario":
            continue
        capture = r["normalized_result"]
        manifest, end = capture["manifest"], capture["exit"]
        oid = obligation_id(f"process:{manifest['executable_sha256']}:{manifest['full_scenario_sha256']}")
        kinds = {"positive" if end["code"] == 0 else "negative", "teardown"}
        if end["signal"] is not None or end["reason"] != "exited":
            kinds.add("cancellation")
        seen = out.setdefault(oid, {"sources": set(), "kinds": set(), "code": end["code"]})
        seen["sources"].add(r["evidence_id"])
        seen["kinds"] |= kinds
        # two captures of one scenario: what either observed is observed (a loaded host may let a short run end
        # before the first process sample in one of them only)
        open_here = sorted(f"{u['scope']}: {u['reason']}" for u in capture["residual_unknowns"])
        seen["unavailable"] = [u for u in seen.get("unavailable", open_here) if u in open_here]
    return out


def _rows(reply: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {o["obligation_id"]: o for o in reply["normalized_result"]["obligations"]}


def test_every_generated_obligation_is_the_one_its_source_names(produced):
    expected, rows = _expected(produced["bundle"]), _rows(produced["ledger"])
    assert len(expected["application"]) >= 5 and len(expected["semantic"]) == 3  # 3 packages, 2 channels, 1 bridge
    assert len(expected["process"]) == 2  # the two identical scenarios are one obligation
    ids = {*expected["application"], *expected["semantic"], *expected["process"]}
    assert set(rows) == ids  # nothing else: no module, window or literal is an obligation
    for oid, facts in {**expected["application"], **expected["semantic"]}.items():
        row = rows[oid]
        assert (row["origin"], row["application_layer"], row["family"], row["title"]) == (
            "generated", facts["layer"], facts["family"], facts["title"])  # fmt: skip
        assert {k: row["target"][k] for k in facts["target"]} == facts["target"]
        assert [r["evidence_id"] for r in row["authority_references"]] == [facts["source"]]
        assert {r["state"] for r in row["authority_references"]} == {"candidate"}  # static analysis: a candidate
        assert row["required_case_kinds"] == facts["cases"]
        assert row["required_fixture_authority"] == row["required_verifier_authority"] == facts["authority"]
        assert row["required_original_authority"] == facts["original"]
        # no binding: unowned, and nothing observed the original
        assert row["status"] == "unowned" and row["binding"] is None and row["observed_cases"] == []
        codes = [d["code"] for d in row["diagnostics"]]
        assert codes == ["missing-owner"] + ["missing-original-case"] * len(facts["cases"])


def test_a_process_capture_names_its_lifecycle_with_the_cases_it_observed(produced):
    expected, rows = _expected(produced["bundle"])["process"], _rows(produced["ledger"])
    for oid, facts in expected.items():
        row = rows[oid]
        assert (row["origin"], row["application_layer"], row["family"]) == (
            "generated", "process", "packaged-process-lifecycle")  # fmt: skip
        assert {r["evidence_id"] for r in row["authority_references"]} == facts["sources"]
        assert {c["kind"] for c in row["observed_cases"]} == facts["kinds"]
        assert {c["evidence_id"] for c in row["observed_cases"]} == facts["sources"]
        assert row["unavailable_authority"] == facts["unavailable"]
        codes = {d["code"] for d in row["diagnostics"]}
        missing = {d["detail"] for d in row["diagnostics"] if d["code"] == "missing-original-case"}
        assert missing == {
            f"no original {k} case" for k in {"positive", "negative", "cancellation", "teardown"} - facts["kinds"]
        }
        assert "static-only" not in codes  # a process capture observes the original process
        if len(facts["sources"]) > 1:
            assert "duplicate-definition" in codes and row["status"] == "unknown"
        elif facts["unavailable"]:
            assert row["status"] == "unknown"  # what the capture could not observe is unknown, not passed
    ledger = produced["ledger"]["normalized_result"]
    assert ledger["status"] == "unknown" and ledger["summary"]["required_open"] == len(rows)
    assert not any("could not generate" in x for x in ledger["limitations"])
    assert set(ledger["evidence_links"]) >= {s for f in expected.values() for s in f["sources"]}
    # the derived record cites the sources it read and keeps them in the session
    assert set(produced["ledger"]["evidence_links"]) >= {s for f in expected.values() for s in f["sources"]}


def test_pages_concatenate_and_a_binding_or_redeclaration_never_verifies_a_static_claim(produced):
    whole = produced["ledger"]["normalized_result"]
    pages = [p["normalized_result"] for p in produced["pages"] if p["normalized_result"]["obligations"]]
    assert [o for p in pages for o in p["obligations"]] == whole["obligations"]
    assert {p["ledger_id"] for p in pages} == {whole["ledger_id"]}
    bound = _rows(produced["bound"])[produced["save"]]
    # a process capture of /bin/sh is a process observation, not a runtime one of the Electron channel
    assert bound["status"] == "implemented" and bound["binding"]["owner"]["symbol"] == "save_file"
    codes = [d["code"] for d in bound["diagnostics"]]
    assert "weak-original-case-authority" in codes or "static-only" in codes
    assert {"missing-case", "missing-verifier"} <= set(codes)
    again = _rows(produced["redeclared"])[produced["save"]]
    assert again["status"] == "unknown" and "duplicate-definition" in [d["code"] for d in again["diagnostics"]]
    assert again["origin"] == "generated"


def test_a_missing_semantic_graph_leaves_its_obligations_unknown(produced):
    expected = _expected(produced["bundle"])
    result = produced["without_graph"]
    ledger = result["normalized_result"]
    assert not set(expected["semantic"]) & set(_rows(result))
    assert any("semantic graph Evidence" in x and "remain unknown" in x for x in ledger["limitations"])
    assert ledger["status"] == "unknown" and ledger["coverage"]["status"] == "partial"


def test_the_cli_generates_the_same_process_obligations(produced, tmp_path):
    small = produced["captures_bundle"]
    done = subprocess.run([*rea_command(), "call", "build_reconstruction_obligation_ledger", "--json-args",
                           json.dumps(request(small)), "--format", "json"], capture_output=True, text=True,
                          env=clean_env(), timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = {o["obligation_id"]: o for o in json.loads(done.stdout)["normalized_result"]["obligations"]}
    assert set(rows) == set(_expected_processes(small)) == set(_expected_processes(produced["bundle"]))
    mcp = _rows(produced["ledger"])
    assert all(rows[k]["diagnostics"] == mcp[k]["diagnostics"] for k in rows)
