"""Program of observe_native_calls: check the target, ask the effect to launch it under LLDB, build the record.

The program and the pure observation code read the argument record (@typed); its JSON form (`to_wire(args)`)
is the Evidence parameters.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
from returns.result import Failure, Result

from rea.effect_types import Program, ToolProgram
from rea.errors import ReaError, no_target
from rea.evidence import Evidence, Provider, Subject, create_evidence
from rea.native_runtime.effects import ObserveNativeCalls
from rea.native_runtime.observation import bridge_request, observation_result, partial_result
from rea.native_runtime.records import ObserveNativeCallsArgs
from rea.program import (
    Context,
    Outcome,
    ProgramCancelled,
    ReportProgress,
    failed,
    need,
    recorded,
    refusable,
    refuse,
    typed,
)
from rea.session import Session, Target, record
from rea.wire.convert import to_wire


def _not_executable(path: str, fmt: str) -> ReaError:
    return ReaError(
        code="capability_unavailable",
        message=f"observe_native_calls launches Linux ELF executables; the open target {path} is {fmt}.",
        details={"reason": "target_not_launchable", "format": fmt},
        action="Call open_binary on a Linux ELF executable, then observe it.",
    )


@typed
@refusable
def observe_native_calls(session: Session, args: ObserveNativeCallsArgs, ctx: Context) -> Program:
    target = session.target
    if target is None:
        refuse(no_target("observe_native_calls"))
    if target.format != "elf" or target.kind != "file":
        refuse(_not_executable(target.path, target.format))
    yield ReportProgress(phase="observing native calls", message=target.path)
    request = bridge_request(args, target.architecture, target.path)
    try:
        facts = yield from need(ObserveNativeCalls(path=target.path, sha256=target.sha256, request=request))
    except ProgramCancelled as stop:
        if not stop.partial:  # cancelled before anything was observed: nothing to keep
            raise
        return _retained(session, target, args, stop.partial, _cancelled(str(stop)))
    if facts.get("failure") is not None:  # launch or cleanup failed: the error names what was seen
        return _retained(session, target, args, facts, facts["failure"])
    return recorded(session, _evidence(target, args, facts, observation_result(args, facts)))


def _evidence(
    target: Target, args: ObserveNativeCallsArgs, facts: Mapping[str, Any], result: Mapping[str, Any]
) -> Result[Evidence, ReaError]:
    return create_evidence(
        provider=Provider(id="lldb", name="LLDB (Debian)", version=facts["debugger"]["version"]),
        operation="observe_native_calls",
        parameters=to_wire(args),
        normalized_result=result,
        subject=Subject(
            name=target.name,
            sha256=target.sha256,
            format=target.format,
            architecture=target.architecture,
            local_path=target.path,
        ),
        confidence="observed",
        authority="controlled-replay",
        limitations=result["limitations"],
    )


def _cancelled(phase: str) -> ReaError:
    return ReaError(
        code="cancelled",
        message=f"observe_native_calls was cancelled during {phase}; the observed process was stopped.",
        details={"phase": phase},
        action="Read the partial observation (its coverage is partial), or observe again.",
    )


def _retained(
    session: Session, target: Target, args: ObserveNativeCallsArgs, facts: Mapping[str, Any], error: ReaError
) -> Outcome:
    """The failure or cancel, with what was observed before it retained as partial Evidence and named in
    details.partial_observation (the contract's rule for native call tracing: even when cleanup succeeds)."""
    evidence = _evidence(target, args, facts, partial_result(args, facts)).value_or(None)
    if evidence is None:
        if error.code == "cancelled":
            raise ProgramCancelled((error.details or {}).get("phase", "observing"))
        return failed(session, error)
    reference = {"kind": "retained-evidence", "evidence_id": evidence.evidence_id}
    kept = attrs.evolve(error, details={**(error.details or {}), "partial_observation": reference})
    return Outcome(session=record(session, (evidence,)), reply=Failure(kept))


PROGRAMS: Mapping[str, ToolProgram] = {"observe_native_calls": observe_native_calls}
