"""`rea doctor` reads real client config files under a temporary HOME and writes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from effects.registrations import inspect_registrations, this_installation
from rea.registrations import MAX_CONFIG_BYTES
from support import clean_env, rea_command

LAUNCH = [*rea_command(), "mcp"]


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def json_entry(command: object, args: object) -> str:
    return json.dumps({"mcpServers": {"other": {"command": "npx"}, "rea": {"command": command, "args": args}}})


def home_env(home: Path, **extra: str) -> dict[str, str]:
    env = clean_env(HOME=str(home), **extra)
    for variable in ("XDG_CONFIG_HOME", "CODEX_HOME", "APPDATA", "USERPROFILE"):
        if variable not in extra:
            env.pop(variable, None)
    return env


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}


def by_path(section: dict) -> dict[str, dict]:
    return {Path(r["config_path"]).relative_to(section["home"]).as_posix(): r for r in section["registrations"]}


@pytest.mark.slow
def test_doctor_json_reports_each_client_registration(tmp_path):
    home = tmp_path / "home"
    write(home / ".cursor/mcp.json", json_entry(LAUNCH[0], LAUNCH[1:]))
    write(home / ".claude.json", json_entry(str(tmp_path / "uninstalled/bin/rea"), ["mcp"]))
    write(home / ".codeium/windsurf/mcp_config.json", json_entry(LAUNCH[0], [*LAUNCH[1:-1], "serve"]))
    write(home / ".gemini/settings.json", json.dumps({"theme": "dark", "mcpServers": {"other": {"command": "x"}}}))
    write(home / ".config/Claude/claude_desktop_config.json", '{"mcpServers": {"rea": ')
    write(home / ".codex/config.toml", "[mcp_servers.rea\ncommand = 1\n")
    write(home / "Library/Application Support/Claude/claude_desktop_config.json", json_entry(LAUNCH[0], "mcp"))
    before = snapshot(home)

    out = subprocess.run(
        [*rea_command(), "doctor", "--json"], capture_output=True, text=True, env=home_env(home), timeout=120
    )
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["status"] == "ok"
    section = report["client_registrations"]
    assert section["live_server"]["state"] == "unknown"
    assert section["expected_command"] in (LAUNCH, [sys.executable, "-m", "effects.cli", "mcp"])
    rows = by_path({**section, "home": str(home)})
    assert {k: (r["client"], r["format"], r["state"]) for k, r in rows.items()} == {
        ".cursor/mcp.json": ("cursor", "json", "aligned"),
        ".claude.json": ("claude_code", "json", "stale"),
        ".codeium/windsurf/mcp_config.json": ("windsurf", "json", "stale"),
        ".gemini/settings.json": ("gemini_cli", "json", "missing"),
        ".config/Claude/claude_desktop_config.json": ("claude_desktop", "json", "invalid"),
        ".codex/config.toml": ("codex", "toml", "invalid"),
        "Library/Application Support/Claude/claude_desktop_config.json": ("claude_desktop", "json", "invalid"),
    }
    assert all(r["live_server"] == "unknown" and r["expected"] == section["expected_command"] for r in rows.values())
    aligned = rows[".cursor/mcp.json"]
    assert aligned["command"] == LAUNCH and aligned["remediation"] is None
    gone = rows[".claude.json"]
    assert gone["command"] == [str(tmp_path / "uninstalled/bin/rea"), "mcp"] and "does not exist" in gone["detail"]
    assert json.dumps(section["expected_command"][0]) in gone["remediation"]
    assert json.loads(gone["snippet"])["mcpServers"]["rea"]["command"] == section["expected_command"][0]
    assert rows[".codeium/windsurf/mcp_config.json"]["command"][-1] == "serve"
    assert "args" in rows[".codeium/windsurf/mcp_config.json"]["detail"]
    assert rows[".gemini/settings.json"]["detail"] == "no mcpServers.rea entry"
    assert rows[".config/Claude/claude_desktop_config.json"]["detail"].startswith("not valid JSON")
    assert rows[".codex/config.toml"]["detail"].startswith("not valid TOML")
    assert "[mcp_servers.rea]" in rows[".codex/config.toml"]["remediation"]
    assert "args is not a list" in rows["Library/Application Support/Claude/claude_desktop_config.json"]["detail"]
    assert all(r["command"] is None for r in rows.values() if r["state"] in ("missing", "invalid"))
    assert snapshot(home) == before  # doctor wrote nothing

    text = subprocess.run([*rea_command(), "doctor"], capture_output=True, text=True, env=home_env(home), timeout=120)
    assert text.returncode == 0
    assert "live server: unknown" in text.stdout and "aligned     cursor" in text.stdout
    assert "stale       claude_code" in text.stdout and "invalid     codex" in text.stdout


def test_absent_clients_are_not_reported_and_a_bare_client_directory_is_missing(tmp_path):
    assert inspect_registrations(home_env(tmp_path))["registrations"] == []
    (tmp_path / ".cursor").mkdir()
    [row] = inspect_registrations(home_env(tmp_path))["registrations"]
    assert (row["client"], row["state"], row["detail"]) == ("cursor", "missing", "no config file")
    assert inspect_registrations({})["registrations"] == []  # no HOME: nothing to look at


def test_codex_home_xdg_and_appdata_locations(tmp_path):
    expected = list(this_installation().expected)
    toml_args = ", ".join(json.dumps(a) for a in expected[1:])
    write(
        tmp_path / "codex/config.toml",
        f'model = "x"\n[mcp_servers.rea]\ncommand = {json.dumps(expected[0])}\n'
        f"args = [{toml_args}]\nstartup_timeout_sec = 30\n",
    )
    write(tmp_path / "xdg/Claude/claude_desktop_config.json", json_entry(expected[0], expected[1:]))
    write(tmp_path / "roaming/Claude/claude_desktop_config.json", json_entry("rea", ["mcp"]))
    env = home_env(
        tmp_path / "home",
        CODEX_HOME=str(tmp_path / "codex"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
        APPDATA=str(tmp_path / "roaming"),
    )
    rows = {r["config_path"]: r for r in inspect_registrations(env)["registrations"]}
    assert rows[str(tmp_path / "codex/config.toml")]["state"] == "aligned"
    assert rows[str(tmp_path / "xdg/Claude/claude_desktop_config.json")]["state"] == "aligned"
    relative = rows[str(tmp_path / "roaming/Claude/claude_desktop_config.json")]
    assert relative["state"] == "stale" and "not an absolute path" in relative["detail"]


def test_a_symlink_to_this_script_is_aligned(tmp_path):
    installation = this_installation()
    if installation.script is None:
        pytest.skip("no rea console script installed next to this interpreter")
    link = tmp_path / "bin/rea"
    link.parent.mkdir()
    link.symlink_to(installation.script)
    write(tmp_path / ".cursor/mcp.json", json_entry(str(link), ["mcp"]))
    [row] = inspect_registrations(home_env(tmp_path))["registrations"]
    assert row["state"] == "aligned"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_hostile_files_are_invalid_not_fatal(tmp_path):
    os.mkfifo(tmp_path / ".claude.json")  # a FIFO must not block doctor
    write(tmp_path / ".cursor/mcp.json", b"\x00\xff\xfe binary \x89PNG")
    write(tmp_path / ".gemini/settings.json", b" " * (MAX_CONFIG_BYTES + 1))
    write(tmp_path / ".codeium/windsurf/mcp_config.json", b"[" * 200_000)
    (tmp_path / ".codex/config.toml").mkdir(parents=True)
    rows = {r["client"]: r for r in inspect_registrations(home_env(tmp_path))["registrations"]}
    assert {client: row["state"] for client, row in rows.items()} == {
        "claude_code": "invalid",
        "cursor": "invalid",
        "gemini_cli": "invalid",
        "windsurf": "invalid",
        "codex": "invalid",
    }
    assert rows["claude_code"]["detail"] == "not a regular file"
    assert rows["cursor"]["detail"].startswith("not UTF-8")
    assert rows["gemini_cli"]["detail"].startswith("larger than")
