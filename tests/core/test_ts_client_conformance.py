"""Conformance with the pinned TypeScript MCP client (@modelcontextprotocol/client 2.3.1).

That client validates structuredContent against each advertised outputSchema, has a
10 MiB stdio buffer and dispatches notifications asynchronously; REA must satisfy it
as well as the Python SDK client.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from support import clean_env, ledger, npm_fixture, rea_command, write_bundle

pytestmark = pytest.mark.slow
HERE = Path(__file__).parents[1] / "fixtures" / "conformance"


@pytest.fixture(scope="module")
def node_client() -> Path:
    npm_fixture(HERE)  # installed by scripts/setup test: the run needs no registry
    return HERE / "drive.mjs"


def test_typescript_client_accepts_every_reply(node_client, tmp_path):
    bundle = write_bundle(tmp_path / "bundle.json", ledger(6_000, payload_bytes=2_000))
    proc = subprocess.run(
        ["node", str(node_client), json.dumps([*rea_command(), "mcp"]), str(bundle)],
        capture_output=True,
        text=True,
        timeout=300,
        env=clean_env(),
    )
    report = json.loads(proc.stdout)
    assert report.get("fatal") is None, report.get("fatal")
    assert report["clientErrors"] == []
    calls = report["calls"]
    assert not any("thrown" in c for c in calls.values()), calls
    assert {t["name"] for t in report["tools"]} >= {"binary_session", "open_binary", "get_evidence_bundle"}
    for label in ("session", "open", "import", "summary", "progress", "unknown", "close", "closeAgain"):
        assert calls[label]["isError"] is False and calls[label]["structured"] is not None, label
        assert json.loads(calls[label]["text"]) == calls[label]["structured"]
    assert calls["import"]["structured"]["result"]["imported"] == 6_000
    opened = calls["open"]["structured"]["result"]
    assert (opened["format"], opened["kind"], opened["loaderArgs"]) == ("elf", "executable", [])
    assert calls["summary"]["structured"]["result"]["kind"] == "evidence-bundle-summary"
    assert calls["close"]["structured"]["result"] is None and calls["closeAgain"]["structured"]["result"] is None
    assert calls["close"]["structured"]["closed"]["cleared"]["records"] == 6_001  # with the unknown's mutation
    ghidra = json.loads(calls["ghidra"]["text"])["error"]
    assert calls["ghidra"]["isError"] and ghidra["code"] == "provider_unavailable"
    assert ghidra["details"]["requested_provider_id"] == "ghidra"
    complete = json.loads(calls["complete"]["text"])["error"]
    assert calls["complete"]["isError"] and complete["code"] == "resource_constraint"
    assert calls["bad"]["isError"] and json.loads(calls["bad"]["text"])["error"]["details"]["field"] == "limit"
    assert calls["unknown"]["meta"] is None
    assert calls["session"]["meta"] == {"provenance": {"untrusted_content": True, "source": "analysis_target"}}
    # the last notification of each quick call was handled before its result (issue 10, item 7)
    assert len(report["quickProgress"]) == 40 and all(m.startswith("finished") for m in report["quickProgress"])
    numbers = [p["progress"] for p in report["progress"]]
    assert numbers == list(range(1, len(numbers) + 1)) and report["progress"][-1]["message"].startswith("finished")
