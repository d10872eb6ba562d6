"""The Ghidra provider short of a running Ghidra (none is installable here): discovery,
REA_GHIDRA_STARTUP_TIMEOUT_MS validation as the reference defines it, and the typed refusal."""

from __future__ import annotations

import anyio
import pytest

from effects.native.discovery import discover
from rea.native.providers import GHIDRA_STARTUP_DEFAULT_MS, ghidra_startup_timeout
from test_mcp_e2e import connect, err


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        (None, GHIDRA_STARTUP_DEFAULT_MS),
        ("1", 1),
        ("1800000", 1800000),
        (" 1800000 ", 1800000),
        ("1e6", 10**6),
        ("01", 1),
        ("+1", 1),
        ("2147483647", 2147483647),
    ],
)
def test_accepted_startup_timeouts(text, ms):
    assert ghidra_startup_timeout(text) == ms


@pytest.mark.parametrize("text", ["", " ", "0", "-5", "1.5", "2147483648", "abc", "inf", "nan", "1e400"])
def test_refused_startup_timeouts_say_why(text):
    reason = ghidra_startup_timeout(text)
    assert isinstance(reason, str) and "REA_GHIDRA_STARTUP_TIMEOUT_MS" in reason and repr(text) in reason


def _ghidra(env):
    return next(f for f in discover(env) if f["id"] == "ghidra")


def test_discovery_checks_install_then_configuration(tmp_path):
    assert _ghidra({})["code"] == "not_configured" and "GHIDRA_INSTALL_DIR" in _ghidra({})["reason"]
    assert _ghidra({"GHIDRA_INSTALL_DIR": str(tmp_path / "absent")})["code"] == "executable_missing"
    bad = _ghidra({"GHIDRA_INSTALL_DIR": str(tmp_path), "REA_GHIDRA_STARTUP_TIMEOUT_MS": "soon"})
    assert bad["available"] is False and bad["code"] == "not_configured" and "'soon'" in bad["reason"]
    assert "2147483647" in bad["remediation"]
    fine = _ghidra({"GHIDRA_INSTALL_DIR": str(tmp_path), "REA_GHIDRA_STARTUP_TIMEOUT_MS": "1e6"})
    assert fine.get("code") != "not_configured"
    if fine["available"]:  # a JDK on PATH: the configuration is reported, binding still refused (no adapter)
        assert fine["diagnostics"]["startup_timeout_ms"] == 10**6 and fine["bindable"] is False


def test_open_binary_with_ghidra_misconfigured_is_a_typed_refusal(tmp_path):
    async def main():
        async with connect(GHIDRA_INSTALL_DIR=str(tmp_path), REA_GHIDRA_STARTUP_TIMEOUT_MS="0") as s:
            return await s.call_tool("open_binary", {"path": "/usr/bin/true", "provider_id": "ghidra"})

    body = err(anyio.run(main), "provider_unavailable")
    assert "REA_GHIDRA_STARTUP_TIMEOUT_MS='0'" in body["message"]
    assert body["remediation"]["action"].startswith("Unset REA_GHIDRA_STARTUP_TIMEOUT_MS")
    codes = {c["provider_id"]: c["code"] for c in body["details"]["selection"]["candidates"]}
    assert codes["ghidra"] == "not_configured" and codes["angr"] is None
