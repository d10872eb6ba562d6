"""Connection-scoped native engine state and the handlers of the native effects.

A connection owns one NativeRuntime (its workers and in-memory snapshots); the
transport makes it current for the duration of a call, so handlers keep the
interpreter's `(effect, progress)` signature.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import attrs
from returns.result import Failure, Result, Success

from effects.native import cache, index_runner
from effects.native.discovery import discover
from effects.native.engine import SCRATCH, AngrWorker
from effects.owned import stop_all
from effects.progress import Progress
from rea.errors import ReaError, processes_left
from rea.native import decoding, metadata
from rea.native.effects import (
    DiscoverProviders,
    NativeActivity,
    NativeFacts,
    NativeLineage,
    NativeQuery,
    ReleaseNative,
)
from rea.native.providers import GHIDRA_STARTUP_DEFAULT_MS, ghidra_startup_timeout

DEFAULT_STARTUP_TIMEOUT_MS = 120_000


@attrs.define
class Ahead:
    """A fast index started when its target was opened (index_ahead): the first question that needs it reads
    this instead of starting the program, and takes on its process observation then."""

    key: tuple[str, str, str]
    scope: anyio.CancelScope = attrs.field(factory=anyio.CancelScope)
    done: anyio.Event = attrs.field(factory=anyio.Event)
    lineage: list[dict[str, Any]] = attrs.field(factory=list)
    result: Result[dict[str, Any], ReaError] | None = None  # None: cancelled, or the program could not start
    listener: Any = None  # the waiting question's progress report: the program's notices go there

    async def report(self, phase: str, message: str) -> None:
        if self.listener is not None:
            await self.listener(phase, message)

    async def stop(self) -> None:
        """End it (its process group verified gone by index_runner) and wait until it has."""
        self.scope.cancel()
        with anyio.CancelScope(shield=True):
            await self.done.wait()


@attrs.define
class NativeRuntime:
    cache_root: Path
    startup_timeout_ms: int = DEFAULT_STARTUP_TIMEOUT_MS
    memory_limit_mib: int | None = None
    worker: AngrWorker | None = None
    worker_key: tuple[str, str, str] | None = None
    snapshots: dict[tuple[str, str, str], dict[str, Any]] = attrs.field(factory=dict)
    indexes: dict[tuple[str, str, str], dict[str, Any]] = attrs.field(factory=dict)
    lineage: list[dict[str, Any]] = attrs.field(factory=list)
    # engine requests in flight, oldest first (binary_session.analysis_activity reads them)
    inflight: list[dict[str, Any]] = attrs.field(factory=list)
    request_seq: int = 0
    ahead: Ahead | None = None  # the index built ahead of the first question (index_ahead), not yet read

    @contextlib.contextmanager
    def tracked(self, operation: str) -> Iterator[None]:
        self.request_seq += 1
        entry = {"request_id": self.request_seq, "operation": operation, "started": time.monotonic()}
        self.inflight.append(entry)
        try:
            yield
        finally:
            self.inflight.remove(entry)

    def key(self, effect: NativeFacts | NativeQuery) -> tuple[str, str, str]:
        return (effect.sha256, effect.binding["analysis_profile"]["digest"], effect.path)

    def worker_for(self, effect: NativeFacts | NativeQuery) -> AngrWorker:
        key = self.key(effect)
        if self.worker is None or self.worker_key != key:
            loader = effect.binding["analysis_profile"]["parameters"].get("loader", {})
            if effect.binding["provider"]["id"] == "ghidra":
                self.worker = _ghidra_worker(self, effect, loader)
                self.worker_key = key
                return self.worker
            self.worker = AngrWorker(
                effect.path,
                dict(effect.binding["provider"]),
                self.startup_timeout_ms,
                self.memory_limit_mib,
                fat_slice=loader.get("fat_slice"),
                scratch_root=self.cache_root / SCRATCH,
            )
            self.worker_key = key
        return self.worker


def _ghidra_worker(runtime: NativeRuntime, effect: NativeFacts | NativeQuery, loader: Any) -> AngrWorker:
    """The Ghidra worker for a Ghidra binding (discovery already refused an invalid startup deadline)."""
    from effects.native.ghidra_engine import GhidraWorker

    timeout = ghidra_startup_timeout(os.environ.get("REA_GHIDRA_STARTUP_TIMEOUT_MS"))
    return GhidraWorker(
        effect.path,
        dict(effect.binding["provider"]),
        timeout if isinstance(timeout, int) else GHIDRA_STARTUP_DEFAULT_MS,
        runtime.cache_root / "ghidra-projects",
        memory_limit_mib=runtime.memory_limit_mib,
        fat_slice=loader.get("fat_slice"),
        scratch_root=runtime.cache_root / SCRATCH,
    )


def _runtime(progress: Progress) -> NativeRuntime:
    """The connection's engines, which the call passes in its Progress."""
    if progress.native is None:
        raise RuntimeError("a native effect ran outside a connection (Progress carries no native runtime)")
    return progress.native


async def _discover(effect: DiscoverProviders, progress: Progress) -> Result[Any, ReaError]:
    return Success(discover())


async def _index(effect: NativeFacts, progress: Progress) -> Result[Any, ReaError] | None:
    """The fast index snapshot (memory, disk cache, or the indexer program); None when the index cannot
    answer for this binding or file (another provider, an architecture the sweep does not decode), so the
    caller recovers the CFG instead."""
    runtime = _runtime(progress)
    if effect.binding["provider"]["id"] != "angr":
        return None
    key = runtime.key(effect)
    memo = runtime.indexes.get(key)
    if memo is None:
        memo = cache.load(runtime.cache_root, effect.sha256, dict(effect.binding), "index")
        if memo is not None:
            await progress.report("analysis cache", f"reused the index for {effect.sha256[:12]}")
    if memo is None:
        loader = effect.binding["analysis_profile"]["parameters"].get("loader", {})
        await progress.report("fast index", "reading the file's metadata and sweeping its code")
        with runtime.tracked("index"):
            built = await _ahead(runtime, key, progress)
            if built is None:
                built = await index_runner.build(effect.path, loader.get("fat_slice"), progress.report, runtime.lineage)
        match built:
            case Success(value):
                memo = value
            case _:
                return None
        cache.store(runtime.cache_root, effect.sha256, dict(effect.binding), "index", memo)
    runtime.indexes[key] = memo
    # nothing decoded (a truncated file whose commands are cut, no code sections): the engine answers, or refuses
    stats = memo.get("index", {})
    return Success(memo) if stats.get("swept") and stats.get("code_bytes", 0) > 0 else None


def index_ahead(runtime: NativeRuntime, group: anyio.abc.TaskGroup, binding: Any, path: str, sha256: str) -> None:
    """Start building the fast index of the target open_binary just bound, in `group` (the connection's), so
    that it runs while the client reads the reply (an MCP client's first call then lists the tools: seconds of
    an idle server at a cold start). Nothing is visible until a question reads it (`_ahead`): that question
    reports, tracks and records the index as if it had started the program; a question cancelled while
    waiting for it stops it, and so do close_binary, another open_binary and the connection's end. Not for
    another provider's binding, nor when the index is already known."""
    if binding["provider"]["id"] != "angr":
        return
    key = (sha256, binding["analysis_profile"]["digest"], path)
    if key in runtime.indexes or cache.exists(runtime.cache_root, sha256, dict(binding), "index"):
        return
    ahead = runtime.ahead = Ahead(key=key)
    fat_slice = binding["analysis_profile"]["parameters"].get("loader", {}).get("fat_slice")

    async def build() -> None:
        try:
            with ahead.scope:
                ahead.result = await index_runner.build(path, fat_slice, ahead.report, ahead.lineage)
        except OSError:  # the program could not start: the question starts it and says why
            ahead.result = None
        finally:
            ahead.done.set()

    group.start_soon(build)


async def _ahead(
    runtime: NativeRuntime, key: tuple[str, str, str], progress: Progress
) -> Result[dict[str, Any], ReaError] | None:
    """The index built ahead for `key`, once it is done (its notices meanwhile the question's); None when there
    is none (the caller builds it)."""
    ahead, runtime.ahead = runtime.ahead, None
    if ahead is None or ahead.key != key:
        if ahead is not None:
            await ahead.stop()
        return None
    ahead.listener = progress.report
    try:
        await ahead.done.wait()
    except anyio.get_cancelled_exc_class():
        await ahead.stop()  # a cancelled question leaves no index program behind, as when it started it
        raise
    if ahead.result is not None:
        runtime.lineage.extend(ahead.lineage)
    return ahead.result


async def _decoded(effect: NativeFacts, progress: Progress) -> Result[Any, ReaError]:
    """The fast index with its decoded strings: the decoder call sites it found, emulated in the worker the
    first time they are asked for (rea.native.decoding plans and reads; seconds to minutes), then kept with
    the index in memory and on disk, so a second question answers at once. Where the index cannot answer,
    the snapshot that does (the CFG) holds no candidates and nothing is emulated."""
    runtime = _runtime(progress)
    known = runtime.indexes.get(runtime.key(effect))
    if known is None or ("decode_coverage" not in known and known.get("decoder_candidates")):
        if effect.binding["provider"]["id"] == "angr" and not cache.exists(
            runtime.cache_root, effect.sha256, dict(effect.binding), "decoded"
        ):
            await runtime.worker_for(effect).prestart()  # angr's import and load overlap with the index
    indexed = await _index(effect, progress)
    if indexed is None:
        return await _facts(attrs.evolve(effect, stage="index"), progress)
    memo = indexed.unwrap()
    if "decode_coverage" in memo:
        return indexed
    binding = dict(effect.binding)
    part = cache.load(runtime.cache_root, effect.sha256, binding, "decoded")
    if part is not None:
        await progress.report("analysis cache", f"reused the decoded strings for {effect.sha256[:12]}")
    else:
        candidates, limits = decoding.candidates(memo), decoding.DEFAULT
        chosen, _ = decoding.choose(candidates, limits)
        facts: dict[str, Any] = {"candidates": []}
        if chosen:
            await progress.report(
                "decoded strings", f"emulating {len(chosen)} decoder call sites (angr, in the worker)"
            )
            worker = runtime.worker_for(effect)
            with runtime.tracked("decode_strings"):
                asked = decoding.plan(chosen, limits, str(memo.get("architecture")))
                got = await worker.request("decode_strings", asked, progress.report)
            match got:
                case Failure() as refused:
                    return refused
                case Success(value):
                    facts = value
        part = decoding.recovered(candidates, limits, facts)
        cache.store(runtime.cache_root, effect.sha256, binding, "decoded", part)
    memo = {**memo, **part}
    runtime.indexes[runtime.key(effect)] = memo
    return Success(memo)


async def _facts(effect: NativeFacts, progress: Progress) -> Result[Any, ReaError]:
    runtime = _runtime(progress)
    if effect.engine_ahead and effect.binding["provider"]["id"] == "angr":
        # its failure, if any, is the engine question's to report; lazy: the question (an emulation) may need
        # no angr at all (effects.native.direct)
        await runtime.worker_for(effect).prestart(lazy=True)
    if effect.stage == "decoded":
        return await _decoded(effect, progress)
    if effect.stage == "index":
        indexed = await _index(effect, progress)
        if indexed is not None:
            return indexed
        effect = attrs.evolve(effect, stage="cfg")
    key = runtime.key(effect)
    memo = runtime.snapshots.get(key)
    if memo is not None and (effect.stage != "cfg" or "procedures" in memo):
        return Success(memo)
    binding = dict(effect.binding)
    for stage in ("cfg",) if effect.stage == "cfg" else ("cfg", "loader"):
        cached = cache.load(runtime.cache_root, effect.sha256, binding, stage)
        if cached is not None:
            runtime.snapshots[key] = cached
            await progress.report("analysis cache", f"reused the {stage} snapshot for {effect.sha256[:12]}")
            return Success(cached)
    worker = runtime.worker_for(effect)
    with runtime.tracked("load"):
        loaded = await worker.ensure_started(progress.report)
    match loaded:
        case Failure() as refused:
            return refused
        case Success(value):
            snapshot = dict(value)
    if effect.stage == "cfg":
        await progress.report(
            "analysis", "starting CFG recovery: calls, callers and references need it (metadata answered until now)"
        )
        with runtime.tracked("analyze"):
            analysed = await worker.request("analyze", {}, progress.report)
        match analysed:
            case Success(value):
                snapshot.update(metadata.completed(value, snapshot))
            case Failure(error) if _engine_fault(error):
                await progress.report("analysis fallback", "CFG recovery failed; answering from the binary's metadata")
                snapshot.update(metadata.fallback(snapshot, error.record()))
            case _:
                return analysed
    runtime.snapshots[key] = snapshot
    if snapshot.get("degraded", {}).get("engine_error", {}).get("code") != "provider_unavailable":
        # a worker that died may live next time; a CFG that raised with every profile raises again
        cache.store(runtime.cache_root, effect.sha256, binding, "cfg" if effect.stage == "cfg" else "loader", snapshot)
    return Success(snapshot)


def _engine_fault(error: ReaError) -> bool:
    """The CFG failed (every profile raised) or the worker died building it: the metadata still answers.
    A timeout or a cancellation is not a fault of the engine and is reported as it is."""
    return (error.details or {}).get("reason") == "cfg-failed" or (
        error.code == "provider_unavailable" and (error.details or {}).get("operation") == "analyze"
    )


async def _query(effect: NativeQuery, progress: Progress) -> Result[Any, ReaError]:
    """One worker question; a cancelled one that the worker could interrupt (an emulation) hands the facts it
    observed until then to the program (ProgramCancelled.partial)."""
    runtime = _runtime(progress)
    worker = runtime.worker_for(effect)
    with runtime.tracked(effect.op):
        try:
            return await worker.request(effect.op, dict(effect.params), progress.report)
        except anyio.get_cancelled_exc_class():
            progress.effect_partial, worker.interrupted = worker.interrupted, None
            raise


async def _release(effect: ReleaseNative, progress: Progress) -> Result[Any, ReaError]:
    runtime = _runtime(progress)
    remaining: list[str] = []
    label = "angr" if runtime.worker is None else runtime.worker.LABEL
    if runtime.worker is not None:
        await progress.report("closing provider", f"stopping the {runtime.worker.LABEL} worker group")
        runtime.lineage.append({"provider": runtime.worker.provider, "observation": runtime.worker.observe()})
        remaining = await runtime.worker.stop()
    runtime.worker, runtime.worker_key = None, None
    runtime.snapshots.clear()
    runtime.indexes.clear()
    if runtime.ahead is not None:
        ahead, runtime.ahead = runtime.ahead, None
        await ahead.stop()
    stop_all()  # the other families' helpers (the Android worker) end with the target too
    if remaining:
        return Failure(processes_left(f"{label} worker", remaining, "call close_binary again"))
    return Success({"status": "complete", "owned_resources": []})


async def release_all(runtime: NativeRuntime) -> list[str]:
    """Stop every owned worker at the end of a connection or a CLI command; returns what remains."""
    stop_all()
    if runtime.ahead is not None:
        ahead, runtime.ahead = runtime.ahead, None
        await ahead.stop()
    if runtime.worker is None:
        return []
    worker, runtime.worker, runtime.worker_key = runtime.worker, None, None
    with anyio.CancelScope(shield=True):
        remaining = await worker.stop()
    return remaining


async def _lineage(effect: NativeLineage, progress: Progress) -> Result[Any, ReaError]:
    runtime = _runtime(progress)
    snapshots = list(runtime.lineage)
    if runtime.worker is not None and runtime.worker.process is not None:
        snapshots.append({"provider": runtime.worker.provider, "observation": runtime.worker.observe()})
    if not snapshots:
        return Success({"status": "not_observed"})
    latest: dict[str, dict[str, Any]] = {}
    for snap in snapshots:
        latest[snap["provider"]["id"]] = snap
    return Success({"status": "snapshots", "snapshots": [latest[k] for k in sorted(latest)]})


async def _activity(effect: NativeActivity, progress: Progress) -> Result[Any, ReaError]:
    """not_observed until a worker process exists; then idle, or busy with the oldest request in flight."""
    runtime = _runtime(progress)
    worker = runtime.worker
    if worker is None or worker.process is None:
        return Success({"status": "not_observed", "providers": []})
    now = time.monotonic()
    active = None
    if runtime.inflight:
        first = runtime.inflight[0]
        active = {
            "request_id": first["request_id"],
            "operation": first["operation"],
            "elapsed_ms": int((now - first["started"]) * 1000),
            "caller_state": "waiting",
        }
    entry = {
        "provider": dict(worker.provider),
        "active": active,
        "queued_requests": max(0, len(runtime.inflight) - 1),
    }
    return Success({"status": "busy" if active else "idle", "providers": [entry]})


HANDLERS = {
    DiscoverProviders: _discover,
    NativeActivity: _activity,
    NativeFacts: _facts,
    NativeQuery: _query,
    ReleaseNative: _release,
    NativeLineage: _lineage,
}
