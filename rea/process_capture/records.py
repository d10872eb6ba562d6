"""Argument records of capture_process_scenario and compare_process_captures: the reference's 3.1 shape
(generatedMcpToolCatalog.ts), with what this build does not do narrowed so that it is refused, never ignored.

Narrowed: `replay` takes only its empty value (no replay servers here); `network_access` takes `none` or
`loopback` (the run is put in a private network namespace: docs/process_capture.md), where
the reference takes only `host`; `trace_spec` is not accepted. Our extras: a `stdin_close`
event and `network_access` values. `checkpoints` and `reactive` have the reference's shapes
(rea.process_capture.reactive_records), advertised loosely and checked in full by the program.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import attrs

from rea.wire.schema import Open, field, local_path

ABSOLUTE = "^/.*"
ENV_NAME = "^[A-Za-z_][A-Za-z0-9_]*$"
EVIDENCE_ID = "^ev_[a-f0-9]{64}$"
SAFE = 2**53 - 1
MAX_MS = 300_000
SignalName = Literal["SIGINT", "SIGTERM", "SIGKILL"]
# events and command_shims are advertised as arrays of objects whose shape their descriptions spell out (the
# catalog's context target: their full unions would cost a model 2.8 KB); the program checks every item
# against the full schema (rea.process_capture.programs._check), so what is accepted does not change
LOOSE_ARRAY = {"type": "array", "items": {"type": "object"}}


@attrs.frozen(kw_only=True)
class InputEvent:
    at_ms: int = field(minimum=0, maximum=MAX_MS)
    type: Literal["input"] = field()
    data: str = field(maxLength=1_000_000)
    sensitive: bool = field(default=False)


@attrs.frozen(kw_only=True)
class ResizeEvent:
    at_ms: int = field(minimum=0, maximum=MAX_MS)
    type: Literal["resize"] = field()
    columns: int = field(minimum=1, maximum=1000)
    rows: int = field(minimum=1, maximum=1000)


@attrs.frozen(kw_only=True)
class SignalEvent:
    at_ms: int = field(minimum=0, maximum=MAX_MS)
    type: Literal["signal"] = field()
    signal: SignalName = field()


@attrs.frozen(kw_only=True)
class StdinCloseEvent:
    at_ms: int = field(minimum=0, maximum=MAX_MS)
    type: Literal["stdin_close"] = field()


Event = InputEvent | ResizeEvent | SignalEvent | StdinCloseEvent


@attrs.frozen(kw_only=True)
class ShimOutput:
    at_ms: int = field(minimum=0, maximum=MAX_MS)
    stream: Literal["stdout", "stderr"] = field()
    data: str = field(maxLength=1_000_000)


@attrs.frozen(kw_only=True)
class ExitTermination:
    type: Literal["exit"] = field()
    code: int = field(minimum=0, maximum=255)


@attrs.frozen(kw_only=True)
class SignalTermination:
    type: Literal["signal"] = field()
    signal: SignalName = field()


@attrs.frozen(kw_only=True)
class ShimRoute:
    arguments: tuple[str, ...] = field(maxItems=256)
    max_calls: int = field(default=1, minimum=1, maximum=100)
    outputs: tuple[ShimOutput, ...] = field(default=(), maxItems=1000)
    termination: ExitTermination | SignalTermination = field()


@attrs.frozen(kw_only=True)
class CommandShim:
    name: str = field(pattern="^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
    routes: tuple[ShimRoute, ...] = field(minItems=1, maxItems=100)


@attrs.frozen(kw_only=True)
class CaptureLimits:
    connections: int = field(default=100, minimum=1, maximum=1000)
    file_bytes: int = field(default=10_000_000, minimum=1, maximum=100_000_000)
    files: int = field(default=10_000, minimum=1, maximum=100_000)
    filesystem_depth: int = field(default=16, minimum=1, maximum=64)
    frames: int = field(default=10_000, minimum=1, maximum=100_000)
    output_bytes: int = field(default=1_000_000, minimum=1, maximum=10_000_000)
    processes: int = field(default=1000, minimum=1, maximum=10_000)
    protocol_body_bytes: int = field(default=1_000_000, minimum=1, maximum=10_000_000)
    protocol_events: int = field(default=10_000, minimum=1, maximum=100_000)


@attrs.frozen(kw_only=True)
class NormalizationPattern:
    pattern: str = field(maxLength=500)
    replacement: str = field(maxLength=100)


@attrs.frozen(kw_only=True)
class Normalization:
    paths: bool = field(default=True)
    patterns: tuple[NormalizationPattern, ...] = field(default=(), maxItems=32)
    pids: bool = field(default=True)
    ports: bool = field(default=True)
    time_bucket_ms: int = field(default=10, minimum=1, maximum=60_000)


@attrs.frozen(kw_only=True)
class TerminalSize:
    columns: int = field(default=80, minimum=1, maximum=1000)
    rows: int = field(default=24, minimum=1, maximum=1000)
    scrollback: int = field(default=1000, minimum=0, maximum=10_000)


@attrs.frozen(kw_only=True)
class ReplayPlan:
    """Accepted empty only: no replay server runs here."""

    http: tuple[str, ...] = field(default=(), maxItems=0)
    machine: None = field(default=None)
    websocket_connections: tuple[str, ...] = field(default=(), maxItems=0)
    websocket_messages: tuple[str, ...] = field(default=(), maxItems=0)


@attrs.frozen(kw_only=True)
class CaptureArgs:
    approved: Literal[True] = field("The caller approves running this executable")
    executable: str = field("Absolute path of the program to run", pattern=ABSOLUTE, maxLength=4096)
    working_directory: str = local_path("Existing directory it runs in")
    arguments: tuple[str, ...] = field("argv[1:]", default=(), maxItems=256)
    environment: Mapping[str, str] = field(
        "Its environment (plus inherit_environment)",
        factory=dict,
        propertyNames={"pattern": ENV_NAME},
    )
    inherit_environment: tuple[str, ...] = field("Names of REA's environment passed through", default=(), maxItems=64)
    secret_aliases: tuple[str, ...] = field("Environment names whose values are redacted", default=(), maxItems=32)
    events: tuple[Event, ...] = field(
        "Timed events {at_ms, type}: input {data, sensitive}, resize {columns, rows}, signal {signal: "
        "SIGINT|SIGTERM|SIGKILL} to the group, stdin_close (EOF)",
        default=(),
        schema=LOOSE_ARRAY,
        maxItems=1000,
    )
    command_shims: tuple[CommandShim, ...] = field(
        "Scripts first on PATH, each {name, routes: [{arguments, max_calls, outputs: [{at_ms, stream: "
        "stdout|stderr, data}], termination: {type: exit, code} | {type: signal, signal}}]}: the first route "
        "whose arguments equal argv answers, else exit 127",
        default=(),
        schema=LOOSE_ARRAY,
        maxItems=32,
    )
    filesystem_roots: tuple[str, ...] = field("Directories snapshot before and after", default=(), maxItems=16)
    checkpoints: tuple[Open, ...] = field(
        "Snapshots of the roots: {name, trigger: {type: time, at_ms}|{type: terminal_literal, value, occurrence}"
        "|{type: root_exit|settled}}",
        default=(),
        schema=LOOSE_ARRAY,
        maxItems=64,
    )
    limits: CaptureLimits = field(
        "Retention bounds",
        factory=CaptureLimits,
    )
    terminal: TerminalSize = field("The pseudo-terminal's size", factory=TerminalSize)
    normalization: Normalization = field(
        "How compare_process_captures normalizes text: paths, pids, ports, then regex patterns",
        factory=Normalization,
    )
    network_access: Literal["none", "loopback"] = field(
        "none: no network at all; loopback: a private loopback, its traffic recorded", default="none"
    )
    timeout_ms: int = field("Deadline from launch; then the group is killed", default=30_000, minimum=1, maximum=MAX_MS)
    idle_timeout_ms: int = field("Kill after this long with no output", default=30_000, minimum=1, maximum=MAX_MS)
    settle_ms: int = field("Wait for the group to empty after the root exits", default=100, minimum=0, maximum=10_000)
    reactive: Open = field(
        "A machine answering the terminal: {version: 1, initial_state, deadline_ms, states: [{id, max_visits, "
        "deadline_ms, on: [{id, priority, max_uses, when, actions, target}]}]}",
        default=None,
        schema={"type": ["object", "null"]},
    )
    replay: ReplayPlan = field("Not supported here: empty", factory=ReplayPlan, schema={"type": "object"})


@attrs.frozen(kw_only=True)
class CompareCapturesArgs:
    left_evidence_id: str = field("Retained capture_process_scenario Evidence", pattern=EVIDENCE_ID)
    right_evidence_id: str = field("Retained capture_process_scenario Evidence", pattern=EVIDENCE_ID)
    max_capture_age_ms: int | None = field(
        "Refuse captures completed longer ago than this", omit_none=True, minimum=0, maximum=SAFE
    )
