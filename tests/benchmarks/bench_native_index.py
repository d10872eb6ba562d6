"""The fast index through the real MCP server, cold cache, as ratios against `objdump -d` of the same file in
the same run.

Targets (issue 27): "where is this string referenced" (open_binary + search_strings) on busybox within 10x
objdump and on a large stripped Go executable within 5x; a cold dossier with pseudocode of one busybox function
(open_binary + analyze_function) within 30x; the index program's and the angr worker's peak RSS under 1 GiB on
the Go executable.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import anyio
import psutil

from tests.benchmarks import Row, verdict
from tests.benchmarks.bench_native import server
from tests.benchmarks.bench_native_go import _build

BENCH = "native_index"
BUSYBOX_STRING = "applet not found"
GO_STRING = "malformed HTTP"


def objdump_seconds(target: Path) -> float:
    start = time.perf_counter()
    subprocess.run(["objdump", "-d", str(target)], stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def _rss(marker: str) -> int:
    best = 0
    for proc in psutil.process_iter(["cmdline", "memory_info"]):
        if marker in (proc.info.get("cmdline") or []):
            best = max(best, proc.info["memory_info"].rss)
    return best


async def _peak(peak: dict[str, int]) -> None:
    while True:
        for marker in ("effects.native.indexer", "effects.native.worker"):
            peak[marker] = max(peak.get(marker, 0), _rss(marker))
        await anyio.sleep(0.1)


async def _measure(target: Path, pattern: str, dossier: bool) -> dict[str, float]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import stdio_client

    figures: dict[str, float] = {}
    peak: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as cache:
        async with anyio.create_task_group() as group:
            group.start_soon(_peak, peak)
            async with stdio_client(server(cache)) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                start = time.perf_counter()
                await s.call_tool("open_binary", {"path": str(target)})
                found = await s.call_tool("search_strings", {"pattern": pattern})
                figures["string_refs_s"] = time.perf_counter() - start
                rows = found.structured_content["normalized_result"] if not found.is_error else []
                referrers = [p for row in rows for p in row.get("referenced_by", ())]
                figures["referrers"] = len(referrers)
            if dossier and referrers:
                async with stdio_client(server(cache + "-cold")) as (read, write), ClientSession(read, write) as s:
                    await s.initialize()
                    start = time.perf_counter()
                    await s.call_tool("open_binary", {"path": str(target)})
                    reply = await s.call_tool("analyze_function", {"procedure": referrers[0]})
                    figures["dossier_s"] = time.perf_counter() - start
                    result = reply.structured_content["normalized_result"] if not reply.is_error else {}
                    figures["dossier_has_pseudocode"] = float(bool(result.get("pseudocode")))
                shutil.rmtree(cache + "-cold", ignore_errors=True)
            group.cancel_scope.cancel()
    figures["index_peak_mib"] = peak.get("effects.native.indexer", 0) / 2**20
    figures["worker_peak_mib"] = peak.get("effects.native.worker", 0) / 2**20
    return figures


def run() -> list[Row]:
    rows: list[Row] = []
    busybox = Path(shutil.which("busybox") or "/bin/busybox")
    if busybox.exists():
        base = objdump_seconds(busybox)
        f = anyio.run(_measure, busybox, BUSYBOX_STRING, True)
        print(f"  busybox: objdump -d {base:.2f} s; {f}")
        rows.append(
            Row(
                BENCH,
                "busybox: where is this string referenced (cold)",
                f["string_refs_s"],
                "s",
                "objdump -d",
                base,
                f["string_refs_s"] / base,
                "<=10x",
                verdict(f["string_refs_s"] / base <= 10 and f["referrers"] > 0),
            )
        )
        if "dossier_s" in f:
            rows.append(
                Row(
                    BENCH,
                    "busybox: cold dossier with pseudocode",
                    f["dossier_s"],
                    "s",
                    "objdump -d",
                    base,
                    f["dossier_s"] / base,
                    "<=30x",
                    verdict(f["dossier_s"] / base <= 30 and f.get("dossier_has_pseudocode") == 1.0),
                )
            )
    else:
        rows.append(Row(BENCH, "skipped: busybox missing", float("nan"), "", status="info"))
    if shutil.which("go"):
        with tempfile.TemporaryDirectory() as root:
            target = _build(Path(root))
            base = objdump_seconds(target)
            f = anyio.run(_measure, target, GO_STRING, False)
            size = target.stat().st_size / 1e6
            print(f"  Go {size:.1f} MB: objdump -d {base:.2f} s; {f}")
            rows.append(
                Row(
                    BENCH,
                    f"Go {size:.1f} MB: where is this string referenced (cold)",
                    f["string_refs_s"],
                    "s",
                    "objdump -d",
                    base,
                    f["string_refs_s"] / base,
                    "<=5x",
                    verdict(f["string_refs_s"] / base <= 5),
                )
            )
            peak = max(f["index_peak_mib"], f["worker_peak_mib"])
            rows.append(
                Row(BENCH, "Go: index/worker peak RSS", peak, "MiB", target="<1024 MiB", status=verdict(peak < 1024))
            )
    return rows


if __name__ == "__main__":
    from tests.benchmarks import table

    print(table(run()))
