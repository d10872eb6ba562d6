"""The wire records of capture_process_scenario's `checkpoints` and `reactive` arguments and of its
`reactive_run` result: the reference's 3.1 shapes (generatedMcpToolCatalog.ts).

Both arguments are advertised loosely (described, like `events`) and checked here in full by the
program (rea.process_capture.programs._check): `when`, the machine's recursive trigger language,
is one JSON node in the records and has its own schema (PREDICATE_SCHEMA, with $defs for the
recursion the record types cannot say), so a refusal still names the exact field.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from rea.wire.schema import Open, field

MAX_MS = 300_000
STATE_ID = "^[A-Za-z][A-Za-z0-9._-]{0,63}$"
CHECKPOINT_NAME = "^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"
SignalName = Literal["SIGINT", "SIGTERM", "SIGKILL"]
Outcome = Literal[
    "passed", "predicate_timeout", "scenario_deadline", "ambiguous_match", "action_rejected", "target_lost",
    "capture_incomplete", "cancelled", "cleanup_failed",
]  # fmt: skip
ControlKind = Literal["state_deadline", "scenario_deadline", "target_lost", "cancelled", "cleanup_failed"]
ActionType = Literal["send_input", "resize", "close_stdin", "send_signal", "checkpoint"]


@attrs.frozen(kw_only=True)
class TimeTrigger:
    type: Literal["time"] = field()
    at_ms: int = field(minimum=0, maximum=MAX_MS)


@attrs.frozen(kw_only=True)
class LiteralTrigger:
    type: Literal["terminal_literal"] = field()
    value: str = field(minLength=1, maxLength=10_000)
    occurrence: int = field(default=1, minimum=1, maximum=1000)


@attrs.frozen(kw_only=True)
class RootExitTrigger:
    type: Literal["root_exit"] = field()


@attrs.frozen(kw_only=True)
class SettledTrigger:
    type: Literal["settled"] = field()


Trigger = TimeTrigger | LiteralTrigger | RootExitTrigger | SettledTrigger


@attrs.frozen(kw_only=True)
class Checkpoint:
    name: str = field(pattern=CHECKPOINT_NAME)
    trigger: Trigger = field()


@attrs.frozen(kw_only=True)
class SendInput:
    type: Literal["send_input"] = field()
    data: str = field(maxLength=1_000_000)
    sensitive: bool = field()


@attrs.frozen(kw_only=True)
class ResizeAction:
    type: Literal["resize"] = field()
    columns: int = field(minimum=1, maximum=1000)
    rows: int = field(minimum=1, maximum=1000)


@attrs.frozen(kw_only=True)
class CloseStdin:
    type: Literal["close_stdin"] = field()


@attrs.frozen(kw_only=True)
class RootTarget:
    kind: Literal["root"] = field()


@attrs.frozen(kw_only=True)
class GroupTarget:
    kind: Literal["process_group"] = field()


@attrs.frozen(kw_only=True)
class SubjectTarget:
    kind: Literal["subject_id"] = field()
    subject_id: str = field(pattern=STATE_ID)


@attrs.frozen(kw_only=True)
class SendSignal:
    type: Literal["send_signal"] = field()
    target: RootTarget | GroupTarget | SubjectTarget = field()
    signal: SignalName = field()


@attrs.frozen(kw_only=True)
class CheckpointAction:
    type: Literal["checkpoint"] = field()
    name: str = field(pattern=CHECKPOINT_NAME)


Action = SendInput | ResizeAction | CloseStdin | SendSignal | CheckpointAction


@attrs.frozen(kw_only=True)
class Goto:
    kind: Literal["goto"] = field()
    state: str = field(pattern=STATE_ID)


@attrs.frozen(kw_only=True)
class Finish:
    kind: Literal["finish"] = field()
    outcome: Literal["passed"] = field()


@attrs.frozen(kw_only=True)
class Transition:
    id: str = field(pattern=STATE_ID)
    priority: int = field(minimum=0, maximum=1000)
    max_uses: int = field(minimum=1, maximum=256)
    when: Open = field("A trigger (PREDICATE_SCHEMA)")
    actions: tuple[Action, ...] = field(maxItems=16)
    target: Goto | Finish = field()


@attrs.frozen(kw_only=True)
class State:
    id: str = field(pattern=STATE_ID)
    max_visits: int = field(minimum=1, maximum=256)
    deadline_ms: int = field(minimum=1, maximum=MAX_MS)
    on: tuple[Transition, ...] = field(minItems=1, maxItems=128)


@attrs.frozen(kw_only=True)
class Machine:
    version: Literal[1] = field()
    initial_state: str = field(pattern=STATE_ID)
    deadline_ms: int = field(minimum=1, maximum=MAX_MS)
    states: tuple[State, ...] = field(minItems=1, maxItems=32)


def _closed(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "properties": properties, "required": required}


def _const(value: str) -> dict[str, Any]:
    return {"type": "string", "const": value}


_NAME = {"type": "string", "pattern": CHECKPOINT_NAME}
_ID = {"type": "string", "pattern": STATE_ID}
_COUNT = {"type": "integer", "minimum": 1, "maximum": 256}
_SINCE = {
    "oneOf": [
        _closed({"kind": _const("scenario_start")}, ["kind"]),
        _closed({"kind": _const("state_entry")}, ["kind"]),
        _closed({"kind": _const("checkpoint"), "name": _NAME}, ["kind", "name"]),
        _closed({"kind": _const("event_id"), "event_id": _ID}, ["kind", "event_id"]),
    ]
}
SOURCES = ("terminal_raw", "terminal_rendered", "interaction", "lifecycle", "process", "filesystem", "http",
           "websocket", "shim", "replay_transition")  # fmt: skip
IGNORABLE = ("sequence", "at_ms", "scheduled_at_ms", "dispatched_at_ms", "elapsed_ms")
_TRIGGERS = {"type": "array", "items": {"$ref": "#/$defs/trigger"}, "maxItems": 16}
_EVENT = _closed(
    {
        "kind": _const("event"),
        "source": {"type": "string", "enum": list(SOURCES)},
        "exact": {},  # any JSON value
        "ignore_fields": {"type": "array", "items": {"type": "string", "enum": list(IGNORABLE)}, "maxItems": 5},
        "since": _SINCE,
        "consume": {"type": "boolean"},
        "cardinality": _closed({"min": _COUNT, "max": _COUNT}, ["min", "max"]),
    },
    ["kind", "source", "exact", "ignore_fields", "since", "consume", "cardinality"],
)
_TEXT = _closed(
    {
        "kind": _const("terminal_text"),
        "view": _const("decoded"),
        "encoding": _const("utf8"),
        "literal": {"type": "string", "minLength": 1, "maxLength": 10_000},
        "case_sensitive": {"type": "boolean", "const": True},
        "control_sequences": _const("include"),
        "occurrence": {"type": "integer", "minimum": 1, "maximum": 1000},
        "since": _SINCE,
        "consume": {"type": "boolean"},
    },
    ["kind", "view", "encoding", "literal", "case_sensitive", "control_sequences", "occurrence", "since", "consume"],
)
# the machine's trigger language: the reference's recursive `when` (a JSON Schema $defs recursion)
PREDICATE_SCHEMA: dict[str, Any] = {
    "$defs": {
        "trigger": {
            "oneOf": [
                _EVENT,
                _TEXT,
                _closed({"kind": _const("all"), "triggers": {**_TRIGGERS, "minItems": 2}}, ["kind", "triggers"]),
                _closed({"kind": _const("any"), "triggers": {**_TRIGGERS, "minItems": 2}}, ["kind", "triggers"]),
                _closed({"kind": _const("sequence"), "triggers": {**_TRIGGERS, "minItems": 1}}, ["kind", "triggers"]),
                _closed(
                    {
                        "kind": _const("repeat"),
                        "trigger": {"$ref": "#/$defs/trigger"},
                        "min": {"type": "integer", "minimum": 1, "maximum": 64},
                        "max": {"type": "integer", "minimum": 1, "maximum": 64},
                    },
                    ["kind", "trigger", "min", "max"],
                ),
            ]
        }
    },
    "$ref": "#/$defs/trigger",
}


@attrs.frozen(kw_only=True)
class ReactiveTransition:
    sequence: int = field("Order of firing", minimum=0)
    transition_id: str = field("The transition's id")
    state_before: str = field("State it left")
    trigger_event_ids: tuple[str, ...] = field("Observations its trigger matched (frame.N, interaction.N, ...)")
    action_event_ids: tuple[str, ...] = field("What its actions made (interaction.N, checkpoint.N)")
    action_types: tuple[ActionType, ...] = field("Its actions, in order")
    state_after: str | None = field("State it entered (null: finished)")
    outcome: Literal["passed"] | None = field("passed when it finished the machine")


@attrs.frozen(kw_only=True)
class ReactiveControl:
    sequence: int = field("Order", minimum=0)
    kind: ControlKind = field("What ended the machine from outside its transitions")
    after_capture_order: int = field("The event_journal entry it followed (-1: none)", minimum=-1)


@attrs.frozen(kw_only=True)
class ReactiveRun:
    status: Literal["running", "finished"] = field("Whether the machine ended")
    outcome: Outcome | None = field("How it ended (null: running)")
    active_state: str = field("Its state at the end")
    controls: tuple[ReactiveControl, ...] = field("Deadlines, a lost target or a cancel that ended it")
    transitions: tuple[ReactiveTransition, ...] = field("Every transition fired", maxItems=128)
