"""Toolsets (REA_MCP_TOOLSETS, `rea mcp --toolsets`, `rea setup --toolsets`): what the catalog
projection selects, what a real MCP stdio client sees and may call, and what `rea setup` writes."""

from __future__ import annotations

import json
import subprocess
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from rea.catalog import CATALOG, FAMILIES, FAMILY_OF, toolsets
from rea.catalog.projection import tool_definition
from support import clean_env, rea_command

TRIAGE_FAMILIES = {"session", "native", "layout", "artifacts", "javascript", "android", "managed", "wasm", "web"}


def test_every_catalog_tool_has_a_family_and_every_family_is_a_toolset():
    assert set(FAMILY_OF) == {c.name for c in CATALOG}
    assert toolsets.NAMES == ("all", "triage", *FAMILIES)
    for family in FAMILIES:
        selected = toolsets.select((family,))
        assert {n for n, f in FAMILY_OF.items() if f == family} <= selected.tools
        assert toolsets.ALWAYS_TOOLS <= selected.tools  # the session family's tools are in every selection
        if family not in ("session", "views"):
            assert "inspect_analysis_view" in selected.tools  # a family's summaries point to it
            assert selected.tools - toolsets.ALWAYS_TOOLS - {"inspect_analysis_view"} == {
                n for n, f in FAMILY_OF.items() if f == family
            }


def _context(selection: toolsets.Selection) -> int:
    return toolsets.context_bytes(tool_definition(c) for c in selection.contracts())


def test_triage_is_a_first_look_at_every_kind_of_target_within_its_budget():
    triage = toolsets.select(("triage",))
    assert len(triage.tools) <= toolsets.TRIAGE_MAX_TOOLS
    assert _context(triage) <= toolsets.TRIAGE_MAX_CONTEXT_BYTES
    assert {FAMILY_OF[n] for n in triage.tools} == TRIAGE_FAMILIES
    # string -> references -> function, and the entry tool of each kind of target
    assert {"open_binary", "binary_session", "search_strings", "xrefs", "analyze_function"} <= triage.tools
    assert {"inspect_android_package", "inspect_managed_artifact", "inspect_wasm_artifact"} <= triage.tools
    assert {
        "inspect_binary_layout",
        "inspect_macho",
        "inspect_artifact",
        "analyze_javascript_application",
    } <= triage.tools
    assert {"list_browser_targets", "inspect_web_page", "inspect_web_network_capture"} <= triage.tools


def _served(selection: toolsets.Selection) -> list[dict]:
    """tools/list as the server builds it (effects.server._tools), dumped as the SDK sends it."""
    from effects.server import _tools

    return [t.model_dump(by_alias=True, exclude_none=True) for t in _tools("full", selection)]


def test_the_served_tools_list_meets_the_context_targets():
    """Issue 28's targets, measured on the tools/list the server serves: the default catalog at most 1.5 KB
    (1,536 bytes) a tool on average, the triage toolset at most 48 KB. A tool that outgrows its share, or a
    projection that stops sharing, fails here with the largest tools named."""
    everything = _served(toolsets.ALL)
    assert [t["name"] for t in everything] == [c.name for c in CATALOG]
    total = toolsets.context_bytes(everything)
    largest = sorted((toolsets.context_bytes([t]), t["name"]) for t in everything)[-5:]
    assert total <= toolsets.CATALOG_MAX_CONTEXT_BYTES_PER_TOOL * len(everything), (total / len(everything), largest)
    triage = _served(toolsets.select(("triage",)))
    assert toolsets.context_bytes(triage) <= toolsets.TRIAGE_MAX_CONTEXT_BYTES
    assert total == _context(toolsets.ALL)  # `rea toolsets` and the docs measure the same projection


def test_context_bytes_is_the_compact_json_of_name_description_and_input_schema():
    definition = tool_definition(CATALOG[0])
    text = json.dumps(
        {
            "name": definition["name"],
            "description": definition["description"],
            "inputSchema": definition["inputSchema"],
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )
    assert toolsets.context_bytes([definition]) == len(text.encode())


def test_the_refusal_and_its_remediation():
    triage = toolsets.select(("triage",))
    error = toolsets.excluded("inspect_android_method", triage).to_json()["error"]
    assert error["code"] == "capability_unavailable" and error["details"]["reason"] == "toolset_excluded"
    assert error["details"]["toolsets"] == ["android", "all"]
    assert error["details"]["active_toolsets"] == ["triage"]
    assert "REA_MCP_TOOLSETS=triage,android" in error["remediation"]["action"]
    assert "--toolsets triage,android" in error["remediation"]["action"]
    # a triage tool's owners: its family, then triage, then all
    assert toolsets.toolsets_with("inspect_wasm_artifact") == ("wasm", "triage", "all")


def test_rea_toolsets_lists_each_toolset_with_its_cost(capsys):
    from effects.commandline import main

    assert main(["toolsets", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    rows = {r["name"]: r for r in listing["toolsets"]}
    assert list(rows) == list(toolsets.NAMES) and listing["variable"] == "REA_MCP_TOOLSETS"
    for name, row in rows.items():
        selected = toolsets.select((name,))
        assert set(row["tools"]) == selected.tools and row["tool_count"] == len(selected.tools)
        assert row["context_bytes"] == _context(selected)
    assert main(["toolsets"]) == 0
    text = capsys.readouterr().out
    assert "triage" in text and "inspect_wasm_artifact" in text


def test_doctor_checks_the_variable(tmp_path):
    from effects.doctor import doctor_report

    def check(value: str) -> dict:
        report = doctor_report({"HOME": str(tmp_path), "REA_MCP_TOOLSETS": value})
        return next(c for c in report["checks"] if c["name"] == "setting REA_MCP_TOOLSETS")

    assert check("triage, android")["status"] == "ok" and "triage,android" in check("triage, android")["detail"]
    bad = check("triage,bogus")
    assert bad["status"] == "invalid" and all(name in bad["detail"] for name in toolsets.NAMES)


# ------------------------------------------------------------------ a real MCP stdio client


@asynccontextmanager
async def connect(*args: str, **env: str):
    cmd = rea_command()
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "mcp", *args], env=clean_env(**env))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def _body(result) -> dict:
    return json.loads(result.content[0].text)


@pytest.mark.slow
def test_a_client_sees_exactly_the_triage_tools_and_may_call_only_those():
    async def main():
        async with connect(REA_MCP_TOOLSETS="triage") as s:
            tools = [t.model_dump(by_alias=True, exclude_none=True) for t in (await s.list_tools()).tools]
            session = await s.call_tool("binary_session", {})
            inside = await s.call_tool("inspect_binary_layout", {"path": "/usr/bin/true", "detail": "summary"})
            outside = await s.call_tool(
                "inspect_android_method", {"path": "/x.apk", "class_name": "A", "method_name": "b"}
            )
            unknown = await s.call_tool("no_such_tool", {})
            return tools, session, inside, outside, unknown

    tools, session, inside, outside, unknown = anyio.run(main)
    triage = toolsets.select(("triage",))
    assert {t["name"] for t in tools} == triage.tools
    from effects.server import _tools

    assert tools == [t.model_dump(by_alias=True, exclude_none=True) for t in _tools("full", triage)]
    assert toolsets.context_bytes(tools) <= toolsets.TRIAGE_MAX_CONTEXT_BYTES  # measured on what the client read

    result = session.structured_content["result"]
    assert result["toolsets"] == {
        "selected": ["triage"],
        "exposed_tools": len(triage.tools),
        "excluded_tools": len(CATALOG) - len(triage.tools),
        "accepted": list(toolsets.NAMES),
    }
    availability = result["tool_availability"]
    assert availability["total"] == len(CATALOG)
    left_out = {n for g in availability["groups"] if g["reason"] == "toolset_excluded" for n in g["names"]}
    assert left_out == set(FAMILY_OF) - triage.tools

    assert inside.is_error is False and inside.structured_content["operation"] == "inspect_analysis_view"
    assert outside.is_error is True and outside.structured_content is None
    refused = _body(outside)["error"]
    assert refused["code"] == "capability_unavailable" and refused["details"]["toolsets"][0] == "android"
    assert "REA_MCP_TOOLSETS=triage,android" in refused["remediation"]["action"]
    assert outside.meta == {"provenance": {"untrusted_content": True, "source": "analysis_target"}}
    assert unknown.is_error is True and _body(unknown)["error"]["code"] != "capability_unavailable"


@pytest.mark.slow
def test_a_client_reads_the_default_catalog_within_its_context_target():
    async def main():
        async with connect() as s:
            return [t.model_dump(by_alias=True, exclude_none=True) for t in (await s.list_tools()).tools]

    tools = anyio.run(main)
    assert len(tools) == len(CATALOG)
    per_tool = toolsets.context_bytes(tools) / len(tools)  # measured on what the client read
    assert per_tool <= toolsets.CATALOG_MAX_CONTEXT_BYTES_PER_TOOL, per_tool


@pytest.mark.slow
def test_the_flag_selects_families_and_overrides_the_variable():
    async def main():
        async with connect("--toolsets", "wasm, layout", REA_MCP_TOOLSETS="triage") as s:
            names = {t.name for t in (await s.list_tools()).tools}
            session = await s.call_tool("binary_session", {})
            excluded = await s.call_tool("binary_overview", {})
            return names, session, excluded

    names, session, excluded = anyio.run(main)
    wanted = toolsets.select(("wasm", "layout"))
    assert names == wanted.tools and "inspect_analysis_view" in names and "binary_overview" not in names
    assert session.structured_content["result"]["toolsets"]["selected"] == ["wasm", "layout"]
    assert _body(excluded)["error"]["details"]["toolsets"] == ["native", "triage", "all"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "env", "named"),
    [
        ((), {"REA_MCP_TOOLSETS": "triage,bogus"}, b"REA_MCP_TOOLSETS"),
        (("--toolsets", "Native"), {}, b"--toolsets"),
    ],
)
def test_a_bad_toolset_stops_the_server_naming_the_valid_ones(args, env, named):
    proc = subprocess.run(
        [*rea_command(), "mcp", *args], env=clean_env(**env), input=b"", capture_output=True, timeout=60
    )
    assert proc.returncode == 2 and proc.stdout == b""
    assert named in proc.stderr
    assert all(name.encode() in proc.stderr for name in toolsets.NAMES)


# ------------------------------------------------------------------ rea setup --toolsets


def _rea(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = clean_env(HOME=str(home))
    for variable in ("XDG_CONFIG_HOME", "CODEX_HOME", "APPDATA", "USERPROFILE"):
        env.pop(variable, None)
    return subprocess.run(
        [*rea_command(), *args, "--json"],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


@pytest.mark.slow
def test_setup_registers_keeps_and_resets_a_toolset(tmp_path):
    home = tmp_path / "home"
    (home / ".cursor").mkdir(parents=True)
    config = home / ".cursor" / "mcp.json"

    def entry() -> dict:
        return json.loads(config.read_text())["mcpServers"]["rea"]

    done = _rea(home, "setup", "--client", "cursor", "--toolsets", "triage, android", "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["toolsets"] == "triage,android"
    assert report["expected_command"][-3:] == ["mcp", "--toolsets", "triage,android"]
    assert entry() == {"command": report["expected_command"][0], "args": report["expected_command"][1:]}
    doctor = json.loads(_rea(home, "doctor").stdout)["client_registrations"]["registrations"]
    assert [(r["client"], r["state"]) for r in doctor] == [("cursor", "aligned")]

    kept = json.loads(_rea(home, "setup", "--client", "cursor", "--yes").stdout)
    assert kept["mode"] == "nothing_to_do" and entry()["args"][-2:] == ["--toolsets", "triage,android"]

    reset = json.loads(_rea(home, "setup", "--client", "cursor", "--toolsets", "all", "--yes").stdout)
    assert reset["mode"] == "applied" and entry()["args"] == reset["expected_command"][1:]
    assert "--toolsets" not in entry()["args"]

    bad = _rea(home, "setup", "--client", "cursor", "--toolsets", "triage,nope", "--yes")
    assert bad.returncode == 2
    error = json.loads(bad.stdout)["error"]
    assert error["code"] == "configuration_invalid" and error["details"]["toolsets"] == list(toolsets.NAMES)
    assert "--toolsets" not in entry()["args"]  # nothing written
