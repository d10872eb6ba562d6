"""A stripped Go executable (built here with the Debian toolchain, `-ldflags=-s -w`) through the real
MCP server: the first binary_overview answers from pclntab without a CFG.

Targets (issue 11): first overview <= 30 s and worker peak RSS < 1 GiB. Baseline in the same run:
angr's bare CFGFast on the same file (what the first overview cost before it answered from metadata).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

from tests.benchmarks import Row, verdict
from tests.benchmarks.bench_native import ANGR_BASELINE, sample_peak, server

BENCH = "native-go"
PROGRAM = """package main

import (
\t"encoding/json"
\t"fmt"
\t"net/url"
\t"os"
\t"regexp"
)

func main() {
\tu, _ := url.Parse(os.Args[0])
\tb, _ := json.Marshal(map[string]any{"u": u.String(), "m": regexp.MustCompile("a+b").MatchString("aab")})
\tfmt.Println(string(b))
}
"""


def _build(root: Path) -> Path:
    (root / "main.go").write_text(PROGRAM)
    out = root / "gobench"
    env = {**os.environ, "GOCACHE": str(root / "cache"), "CGO_ENABLED": "0", "GOFLAGS": "-mod=mod"}
    subprocess.run(
        ["go", "build", "-ldflags=-s -w", "-o", str(out), str(root / "main.go")], env=env, check=True, timeout=900
    )
    return out


async def _measure(target: Path, cache: str) -> dict[str, float]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    figures: dict[str, float] = {}
    peak = [0]
    async with anyio.create_task_group() as group:
        group.start_soon(sample_peak, peak)
        async with stdio_client(server(cache)) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            start = time.perf_counter()
            await s.call_tool("open_binary", {"path": str(target)})
            overview = await s.call_tool("binary_overview", {})
            figures["first_overview_s"] = time.perf_counter() - start
            figures["procedures"] = overview.structured_content["normalized_result"]["procedure_count"]
        group.cancel_scope.cancel()
    figures["worker_peak_rss_mib"] = peak[0] / 2**20
    return figures


def run() -> list[Row]:
    with tempfile.TemporaryDirectory() as root, tempfile.TemporaryDirectory() as cache:
        target = _build(Path(root))
        size_mb = target.stat().st_size / 1e6
        figures = anyio.run(_measure, target, cache)
        bare = float(
            subprocess.run([sys.executable, "-c", ANGR_BASELINE, str(target)], capture_output=True, text=True)
            .stdout.strip()
            .splitlines()[-1]
        )
    f = figures
    print(f"  stripped Go binary: {size_mb:.1f} MB, {int(f['procedures'])} procedures from pclntab")
    print(f"  bare angr import + load + CFGFast: {bare:.2f} s")
    return [
        Row(
            BENCH,
            f"first binary_overview, {size_mb:.1f} MB stripped Go",
            f["first_overview_s"],
            "s",
            "bare angr CFGFast",
            bare,
            f["first_overview_s"] / bare,
            "<=30 s",
            verdict(f["first_overview_s"] <= 30),
        ),
        Row(
            BENCH,
            "worker peak RSS (first overview)",
            f["worker_peak_rss_mib"],
            "MiB",
            target="<1024 MiB",
            status=verdict(f["worker_peak_rss_mib"] < 1024),
        ),
    ]


if __name__ == "__main__":
    from tests.benchmarks import table

    print(table(run()))
