"""analyze_javascript_application's program: it scans, reads and parses in phases (effects), then builds
the application graph and its semantic companion purely, and records them as Evidence."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs
from returns.result import Failure, Result, Success

from rea.canonical_json import without_floats
from rea.collector import collector_paused
from rea.effect_types import Program, ToolProgram
from rea.errors import ReaError
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
from rea.javascript.effects import ExtractFiles, ScanApplication
from rea.javascript.graph import build_graph, select_text_files, tree_digest
from rea.javascript.programs.inputs import STATIC_NOTICE
from rea.javascript.record import (
    SEMANTIC_OPERATION,
    application_result,
    contradiction,
    graph_id,
    inventory_identity,
    observation_context,
    retained_semantic,
)
from rea.javascript.records.arguments import AnalyzeArgs
from rea.javascript.semantic_graph import build_semantic_graph
from rea.javascript.views import OPERATION, view_evidence
from rea.program import Context, Outcome, ProgramCancelled, ReportProgress, must, need, refusable, refuse, typed
from rea.session import Session, record
from rea.wire.convert import to_wire

Steps = Program
BATCH_FILES = 64
BATCH_BYTES = 4 * 1024 * 1024


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


@typed
@refusable
def analyze_javascript_application(session: Session, args: AnalyzeArgs, ctx: Context) -> Steps:
    wire = to_wire(args)
    limits = dict(wire["limits"])
    fmt = args.format
    policy = "fail" if args.integrity_policy == "fail-closed" else args.integrity_policy
    yield ReportProgress(phase="scanning", message=f"listing {args.input_path}")
    scan = yield from need(
        ScanApplication(
            path=args.input_path, format=fmt, max_entries=limits["max_entries"], max_depth=limits["max_depth"]
        )
    )
    if scan.get("integrity_contradictions") and policy == "fail":
        refuse(_integrity_failure(args.input_path, scan["integrity_contradictions"][0]))
    chosen, read_omissions = select_text_files(scan["files"], limits)
    total_bytes = sum(f["size"] for f in chosen)
    facts: list[dict[str, Any]] = []
    done = 0
    try:
        for batch in batches(chosen, parallel=total_bytes >= PARALLEL_MIN_BYTES):
            yield ReportProgress(phase="parsing", message=f"{done}/{len(chosen)} files parsed")
            extracted = yield from need(
                ExtractFiles(
                    root=scan["root"],
                    files=tuple(
                        (f["path"], f["kind"], f["locator"]) if "locator" in f else (f["path"], f["kind"])
                        for f in batch
                    ),
                    max_file_bytes=limits["max_text_file_bytes"],
                    max_ast_nodes=limits["max_ast_nodes"],
                    max_source_map_sources=limits["max_source_map_sources"],
                    max_original_source_bytes=limits["max_original_source_bytes"],
                    parallel=total_bytes >= PARALLEL_MIN_BYTES,
                    done=done,
                    total=len(chosen),
                )
            )
            contradicted = [f["integrity_contradiction"] for f in extracted if f.get("integrity_contradiction")]
            if contradicted and policy == "fail":
                refuse(_integrity_failure(args.input_path, contradicted[0]))
            facts.extend(extracted)
            done += len(batch)
    except ProgramCancelled as stop:
        if not facts:
            raise
        unread = [{"path": f["path"], "reason": "cancelled", "size": f["size"]} for f in chosen[done:]]
        during = str(stop) or "parsing"
        reading = _Reading(
            args=wire, scan=scan, limits=limits, fmt=fmt, policy=policy, facts=facts, omissions=read_omissions + unread
        )
        partial = _partial(reading, None, during)
        if partial is None:
            raise
        return _cancelled(session, partial, during, done, len(chosen))
    reading = _Reading(
        args=wire, scan=scan, limits=limits, fmt=fmt, policy=policy, facts=facts, omissions=read_omissions
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
        graph_evidence = must(sealed)
        draft = _draft(reading, built, None, retained_semantic(semantic, graph_evidence.evidence_id))
        phase = "hashing"
        yield ReportProgress(phase=phase, message="canonical hashing of the application record")
        identified = must(identify(draft))
        phase = "validating"
        yield ReportProgress(phase=phase, message=f"validating {identified.evidence_id}")
        evidence = must(validate(identified))
        retained: tuple[Evidence, ...]
        reply, retained = evidence, (graph_evidence, evidence)
        if reading.args["detail"] == "summary":
            view = must(view_evidence(evidence, {"view": "summary"}))
            reply, retained = view, (graph_evidence, evidence, view)
        phase = "publishing"
        yield ReportProgress(phase=phase, message=f"retaining {evidence.evidence_id}")
    except ProgramCancelled as stop:
        during = str(stop) or phase
        partial = _partial(reading, built, during)
        if partial is None:
            raise
        return _cancelled(session, partial, during, len(reading.facts), total)
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


def _partial(reading: _Reading, built: dict[str, Any] | None, cancelled_during: str) -> Evidence | None:
    """The record in one synchronous pass (a cancelled program may not yield again), reusing a built graph;
    None when it does not seal or validate (the cancellation then stands as it was)."""
    draft = _draft(reading, built if built is not None else reading.graph(), cancelled_during)
    sealed: Evidence | None = identify(draft).bind(validate).value_or(None)
    return sealed


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


PROGRAMS: Mapping[str, ToolProgram] = {
    "analyze_javascript_application": analyze_javascript_application,
}
