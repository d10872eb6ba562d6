"""Programs of the JavaScript / Electron family.

analyze_javascript_application scans, reads and parses in phases (effects), then
builds the graph purely. The workflows read application Evidence (inline or a
retained reference) and never rerun the producer.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Generator, Mapping

from returns.pipeline import is_successful
from returns.result import Failure, Success

from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence, Provider, Subject, create_evidence, create_profile
from rea.javascript import compare as cmp
from rea.javascript import trace as tr
from rea.javascript.effects import ExtractFiles, ScanApplication
from rea.javascript.graph import DEFAULT_LIMITS, build_graph, select_text_files, tree_digest
from rea.javascript.views import OPERATION, check_application, view_evidence
from rea.program import Context, Effect, Outcome, ProgramCancelled, ReportProgress
from rea.session import Session, record, resolve

Steps = Generator[Effect, Any, Outcome]
BATCH_FILES = 64
BATCH_BYTES = 4 * 1024 * 1024
WORKFLOW_PROVIDER = Provider(id="rea-javascript-workflows", name="REA application graph workflows", version="1")
STATIC_NOTICE = (
    "Static analysis of shipped files: nothing was executed; dynamic behaviour (computed requires, "
    "channels, URLs) is listed under unknowns, never taken as absence."
)


def _fail(session: Session, error: ReaError) -> Outcome:
    return Outcome(session=session, reply=Failure(error))


PARALLEL_MIN_BYTES = 4 * 1024 * 1024  # text to parse before a second process pays for itself


def batches(files: list[dict[str, Any]], parallel: bool = False) -> list[list[dict[str, Any]]]:
    """Files in path order, in batches of at most BATCH_FILES files or BATCH_BYTES (progress and cancellation
    come between batches). With a second process, a large file waits for a partner (a bundle for its map) so
    the two are parsed side by side."""
    out: list[list[dict[str, Any]]] = [[]]
    size = 0
    for f in files:
        full = size + f["size"] > BATCH_BYTES and not (parallel and len(out[-1]) == 1)
        if out[-1] and (len(out[-1]) >= BATCH_FILES or full):
            out.append([])
            size = 0
        out[-1].append(f)
        size += f["size"]
    return [b for b in out if b]


def analyze_javascript_application(session: Session, args: Mapping[str, Any], ctx: Context) -> Steps:
    limits = {**DEFAULT_LIMITS, **args.get("limits", {})}
    fmt = args.get("format", "auto")
    policy = args.get("integrity_policy", "fail-closed")
    yield ReportProgress(phase="scanning", message=f"listing {args['input_path']}")
    scanned = yield ScanApplication(
        path=args["input_path"], format=fmt, max_entries=limits["max_entries"], max_depth=limits["max_depth"]
    )
    if not is_successful(scanned):
        return _fail(session, scanned.failure())
    scan = scanned.unwrap()
    if scan.get("integrity_contradictions") and policy == "fail-closed":
        return _fail(session, _integrity_failure(args["input_path"], scan["integrity_contradictions"][0]))
    chosen, read_omissions = select_text_files(scan["files"], limits)
    total_bytes = sum(f["size"] for f in chosen)
    facts: list[dict[str, Any]] = []
    done = 0
    try:
        for batch in batches(chosen, parallel=total_bytes >= PARALLEL_MIN_BYTES):
            yield ReportProgress(phase="parsing", message=f"{done}/{len(chosen)} files parsed")
            extracted = yield ExtractFiles(
                root=scan["root"],
                files=tuple(
                    (f["path"], f["kind"], f["locator"]) if "locator" in f else (f["path"], f["kind"]) for f in batch
                ),
                max_file_bytes=limits["max_text_file_bytes"],
                max_ast_nodes=limits["max_ast_nodes"],
                max_source_map_sources=limits["max_source_map_sources"],
                max_original_source_bytes=limits["max_original_source_bytes"],
                parallel=total_bytes >= PARALLEL_MIN_BYTES,
                done=done,
                total=len(chosen),
            )
            if not is_successful(extracted):
                return _fail(session, extracted.failure())
            contradicted = [
                f["integrity_contradiction"] for f in extracted.unwrap() if f.get("integrity_contradiction")
            ]
            if contradicted and policy == "fail-closed":
                return _fail(session, _integrity_failure(args["input_path"], contradicted[0]))
            facts.extend(extracted.unwrap())
            done += len(batch)
        yield ReportProgress(phase="linking", message=f"{done} files parsed; resolving modules, roles and IPC")
    except ProgramCancelled as stop:
        if not facts:
            raise
        unread = [{"path": f["path"], "reason": "cancelled", "size": f["size"]} for f in chosen[done:]]
        partial = _record(
            session, args, scan, facts, limits, read_omissions + unread, fmt, policy, str(stop) or "parsing"
        )
        if not is_successful(partial):
            raise
        evidence = partial.unwrap()
        return Outcome(
            session=record(session, (evidence,)),
            reply=Failure(
                ReaError(
                    code="cancelled",
                    message=(
                        f"Cancelled during parsing after {done} of {len(chosen)} files; the graph of the files read is "
                        f"retained as partial Evidence {evidence.evidence_id}."
                    ),
                    details={
                        "phase": "parsing",
                        "files_done": done,
                        "files_total": len(chosen),
                        "partial_observation": {"kind": "retained-evidence", "evidence_id": evidence.evidence_id},
                    },
                    action="Read the partial Evidence (its coverage is partial), or start the analysis again.",
                )
            ),
        )
    created = _record(session, args, scan, facts, limits, read_omissions, fmt, policy, None)
    if not is_successful(created):
        return _fail(session, created.failure())
    evidence = created.unwrap()
    session = record(session, (evidence,))
    if args.get("detail", "complete") == "summary":
        view = view_evidence(evidence, {"view": "summary"})
        if not is_successful(view):
            return _fail(session, view.failure())
        return Outcome(session=record(session, (view.unwrap(),)), reply=Success(view.unwrap().to_json()))
    return Outcome(session=session, reply=Success(evidence.to_json()))


UNPACKED_CAUSE = (
    "Packaging tools commonly sign or strip .asar.unpacked native binaries after writing the archive "
    "header, so the declared hash no longer matches; Electron does not check unpacked companions."
)


def _integrity_failure(archive: str, contradiction: Mapping[str, Any]) -> ReaError:
    unpacked = contradiction.get("unpacked", False)
    return ReaError(
        code="artifact_integrity_mismatch",
        message=(
            f"{contradiction['path']} in {archive} does not match the SHA-256 its ASAR header declares "
            f"({contradiction['declared_sha256']}; read {contradiction['observed_sha256']}). Nothing was "
            "recorded." + (f" {UNPACKED_CAUSE}" if unpacked else "")
        ),
        details={
            "path": contradiction["path"],
            "archive": archive,
            **{k: contradiction[k] for k in ("declared_sha256", "observed_sha256", "unpacked")},
        },
        action=(
            'Rerun analyze_javascript_application with integrity_policy "record-and-continue" to record the '
            "mismatch and continue with the verified files."
        ),
    )


def _record(
    session: Session,
    args: Mapping[str, Any],
    scan: Mapping[str, Any],
    facts: list[dict[str, Any]],
    limits: Mapping[str, int],
    read_omissions: list[dict[str, Any]],
    fmt: str,
    policy: str,
    cancelled_during: str | None,
):
    result = build_graph(scan, facts, limits, read_omissions)
    result["integrity_policy"] = policy
    if scan["kind"] == "asar":
        result["application"]["unpacked_directory"] = scan.get("unpacked_directory", False)
    if cancelled_during is not None:
        result["coverage"] = {**result["coverage"], "status": "partial", "cancelled_during": cancelled_during}
    parser = scan.get("parser", {})
    provider = Provider(id="javascript", name="tree-sitter JavaScript/TypeScript", version=parser.get("tree_sitter"))
    by_path = {f["path"]: f for f in facts}
    root = scan["root"]
    return create_evidence(
        provider=provider,
        operation=OPERATION,
        parameters=dict(args),
        normalized_result=result,
        subject=Subject(
            name=root.rstrip("/").rsplit("/", 1)[-1] or root,
            sha256=tree_digest(scan["files"], by_path),
            format="asar" if scan["kind"] == "asar" else "directory",
            architecture=None,
            local_path=root,
        ),
        analysis_profile=create_profile(provider, 1, {"limits": limits, "format": fmt, "parsers": parser}),
        confidence="derived",
        limitations=(STATIC_NOTICE,)
        + (
            (
                f"Coverage is partial: {', '.join(result['coverage']['limits_reached'])} "
                "reached; raise the named limit for a complete record.",
            )
            if result["coverage"]["limits_reached"]
            else ()
        )
        + (
            (
                "Integrity mismatches were recorded and their files quarantined (integrity_contradictions); coverage "
                "is partial.",
            )
            if result["integrity_contradictions"]
            else ()
        )
        + (
            (
                f"Partial: the analysis was cancelled during {cancelled_during}; files not read are omitted "
                "with reason cancelled.",
            )
            if cancelled_during
            else ()
        ),
        locations=({"kind": "artifact-path", "path": root},),
    )


def _application(session: Session, args: Mapping[str, Any], field: str) -> tuple[Evidence | None, ReaError | None]:
    inline, by_id = args.get(field), args.get(f"{field}_evidence_id")
    if (inline is None) == (by_id is None):
        return None, invalid_request(
            f"Give exactly one of {field} and {field}_evidence_id.",
            field=field,
            accepted=f'{field}: application Evidence or {{"kind": "retained-evidence", '
            f'"evidence_id": ...}}; or {field}_evidence_id',
        )
    ref = inline if inline is not None else {"kind": "retained-evidence", "evidence_id": by_id}
    found = resolve(session, ref, field)
    if not is_successful(found):
        return None, found.failure()
    evidence = found.unwrap()
    checked = check_application(evidence, field)
    if not is_successful(checked):
        return None, checked.failure()
    return evidence, None


def _derived(
    session: Session,
    operation: str,
    args: Mapping[str, Any],
    result: Any,
    sources: list[Evidence],
    limitations: tuple[str, ...] = (),
) -> Outcome:
    parameters = {
        k: (
            {"kind": "retained-evidence", "evidence_id": v.get("evidence_id")}
            if isinstance(v, Mapping) and "normalized_result" in v
            else v
        )
        for k, v in args.items()
    }
    created = create_evidence(
        provider=WORKFLOW_PROVIDER,
        operation=operation,
        parameters=parameters,
        normalized_result=result,
        subject=sources[0].subject if len(sources) == 1 else None,
        confidence="derived",
        authority="analyst-inference",
        limitations=(STATIC_NOTICE, *limitations),
        evidence_links=tuple(dict.fromkeys(s.evidence_id for s in sources)),
    )
    if not is_successful(created):
        return _fail(session, created.failure())
    evidence = created.unwrap()
    return Outcome(session=record(session, sources + [evidence]), reply=Success(evidence.to_json()))


def trace_application_feature(session: Session, args: Mapping[str, Any], ctx: Context) -> Outcome:
    app, problem = _application(session, args, "application")
    if problem is not None:
        return _fail(session, problem)
    assert app is not None
    limits = {**tr.DEFAULT_TRACE_LIMITS, **args.get("limits", {})}
    result = tr.trace_feature(app.normalized_result, args["seed"], args.get("direction", "both"), limits)
    result["application_evidence_id"] = app.evidence_id
    return _derived(session, "trace_application_feature", args, result, [app])


def trace_javascript_semantics(session: Session, args: Mapping[str, Any], ctx: Context) -> Outcome:
    app, problem = _application(session, args, "application")
    if problem is not None:
        return _fail(session, problem)
    assert app is not None
    query = args["query"]
    limits = {**tr.DEFAULT_TRACE_LIMITS, **args.get("limits", {})}
    graph = app.normalized_result
    if not any(n["id"] == query["node_id"] for n in graph["nodes"]):
        return _fail(
            session,
            invalid_request(
                f"No node has id {query['node_id']!r}.",
                field="query.node_id",
                accepted="a node id from the application record or its views",
            ),
        )
    direction = {"provenance": "backward", "reach": "forward"}[query.get("direction", "reach")]
    relations = frozenset(query["relations"]) if query.get("relations") else None
    reached = tr.reach(graph, [query["node_id"]], direction, limits, relations)
    by_id = {n["id"]: n for n in graph["nodes"]}
    result = {
        "query": dict(query),
        "direction": direction,
        "application_evidence_id": app.evidence_id,
        "nodes": [
            {"id": n, "kind": by_id[n]["kind"], "depth": d} for n, d in sorted(reached["depth"].items()) if n in by_id
        ],
        "edges": [graph["edges"][i] for i in reached["edges"]],
        "truncated": bool(reached["truncated"]),
        "truncation": {"limits_reached": reached["truncated"], "frontier": reached["frontier"][:100]},
        "source_coverage": graph["coverage"]["status"],
    }
    return _derived(
        session,
        "trace_javascript_semantics",
        args,
        result,
        [app],
        (
            "Semantic relations here are the graph's module, IPC, bridge, load and URL relations; "
            "intra-function value flow is not modelled.",
        ),
    )


def _pair(session: Session, args: Mapping[str, Any]) -> tuple[list[Evidence], ReaError | None]:
    out = []
    for side in ("left", "right"):
        evidence, problem = _application(session, args, side)
        if problem is not None:
            return [], problem
        assert evidence is not None
        out.append(evidence)
    return out, None


def compare_application_versions(session: Session, args: Mapping[str, Any], ctx: Context) -> Outcome:
    sides, problem = _pair(session, args)
    if problem is not None:
        return _fail(session, problem)
    limit = args.get("limits", {}).get("max_comparison_items", 20_000)
    result = cmp.compare_versions(sides[0].normalized_result, sides[1].normalized_result, limit)
    result.update(left_evidence_id=sides[0].evidence_id, right_evidence_id=sides[1].evidence_id)
    return _derived(
        session,
        "compare_application_versions",
        args,
        result,
        sides,
        ("Static equality does not establish unchanged runtime behaviour.",),
    )


def compare_source_to_bundle(session: Session, args: Mapping[str, Any], ctx: Context) -> Outcome:
    app, problem = _application(session, args, "application")
    if problem is not None:
        return _fail(session, problem)
    assert app is not None
    reference = None
    if args.get("reference") is not None:
        found = resolve(session, args["reference"], "reference")
        if not is_successful(found):
            return _fail(session, found.failure())
        checked = check_application(found.unwrap(), "reference")
        if not is_successful(checked):
            return _fail(session, checked.failure())
        reference = found.unwrap()
    result = cmp.source_to_bundle(app.normalized_result, None if reference is None else reference.normalized_result)
    result["application_evidence_id"] = app.evidence_id
    sources = [app] + ([reference] if reference is not None else [])
    return _derived(
        session,
        "compare_source_to_bundle",
        args,
        result,
        sources,
        ("Path mappings are static inferences; they do not prove what the bundle loads at runtime.",),
    )


def compare_javascript_export_shapes(session: Session, args: Mapping[str, Any], ctx: Context) -> Outcome:
    sides, problem = _pair(session, args)
    if problem is not None:
        return _fail(session, problem)
    left, lc = cmp.find_export(sides[0].normalized_result, args["left_module_path"], args["left_export_name"])
    right, rc = cmp.find_export(sides[1].normalized_result, args["right_module_path"], args["right_export_name"])
    result = cmp.export_shapes(left, right)
    result.update(
        left_evidence_id=sides[0].evidence_id,
        right_evidence_id=sides[1].evidence_id,
        selectors={
            "left": [args["left_module_path"], args["left_export_name"]],
            "right": [args["right_module_path"], args["right_export_name"]],
        },
    )
    if left is None:
        result["left_candidates"] = lc
    if right is None:
        result["right_candidates"] = rc
    return _derived(
        session,
        "compare_javascript_export_shapes",
        args,
        result,
        sides,
        ("Shapes come from literal objects, classes and direct object returns; nothing is executed.",),
    )


PROGRAMS = {
    "analyze_javascript_application": analyze_javascript_application,
    "trace_application_feature": trace_application_feature,
    "trace_javascript_semantics": trace_javascript_semantics,
    "compare_application_versions": compare_application_versions,
    "compare_source_to_bundle": compare_source_to_bundle,
    "compare_javascript_export_shapes": compare_javascript_export_shapes,
}
