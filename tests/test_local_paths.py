"""Host paths are absolute and plainly spelled, in every tool that takes one (issue 10, item 12).

A relative path would resolve against whatever directory the MCP client started us in;
control and bidirectional-override characters make a name read as something else.
"""

from __future__ import annotations

import json
import os
import subprocess

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from rea.catalog import BY_NAME, CATALOG
from rea.local_paths import LOCAL_PATH_PATTERN
from support import clean_env, rea_command

# Arguments that name something other than a host file: paths inside an application or archive,
# and a command resolved the way a shell resolves it.
NOT_HOST_PATHS = {
    "left_module_path",
    "right_module_path",
    "expected_server_path",
    "relative_path",
    "device_path",
}  # relative_path: inside a bundle; device_path: on an attached Android device (the adb tools)

HOSTILE = ["main", "ev_" + "f" * 64, "./x.json", "\u202eevil.json", "/tmp/a\u202egpj.exe", "/tmp/x\x00y", "/tmp/a\nb"]


def _path_arguments():
    for contract in CATALOG:
        for name, prop in contract.input_schema.get("properties", {}).items():
            if (name == "path" or name.endswith("_path")) and name not in NOT_HOST_PATHS:
                yield contract.name, name, prop


def _pattern(prop):
    options = [prop, *prop.get("anyOf", ())]
    return next((o["pattern"] for o in options if "pattern" in o), None)


def test_every_host_path_argument_carries_the_one_rule():
    found = list(_path_arguments())
    assert {(t, n) for t, n, _ in found} >= {
        ("open_binary", "path"),
        ("export_evidence_bundle", "path"),
        ("import_evidence_bundle", "path"),
        ("analyze_javascript_application", "input_path"),
    }
    assert [(t, n) for t, n, p in found if _pattern(p) != LOCAL_PATH_PATTERN] == []


def _hostile_calls():
    for tool, name, _ in _path_arguments():
        if name != "snapshot_path":  # refused whatever its spelling; its rule is checked above
            for value in HOSTILE:
                yield tool, name, value


@pytest.mark.slow
def test_hostile_paths_are_refused_over_mcp_and_nothing_is_written(tmp_path):
    cmd = rea_command()
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "mcp"], env=clean_env(), cwd=str(tmp_path))

    async def main():
        replies = []
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                for tool, name, value in _hostile_calls():
                    # the tool's other required arguments from its first example, so the path is what is refused
                    example = (BY_NAME[tool].input_schema.get("examples") or [{}])[0]
                    result = await s.call_tool(tool, {**example, name: value})
                    replies.append((tool, name, value, result))
                alive = await s.call_tool("binary_session", {})
        return replies, alive

    replies, alive = anyio.run(main)
    assert alive.is_error is False
    for tool, name, value, result in replies:
        assert result.is_error is True, (tool, value)
        error = json.loads(result.content[0].text)["error"]
        assert error["code"] == "invalid_request", (tool, value, error)
        assert error["details"]["field"] == name
        assert "absolute local path" in error["details"]["accepted"]
        reason = "relative" if not value.startswith("/") else "bidirectional-override"
        assert reason in error["message"], error["message"]
        if not value.isprintable():
            assert value not in error["message"]  # shown escaped, never raw
        assert error["details"]["issues"][0]["path"] == [name]
    assert sorted(os.listdir(tmp_path)) == []


@pytest.mark.slow
def test_the_cli_resolves_a_relative_path_against_the_shell(tmp_path):
    """A person typing a relative path means their own directory: the CLI makes it absolute first."""
    run = subprocess.run(
        [*rea_command(), "call", "export_evidence_bundle", "--path", "bundle.json", "--format", "json"],
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=tmp_path,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr + run.stdout
    written = json.loads(run.stdout)["result"]
    assert written["path"] == str(tmp_path / "bundle.json")
    assert (tmp_path / "bundle.json").stat().st_size == written["bytes"]
