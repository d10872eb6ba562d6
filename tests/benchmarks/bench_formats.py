"""Binary formats (issue 13): inspect_macho's summary on a Go-built Mach-O against a bare lief parse, and
inspect_wasm_artifact on a generated ~13 MB module against a bare `wasm-objdump -x`, then a 64 KiB WAT page.

Each measurement runs in a fresh child (this checkout, in process through effects.calls, median of the
repeats) so the figures are ratios against a baseline taken in the same run on the same machine.
Targets: macho summary within 1.5x lief; wasm summary within 60 s and 800 MiB peak RSS (REA's process;
wasm2wat is a child with its own), any 64 KiB WAT page within 200 ms.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.benchmarks import ROOT, Row, verdict
from tests.benchmarks.bench_native_go import PROGRAM

BENCH = "formats"
REPEAT = 5

_MACHO = r"""
import anyio, json, statistics, sys, time
import lief
from effects.calls import Connection, call_tool
from effects.environment import load_context
path = sys.argv[1]
lief.logging.disable()

def bare():
    start = time.perf_counter()
    lief.MachO.parse(path)
    return time.perf_counter() - start

async def summary():
    conn = Connection(ctx=load_context("cli").unwrap())
    start = time.perf_counter()
    (await call_tool(conn, "open_binary", {"path": path}, None)).unwrap()
    opened = time.perf_counter()
    (await call_tool(conn, "inspect_macho", {"detail": "summary"}, None)).unwrap()
    return opened - start, time.perf_counter() - opened

anyio.run(summary)  # the family's imports, loaded once
runs = [anyio.run(summary) for _ in range(int(sys.argv[2]))]
base = statistics.median(bare() for _ in range(int(sys.argv[2])))
rea = statistics.median(r[1] for r in runs)
print(json.dumps({"rea": rea, "with_open": statistics.median(r[0] + r[1] for r in runs), "lief": base}))
"""

_WASM = r"""
import anyio, json, resource, statistics, sys, time
from effects.calls import Connection, call_tool
from effects.environment import load_context
path = sys.argv[1]

async def main():
    conn = Connection(ctx=load_context("cli").unwrap())
    start = time.perf_counter()
    reply = (await call_tool(conn, "inspect_wasm_artifact", {"path": path, "detail": "summary"}, None)).unwrap()
    took = time.perf_counter() - start
    nr = reply["normalized_result"]
    ref = {"kind": "retained-evidence", "evidence_id": nr["parent_evidence_id"]}
    total = nr["summary"]["wat"]["utf16_length"]
    pages = []
    for k in range(1, 6):
        view = {"kind": "wasm", "facet": "wat", "offset": total * k // 6, "limit": 65536}
        t0 = time.perf_counter()
        page = (await call_tool(conn, "inspect_analysis_view", {"source": ref, "view": view}, None)).unwrap()
        pages.append(time.perf_counter() - t0)
        assert len(page["normalized_result"]["item"]["text"]) > 60000
    return took, statistics.median(pages[1:]), pages[0], total

took, page, worst, total = anyio.run(main)
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"summary": took, "page": page, "first_page": worst, "wat_units": total, "rss_mib": rss}))
"""


def _uleb(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _section(kind: int, payload: bytes) -> bytes:
    return bytes([kind]) + _uleb(len(payload)) + payload


def make_module(path: Path, size: int = 13_000_000) -> int:
    """Functions of 24 nested blocks around 40 `i32.const 1; drop`: code whose WAT is ~35x its bytes."""
    core = b"\x02\x40" * 24 + b"\x41\x01\x1a" * 40 + b"\x0b" * 24
    body = b"\x00" + core + b"\x0b"
    body = _uleb(len(body)) + body
    count = size // len(body)
    module = b"\0asm\x01\0\0\0" + _section(1, _uleb(1) + b"\x60\x00\x00")
    module += _section(3, _uleb(count) + b"\x00" * count) + _section(10, _uleb(count) + body * count)
    path.write_bytes(module)
    return len(module)


def _go_macho(root: Path) -> Path:
    (root / "main.go").write_text(PROGRAM)
    (root / "go.mod").write_text("module example.com/gobench\n\ngo 1.19\n")
    out = root / "gobench-darwin"
    env = {**os.environ, "GOCACHE": str(root / "cache"), "CGO_ENABLED": "0", "GOOS": "darwin", "GOARCH": "amd64"}
    subprocess.run(["go", "build", "-o", str(out), "."], cwd=root, env=env, check=True, timeout=900)
    return out


def _child(script: str, *args: str, env: dict[str, str] | None = None) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _macho_rows(root: Path) -> list[Row]:
    if shutil.which("go") is None:
        return [Row(BENCH, "inspect_macho summary", float("nan"), "", status="skipped: no Go toolchain")]
    binary = _go_macho(root)
    got = _child(_MACHO, str(binary), str(REPEAT))
    mb = binary.stat().st_size / 1e6
    return [
        Row(
            BENCH,
            label,
            got[key] * 1000,
            "ms",
            baseline="lief.MachO.parse",
            baseline_value=got["lief"] * 1000,
            ratio=got[key] / got["lief"],
            target="<= 1.5x",
            status=verdict(got[key] / got["lief"] <= 1.5),
        )
        for key, label in (
            ("rea", f"inspect_macho summary (target open), {mb:.1f} MB Go Mach-O"),
            ("with_open", "open_binary + inspect_macho summary"),
        )
    ]


def _wasm_rows(root: Path) -> list[Row]:
    if shutil.which("wasm2wat") is None:
        return [Row(BENCH, "inspect_wasm_artifact summary", float("nan"), "", status="skipped: no WABT")]
    module = root / "big.wasm"
    size = make_module(module)
    start = _now()
    subprocess.run(["wasm-objdump", "-x", str(module)], stdout=subprocess.DEVNULL, check=True)
    objdump = _now() - start
    got = _child(_WASM, str(module), env={"REA_CACHE_DIR": str(root / "cache")})
    label = f"{size / 1e6:.1f} MB module, {got['wat_units'] / 1e6:.0f} M WAT units"
    return [
        Row(
            BENCH,
            f"inspect_wasm_artifact summary, {label}",
            got["summary"],
            "s",
            baseline="wasm-objdump -x",
            baseline_value=objdump,
            ratio=got["summary"] / objdump,
            target="<= 60 s",
            status=verdict(got["summary"] <= 60),
        ),
        Row(
            BENCH,
            "peak RSS (REA process)",
            got["rss_mib"],
            "MiB",
            target="<= 800 MiB",
            status=verdict(got["rss_mib"] <= 800),
        ),
        Row(
            BENCH,
            "64 KiB WAT page from the cache (median of 4 warm)",
            got["page"] * 1000,
            "ms",
            baseline="first (cold) page",
            baseline_value=got["first_page"] * 1000,
            target="<= 200 ms",
            status=verdict(got["page"] <= 0.2),
        ),
    ]


def _now() -> float:
    import time

    return time.perf_counter()


def run() -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "go").mkdir()
        (root / "wasm").mkdir()
        return [*_macho_rows(root / "go"), *_wasm_rows(root / "wasm")]


if __name__ == "__main__":
    from tests.benchmarks import table

    print(table(run()))
