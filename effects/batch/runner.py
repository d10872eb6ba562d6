"""One batch, start to finish: expand the inputs, identify every file, analyse each digest once on
the chosen backend, spool the Evidence as it arrives, publish one bundle, summarise.

SIGINT or SIGTERM stops the batch: item processes (or Ray tasks) are stopped and verified gone,
then what completed is published (nothing with `atomic`) and the summary says it was cancelled.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import attrs
from returns.result import Result, Success

from effects.batch import answers
from effects.batch.identify import expand, identify_one
from effects.batch.pool import run_local
from effects.batch.progress import BatchProgress
from effects.batch.ray_backend import run_ray
from effects.batch.writer import SpoolWriter, writable_output
from rea.batch.failures import same_subject
from rea.batch.items import Analysed, Identified, Work, outcomes, summary, work_list
from rea.errors import ReaError


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
    return (
        writer.add(answer["evidence"])
        .map(lambda kept: _kept(kept, answer, work))
        .lash(lambda error: Success(Analysed(sha256=answer["sha256"], error=error.to_json())))
        .unwrap()
    )


def _kept(kept: list[tuple[str, str | None]], answer: dict[str, Any], work: Work) -> Analysed:
    """A spooled answer: its records, and its error (the task's, or that the file changed meanwhile)."""
    ids = tuple(sorted(i for i, _ in kept))
    subjects = [s for _, s in kept] if work.plan.subject_is_input else []
    error = (
        same_subject(subjects, answer["sha256"], work.path)
        .map(lambda _: answer["error"])
        .lash(lambda mismatch: Success(mismatch.to_json()))
        .unwrap()
    )
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
            added = self.writer.add(records).value_or(None) if records is not None else None
            if added is not None:
                present[item.sha256] = sorted(i for i, _ in added)
            else:
                left.append(item)
        return left

    def analyse(self, present: dict[str, list[str]]) -> Result[None, ReaError]:
        work = work_list(self.items, present)
        if self.opts.resume:
            work = self.recall(work, present)
        self.work = {w.sha256: w for w in work}
        requests = [w.request(self.opts.deadline_ms, self.opts.memory_mb) for w in work]
        self.bar.phase("analysing", len(requests))
        if self.opts.ray is None:
            self.backend = run_local(requests, self.opts.jobs, self.done)
            return Success(None)
        shipped = frozenset(w.sha256 for w in work if w.shipped(self.opts.ship_max_mb * 2**20))
        ran = run_ray(requests, self.opts.ray, self.opts.jobs, self.opts.retries, self.done, shipped)
        return ran.map(self._ran)

    def _ran(self, backend: dict[str, Any]) -> None:
        self.backend = backend


def run_batch(
    opts: BatchOptions, on_ready: Callable[[], None] = lambda: None
) -> Result[tuple[dict[str, Any], int], ReaError]:
    """The summary and exit status of one batch, or the error that stopped it before any item ran."""
    return expand(opts.inputs).bind(lambda paths: _started(opts, paths, on_ready))


def _started(
    opts: BatchOptions, paths: list[str], on_ready: Callable[[], None]
) -> Result[tuple[dict[str, Any], int], ReaError]:
    resuming = opts.resume and os.path.isfile(opts.out)
    return writable_output(opts.out, opts.overwrite or resuming).bind(
        lambda _: _signalled(opts, paths, resuming, on_ready)
    )


def _signalled(
    opts: BatchOptions, paths: list[str], resuming: bool, on_ready: Callable[[], None]
) -> Result[tuple[dict[str, Any], int], ReaError]:
    """The batch with SIGINT/SIGTERM turned into a cancel and its spool removed at the end."""
    previous = {signum: signal.signal(signum, _interrupt) for signum in (signal.SIGINT, signal.SIGTERM)}
    writer = SpoolWriter(opts.out)
    try:
        present = writer.resume() if resuming else Success({})
        return present.bind(lambda found: _batch(opts, writer, paths, found, resuming, on_ready))
    finally:
        writer.close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _batch(
    opts: BatchOptions,
    writer: SpoolWriter,
    paths: list[str],
    present: dict[str, list[str]],
    resuming: bool,
    on_ready: Callable[[], None],
) -> Result[tuple[dict[str, Any], int], ReaError]:
    cancelled = False
    analysed: Result[None, ReaError] = Success(None)
    with BatchProgress(opts.progress) as bar:
        batch = _Batch(opts, writer, bar)
        on_ready()
        try:
            batch.identify(paths)
            analysed = batch.analyse(present)
        except KeyboardInterrupt:
            cancelled = True
    return analysed.bind(lambda _: _published(opts, writer, batch, paths, present, resuming, cancelled))


def _published(
    opts: BatchOptions,
    writer: SpoolWriter,
    batch: _Batch,
    paths: list[str],
    present: dict[str, list[str]],
    resuming: bool,
    cancelled: bool,
) -> Result[tuple[dict[str, Any], int], ReaError]:
    """The bundle published (not when an atomic batch was cancelled), and the summary."""
    rows = outcomes(batch.items, batch.analysed, present)
    receipt: Result[dict[str, Any] | None, ReaError] = (
        Success(None)
        if cancelled and opts.atomic
        else writer.publish(overwrite=opts.overwrite or resuming).map(
            lambda r: {"path": r.path, "bytes": r.bytes, "sha256": r.sha256, "records": len(writer.rows)}
        )
    )

    def summarised(bundle: dict[str, Any] | None) -> tuple[dict[str, Any], int]:
        report = summary(rows, inputs=len(paths), backend=batch.backend, bundle=bundle, cancelled=cancelled)
        return report, report["exit_status"]

    return receipt.map(summarised)
