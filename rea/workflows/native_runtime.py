"""Program of observe_native_calls: check the target, ask the effect to launch it under LLDB, build the record."""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping

from returns.pipeline import is_successful

from rea.effect_types import Program, ToolProgram
from rea.errors import ReaError, no_target
from rea.evidence import Provider, Subject, create_evidence
from rea.native_runtime.effects import ObserveNativeCalls
from rea.native_runtime.observation import bridge_request, observation_result
from rea.program import Context, ReportProgress, failed, recorded
from rea.session import Session


def _not_executable(path: str, fmt: str) -> ReaError:
    return ReaError(
        code="capability_unavailable",
        message=f"observe_native_calls launches Linux ELF executables; the open target {path} is {fmt}.",
        details={"reason": "target_not_launchable", "format": fmt},
        action="Call open_binary on a Linux ELF executable, then observe it.",
    )


def observe_native_calls(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    target = session.target
    if target is None:
        return failed(session, no_target("observe_native_calls"))
    if target.format != "elf" or target.kind != "file":
        return failed(session, _not_executable(target.path, target.format))
    yield ReportProgress(phase="observing native calls", message=target.path)
    request = bridge_request(args, target.architecture, target.path)
    ran = yield ObserveNativeCalls(path=target.path, sha256=target.sha256, request=request)
    if not is_successful(ran):
        return failed(session, ran.failure())
    facts = ran.unwrap()
    result = observation_result(args, facts)
    debugger = facts["debugger"]
    built = create_evidence(
        provider=Provider(id="lldb", name="LLDB (Debian)", version=debugger["version"]),
        operation="observe_native_calls",
        parameters=dict(args),
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
    return recorded(session, built)


PROGRAMS: Mapping[str, ToolProgram] = {"observe_native_calls": observe_native_calls}
