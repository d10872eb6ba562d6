"""open_binary and close_binary: select a target and bind one provider; close it and clear the ledger."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

from returns.result import Success

from rea.effect_types import AnyEffect, Program, ToolProgram
from rea.errors import ReaError, invalid_request
from rea.layout.model import ReadArchitectures
from rea.native.effects import DiscoverProviders, ReleaseNative
from rea.native.fat_slice import choose_slice, loader_slice, subject_architecture, thin_selector
from rea.native.providers import select_provider, sliced, unavailable_reason
from rea.native.selector import AUTO, parse_selector
from rea.program import (
    Context,
    IdentifyTarget,
    NewRunId,
    Outcome,
    ReportProgress,
    failed,
    must,
    need,
    refusable,
    refuse,
    typed,
)
from rea.session import DOS_COM_MAX_BYTES, MANAGED_HINT, Session, Target, close, header_architecture, open_target
from rea.session_tools.programs.reply import done
from rea.session_tools.programs.status import NOT_OBSERVED, target_fields
from rea.session_tools.records.arguments import CloseBinaryArgs, OpenBinaryArgs


def _refused_option(name: str, message: str, action: str) -> ReaError:
    return ReaError(
        code="capability_unavailable",
        message=message,
        details={"reason": f"{name}_unsupported", "field": name},
        action=action,
    )


def _refuse_unsupported_options(args: OpenBinaryArgs) -> None:
    """Reference options this build cannot honour, refused before anything is read or changed."""
    if args.existing_project is not None:
        refuse(
            _refused_option(
                "existing_project",
                "open_binary cannot open an existing analysis project: REA's Ghidra adapter imports each target into "
                "a fresh temporary project, and the embedded angr provider analyses files directly.",
                "Call open_binary with the absolute path of the program's original file instead of existing_project.",
            )
        )
    if args.snapshot_path is not None:
        refuse(
            _refused_option(
                "snapshot_path",
                "open_binary cannot restore an analysis snapshot: REA writes none. angr's analysis is cached "
                "automatically by target digest and analysis profile, so reopening the same file reuses it.",
                "Call open_binary again without snapshot_path.",
            )
        )


@typed
@refusable
def open_binary(session: Session, args: OpenBinaryArgs, ctx: Context) -> Program:
    """Select a target and bind one provider; a failure leaves the previous binding untouched."""
    _refuse_unsupported_options(args)
    yield ReportProgress(phase="identifying target", message=f"hashing {args.path}")
    facts = yield from need(IdentifyTarget(path=args.path))
    fmt, architecture = facts.format, facts.architecture
    if args.format == "dos-com":
        if facts.kind != "file" or not 1 <= facts.size <= DOS_COM_MAX_BYTES:
            refuse(
                invalid_request(
                    f"open_binary: format dos-com needs a file of 1 to {DOS_COM_MAX_BYTES} bytes (one 64 KiB segment "
                    f"minus the 256-byte PSP); {args.path} is a {facts.kind} of {facts.size} bytes",
                    field="format",
                    accepted=f"dos-com only for a headerless DOS COM file of 1 to {DOS_COM_MAX_BYTES} bytes",
                )
            )
        fmt, architecture = "dos-com", header_architecture(b"", "dos-com")
    requested = must(parse_selector(args.provider_id or AUTO, "request"))  # the schema's own pattern, parsed
    chosen = yield from _fat_slice(args, fmt, architecture)
    row = None if chosen.get("rows") is None else chosen["rows"][chosen["index"]]
    if row is not None:
        architecture = subject_architecture(row)
    candidates = yield from need(DiscoverProviders())
    binding = must(select_provider(candidates, requested, ctx.analysis_provider, fmt if row is None else "mach-o"))
    if binding is not None and row is not None:
        binding = sliced(binding, loader_slice(row))
    released = yield ReleaseNative()  # the previous target's engine, if any; retained records stay
    run_id = yield from need(NewRunId())
    target = Target(
        path=args.path,
        name=facts.path.rstrip("/").rsplit("/", 1)[-1] or facts.path,
        sha256=facts.sha256,
        size=facts.size,
        format=fmt,
        kind=facts.kind,
        architecture=architecture,
        stamp=facts.stamp,
        managed=facts.managed,
    )
    opened = open_target(session, target, run_id, binding)
    limitations = [] if binding is not None else [unavailable_reason(None, fmt)]
    limitations += chosen.get("limitations", [])
    if target.managed:
        limitations.append(MANAGED_HINT)
    unstopped = released.swap().value_or(None)  # a stop that failed is said, and the target still opens
    if unstopped is not None:
        limitations.append(f"The previous target's engine did not stop cleanly: {unstopped.message}")
    return done(
        opened,
        {
            **target_fields(target),
            "loaderArgs": [],
            "name": target.name,
            "size": target.size,
            "analysis_run": {"run_id": run_id, "process_lineage": NOT_OBSERVED},
            "analysis_provider_binding": binding,
            "limitations": limitations,
            "target": target.to_json(),
            **_slice_fields(chosen),
        },
    )


def _fat_slice(args: OpenBinaryArgs, fmt: str, architecture: str | None) -> Generator[AnyEffect, Any, dict[str, Any]]:
    """The universal binary's slices and the one to analyse ({} for any other target), or the program ends. A
    header that does not check out leaves the target unbound (as before, said in limitations) unless a slice was
    asked for."""
    requested = args.architecture
    if fmt != "mach-o-universal":
        if requested is not None:
            must(thin_selector(requested, fmt, architecture))
        return {}
    yield ReportProgress(phase="reading architectures", message=args.path)
    read = yield ReadArchitectures(path=args.path)
    unread = read.swap().value_or(None)
    if unread is not None and requested is None:
        return {"limitations": [f"No slice can be analysed: {unread.message}"]}
    return must(read.bind(lambda found: choose_slice(found["slices"], requested)))


def _slice_fields(chosen: Mapping[str, Any]) -> dict[str, Any]:
    """Our extras on a universal target: every slice, and the analysed one with how it was chosen."""
    if chosen.get("rows") is None:
        return {}
    row = chosen["rows"][chosen["index"]]
    return {"slices": chosen["rows"], "selected_slice": {**row, "selection": chosen["selection"]}}


@typed
@refusable
def close_binary(session: Session, args: CloseBinaryArgs, ctx: Context) -> Program:
    """Stop owned engines, then clear the ledger; a cleanup failure is reported, the ledger still cleared.

    The reference answers `result: null` when no snapshot is written (and REA writes none), so
    our cleanup facts travel beside it in `closed` instead of changing result's type."""
    if args.snapshot_path is not None:
        refuse(
            _refused_option(
                "snapshot_path",
                "close_binary cannot write an analysis snapshot: REA keeps none (angr's analysis is cached "
                "automatically by target digest and analysis profile). Nothing was closed.",
                "Call close_binary without snapshot_path; export_evidence_bundle first if the records are needed.",
            )
        )
    released = yield ReleaseNative()
    target = None if session.target is None else session.target.to_json()
    cleared = {"records": len(session.evidence), "unknowns": len(session.unknown_revisions)}
    unstopped = released.swap().value_or(None)
    if unstopped is not None:  # the ledger is cleared all the same: the error says what was closed
        return failed(close(session), unstopped.with_details(closed_target=target, cleared=cleared))
    return Outcome(
        session=close(session),
        reply=Success({"result": None, "closed": {"target": target, "cleared": cleared, "cleanup": released.unwrap()}}),
    )


PROGRAMS: Mapping[str, ToolProgram] = {
    "open_binary": open_binary,
    "close_binary": close_binary,
}
