"""What each toolset costs a model before its first call, read from a real `rea mcp` over stdio.

A host puts each listed tool's name, description and input schema into the model's context
(rea.catalog.toolsets.context_bytes: their compact JSON, UTF-8). For `all` and `triage` the
server is started with REA_MCP_TOOLSETS set, tools/list is read over the pipe, and the bytes
are summed from what the client received; every family's row is the same projection computed
in process (tests/core/test_toolsets.py checks that the server lists exactly it). Targets (issue 28): triage at most 48 KB (49,152
bytes) in at most 24 tools; the default catalog at most 1.5 KB (1,536 bytes) per tool on
average. Informational rows: every family's cost and the whole tools/list reply (output
schemas included), which hosts download but do not show the model.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from typing import Any

import orjson

from tests.benchmarks import Row, installed_env, verdict
from tests.benchmarks.bench_startup import PROTOCOL, _message, _reply, server_command

BENCH = "toolsets"
KB = 1024


def tools_list(toolset: str, pycache: str) -> tuple[list[dict[str, Any]], int]:
    """The tools/list of `rea mcp` under REA_MCP_TOOLSETS=toolset, and the reply's size in bytes."""
    cmd, _ = server_command()
    env = installed_env(pycache)
    env = {k: v for k, v in env.items() if not k.startswith("REA_")} | {"REA_MCP_TOOLSETS": toolset}
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        init = {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "rea-bench", "version": "0"}}
        proc.stdin.write(_message("initialize", 1, init))
        proc.stdin.flush()
        _reply(proc, 1)
        proc.stdin.write(_message("notifications/initialized") + _message("tools/list", 2, {}))
        proc.stdin.flush()
        result = _reply(proc, 2)
        return result["tools"], len(orjson.dumps(result))
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        proc.wait(timeout=30)
        if proc.stdout is not None:
            proc.stdout.close()


def run() -> list[Row]:
    from rea.catalog import toolsets

    rows: list[Row] = []
    from rea.catalog.projection import tool_definition

    with tempfile.TemporaryDirectory(prefix="rea-bench-pycache-") as pycache:
        measured = {name: tools_list(name, pycache) for name in toolsets.PROFILES}
    for name in toolsets.NAMES[len(toolsets.PROFILES) :]:
        tools = [tool_definition(c) for c in toolsets.select((name,)).contracts()]
        measured[name] = (tools, len(orjson.dumps({"tools": tools})))
    everything, reply_bytes = measured["all"]
    full = toolsets.context_bytes(everything)
    per_tool = full / len(everything)
    triage, _ = measured["triage"]
    triage_bytes = toolsets.context_bytes(triage)
    triage_ok = triage_bytes <= toolsets.TRIAGE_MAX_CONTEXT_BYTES and len(triage) <= toolsets.TRIAGE_MAX_TOOLS
    per_tool_ok = per_tool <= toolsets.CATALOG_MAX_CONTEXT_BYTES_PER_TOOL
    print(f"[{BENCH}] context bytes (name + description + inputSchema, compact JSON) per toolset, from tools/list:")
    for name, (tools, size) in measured.items():
        context = toolsets.context_bytes(tools)
        print(
            f"  {name:<11} {len(tools):>4} tools  {context / KB:>7.1f} KB context"
            f"  {context / len(tools):>6.0f} B/tool  tools/list {size / KB:>8.1f} KB"
        )
    rows.append(
        Row(
            BENCH,
            f"triage context ({len(triage)} tools)",
            triage_bytes / KB,
            "KB",
            "all",
            full / KB,
            triage_bytes / full,
            f"<={toolsets.TRIAGE_MAX_CONTEXT_BYTES // KB} KB, <={toolsets.TRIAGE_MAX_TOOLS} tools",
            verdict(triage_ok),
        )
    )
    rows.append(
        Row(
            BENCH,
            f"all: context per tool ({len(everything)} tools)",
            per_tool,
            "B",
            target=f"<={toolsets.CATALOG_MAX_CONTEXT_BYTES_PER_TOOL} B",
            status=verdict(per_tool_ok),
        )
    )
    rows.append(Row(BENCH, "all: context total", full / KB, "KB"))
    rows.append(Row(BENCH, "all: tools/list reply", reply_bytes / KB, "KB"))
    return rows


if __name__ == "__main__":
    from tests.benchmarks import table

    os.environ.pop("REA_MCP_TOOLSETS", None)
    print(table(run()))
    sys.exit(0)
