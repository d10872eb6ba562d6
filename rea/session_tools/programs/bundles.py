"""The Evidence bundle tools (get, export, import) and the CLI's inspect-evidence-bundle over a bundle file."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

from rea.bundle import ParsedBundle, bundle_chunks, bundle_json, summary, verify_bundle
from rea.effect_types import AnyEffect, Program, ToolProgram
from rea.errors import invalid_request
from rea.native.annotations import restorable
from rea.native.effects import EditAnnotations
from rea.program import (
    Context,
    Outcome,
    PublishAtomically,
    ReadJsonFile,
    ReportProgress,
    must,
    need,
    refusable,
    refuse,
    typed,
)
from rea.session import Session, merge
from rea.session_tools.contract import GET_EVIDENCE_BUNDLE
from rea.session_tools.programs.reply import done
from rea.session_tools.records.arguments import (
    ExportEvidenceBundleArgs,
    GetEvidenceBundleArgs,
    ImportEvidenceBundleArgs,
)
from rea.wire.convert import to_wire


@typed
@refusable
def get_evidence_bundle(session: Session, args: GetEvidenceBundleArgs, ctx: Context) -> Outcome:
    """complete: result is the canonical bundle itself (equal to an exported file's content);
    summary: the evidence-bundle-summary of the retained records."""
    if args.filters is not None and args.detail != "summary":
        refuse(
            invalid_request(
                'get_evidence_bundle: filters apply only to detail "summary"',
                field="filters",
                accepted='filters together with detail: "summary"',
            )
        )
    if args.detail == "summary":
        filters = {} if args.filters is None else to_wire(args.filters)
        return done(session, summary(session.ledger, len(session.unknown_revisions), filters))
    return done(session, bundle_json(session))


@typed
@refusable
def export_evidence_bundle(session: Session, args: ExportEvidenceBundleArgs, ctx: Context) -> Program:
    receipt = yield from need(
        PublishAtomically(
            path=args.path,
            chunks=lambda: bundle_chunks(session),
            overwrite=args.overwrite,
            phase="exporting bundle",
        )
    )
    return done(
        session,
        {
            "path": receipt.path,
            "bytes": receipt.bytes,
            "records": len(session.evidence),
            "unknowns": len(session.unknown_revisions),
            "sha256": receipt.sha256,
        },
    )


def _load_bundle(path: str, ctx: Context) -> Generator[AnyEffect, Any, ParsedBundle]:
    """Read a bundle file and verify all of it (or end the program with why not); shared by import and the CLI
    inspection."""
    yield ReportProgress(phase="reading bundle", message=path)
    loaded = yield from need(ReadJsonFile(path=path, max_bytes=ctx.max_import_bytes))
    return must((yield from verify_bundle(loaded)))


@typed
@refusable
def import_evidence_bundle(session: Session, args: ImportEvidenceBundleArgs, ctx: Context) -> Program:
    bundle = yield from _load_bundle(args.path, ctx)
    after = must(merge(session, bundle.records, bundle.unknowns))
    for sha256, digest, state in restorable(bundle.records):  # analyst annotations back into the local store
        yield from need(EditAnnotations(sha256=sha256, profile_digest=digest, edit=state))
    return done(
        after,
        {
            "imported": len(after.evidence) - len(session.evidence),
            "unknowns_added": len(after.unknown_revisions) - len(session.unknown_revisions),
            "total": len(after.evidence),
        },
    )


PROGRAMS: Mapping[str, ToolProgram] = {
    "get_evidence_bundle": get_evidence_bundle,
    "export_evidence_bundle": export_evidence_bundle,
    "import_evidence_bundle": import_evidence_bundle,
}


# ------------------------------------------------------ CLI-only programs

INSPECT_BUNDLE_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["path"],
    "properties": {
        "path": {"type": "string", "minLength": 1, "description": "Exported bundle file"},
        "detail": {"type": "string", "enum": ["summary"], "default": "summary"},
        "filters": GET_EVIDENCE_BUNDLE.input_schema["properties"]["filters"],
    },
}


@refusable
def inspect_evidence_bundle(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    """The get_evidence_bundle summary projection over a bundle file, fully verified first (the CLI's own
    program: its arguments are INSPECT_BUNDLE_SCHEMA's JSON, no catalog row's record)."""
    bundle = yield from _load_bundle(args["path"], ctx)
    return done(
        session,
        summary(sorted(bundle.records, key=lambda e: e.evidence_id), len(bundle.unknowns), args.get("filters") or {}),
    )
