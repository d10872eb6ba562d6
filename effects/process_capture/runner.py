"""The capture_process_scenario handler: one owned run, observed within its limits, then verified gone.

The run is polled on one event loop every POLL_S: due events are dispatched, the terminal
is read (non-blocking), the group is sampled every SAMPLE_S, and the deadline and idle
limit are checked. The group is registered with effects.owned while it lives, so
close_binary and server exit stop it too; on every path out (exit, limit, cancel,
failure) a shielded cleanup kills the group (TERM, then KILL), checks that no member
survives, closes the terminal and removes the scratch directory under REA's cache.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import platform
import shutil
import signal
import struct
import tempfile
import termios
import time
from typing import Any, Literal, cast

import anyio
import anyio.abc
import attrs
from returns.result import Failure, Result, Success

from effects import owned
from effects.native.cache import cache_root
from effects.process_capture import launch, loopback
from effects.process_capture.launch import Refused
from effects.process_capture.reactive_driver import Live
from effects.process_capture.snapshot import snapshot
from effects.process_group import now, terminate
from effects.progress import Progress
from rea.errors import ReaError, invalid_request, processes_left
from rea.process_capture.effects import (
    Dispatched,
    MeasureAges,
    RawFrame,
    RunScenario,
    ScenarioRun,
    SeenProcess,
    ShimCall,
    Snapshot,
)
from rea.process_capture.records import Event

POLL_S = 0.01
SAMPLE_S = 0.02
READ_BYTES = 65536
READS_PER_POLL = 64


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def _check_inputs(effect: RunScenario) -> None:
    if not os.path.isfile(effect.executable) or not os.access(effect.executable, os.X_OK):
        raise Refused(invalid_request(f"{effect.executable!r} is not an executable file", field="executable",
                                       accepted="an absolute path of an existing executable file"))  # fmt: skip
    if not os.path.isdir(effect.working_directory):
        raise Refused(invalid_request(f"{effect.working_directory!r} is not a directory", field="working_directory",
                                       accepted="an absolute path of an existing directory"))  # fmt: skip


def _winsize(fd: int, rows: int, columns: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))


class _Run:
    """The live state of one run (its terminal, its process, what it has observed so far)."""

    def __init__(
        self, effect: RunScenario, process: anyio.abc.Process, master: int, start: float, skip: set[str]
    ) -> None:
        self.effect, self.process, self.master, self.start, self.skip = effect, process, master, start, skip
        self.group = process.pid
        self.frames: list[RawFrame] = []
        self.kept_bytes = 0
        self.dropped = 0
        self.last_output = start
        self.seen: dict[int, SeenProcess] = {}
        self.processes_dropped = 0
        self.interactions: list[Dispatched] = []
        self.pending = sorted(enumerate(effect.events), key=lambda pair: (pair[1].at_ms, pair[0]))
        self.eof = False
        self.live = Live(effect)  # its checkpoints and reactive machine

    def ms(self) -> int:
        return int((time.monotonic() - self.start) * 1000)

    def read(self) -> None:
        """What the terminal has now (at most READS_PER_POLL reads, so a program that writes without pause
        cannot keep the loop from its deadlines); past the frame or byte limit it is counted, not kept."""
        for _ in range(READS_PER_POLL):
            if self.eof:
                return
            try:
                data = os.read(self.master, READ_BYTES)
            except BlockingIOError:
                return
            except OSError as exc:  # EIO: every slave descriptor is closed
                if exc.errno != errno.EIO:
                    raise
                self.eof = True
                return
            if not data:
                self.eof = True
                return
            self.last_output = time.monotonic()
            limits = self.effect.limits
            if len(self.frames) >= limits.frames or self.kept_bytes + len(data) > limits.output_bytes:
                self.dropped += len(data)
                continue
            self.frames.append(RawFrame(at_ms=self.ms(), data=data))
            self.kept_bytes += len(data)

    def sample(self) -> None:
        """Every live member of the group, by pid: first-seen time kept, the latest command line (a fork that
        execs is reported with what it exec'd, not with the copy of its parent it was for a moment)."""
        at = self.ms()
        for pid, ppid, sid in _group_members(self.group):
            argv = _cmdline(pid)
            if not argv or (pid == self.group and (argv[0] in self.skip or argv[1:3] == ["-c", launch.LOOPBACK_UP])):
                continue  # gone, a kernel thread, or a launcher step before the exec of the target
            known = self.seen.get(pid)
            if known is None and len(self.seen) >= self.effect.limits.processes:
                self.processes_dropped += 1
                continue
            self.seen[pid] = SeenProcess(at_ms=known.at_ms if known else at, pid=pid, parent_pid=ppid,
                                         process_group_id=self.group, session_id=sid, command=" ".join(argv))  # fmt: skip

    def dispatch(self, index: int, event: Event) -> None:
        at = self.ms()
        data = _describe(event)
        outcome: Literal["dispatched", "target_exited", "failed"] = "dispatched"
        if self.process.returncode is not None:
            outcome = "target_exited"
        else:
            try:
                self._do(event)
            except OSError:
                outcome = "failed"
        self.interactions.append(Dispatched(sequence=index, type=event.type, data=data,
                                            scheduled_at_ms=event.at_ms, dispatched_at_ms=at, outcome=outcome))  # fmt: skip

    def _do(self, event: Event) -> None:
        if event.type == "input":
            _write_all(self.master, event.data.encode())
        elif event.type == "stdin_close":
            _write_all(self.master, b"\x04")
        elif event.type == "resize":
            _winsize(self.master, event.rows, event.columns)
        else:
            os.killpg(self.group, getattr(signal, event.signal))

    def due(self) -> None:
        while self.pending and self.pending[0][1].at_ms <= self.ms():
            index, event = self.pending.pop(0)
            self.dispatch(index, event)


def _group_members(group: int) -> list[tuple[int, int, int]]:
    """(pid, parent pid, session) of each live (non-zombie) process of the group, read from /proc/PID/stat:
    a few milliseconds for a few hundred processes, where psutil objects cost several times that, and this
    runs every SAMPLE_S."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()  # after "pid (comm) ": state ppid pgrp session ...
        if len(fields) > 3 and int(fields[2]) == group and fields[0] != b"Z":
            found.append((int(name), int(fields[1]), int(fields[3])))
    return found


def _cmdline(pid: int) -> list[str]:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            raw = handle.read()
    except OSError:
        return []
    return [part.decode("utf-8", "replace") for part in raw.split(b"\0")[:-1]] if raw else []


def _describe(event: Event) -> str:
    if event.type == "input":
        return "<sensitive>" if event.sensitive else event.data
    if event.type == "resize":
        return f"{event.columns}x{event.rows}"
    if event.type == "signal":
        return event.signal
    return ""


def _write_all(fd: int, data: bytes) -> None:
    deadline = time.monotonic() + 1.0
    while data:
        try:
            data = data[os.write(fd, data) :]
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.005)


async def _observe(run: _Run) -> str:
    """Poll until the root exits or a limit stops it; the reason the run ended."""
    effect, next_sample = run.effect, 0.0
    while True:
        run.due()
        run.read()
        if time.monotonic() >= next_sample:  # a /proc scan: off the event loop, which serves the connection
            await anyio.to_thread.run_sync(run.sample)
            next_sample = time.monotonic() + SAMPLE_S
        if await run.live.poll(run):
            return "reactive_stopped"
        if run.process.returncode is not None:
            return "exited"
        if run.ms() >= effect.timeout_ms:
            return "timeout"
        if (time.monotonic() - run.last_output) * 1000 >= effect.idle_timeout_ms:
            return "idle_timeout"
        await anyio.sleep(POLL_S)


async def _settle(run: _Run) -> tuple[str, int, str]:
    """After the root exited: wait settle_ms for the rest of the group to end (state, elapsed, cleanup)."""
    began = time.monotonic()
    with anyio.move_on_after(run.effect.settle_ms / 1000):
        while _group_members(run.group):
            run.read()
            await anyio.to_thread.run_sync(run.sample)  # what is left is observed too, before it is stopped
            await anyio.sleep(POLL_S)
        return "quiesced", int((time.monotonic() - began) * 1000), "not_required"
    await terminate(run.process)
    return "alive_at_deadline", int((time.monotonic() - began) * 1000), "cleaned"


def _drain(run: _Run) -> None:
    """What the terminal still holds after the group ended (a bounded number of reads)."""
    for _ in range(1000):
        before = (len(run.frames), run.dropped)
        run.read()
        if run.eof or (len(run.frames), run.dropped) == before:
            return


# what the shim writes in its journal (shim_main.py); read back as written, not re-validated
ShimOutcome = Literal["matched", "unmatched", "exhausted"]


def _shim_calls(scratch: str, start_epoch: float) -> tuple[tuple[ShimCall, ...], bool]:
    calls, whole = launch.read_journal(scratch)
    out = []
    for c in calls:
        try:
            out.append(ShimCall(at_ms=max(0, int((float(c["t"]) - start_epoch) * 1000)), command=str(c["command"]),
                                arguments=tuple(str(a) for a in c["arguments"]),
                                working_directory=str(c["working_directory"]),
                                route_index=c["route_index"] if isinstance(c["route_index"], int) else None,
                                outcome=cast(ShimOutcome, str(c["outcome"]))))  # fmt: skip
        except (KeyError, TypeError, ValueError):
            whole = False
    return tuple(out), whole


def _snap(effect: RunScenario, at_ms: int) -> Snapshot:
    limits = effect.limits
    return snapshot(effect.roots, limits.files, limits.filesystem_depth, limits.file_bytes, at_ms)


async def _spawn(
    argv: list[str], env: dict[str, str], effect: RunScenario, slave: int, pass_fds: tuple[int, ...] = ()
) -> anyio.abc.Process:
    try:
        return await anyio.open_process(argv, stdin=slave, stdout=slave, stderr=slave, cwd=effect.working_directory,
                                        env=env, start_new_session=False, pass_fds=pass_fds)  # fmt: skip
    except OSError as exc:
        raise Refused(ReaError(code="process_capture_failed", message=f"the launch failed: {exc}",
                                details={"executable": effect.executable}))  # fmt: skip


@attrs.frozen(kw_only=True)
class _Before:
    """What is known before launch: the run's identity, isolation and first snapshot."""

    started_at: str
    start_epoch: float
    executable_sha256: str
    isolation: str
    before: Snapshot
    scratch: str


def _answer(effect: RunScenario, known: _Before, run: _Run, ending: tuple[Any, ...], after: Snapshot) -> ScenarioRun:
    reason, state, elapsed, cleanup = ending
    calls, whole = _shim_calls(known.scratch, known.start_epoch)
    code = run.process.returncode
    return ScenarioRun(
        started_at=known.started_at,
        completed_at=now(),
        executable_sha256=known.executable_sha256,
        platform=platform.system().lower(),
        architecture=platform.machine(),
        network_isolation=known.isolation,
        frames=tuple(run.frames),
        output_dropped_bytes=run.dropped,
        interactions=tuple(run.interactions),
        exit_code=code if code is not None and code >= 0 else None,
        exit_signal=-code if code is not None and code < 0 else None,
        reason=reason,
        settle_state=state,
        settle_elapsed_ms=elapsed,
        settle_cleanup=cleanup,
        processes=tuple(sorted(run.seen.values(), key=lambda p: (p.at_ms, p.pid))),
        processes_dropped=run.processes_dropped,
        root_sampled=any(p.pid == run.group for p in run.seen.values()),
        sample_interval_ms=int(SAMPLE_S * 1000),
        before=known.before,
        after=after,
        shim_calls=calls,
        shim_journal_complete=whole,
        scratch_paths=_placeholders(effect, known.scratch),
        checkpoints=tuple(run.live.taken),
        machine=run.live.state,
    )


async def _end(run: _Run) -> tuple[Any, ...]:
    """Observe until the run ends, then settle or stop the group: (reason, settle state, elapsed, cleanup)."""
    reason = await _observe(run)
    if reason == "exited":
        _drain(run)
        await run.live.exited(run)
        ending: tuple[Any, ...] = (reason, *await _settle(run))
    else:
        run.live.ended(reason, run.ms())
        began = time.monotonic()
        await terminate(run.process)
        ending = (reason, "alive_at_deadline", int((time.monotonic() - began) * 1000), "cleaned")
    _drain(run)
    return ending


async def _owned_run(effect: RunScenario, known: _Before, run: _Run, progress: Progress) -> ScenarioRun:
    """The run from launch to its verified end. A cancel hands what was observed until then to the program
    (progress.effect_partial: reason cancelled, no after snapshot) once the group is verified gone."""
    name = f"process-capture-{run.group}"
    owned.own(name, lambda: _kill(run.group))
    remaining: list[str] = ["not checked"]
    try:
        try:
            ending = await _end(run)
        finally:
            with anyio.CancelScope(shield=True):
                remaining = await terminate(run.process)
                if not remaining:
                    owned.disown(name)
    except anyio.get_cancelled_exc_class():
        if not remaining:
            run.live.ended("cancelled", run.ms())
            empty = Snapshot(at_ms=run.ms(), entries=(), truncated=True, hash_omissions=0)
            progress.effect_partial = _answer(effect, known, run, ("cancelled", "unverifiable", 0, "cleaned"), empty)
        raise
    if remaining:
        raise Refused(processes_left("captured process", remaining, "call capture_process_scenario again"))
    after = await anyio.to_thread.run_sync(_snap, effect, run.ms())
    run.live.settled(after)
    return _answer(effect, known, run, ending, after)


async def _capture(effect: RunScenario, scratch: str, progress: Progress) -> ScenarioRun:
    _check_inputs(effect)
    tap = loopback.open_tap(effect.network_access, effect.limits)  # None unless network_access is loopback
    argv, isolation = launch.command(effect.executable, effect.arguments, effect.network_access,
                                     tap.step() if tap else ())  # fmt: skip
    shim_dir = launch.write_shims(effect.shims, scratch)
    env = launch.environment(effect.environment, effect.inherit_environment, shim_dir)
    executable_sha256 = await anyio.to_thread.run_sync(_sha256, effect.executable)
    before = await anyio.to_thread.run_sync(_snap, effect, 0)
    master, slave = os.openpty()
    try:
        _winsize(slave, effect.terminal.rows, effect.terminal.columns)
        os.set_blocking(master, False)
        known = _Before(started_at=now(), start_epoch=time.time(), executable_sha256=executable_sha256,
                        isolation=isolation, before=before, scratch=scratch)  # fmt: skip
        start = time.monotonic()
        process = await _spawn(argv, env, effect, slave, tap.pass_fds() if tap else ())
        os.close(slave)
        slave = -1
        run = _Run(effect, process, master, start, launch.launchers(argv))
        return await loopback.observed(tap, known.start_epoch, progress, _owned_run(effect, known, run, progress))
    finally:
        if tap is not None:
            tap.close()
        for fd in (master, slave):
            if fd >= 0:
                os.close(fd)


def _placeholders(effect: RunScenario, scratch: str) -> dict[str, str]:
    out = {"$SCRATCH": scratch, "$WORKDIR": effect.working_directory}
    out.update({f"$ROOT{i}": os.path.normpath(r) for i, r in enumerate(effect.roots)})
    return out


def _kill(group: int) -> None:
    try:
        os.killpg(group, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


async def run_scenario(effect: RunScenario, progress: Progress) -> Result[Any, ReaError]:
    base = cache_root() / "process-capture"
    base.mkdir(parents=True, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="run-", dir=base)
    try:
        answer: Result[Any, ReaError] = Success(await _capture(effect, scratch, progress))
    except Refused as refused:
        answer = Failure(refused.error)
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(shutil.rmtree, scratch, True)
    if os.path.lexists(scratch):
        return Failure(ReaError(code="cleanup_incomplete", message=f"the capture's scratch {scratch} was not removed",
                                details={"owned_resources": ["temporary_root"], "path": scratch}))  # fmt: skip
    return answer


async def measure_ages(effect: MeasureAges, progress: Progress) -> Result[Any, ReaError]:
    import datetime

    current = datetime.datetime.now(datetime.UTC)
    ages = []
    for stamp in effect.timestamps:
        try:
            then = datetime.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        except ValueError:
            return Failure(invalid_request(f"the capture's completed_at {stamp!r} is not a time", field="manifest"))
        ages.append(int((current - then).total_seconds() * 1000))
    return Success(tuple(ages))


HANDLERS = {RunScenario: run_scenario, MeasureAges: measure_ages}
