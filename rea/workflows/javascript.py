"""Programs of the JavaScript / Electron family.

analyze_javascript_application scans, reads and parses in phases (effects), then
builds the graph purely. The workflows read application Evidence (inline or a
retained reference) and never rerun the producer.
"""

from __future__ import annotations

import re
from typing import Any
from collections.abc import Generator, Mapping

import attrs
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request, missing_evidence
from rea.evidence import (
    Evidence,
    Provider,
    Subject,
    create_evidence,
    create_profile,
    draft_evidence,
    identify,
    validate,
)
from rea.javascript import compare as cmp
from rea.javascript import trace as tr
from rea.javascript.semantics import CursorError, applied_limits, semantic_query
from rea.javascript.effects import ExtractFiles, ScanApplication
from rea.javascript.graph import build_graph, select_text_files, tree_digest
from rea.canonical_json import without_floats
from rea.collector import collector_paused
from rea.javascript.semantic_graph import build_semantic_graph
from rea.javascript.record import (
    SEMANTIC_OPERATION,
    application_result,
    contradiction,
    graph_id,
    inventory_identity,
    observation_context,
    retained_semantic,
    semantic_reference,
)
from rea.javascript.views import OPERATION, check_application, view_evidence
from rea.program import Context, Effect, Outcome, ProgramCancelled, ReportProgress, failed
from rea.session import RETAINED_KIND, Session, record, resolve, resolve_analysis, summary_parent, summary_parent_of
from rea.views.programs import deliver

Steps = Generator[Effect, Any, Outcome]
BATCH_FILES = 64
BATCH_BYTES = 4 * 1024 * 1024
WORKFLOW_PROVIDER = Provider(id="rea-javascript-workflows", name="REA application graph workflows", version="1")
STATIC_NOTICE = (
    "Static analysis of shipped files: nothing was executed; dynamic behaviour (computed requires, "
    "channels, URLs) is listed under unknowns, never taken as absence."
)


@attrs.frozen(kw_only=True)
class _Reading:
    """What one analysis fixed before parsing: its arguments, the scan and the limits; then what it read."""

    args: Mapping[str, Any]
    scan: Mapping[str, Any]
    limits: Mapping[str, int]
    fmt: str
    policy: str
    facts: list[dict[str, Any]]
    omissions: list[dict[str, Any]]  # files not read, with their reasons

    def graph(self) -> dict[str, Any]:
        built = build_graph(self.scan, self.facts, self.limits, self.omissions)
        if self.scan["kind"] == "asar":
            built["application"]["unpacked_directory"] = self.scan.get("unpacked_directory", False)
        return built


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
    limits = dict(args["limits"])
    fmt = args["format"]
    policy = "fail" if args["integrity_policy"] == "fail-closed" else args["integrity_policy"]
    yield ReportProgress(phase="scanning", message=f"listing {args['input_path']}")
    scanned = yield ScanApplication(
        path=args["input_path"], format=fmt, max_entries=limits["max_entries"], max_depth=limits["max_depth"]
    )
    if not is_successful(scanned):
        return failed(session, scanned.failure())
    scan = scanned.unwrap()
    if scan.get("integrity_contradictions") and policy == "fail":
        return failed(session, _integrity_failure(args["input_path"], scan["integrity_contradictions"][0]))
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
                return failed(session, extracted.failure())
            contradicted = [
                f["integrity_contradiction"] for f in extracted.unwrap() if f.get("integrity_contradiction")
            ]
            if contradicted and policy == "fail":
                return failed(session, _integrity_failure(args["input_path"], contradicted[0]))
            facts.extend(extracted.unwrap())
            done += len(batch)
    except ProgramCancelled as stop:
        if not facts:
            raise
        unread = [{"path": f["path"], "reason": "cancelled", "size": f["size"]} for f in chosen[done:]]
        during = str(stop) or "parsing"
        reading = _Reading(
            args=args, scan=scan, limits=limits, fmt=fmt, policy=policy, facts=facts, omissions=read_omissions + unread
        )
        partial = _partial(reading, None, during)
        if not is_successful(partial):
            raise
        return _cancelled(session, partial.unwrap(), during, done, len(chosen))
    reading = _Reading(
        args=args, scan=scan, limits=limits, fmt=fmt, policy=policy, facts=facts, omissions=read_omissions
    )
    return (yield from _finish(session, reading, len(chosen)))


def _finish(session: Session, reading: _Reading, total: int) -> Steps:
    """Graph building, sealing, canonical hashing, validation and publication, with a checkpoint between
    each: a cancel in any of them returns cancelled (never a success) and retains the facts read as partial
    Evidence, reusing the graph when it was already built."""
    built: dict[str, Any] | None = None
    phase = "linking"
    try:
        yield ReportProgress(
            phase=phase, message=f"{len(reading.facts)} files parsed; resolving modules, roles and IPC"
        )
        built = reading.graph()
        phase = "semantic"
        yield ReportProgress(
            phase=phase,
            message=f"{len(built['nodes'])} nodes, {len(built['edges'])} edges; building the semantic graph",
        )
        semantic = _semantic(reading, built)
        phase = "sealing"
        yield ReportProgress(
            phase=phase,
            message=f"{len(semantic['nodes'])} semantic nodes, {len(semantic['relations'])} relations; sealing",
        )
        # hashing the graph allocates per batch, never a cycle; its nodes, relations and fingerprints hold no
        # float (every number in them is a source range's, an index or a count)
        with collector_paused(), without_floats(semantic["nodes"], semantic["relations"], semantic["fingerprints"]):
            sealed = _semantic_evidence(reading, semantic)
        if not is_successful(sealed):
            return failed(session, sealed.failure())
        graph_evidence = sealed.unwrap()
        draft = _draft(reading, built, None, retained_semantic(semantic, graph_evidence.evidence_id))
        phase = "hashing"
        yield ReportProgress(phase=phase, message="canonical hashing of the application record")
        identified = identify(draft)
        if not is_successful(identified):
            return failed(session, identified.failure())
        phase = "validating"
        yield ReportProgress(phase=phase, message=f"validating {identified.unwrap().evidence_id}")
        validated = validate(identified.unwrap())
        if not is_successful(validated):
            return failed(session, validated.failure())
        evidence = validated.unwrap()
        reply, retained = evidence, (graph_evidence, evidence)
        if reading.args["detail"] == "summary":
            view = view_evidence(evidence, {"view": "summary"})
            if not is_successful(view):
                return failed(session, view.failure())
            reply, retained = view.unwrap(), (graph_evidence, evidence, view.unwrap())
        phase = "publishing"
        yield ReportProgress(phase=phase, message=f"retaining {evidence.evidence_id}")
    except ProgramCancelled as stop:
        during = str(stop) or phase
        partial = _partial(reading, built, during)
        if not is_successful(partial):
            raise
        return _cancelled(session, partial.unwrap(), during, len(reading.facts), total)
    return Outcome(session=record(session, retained), reply=Success(reply.to_json()))


def _cancelled(session: Session, evidence: Evidence, phase: str, done: int, total: int) -> Outcome:
    """cancelled, naming the partial Evidence of the files read (retained in the session)."""
    return Outcome(
        session=record(session, (evidence,)),
        reply=Failure(
            ReaError(
                code="cancelled",
                message=(
                    f"Cancelled during {phase} after {done} of {total} files were parsed; the graph of the files "
                    f"read is retained as partial Evidence {evidence.evidence_id}."
                ),
                details={
                    "phase": phase,
                    "files_done": done,
                    "files_total": total,
                    "partial_observation": {"kind": "retained-evidence", "evidence_id": evidence.evidence_id},
                },
                action="Read the partial Evidence (its coverage is partial), or start the analysis again.",
            )
        ),
    )


UNPACKED_CAUSE = (
    "Packaging tools commonly sign or strip .asar.unpacked native binaries after writing the archive "
    "header, so the declared hash no longer matches; Electron does not check unpacked companions."
)


def _integrity_failure(archive: str, found: Mapping[str, Any]) -> ReaError:
    """artifact_integrity_mismatch with the reference's details: {logical_path, declared_sha256,
    calculated_sha256, unpacked}."""
    c = contradiction(found)
    return ReaError(
        code="artifact_integrity_mismatch",
        message=(
            f"{c['logical_path']} in {archive} does not match the SHA-256 its ASAR header declares "
            f"({c['declared_sha256']}; read {c['calculated_sha256']}). Nothing was "
            "recorded." + (f" {UNPACKED_CAUSE}" if c["unpacked"] else "")
        ),
        details={k: c[k] for k in ("logical_path", "declared_sha256", "calculated_sha256", "unpacked")},
        action=(
            'Rerun analyze_javascript_application with integrity_policy "record-and-continue" to record the '
            "mismatch and continue with the verified files."
        ),
    )


def _partial(reading: _Reading, built: dict[str, Any] | None, cancelled_during: str) -> Result[Evidence, ReaError]:
    """The record in one synchronous pass (a cancelled program may not yield again), reusing a built graph."""
    draft = _draft(reading, built if built is not None else reading.graph(), cancelled_during)
    return identify(draft).bind(validate)


def _semantic(reading: _Reading, built: Mapping[str, Any]) -> dict[str, Any]:
    """The semantic companion graph of the files read, keyed to the application graph's id."""
    by_path = {f["path"]: f for f in reading.facts}
    digest = tree_digest(reading.scan["files"], by_path)
    gid = graph_id(digest, built["limits"], reading.scan.get("parser", {}))
    ctx = observation_context(built["nodes"], digest, reading.scan.get("parser", {}))
    return build_semantic_graph(reading.facts, built["edges"], gid, digest, reading.limits, ctx)


def _semantic_evidence(reading: _Reading, graph: Mapping[str, Any]) -> Result[Evidence, ReaError]:
    """The semantic companion graph as its own Evidence, retained beside the application record that names it."""
    root = reading.scan["root"]
    parser = reading.scan.get("parser", {})
    provider = Provider(id="javascript", name="tree-sitter JavaScript/TypeScript", version=parser.get("tree_sitter"))
    return create_evidence(
        provider=provider,
        operation=SEMANTIC_OPERATION,
        parameters={"application_graph_id": graph["application_graph_id"]},
        normalized_result=dict(graph),
        subject=Subject(
            name=root.rstrip("/").rsplit("/", 1)[-1] or root,
            sha256=graph["root_artifact_sha256"],
            format="asar" if reading.scan["kind"] == "asar" else "directory",
            architecture=None,
            local_path=root,
        ),
        confidence="derived",
        limitations=tuple(graph["limitations"]),
    )


def with_semantic_graph(
    session: Session, app: Evidence, given: Any = None
) -> tuple[Mapping[str, Any], Evidence | None, ReaError | None]:
    """The application result with its semantic graph in place, and the Evidence that holds it: `given`
    (inline or a retained reference) or, without it, the one this connection retained. A record whose graph
    is inline (unavailable) is returned as it is."""
    result = app.normalized_result
    ref = semantic_reference(result)
    if ref is None:
        return result, None, None
    if given is not None:
        found = resolve(session, given, "semantic_graph")
        if not is_successful(found):
            return result, None, found.failure()
        graph: Evidence | None = found.unwrap()
    else:
        graph = session.evidence.get(ref)
    if graph is None:
        missing = missing_evidence(ref).with_details(field="semantic_graph", application=app.evidence_id)
        return (
            result,
            None,
            attrs.evolve(
                missing,
                message=f"The semantic graph of {app.evidence_id} is retained as its own Evidence {ref}, which this "
                "connection does not hold.",
                action="Pass that Evidence as semantic_graph (inline), or analyse the application on this connection.",
            ),
        )
    if graph.evidence_id != ref or graph.operation != SEMANTIC_OPERATION:
        wrong = invalid_request(
            f"semantic_graph is {graph.evidence_id} ({graph.operation}); the application record names {ref}.",
            field="semantic_graph",
            accepted=f"the {SEMANTIC_OPERATION} Evidence {ref}",
            reason="wrong_evidence_kind",
        )
        return result, None, wrong
    return {**result, "semantic_graph": graph.normalized_result}, graph, None


def _draft(
    reading: _Reading, built: Mapping[str, Any], cancelled_during: str | None, semantic: dict[str, Any] | None = None
) -> Evidence:
    args, scan, facts, limits = reading.args, reading.scan, reading.facts, reading.limits
    if cancelled_during is not None:
        built = {**built, "coverage": {**built["coverage"], "status": "partial", "cancelled_during": cancelled_during}}
    if semantic is not None:
        built = {**built, "coverage": with_semantic_coverage(built["coverage"], semantic["coverage"])}
    parser = scan.get("parser", {})
    provider = Provider(id="javascript", name="tree-sitter JavaScript/TypeScript", version=parser.get("tree_sitter"))
    root = scan["root"]
    by_path = {f["path"]: f for f in facts}
    digest = tree_digest(scan["files"], by_path)
    limitations = _limitations(built["coverage"], bool(built["integrity_contradictions"]), cancelled_during)
    result = application_result(
        dict(built),
        input_path=args["input_path"],
        root_sha256=digest,
        inventory=inventory_identity(scan["files"], by_path, scan["kind"]),
        parsers=parser,
        policy=reading.policy,
        limitations=limitations,
        semantic=semantic,
    )
    return draft_evidence(
        provider=provider,
        operation=OPERATION,
        parameters={k: v for k, v in args.items() if k != "detail"},  # delivery detail never changes identity
        normalized_result=result,
        subject=Subject(
            name=root.rstrip("/").rsplit("/", 1)[-1] or root,
            sha256=digest,
            format="asar" if scan["kind"] == "asar" else "directory",
            architecture=None,
            local_path=root,
        ),
        analysis_profile=create_profile(provider, 1, {"limits": limits, "format": reading.fmt, "parsers": parser}),
        confidence="derived",
        limitations=limitations,
        locations=({"kind": "artifact-path", "path": root},),
    )


SEMANTIC_LIMITS = {
    "truncated_modules": "max_semantic_file_bytes",
    "omitted_nodes": "max_semantic_nodes",
    "omitted_relations": "max_semantic_relations",
}


def with_semantic_coverage(coverage: Mapping[str, Any], semantic: Mapping[str, Any]) -> dict[str, Any]:
    """The analysis' coverage with its semantic pass folded in: a module the semantic pass read only in part (a
    large bundle) or a semantic budget reached makes the analysis partial and is named in limits_reached, so
    `complete` is never claimed over a pass that was cut."""
    reached = {name for key, name in SEMANTIC_LIMITS.items() if semantic.get(key)}
    if semantic.get("truncated") and not reached:
        reached.add("max_semantic_unknowns")
    if not reached:
        return dict(coverage)
    return {**coverage, "status": "partial", "limits_reached": sorted({*coverage["limits_reached"], *reached})}


def _limitations(coverage: Mapping[str, Any], contradicted: bool, cancelled_during: str | None) -> tuple[str, ...]:
    out = [STATIC_NOTICE]
    semantic = [n for n in coverage["limits_reached"] if n.startswith("max_semantic_")]
    settable = [n for n in coverage["limits_reached"] if n not in semantic]
    if settable:
        out.append(f"Coverage is partial: {', '.join(settable)} reached; raise the named limit for a complete record.")
    if semantic:
        out.append(
            f"Coverage is partial: the semantic pass reached {', '.join(semantic)} (fixed bounds: a module past "
            "the semantic byte bound is read in part; semantic_graph.coverage names the modules)."
        )
    if contradicted:
        out.append(
            "Integrity mismatches were recorded and their files quarantined (integrity_contradictions); coverage "
            "is partial."
        )
    if cancelled_during:
        out.append(
            f"Partial: the analysis was cancelled during {cancelled_during}; files not read are omitted with "
            "reason cancelled."
        )
    return tuple(out)


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
    found = resolve_analysis(session, ref, field)  # a summary's own id reads the analysis it summarizes
    if not is_successful(found):
        return None, found.failure()
    evidence = found.unwrap()
    checked = check_application(evidence, field)
    if not is_successful(checked):
        return None, checked.failure()
    return evidence, None


def _by_reference(session: Session, value: Any) -> Any:
    """Inline Evidence in the parameters becomes its reference (the record itself is linked, not copied), and a
    summary view the reference of the analysis it stands for, so either spelling records the same call."""
    if isinstance(value, str):  # the {field}_evidence_id spelling
        retained = session.evidence.get(value)
        return (summary_parent(retained) if retained is not None else None) or value
    if not isinstance(value, Mapping):
        return value
    if "normalized_result" in value:  # inline, already parsed strictly when it was resolved
        parent = summary_parent_of(value.get("operation"), value["normalized_result"])
        return {"kind": RETAINED_KIND, "evidence_id": parent or value.get("evidence_id")}
    retained = session.evidence.get(value["evidence_id"]) if value.get("kind") == RETAINED_KIND else None
    parent = summary_parent(retained) if retained is not None else None
    return {"kind": RETAINED_KIND, "evidence_id": parent} if parent else value


def _derived(
    session: Session,
    operation: str,
    args: Mapping[str, Any],
    result: Any,
    sources: list[Evidence],
    limitations: tuple[str, ...] = (),
) -> Outcome:
    parameters = {
        k: [_by_reference(session, x) for x in v] if isinstance(v, list) else _by_reference(session, v)
        for k, v in args.items()
        if k != "detail"  # delivery detail never changes the derived record's identity
    }
    created = create_evidence(
        provider=WORKFLOW_PROVIDER,
        operation=operation,
        parameters=parameters,
        normalized_result=result,
        subject=sources[0].subject if all(s.subject == sources[0].subject for s in sources) else None,
        confidence="derived",
        authority="analyst-inference",
        limitations=(STATIC_NOTICE, *limitations),
        evidence_links=tuple(dict.fromkeys(s.evidence_id for s in sources)),
    )
    if not is_successful(created):
        return failed(session, created.failure())
    evidence = created.unwrap()
    if args.get("detail") == "summary":
        return deliver(record(session, sources), evidence, "summary")
    return Outcome(session=record(session, sources + [evidence]), reply=Success(evidence.to_json()))


def _observations(session: Session, items: Any, field: str) -> tuple[list[Evidence], ReaError | None]:
    """Native observation Evidence (inline or retained), checked like any other Evidence input."""
    out = []
    for index, item in enumerate(items):
        found = resolve(session, item, f"{field}[{index}]")
        if not is_successful(found):
            return [], found.failure()
        out.append(found.unwrap())
    if len({e.evidence_id for e in out}) != len(out):
        return [], invalid_request(f"{field} must be unique.", field=field, accepted="distinct Evidence records")
    return out, None


def _native(args: Mapping[str, Any], side: str) -> list[Any]:
    """Native observations given inline and by retained id (the reference's two spellings)."""
    ids = args[f"{side}native_observation_evidence_ids"]
    return [*args[f"{side}native_observations"], *({"kind": "retained-evidence", "evidence_id": i} for i in ids)]


def trace_application_feature(session: Session, args: Mapping[str, Any], ctx: Context) -> Outcome:
    app, problem = _application(session, args, "application")
    if problem is not None:
        return failed(session, problem)
    assert app is not None
    seed = args["seed"]
    if seed["value"] == "" and (seed["match"] != "exact" or seed["kind"] == "node-id"):
        return failed(
            session,
            invalid_request(
                "An empty seed value must be an exact literal seed: empty containment would match every node.",
                field="seed.value",
                accepted='a non-empty value, or "" with match "exact" and a literal kind',
            ),
        )
    observations, problem = _observations(session, _native(args, ""), "native_observations")
    if problem is not None:
        return failed(session, problem)
    application, graph_evidence, problem = with_semantic_graph(session, app, args.get("semantic_graph"))
    if problem is not None and (args.get("semantic_graph") is not None or seed["kind"] != "string"):
        return failed(session, problem)
    if problem is not None:  # a string seed without its code index: answered from the graph, and says so
        application = {**application, "semantic_graph": None}
    result = tr.trace_feature(application, app.evidence_id, args, [o.to_json() for o in observations])
    limitations = [STATIC_NOTICE]
    if seed["kind"] == "native-export":
        limitations.append("Native add-on exports are not modelled as nodes: a native-export seed matches nothing.")
    if observations and not any(h["evidence_ids"] for h in result["native_handoffs"]):
        limitations.append("No native observation names an add-on the trace reaches (matched by file name).")
    result["limitations"] = limitations
    graphs = [graph_evidence] if graph_evidence is not None and seed["kind"] == "string" else []
    return _derived(session, "trace_application_feature", args, result, [app, *graphs, *observations])


def trace_javascript_semantics(session: Session, args: Mapping[str, Any], ctx: Context) -> Outcome:
    app, problem = _application(session, args, "application")
    if problem is not None:
        return failed(session, problem)
    assert app is not None
    query = args["query"]
    limits = {**args["limits"], **{k: v for k, v in (query.get("limits") or {}).items() if k in args["limits"]}}
    application, graph_evidence, problem = with_semantic_graph(session, app, args.get("semantic_graph"))
    if problem is not None:
        return failed(session, problem)
    try:
        result = semantic_query(
            application, app.evidence_id, query, limits, applied_limits(query.get("limits"), limits)
        )
    except CursorError as bad:
        return failed(
            session,
            invalid_request(
                f"{bad}.", field="query.cursor", accepted="the page.next_cursor of an earlier answer to this query"
            ),
        )
    graphs = [graph_evidence] if graph_evidence is not None else []
    return _derived(session, "trace_javascript_semantics", args, result, [app, *graphs])


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
        return failed(session, problem)
    native = []
    for side in ("left", "right"):
        found, problem = _observations(session, _native(args, f"{side}_"), f"{side}_native_observations")
        if problem is not None:
            return failed(session, problem)
        native += found
    left, right = (s.normalized_result for s in sides)
    links = [sides[0].evidence_id, sides[1].evidence_id]
    result = cmp.compare_versions(left, right, args["limits"]["max_comparison_items"], links)
    result.update(left=cmp.graph_side(links[0], left), right=cmp.graph_side(links[1], right))
    graph = cmp.change_graph(left, right, result["items"], args["limits"])
    omitted = graph.pop("_omitted")
    result["graph"] = graph
    result["coverage"].update(omitted_graph_nodes=omitted[0], omitted_graph_edges=omitted[1])
    if any(omitted):
        result["coverage"]["status"] = "truncated"
    limitations = ["Static equality does not establish unchanged runtime behaviour."]
    if native:
        limitations.append("Native observations are linked as Evidence; native code is not compared here.")
        result["evidence_links"] = list(dict.fromkeys([*links, *(n.evidence_id for n in native)]))
    result["limitations"] = [STATIC_NOTICE, *limitations]
    return _derived(session, "compare_application_versions", args, result, [*sides, *native], tuple(limitations))


HISTORICAL_STATES = ("complete", "partial", "unknown")


def _historical(reference: Mapping[str, Any]) -> ReaError | None:
    """The HistoricalSourceGraph fields this comparison reads, checked (the rest are kept as given)."""
    entries = reference.get("entries")
    ok = (
        reference.get("authority") == "historical-reference"
        and str(reference.get("schema", "HistoricalSourceGraph/v1")).startswith("HistoricalSourceGraph")
        and reference.get("inventory_state") in HISTORICAL_STATES
        and isinstance(reference.get("root_sha256"), str)
        and re.fullmatch("[a-f0-9]{64}", reference["root_sha256"]) is not None
        and isinstance(entries, list)
        and all(isinstance(e, Mapping) and isinstance(e.get("path"), str) and e.get("kind") for e in entries)
    )
    if ok:
        return None
    return invalid_request(
        "reference is not a HistoricalSourceGraph: it needs authority historical-reference, inventory_state, "
        "root_sha256 and entries [{kind, path, sha256?, language?}].",
        field="reference",
        accepted="a HistoricalSourceGraph object, or application Evidence (inline or retained)",
    )


def compare_source_to_bundle(session: Session, args: Mapping[str, Any], ctx: Context) -> Outcome:
    app, problem = _application(session, args, "application")
    if problem is not None:
        return failed(session, problem)
    assert app is not None
    application = app.normalized_result
    given, sources = args.get("reference"), [app]
    if given is None:
        entries = cmp.own_sources(application)
        state = "complete" if cmp.graph_status(application) == "complete" else "partial"
        side = {
            "inventory_state": state,
            "root_sha256": application["root_artifact_sha256"],
            "kind": "source-map-sources",
        }
    elif given.get("authority") == "historical-reference" and "evidence_id" not in given:
        problem = _historical(given)
        if problem is not None:
            return failed(session, problem)
        entries = cmp.historical_sources(given)
        side = {
            "inventory_state": given["inventory_state"],
            "root_sha256": given["root_sha256"],
            "kind": "historical-source-graph",
        }
    else:
        found = resolve_analysis(session, given, "reference")
        if not is_successful(found):
            return failed(session, found.failure())
        checked = check_application(found.unwrap(), "reference")
        if not is_successful(checked):
            return failed(session, checked.failure())
        tree = found.unwrap().normalized_result
        entries = cmp.tree_sources(tree)
        state = "complete" if cmp.graph_status(tree) == "complete" else "partial"
        side = {
            "inventory_state": state,
            "root_sha256": tree["root_artifact_sha256"],
            "kind": "application-evidence",
            "evidence_id": found.unwrap().evidence_id,
        }
        sources.append(found.unwrap())
    links = list(dict.fromkeys(s.evidence_id for s in sources))
    result = cmp.source_to_bundle(application, entries, side, links, args["limits"])
    result["application"] = cmp.graph_side(app.evidence_id, application)
    limitation = "Path mappings are static inferences; they do not prove what the bundle loads at runtime."
    result["limitations"] = [STATIC_NOTICE, limitation]
    return _derived(session, "compare_source_to_bundle", args, result, sources, (limitation,))


def compare_javascript_export_shapes(session: Session, args: Mapping[str, Any], ctx: Context) -> Outcome:
    sides, problem = _pair(session, args)
    if problem is not None:
        return failed(session, problem)
    links = [s.evidence_id for s in sides]
    found, out = [], []
    for evidence, side in zip(sides, ("left", "right")):
        module, name = args[f"{side}_module_path"], args[f"{side}_export_name"]
        hit = cmp.find_export(evidence.normalized_result, module, name)
        found.append(hit)
        cap = args["limits"]["max_candidate_exports"]
        out.append(cmp.export_side(hit, evidence.evidence_id, evidence.normalized_result, module, name, cap))
    statuses = [cmp.graph_status(s.normalized_result) for s in sides]
    result = cmp.export_shapes(out, found, statuses, links, args["limits"]["max_changes"])
    limitation = "Shapes come from literal objects, classes and direct object returns; nothing is executed."
    result["limitations"] = [STATIC_NOTICE, limitation]
    return _derived(session, "compare_javascript_export_shapes", args, result, sides, (limitation,))


PROGRAMS = {
    "analyze_javascript_application": analyze_javascript_application,
    "trace_application_feature": trace_application_feature,
    "trace_javascript_semantics": trace_javascript_semantics,
    "compare_application_versions": compare_application_versions,
    "compare_source_to_bundle": compare_source_to_bundle,
    "compare_javascript_export_shapes": compare_javascript_export_shapes,
}
