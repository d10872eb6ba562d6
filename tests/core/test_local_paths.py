"""Host paths are absolute and plainly spelled, in every tool that takes one (issue 10, item 12).

A relative path would resolve against whatever directory the MCP client started us in;
control and bidirectional-override characters make a name read as something else.
"""

from __future__ import annotations

import copy
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
    "relative_path",  # inside a bundle
    "device_path",  # on an attached Android device (the adb tools)
    "logical_paths",  # inside an archive
    "logical_path",  # inside an archive (a compared change: correlate_static_and_runtime)
    "max_paths",  # a count
}
# a module path inside a retained record's view, spelled as the record observed it
# and where a decompiler wrote a method's source: recorded as the analyst gave it, never opened by REA
NOT_HOST_LOCATIONS = {
    ("inspect_analysis_view", ("view", "|", "selector", "|", "path")),
    ("import_managed_reconstruction", ("methods", 0, "reconstruction", "source_path")),
    # the reference's bundle-relative path of a keyed archive inside the open .app (default ".")
    ("inspect_keyed_archive", ("path",)),
}

HOSTILE = ["main", "ev_" + "f" * 64, "./x.json", "\u202eevil.json", "/tmp/a\u202egpj.exe", "/tmp/x\x00y", "/tmp/a\nb"]


# host paths whose name does not end in _path
OTHER_HOST_PATHS = {"output_directory", "source_root", "working_directory", "application_root"}


def _is_host_path_name(name: str) -> bool:
    named = name == "path" or name.endswith(("_path", "_paths")) or name in OTHER_HOST_PATHS
    return named and name not in NOT_HOST_PATHS


def _locations(schema, at=()):
    """(argument location, schema node) of every named property, nested objects, unions and arrays included.
    A location is a tuple of keys and list indexes; a ("|",) step marks a union branch chosen for it."""
    for name, prop in schema.get("properties", {}).items():
        yield (*at, name), prop
        yield from _locations(prop, (*at, name))
        for branch in prop.get("anyOf", ()):
            yield from _locations(branch, (*at, name, "|"))
        items = prop.get("items")
        if isinstance(items, dict):
            yield (*at, name, 0), items
            yield from _locations(items, (*at, name, 0))


def _path_arguments():
    for contract in CATALOG:
        for where, prop in _locations(contract.input_schema):
            named = isinstance(where[-1], str) and _is_host_path_name(where[-1])
            if named and (contract.name, where) not in NOT_HOST_LOCATIONS:
                yield contract.name, where, prop["items"] if where[-1].endswith("_paths") else prop


def _carriers():
    """Every (tool, location) whose schema carries the rule, wherever it sits."""
    for contract in CATALOG:
        for where, prop in _locations(contract.input_schema):
            if prop.get("pattern") == LOCAL_PATH_PATTERN:
                yield contract.name, where


def _pattern(prop):
    options = [prop, *prop.get("anyOf", ())]
    return next((o["pattern"] for o in options if "pattern" in o), None)


def _field(where) -> str:
    """The argument as a refusal names it: before.path, glue_paths[0]."""
    text = ""
    for step in where:
        if step != "|":
            text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text


def test_every_host_path_argument_carries_the_one_rule():
    found = {(t, w): p for t, w, p in _path_arguments()}
    assert set(found) >= {
        ("open_binary", ("path",)),
        ("export_evidence_bundle", ("path",)),
        ("import_evidence_bundle", ("path",)),
        ("analyze_javascript_application", ("input_path",)),
        ("recover_javascript_sources", ("output_directory",)),
        ("recover_javascript_sources", ("source_root",)),
        ("inspect_wasm_artifact", ("glue_paths",)),
        ("compare_web_screenshots", ("before", "|", "path")),
    }
    assert [(t, w) for (t, w), p in found.items() if _pattern(p) != LOCAL_PATH_PATTERN] == []
    # and nothing carries the rule under a name this test does not recognize as a host path
    carried = {(t, w[:-1] if w[-1] == 0 else w) for t, w in _carriers()}
    assert carried - set(found) == set()


def _with(example, where, value):
    """The example's arguments with `value` at `where` (a union branch starts from an empty object)."""
    args = copy.deepcopy(example)
    node = args
    steps = list(where)
    while len(steps) > 1:
        step = steps.pop(0)
        if steps[0] == "|":
            steps.pop(0)
            node[step] = {}
        elif isinstance(steps[0], int):
            node[step] = [None]
        else:
            node.setdefault(step, {})
        node = node[step]
    node[steps[0]] = value
    return args


def _hostile_calls():
    for tool, where, _ in _path_arguments():
        if where != ("snapshot_path",):  # refused whatever its spelling; its rule is checked above
            for value in HOSTILE:
                yield tool, (*where, 0) if where[-1].endswith("_paths") else where, value


@pytest.mark.slow
def test_hostile_paths_are_refused_over_mcp_and_nothing_is_written(tmp_path):
    cmd = rea_command()
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "mcp"], env=clean_env(), cwd=str(tmp_path))

    async def main():
        replies = []
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                for tool, where, value in _hostile_calls():
                    # the tool's other required arguments from its first example, so the path is what is refused
                    example = (BY_NAME[tool].input_schema.get("examples") or [{}])[0]
                    result = await s.call_tool(tool, _with(example, where, value))
                    replies.append((tool, where, value, result))
                alive = await s.call_tool("binary_session", {})
        return replies, alive

    replies, alive = anyio.run(main)
    assert alive.is_error is False
    assert {where for _, where, _, _ in replies} >= {
        ("path",),
        ("output_directory",),
        ("before", "|", "path"),
        ("glue_paths", 0),
    }
    for tool, where, value, result in replies:
        assert result.is_error is True, (tool, value)
        error = json.loads(result.content[0].text)["error"]
        assert error["code"] == "invalid_request", (tool, value, error)
        assert error["details"]["field"] == _field(where), (tool, where, error["details"])
        assert "absolute local path" in error["details"]["accepted"]
        reason = "relative" if not value.startswith("/") else "bidirectional-override"
        assert reason in error["message"], error["message"]
        if not value.isprintable():
            assert value not in error["message"]  # shown escaped, never raw
        steps, issue = [step for step in where if step != "|"], error["details"]["issues"][0]["path"]
        assert issue and steps[: len(issue)] == issue, (tool, where, issue)  # a union names its own argument
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
