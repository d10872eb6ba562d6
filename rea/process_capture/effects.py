"""The process-capture effects: one owned run of a declared scenario, and the clock a capture's age is read by."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import attrs

from rea.process_capture.protocol import LoopbackTraffic
from rea.process_capture.reactive import Compiled, MachineState
from rea.process_capture.reactive_records import Checkpoint
from rea.process_capture.records import CaptureLimits, CommandShim, Event, TerminalSize
from rea.process_capture.results import FileEntry


@attrs.frozen(kw_only=True)
class RunScenario:
    """Launch `executable` on a fresh pseudo-terminal, in a fresh session and process group (and network
    namespace), under a scratch directory in REA's cache; dispatch `events`, read output, sample the group,
    snapshot `roots` before and after (and at each checkpoint); drive `machine` (if any) by what the terminal shows;
    kill the group on the deadline or idle limit, when the machine ends other than passed, and after settlement;
    verify it and the scratch gone. Answers ScenarioRun, or cleanup_incomplete / process_capture_failed."""

    executable: str
    arguments: tuple[str, ...]
    environment: Mapping[str, str]
    inherit_environment: tuple[str, ...]
    working_directory: str
    events: tuple[Event, ...]
    shims: tuple[CommandShim, ...]
    roots: tuple[str, ...]
    limits: CaptureLimits
    terminal: TerminalSize
    network_access: str
    timeout_ms: int
    idle_timeout_ms: int
    settle_ms: int
    checkpoints: tuple[Checkpoint, ...] = ()
    machine: Compiled | None = None


@attrs.frozen(kw_only=True)
class RawFrame:
    at_ms: int
    data: bytes


@attrs.frozen(kw_only=True)
class Dispatched:
    sequence: int
    type: Literal["input", "resize", "stdin_close", "signal"]
    data: str
    scheduled_at_ms: int
    dispatched_at_ms: int
    outcome: Literal["dispatched", "target_exited", "failed"]


@attrs.frozen(kw_only=True)
class SeenProcess:
    at_ms: int
    pid: int
    parent_pid: int
    process_group_id: int | None
    session_id: int | None
    command: str


@attrs.frozen(kw_only=True)
class Snapshot:
    at_ms: int
    entries: tuple[FileEntry, ...]
    truncated: bool
    hash_omissions: int  # regular files whose digest the byte budget or a read error left out


@attrs.frozen(kw_only=True)
class Taken:
    """A named checkpoint's snapshot, in the order taken."""

    name: str
    snapshot: Snapshot


@attrs.frozen(kw_only=True)
class ShimCall:
    at_ms: int
    command: str
    arguments: tuple[str, ...]
    working_directory: str
    route_index: int | None
    outcome: Literal["matched", "unmatched", "exhausted"]


@attrs.frozen(kw_only=True)
class ScenarioRun:
    started_at: str
    completed_at: str
    executable_sha256: str
    platform: str
    architecture: str
    network_isolation: str
    frames: tuple[RawFrame, ...]
    output_dropped_bytes: int  # read past limits.output_bytes / limits.frames and not retained
    interactions: tuple[Dispatched, ...]
    exit_code: int | None
    exit_signal: int | None
    reason: Literal["exited", "timeout", "idle_timeout", "cancelled", "reactive_stopped"]
    settle_state: Literal["quiesced", "alive_at_deadline", "unverifiable"]
    settle_elapsed_ms: int
    settle_cleanup: Literal["not_required", "cleaned", "failed"]
    processes: tuple[SeenProcess, ...]
    processes_dropped: int
    root_sampled: bool  # whether the executable itself was ever sampled (a run too short for one is not)
    sample_interval_ms: int
    before: Snapshot
    after: Snapshot
    shim_calls: tuple[ShimCall, ...]
    shim_journal_complete: bool
    # host paths that differ between two runs of one scenario: placeholder -> path
    scratch_paths: Mapping[str, str]
    loopback: LoopbackTraffic | None = None  # the loopback observer's record (None: no observer ran)
    checkpoints: tuple[Taken, ...] = ()  # taken between before and after, in order
    machine: MachineState | None = None  # the reactive machine at the end


@attrs.frozen(kw_only=True)
class MeasureAges:
    """How long ago (ms, now minus each) each ISO-8601 UTC time was; answers tuple[int, ...] (the clock is IO)."""

    timestamps: tuple[str, ...]
