"""`rea call TOOL`: flags derived from every tool's input schema, real calls through a subprocess."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from artifact_fixtures import make_zip
from effects.call_command import RESERVED, flags_for, plan, tool_parser
from rea.catalog import BY_NAME, CATALOG
from support import clean_env, rea_command

SOURCE = Path(__file__).parents[1] / "fixtures" / "sample.c"


@pytest.mark.parametrize("contract", CATALOG, ids=lambda c: c.name)
def test_flags_derive_for_every_tool(contract):
    flags = flags_for(contract.input_schema)
    assert [f.name for f in flags] == list(contract.input_schema.get("properties", {}))
    assert {f.name for f in flags if f.required} == set(contract.input_schema.get("required", ()))
    for flag in flags:
        assert flag.option == ("--arg-" if flag.name in RESERVED else "--") + flag.name.replace("_", "-")
        prop = contract.input_schema["properties"][flag.name]
        if prop.get("type") == "boolean":
            assert flag.kind == "boolean"
        if isinstance(prop.get("enum"), list):
            assert flag.kind == "enum" and list(flag.choices) == prop["enum"]
        if prop.get("type") in ("object", "array"):
            assert flag.kind == "json"
    help_text = tool_parser(contract).format_help()
    assert all(f.option in help_text for f in flags)


def test_flag_values_become_typed_arguments():
    p = plan(["search_strings", "--pattern", "hello", "--no-case-sensitive", "--limit", "3", "--json"])
    assert p.fmt == "json"
    steps = p.command.unwrap().steps(None)
    assert steps == [("search_strings", {"pattern": "hello", "case_sensitive": False, "limit": 3})]
    p = plan(["batch_decompile", "--target", "/bin/true", "--addresses", '["main"]', "--json-args", '{"x": 1}'])
    assert p.command.unwrap().steps(None) == [
        ("open_binary", {"path": "/bin/true", "provider_id": "auto"}),
        ("batch_decompile", {"x": 1, "addresses": ["main"]}),
    ]
    js = plan(["analyze_javascript_application", "--input_path", "/app", "--arg-format", "directory"])
    assert js.command.unwrap().steps(None) == [
        ("analyze_javascript_application", {"input_path": "/app", "format": "directory"})
    ]


@pytest.mark.parametrize(
    "argv, field",
    [
        (["list_procedures", "--limit", "many"], "limit"),
        (["analyze_javascript_application", "--detail", "everything"], "detail"),
        (["compare_functions", "--left", "{not json"], "left"),
        (["list_procedures", "--colour", "red"], "arguments"),
        (["no_such_tool"], "tool"),
        (["list_procedures", "--provider", "angr"], "provider"),
        (["list_procedures", "--json-args", "[1]"], "json_args"),
    ],
)
def test_bad_flags_are_canonical_errors(argv, field):
    error = plan(argv).command.failure()
    assert error.code == "invalid_request" and error.details["field"] == field


def rea(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*rea_command(), *args], capture_output=True, text=True, env=clean_env(), timeout=timeout)


@pytest.fixture(scope="module")
def binary(tmp_path_factory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    out = tmp_path_factory.mktemp("call") / "sample"
    subprocess.run(["gcc", "-O0", "-o", str(out), str(SOURCE)], check=True, capture_output=True)
    return out


@pytest.mark.slow
def test_native_tools_through_rea_call(binary):
    listed = rea("call", "list_procedures", "--target", str(binary), "--json")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    evidence = json.loads(listed.stdout)
    assert evidence["operation"] == "list_procedures"
    assert {"main", "compute", "dispatch"} <= {row["value"] for row in evidence["normalized_result"]}
    text = rea("call", "procedure_pseudo_code", "--target", str(binary), "--procedure", "compute")
    assert text.returncode == 0 and text.stdout.startswith("procedure_pseudo_code ev_")
    missing = rea("call", "list_procedures", "--json")  # no target: the tool's own canonical error
    assert missing.returncode == 1 and json.loads(missing.stdout)["error"]["code"] == "target_unavailable"
    bad = rea("call", "analyze_function", "--target", str(binary), "--limit", "lots", "--json")
    assert bad.returncode == 2 and json.loads(bad.stdout)["error"]["details"]["field"] == "limit"
    unknown_arg = rea("call", "analyze_function", "--target", str(binary), "--json-args", '{"colour": 1}', "--json")
    assert unknown_arg.returncode == 2 and json.loads(unknown_arg.stdout)["error"]["code"] == "invalid_request"


@pytest.mark.slow
def test_artifact_and_session_tools_through_rea_call(tmp_path):
    archive = make_zip(tmp_path / "app.zip", {"a.txt": b"alpha\n", "lib/b.bin": b"\x00\x01"})
    inspected = rea("call", "inspect_artifact", "--target", str(archive), "--json")
    assert inspected.returncode == 0, inspected.stdout + inspected.stderr
    assert json.loads(inspected.stdout)["operation"] == "inspect_artifact"
    session = json.loads(rea("call", "binary_session", "--format", "json").stdout)
    assert session["result"]["open"] is False
    tools = rea("tools", "--json")
    assert [t["name"] for t in json.loads(tools.stdout)["tools"]] == sorted(BY_NAME)
    assert rea("call", "--list").stdout == rea("tools").stdout
    helped = rea("call", "list_procedures", "--help")
    assert helped.returncode == 0 and "--limit INT" in helped.stdout and "--target PATH" in helped.stdout
