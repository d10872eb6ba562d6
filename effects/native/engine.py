"""The owned angr worker process: start, ask, cancel, close, and prove it is gone.

The worker runs in its own session (process group) so that cancellation and
close can stop it together with anything it started. Every observation of the
group is recorded as a process-lineage snapshot.

Every file the engine writes while it runs (angr's runtime database, where its knowledge
base spills functions; pyvex's parser cache; anything else that asks for a temporary
directory) goes to one scratch directory under REA's cache directory, made for this worker
and removed when it stops: angr would otherwise put its database beside the target, and a
killed worker never cleans up after itself.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, NoReturn

import anyio
import anyio.abc
import orjson
from anyio.streams.buffered import BufferedByteReceiveStream
from returns.result import Failure, Result, Success

from effects import process_group
from effects.native.cache import cache_root
from effects.process_group import now
from rea.errors import ReaError

Report = Callable[[str, str], Awaitable[None]]
MAX_REPLY_BYTES = 1 << 30
WAIT_NOTICE_S = 10.0
WATCH_INTERVAL_S = 0.25
PIPE_ERRORS = (  # the worker's pipe closed or answered nonsense: it is gone or going
    anyio.EndOfStream,
    anyio.IncompleteRead,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    orjson.JSONDecodeError,
    OSError,  # ProcessLookupError included
)
INTERRUPT_GRACE_S = 5.0  # how long a cancelled emulation may take to end its current block and answer


class Unstartable(Exception):
    """The worker cannot be started (no scratch directory for its engine files): `error` says why."""

    def __init__(self, error: ReaError) -> None:
        super().__init__(error.message)
        self.error = error


def _unstartable(error: ReaError) -> NoReturn:
    raise Unstartable(error)


class WorkerGone(Exception):
    """The worker exited or its pipe closed while a reply was expected."""


class AngrWorker:
    MODULE = "effects.native.worker"  # the worker program (effects.native.ghidra_worker for Ghidra)
    LABEL = "angr"
    # operations a cancel interrupts between blocks (SIGUSR1) instead of killing the worker: they answer
    # with what they observed until then, and the worker keeps its loaded project
    INTERRUPTIBLE: frozenset[str] = frozenset({"emulate", "decode_strings"})
    # operations the worker may answer without angr (effects.native.direct): a worker started for one of them
    # loads angr only when it must
    LAZY: frozenset[str] = frozenset({"emulate"})

    def __init__(
        self,
        path: str,
        provider: dict[str, Any],
        startup_timeout_ms: int,
        memory_limit_mib: int | None = None,
        fat_slice: dict[str, Any] | None = None,
        scratch_root: Path | None = None,
    ) -> None:
        self.path = path
        self.scratch_root = scratch_root if scratch_root is not None else cache_root() / SCRATCH
        self.scratch: Path | None = None  # this worker's directory for engine files (exists while it runs)
        self.fat_slice = fat_slice  # the universal Mach-O slice the worker loads (its bytes, by offset)
        self.memory_limit_mib = memory_limit_mib
        self.exceeded_mib: int | None = None  # the worker's resident memory when the ceiling stopped it
        self.provider = provider
        self.startup_timeout_ms = startup_timeout_ms
        self.process: anyio.abc.Process | None = None
        self.reader: BufferedByteReceiveStream | None = None
        self.loader_facts: dict[str, Any] | None = None
        self.analysed = False
        self.lock = anyio.Lock()
        self.next_id = 0
        self.observation: dict[str, Any] | None = None
        self.interrupted: Any = None  # the answer of the last operation a cancel interrupted (its partial facts)
        self.pending_load: int | None = None  # the id of the load `prestart` sent and nobody has read yet

    # ------------------------------------------------------------ lifecycle

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    async def ensure_started(
        self, report: Report, *, facts: bool = True, lazy: bool = False
    ) -> Result[dict[str, Any], ReaError]:
        """Start the worker and load the target, within the startup deadline. With facts=False (a question
        that needs only the loaded project, such as an emulation) the loader facts (symbols, strings, origin
        facts: seconds on a static binary) wait until a snapshot asks for them. With lazy=True (an emulation,
        which the worker may run without angr: effects.native.direct) a worker that can answers at once and
        loads angr only when it must; any other question has angr loaded first, within the deadline. A worker
        `prestart` began is not started again: its load's answer is awaited."""
        if self.running and self.loader_facts is not None:
            if not lazy and self.loader_facts.get("lazy"):
                eager = {**self.load_params(), "facts": False}
                match await self._await_load(lambda: self._exchange("load", eager, report), report):
                    case Failure() as refused:
                        return refused
            if facts and self.loader_facts.get("deferred"):
                return await self._complete_facts(report)
            return Success(self.loader_facts)
        if not self.running or self.pending_load is None:
            try:
                self.pending_load = await self._launch(facts, lazy=lazy)
            except Unstartable as refused:
                return Failure(refused.error)
        rid, self.pending_load = self.pending_load, None
        loaded = await self._await_load(lambda: self._exchange("load", {}, report, rid=rid), report)
        match loaded:
            case Success() if not lazy and (self.loader_facts or {}).get("lazy"):
                return await self.ensure_started(report, facts=facts)  # a lazy prestart: angr loads now
        if facts and (self.loader_facts or {}).get("deferred"):  # a prestarted load (the project only)
            return await self._complete_facts(report)
        return loaded

    async def prestart(self, *, lazy: bool = False) -> None:
        """Start the worker and send its load request (the project only: no loader facts) without waiting for
        the answer, so importing angr and loading the file overlap with what the caller does next (the fast
        index); the next `ensure_started` awaits that answer. lazy: the question is an emulation, which the
        worker may answer without angr (it then loads angr only when it must). Does nothing when the worker
        runs already."""
        if self.running:
            return
        with contextlib.suppress(Unstartable):  # the next question starts it again and says why it cannot
            self.pending_load = await self._launch(facts=False, lazy=lazy)

    async def _launch(self, facts: bool, *, lazy: bool = False) -> int:
        """A new worker process (any previous one stopped first), in its own session and scratch directory,
        sent its load request: the request's id, whose answer ensure_started reads. Unstartable when no
        scratch directory can be made."""
        await self.stop()
        scratch = self.make_scratch().alt(_unstartable).unwrap()
        self.process = await anyio.open_process(
            [sys.executable, "-m", self.MODULE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env=scratch_environment(scratch),
        )
        assert self.process.stdout is not None and self.process.stdin is not None  # both are pipes
        self.reader = BufferedByteReceiveStream(self.process.stdout)
        self.analysed = False
        self.observe()
        self.next_id += 1
        params = {**self.load_params(), "facts": facts, **({"lazy": True} if lazy else {})}
        request = {"id": self.next_id, "op": "load", "params": params}
        with contextlib.suppress(*PIPE_ERRORS):  # a worker gone at once: reading its answer says so
            await self.process.stdin.send(orjson.dumps(request) + b"\n")
        return self.next_id

    async def _await_load(
        self, load: Callable[[], Awaitable[Result[Any, ReaError]]], report: Report
    ) -> Result[dict[str, Any], ReaError]:
        """The load's answer within the startup deadline, with a notice every WAIT_NOTICE_S; the worker is
        stopped when it fails or the deadline passes."""
        started = time.monotonic()
        result: list[Result[Any, ReaError]] = []
        done = anyio.Event()

        async def run() -> None:
            result.append(await load())
            done.set()

        async def notify_while_waiting() -> None:
            while True:
                await anyio.sleep(WAIT_NOTICE_S)
                await report(*self.waiting_notice(time.monotonic() - started))

        async with anyio.create_task_group() as group:
            group.start_soon(run)
            group.start_soon(notify_while_waiting)
            with anyio.move_on_after(self.startup_timeout_ms / 1000):
                await done.wait()
            group.cancel_scope.cancel()  # stops the notices, and the load if the deadline passed
        if not result:
            await self.stop()
            return Failure(self.startup_timeout())
        loaded = result[0]
        match loaded:
            case Success(facts):
                self.loader_facts = facts
            case _:
                await self.stop()
        return loaded

    async def _complete_facts(self, report: Report) -> Result[dict[str, Any], ReaError]:
        """The loader facts a worker started without them (one request at a time on its pipe)."""
        async with self.lock:
            got = await self._exchange("facts", {}, report)
        match got:
            case Success(facts):
                self.loader_facts = facts
        return got

    def make_scratch(self) -> Result[Path, ReaError]:
        """This worker's engine-file directory, under the cache directory (never beside the target)."""
        try:
            self.scratch_root.mkdir(parents=True, exist_ok=True)
            sweep_orphans(self.scratch_root)
            self.scratch = Path(tempfile.mkdtemp(prefix=f"{self.LABEL.lower()}-{os.getpid()}-", dir=self.scratch_root))
        except OSError as exc:
            return Failure(
                ReaError(
                    code="provider_unavailable",
                    message=(
                        f"The {self.LABEL} worker needs a writable directory for its engine files under the cache "
                        f"directory, and {self.scratch_root} could not be used: {exc.strerror or exc}."
                    ),
                    details={"provider": self.provider, "phase": "startup", "scratch_root": str(self.scratch_root)},
                    action="Point REA_CACHE_DIR at a writable directory and restart REA.",
                )
            )
        return Success(self.scratch)

    def load_params(self) -> dict[str, Any]:
        return {"path": self.path, "fat_slice": self.fat_slice}

    def waiting_notice(self, elapsed_s: float) -> tuple[str, str]:
        return "waiting for angr startup", f"{elapsed_s:.0f}s elapsed; importing angr and loading the target"

    def startup_timeout(self) -> ReaError:
        return ReaError(
            code="provider_timeout",
            message=(
                f"angr did not finish starting within REA_ANGR_STARTUP_TIMEOUT_MS={self.startup_timeout_ms}. "
                "The worker was stopped."
            ),
            details={"provider": self.provider, "phase": "startup", "timeout_ms": self.startup_timeout_ms},
            action="Raise REA_ANGR_STARTUP_TIMEOUT_MS, then close_binary and open_binary again.",
        )

    async def request(self, op: str, params: dict[str, Any], report: Report) -> Result[Any, ReaError]:
        """One query; cancelling it kills the worker (angr cannot be interrupted any other way), except an
        INTERRUPTIBLE one, which stops between blocks and leaves its partial answer in `interrupted`."""
        match await self.ensure_started(report, facts=False, lazy=op in self.LAZY):
            case Failure() as refused:
                return refused
        async with self.lock:
            local = bool(params.get("local"))  # one function's own graph: the whole-program CFG is not needed
            if op in ("disassemble", "decompile", "value_flow") and not self.analysed and not local:
                match await self._exchange("analyze", {}, report):
                    case Failure(error) as failed if not _cfg_failed(error):
                        return failed
                self.analysed = True  # or failed for good: the worker answers from the metadata extent
            reply = await self._exchange(op, params, report)
            match reply:
                case Success() if op == "analyze":
                    self.analysed = True
            return reply

    async def _exchange(
        self, op: str, params: dict[str, Any], report: Report, *, rid: int | None = None
    ) -> Result[Any, ReaError]:
        """One request and its reply, with the memory ceiling watched while it runs (`rid`: the request was
        sent already, only its reply is awaited)."""
        if self.memory_limit_mib is None:
            return await self._converse(op, params, report, rid=rid)
        async with anyio.create_task_group() as group:
            group.start_soon(self._watch, self.memory_limit_mib)
            try:
                reply = await self._converse(op, params, report, rid=rid)
            finally:
                group.cancel_scope.cancel()
        return reply

    async def _watch(self, limit_mib: int) -> None:
        """Stop the worker group the moment its resident memory passes the ceiling (before the kernel's
        OOM killer picks a victim, possibly the server)."""
        while self.process is not None:
            await anyio.sleep(WATCH_INTERVAL_S)
            if self.process is None:
                return
            rss = _group_rss(self.process.pid) >> 20
            if rss > limit_mib:
                self.exceeded_mib = rss
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                return

    def _over_ceiling(self, op: str) -> ReaError:
        limit, seen = self.memory_limit_mib, self.exceeded_mib
        self.exceeded_mib = None
        return ReaError(
            code="resource_constraint",
            message=(
                f"The {self.LABEL} worker used {seen} MiB during {op}, over the {limit} MiB ceiling "
                "(REA_NATIVE_MEMORY_LIMIT_MIB), and was stopped; the session is intact."
            ),
            details={
                "provider": self.provider,
                "operation": op,
                "limit": "native_memory_limit_mib",
                "limit_mib": limit,
                "observed_mib": seen,
            },
            action="Raise REA_NATIVE_MEMORY_LIMIT_MIB (or free memory), or analyse a smaller binary or slice.",
        )

    async def _converse(
        self, op: str, params: dict[str, Any], report: Report, *, rid: int | None = None
    ) -> Result[Any, ReaError]:
        assert self.process is not None and self.process.stdin is not None and self.reader is not None
        sent = rid is not None
        if rid is None:
            self.next_id += 1
            rid = self.next_id
        try:
            if not sent:
                await self.process.stdin.send(orjson.dumps({"id": rid, "op": op, "params": params}) + b"\n")
            while True:
                line = await self.reader.receive_until(b"\n", MAX_REPLY_BYTES)
                message = orjson.loads(line)
                if message.get("event") == "progress":
                    await report(f"{self.LABEL} {op}", message["message"])
                    continue
                if message.get("id") != rid:
                    continue
                if message["ok"]:
                    return Success(message["result"])
                err = message["error"]
                return Failure(
                    ReaError(
                        code=err["code"],
                        message=err["message"],
                        details={"provider": self.provider, **(err.get("details") or {})},
                    )
                )
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                if op not in self.INTERRUPTIBLE or not await self._interrupt(rid):
                    await self.stop()
            raise
        except PIPE_ERRORS as exc:
            code = self.process.returncode if self.process else None
            await self.stop()
            if self.exceeded_mib is not None:
                return Failure(self._over_ceiling(op))
            return Failure(
                ReaError(
                    code="provider_unavailable",
                    message=(
                        f"The {self.LABEL} worker stopped during {op} (exit status {code}); the session is intact. "
                        "Retry the query, or close_binary and open_binary to start over."
                    ),
                    details={
                        "provider": self.provider,
                        "operation": op,
                        "exit_status": code,
                        "exception": type(exc).__name__,
                    },
                )
            )

    async def _interrupt(self, rid: int) -> bool:
        """Ask the worker to end request `rid` now (SIGUSR1: its emulation loop stops before the next block)
        and read its answer, kept in `interrupted`; False when it did not answer within the grace period
        (then the caller stops it, as for any other cancelled query)."""
        self.interrupted = None
        if self.process is None or self.reader is None:
            return False
        try:
            os.kill(self.process.pid, signal.SIGUSR1)
            with anyio.move_on_after(INTERRUPT_GRACE_S):
                while True:
                    message = orjson.loads(await self.reader.receive_until(b"\n", MAX_REPLY_BYTES))
                    if message.get("id") == rid and "ok" in message:
                        self.interrupted = message["result"] if message["ok"] else None
                        return True
        except PIPE_ERRORS:
            return False
        return False

    # -------------------------------------------------------------- cleanup

    def observe(self) -> dict[str, Any]:
        """A lineage observation of the worker's group right now."""
        if self.process is None:
            return self.observation or {"status": "unavailable", "observed_at": now(), "reason": "never started"}
        self.observation = process_group.observe(self.process.pid)
        return self.observation

    async def stop(self) -> list[str]:
        """Terminate the worker group and verify it is gone; returns what remains (empty when clean)."""
        process, self.process, self.reader = self.process, None, None
        self.loader_facts, self.pending_load = None, None
        self.analysed = False
        remaining = [] if process is None else await process_group.terminate(process)
        scratch, self.scratch = self.scratch, None
        if scratch is not None and not remaining:  # a survivor may still write there: then it stays
            shutil.rmtree(scratch, ignore_errors=True)
        return remaining


SCRATCH = "engine"  # the cache directory's folder of live workers' engine-file directories


def scratch_environment(scratch: Path) -> dict[str, str]:
    """The worker's environment: temporary files and angr's runtime database in its scratch directory."""
    return {**os.environ, "TMPDIR": str(scratch), "RTDB_BASE": str(scratch), "REA_ENGINE_SCRATCH": str(scratch)}


def sweep_orphans(root: Path) -> None:
    """Remove scratch directories whose server (the pid in the name) is gone: a server killed without
    closing its worker cannot remove them itself."""
    for entry in root.iterdir():
        parts = entry.name.split("-")
        if len(parts) < 3 or not parts[1].isdigit() or int(parts[1]) == os.getpid():
            continue
        if not _alive(int(parts[1])):
            shutil.rmtree(entry, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _group_rss(pid: int) -> int:
    """Resident bytes of the worker and everything it started."""
    import psutil

    try:
        proc = psutil.Process(pid)
        members = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for member in members:
        with contextlib.suppress(psutil.Error):
            total += member.memory_info().rss
    return total


def _cfg_failed(error: ReaError) -> bool:
    """CFG recovery failed with every profile (the worker is alive; only the CFG is missing)."""
    return (error.details or {}).get("reason") == "cfg-failed"
