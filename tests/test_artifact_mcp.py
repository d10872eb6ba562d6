"""The artifact family end to end: the real Python MCP client over stdio, and the `rea` CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anyio
import pytest

from artifact_fixtures import make_zip
from rea.canonical_json import canonicalize
from support import clean_env, rea_command
from test_mcp_e2e import connect

pytestmark = pytest.mark.slow


def evidence(result):
    assert result.is_error is False, result.content[0].text
    assert result.content[0].text.encode() == canonicalize(result.structured_content)
    assert result.structured_content["evidence_id"].startswith("ev_")
    return result.structured_content


def error(result, code):
    assert result.is_error is True
    body = json.loads(result.content[0].text)["error"]
    assert body["code"] == code, body
    return body


def test_artifact_tools_over_mcp(tmp_path):
    v1 = make_zip(
        tmp_path / "v1.apk",
        {"AndroidManifest.xml": b"<m/>", "classes.dex": b"dex\n035\0", "lib/arm64-v8a/libx.so": b"\x7fELF"},
    )
    v2 = make_zip(tmp_path / "v2.apk", {"AndroidManifest.xml": b"<m v='2'/>", "classes.dex": b"dex\n035\0"})

    async def main():
        async with connect(TMPDIR=str(tmp_path)) as s:
            out = {}
            out["no_target"] = await s.call_tool("inventory_artifact", {})
            await s.call_tool("open_binary", {"path": str(v1)})
            out["inspect"] = await s.call_tool("inspect_artifact", {})
            out["summary"] = await s.call_tool("inspect_artifact", {"detail": "summary"})
            out["page"] = await s.call_tool("inventory_artifact", {"occurrence_limit": 2})
            left = (out["inspect"].structured_content or {}).get("evidence_id")
            out["view"] = await s.call_tool(
                "inspect_analysis_view",
                {
                    "source": {"kind": "retained-evidence", "evidence_id": left},
                    "view": {"kind": "inventory", "facet": "occurrences", "logical_paths": ["classes.dex"]},
                },
            )
            occ = [
                o
                for o in out["inspect"].structured_content["normalized_result"]["inventory"]["occurrences"]["items"]
                if o["logical_path"] == "classes.dex"
            ][0]["occurrence_id"]
            out["extract"] = await s.call_tool("extract_artifact", {"occurrence_ids": [occ]})
            await s.call_tool("open_binary", {"path": str(v2)})
            out["inspect2"] = await s.call_tool("inspect_artifact", {})
            right = out["inspect2"].structured_content["evidence_id"]
            out["compare"] = await s.call_tool(
                "compare_artifacts",
                {
                    "left": {"kind": "retained-evidence", "evidence_id": left},
                    "right": {"kind": "retained-evidence", "evidence_id": right},
                    "limit": 1,
                },
            )
            out["bad"] = await s.call_tool("inspect_artifact", {"max_depth": -1})
            out["bundle"] = await s.call_tool("get_evidence_bundle", {"detail": "summary"})
            return out

    out = anyio.run(main)
    assert error(out["no_target"], "target_unavailable")["details"]["reason"] == "no_active_target"
    assert out["no_target"].meta == {"provenance": {"untrusted_content": True, "source": "analysis_target"}}
    inspected = evidence(out["inspect"])
    assert inspected["subject"]["format"] == "apk"
    assert inspected["normalized_result"]["coverage"] == {"scope": "container-entries", "status": "complete"}
    summary = evidence(out["summary"])["normalized_result"]
    assert summary["kind"] == "summary" and summary["parent_evidence_id"] == inspected["evidence_id"]
    assert summary["summary"]["entry_kinds"] == {"file": 4}
    page = evidence(out["page"])["normalized_result"]
    assert (
        page["occurrences"]["next_offset"] == 2
        and page["manifest"] == inspected["normalized_result"]["inventory"]["manifest"]
    )
    assert [o["logical_path"] for o in evidence(out["view"])["normalized_result"]["items"]] == ["classes.dex"]
    extracted = evidence(out["extract"])["normalized_result"]
    assert (Path(extracted["output_root"]) / "classes.dex").read_bytes() == b"dex\n035\0"
    compared = evidence(out["compare"])["normalized_result"]
    assert compared["status"] == "changed" and compared["changes"]["total"] == 3
    assert compared["changes"]["next_offset"] == 1
    assert error(out["bad"], "invalid_request")["details"]["field"] == "max_depth"
    ops = {r["operation"] for r in out["bundle"].structured_content["result"]["records"]}
    assert ops >= {
        "inspect_artifact",
        "inventory_artifact",
        "inspect_analysis_view",
        "extract_artifact",
        "compare_artifacts",
    }


def _rea(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*rea_command(), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=clean_env(TMPDIR=str(cwd)) if cwd else clean_env(),
        cwd=cwd,
    )


def test_cli_inspect_inventory_extract_compare(tmp_path):
    v1 = make_zip(tmp_path / "v1.zip", {"a.txt": b"a", "b.txt": b"b"})
    v2 = make_zip(tmp_path / "v2.zip", {"a.txt": b"a", "c.txt": b"c"})
    left = _rea("inspect-artifact", str(v1), "--json")
    assert left.returncode == 0, left.stdout + left.stderr
    (tmp_path / "left.json").write_text(left.stdout)
    right = _rea("inventory-artifact", str(v2), "--json", "--max-depth", "3")
    assert right.returncode == 0
    (tmp_path / "right.json").write_text(right.stdout)
    compared = _rea("compare-artifacts", str(tmp_path / "left.json"), str(tmp_path / "right.json"), "--json")
    body = json.loads(compared.stdout)
    assert compared.returncode == 0 and body["normalized_result"]["status"] == "changed"
    text = _rea("compare-artifacts", str(tmp_path / "left.json"), str(tmp_path / "right.json"))
    assert "added" in text.stdout and "c.txt" in text.stdout
    occ = next(
        o
        for o in json.loads(left.stdout)["normalized_result"]["inventory"]["occurrences"]["items"]
        if o["logical_path"] == "a.txt"
    )["occurrence_id"]
    extracted = _rea(
        "extract-artifact", str(v1), occ, "--integrity-policy", "record-and-continue", "--json", cwd=tmp_path
    )
    result = json.loads(extracted.stdout)["normalized_result"]
    assert (Path(result["output_root"]) / "a.txt").read_bytes() == b"a"
    missing = _rea("compare-artifacts", str(tmp_path / "nope.json"), str(tmp_path / "right.json"))
    assert missing.returncode == 2 and "cannot be read" in missing.stdout
    gone = _rea("inspect-artifact", str(tmp_path / "absent.zip"))
    assert gone.returncode == 1 and "target_unavailable" in gone.stdout
    listing = _rea("inspect-artifact", str(v1))
    assert listing.returncode == 0 and "coverage container-entries/complete" in listing.stdout


def test_oversized_inspection_is_retained_and_viewable(tmp_path):
    big = tmp_path / "many.zip"
    import zipfile

    with zipfile.ZipFile(big, "w") as zf:
        for i in range(10_500):
            zf.writestr(f"some/long/directory/name/member{i:05}.txt", str(i))

    async def main():
        async with connect() as s:
            await s.call_tool("open_binary", {"path": str(big)})
            full = await s.call_tool("inspect_artifact", {})
            limits = json.loads(full.content[0].text)["error"]["details"]["reported_limits"]
            ref = limits["evidence_reference"]
            # the ready continuation is a call our validator accepts, as handed out
            continuation = limits["continuation"]
            view = await s.call_tool(continuation["name"], continuation["arguments"])
            page = await s.call_tool(
                "inspect_analysis_view",
                {"source": ref, "view": {"kind": "inventory", "facet": "occurrences", "offset": 9_990}},
            )
            return full, continuation, view, page

    full, continuation, view, page = anyio.run(main)
    assert error(full, "resource_constraint")["details"]["resource"] == "transport"
    assert continuation["arguments"]["view"] == {"kind": "summary"}
    summary = evidence(view)["normalized_result"]
    assert summary["summary"]["inventory_coverage"]["status"] == "unknown"  # max_entries (10,000) was reached
    assert any("max_entries=10000" in t for t in summary["limitations"])
    assert summary["summary"]["available_counts"]["occurrences"] == 10_001
    assert "inventory coverage is unknown" in summary["unknowns"]
    p = evidence(page)["normalized_result"]
    assert p["coverage"] == {"status": "page", "examined": 11, "total": 10_001, "next_offset": None, "exhausted": True}
    assert p["source_complete"] is False and p["limitations"]


def test_typescript_client_accepts_every_artifact_reply(tmp_path):
    import shutil

    here = Path(__file__).parent / "conformance"
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("Node.js and npm are not installed on this host")
    if not (here / "node_modules" / "@modelcontextprotocol" / "client").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=here, check=True, capture_output=True, timeout=600)
    left = make_zip(tmp_path / "l.jar", {"META-INF/MANIFEST.MF": b"Manifest-Version: 1.0\n", "a/B.class": b"\xca\xfe"})
    right = make_zip(tmp_path / "r.jar", {"META-INF/MANIFEST.MF": b"Manifest-Version: 1.0\n"})
    proc = subprocess.run(
        ["node", str(here / "artifacts.mjs"), json.dumps([*rea_command(), "mcp"]), str(left), str(right)],
        capture_output=True,
        text=True,
        timeout=300,
        env=clean_env(TMPDIR=str(tmp_path)),
    )
    report = json.loads(proc.stdout)
    assert report.get("fatal") is None and report["clientErrors"] == [], report
    for label, reply in report["calls"].items():
        assert "thrown" not in reply and reply["isError"] is False, (label, reply)
        assert json.loads(reply["text"]) == reply["structured"]
    compared = report["calls"]["compare"]["structured"]["normalized_result"]
    assert compared["status"] == "changed"  # the root bytes differ too
    assert {c["logical_path"]: c["classification"] for c in compared["changes"]["items"]} == {
        "": "changed",
        "a/B.class": "removed",
    }
