"""The `rea` CLI as a user runs it: a real subprocess."""

from __future__ import annotations

import json
import signal
import subprocess
import time

import pytest

from support import clean_env, ledger, rea_command, write_bundle

pytestmark = pytest.mark.slow


def rea(*args: str, env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*rea_command(), *args], capture_output=True, text=True, env=env or clean_env(), timeout=timeout
    )


def test_capabilities_and_providers_share_catalog_identity():
    caps = rea("capabilities", "--format", "json")
    provs = rea("providers", "--json")
    assert caps.returncode == 0 and provs.returncode == 0
    c, p = json.loads(caps.stdout), json.loads(provs.stdout)
    from rea.catalog import CATALOG

    assert c["catalog"] == p["catalog"] and c["catalog"]["counts"]["mcp_tools"] == len(CATALOG)
    assert [x["provider"]["id"] for x in p["analysis_provider_candidates"]] == ["angr", "ghidra", "hopper", "ida"]
    assert p["analysis_provider_candidates"][0]["availability"]["status"] == "available"
    text = rea("capabilities")
    assert "catalog digest" in text.stdout and "binary_session" in text.stdout


def test_doctor_is_read_only_and_names_bad_settings():
    good = rea("doctor", "--json")
    assert good.returncode == 0 and json.loads(good.stdout)["status"] == "ok"
    bad = rea("doctor", "--json", env=clean_env(REA_MCP_MAX_RESPONSE_BYTES="12"))
    report = json.loads(bad.stdout)
    assert bad.returncode == 1 and report["status"] == "failed"
    invalid = [c for c in report["checks"] if c["status"] == "invalid"]
    assert invalid[0]["name"] == "setting REA_MCP_MAX_RESPONSE_BYTES" and "10485760" in invalid[0]["detail"]


def test_inspect_evidence_bundle_summary_with_filters(tmp_path):
    session = ledger(5)
    path = write_bundle(tmp_path / "b.json", session)
    out = rea(
        "inspect-evidence-bundle",
        json.dumps({"path": str(path), "detail": "summary", "filters": {"procedure_address": "0x401002"}}),
        "--format",
        "json",
    )
    assert out.returncode == 0, out.stdout + out.stderr
    result = json.loads(out.stdout)["result"]
    assert result["kind"] == "evidence-bundle-summary" and result["filters"] == {"procedure_address": "0x401002"}
    assert (result["total_retained_records"], result["matching_records"], result["unknown_revisions"]) == (5, 1, 0)
    (row,) = result["records"]
    assert row["native_dossier"] == {
        "available": True,
        "procedure_address": "0x401002",
        "procedure_name": "fn_2",
        "value_flow": {"status": "not-recorded"},
    }
    assert row["subject"]["digest"]["sha256"] == "2".zfill(64) and row["retention"] == "complete-record"
    text = rea("inspect-evidence-bundle", json.dumps({"path": str(path)}))
    assert text.returncode == 0 and "5 record(s), 0 unknown revision(s)" in text.stdout
    assert "0x401002 fn_2" in text.stdout
    filtered = rea("inspect-evidence-bundle", json.dumps({"path": str(path), "filters": {"operation": "x"}}))
    assert filtered.returncode == 0 and "0 of 5 record(s) match" in filtered.stdout


@pytest.mark.parametrize(
    "request_text, field",
    [
        ("not json", "request"),
        ('{"detail": "summary"}', "path"),
        ('{"path": "/x", "filters": {"colour": "red"}}', "filters.colour"),
        ('{"path": "/x", "detail": "complete"}', "detail"),
    ],
)
def test_bad_requests_exit_2_with_canonical_error(request_text, field):
    out = rea("inspect-evidence-bundle", request_text, "--json")
    assert out.returncode == 2
    error = json.loads(out.stdout)["error"]
    assert error["code"] == "invalid_request" and error["details"]["field"] == field


def test_tampered_bundle_fails_with_exit_1(tmp_path):
    path = write_bundle(tmp_path / "b.json", ledger(3))
    tree = json.loads(path.read_text())
    tree["records"][0]["limitations"] = ["edited"]
    path.write_text(json.dumps(tree))
    out = rea("inspect-evidence-bundle", json.dumps({"path": str(path)}), "--json")
    assert out.returncode == 1 and json.loads(out.stdout)["error"]["code"] == "evidence_integrity_mismatch"
    missing = rea("inspect-evidence-bundle", json.dumps({"path": str(tmp_path / "none.json")}))
    assert missing.returncode == 2 and "does not exist" in missing.stdout


def test_sigint_cancels_like_mcp(tmp_path):
    path = write_bundle(tmp_path / "big.json", ledger(40_000, payload_bytes=500))
    proc = subprocess.Popen(
        [*rea_command(), "inspect-evidence-bundle", json.dumps({"path": str(path)}), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=clean_env(),
    )
    deadline = time.monotonic() + 30
    line = ""
    while time.monotonic() < deadline and "reading bundle" not in line:
        line = proc.stderr.readline()
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130
    error = json.loads(out)["error"]
    assert error["code"] == "cancelled" and error["details"]["signal"] == "SIGINT"


def test_mcp_refuses_bad_budget_before_serving():
    out = rea("mcp", env=clean_env(REA_MCP_MAX_RESPONSE_BYTES="0x100000"))
    assert out.returncode == 2 and "REA_MCP_MAX_RESPONSE_BYTES" in out.stderr


def test_every_catalog_cli_command_exists():
    from effects.commandline import _parser
    from rea.catalog import CLI_COMMANDS

    sub = next(a for a in _parser()._actions if a.dest == "command")
    assert sorted(sub.choices) == sorted(CLI_COMMANDS)
