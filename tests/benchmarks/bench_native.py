"""The embedded angr provider through the real MCP server, on /usr/bin/ls.

Targets: cold binary_overview <= 3 s (answered from the binary's metadata; the CFG starts
with the first caller question); reopen from the analysis cache <= 1 s;
warm inventory queries <= 50 ms; a warm dossier (analyze_function p50 once the
engine holds the CFG) <= 2 s on mid-size functions; worker peak RSS reported. Baselines in the same run: the cold
overview, the reopen and the warm dossier are compared with angr's own CFGFast in a bare process, and the
warm query with a binary_session round trip (transport cost alone).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
import psutil

from tests.benchmarks import ROOT, Row, median, verdict

BENCH = "native"
TARGET = Path("/usr/bin/ls")
ANGR_BASELINE = """
import logging, sys, time
logging.disable(logging.CRITICAL)
start = time.perf_counter()
import angr
p = angr.Project(sys.argv[1], auto_load_libs=False)
p.analyses.CFGFast(normalize=True, data_references=True, show_progressbar=False)
print(time.perf_counter() - start)
"""


def server(cache: str) -> Any:
    """`rea mcp` of this checkout (not whatever `rea` is installed), with its own analysis cache."""
    from mcp.client.stdio import StdioServerParameters

    env = {**os.environ, "REA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
    return StdioServerParameters(command=sys.executable, args=["-m", "effects.cli", "mcp"], env=env)


async def sample_peak(peak: list[int]) -> None:
    """Keep peak[0] at the largest worker RSS seen, every 200 ms, until cancelled."""
    while True:
        peak[0] = max(peak[0], _worker_rss())
        await anyio.sleep(0.2)


def _worker_rss() -> int:
    best = 0
    for proc in psutil.process_iter(["cmdline", "memory_info"]):
        if "effects.native.worker" in (proc.info.get("cmdline") or []):
            best = max(best, proc.info["memory_info"].rss)
    return best


async def _measure(cache: str) -> dict[str, float]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    figures: dict[str, float] = {}
    peak = [0]
    async with anyio.create_task_group() as group:
        group.start_soon(sample_peak, peak)
        async with stdio_client(server(cache)) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            await s.call_tool("open_binary", {"path": str(TARGET)})
            start = time.perf_counter()
            overview = await s.call_tool("binary_overview", {})
            figures["cold_overview_s"] = time.perf_counter() - start
            result = overview.structured_content["normalized_result"]
            warm = []
            for _ in range(20):
                start = time.perf_counter()
                await s.call_tool("procedure_callees", {"procedure": result["entry"]})
                warm.append(time.perf_counter() - start)
            figures["warm_query_s"] = median(warm)
            session = []
            for _ in range(20):
                start = time.perf_counter()
                await s.call_tool("binary_session", {})
                session.append(time.perf_counter() - start)
            figures["session_roundtrip_s"] = median(session)
            procs = await s.call_tool("list_procedures", {"limit": 500})
            items = procs.structured_content["normalized_result"]
            mid = sorted(
                (p for p in items if p["kind"] == "function" and 150 <= p["size"] <= 600), key=lambda p: p["address"]
            )[:7]
            timings = []
            for proc in mid:
                start = time.perf_counter()
                await s.call_tool("analyze_function", {"procedure": proc["address"]})
                timings.append(time.perf_counter() - start)
            figures["analyze_function_p50_s"] = median(timings) if timings else float("nan")
            figures["analyze_function_n"] = len(timings)
        group.cancel_scope.cancel()
    figures["worker_peak_rss_mib"] = peak[0] / 2**20
    async with stdio_client(server(cache)) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            await s.list_tools()  # what every agent does on connecting (bench_startup measures it)
            start = time.perf_counter()
            await s.call_tool("open_binary", {"path": str(TARGET)})
            await s.call_tool("binary_overview", {})
            figures["reopen_cached_s"] = time.perf_counter() - start
    return figures


def run() -> list[Row]:
    if not TARGET.exists():
        return [Row(BENCH, "skipped: /usr/bin/ls missing", float("nan"), "", status="info")]
    with tempfile.TemporaryDirectory() as cache:
        figures = anyio.run(_measure, cache)
    bare = float(
        subprocess.run([sys.executable, "-c", ANGR_BASELINE, str(TARGET)], capture_output=True, text=True, check=True)
        .stdout.strip()
        .splitlines()[-1]
    )
    for key, value in figures.items():
        print(f"  {key}: {value:.3f}")
    print(f"  bare angr import + load + CFGFast: {bare:.2f} s")
    f = figures
    return [
        Row(
            BENCH,
            "cold binary_overview /usr/bin/ls",
            f["cold_overview_s"],
            "s",
            "bare angr",
            bare,
            f["cold_overview_s"] / bare,
            "<=3 s",
            verdict(f["cold_overview_s"] <= 3),
        ),
        Row(
            BENCH,
            "reopen + overview from cache",
            f["reopen_cached_s"],
            "s",
            "bare angr",
            bare,
            f["reopen_cached_s"] / bare,
            "<=1 s",
            verdict(f["reopen_cached_s"] <= 1),
        ),
        Row(
            BENCH,
            "warm procedure_callees (median)",
            f["warm_query_s"] * 1000,
            "ms",
            "binary_session",
            f["session_roundtrip_s"] * 1000,
            f["warm_query_s"] / f["session_roundtrip_s"],
            "<=50 ms",
            verdict(f["warm_query_s"] <= 0.05),
        ),
        Row(
            BENCH,
            f"warm dossier: analyze_function p50 ({int(f['analyze_function_n'])} fns, 150-600 B)",
            f["analyze_function_p50_s"],
            "s",
            "bare angr",
            bare,
            f["analyze_function_p50_s"] / bare,
            "<=2 s",
            verdict(f["analyze_function_p50_s"] <= 2),
        ),
        Row(BENCH, "worker peak RSS", f["worker_peak_rss_mib"], "MiB", status="info"),
    ]


if __name__ == "__main__":
    from tests.benchmarks import table

    print(table(run()))
