"""Detail never changes identity: the record `detail: summary` retains is the very record `detail: complete`
returns, and every workflow that reads application or inventory Evidence accepts the summary's own evidence_id
by following its parent_evidence_id (and records the same call as with the parent's). Over MCP stdio and the CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
import pytest

from artifact_fixtures import make_zip
from javascript_fixtures import APP, write_tree
from mcp_client import connect, err
from support import clean_env, rea_command

pytestmark = pytest.mark.slow


def ref(evidence_id: str) -> dict:
    return {"kind": "retained-evidence", "evidence_id": evidence_id}


def _ok(reply) -> dict:
    assert reply.is_error is False, reply.content[0].text[:600]
    return reply.structured_content


def test_javascript_summary_ids_stand_for_the_application(tmp_path):
    app = write_tree(tmp_path / "app", APP)

    async def main():
        async with connect() as s:

            async def both(tool, make):
                """The tool with the complete record's id and with the summary's own: one call, one record."""
                full = _ok(await s.call_tool(tool, make(complete["evidence_id"])))
                summarized = _ok(await s.call_tool(tool, make(summary["evidence_id"])))
                assert summarized["evidence_id"] == full["evidence_id"], tool
                assert complete["evidence_id"] in summarized["evidence_links"], tool
                return summarized

            summary = _ok(
                await s.call_tool("analyze_javascript_application", {"input_path": str(app), "detail": "summary"})
            )
            complete = _ok(await s.call_tool("analyze_javascript_application", {"input_path": str(app)}))
            found = _ok(
                await s.call_tool(
                    "get_evidence_bundle",
                    {"detail": "summary", "filters": {"operation": "analyze_javascript_application"}},
                )
            )
            await both(
                "trace_application_feature",
                lambda i: {"application": ref(i), "seed": {"kind": "channel", "value": "tick"}},
            )
            await both(
                "trace_javascript_semantics",
                lambda i: {
                    "application": ref(i),
                    "query": {"seed": {"kind": "literal", "value": "tick"}, "direction": "backward-provenance"},
                },
            )
            versions = await both(
                "compare_application_versions", lambda i: {"left": ref(i), "right": ref(complete["evidence_id"])}
            )
            spelled = _ok(
                await s.call_tool(
                    "compare_application_versions",
                    {"left_evidence_id": summary["evidence_id"], "right_evidence_id": complete["evidence_id"]},
                )
            )
            await both("compare_source_to_bundle", lambda i: {"application": ref(i), "reference": ref(i)})
            await both(
                "compare_javascript_export_shapes",
                lambda i: {
                    "left": ref(i),
                    "right": ref(i),
                    "left_module_path": "src/store.js",
                    "left_export_name": "default",
                    "right_module_path": "src/store.js",
                    "right_export_name": "default",
                },
            )
            view = _ok(
                await s.call_tool(
                    "inspect_analysis_view", {"source": ref(summary["evidence_id"]), "view": {"kind": "summary"}}
                )
            )
        async with connect() as fresh:  # another connection retains no parent: the inline summary names it
            missing = await fresh.call_tool("compare_application_versions", {"left": summary, "right": complete})
        return summary, complete, found, versions, spelled, view, missing

    summary, complete, found, versions, spelled, view, missing = anyio.run(main)
    assert summary["normalized_result"]["parent_evidence_id"] == complete["evidence_id"]
    assert summary["evidence_links"] == [complete["evidence_id"]]
    assert "detail" not in complete["parameters"]
    assert [r["evidence_id"] for r in found["result"]["records"]] == [complete["evidence_id"]]  # one record, not two
    assert versions["normalized_result"]["left"]["evidence_id"] == complete["evidence_id"]
    assert spelled["normalized_result"]["left"]["evidence_id"] == complete["evidence_id"]
    assert view["evidence_id"] == summary["evidence_id"]  # the summary of the summary's parent: itself
    details = err(missing, "evidence_integrity_mismatch")["details"]
    assert (details["evidence_id"], details["reason"]) == (complete["evidence_id"], "missing")
    assert (details["summary_evidence_id"], details["field"]) == (summary["evidence_id"], "left")


def test_artifact_summary_ids_stand_for_the_inspection(tmp_path):
    v1 = make_zip(tmp_path / "v1.apk", {"AndroidManifest.xml": b"<m/>", "classes.dex": b"dex\n035\0"})
    v2 = make_zip(tmp_path / "v2.apk", {"AndroidManifest.xml": b"<m v='2'/>", "classes.dex": b"dex\n035\0"})

    async def main():
        async with connect() as s:
            out = {}
            await s.call_tool("open_binary", {"path": str(v1)})
            out["summary1"] = _ok(await s.call_tool("inspect_artifact", {"detail": "summary"}))
            out["complete1"] = _ok(await s.call_tool("inspect_artifact", {}))
            await s.call_tool("open_binary", {"path": str(v2)})
            out["summary2"] = _ok(await s.call_tool("inspect_artifact", {"detail": "summary"}))
            parent2 = out["summary2"]["normalized_result"]["parent_evidence_id"]
            ids = lambda key: out[key]["evidence_id"]  # noqa: E731
            for name, left, right in (
                ("by_summary", ids("summary1"), ids("summary2")),
                ("by_parent", ids("complete1"), parent2),
            ):
                out[name] = _ok(await s.call_tool("compare_artifacts", {"left": ref(left), "right": ref(right)}))
            page = {"kind": "inventory", "facet": "occurrences", "logical_paths": ["classes.dex"]}
            for name, source in (("view_by_summary", ids("summary1")), ("view_by_parent", ids("complete1"))):
                out[name] = _ok(await s.call_tool("inspect_analysis_view", {"source": ref(source), "view": page}))
        async with connect() as fresh:
            out["missing"] = await fresh.call_tool(
                "compare_artifacts", {"left": out["summary1"], "right": out["summary2"]}
            )
        return out

    out = anyio.run(main)
    assert out["summary1"]["normalized_result"]["parent_evidence_id"] == out["complete1"]["evidence_id"]
    compared = out["by_summary"]
    assert compared["evidence_id"] == out["by_parent"]["evidence_id"]  # the same comparison, however spelled
    assert compared["normalized_result"]["status"] == "changed"
    assert compared["evidence_links"] == [
        out["complete1"]["evidence_id"],
        out["summary2"]["normalized_result"]["parent_evidence_id"],
    ]
    assert out["view_by_summary"]["evidence_id"] == out["view_by_parent"]["evidence_id"]
    assert [o["logical_path"] for o in out["view_by_summary"]["normalized_result"]["items"]] == ["classes.dex"]
    details = err(out["missing"], "evidence_integrity_mismatch")["details"]
    assert details["evidence_id"] == out["complete1"]["evidence_id"] and details["field"] == "left"


def _rea(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*rea_command(), *args], capture_output=True, text=True, env=clean_env(), timeout=120)


def test_cli_summary_parents_are_the_complete_records(tmp_path):
    app = write_tree(tmp_path / "app", APP)
    zipped = make_zip(tmp_path / "app.zip", {"a.txt": b"a", "b/c.txt": b"c"})
    for command, target in (("analyze-javascript-application", app), ("inspect-artifact", zipped)):
        complete = json.loads(_rea(command, str(target), "--detail", "complete", "--json").stdout)
        summary = json.loads(_rea(command, str(target), "--detail", "summary", "--json").stdout)
        assert summary["operation"] == "inspect_analysis_view", command
        assert summary["normalized_result"]["parent_evidence_id"] == complete["evidence_id"], command
    # a one-shot CLI session cannot retain the parent of a saved summary: the error names it
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    (tmp_path / "complete.json").write_text(json.dumps(complete))
    refused = _rea("compare-artifacts", str(tmp_path / "summary.json"), str(tmp_path / "complete.json"), "--json")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    body = json.loads(refused.stdout)["error"]
    assert body["details"]["evidence_id"] == complete["evidence_id"] and body["details"]["reason"] == "missing"
    assert Path(tmp_path / "summary.json").exists()
