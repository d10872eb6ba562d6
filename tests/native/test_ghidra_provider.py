"""The Ghidra provider short of a running Ghidra (none is installable here): discovery of the
installation, JDK and bridge; REA_GHIDRA_STARTUP_TIMEOUT_MS as the reference defines it; the typed
refusal; and, with a stand-in pyghidra (tests/ghidra_fixtures.py), binding, the startup deadline,
its waiting notices and close/reopen recovery, over MCP and the CLI."""

from __future__ import annotations

import json
import subprocess
import time

import anyio
import psutil
import pytest

from effects.native.discovery import discover
from ghidra_fixtures import GHIDRA_VERSION, fake_install, fake_jdk, fake_pyghidra, ghidra_env
from mcp_client import connect, err, ok
from rea.native.ghidra_install import decide, java_major, parse_properties
from rea.native.providers import GHIDRA_STARTUP_DEFAULT_MS, ghidra_startup_timeout
from support import clean_env, rea_command


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
    bare = _ghidra({"GHIDRA_INSTALL_DIR": str(tmp_path), "REA_GHIDRA_STARTUP_TIMEOUT_MS": "1e6"})
    assert bare["code"] == "executable_missing" and "application.properties" in bare["reason"]


def _installed(tmp_path, java="21.0.2", **install):
    return {"GHIDRA_INSTALL_DIR": str(fake_install(tmp_path, **install)), "JAVA_HOME": str(fake_jdk(tmp_path, java))}


def test_either_properties_file_marks_an_installation(tmp_path):
    for launch, application in ((True, False), (False, True)):
        root = tmp_path / f"{launch}{application}"
        fact = _ghidra(_installed(root, launch=launch, application=application))
        assert fact["code"] == "runtime_missing" and "pyghidra" in fact["reason"], fact  # past the install check


def test_the_jdk_must_be_17_or_newer(tmp_path):
    old = _ghidra(_installed(tmp_path / "old", java="1.8.0_292"))
    assert old["code"] == "unsupported_version" and "Java 8" in old["reason"] and "JDK 17" in old["remediation"]
    odd = _ghidra(_installed(tmp_path / "odd", java="banana"))
    assert odd["code"] == "version_unresolved"
    missing = _ghidra({"GHIDRA_INSTALL_DIR": str(fake_install(tmp_path)), "JAVA_HOME": str(tmp_path / "nojdk")})
    assert missing["code"] == "runtime_missing" and "JAVA_HOME" in missing["reason"]
    on_path = _ghidra(
        {"GHIDRA_INSTALL_DIR": str(fake_install(tmp_path)), "PATH": str(fake_jdk(tmp_path / "p") / "bin")}
    )
    assert on_path["diagnostics"]["java"].startswith(str(tmp_path / "p")) and on_path["diagnostics"]["java_major"] == 21


def test_without_pyghidra_ghidra_is_unavailable_with_the_pip_remediation(tmp_path):
    fact = _ghidra(_installed(tmp_path))
    assert fact["available"] is False and fact["bindable"] is False and fact["code"] == "runtime_missing"
    assert "pip install pyghidra" in fact["remediation"]
    assert fact["diagnostics"]["java_major"] == 21


def test_with_pyghidra_importable_ghidra_is_bindable(tmp_path, monkeypatch):
    bridge, _ = fake_pyghidra(tmp_path)
    monkeypatch.syspath_prepend(str(bridge))
    fact = _ghidra(_installed(tmp_path))
    assert fact["available"] is True and fact["bindable"] is True and fact["version"] == GHIDRA_VERSION
    assert fact["diagnostics"]["pyghidra"] is None  # importable, but without package metadata


def test_the_decision_order_is_install_configuration_java_bridge():
    base = {"install_dir": "/g", "is_dir": True, "property_files": ["support/launch.properties"]}
    assert decide({**base, "startup_timeout": "x", "java": None})["code"] == "not_configured"
    assert decide({**base, "java": None})["code"] == "runtime_missing"
    assert decide({**base, "java": "/j", "java_version_text": 'version "17"'})["code"] == "runtime_missing"
    fact = decide({**base, "java": "/j", "java_version_text": 'version "17"', "pyghidra": "3.2.0"})
    assert fact["bindable"] is True and fact["version"] is None  # launch.properties names no version
    assert fact["diagnostics"]["startup_timeout_ms"] == GHIDRA_STARTUP_DEFAULT_MS


@pytest.mark.parametrize(
    ("text", "major"),
    [
        ('openjdk version "17.0.15" 2025-04-15', 17),
        ('java version "1.8.0_292"', 8),
        ('openjdk version "21" 2023-09-19', 21),
        ('openjdk version "22-ea" 2024-03-19', 22),
        ("no version here", None),
        ('version ""', None),
        ('version "x.1"', None),
    ],
)
def test_java_version_lines(text, major):
    assert java_major(text) == major


def test_properties_lines():
    assert parse_properties("# c\n! c\na=1\n a = 2 \nb=x=y\nnovalue\n\n") == {"a": "1", "b": "x=y"}


def test_open_binary_with_ghidra_misconfigured_is_a_typed_refusal(tmp_path):
    async def main():
        async with connect(GHIDRA_INSTALL_DIR=str(tmp_path), REA_GHIDRA_STARTUP_TIMEOUT_MS="0") as s:
            return await s.call_tool("open_binary", {"path": "/usr/bin/true", "provider_id": "ghidra"})

    body = err(anyio.run(main), "provider_unavailable")
    assert "REA_GHIDRA_STARTUP_TIMEOUT_MS='0'" in body["message"]
    assert body["remediation"]["action"].startswith("Unset REA_GHIDRA_STARTUP_TIMEOUT_MS")
    codes = {c["provider_id"]: c["code"] for c in body["details"]["selection"]["candidates"]}
    assert codes["ghidra"] == "not_configured" and codes["angr"] is None


# ------------------------------------------------------ over MCP and the CLI


def _cli(*argv, **env):
    done = subprocess.run([*rea_command(), *argv], capture_output=True, text=True, env=clean_env(**env), timeout=120)
    return done.returncode, json.loads(done.stdout)


@pytest.mark.slow
def test_open_binary_ghidra_without_pyghidra_is_typed_unavailability_over_mcp_and_cli(tmp_path):
    env = ghidra_env(tmp_path, bridge=False)

    async def main():
        async with connect(**env) as s:
            refused = await s.call_tool("open_binary", {"path": "/usr/bin/true", "provider_id": "ghidra"})
            session = ok(await s.call_tool("binary_session", {}))
            return refused, session

    refused, session = anyio.run(main)
    body = err(refused, "provider_unavailable")
    assert "pyghidra is not importable" in body["message"]
    assert "pip install pyghidra" in body["remediation"]["action"]
    (rejection,) = [r for r in body["details"]["rejections"] if r["provider_id"] == "ghidra"]
    assert rejection["code"] == "runtime_missing" and rejection["diagnostics"]["java_major"] == 21
    ghidra = next(c for c in session["analysis_provider_candidates"] if c["provider"]["id"] == "ghidra")
    assert ghidra["availability"]["code"] == "runtime_missing" and session["open"] is False
    code, reply = _cli("call", "open_binary", "--path", "/usr/bin/true", "--provider-id", "ghidra", "--json", **env)
    assert code != 0 and reply["error"]["code"] == "provider_unavailable"
    assert "pip install pyghidra" in reply["error"]["remediation"]["action"]


def _ghidra_workers(server_pid):
    found = []
    for proc in psutil.process_iter(["pid", "cmdline"]):
        if "effects.native.ghidra_worker" in (proc.info["cmdline"] or []):
            try:
                if server_pid in {p.pid for p in proc.parents()}:
                    found.append(proc.pid)
            except psutil.Error:
                continue
    return found


@pytest.mark.slow
def test_ghidra_binds_then_times_out_at_its_startup_deadline_and_recovers_by_close_and_reopen(tmp_path):
    env = ghidra_env(tmp_path, bridge=True, REA_GHIDRA_STARTUP_TIMEOUT_MS="12000")
    mode_file = env["FAKE_PYGHIDRA_MODE_FILE"]

    async def main():
        notices = []

        async def on_progress(progress, total, message):
            notices.append((time.monotonic(), message))

        async with connect(**env) as s:
            opened = ok(await s.call_tool("open_binary", {"path": "/usr/bin/true", "provider_id": "ghidra"}))
            session = ok(await s.call_tool("binary_session", {}))
            started = time.monotonic()
            timed_out = await s.call_tool("list_procedures", {}, read_timeout_seconds=60, progress_callback=on_progress)
            elapsed = time.monotonic() - started
            server = psutil.Process().children()[-1].pid
            left_after_timeout = _ghidra_workers(server)
            closed = await s.call_tool("close_binary", {})
            reopened = ok(await s.call_tool("open_binary", {"path": "/usr/bin/true", "provider_id": "ghidra"}))
            with open(mode_file, "w") as handle:
                handle.write("fail")
            failed = await s.call_tool("list_procedures", {}, read_timeout_seconds=60)
            final = await s.call_tool("close_binary", {})
            await anyio.sleep(0.5)
            return (
                opened,
                session,
                timed_out,
                elapsed,
                notices,
                started,
                left_after_timeout,
                closed,
                reopened,
                failed,
                final,
                _ghidra_workers(server),
            )

    opened, session, timed_out, elapsed, notices, started, left, closed, reopened, failed, final, remaining = anyio.run(
        main
    )
    binding = opened["analysis_provider_binding"]
    assert binding["provider"] == {"id": "ghidra", "name": "Ghidra", "version": GHIDRA_VERSION}
    assert binding["selection_source"] == "request"
    assert binding["analysis_profile"]["parameters"]["engine"] == {"name": "ghidra", "version": GHIDRA_VERSION}
    ghidra_caps = session["capabilities"][0]
    assert ghidra_caps["provider"]["id"] == "ghidra" and any(
        "Unverified" in x for x in ghidra_caps["shared_limitations"]
    )
    body = err(timed_out, "provider_timeout")
    assert body["details"]["phase"] == "startup" and body["details"]["timeout_ms"] == 12000
    assert "REA_GHIDRA_STARTUP_TIMEOUT_MS=12000" in body["message"]
    assert 12 <= elapsed < 40
    waiting = [(at - started, m) for at, m in notices if m.startswith("waiting for Ghidra startup")]
    assert waiting and waiting[0][0] >= 10 and "auto-analysis" in waiting[0][1], notices
    assert left == []  # the worker group was stopped at the deadline
    assert not list((tmp_path / "cache" / "ghidra-projects").iterdir())  # and its temporary project removed
    assert closed.structured_content["closed"]["cleanup"] == {"status": "complete", "owned_resources": []}
    assert reopened["sha256"] == opened["sha256"]
    failure = err(failed, "execution_failure")  # the retry started a fresh worker: its own failure this time
    assert "fake pyghidra: the JVM could not start" in failure["message"]
    assert final.structured_content["closed"]["cleanup"]["status"] == "complete" and remaining == []


@pytest.mark.slow
def test_cli_runs_a_ghidra_query_through_the_worker(tmp_path):
    env = ghidra_env(tmp_path, bridge=True, mode="fail")
    code, reply = _cli("call", "list_procedures", "--target", "/usr/bin/true", "--provider", "ghidra", "--json", **env)
    assert code != 0 and reply["error"]["code"] == "execution_failure"
    assert "fake pyghidra" in reply["error"]["message"]
    env = ghidra_env(tmp_path / "t", bridge=True, REA_GHIDRA_STARTUP_TIMEOUT_MS="1500")
    code, reply = _cli("call", "list_procedures", "--target", "/usr/bin/true", "--provider", "ghidra", "--json", **env)
    assert code != 0 and reply["error"]["code"] == "provider_timeout"
