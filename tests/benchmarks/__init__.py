"""REA benchmarks: figures and ratios against an in-process baseline, never assertions.

Run all of them with `python -m tests.benchmarks` from the repository root, or
one with `python -m tests.benchmarks.bench_canonical_json` (bench_startup,
bench_export_memory). Files are named bench_*.py and define no test_ functions,
so pytest never collects them. Every benchmark prints PASS or MISS against its
target; nothing here fails on time.

This module stays light: the export-memory benchmark imports it in a fresh
child process before it measures the baseline RSS.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MB = 1_000_000  # throughput is in MB/s with MB = 10**6 bytes; memory is in MiB


@dataclass(frozen=True)
class Row:
    """One line of the summary table."""

    bench: str
    metric: str
    value: float
    unit: str
    baseline: str = ""
    baseline_value: float | None = None
    ratio: float | None = None
    target: str = ""
    status: str = "info"  # PASS | MISS | info | ERROR


def installed_env(pycache: str) -> dict[str, str]:
    """The environment of an installed REA: this host exports PYTHONDONTWRITEBYTECODE=1, under which every
    process recompiles REA's own modules (pip precompiles an installed package). Bytecode caches are on,
    written under the private prefix `pycache`, never into the tree; a warm-up run fills it."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = pycache
    return env


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def best_of(fn: Callable[[], object], repeat: int) -> float:
    """Fastest of `repeat` calls, in seconds (time.perf_counter)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def median(values: Iterable[float]) -> float:
    return statistics.median(list(values))


def _num(value: float | None) -> str:
    if value is None:
        return "-"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.3f}"


def table(rows: list[Row]) -> str:
    header = ("bench", "metric", "value", "unit", "baseline", "base", "ratio", "target", "status")
    body = [
        (
            r.bench,
            r.metric,
            _num(r.value),
            r.unit,
            r.baseline or "-",
            _num(r.baseline_value),
            "-" if r.ratio is None else f"{r.ratio:.2f}x",
            r.target or "-",
            r.status,
        )
        for r in rows
    ]
    widths = [max(len(str(line[i])) for line in [header, *body]) for i in range(len(header))]
    numeric = {2, 5, 6}
    out = []
    for n, line in enumerate([header, *body]):
        cells = [
            str(c).rjust(w) if i in numeric and n else str(c).ljust(w) for i, (c, w) in enumerate(zip(line, widths))
        ]
        out.append("  ".join(cells).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)
