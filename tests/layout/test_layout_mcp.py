"""inspect_binary_layout end to end: the Python MCP client over stdio (schemas checked by the SDK), and the CLI."""

from __future__ import annotations

import json
import subprocess

import anyio
import pytest

from layout_fixtures import go_macho, hardened
from mcp_client import connect, error, evidence
from support import clean_env, rea_command

pytestmark = pytest.mark.slow


def test_layout_over_mcp(tmp_path):
    exe = hardened(tmp_path)
    text = tmp_path / "notes.txt"
    text.write_text("not a binary")

    async def main():
        async with connect(TMPDIR=str(tmp_path)) as s:
            tools = {t.name: t for t in (await s.list_tools()).tools}
            out = {"tool": tools["inspect_binary_layout"]}
            out["complete"] = await s.call_tool("inspect_binary_layout", {"path": str(exe)})
            out["summary"] = await s.call_tool("inspect_binary_layout", {"path": str(exe), "detail": "summary"})
            parent = out["summary"].structured_content["normalized_result"]["parent_evidence_id"]
            ref = {"kind": "retained-evidence", "evidence_id": parent}
            out["facet"] = await s.call_tool(
                "inspect_analysis_view", {"source": ref, "view": {"kind": "facet", "facet": "linkage"}}
            )
            out["page"] = await s.call_tool(
                "inspect_analysis_view",
                {"source": ref, "view": {"kind": "page", "collection": "sections", "offset": 2, "limit": 3}},
            )
            out["bad"] = await s.call_tool("inspect_binary_layout", {"path": str(text)})
            out["relative"] = await s.call_tool("inspect_binary_layout", {"path": "relative/a.out"})
            return out

    out = anyio.run(main)
    assert out["tool"].input_schema["required"] == ["path"]
    complete = evidence(out["complete"])
    assert complete["operation"] == "inspect_binary_layout" and complete["provider"]["id"] == "lief"
    assert complete["subject"]["format"] == "elf" and complete["subject"]["architecture"] == "x86_64"
    summary = evidence(out["summary"])
    assert summary["normalized_result"]["parent_evidence_id"] == complete["evidence_id"]
    assert evidence(out["facet"])["normalized_result"]["facet"] == complete["normalized_result"]["linkage"]
    page = evidence(out["page"])["normalized_result"]
    assert page["items"] == complete["normalized_result"]["sections"][2:5] and page["coverage"]["next_offset"] == 5
    assert error(out["bad"], "invalid_request")["details"]["field"] == "path"
    error(out["relative"], "invalid_request")


def _rea(*args: str, **kw):
    return subprocess.run([*rea_command(), *args], capture_output=True, text=True, env=clean_env(), **kw)


def test_layout_cli_json_and_text(tmp_path):
    exe = hardened(tmp_path)
    as_json = _rea("inspect-binary-layout", str(exe), "--json")
    assert as_json.returncode == 0, as_json.stderr
    body = json.loads(as_json.stdout)
    assert body["operation"] == "inspect_binary_layout" and body["normalized_result"]["mitigations"]["relro"] == "Full"
    as_text = _rea("inspect-binary-layout", str(exe))
    assert as_text.returncode == 0 and "relro=Full" in as_text.stdout and "needs libc.so.6" in as_text.stdout
    assert ".text" in as_text.stdout
    summary = _rea("inspect-binary-layout", str(exe), "--detail", "summary", "--json")
    assert json.loads(summary.stdout)["normalized_result"]["kind"] == "summary"
    universal = go_macho("fat-gcc-386-amd64-darwin-exec", tmp_path)
    refused = _rea("inspect-binary-layout", str(universal))
    assert refused.returncode == 2 and "i386, x86_64" in refused.stdout + refused.stderr
    chosen = _rea("inspect-binary-layout", str(universal), "--architecture", "x86_64", "--json")
    assert json.loads(chosen.stdout)["normalized_result"]["slice"] == "x86_64"


def test_java_class_is_refused_as_java_by_the_cli(tmp_path):
    source = tmp_path / "Hello.java"
    source.write_text("public class Hello { public static void main(String[] a) {} }\n")
    if subprocess.run(["javac", "-d", str(tmp_path), str(source)], capture_output=True).returncode != 0:
        pytest.skip("javac could not build the class (scripts/setup test installs a JDK)")
    refused = _rea("list-architectures", str(tmp_path / "Hello.class"))
    assert refused.returncode == 2 and "Java class file" in refused.stdout + refused.stderr
