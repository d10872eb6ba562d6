"""Result records of capture_process_scenario and compare_process_captures: the reference's 3.1 result
shape (schema_version 4), every required field present, the fields of features this build lacks
present and empty (replay_transitions empty) with the reason in limitations; reactive_run is null when
no machine was declared."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import attrs

from rea.process_capture.protocol import ProtocolEvent
from rea.process_capture.reactive_records import ReactiveRun
from rea.process_capture.records import Normalization
from rea.wire.key_order import sent_in
from rea.wire.schema import Open, field

SHA256 = "^[a-f0-9]{64}$"
Status = Literal["unchanged", "added", "removed", "changed", "truncated", "unknown", "contradiction"]
Dimension = Literal["terminal", "interaction", "exit", "filesystem", "protocol", "process", "shim"]
Scope = Literal["terminal", "interaction", "exit", "process", "filesystem", "protocol", "shim", "cleanup"]


@attrs.frozen(kw_only=True)
class FileEntry:
    path: str = field("Absolute path at capture time")
    type: Literal["file", "symlink", "directory", "other"] = field("lstat type")
    size: int = field("Bytes (lstat)", minimum=0)
    mode: int = field("Permission bits and type (st_mode)", minimum=0)
    sha256: str | None = field("Content digest of a regular file; null: not hashed (budget, unreadable, not a file)")
    symlink_target: str | None = field("readlink of a symlink")


@attrs.frozen(kw_only=True)
class FileEffect:
    path: str = field("Absolute path")
    status: Literal["created", "deleted", "modified"] = field("Change between the two snapshots")
    before: FileEntry | None = field("Entry before (null: created)")
    after: FileEntry | None = field("Entry after (null: deleted)")


@attrs.frozen(kw_only=True)
class FilesystemCheckpoint:
    name: str = field("before, a declared checkpoint or checkpoint action's name, or after_settlement")
    at_ms: int = field("Milliseconds after launch", minimum=0)
    files: tuple[FileEntry, ...] = field("Entries under the roots")
    effects: tuple[FileEffect, ...] = field("Changes since the previous checkpoint (empty for before)")
    truncated: bool = field("The files or depth limit cut the walk")


@attrs.frozen(kw_only=True)
class Frame:
    sequence: int = field("Order of reading", minimum=0)
    at_ms: int = field("Milliseconds after launch", minimum=0)
    data: str = field("Bytes read from the terminal, UTF-8 (invalid bytes replaced), secrets redacted")


@attrs.frozen(kw_only=True)
class RenderedFrame:
    sequence: int = field("Order", minimum=0)
    at_ms: int = field("Time of the last raw frame it includes", minimum=0)
    columns: int = field("Columns", minimum=1)
    rows: int = field("Rows", minimum=1)
    cursor_x: int = field("Cursor column", minimum=0)
    cursor_y: int = field("Cursor row", minimum=0)
    active_buffer: Literal["normal", "alternate"] = field("Screen buffer")
    lines: tuple[str, ...] = field("Screen lines, trailing blanks removed")
    serialized_state: str = field("Scrollback then screen, one text")


@attrs.frozen(kw_only=True)
class InteractionEvent:
    sequence: int = field("Declared order", minimum=0)
    type: Literal["input", "resize", "stdin_close", "signal"] = field("What was done")
    data: str = field("Input text (<sensitive> when marked), 'COLSxROWS', or the signal name")
    scheduled_at_ms: int = field("Declared time", minimum=0)
    dispatched_at_ms: int = field("Time it was done (or found impossible)", minimum=0)
    outcome: Literal["dispatched", "target_exited", "failed"] = field("What happened")


@attrs.frozen(kw_only=True)
class ExitFacts:
    code: int | None = field("Exit code (null: ended by a signal or not observed)")
    signal: int | None = field("Terminating signal number (null: exited)")
    reason: Literal["exited", "timeout", "idle_timeout", "cancelled", "reactive_stopped"] = field(
        "Why the run ended (our extras: cancelled, only in the partial Evidence of a cancelled capture; "
        "reactive_stopped, the reactive machine ended other than passed)"
    )


@attrs.frozen(kw_only=True)
class Settlement:
    state: Literal["quiesced", "alive_at_deadline", "unverifiable"] = field("The group after the root ended")
    elapsed_ms: int = field("Time spent settling", minimum=0)
    cleanup_outcome: Literal["not_required", "cleaned", "failed"] = field("What stopping the rest did")


@attrs.frozen(kw_only=True)
class ProcessSample:
    at_ms: int = field("When the process was first seen in the group", minimum=0)
    pid: int = field("Process id", minimum=1)
    parent_pid: int = field("Parent process id", minimum=0)
    process_group_id: int | None = field("Process group")
    session_id: int | None = field("Session")
    command: str = field("Command line, secrets redacted")


@attrs.frozen(kw_only=True)
class ShimEvent:
    sequence: int = field("Order of invocation", minimum=0)
    at_ms: int = field("Milliseconds after launch", minimum=0)
    command: str = field("Shim name")
    arguments: tuple[str, ...] = field("Its argv[1:]")
    working_directory: str = field("Its working directory")
    route_index: int | None = field("Route that answered (null: none)")
    outcome: Literal["matched", "unmatched", "exhausted"] = field("How it answered")


@attrs.frozen(kw_only=True)
class JournalEntry:
    capture_order: int = field("Global order", minimum=0)
    collection: Literal["frames", "interaction_events", "process_samples", "shim_events", "protocol_events"] = field(
        "Which list"
    )
    index: int = field("Index in that list", minimum=0)


@attrs.frozen(kw_only=True)
class ResidualUnknown:
    scope: Scope = field("Dimension it leaves open")
    reason: str = field("Why")


@attrs.frozen(kw_only=True)
class Cleanup:
    owned_process_group: Literal["verified"] = field("No member of the group survives (checked)")
    temporary_root: Literal["removed"] = field("The scratch directory is gone (checked)")


@attrs.frozen(kw_only=True)
class Manifest:
    rea_version: str = field("REA version")
    provider_version: str = field("Capture runner version")
    platform: str = field("Host platform")
    architecture: str = field("Host machine")
    pty_backend: str = field("os.openpty (Linux pseudo-terminal)")
    started_at: str = field("UTC launch time")
    completed_at: str = field("UTC end of cleanup")
    executable_sha256: str = field("SHA-256 of the executable, read before launch", pattern=SHA256)
    scenario: Open = field("The declared scenario (secrets redacted)")
    full_scenario_sha256: str = field("SHA-256 of its canonical JSON", pattern=SHA256)
    comparison_contract: Open = field("The fields two captures must share to be compared")
    comparison_contract_sha256: str = field("SHA-256 of its canonical JSON", pattern=SHA256)
    shim_plan: tuple[Open, ...] = field("The command shims as declared")
    shim_plan_sha256: str = field("SHA-256 of its canonical JSON", pattern=SHA256)
    replay_plan: Open = field("Empty: no replay here")
    replay_plan_sha256: str = field("SHA-256 of its canonical JSON", pattern=SHA256)
    normalization_sha256: str = field("SHA-256 of the normalization's canonical JSON", pattern=SHA256)
    network_isolation: str = field("Our extra: how network access was restricted")
    host_paths: Mapping[str, str] = field("Our extra: placeholder -> host path, for path normalization")


@attrs.frozen(kw_only=True)
class ProcessCapture:
    schema_version: Literal[4] = field("Result schema")
    manifest: Manifest = field("What ran, where, when")
    normalization: Normalization = field("As declared")
    frames: tuple[Frame, ...] = field("Raw terminal reads")
    rendered_frames: tuple[RenderedFrame, ...] = field("The screen after each burst of output (pyte)")
    interaction_events: tuple[InteractionEvent, ...] = field("Declared events as dispatched")
    exit: ExitFacts = field("How the root process ended")
    settlement: Settlement = field("The group after the root ended")
    process_samples: tuple[ProcessSample, ...] = field("Distinct processes seen in the group")
    files_before: tuple[FileEntry, ...] = field("Snapshot before launch")
    files_after: tuple[FileEntry, ...] = field("Snapshot after settlement")
    filesystem_effects: tuple[FileEffect, ...] = field("Created, deleted and modified entries")
    filesystem_checkpoints: tuple[FilesystemCheckpoint, ...] = field("before, those taken, after_settlement")
    protocol_events: tuple[ProtocolEvent, ...] = field("The run's loopback traffic (network_access loopback)")
    shim_events: tuple[ShimEvent, ...] = field("Shim invocations")
    replay_transitions: tuple[Open, ...] = field("Empty: no replay here")
    reactive_run: ReactiveRun | None = field("The reactive machine's run (null: none declared)")
    event_journal: tuple[JournalEntry, ...] = field("Every retained observation in capture order")
    truncated: bool = field("A limit cut what was retained")
    limitations: tuple[str, ...] = field("What this capture cannot tell")
    residual_unknowns: tuple[ResidualUnknown, ...] = field("Dimensions left open, with the reason")
    cleanup: Cleanup = field("Verified cleanup")


@attrs.frozen(kw_only=True)
class DivergenceNone:
    status: Literal["none"] = field("Every dimension unchanged")


@attrs.frozen(kw_only=True)
class DivergenceUnknown:
    status: Literal["unknown"] = field("Not decidable")
    reason: str = field("Why")


@attrs.frozen(kw_only=True)
class DivergenceFound:
    status: Literal["found"] = field("The earliest difference")
    dimension: Dimension = field("Where")
    index: int = field("Index in that dimension's normalized observations", minimum=0)
    left_at_ms: int | None = field("Its time on the left (null: none there)")
    right_at_ms: int | None = field("Its time on the right (null: none there)")
    left: Open = field("Left normalized observation (null: none)")
    right: Open = field("Right normalized observation (null: none)")


@attrs.frozen(kw_only=True)
class CaptureComparison:
    # the reply has always sent the dimensions in compare.DIMENSIONS order and the ids last
    __wire__ = sent_in(("status", "terminal", "interaction", "exit", "filesystem", "protocol", "process", "shim",
                        "first_divergence", "limitations", "left_evidence_id", "right_evidence_id"))  # fmt: skip

    status: Status = field("Overall: truncated, changed, unknown or unchanged")
    terminal: Status = field("Terminal text")
    interaction: Status = field("Dispatched events")
    exit: Status = field("Exit and settlement")
    filesystem: Status = field("Filesystem effects")
    process: Status = field("Distinct processes")
    protocol: Status = field("Protocol events")
    shim: Status = field("Shim invocations")
    first_divergence: DivergenceNone | DivergenceUnknown | DivergenceFound = field("Earliest difference")
    left_evidence_id: str = field("Our extra: the left capture")
    right_evidence_id: str = field("Our extra: the right capture")
    limitations: tuple[str, ...] = field("What the comparison cannot tell")
