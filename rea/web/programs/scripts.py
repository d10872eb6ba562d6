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

from returns.pipeline import is_successful

from rea.effect_types import AnyEffect, Program, ToolProgram
from rea.errors import ReaError, invalid_request
from rea.program import Context, Outcome, ReportProgress, failed
from rea.session import Session
from rea.web.bundle import analysis
from rea.web.inspection import inspection
from rea import __version__
from rea.evidence import Provider, Subject, create_evidence
from rea.program import recorded
from rea.web import module_imports, script_export, script_manifest
from rea.web.source_location import lookup, utf16_offset
from rea.web.script_effects import FetchSourceMaps, ParseWebScripts, PublishWebScripts, ReadLocalFile
from rea.web.source_maps import NOT_REQUESTED, requests, source_maps
from rea.web.programs.browser import PAGE_OPTIONS, _evidence, _inspect_refusal, observe


def _bundle_refusal(args: Mapping[str, Any]) -> ReaError | None:
    limits = args["analysis_limits"]
    # the *_approved flags are accepted from older clients and ignored: REA requires no approval flags
    if not args["include_script_sources"]:
        return invalid_request(
            "include_script_sources is false: analyze_web_bundle analyzes captured script sources",
            field="include_script_sources",
            accepted="include_script_sources: true (the default)",
        )
    if limits["max_source_map_bytes"] > limits["max_total_source_map_bytes"]:
        return invalid_request(
            "analysis_limits.max_source_map_bytes cannot exceed max_total_source_map_bytes",
            field="analysis_limits.max_source_map_bytes",
            accepted=f"at most {limits['max_total_source_map_bytes']}",
        )
    return _inspect_refusal(args)


def analyze_web_bundle(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    refusal = _bundle_refusal(args)
    if refusal is not None:
        return failed(session, refusal)
    got = yield from observe(session, args, "analyze_web_bundle", "page", {k: args[k] for k in PAGE_OPTIONS})
    if isinstance(got, Outcome):
        return got
    facts, target, scope, raw = got
    page = inspection(facts["version"], target, facts["targets"], raw, scope, args)
    captured = [s for s in page["scripts"]["items"] if s["source"]["included"]]
    limits = args["analysis_limits"]
    yield ReportProgress(phase="parsing", message=f"{len(captured)} script(s)")
    parsed = yield ParseWebScripts(
        scripts=[{"script_key": s["script_key"], "text": s["source"]["artifact"]["text"]} for s in captured],
        max_ast_nodes=limits["max_ast_nodes"],
    )
    if not is_successful(parsed):
        return failed(session, parsed.failure())
    maps: Mapping[str, Any] = NOT_REQUESTED
    if args["fetch_source_maps"]:
        wanted = requests(captured)
        yield ReportProgress(phase="fetching source maps", message=f"{len(wanted)} declared")
        fetched = yield FetchSourceMaps(
            requests=wanted,
            allowed_origins=tuple(scope),
            max_maps=limits["max_source_maps"],
            max_map_bytes=limits["max_source_map_bytes"],
            max_total_bytes=limits["max_total_source_map_bytes"],
        )
        if not is_successful(fetched):
            return failed(session, fetched.failure())
        maps = source_maps(wanted, fetched.unwrap(), limits)
    result = analysis(page, parsed.unwrap(), maps, limits)
    return _evidence(session, "analyze_web_bundle", args, facts["version"], result)


SCRIPTS_PROVIDER = Provider(id="rea-web-scripts", name="REA captured-script tools", version=__version__)


def local_evidence(
    session: Session, operation: str, args: Mapping[str, Any], file: Mapping[str, Any], result: Any
) -> Outcome:
    """Evidence about one local file (the capture or the manifest), pinned by its digest."""
    return recorded(
        session,
        create_evidence(
            provider=SCRIPTS_PROVIDER,
            operation=operation,
            parameters=dict(args),
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


def export_web_scripts(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    read = yield ReadLocalFile(
        path=args["capture_path"], max_bytes=script_export.MAX_CAPTURE_BYTES, argument="capture_path"
    )
    if not is_successful(read):
        return failed(session, read.failure())
    capture = read.unwrap()
    parsed = script_export.capture_record(capture["data"], capture["path"])
    if isinstance(parsed, ReaError):
        return failed(session, parsed)
    doc, evidence_id = parsed
    rows = script_export.plan(doc)
    planned: dict[str, Any] = {}

    def files_of(root: str) -> list[Any]:
        planned["manifest"] = script_export.manifest(doc, rows, capture, evidence_id, root)
        return script_export.files(rows, planned["manifest"])

    yield ReportProgress(phase="publishing", message=f"{len(rows)} script(s)")
    published = yield PublishWebScripts(output_directory=args.get("output_directory"), files_of=files_of)
    if not is_successful(published):
        return failed(session, published.failure())
    out = published.unwrap()
    expected = {f.rel: hashlib.sha256(f.data).hexdigest() for f in files_of(out["output_directory"])}
    if out["digests"] != expected:
        wrong = sorted(k for k in expected if out["digests"].get(k) != expected[k])
        return failed(
            session,
            ReaError(
                code="artifact_integrity_mismatch",
                message=f"published files do not read back as written: {wrong[:8]}",
                details={"output_directory": out["output_directory"], "files": wrong[:64]},
            ),
        )
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


def _selected_script(
    session: Session, args: Mapping[str, Any]
) -> Generator[AnyEffect, Any, Outcome | tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]]:
    """(manifest record, manifest file, script entry, script file) verified, or a failed Outcome."""
    got = yield ReadLocalFile(
        path=args["manifest_path"], max_bytes=script_manifest.MAX_MANIFEST_BYTES, argument="manifest_path"
    )
    if not is_successful(got):
        return failed(session, got.failure())
    manifest_file = got.unwrap()
    doc = script_manifest.manifest_record(manifest_file["data"], manifest_file["path"])
    if isinstance(doc, ReaError):
        return failed(session, doc)
    chosen = script_manifest.select(doc, args["script_index"], manifest_file["path"])
    if isinstance(chosen, ReaError):
        return failed(session, chosen)
    script, path = chosen
    source = yield ReadLocalFile(path=path, max_bytes=script_manifest.MAX_SOURCE_BYTES, argument="script_index")
    if not is_successful(source):
        return failed(session, source.failure())
    mismatch = script_manifest.verify(script, source.unwrap())
    if mismatch is not None:
        return failed(session, mismatch)
    return doc, manifest_file, script, source.unwrap()


def _text(file: Mapping[str, Any], argument: str) -> str | ReaError:
    try:
        return bytes(file["data"]).decode("utf-8")
    except UnicodeDecodeError:
        return invalid_request(f"{file['path']} is not UTF-8 text", field=argument)


ENGINE = {"id": "rea-sourcemap-vlq", "version": __version__}
RUNTIME = {"id": "rea", "version": __version__, "v8_heap_limit_bytes": None}
LOCATION_LIMITATIONS = (
    "The caller pairs the map with the script; the pairing does not establish that the page deployed it.",
    "A mapped position says where the generator attributed the code, not that it ran.",
    "Decoded in REA's own process (no Node codec, no heap limit); 4 MiB map, 262,144 segments.",
)


def trace_web_source_location(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    chosen = yield from _selected_script(session, args)
    if isinstance(chosen, Outcome):
        return chosen
    doc, manifest_file, script, source_file = chosen
    got = yield ReadLocalFile(
        path=args["source_map"]["path"], max_bytes=script_manifest.MAX_MAP_BYTES, argument="source_map.path"
    )
    if not is_successful(got):
        return failed(session, got.failure())
    map_file = got.unwrap()
    source, map_text = _text(source_file, "script_index"), _text(map_file, "source_map.path")
    for text in (source, map_text):
        if isinstance(text, ReaError):
            return failed(session, text)
    assert isinstance(source, str) and isinstance(map_text, str)
    position = args["generated_position"]
    offset = utf16_offset(source, position["line"], position["column"])
    if offset is None:
        return failed(
            session,
            invalid_request(
                f"generated_position {position['line']}:{position['column']} is past the end of its line in the script",
                field="generated_position",
                accepted="a one-based line of the script and a UTF-16 column at most that line's length",
            ),
        )
    report = lookup(map_text, args["source_map"]["url"], position["line"], position["column"])
    if isinstance(report, ReaError):
        return failed(session, report)
    result = {
        "source_map_sha256": map_file["sha256"],
        "url_context": args["source_map"]["url"],
        "engine": ENGINE,
        "runtime": RUNTIME,
        **report,
        "manifest": script_manifest.identity(doc, manifest_file),
        "source": script_manifest.source_identity(script, source_file, args["script_index"]),
        "source_map": {
            "path": map_file["path"],
            "sha256": map_file["sha256"],
            "bytes": map_file["bytes"],
            "url": args["source_map"]["url"],
            "association": "caller-selected",
        },
        "generated_offset": offset,
        "source_authenticity": "unknown",
        "execution": "unknown",
        "limitations": list(LOCATION_LIMITATIONS),
    }
    return local_evidence(session, "trace_web_source_location", args, manifest_file, result)


def _import_map(
    session: Session, args: Mapping[str, Any]
) -> Generator[AnyEffect, Any, Outcome | tuple[dict[str, Any] | None, dict[str, Any] | None]]:
    selected = args.get("import_map")
    if selected is None:
        return None, None
    if not module_imports.is_http(selected["base_url"]):
        return failed(
            session, invalid_request("import_map.base_url is not an HTTP(S) URL", field="import_map.base_url")
        )
    got = yield ReadLocalFile(
        path=selected["path"], max_bytes=script_manifest.MAX_MAP_BYTES, argument="import_map.path"
    )
    if not is_successful(got):
        return failed(session, got.failure())
    file = got.unwrap()
    text = _text(file, "import_map.path")
    if isinstance(text, ReaError):
        return failed(session, text)
    imap = module_imports.import_map(text, selected["base_url"])
    if isinstance(imap, ReaError):
        return failed(session, imap)
    used = {"path": file["path"], "sha256": file["sha256"], "bytes": file["bytes"], "base_url": selected["base_url"]}
    return imap, used


def trace_web_module_imports(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    chosen = yield from _selected_script(session, args)
    if isinstance(chosen, Outcome):
        return chosen
    doc, manifest_file, script, source_file = chosen
    importer = module_imports.importer_of(script, args.get("importer_url"))
    if isinstance(importer, ReaError):
        return failed(session, importer)
    mapped = yield from _import_map(session, args)
    if isinstance(mapped, Outcome):
        return mapped
    imap, used = mapped
    source = _text(source_file, "script_index")
    if isinstance(source, ReaError):
        return failed(session, source)
    parsed = yield ParseWebScripts(scripts=[{"script_key": "selected", "text": source}], max_ast_nodes=5_000_000)
    if not is_successful(parsed):
        return failed(session, parsed.failure())
    (facts,) = parsed.unwrap()
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
        "source": script_manifest.source_identity(script, source_file, args["script_index"]),
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
