"""Batch: items per second of `rea batch` over the test corpus (tests/batch_fixtures.py: 50 files of
mixed kinds, duplicates and corrupt files), on the local pool with 1 and 2 workers and on a real
Ray head on 127.0.0.1 with 2 workers. Processes run with bytecode caches, as an installed package has them (a warm-up batch fills
them). Every run starts with an empty analysis cache, so each one
does the same cold work; the figures are ratios against the 1-worker pool.

Target: 2 local workers >= 1.5x one worker on an idle 2-core machine (each item is its own
process, so the pool scales with cores until the disk or memory binds); Ray with 2 workers within
1.5x of 2 local workers' time (>= 0.67x their rate: Ray's actors keep a warm parent each, as the
pool's threads do, so Ray adds dispatch, never a second interpreter start per item); Ray with 2
workers >= 1.3x Ray with 1 (it scales with added workers).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks import ROOT, Row, installed_env, verdict

sys.path.insert(0, str(ROOT / "tests"))  # the corpus builder imports its sibling fixtures by name

BENCH = "batch"
SCALE_TARGET = 1.5
RAY_TARGET = 1 / 1.5
RAY_SCALE_TARGET = 1.3


PYCACHE = tempfile.mkdtemp(prefix="rea-bench-pycache-")


def _batch(corpus: Path, out: Path, cache: str, *extra: str) -> tuple[float, dict]:
    env = {**installed_env(PYCACHE), "REA_CACHE_DIR": cache, "RAY_AUTH_MODE": "disabled"}
    begin = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "effects.cli", "batch", str(corpus), "--out", str(out), "--overwrite", "--format",
         "json", "--no-progress", *extra],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    seconds = time.perf_counter() - begin
    return seconds, json.loads(proc.stdout)


def run() -> list[Row]:
    from batch_fixtures import build_corpus
    from ray_fixtures import ray_available, ray_head

    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "corpus"
        items = len(build_corpus(corpus))
        figures: dict[str, float] = {}
        _batch(corpus / "archives", Path(tmp) / "w.json", tempfile.mkdtemp(dir=tmp))  # fills the bytecode caches
        for name, extra in (("pool, 1 worker", ("--jobs", "1")), ("pool, 2 workers", ("--jobs", "2"))):
            seconds, _ = _batch(corpus, Path(tmp) / "b.json", tempfile.mkdtemp(dir=tmp), *extra)
            figures[name] = items / seconds
        if ray_available():
            with ray_head(num_cpus=2) as head:
                for jobs in ("1", "2"):
                    seconds, _ = _batch(corpus, Path(tmp) / "r.json", tempfile.mkdtemp(dir=tmp), "--ray",
                                        str(head["address"]), "--jobs", jobs)  # fmt: skip
                    figures[f"ray, {jobs} worker{'s' if jobs == '2' else ''}"] = items / seconds
    one = figures["pool, 1 worker"]
    rows = [Row(BENCH, f"{items} items, pool, 1 worker", one, "items/s")]
    two = figures["pool, 2 workers"]
    rows.append(
        Row(
            BENCH,
            f"{items} items, pool, 2 workers",
            two,
            "items/s",
            "pool, 1 worker",
            one,
            two / one,
            f">= {SCALE_TARGET}x",
            verdict(two / one >= SCALE_TARGET),
        )  # fmt: skip
    )
    if "ray, 2 workers" in figures:
        ray = figures["ray, 2 workers"]
        rows.append(
            Row(
                BENCH,
                f"{items} items, Ray, 2 workers",
                ray,
                "items/s",
                "pool, 1 worker",
                one,
                ray / one,
                f">= {RAY_TARGET:.2f}x of 2 pool workers ({ray / two:.2f}x)",
                verdict(ray / two >= RAY_TARGET),
            )  # fmt: skip
        )
        single = figures["ray, 1 worker"]
        rows.append(
            Row(
                BENCH,
                f"{items} items, Ray, 2 workers vs 1",
                ray,
                "items/s",
                "ray, 1 worker",
                single,
                ray / single,
                f">= {RAY_SCALE_TARGET}x",
                verdict(ray / single >= RAY_SCALE_TARGET),
            )  # fmt: skip
        )
    return rows


if __name__ == "__main__":
    from tests.benchmarks import table

    print(table(run()))
