"""`python -m tests.benchmarks [NAME ...]`: run the benchmarks in sequence, then one compact table.

NAME is canonical_json, startup, export_memory, artifacts, ..., web_network (default: all). Exit status is
0 whatever the timings (PASS/MISS is information); 1 only if a benchmark crashed.
"""

from __future__ import annotations

import importlib
import os
import platform
import sys
import time
import traceback

from tests.benchmarks import Row, table

BENCHMARKS = (
    "canonical_json",
    "startup",
    "toolsets",
    "export_memory",
    "native",
    "native_go",
    "native_index",
    "native_emulation",
    "artifacts",
    "javascript",
    "managed",
    "android",
    "web_network",
    "batch",
    "web",
    "formats",
)


def main(argv: list[str]) -> int:
    names = argv or list(BENCHMARKS)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark(s) {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(
        f"REA benchmarks: Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs"
        + (f", load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}" if load else "")
        + " (timings are noisy when the load is above 0)"
    )
    rows: list[Row] = []
    crashed = False
    for name in names:
        print()
        start = time.perf_counter()
        try:
            module = importlib.import_module(f"tests.benchmarks.bench_{name}")
            rows += module.run()
        except Exception as exc:  # report and go on with the next benchmark
            traceback.print_exc()
            rows.append(Row(name, f"crashed: {type(exc).__name__}", float("nan"), "", status="ERROR"))
            crashed = True
        print(f"[{name}] took {time.perf_counter() - start:.1f} s")
    print()
    print(table(rows))
    misses = sum(r.status.startswith("MISS") for r in rows)
    passes = sum(r.status.startswith("PASS") for r in rows)
    print(f"\n{passes} PASS, {misses} MISS{', some benchmark crashed' if crashed else ''}")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
