"""Android: inspect_android_package on a ~17 MB, 16-DEX APK against a bare androguard parse; warm class search.

1. The APK (built here: 16 DEX assembled by Debian smali from generated classes, manifest by aapt,
   an incompressible asset to reach ~17 MB) is read by the Android worker (`package`, in a child
   process, cold: interpreter, imports, parse, signatures) against a bare child doing
   `APK(path)` + `DEX()` of every classesN.dex. Target: <= 3x, worker peak RSS < 1 GiB.
   The bytecode scan of project_android_application_graph (`bridges`: every method's instructions of
   every DEX) is measured the same way, reported as a ratio to the bare parse.
2. search_android_classes through MCP after one cold query on the connection (the parsed program
   is cached per APK digest): median of 5 warm calls. Target: <= 200 ms.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from tests.benchmarks import ROOT, Row, median, verdict

BENCH = "android"
RATIO_TARGET = 3.0
SEARCH_TARGET_S = 0.2
DEXES, CLASSES, METHODS = 16, 400, 12

_BARE = r"""
import resource, sys, time
start = time.perf_counter()
from loguru import logger; logger.remove()
from androguard.core.apk import APK
from androguard.core.dex import DEX
apk = APK(sys.argv[1])
for name in apk.get_dex_names():
    DEX(apk.get_file(name))
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

_WORKER = r"""
import json, resource, subprocess, sys, time
start = time.perf_counter()
p = subprocess.Popen([sys.executable, "-m", "effects.android.worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
limits = {"max_apk_bytes": 1 << 30, "max_member_bytes": 256 << 20, "max_compression_ratio": 1000.0}
req = {"id": 1, "op": sys.argv[2], "path": sys.argv[1], "sha256": "x", "params": {"limits": limits, "max_calls": 10}}
out, _ = p.communicate(json.dumps(req).encode() + b"\n")
assert b'"ok"' in out, out[:300]
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def _smali(directory: Path, dex: int) -> None:
    for c in range(CLASSES):
        name = f"com/bench/d{dex}/C{c}"
        methods = "\n".join(
            f".method public m{m}(I)I\n    .registers 3\n    add-int/lit8 v0, p1, {m % 100}\n"
            f"    invoke-static {{}}, Lcom/bench/d{dex}/C{(c + 1) % CLASSES};->s()I\n    return v0\n.end method"
            for m in range(METHODS)
        )
        body = f".class public L{name};\n.super Ljava/lang/Object;\n{methods}\n"
        body += ".method public static s()I\n    .registers 1\n    const/4 v0, 1\n    return v0\n.end method\n"
        path = directory / f"{name}.smali"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)


def build(work: Path) -> Path:
    from tests import android_fixtures as fx

    apk = work / "big.apk"
    subprocess.run(
        [
            "aapt",
            "package",
            "-f",
            "-M",
            fx.FIXTURE / "AndroidManifest.xml",
            "-S",
            fx.FIXTURE / "res",
            "-I",
            fx.FRAMEWORK,
            "-F",
            apk,
        ],
        check=True,
        capture_output=True,
    )
    with zipfile.ZipFile(apk, "a", zipfile.ZIP_DEFLATED) as z:
        for d in range(DEXES):
            src = work / f"smali{d}"
            _smali(src, d)
            out = work / f"classes{d}.dex"
            subprocess.run(["smali", "assemble", "-o", out, src], check=True, capture_output=True)
            z.write(out, "classes.dex" if d == 0 else f"classes{d + 1}.dex")
        target = 17 * 1024 * 1024 - apk.stat().st_size
        z.writestr(zipfile.ZipInfo("assets/blob.bin"), random.Random(1).randbytes(max(target, 0)))
    return fx.sign(apk, work / "big-signed.apk", v4=False)


def _child(code: str, path: Path, *argv: str) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code, str(path), *argv], capture_output=True, text=True, env=env, check=True, cwd=ROOT
    )
    seconds, rss = out.stdout.split()
    return float(seconds), int(rss) / 1024


def _search(path: Path) -> list[float]:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "effects.cli", "mcp"], env=env, cwd=str(ROOT))

    async def main() -> list[float]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            await s.call_tool("search_android_classes", {"path": str(path), "query": ""})
            times = []
            for _ in range(5):
                start = time.perf_counter()
                r = await s.call_tool("search_android_classes", {"path": str(path), "query": "C39"})
                times.append(time.perf_counter() - start)
                assert not r.is_error and r.structured_content["normalized_result"]["total_classes"] == DEXES * CLASSES
            return times

    return anyio.run(main)


def run() -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="rea-bench-android-") as tmp:
        apk = build(Path(tmp))
        size = apk.stat().st_size / 1e6
        bare, bare_rss = median(_child(_BARE, apk)[0] for _ in range(3)), _child(_BARE, apk)[1]
        runs = [_child(_WORKER, apk, "package") for _ in range(3)]
        ours, rss = median(r[0] for r in runs), max(r[1] for r in runs)
        scans = [_child(_WORKER, apk, "bridges") for _ in range(3)]  # every method's instructions, every DEX
        scan, scan_rss = median(r[0] for r in scans), max(r[1] for r in scans)
        search = median(_search(apk))
    ratio = ours / bare
    return [
        Row(
            BENCH,
            f"inspect_android_package worker, {size:.1f} MB {DEXES}-DEX APK",
            ours,
            "s",
            "bare APK()+DEX()",
            bare,
            ratio,
            f"<= {RATIO_TARGET}x",
            verdict(ratio <= RATIO_TARGET),
        ),
        Row(
            BENCH,
            "worker peak RSS",
            rss,
            "MiB",
            "bare parse RSS",
            bare_rss,
            rss / bare_rss,
            "< 1024 MiB",
            verdict(rss < 1024),
        ),
        Row(
            BENCH,
            f"application-graph bytecode scan (worker, cold), peak RSS {scan_rss:.0f} MiB",
            scan,
            "s",
            "bare APK()+DEX()",
            bare,
            scan / bare,
            "reported",
        ),
        Row(
            BENCH,
            "search_android_classes warm (MCP, median of 5)",
            search,
            "s",
            target=f"<= {SEARCH_TARGET_S}s",
            status=verdict(search <= SEARCH_TARGET_S),
        ),
    ]


if __name__ == "__main__":
    for row in run():
        print(json.dumps(row.__dict__))
