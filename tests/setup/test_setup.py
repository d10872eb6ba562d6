"""`rea setup` / `rea uninstall` as a user runs them: the real CLI under a temporary HOME."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from support import clean_env, rea_command

CLAUDE_CODE = (
    '{\n  "numStartups": 12,\n  "projects": {\n    "/src/app": {"mcpServers": {}, "allowedTools": []}\n  },\n'
    '  "mcpServers": {\n    "zeta": {"command": "npx", "args": ["-y", "zeta-mcp"]},\n'
    '    "alpha": {"type": "stdio", "command": "/usr/bin/alpha"}\n  },\n  "autoUpdates": false\n}\n'
)


def home_env(home: Path) -> dict[str, str]:
    env = clean_env(HOME=str(home))
    for variable in ("XDG_CONFIG_HOME", "CODEX_HOME", "APPDATA", "USERPROFILE"):
        env.pop(variable, None)
    return env


def rea(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*rea_command(), *args],
        capture_output=True,
        text=True,
        env=home_env(home),
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


def rea_json(home: Path, *args: str, code: int = 0) -> dict:
    out = rea(home, *args, "--json")
    assert out.returncode == code, out.stdout + out.stderr
    return json.loads(out.stdout)


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def states(home: Path) -> dict[str, str]:
    section = rea_json(home, "doctor")["client_registrations"]
    return {Path(r["config_path"]).relative_to(home).as_posix(): r["state"] for r in section["registrations"]}


def tree(home: Path) -> dict[str, bytes]:
    return {p.relative_to(home).as_posix(): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


@pytest.mark.slow
def test_claude_code_setup_then_uninstall(tmp_path):
    home = tmp_path / "home"
    config = write(home / ".claude.json", CLAUDE_CODE)
    (home / ".claude").mkdir()
    before = tree(home)

    planned = rea_json(home, "setup", "--client", "claude_code", "--dry-run")
    assert tree(home) == before
    expected = planned["expected_command"]
    by_kind = {c["kind"]: c for c in planned["changes"]}
    assert by_kind["config"]["action"] == "add" and by_kind["config"]["after"] == expected
    assert by_kind["skill"]["action"] == "create"

    refused = rea_json(home, "setup", "--client", "claude_code", code=1)  # stdin is not a terminal
    assert refused["mode"] == "not_confirmed" and refused["error"]["code"] == "permission_required"
    assert tree(home) == before

    applied = rea_json(home, "setup", "--client", "claude_code", "--yes")
    assert [a["status"] for a in applied["applied"]] == ["applied", "applied"]
    backup = Path(applied["applied"][0]["backup"])
    assert backup.parent == home and backup.read_bytes() == before[".claude.json"]
    document = json.loads(config.read_text())
    assert list(document) == ["numStartups", "projects", "mcpServers", "autoUpdates"]
    assert list(document["mcpServers"]) == ["zeta", "alpha", "rea"]
    assert document["mcpServers"]["rea"] == {"command": expected[0], "args": expected[1:]}
    assert config.read_text().startswith(CLAUDE_CODE.split('\n  },\n  "autoUpdates"')[0])
    assert states(home) == {".claude.json": "aligned"}
    skill = home / ".claude/skills/rea/SKILL.md"
    assert skill.read_text().startswith("---\nname: rea\n")

    after_setup = tree(home)
    again = rea_json(home, "setup", "--client", "claude_code", "--yes")
    assert again["mode"] == "nothing_to_do" and {c["action"] for c in again["changes"]} == {"none"}
    assert tree(home) == after_setup

    removed = rea_json(home, "uninstall", "--client", "claude_code", "--yes")
    assert {c["action"] for c in removed["changes"]} == {"remove"}
    assert config.read_bytes() == before[".claude.json"]
    assert not skill.exists() and not skill.parent.exists()
    assert states(home) == {".claude.json": "missing"}
    assert rea_json(home, "uninstall", "--client", "claude_code", "--yes")["mode"] == "nothing_to_do"


CODEX = (
    "# Codex settings, kept by hand\n"
    'model = "o3"  # pinned\n\n'
    "[mcp_servers.docs]\n"
    'command = "npx"\n'
    'args = ["-y", "docs-mcp"]  # the docs server\n\n'
    "[profiles.fast]\n"
    'model = "o4-mini"\n'
)
OTHERS = {
    ".claude.json": CLAUDE_CODE,
    ".config/Claude/claude_desktop_config.json": '{"mcpServers":{"fs":{"command":"npx","args":["fs"]}},"globalShortcut":""}',
    ".codex/config.toml": CODEX,
    ".cursor/mcp.json": '{\n\t"mcpServers": {\n\t\t"b": {"command": "b"},\n\t\t"a": {"command": "a"}\n\t}\n}',
    ".gemini/settings.json": '{\n    "theme": "GitHub",\n    "selectedAuthType": "oauth-personal"\n}\n',
    ".codeium/windsurf/mcp_config.json": "{}",
}


@pytest.mark.slow
def test_every_client_set_up_re_run_and_uninstalled(tmp_path):
    home = tmp_path / "home"
    for relative, text in OTHERS.items():
        write(home / relative, text)
    (home / ".claude").mkdir()
    before = tree(home)

    applied = rea_json(home, "setup", "--all-detected", "--yes")
    expected = applied["expected_command"]
    actions = {Path(c["path"]).relative_to(home).as_posix(): c["action"] for c in applied["changes"]}
    assert actions == {**{k: "add" for k in OTHERS}, ".claude/skills/rea/SKILL.md": "create"}
    assert applied["skill_unsupported"] == ["claude_desktop", "codex", "cursor", "gemini_cli", "windsurf"]
    assert set(states(home).values()) == {"aligned"} and len(states(home)) == 6

    codex = (home / ".codex/config.toml").read_text()
    assert codex.startswith(CODEX.split("[profiles.fast]")[0])  # comments and the other server untouched
    assert f"[mcp_servers.rea]\ncommand = {json.dumps(expected[0])}\nargs = {json.dumps(expected[1:])}\n" in codex
    assert codex.endswith('[profiles.fast]\nmodel = "o4-mini"\n')
    cursor = json.loads((home / ".cursor/mcp.json").read_text())
    assert list(cursor["mcpServers"]) == ["b", "a", "rea"]
    assert '\n\t\t"rea": {\n\t\t\t"command"' in (home / ".cursor/mcp.json").read_text()  # its tab indent
    gemini = json.loads((home / ".gemini/settings.json").read_text())
    assert list(gemini) == ["theme", "selectedAuthType", "mcpServers"]

    after = tree(home)
    assert rea_json(home, "setup", "--all-detected", "--yes")["mode"] == "nothing_to_do"
    assert tree(home) == after

    removed = rea_json(home, "uninstall", "--yes")
    assert all(a["status"] == "applied" for a in removed["applied"])
    restored = {k: v for k, v in tree(home).items() if ".rea-backup-" not in k}
    for relative in (".claude.json", ".config/Claude/claude_desktop_config.json", ".codex/config.toml"):
        assert restored[relative] == before[relative], relative  # the entry was appended to existing servers
    assert (home / ".cursor/mcp.json").read_bytes() == before[".cursor/mcp.json"]
    assert json.loads(restored[".gemini/settings.json"]) == {
        **json.loads(OTHERS[".gemini/settings.json"]),
        "mcpServers": {},
    }
    assert set(states(home).values()) == {"missing"}


@pytest.mark.slow
def test_a_stale_entry_is_replaced_keeping_its_other_keys(tmp_path):
    home = tmp_path / "home"
    stale = {"mcpServers": {"rea": {"command": "rea", "args": ["mcp"], "env": {"REA_X": "1"}}, "z": {"command": "z"}}}
    config = write(home / ".cursor/mcp.json", json.dumps(stale, indent=2))
    write(home / ".codex/config.toml", '[mcp_servers.rea]\ncommand = "/gone/rea"  # old\nstartup_timeout_sec = 30\n')
    plan = rea_json(home, "setup", "--dry-run")
    assert {c["client"]: (c["action"], c["before"]) for c in plan["changes"]} == {
        "cursor": ("update", ["rea", "mcp"]),
        "codex": ("update", ["/gone/rea"]),
    }
    rea_json(home, "setup", "--yes")
    entry = json.loads(config.read_text())["mcpServers"]["rea"]
    assert entry == {
        "command": plan["expected_command"][0],
        "args": plan["expected_command"][1:],
        "env": {"REA_X": "1"},
    }
    assert "startup_timeout_sec = 30" in (home / ".codex/config.toml").read_text()
    assert set(states(home).values()) == {"aligned"}


HOSTILE = {
    ".cursor/mcp.json": ('{"mcpServers": {"a": {"command": "a"},}}', "configuration_invalid", "not valid JSON"),
    ".gemini/settings.json": ('["not", "an", "object"]', "configuration_invalid", "not a table of settings"),
    ".codeium/windsurf/mcp_config.json": ('{"mcpServers": ["x"]}', "configuration_invalid", "mcpServers is a list"),
    ".codex/config.toml": ('[mcp_servers.docs]\ncommand = "npx"\ncommand = "x"\n', "configuration_invalid", "TOML"),
    ".config/Claude/claude_desktop_config.json": (
        '{"mcpServers": {"rea": {"command": "a"}, "rea": {"command": "b"}}}',
        "configuration_invalid",
        "more than once",
    ),
}


@pytest.mark.slow
def test_hostile_configs_are_refused_and_left_untouched(tmp_path):
    home = tmp_path / "home"
    for relative, (text, _, _) in HOSTILE.items():
        write(home / relative, text)
    real = write(tmp_path / "dotfiles/claude.json", CLAUDE_CODE)
    (home / ".claude.json").symlink_to(real)
    (home / ".claude").mkdir()
    before = tree(home)

    report = rea_json(home, "setup", "--yes", code=1)
    refused = {Path(c["path"]).relative_to(home).as_posix(): c for c in report["changes"] if c["kind"] == "config"}
    for relative, (_, code, phrase) in HOSTILE.items():
        change = refused[relative]
        assert change["action"] == "refuse" and change["error"]["code"] == code, change
        assert phrase in change["error"]["message"] and change["error"]["details"]["path"] == str(home / relative)
    link = refused[".claude.json"]
    assert link["action"] == "refuse" and link["error"]["code"] == "permission_required"
    assert "symlink" in link["detail"]
    assert [a["path"] for a in report["applied"]] == [str(home / ".claude/skills/rea/SKILL.md")]
    assert {k: v for k, v in tree(home).items() if "skills" not in k} == before
    assert (home / ".claude.json").is_symlink() and real.read_text() == CLAUDE_CODE
    assert rea_json(home, "uninstall", "--yes", code=1)["applied"] == [
        {
            "path": str(home / ".claude/skills/rea/SKILL.md"),
            "status": "applied",
            "backup": None,
            "detail": "remove the REA skill",
        }
    ]
    assert tree(home) == before


@pytest.mark.slow
def test_read_only_oversized_and_special_files_are_reported_not_replaced(tmp_path):
    home = tmp_path / "home"
    locked = write(home / ".cursor/mcp.json", '{"mcpServers": {}}')
    locked.chmod(0o444)
    write(home / ".gemini/settings.json", b'{"pad": "' + b"x" * (8 * 1024 * 1024) + b'"}')
    (home / ".codeium/windsurf").mkdir(parents=True)
    (home / ".codeium/windsurf/mcp_config.json").mkdir()
    sizes = {p: p.stat().st_size for p in home.rglob("*") if p.is_file()}
    report = rea_json(home, "setup", "--yes", code=1)
    details = {c["client"]: (c["action"], c["error"]["code"], c["detail"]) for c in report["changes"]}
    assert details == {
        "cursor": ("refuse", "permission_required", "read-only (no write permission); not replaced"),
        "gemini_cli": ("refuse", "permission_required", "larger than 8388608 bytes; not read"),
        "windsurf": ("refuse", "permission_required", "not a regular file"),
    }
    assert report["applied"] == [] and {p: p.stat().st_size for p in home.rglob("*") if p.is_file()} == sizes


def _interruptible() -> None:
    """A suite started in the background (`pytest &`) has SIGINT ignored, and children inherit
    SIG_IGN (Python then keeps it): give the child the default a terminal user's rea has."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def rea_process(home: Path, *args: str, **kw) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*rea_command(), *args],
        env=home_env(home),
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_interruptible,
        **kw,
    )


def wait_until_blocked_on(directory: Path, process: subprocess.Popen[str]) -> None:
    """Until `process` waits for the flock on `directory` (a "->" line in /proc/locks)."""
    import time

    inode = f":{directory.stat().st_ino} "
    for _ in range(1200):
        assert process.poll() is None, process.communicate()
        with open("/proc/locks") as locks:
            if any("->" in line and inode in line for line in locks):
                return
        time.sleep(0.05)
    raise AssertionError("the run never waited for the lock")


@pytest.mark.slow
def test_concurrent_runs_take_turns_and_a_changed_file_is_not_overwritten(tmp_path):
    import fcntl
    import os

    home = tmp_path / "home"
    config = write(home / ".cursor/mcp.json", '{"mcpServers": {}}')
    holder = os.open(config.parent, os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)  # another setup run is applying here
    try:
        waiting = rea_process(home, "setup", "--yes", "--json", stdin=subprocess.DEVNULL)
        wait_until_blocked_on(config.parent, waiting)
        assert config.read_text() == '{"mcpServers": {}}'
        config.write_text('{"mcpServers": {"mine": {"command": "x"}}}')  # what the other run wrote
    finally:
        os.close(holder)
    out, err = waiting.communicate(timeout=60)
    assert waiting.returncode == 1, out + err
    assert [a["status"] for a in json.loads(out)["applied"]] == ["changed_since_plan"]
    assert config.read_text() == '{"mcpServers": {"mine": {"command": "x"}}}'
    assert sorted(p.name for p in config.parent.iterdir()) == ["mcp.json"]  # no staging file or backup


@pytest.mark.slow
def test_sigint_while_waiting_to_apply_leaves_the_file_as_it_was(tmp_path):
    import fcntl
    import os
    import signal

    home = tmp_path / "home"
    config = write(home / ".cursor/mcp.json", '{"mcpServers": {}}')
    holder = os.open(config.parent, os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        run = rea_process(home, "setup", "--yes", "--json", stdin=subprocess.DEVNULL)
        wait_until_blocked_on(config.parent, run)
        run.send_signal(signal.SIGINT)
        out, err = run.communicate(timeout=60)
    finally:
        os.close(holder)
    assert run.returncode == 130, out + err
    report = json.loads(out)
    assert report["mode"] == "cancelled" and [a["status"] for a in report["applied"]] == ["cancelled"]
    assert config.read_text() == '{"mcpServers": {}}'
    assert sorted(p.name for p in config.parent.iterdir()) == ["mcp.json"]


@pytest.mark.slow
def test_interactive_confirmation_on_a_terminal(tmp_path):
    import os
    import pty

    home = tmp_path / "home"
    config = write(home / ".cursor/mcp.json", '{"mcpServers": {}}')
    for answer, changed in ((b"n\n", False), (b"y\n", True)):
        primary, secondary = pty.openpty()
        run = rea_process(home, "setup", "--json", stdin=secondary)
        os.close(secondary)
        os.write(primary, answer)
        out, err = run.communicate(timeout=60)
        os.close(primary)
        assert "Apply these changes? [y/N]" in err and "add     " in err
        assert run.returncode == (0 if changed else 1), out + err
        assert json.loads(out)["mode"] == ("applied" if changed else "not_confirmed")
        assert ("rea" in json.loads(config.read_text())["mcpServers"]) is changed


VSCODE = (
    '{\n  // servers this workspace starts\n  "servers": {\n'
    '    "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}, // remote\n'
    '    "local": {"type": "stdio", "command": "/usr/bin/local-mcp", "args": []},\n  },\n'
    '  /* prompted once */\n  "inputs": [{"type": "promptString", "id": "token", "password": true}],\n}\n'
)
PROJECT_MCP = '{"mcpServers": {"db": {"command": "npx", "args": ["-y", "db-mcp"]}}}\n'


def project_states(home: Path, project: Path) -> dict[str, str]:
    section = rea_json(home, "doctor", "--project", str(project))["client_registrations"]
    rows = section["registrations"]
    return {
        Path(r["config_path"]).relative_to(project).as_posix(): r["state"]
        for r in rows
        if project in Path(r["config_path"]).parents
    }


@pytest.mark.slow
def test_project_configs_set_up_re_run_and_uninstalled(tmp_path):
    home, project = tmp_path / "home", tmp_path / "repo"
    home.mkdir()
    write(project / ".vscode/mcp.json", VSCODE)
    write(project / ".mcp.json", PROJECT_MCP)
    before_home, before_project = tree(home), tree(project)
    assert project_states(home, project) == {".mcp.json": "missing", ".vscode/mcp.json": "missing"}

    planned = rea_json(home, "setup", "--project", str(project), "--dry-run")
    assert [(c["client"], c["action"]) for c in planned["changes"]] == [("claude_code", "add"), ("vscode", "add")]
    assert tree(project) == before_project

    applied = rea_json(home, "setup", "--project", str(project), "--yes")
    assert applied["mode"] == "applied" and tree(home) == before_home  # the user's own configs are untouched
    text = (project / ".vscode/mcp.json").read_text()
    for comment in ("// servers this workspace starts", "// remote", "/* prompted once */"):
        assert comment in text
    from rea.jsonc import to_json

    vscode = json.loads(to_json(text))
    assert list(vscode["servers"]) == ["github", "local", "rea"] and vscode["inputs"][0]["id"] == "token"
    assert vscode["servers"]["rea"]["type"] == "stdio" and vscode["servers"]["rea"]["args"] == ["mcp"]
    assert project_states(home, project) == {".mcp.json": "aligned", ".vscode/mcp.json": "aligned"}

    again = rea_json(home, "setup", "--project", str(project), "--yes")
    assert again["mode"] == "nothing_to_do"

    removed = rea_json(home, "uninstall", "--project", str(project), "--yes")
    assert removed["mode"] == "applied"
    for name in (".vscode/mcp.json", ".mcp.json"):
        assert (project / name).read_bytes() == before_project[name]  # byte for byte, comments and all


def test_project_scope_refuses_clients_it_cannot_write(tmp_path):
    home, project = tmp_path / "home", tmp_path / "repo"
    home.mkdir()
    project.mkdir()
    out = rea(home, "setup", "--client", "vscode", "--json")
    assert out.returncode == 2
    error = json.loads(out.stdout)["error"]
    assert error["code"] == "invalid_request" and "--project" in error["message"]
    out = rea(home, "setup", "--project", str(project), "--client", "codex", "--json")
    assert out.returncode == 2 and "claude_code" in json.loads(out.stdout)["error"]["details"]["accepted"]
    out = rea(home, "setup", "--project", str(project / "absent"), "--dry-run")
    assert out.returncode == 2 and "not a directory" in out.stderr
