"""Drive a program with scripted effect results: no IO, no mocks of libraries."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from returns.result import Success

from rea.native.effects import DiscoverProviders, NativeActivity, NativeLineage, ReleaseNative
from rea.program import Context, Outcome, ReportProgress, ServerFacts, StampTarget, TargetStamp
from rea.session import Session

# What discovery reports on a host with angr installed and no Ghidra (scripted, not measured).
HOST_PROVIDERS = [
    {"id": "angr", "available": True, "version": "9.2.213"},
    {
        "id": "ghidra",
        "available": False,
        "version": None,
        "bindable": False,
        "code": "not_configured",
        "reason": "GHIDRA_INSTALL_DIR is not set",
        "remediation": "Install Ghidra and set GHIDRA_INSTALL_DIR.",
    },
    {
        "id": "hopper",
        "available": False,
        "version": None,
        "bindable": False,
        "code": "unsupported_host",
        "reason": "macOS only",
    },
    {
        "id": "ida",
        "available": False,
        "version": None,
        "bindable": False,
        "code": "unsupported_host",
        "reason": "no adapter",
    },
]
SCRIPTED_STAMP = "scripted-stamp"  # every scripted target keeps this stamp: unchanged since it was identified
SESSION_EFFECTS = {
    StampTarget: lambda e: Success(TargetStamp(own=SCRIPTED_STAMP)),
    DiscoverProviders: lambda e: Success(HOST_PROVIDERS),
    ReleaseNative: lambda e: Success({"status": "complete", "owned_resources": []}),
    NativeLineage: lambda e: Success({"status": "not_observed"}),
    NativeActivity: lambda e: Success({"status": "not_observed", "providers": []}),
}

CTX = Context(
    server=ServerFacts(
        package="rea-py",
        version="0.1.0",
        sdk_version="2.3.0",
        server_path="/usr/bin/rea",
        started_at="2026-11-30T00:00:00Z",
    ),
    max_response_bytes=10_485_760,
)


def drive(
    program_fn: Callable[..., Any],
    session: Session,
    args: dict,
    answer: Callable[[Any], Any] = lambda e: None,
    ctx: Context = CTX,
    answers: tuple[type, ...] = (),
) -> tuple[Outcome, list[Any]]:
    """`answers`: effect types `answer` scripts itself, ahead of SESSION_EFFECTS."""
    produced = program_fn(session, args, ctx)
    effects: list[Any] = []
    if isinstance(produced, Outcome):
        return produced, effects
    reply = None
    while True:
        try:
            effect = produced.send(reply)
        except StopIteration as stop:
            return stop.value, effects
        effects.append(effect)
        if isinstance(effect, ReportProgress):
            reply = None
        elif type(effect) in SESSION_EFFECTS and type(effect) not in answers:
            reply = SESSION_EFFECTS[type(effect)](effect)
        else:
            reply = answer(effect)


def drive_tool(program_fn: Callable[..., Any], session: Session, args: dict, *rest: Any, **options: Any) -> Any:
    """drive() for a @typed program with its JSON arguments: they are structured into its tool's argument record
    first, as the gate (rea.workflows.table.typed_entry) does."""
    from rea.catalog import BY_NAME
    from rea.wire.convert import structure

    return drive(
        program_fn, session, structure(args, BY_NAME[program_fn.__name__].args_type).unwrap(), *rest, **options
    )
