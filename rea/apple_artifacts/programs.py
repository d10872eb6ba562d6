"""Programs of the Apple artifacts family: each reads the open target (or supplied inventory Evidence).

The three file tools read the open target: its own file, or inside an open .app (or any
directory) the files of their kind. project_apple_application_graph reads no file: it
projects inventory Evidence already in hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rea import __version__
from rea.apple_artifacts import application, interface_graph, keyed
from rea.apple_artifacts.effects import ReadAssetCatalogs, ReadInterfaceBuilder, ReadKeyedArchive
from rea.apple_artifacts.records import (
    ApplicationGraphArgs,
    AssetCatalogArgs,
    AssetCatalogResult,
    CatalogFile,
    CatalogRecord,
    InterfaceBuilderArgs,
    KeyedArchiveArgs,
    KeyedArchiveResult,
)
from rea.artifacts.inventory_parsing import parse_inventory
from rea.artifacts.model import ZIP_FORMATS
from rea.effect_types import Program, ToolProgram
from rea.errors import ReaError, invalid_request, no_target
from rea.evidence import Evidence, Provider, Subject, create_evidence
from rea.layout.plist import inside_bundle
from rea.program import Context, ReportProgress, must, need, recorded, refusable, refuse, typed
from rea.session import Session, Target, resolve
from rea.wire.convert import to_wire

READER = Provider(id="rea-apple-artifacts", name="REA Apple artifact reader", version=__version__)
CATALOG_LIMITATIONS = [
    "Rendition payloads (image, color and data bytes) are not decoded or extracted; metadata.undecoded names them.",
    "Attribute names follow the publicly reverse-engineered CoreUI numbering; unknown ids stay attribute_N.",
    "resource_key_matches is empty: matching Interface Builder image names is not done by this reader.",
]


def _target(session: Session, operation: str) -> Target:
    if session.target is None:
        refuse(no_target(operation))
    target = session.target
    if target.kind == "file" and target.format in ZIP_FORMATS + ("dmg", "tar", "asar"):
        refuse(ReaError(
            code="capability_unavailable",
            message=f"{operation} reads files of an .app directory or the file itself; {target.path} is a "
                    f"{target.format} archive, which it does not open.",
            details={"reason": "archive_target", "operation": operation, "format": target.format},
            action="Call extract_artifact on the archive, then open_binary the extracted .app directory "
                   "(project_apple_application_graph reads the archive's inventory directly).",
        ))  # fmt: skip
    return target


def _subject(target: Target) -> Subject:
    return Subject(name=target.name, sha256=target.sha256, format=target.format, architecture=None,
                   local_path=target.path)  # fmt: skip


def _archive_path(target: Target, relative: str) -> str:
    """The file a keyed-archive request names: the open file itself ('.'), or a path inside the open directory."""
    if target.kind != "directory":
        if relative not in (".", ""):
            refuse(invalid_request(f"the open target {target.path} is a file; path must be '.'", field="path"))
        return target.path
    if relative in (".", ""):
        refuse(invalid_request("select a keyed archive path relative to the open bundle", field="path",
                               accepted="e.g. Contents/Resources/Model.plist"))  # fmt: skip
    must(inside_bundle(relative))
    return target.path.rstrip("/") + "/" + relative.strip("/")


@typed
@refusable
def inspect_keyed_archive(session: Session, args: KeyedArchiveArgs, ctx: Context) -> Program:
    target = _target(session, "inspect_keyed_archive")
    path = _archive_path(target, args.path)
    yield ReportProgress(phase="reading keyed archive", message=path)
    facts = yield from need(ReadKeyedArchive(path=path, relative=args.path))
    page = must(keyed.project(facts["archive"], args.root, args.offset, args.limit))
    bad_reals = (f"{facts['bad_reals']} non-finite reals are typed nulls",) if facts["bad_reals"] else ()
    result = KeyedArchiveResult(target_sha256=target.sha256, archive_path=args.path, archive_sha256=facts["sha256"],
                                archive_format=facts["format"], roots=page.roots, objects=page.objects,
                                references=page.references, total_objects=page.total_objects,
                                total_references=page.total_references, offset=page.offset,
                                next_offset=page.next_offset, truncated=page.truncated,
                                limitations=(*page.limitations, *bad_reals))  # fmt: skip
    return recorded(session, create_evidence(provider=READER, operation="inspect_keyed_archive",
                                             parameters=to_wire(args), normalized_result=to_wire(result),
                                             subject=_subject(target), limitations=list(result.limitations)))  # fmt: skip


@typed
@refusable
def decode_interface_builder(session: Session, args: InterfaceBuilderArgs, ctx: Context) -> Program:
    target = _target(session, "decode_interface_builder")
    yield ReportProgress(phase="decoding compiled nibs", message=target.path)
    facts = yield from need(ReadInterfaceBuilder(root=target.path, max_documents=args.max_documents))
    limits = {"max_objects": args.max_objects, "max_connections": args.max_connections}
    notes = (
        *(("the bundle walk stopped at its entry limit: more documents may exist",) if facts["walk_cut"] else ()),
        *(() if facts["found"] else ("no compiled nib or storyboard scene was found in the target",)),
    )
    result = interface_graph.build(target.sha256, facts["documents"], limits, facts["found"], notes)
    return recorded(session, create_evidence(provider=READER, operation="decode_interface_builder",
                                             parameters=to_wire(args), normalized_result=to_wire(result),
                                             subject=_subject(target), limitations=list(result.limitations)))  # fmt: skip


def _catalog_records(facts: Mapping[str, Any]) -> tuple[list[CatalogFile], list[CatalogRecord], list[str]]:
    catalogs, records, notes = [], [], []
    for found in facts["catalogs"]:
        parsed = found["catalog"]
        rows = [] if parsed is None else list(parsed.records)
        catalogs.append(CatalogFile(path=found["path"], sha256=found["sha256"], record_count=len(rows)))
        records += [CatalogRecord(catalog_path=found["path"], catalog_sha256=found["sha256"], index=row.index,
                                  kind=row.kind, asset_name=row.asset_name, rendition_name=row.rendition_name,
                                  metadata=row.metadata) for row in rows]  # fmt: skip
        notes += [f"{found['path']}: {found['problem']}"] if parsed is None else [
            f"{found['path']}: {note}" for note in parsed.limitations]  # fmt: skip
    return catalogs, records, notes


@typed
@refusable
def inspect_asset_catalog(session: Session, args: AssetCatalogArgs, ctx: Context) -> Program:
    target = _target(session, "inspect_asset_catalog")
    yield ReportProgress(phase="reading asset catalogs", message=target.path)
    facts = yield from need(ReadAssetCatalogs(root=target.path))
    catalogs, records, notes = _catalog_records(facts)
    page = records[args.offset : args.offset + args.limit]
    end = args.offset + len(page)
    limitations = notes + CATALOG_LIMITATIONS + (["no .car file was found in the target"] if not catalogs else [])
    result = AssetCatalogResult(target_sha256=target.sha256, catalogs=tuple(catalogs), total_records=len(records),
                                offset=args.offset, limit=args.limit, records=tuple(page), resource_key_matches=(),
                                next_offset=end if end < len(records) else None,
                                truncated=args.offset > 0 or end < len(records),
                                limitations=tuple(limitations))  # fmt: skip
    return recorded(session, create_evidence(provider=READER, operation="inspect_asset_catalog",
                                             parameters=to_wire(args), normalized_result=to_wire(result),
                                             subject=_subject(target), limitations=limitations))  # fmt: skip


def _inventory_page(session: Session, value: Any, field: str) -> tuple[Evidence, dict[str, Any]]:
    evidence: Evidence = must(resolve(session, value, field))
    if evidence.operation == "inspect_artifact":
        return _inventory_page(session, evidence.normalized_result["substeps"][0]["evidence"], f"{field}.substeps[0]")
    if evidence.operation != "inventory_artifact":
        refuse(invalid_request(f"{field} is {evidence.operation} Evidence", field=field,
                               accepted="inventory_artifact or inspect_artifact Evidence"))  # fmt: skip
    return evidence, must(parse_inventory(evidence.normalized_result))


def _one_inventory(session: Session, args: ApplicationGraphArgs) -> list[tuple[Evidence, dict[str, Any]]]:
    pages = [_inventory_page(session, v, f"inventory_evidence[{i}]") for i, v in enumerate(args.inventory_evidence)]
    if len({inv["manifest"]["manifest_id"] for _, inv in pages}) != 1:
        refuse(invalid_request("the pages come from different inventories", field="inventory_evidence"))
    return pages


@typed
@refusable
def project_apple_application_graph(session: Session, args: ApplicationGraphArgs, ctx: Context) -> Program:
    pages = _one_inventory(session, args)
    ids = [e.evidence_id for e, _ in pages]
    result = application.project([inv for _, inv in pages], ids, args.limits.max_components)
    links = sorted(set(ids))
    yield from ()
    return recorded(session, create_evidence(
        provider=READER, operation="project_apple_application_graph",
        parameters={"limits": to_wire(args.limits), "source_evidence_ids": links}, normalized_result=result,
        subject=pages[0][0].subject, confidence="derived", limitations=result["limitations"],
        evidence_links=links))  # fmt: skip


# @typed programs read their argument record; the table's type names the mapping the gate hands over
PROGRAMS: Mapping[str, ToolProgram] = {
    "inspect_keyed_archive": inspect_keyed_archive,
    "decode_interface_builder": decode_interface_builder,
    "inspect_asset_catalog": inspect_asset_catalog,
    "project_apple_application_graph": project_apple_application_graph,
}
