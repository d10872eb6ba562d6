"""Provider capability sets and server identity, as a real MCP client sees them over stdio."""

from __future__ import annotations

import importlib.metadata
import subprocess
import zipfile
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

import rea
from rea.native.providers import PROVIDER_EFFECTS
from rea.session_tools.programs.status import NATIVE_OPERATIONS
from support import clean_env, rea_command

pytestmark = pytest.mark.slow
CLIENT = types.Implementation(name="rea-capability-tests", version="7.7.7")


@asynccontextmanager
async def connect(**env: str):
    cmd = rea_command()
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "mcp"], env=clean_env(**env))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, client_info=CLIENT) as session:
            yield session, await session.initialize()


def _expanded(capability_set):
    """Each operation with its exact limitations: the shared prefix, then its group's suffix."""
    shared = capability_set["shared_limitations"]
    rows = {}
    for group in capability_set["groups"]:
        assert set(group["effects"]) <= set(PROVIDER_EFFECTS) and group["effects"] == sorted(set(group["effects"]))
        for op in group["operations"]:
            assert op not in rows, op  # every operation in exactly one group
            rows[op] = (group, [*shared, *group["limitations"]])
    return rows


def test_route_capabilities_candidates_and_server_identity(tmp_path):
    (tmp_path / "main.c").write_text("int main(void){return 0;}\n")
    subprocess.run(["gcc", "-o", str(tmp_path / "a.out"), str(tmp_path / "main.c")], check=True)
    with zipfile.ZipFile(tmp_path / "x.zip", "w") as z:
        z.writestr("x.txt", "x")

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path / "cache")) as (s, init):
            states = {"closed": (await s.call_tool("binary_session", {})).structured_content["result"]}
            await s.call_tool("open_binary", {"path": str(tmp_path / "a.out")})
            states["elf"] = (await s.call_tool("binary_session", {})).structured_content["result"]
            await s.call_tool("open_binary", {"path": str(tmp_path / "x.zip")})
            states["zip"] = (await s.call_tool("binary_session", {})).structured_content["result"]
            return init, states

    init, states = anyio.run(main)
    closed, elf, zipped = states["closed"], states["elf"], states["zip"]

    # the current route: the configured default with nothing open, the binding once bound, none for a zip
    for state in (closed, elf):
        (route,) = state["capabilities"]
        assert route["provider"] == state["provider"] and state["providers"] == [state["provider"]]
        rows = _expanded(route)
        assert sorted(rows) == sorted(NATIVE_OPERATIONS)
        assert rows["list_procedures"][0]["available"] and rows["analyze_function"][0]["available"]
        assert not rows["current_address"][0]["available"] and "headless" in rows["current_address"][0]["reason"]
        assert rows["procedure_pseudo_code"][1][0] == rows["list_segments"][1][0] == route["shared_limitations"][0]
        assert any("decompiler" in text for text in rows["procedure_pseudo_code"][1])
        assert not any("decompiler" in text for text in rows["list_segments"][1])
    assert elf["provider"] == elf["analysis_provider_binding"]["provider"]
    assert zipped["capabilities"] == [] and zipped["providers"] == []

    # candidates describe; they do not select
    for state in (closed, elf, zipped):
        for candidate in state["analysis_provider_candidates"]:
            (capability_set,) = candidate["capabilities"]
            assert capability_set["provider"] == candidate["provider"]
            rows = _expanded(capability_set)
            assert sorted(rows) == sorted(NATIVE_OPERATIONS)
            if candidate["availability"]["status"] == "unavailable":
                assert all(not g["available"] for g, _ in rows.values())
                assert {g["availability_code"] for g, _ in rows.values()} == {candidate["availability"]["code"]}

    # tool availability agrees with the route's capability facts
    tools = {n: g for g in elf["tool_availability"]["groups"] for n in g["names"]}
    assert tools["current_address"]["reason"] == "provider_unavailable"
    assert tools["get_navigation_context"]["modes"][0]["name"] == "current_selection"

    identity = closed["server_identity"]
    sdk = importlib.metadata.version("mcp")
    assert identity["package"]["name"] == "rea-py" and identity["package"]["version"] == rea.__version__
    assert Path(identity["package"]["root_path"]) == Path(rea.__file__).resolve().parents[1]
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=Path(rea.__file__).parent)
    if head.returncode == 0:
        assert identity["package"]["build_commit"] == head.stdout.strip()
    assert identity["server"]["name"] == "rea" and identity["server"]["version"] == rea.__version__
    assert identity["server"]["transport"] == "mcp" and Path(identity["server"]["command_path"]).is_absolute()
    assert identity["sdk"] == {"server": sdk, "client_test": sdk, "core": sdk, "name": "mcp", "version": sdk}
    assert identity["negotiated_protocol_version"] == str(init.protocol_version)
    assert identity["client"] == {"name": CLIENT.name, "version": CLIENT.version}
    assert init.server_info.name == identity["server"]["name"]
    assert identity["catalog"]["counts"]["mcp_tools"] == len(NATIVE_OPERATIONS) + sum(
        1 for g in closed["tool_availability"]["groups"] for n in g["names"] if n not in NATIVE_OPERATIONS
    )
