"""Programs of the binary layout family: inspect_binary_layout (lief reads; meanings and views are pure)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rea.effect_types import Program, ToolProgram
from rea.errors import ReaError
from rea.evidence import Provider, Subject, create_evidence
from rea.layout.architectures import architectures_result
from rea.layout.build import layout_result
from rea.layout.codesign import signature_result
from rea.layout.core import CrashRead, crash_result
from rea.layout.crash_records import RecordedCrashArgs
from rea.layout.dylib_programs import trace_dylib_resolution
from rea.layout.macho import macho_result
from rea.layout.macho_records import ArchitecturesArgs, DemangleArgs, MachoArgs, SignatureArgs
from rea.layout.model import (
    DemangleSwift,
    ReadArchitectures,
    ReadBinaryLayout,
    ReadMacho,
    ReadPlist,
    ReadRecordedCrash,
    ReadSignature,
)
from rea.layout.plist import PlistRead, inside_bundle, plist_result
from rea.layout.plist_records import PlistArgs
from rea.layout.records import LayoutArgs
from rea.layout.swift import SwiftRun, demangle_result
from rea.native.fat_slice import opened_slice
from rea.program import Context, ReportProgress, failed, must, need, recorded, refusable, refuse, typed
from rea.session import Session, Target, machine_architecture
from rea.views.programs import deliver
from rea.wire.convert import to_wire

SUBJECT_FORMAT = {"elf": "elf", "pe": "pe", "macho": "mach-o"}


def lief_provider(version: str | None) -> Provider:
    return Provider(id="lief", name="LIEF", version=version)


def subject_of(artifact: Mapping[str, Any], fmt: str, machine: int) -> Subject:
    subject_format = SUBJECT_FORMAT.get(fmt, fmt)
    return Subject(
        name=artifact["path"].rstrip("/").rsplit("/", 1)[-1],
        sha256=artifact["sha256"],
        format=subject_format,
        architecture=machine_architecture(subject_format, machine),
        local_path=artifact["path"],
    )


def macho_subject(target: Target, sha256: str) -> Subject:
    """The opened target as the Mach-O a reader read (`sha256`: the bytes it read). A target opened under
    another format is a Mach-O to these readers, so it is named mach-o; a universal file stays universal."""
    return Subject(
        name=target.name,
        sha256=sha256,
        format=target.format if target.format in ("mach-o", "mach-o-universal") else "mach-o",
        architecture=target.architecture,
        local_path=target.path,
    )


@typed
@refusable
def inspect_binary_layout(session: Session, args: LayoutArgs, ctx: Context) -> Program:
    yield ReportProgress(phase="reading binary layout", message=args.path)
    got = yield from need(
        ReadBinaryLayout(
            path=args.path,
            architecture=args.architecture,
            max_symbols=args.max_symbols,
            max_relocations=args.max_relocations,
        )
    )
    facts = got["facts"]
    result = layout_result(facts, got["artifact"], to_wire(args))
    evidence = must(
        create_evidence(
            provider=lief_provider(got["reader_version"]),
            operation="inspect_binary_layout",
            # delivery detail never reaches the reader, so the layout's Evidence id is the same either way
            parameters={k: v for k, v in to_wire(args).items() if k != "detail"},
            normalized_result=to_wire(result),
            subject=subject_of(got["artifact"], facts["format"], facts["machine_number"]),
            limitations=list(result.limitations),
        )
    )
    return deliver(session, evidence, args.detail)


def _no_target() -> ReaError:
    return ReaError(
        code="target_unavailable",
        message="No target is open. Call open_binary with the Mach-O file first.",
        details={"reason": "no_active_target"},
        action="Call open_binary with a local path, then call this tool again.",
    )


@typed
@refusable
def list_architectures(session: Session, args: ArchitecturesArgs, ctx: Context) -> Program:
    target = session.target
    if target is None:
        return failed(session, _no_target())
    yield ReportProgress(phase="reading architectures", message=target.path)
    got = yield from need(ReadArchitectures(path=target.path))
    result = architectures_result(got["slices"], got["universal"])
    artifact = got["artifact"]
    subject = Subject(
        name=target.name,
        sha256=artifact["sha256"],
        format="mach-o-universal" if got["universal"] else "mach-o",
        architecture=target.architecture,
        local_path=target.path,
    )
    built = create_evidence(
        provider=lief_provider(ctx_reader_version(got)),
        operation="list_architectures",
        parameters=to_wire(args),
        normalized_result=to_wire(result),
        subject=subject,
        limitations=list(result.limitations),
    )
    return recorded(session, built)


def ctx_reader_version(got: Mapping[str, Any]) -> str | None:
    version = got.get("reader_version")
    return version if isinstance(version, str) else None


@typed
@refusable
def inspect_macho(session: Session, args: MachoArgs, ctx: Context) -> Program:
    target = session.target
    if target is None:
        return failed(session, _no_target())
    yield ReportProgress(phase="reading Mach-O", message=target.path)
    got = yield from need(
        ReadMacho(
            path=target.path,
            architecture=args.architecture or opened_slice(session.provider_binding),
            max_symbols=args.max_symbols,
            known_sha256=target.sha256,
            known_stamp=target.stamp,
        )
    )
    result = macho_result(got["facts"])
    thin = got["facts"]["thin"]
    subject = subject_of({**got["artifact"], "path": target.path}, "macho", thin["cputype"])
    evidence = must(
        create_evidence(
            provider=lief_provider(got["reader_version"]),
            operation="inspect_macho",
            # delivery detail never reaches the reader, so the source Evidence id is the same either way
            parameters={k: v for k, v in to_wire(args).items() if k != "detail"},
            normalized_result=result,
            subject=subject,
            limitations=result["limitations"],
        )
    )
    return deliver(session, evidence, args.detail)


@typed
@refusable
def demangle_swift(session: Session, args: DemangleArgs, ctx: Context) -> Program:
    symbols = tuple(args.symbols)
    yield ReportProgress(phase="demangling Swift symbols", message=f"{len(symbols)} symbol(s)")
    answer: SwiftRun = yield from need(DemangleSwift(symbols=symbols))
    result = demangle_result(symbols, answer)
    version = result.provenance[0].tool_version
    built = create_evidence(
        provider=Provider(id="swift-demangle", name="swift-demangle", version=version),
        operation="demangle_swift",
        parameters=to_wire(args),
        normalized_result=to_wire(result),
        confidence="derived",
        limitations=list(result.limitations),
    )
    return recorded(session, built)


@typed
@refusable
def inspect_signature(session: Session, args: SignatureArgs, ctx: Context) -> Program:
    target = session.target
    if target is None:
        return failed(session, _no_target())
    yield ReportProgress(phase="reading code signature", message=target.path)
    got = yield from need(
        ReadSignature(path=target.path, architecture=args.architecture or opened_slice(session.provider_binding))
    )
    result = signature_result(got["parsed"], got["cms"], got["format"])
    subject = macho_subject(target, got["artifact"]["sha256"])
    built = create_evidence(
        provider=lief_provider(got["reader_version"]),
        operation="inspect_signature",
        parameters=to_wire(args),
        normalized_result=to_wire(result),
        subject=subject,
        limitations=list(result.limitations),
    )
    return recorded(session, built)


CORE_PROVIDER = Provider(id="rea-core-reader", name="REA ELF core reader", version="1")


@typed
@refusable
def inspect_recorded_crash(session: Session, args: RecordedCrashArgs, ctx: Context) -> Program:
    yield ReportProgress(phase="reading core", message=args.path)
    got = yield from need(ReadRecordedCrash(path=args.path, include_debugger_context=args.include_debugger_context))
    read: CrashRead = got
    result = crash_result(read)
    built = create_evidence(
        provider=CORE_PROVIDER,
        operation="inspect_recorded_crash",
        parameters=to_wire(args),
        normalized_result=to_wire(result),
        subject=Subject(
            name=read.artifact.path.rsplit("/", 1)[-1],
            sha256=read.artifact.sha256,
            format="elf",
            architecture="x86_64",
            local_path=read.artifact.path,
        ),
        limitations=list(result.limitations),
    )
    return recorded(session, built)


PLIST_PROVIDER = Provider(id="plistlib", name="Python plistlib", version="1")


def _plist_path(session: Session, args: PlistArgs) -> str:
    """The file a request names: `path`, or `relative_path` inside the open bundle directory."""
    if args.path:
        return str(args.path)
    must(inside_bundle(args.relative_path))
    target = session.target
    if target is None or target.kind != "directory":
        refuse(
            ReaError(
                code="target_unavailable" if target is None else "capability_unavailable",
                message="inspect_plist reads relative_path inside an open bundle directory"
                + ("; none is open." if target is None else f"; the open target {target.path} is a file."),
                details={"reason": "bundle_directory_required"},
                action="Call open_binary on the .app, .framework or bundle directory, or pass path with the plist file.",
            )
        )
    inner = "/".join(part for part in args.relative_path.replace("\\", "/").split("/") if part not in ("", "."))
    return target.path.rstrip("/") + "/" + inner


@typed
@refusable
def inspect_plist(session: Session, args: PlistArgs, ctx: Context) -> Program:
    path = _plist_path(session, args)
    yield ReportProgress(phase="reading property list", message=path)
    got: PlistRead = yield from need(ReadPlist(path=path, max_nodes=args.max_nodes, max_depth=args.max_depth))
    result = plist_result(got, path)
    built = create_evidence(
        provider=PLIST_PROVIDER,
        operation="inspect_plist",
        parameters=to_wire(args),
        normalized_result=to_wire(result),
        subject=Subject(
            name=path.rsplit("/", 1)[-1],
            sha256=got.artifact.sha256,
            format="plist",
            architecture=None,
            local_path=path,
        ),
        limitations=list(result.limitations),
    )
    return recorded(session, built)


PROGRAMS: Mapping[str, ToolProgram] = {
    "trace_dylib_resolution": trace_dylib_resolution,
    "inspect_plist": inspect_plist,
    "inspect_recorded_crash": inspect_recorded_crash,
    "inspect_signature": inspect_signature,
    "demangle_swift": demangle_swift,
    "inspect_binary_layout": inspect_binary_layout,
    "list_architectures": list_architectures,
    "inspect_macho": inspect_macho,
}
