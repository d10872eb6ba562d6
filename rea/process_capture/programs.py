"""Programs of the process-capture family: capture_process_scenario (the run is one effect; its result is
built purely here) and compare_process_captures (pure over two retained captures)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from returns.result import Failure, Result

from rea import __version__
from rea.effect_types import Program, ToolProgram
from rea.errors import ReaError, invalid_request, missing_evidence
from rea.evidence import Evidence, Provider, Subject, create_evidence
from rea.process_capture import checkpoints as planned
from rea.process_capture.capture import build_capture, scenario_of
from rea.process_capture.compare import compare_captures, contract_differences
from rea.process_capture.effects import MeasureAges, RunScenario, ScenarioRun
from rea.process_capture.reactive import Compiled, compile_machine
from rea.process_capture.reactive_records import PREDICATE_SCHEMA, Checkpoint, Machine
from rea.process_capture.records import CaptureArgs, CommandShim, CompareCapturesArgs, Event, ReplayPlan
from rea.process_capture.stored import read_capture
from rea.program import (
    Context,
    Outcome,
    ProgramCancelled,
    ReportProgress,
    must,
    need,
    recorded,
    refusable,
    refuse,
    typed,
)
from rea.session import Session, record
from rea.validation import first_schema_error
from rea.wire.convert import structure, to_wire
from rea.wire.schema import Role, schema_of

PROVIDER = Provider(id="rea-process-capture", name="REA process capture", version="1")
OPERATION = "capture_process_scenario"


# the full schemas of the arguments the catalog advertises loosely (rea.process_capture.records.LOOSE_ARRAY)
_ITEMS = {
    "events": schema_of(tuple[Event, ...], Role.INPUT),
    "command_shims": schema_of(tuple[CommandShim, ...], Role.INPUT),
    "checkpoints": schema_of(tuple[Checkpoint, ...], Role.INPUT),
    "reactive": schema_of(Machine | None, Role.INPUT),
    "replay": schema_of(ReplayPlan, Role.INPUT),
}


def _conform(name: str, schema: Mapping[str, Any], value: Any) -> None:
    """Refuse `value` unless it fits `schema`, naming the exact field under `name`."""
    wrong = first_schema_error(schema, value)
    if wrong is not None:
        at, message = wrong
        where = name if at == "arguments" else name + ("" if at.startswith("[") else ".") + at
        refuse(invalid_request(f"{where}: {message}", field=where,
                               accepted=f"{name.split('.')[0].split('[')[0]} as its description spells it out"))  # fmt: skip


def _machine(args: CaptureArgs, declared: tuple[Checkpoint, ...]) -> Compiled | None:
    """The reactive machine, checked in full (its recursive triggers too) and compiled; None when not declared."""
    if args.reactive is None:
        return None
    for i, state in enumerate(args.reactive["states"]):
        for j, transition in enumerate(state["on"]):
            _conform(f"reactive.states[{i}].on[{j}].when", PREDICATE_SCHEMA, transition["when"])
    machine = must(structure(args.reactive, Machine))
    return must(compile_machine(machine, frozenset(c.name for c in declared)))


def _check(args: CaptureArgs) -> tuple[tuple[Checkpoint, ...], Compiled | None]:
    """What the advertised schema does not say: every event, shim, checkpoint and the machine have their full
    shape, and a secret alias names a declared variable. The checkpoints and the compiled machine."""
    for name, schema in _ITEMS.items():
        _conform(name, schema, to_wire(getattr(args, name)))
    declared = tuple(must(structure(c, Checkpoint)) for c in args.checkpoints)
    must(planned.check(declared))
    machine = _machine(args, declared)
    for alias in args.secret_aliases:
        if alias not in args.environment:
            refuse(invalid_request(f"secret alias {alias!r} names no variable of environment", field="secret_aliases",
                                   accepted="names of keys of environment"))  # fmt: skip
    return declared, machine


def _scenario(args: CaptureArgs, declared: tuple[Checkpoint, ...], machine: Compiled | None) -> RunScenario:
    return RunScenario(
        executable=args.executable,
        arguments=args.arguments,
        environment=args.environment,
        inherit_environment=args.inherit_environment,
        working_directory=args.working_directory,
        events=args.events,
        shims=args.command_shims,
        roots=args.filesystem_roots,
        limits=args.limits,
        terminal=args.terminal,
        network_access=args.network_access,
        timeout_ms=args.timeout_ms,
        idle_timeout_ms=args.idle_timeout_ms,
        settle_ms=args.settle_ms,
        checkpoints=declared,
        machine=machine,
    )


def _evidence(args: CaptureArgs, run: ScenarioRun) -> Result[Evidence, ReaError]:
    capture = build_capture(args, run, __version__)
    subject = Subject(name=args.executable.rsplit("/", 1)[-1] or args.executable, sha256=run.executable_sha256,
                      format="file", architecture=None, local_path=args.executable)  # fmt: skip
    return create_evidence(
        provider=PROVIDER,
        operation=OPERATION,
        parameters=scenario_of(args),  # the arguments, secret values redacted
        normalized_result=to_wire(capture),
        subject=subject,
        limitations=list(capture.limitations),
    )


def _cancelled(session: Session, args: CaptureArgs, partial: ScenarioRun, phase: str) -> Outcome:
    """A cancelled capture whose group was verified gone: what it observed is retained as partial Evidence
    (exit reason cancelled, truncated, no after snapshot) and named in the error's details.partial_observation."""
    evidence = must(_evidence(args, partial))
    error = ReaError(
        code="cancelled",
        message=f"capture_process_scenario was cancelled during {phase}; the process group was stopped and is gone.",
        details={
            "phase": phase,
            "partial_observation": {"kind": "retained-evidence", "evidence_id": evidence.evidence_id},
        },  # fmt: skip
        action="Read the partial observation (truncated), or capture again.",
    )
    return Outcome(session=record(session, (evidence,)), reply=Failure(error))


@typed
@refusable
def capture_process_scenario(session: Session, args: CaptureArgs, ctx: Context) -> Program:
    declared, machine = _check(args)
    yield ReportProgress(phase="capturing process", message=args.executable)
    try:
        run: ScenarioRun = yield from need(_scenario(args, declared, machine))
    except ProgramCancelled as stop:
        if not isinstance(stop.partial, ScenarioRun):  # cancelled before launch, or the group was not verified gone
            raise
        return _cancelled(session, args, stop.partial, str(stop))
    return recorded(session, _evidence(args, run))


def _capture(session: Session, evidence_id: str, field: str) -> Evidence:
    found = session.evidence.get(evidence_id)
    if found is None:
        refuse(missing_evidence(evidence_id))
    if found.operation != OPERATION:
        refuse(invalid_request(f"{field} names {found.operation} Evidence; this tool reads {OPERATION} Evidence",
                               field=field, accepted=f"the evidence_id of retained {OPERATION} Evidence"))  # fmt: skip
    return found


def _incomparable(fields: list[str]) -> ReaError:
    return invalid_request(
        f"the captures have different comparison contracts; these scenario fields differ: {', '.join(fields)}",
        field="right_evidence_id",
        accepted="two captures of one scenario (the same events, shims, terminal, limits, network and normalization)",
        differing_fields=fields,
    )


@typed
@refusable
def compare_process_captures(session: Session, args: CompareCapturesArgs, ctx: Context) -> Program:
    left = _capture(session, args.left_evidence_id, "left_evidence_id")
    right = _capture(session, args.right_evidence_id, "right_evidence_id")
    lr, rr = read_capture(left.normalized_result), read_capture(right.normalized_result)
    differing = contract_differences(lr, rr)
    if differing:
        refuse(_incomparable(differing))
    if args.max_capture_age_ms is not None:
        stamps = (lr.completed_at, rr.completed_at)
        ages: tuple[int, ...] = yield from need(MeasureAges(timestamps=stamps))
        stale = [
            f"{side} completed {age} ms ago"
            for side, age in zip(("left", "right"), ages)
            if age > args.max_capture_age_ms
        ]
        if stale:
            refuse(invalid_request(f"a capture is older than max_capture_age_ms {args.max_capture_age_ms}: "
                                   + "; ".join(stale), field="max_capture_age_ms"))  # fmt: skip
    result = compare_captures(lr, rr, left.evidence_id, right.evidence_id)
    made = create_evidence(
        provider=PROVIDER,
        operation="compare_process_captures",
        parameters=to_wire(args),
        normalized_result=to_wire(result),
        confidence="derived",
        limitations=list(result.limitations),
        evidence_links=[left.evidence_id, right.evidence_id],
    )
    return recorded(session, made)


PROGRAMS: Mapping[str, ToolProgram] = {
    "capture_process_scenario": capture_process_scenario,
    "compare_process_captures": compare_process_captures,
}
