"""Programs of the web family's script tools.

analyze_web_bundle observes the page exactly as inspect_web_page does (same scope checks, same
passive commands, sources captured), then parses the captured sources and, with fetch_source_maps, fetches
their declared source maps from allowed origins only. The export and the two traces read local
files only.
"""

from __future__ import annotations

import hashlib
from collections.abc import Generator, Mapping
from typing import Any

import attrs

from rea import __version__
from rea.effect_types import AnyEffect, Program, ToolProgram
from rea.errors import ReaError, invalid_request
from rea.evidence import Provider, Subject, create_evidence
from rea.program import Context, Outcome, ReportProgress, must, need, recorded, refusable, refuse, typed
from rea.session import Session
from rea.web import module_imports, script_export, script_manifest
from rea.web.bundle import analysis
from rea.web.inspection import inspection
from rea.web.programs.browser import PAGE_OPTIONS, _evidence, observe, options_of, storage_options
from rea.web.records.scripts import AnalyzeWebBundleArgs, ExportWebScriptsArgs
from rea.web.records.traces import ImportMapFile, ModuleImportsArgs, SourceLocationArgs
from rea.web.script_effects import FetchSourceMaps, ParseWebScripts, PublishWebScripts, ReadLocalFile
from rea.web.source_location import lookup, utf16_offset
from rea.web.source_maps import NOT_REQUESTED, requests, source_maps
from rea.wire.convert import to_wire


def bundle_options(args: AnalyzeWebBundleArgs) -> None:
    """analyze_web_bundle reads captured sources, within source-map budgets that fit one another."""
    limits = args.analysis_limits
    # the *_approved flags are accepted from older clients and ignored: REA requires no approval flags
    if not args.include_script_sources:
        refuse(
            invalid_request(
                "include_script_sources is false: analyze_web_bundle analyzes captured script sources",
                field="include_script_sources",
                accepted="include_script_sources: true (the default)",
            )
        )
    if limits.max_source_map_bytes > limits.max_total_source_map_bytes:
        refuse(
            invalid_request(
                "analysis_limits.max_source_map_bytes cannot exceed max_total_source_map_bytes",
                field="analysis_limits.max_source_map_bytes",
                accepted=f"at most {limits.max_total_source_map_bytes}",
            )
        )
    storage_options(args)


@typed
@refusable
def analyze_web_bundle(session: Session, args: AnalyzeWebBundleArgs, ctx: Context) -> Program:
    bundle_options(args)
    seen = yield from observe(args, "analyze_web_bundle", "page", options_of(args, PAGE_OPTIONS))
    page = inspection(seen.version, seen.target, seen.facts["targets"], seen.raw, seen.scope, args)
    captured = [s for s in page["scripts"]["items"] if s["source"]["included"]]
    limits = args.analysis_limits
    yield ReportProgress(phase="parsing", message=f"{len(captured)} script(s)")
    parsed = yield from need(
        ParseWebScripts(
            scripts=[{"script_key": s["script_key"], "text": s["source"]["artifact"]["text"]} for s in captured],
            max_ast_nodes=limits.max_ast_nodes,
        )
    )
    maps = NOT_REQUESTED
    if args.fetch_source_maps:
        wanted = requests(captured)
        yield ReportProgress(phase="fetching source maps", message=f"{len(wanted)} declared")
        fetched = yield from need(
            FetchSourceMaps(
                requests=wanted,
                allowed_origins=tuple(seen.scope),
                max_maps=limits.max_source_maps,
                max_map_bytes=limits.max_source_map_bytes,
                max_total_bytes=limits.max_total_source_map_bytes,
            )
        )
        maps = source_maps(wanted, fetched, to_wire(limits))
    result = analysis(page, parsed, maps, to_wire(limits))
    return _evidence(session, "analyze_web_bundle", args, seen.version, result)


SCRIPTS_PROVIDER = Provider(id="rea-web-scripts", name="REA captured-script tools", version=__version__)


def local_evidence(session: Session, operation: str, args: object, file: Mapping[str, Any], result: Any) -> Outcome:
    """Evidence about one local file (the capture or the manifest), pinned by its digest."""
    return recorded(
        session,
        create_evidence(
            provider=SCRIPTS_PROVIDER,
            operation=operation,
            parameters=to_wire(args),
            normalized_result=result,
            subject=Subject(
                name=file["path"].rsplit("/", 1)[-1] or "capture",
                sha256=file["sha256"],
                format="file",
                architecture=None,
                local_path=file["path"],
            ),
            authority="historical-reference",
            limitations=result["limitations"],
        ),
    )


def _published_as_planned(out: Mapping[str, Any], expected: Mapping[str, str]) -> None:
    """Every published file reads back as written, or the export fails."""
    if out["digests"] != expected:
        wrong = sorted(k for k in expected if out["digests"].get(k) != expected[k])
        refuse(
            ReaError(
                code="artifact_integrity_mismatch",
                message=f"published files do not read back as written: {wrong[:8]}",
                details={"output_directory": out["output_directory"], "files": wrong[:64]},
            )
        )


@typed
@refusable
def export_web_scripts(session: Session, args: ExportWebScriptsArgs, ctx: Context) -> Program:
    capture = yield from need(
        ReadLocalFile(path=args.capture_path, max_bytes=script_export.MAX_CAPTURE_BYTES, argument="capture_path")
    )
    doc, evidence_id = must(script_export.capture_record(capture["data"], capture["path"]))
    rows = script_export.plan(doc)
    planned: dict[str, Any] = {}

    def files_of(root: str) -> list[Any]:
        planned["manifest"] = script_export.manifest(doc, rows, capture, evidence_id, root)
        return script_export.files(rows, planned["manifest"])

    yield ReportProgress(phase="publishing", message=f"{len(rows)} script(s)")
    out = yield from need(PublishWebScripts(output_directory=args.output_directory, files_of=files_of))
    expected = {f.rel: hashlib.sha256(f.data).hexdigest() for f in files_of(out["output_directory"])}
    _published_as_planned(out, expected)
    record = planned["manifest"]
    manifest_bytes = script_export.files(rows, record)[-1].data
    result = {
        **record,
        "manifest": {
            "path": out["output_directory"] + "/" + script_export.MANIFEST,
            "sha256": expected[script_export.MANIFEST],
            "bytes": len(manifest_bytes),
        },
    }
    return local_evidence(session, "export_web_scripts", args, capture, result)


@attrs.frozen(kw_only=True)
class Selected:
    """One exported script, verified against its manifest: the manifest (record and file), the script's
    manifest entry and its file."""

    doc: dict[str, Any]
    manifest_file: dict[str, Any]
    script: dict[str, Any]
    source_file: dict[str, Any]


def _selected_script(manifest_path: str, script_index: int) -> Generator[AnyEffect, Any, Selected]:
    """The manifest's script `script_index`, its file read and verified (any refusal ends the program)."""
    manifest_file = yield from need(
        ReadLocalFile(path=manifest_path, max_bytes=script_manifest.MAX_MANIFEST_BYTES, argument="manifest_path")
    )
    doc = must(script_manifest.manifest_record(manifest_file["data"], manifest_file["path"]))
    script, path = must(script_manifest.select(doc, script_index, manifest_file["path"]))
    source = yield from need(
        ReadLocalFile(path=path, max_bytes=script_manifest.MAX_SOURCE_BYTES, argument="script_index")
    )
    must(script_manifest.verify(script, source))
    return Selected(doc=doc, manifest_file=manifest_file, script=script, source_file=source)


def _text(file: Mapping[str, Any], argument: str) -> str:
    """The file's bytes as UTF-8 text, or the program ends refusing them."""
    try:
        return bytes(file["data"]).decode("utf-8")
    except UnicodeDecodeError:
        refuse(invalid_request(f"{file['path']} is not UTF-8 text", field=argument))


ENGINE = {"id": "rea-sourcemap-vlq", "version": __version__}
RUNTIME = {"id": "rea", "version": __version__, "v8_heap_limit_bytes": None}
LOCATION_LIMITATIONS = (
    "The caller pairs the map with the script; the pairing does not establish that the page deployed it.",
    "A mapped position says where the generator attributed the code, not that it ran.",
    "Decoded in REA's own process (no Node codec, no heap limit); 4 MiB map, 262,144 segments.",
)


def _generated_offset(source: str, line: int, column: int) -> int:
    """The UTF-16 offset of a (one-based line, column) in the script, or the program ends refusing it."""
    offset = utf16_offset(source, line, column)
    if offset is None:
        refuse(
            invalid_request(
                f"generated_position {line}:{column} is past the end of its line in the script",
                field="generated_position",
                accepted="a one-based line of the script and a UTF-16 column at most that line's length",
            )
        )
    return offset


@typed
@refusable
def trace_web_source_location(session: Session, args: SourceLocationArgs, ctx: Context) -> Program:
    chosen = yield from _selected_script(args.manifest_path, args.script_index)
    map_file = yield from need(
        ReadLocalFile(path=args.source_map.path, max_bytes=script_manifest.MAX_MAP_BYTES, argument="source_map.path")
    )
    source, map_text = _text(chosen.source_file, "script_index"), _text(map_file, "source_map.path")
    position = args.generated_position
    offset = _generated_offset(source, position.line, position.column)
    report = must(lookup(map_text, args.source_map.url, position.line, position.column))
    result = {
        "source_map_sha256": map_file["sha256"],
        "url_context": args.source_map.url,
        "engine": ENGINE,
        "runtime": RUNTIME,
        **report,
        "manifest": script_manifest.identity(chosen.doc, chosen.manifest_file),
        "source": script_manifest.source_identity(chosen.script, chosen.source_file, args.script_index),
        "source_map": {
            "path": map_file["path"],
            "sha256": map_file["sha256"],
            "bytes": map_file["bytes"],
            "url": args.source_map.url,
            "association": "caller-selected",
        },
        "generated_offset": offset,
        "source_authenticity": "unknown",
        "execution": "unknown",
        "limitations": list(LOCATION_LIMITATIONS),
    }
    return local_evidence(session, "trace_web_source_location", args, chosen.manifest_file, result)


def _import_map(
    selected: ImportMapFile | None,
) -> Generator[AnyEffect, Any, tuple[dict[str, Any] | None, dict[str, Any] | None]]:
    """The caller's import map, read and normalized, and its identity (None, None when there is none)."""
    if selected is None:
        return None, None
    if not module_imports.is_http(selected.base_url):
        refuse(invalid_request("import_map.base_url is not an HTTP(S) URL", field="import_map.base_url"))
    file = yield from need(
        ReadLocalFile(path=selected.path, max_bytes=script_manifest.MAX_MAP_BYTES, argument="import_map.path")
    )
    imap = must(module_imports.import_map(_text(file, "import_map.path"), selected.base_url))
    used = {"path": file["path"], "sha256": file["sha256"], "bytes": file["bytes"], "base_url": selected.base_url}
    return imap, used


@typed
@refusable
def trace_web_module_imports(session: Session, args: ModuleImportsArgs, ctx: Context) -> Program:
    chosen = yield from _selected_script(args.manifest_path, args.script_index)
    doc, manifest_file, script = chosen.doc, chosen.manifest_file, chosen.script
    importer = must(module_imports.importer_of(script, args.importer_url))
    imap, used = yield from _import_map(args.import_map)
    source = _text(chosen.source_file, "script_index")
    parsed = yield from need(
        ParseWebScripts(scripts=[{"script_key": "selected", "text": source}], max_ast_nodes=5_000_000)
    )
    (facts,) = parsed
    diagnostics = (
        [f"tree-sitter recovered from {facts.get('syntax_errors', 0)} syntax error(s); imports are those that parsed"]
        if facts["parse"] != "ok"
        else []
    )
    result = {
        "manifest": {
            **{
                k: v
                for k, v in script_manifest.identity(doc, manifest_file).items()
                if k in ("path", "sha256", "bytes", "reported_output_directory", "capture_sha256")
            },
        },
        "source": script_manifest.source_identity(script, chosen.source_file, args.script_index),
        "importer": importer,
        "import_map": used,
        "parser": {
            "state": "parsed" if facts["parse"] == "ok" else "unparseable",
            "diagnostics": diagnostics,
            "location_units": "UTF-16 offsets and columns; one-based lines",
        },
        "engine": {"id": module_imports.RESOLVER, "version": __version__},
        "imports": module_imports.imports(facts, importer["url"], imap, doc["scripts"]),
        "diagnostics": [],
        "limitations": list(module_imports.LIMITATIONS),
    }
    return local_evidence(session, "trace_web_module_imports", args, manifest_file, result)


PROGRAMS: Mapping[str, ToolProgram] = {
    "analyze_web_bundle": analyze_web_bundle,
    "export_web_scripts": export_web_scripts,
    "trace_web_source_location": trace_web_source_location,
    "trace_web_module_imports": trace_web_module_imports,
}
