"""One batch, start to finish: expand the inputs, identify every file, analyse each digest once on
the chosen backend, spool the Evidence as it arrives, publish one bundle, summarise.

SIGINT or SIGTERM stops the batch: item processes (or Ray tasks) are stopped and verified gone,
then what completed is published (nothing with `atomic`) and the summary says it was cancelled.
"""

from __future__ import annotations

import os
import signal
from typing import Any
from collections.abc import Callable

import attrs
from returns.result import Success

from effects.batch import answers
from effects.batch.identify import expand, identify_one
from effects.batch.pool import run_local
from effects.batch.progress import BatchProgress
from effects.batch.ray_backend import run_ray
from effects.batch.writer import SpoolWriter, refused_output
from rea.batch.failures import subject_mismatch
from rea.batch.items import Analysed, Identified, Work, outcomes, summary, work_list
from rea.errors import ReaError

from concurrent.futures import ThreadPoolExecutor


@attrs.frozen(kw_only=True)
class BatchOptions:
    inputs: tuple[str, ...]
    out: str
    jobs: int
    ray: str | None = None  # None: the local pool; "auto": a local Ray for the batch; else a cluster address
    retries: int = 1
    deadline_ms: int = 600_000
    memory_mb: int = 4096
    resume: bool = False
    atomic: bool = False
    overwrite: bool = False
    progress: bool = True
    ship_max_mb: int = 0  # Ray only: send items up to this size as objects (0: read every input where it lies)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


def _absorb(writer: SpoolWriter, answer: dict[str, Any], work: Work) -> Analysed:
    """A task's answer as an item result; its Evidence is spooled only after a strict parse."""
    added = writer.add(answer["evidence"])
    if not isinstance(added, Success):
        return Analysed(sha256=answer["sha256"], error=added.failure().to_json())
    kept = added.unwrap()
    ids = tuple(sorted(i for i, _ in kept))
    subjects = [s for _, s in kept] if work.plan.subject_is_input else []
    mismatch = subject_mismatch(subjects, answer["sha256"], work.path)
    error = mismatch.to_json() if mismatch is not None else answer["error"]
    return Analysed(sha256=answer["sha256"], evidence_ids=ids, error=error)


class _Batch:
    def __init__(self, opts: BatchOptions, writer: SpoolWriter, bar: BatchProgress) -> None:
        self.opts, self.writer, self.bar = opts, writer, bar
        self.items: list[Identified] = []
        self.analysed: dict[str, Analysed] = {}
        self.work: dict[str, Work] = {}
        self.backend: dict[str, Any] = {"name": "ray" if opts.ray else "local", "jobs": opts.jobs}

    def identify(self, paths: list[str]) -> None:
        self.bar.phase("identifying", len(paths))
        with ThreadPoolExecutor(max_workers=max(1, self.opts.jobs)) as pool:
            for item in pool.map(identify_one, paths):
                self.items.append(item)
                self.bar.advance(item.error is not None)

    def done(self, answer: dict[str, Any]) -> None:
        if answer["not_run"]:
            return
        sha = answer["sha256"]
        result = _absorb(self.writer, answer, self.work[sha])
        self.analysed[sha] = result
        if result.error is None and answer["evidence"]:
            answers.keep(self.work[sha], answer["evidence"])
        self.bar.advance(result.error is not None)

    def recall(self, work: list[Work], present: dict[str, list[str]]) -> list[Work]:
        """Resume from the analysis cache: work answered by an earlier run joins `present`."""
        left = []
        for item in work:
            records = answers.recall(item)
            added = self.writer.add(records) if records is not None else None
            if isinstance(added, Success):
                present[item.sha256] = sorted(i for i, _ in added.unwrap())
            else:
                left.append(item)
        return left

    def analyse(self, present: dict[str, list[str]]) -> ReaError | None:
        work = work_list(self.items, present)
        if self.opts.resume:
            work = self.recall(work, present)
        self.work = {w.sha256: w for w in work}
        requests = [w.request(self.opts.deadline_ms, self.opts.memory_mb) for w in work]
        self.bar.phase("analysing", len(requests))
        if self.opts.ray is None:
            self.backend = run_local(requests, self.opts.jobs, self.done)
            return None
        shipped = frozenset(w.sha256 for w in work if w.shipped(self.opts.ship_max_mb * 2**20))
        ran = run_ray(requests, self.opts.ray, self.opts.jobs, self.opts.retries, self.done, shipped)
        if not isinstance(ran, Success):
            return ran.failure()
        self.backend = ran.unwrap()
        return None


def run_batch(opts: BatchOptions, on_ready: Callable[[], None] = lambda: None) -> tuple[dict[str, Any], int] | ReaError:
    """The summary and exit status of one batch, or the error that stopped it before any item ran."""
    paths = expand(opts.inputs)
    if not isinstance(paths, Success):
        return paths.failure()
    resuming = opts.resume and os.path.isfile(opts.out)
    if refused := refused_output(opts.out, opts.overwrite or resuming):
        return refused
    previous = {signum: signal.signal(signum, _interrupt) for signum in (signal.SIGINT, signal.SIGTERM)}
    writer = SpoolWriter(opts.out)
    try:
        present: dict[str, list[str]] = {}
        if resuming:
            loaded = writer.resume()
            if not isinstance(loaded, Success):
                return loaded.failure()
            present = loaded.unwrap()
        cancelled = False
        with BatchProgress(opts.progress) as bar:
            batch = _Batch(opts, writer, bar)
            on_ready()
            try:
                batch.identify(paths.unwrap())
                if problem := batch.analyse(present):
                    return problem
            except KeyboardInterrupt:
                cancelled = True
        rows = outcomes(batch.items, batch.analysed, present)
        receipt = None
        if not (cancelled and opts.atomic):
            published = writer.publish(overwrite=opts.overwrite or resuming)
            if not isinstance(published, Success):
                return published.failure()
            r = published.unwrap()
            receipt = {"path": r.path, "bytes": r.bytes, "sha256": r.sha256, "records": len(writer.rows)}
        report = summary(rows, inputs=len(paths.unwrap()), backend=batch.backend, bundle=receipt, cancelled=cancelled)
        return report, report["exit_status"]
    finally:
        writer.close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
