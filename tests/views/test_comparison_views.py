"""compare_application_versions sized for a model (issue 28 item 3): `detail: summary` and the comparison view
of inspect_analysis_view, over MCP stdio and the CLI, on two versions of a 120-module tree whose complete
comparison is far past 32 KB. The pages together are exactly the complete items, nodes and edges."""

from __future__ import annotations

import json
import subprocess

import anyio
import pytest

from javascript_fixtures import write_tree
from mcp_client import connect
from support import clean_env, rea_command

pytestmark = pytest.mark.slow
REPLY_CAP = 32 * 1024
FACETS = ("items", "graph_nodes", "graph_edges")


def _module(i: int, version: int) -> str:
    body = f"return {{ value: x * {i + version}, label: 'm{i}-v{version}' }};" if i % 2 else f"return x + {i};"
    extra = f"export const added{i} = {version};\n" if version == 2 and i % 3 == 0 else ""
    return f"import {{ helper }} from './m{(i + 1) % 120}.js';\nexport function f{i}(x) {{ {body} }}\n{extra}"


def _tree(root, version: int):
    files = {f"src/m{i}.js": _module(i, version) for i in range(120) if not (version == 2 and i % 10 == 9)}
    files |= {f"src/new{i}.js": f"export const n{i} = {i};\n" for i in range(12)} if version == 2 else {}
    files["package.json"] = json.dumps({"name": "tree", "version": f"{version}.0.0", "main": "src/m0.js"})
    return write_tree(root, files)


def _text(reply) -> str:
    return "".join(c.text for c in reply.content if hasattr(c, "text"))


def _ok(reply) -> dict:
    assert reply.is_error is False, _text(reply)[:800]
    return reply.structured_content


def test_comparison_summary_and_pages(tmp_path):
    left, right = _tree(tmp_path / "v1", 1), _tree(tmp_path / "v2", 2)

    async def main():
        async with connect() as s:
            ids = {}
            for side, path in (("left", left), ("right", right)):
                made = _ok(await s.call_tool("analyze_javascript_application", {"input_path": str(path)}))
                ids[f"{side}_evidence_id"] = made["evidence_id"]
            complete = await s.call_tool("compare_application_versions", ids)
            summary = await s.call_tool("compare_application_versions", {**ids, "detail": "summary"})
            parent = _ok(summary)["normalized_result"]["parent_evidence_id"]
            pages = {}
            for facet in FACETS:
                rows, sizes, offset = [], [], 0
                while offset is not None:
                    reply = await s.call_tool("inspect_analysis_view", {
                        "source": {"kind": "retained-evidence", "evidence_id": parent},
                        "view": {"kind": "comparison", "facet": facet, "offset": offset, "limit": 1000}})  # fmt: skip
                    view = _ok(reply)["normalized_result"]
                    rows += view["items"]
                    sizes.append(len(_text(reply).encode()))
                    offset = view["coverage"]["next_offset"]
                pages[facet] = (rows, sizes)
            return complete, summary, pages

    complete, summary, pages = anyio.run(main)
    full = _ok(complete)
    c = full["normalized_result"]
    assert len(_text(complete).encode()) > 3 * REPLY_CAP
    assert len(_text(summary).encode()) <= REPLY_CAP
    view = _ok(summary)
    # delivery detail never changes identity: the summary's parent is the complete record
    assert view["operation"] == "inspect_analysis_view"
    assert view["normalized_result"]["parent_evidence_id"] == full["evidence_id"]
    s = view["normalized_result"]["summary"]
    assert s["summary"] == c["summary"] and s["coverage"] == c["coverage"] and s["left"] == c["left"]
    assert view["normalized_result"]["artifact"]["sha256"] == c["right"]["root_artifact_sha256"]
    expected = {"items": c["items"], "graph_nodes": c["graph"]["nodes"], "graph_edges": c["graph"]["edges"]}
    for facet in FACETS:
        rows, sizes = pages[facet]
        assert rows == expected[facet] and s["listings"][facet]["total"] == len(rows), facet
        assert s["listings"][facet]["first"] == rows[: len(s["listings"][facet]["first"])]
        assert max(sizes) <= REPLY_CAP, facet
    assert len(pages["items"][1]) > 1  # the byte bound, not the row limit, ended the pages

    saved = tmp_path / "comparison.json"
    saved.write_text(json.dumps(full))
    out = subprocess.run([*rea_command(), "inspect-analysis-view", str(saved), "--view",
                          json.dumps({"kind": "comparison", "offset": 3, "limit": 5}), "--json"],
                         capture_output=True, text=True, env=clean_env(), check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr + out.stdout
    assert json.loads(out.stdout)["normalized_result"]["items"] == c["items"][3:8]
