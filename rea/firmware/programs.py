"""Programs of the firmware family: inspect_firmware_regions and extract_firmware (unblob runs in the effects;
its report is normalized here, purely)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from rea.effect_types import Program, ToolProgram
from rea.evidence import Provider, Subject, create_evidence
from rea.firmware.effects import EngineRun, ExtractFirmware, PublishedFile, ScanFirmware
from rea.firmware.records import (
    ExtractedFile,
    ExtractedFirmware,
    ExtractFirmwareArgs,
    FirmwareRegions,
    FirmwareRegionsArgs,
    FirmwareSelection,
    UnpublishedEntry,
)
from rea.firmware.report import Normalized, Workspace, normalize
from rea.program import Context, Outcome, ReportProgress, need, recorded, refusable, typed
from rea.session import Session
from rea.wire.convert import to_wire

REGION_LIMITATIONS = (
    "Regions are unblob's chunks: a handler validated each header and computed its end; that is not proof "
    "of a valid partition, of encryption or of runtime behaviour.",
    "unblob reports no confidence score: reported_confidence 255 marks a validated chunk; unrecognized "
    "bytes are listed in unknown_chunks.",
    "SquashFS is read by Debian's unsquashfs (little-endian version 4); vendor variants sasquatch reads are not.",
)
EXTRACT_LIMITATIONS = (
    "Decompressed children have unknown original byte ranges and runtime addresses.",
    "Symlinks and special files are recorded in unpublished_entries, never published; empty directories, "
    "ownership and permission bits are not reproduced.",
    "complete means unblob finished without unknown or encrypted chunks, reported problems or depth limits; "
    "it does not establish a complete reconstruction of the firmware.",
    "Formats whose extractor is not installed are reported in diagnostics, not extracted.",
)


def _recorded(
    session: Session,
    run: EngineRun,
    operation: str,
    parameters: dict[str, Any],
    result: FirmwareRegions | ExtractedFirmware,
    limitations: tuple[str, ...],
) -> Outcome:
    """Both tools answer with Evidence of one unblob run over one file: the run names the provider and subject."""
    name = run.path.rsplit("/", 1)[-1] or run.path
    return recorded(
        session,
        create_evidence(
            provider=Provider(id="unblob", name="unblob", version=run.engine.version),
            operation=operation,
            parameters=parameters,
            normalized_result=to_wire(result),
            subject=Subject(name=name, sha256=run.sha256, format="file", architecture=None, local_path=run.path),
            limitations=list(limitations),
        ),
    )


def _artifact(run: EngineRun) -> dict[str, Any]:
    return {"path": run.path, "sha256": run.sha256, "bytes": run.size}


def _exit_diagnostic(run: EngineRun) -> list[dict[str, Any]]:
    if run.exit_code == 0:
        return []
    return [{"kind": "engine-exit", "exit_code": run.exit_code, "output_tail": run.output_tail}]


@typed
@refusable
def inspect_firmware_regions(session: Session, args: FirmwareRegionsArgs, ctx: Context) -> Program:
    yield ReportProgress(phase="scanning firmware", message=args.path)
    run: EngineRun = yield from need(ScanFirmware(path=args.path))
    found = normalize(
        run.report, Workspace(input_path=run.input_path, output_root=run.output_root, selection_offset=0, max_depth=1)
    )
    result = FirmwareRegions(
        artifact=_artifact(run),
        engine=run.engine,
        input_size=run.size,
        regions=found.regions,
        unknown_chunks=found.unknown_chunks,
        coverage="signature_scan",
        limitations=REGION_LIMITATIONS,
    )
    return _recorded(session, run, "inspect_firmware_regions", to_wire(args), result, REGION_LIMITATIONS)


def _file(f: PublishedFile, found: Normalized, output_directory: str) -> ExtractedFile:
    facts = found.files.get(f.relative_path)
    return ExtractedFile(
        relative_path=f.relative_path,
        path=f"{output_directory.rstrip('/')}/{f.relative_path}",
        size=f.size,
        sha256=f.sha256,
        reported_sha256=facts.sha256 if facts else None,
        mime_type=facts.mime_type if facts else None,
        analysis_depth=facts.depth if facts else None,
        runtime_address=None,
        original_file_range=None,
    )


def _coverage(found: Normalized, run: EngineRun, diagnostics: list[Any]) -> Literal["complete", "partial"]:
    unknown = any(c.handler is None or c.encrypted for c in found.chunks)
    partial = unknown or diagnostics or run.unpublished or found.depth_limited_paths
    return "partial" if partial else "complete"


@typed
@refusable
def extract_firmware(session: Session, args: ExtractFirmwareArgs, ctx: Context) -> Program:
    yield ReportProgress(phase="extracting firmware", message=args.path)
    run: EngineRun = yield from need(
        ExtractFirmware(
            path=args.path,
            output_directory=args.output_directory,
            offset=args.range.offset if args.range else None,
            length=args.range.length if args.range else None,
            max_depth=args.max_depth,
            max_output_bytes=args.max_output_bytes,
            max_output_files=args.max_output_files,
        )
    )
    ws = Workspace(
        input_path=run.input_path,
        output_root=run.output_root,
        selection_offset=run.selection_offset,
        max_depth=args.max_depth,
    )
    found = normalize(run.report, ws)
    diagnostics = [*found.diagnostics, *_exit_diagnostic(run)]
    files = tuple(_file(f, found, args.output_directory) for f in run.files)
    result = ExtractedFirmware(
        artifact=_artifact(run),
        engine=run.engine,
        selection=FirmwareSelection(
            offset=run.selection_offset, length=run.selection_length, sha256=run.selection_sha256
        ),
        output_directory=args.output_directory,
        coverage=_coverage(found, run, diagnostics),
        files=files,
        unpublished_entries=tuple(
            UnpublishedEntry(relative_path=u.relative_path, kind=u.kind, link_target=u.link_target)
            for u in run.unpublished
        ),
        chunks=found.chunks,
        derivations=found.derivations,
        depth_limited_paths=found.depth_limited_paths,
        diagnostics=tuple(diagnostics),
        published_bytes=sum(f.size for f in files),
        limitations=EXTRACT_LIMITATIONS,
    )
    return _recorded(session, run, "extract_firmware", to_wire(args), result, EXTRACT_LIMITATIONS)


# cast: @typed programs read their record, which the gate passes (rea.program.typed); ToolProgram names a mapping
PROGRAMS: Mapping[str, ToolProgram] = {
    "inspect_firmware_regions": inspect_firmware_regions,
    "extract_firmware": extract_firmware,
}
