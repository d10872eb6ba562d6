"""Programs of the reconstruction family: resolve the cited Evidence in the session, derive, record.

No effect is asked: every input is Evidence the session retains (or complete inline Evidence),
so each program is a pure derivation between two checkpoints (rea.workflows.derived). The
derived record cites every comparison it read, is `derived` by `analyst-inference`, and has
no subject: it judges Evidence, not a file.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from typing import Any

from returns.result import Result

from rea.bundle import ParsedBundle, verify_bundle
from rea.canonical_json import canonical_sha256
from rea.effect_types import ToolProgram
from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence, Provider, create_evidence
from rea.program import Context, Outcome, ReportProgress, must, need, recorded, refusable, refuse, typed
from rea.reconstruction import comparisons as cmp
from rea.reconstruction import workspace
from rea.reconstruction.changed import find_changed
from rea.reconstruction.correlate import correlate
from rea.reconstruction.coverage import evaluate
from rea.reconstruction.effects import ClockFacts, ReadClock
from rea.reconstruction.ledger import build
from rea.reconstruction.records.claims import ChangedArgs, CorrelateArgs, CoverageRef, VerifyArgs
from rea.reconstruction.records.coverage import CoverageArgs, CoverageData
from rea.reconstruction.records.ledger import LedgerArgs, LedgerRequest
from rea.reconstruction.verify import verify
from rea.session import RETAINED_KIND, Session, record, resolve
from rea.wire.convert import structure, to_wire

PROVIDER = Provider(id="rea-reconstruction", name="REA reconstruction verification", version="1")


def _derived(
    operation: str, parameters: Mapping[str, Any], result: Any, links: Sequence[str]
) -> Result[Evidence, ReaError]:
    """The derived record of a result (its record, turned into JSON here, or JSON already)."""
    normalized = to_wire(result)
    return create_evidence(
        provider=PROVIDER,
        operation=operation,
        parameters=parameters,
        normalized_result=normalized,
        subject=None,
        confidence="derived",
        authority="analyst-inference",
        limitations=list(normalized["limitations"]),
        evidence_links=sorted(set(links)),
    )


def _referenced(args: Any, **sides: Sequence[Evidence]) -> dict[str, Any]:
    """The arguments as JSON with each comparison as the retained reference it now is (the records are
    retained with the result), so the record does not carry every inline comparison a second time."""
    wire: dict[str, Any] = to_wire(args)
    for name, records in sides.items():
        wire[name] = [{"kind": RETAINED_KIND, "evidence_id": e.evidence_id} for e in records]
    return wire


def _digested(bundle: Any, parsed: ParsedBundle) -> dict[str, Any]:
    """A supplied bundle as its canonical digest and counts: the parameters name it without repeating it."""
    return {"bundle_sha256": canonical_sha256(bundle), "records": len(parsed.records), "unknowns": len(parsed.unknowns)}


def _comparisons(session: Session, values: Sequence[Any], field: str) -> tuple[list[Evidence], list[cmp.Comparison]]:
    """Each value resolved (retained reference or inline record) and read as a comparison."""
    records = [must(resolve(session, v, f"{field}[{i}]")) for i, v in enumerate(values)]
    return records, [_read(e, f"{field}[{i}]") for i, e in enumerate(records)]


def _read(evidence: Evidence, where: str) -> cmp.Comparison:
    def named(error: ReaError) -> ReaError:
        return error.with_details(field=where)

    return must(cmp.read(evidence).alt(named))


def _steps(name: str) -> Generator[ReportProgress, Any, None]:
    yield ReportProgress(phase="computing", message=name)


def _coverage_ready(session: Session, ref: CoverageRef) -> Generator[Any, Any, tuple[list[str], list[str]]]:
    """The 3.1 coverage reference resolved from this session's Evidence and its boundary evaluated now: ready, or
    the verification is refused (as the reference refuses it). Answers (limitations, Evidence ids) to record."""
    found = workspace.evaluation_of(session.evidence, ref)
    if found is None:
        refuse(workspace.unresolved(ref))
    clock: ClockFacts = yield from need(ReadClock())
    must(workspace.readiness(found, ref, clock.epoch_ms))
    note = (f"Coverage boundary {ref.boundary_id} of workspace {ref.workspace_id} revision {ref.revision} was ready "
            f"when evaluated at {clock.epoch_ms} ms from Evidence {found.evidence_id}; ready covers that boundary's "
            "declared surfaces and claims only.")  # fmt: skip
    return [note], [found.evidence_id]


@typed
@refusable
def verify_reconstruction(session: Session, args: VerifyArgs, ctx: Context) -> Generator[Any, Any, Outcome]:
    yield from _steps("verify_reconstruction")
    extra, gate = (yield from _coverage_ready(session, args.coverage)) if args.coverage is not None else ([], [])
    result = must(
        verify(args.specification, session.evidence, session.unknown_revisions, args.offset, args.limit, extra)
    )
    yield ReportProgress(phase="publishing", message="verify_reconstruction: retaining the result")
    cited = [link for link in result["evidence_links"] if link in session.evidence] + gate
    return recorded(session, _derived("verify_reconstruction", to_wire(args), result, cited))


@typed
@refusable
def find_changed_behavior(session: Session, args: ChangedArgs, ctx: Context) -> Generator[Any, Any, Outcome]:
    yield from _steps("find_changed_behavior")
    if args.investigation_run is not None:
        refuse(
            ReaError(
                code="capability_unavailable",
                message="investigation_run needs a cross-version investigation workspace, which this server does not keep.",
                details={"field": "investigation_run", "reason": "investigation_workspaces_unavailable"},
                action="Compare the two versions with compare_artifacts or compare_functions and pass those comparisons.",
            )
        )
    if not args.comparisons:
        refuse(invalid_request("find_changed_behavior needs comparisons", field="comparisons",
                               accepted="1 to 100 compare_process_captures, compare_functions or compare_artifacts "
                                        "Evidence records (retained references or inline)"))  # fmt: skip
    records, found = _comparisons(session, args.comparisons, "comparisons")
    result = must(find_changed(found, args.offset, args.limit))
    yield ReportProgress(phase="publishing", message="find_changed_behavior: retaining the result")
    return recorded(
        record(session, records),
        _derived(
            "find_changed_behavior", _referenced(args, comparisons=records), result, [e.evidence_id for e in records]
        ),
    )


@typed
@refusable
def correlate_static_and_runtime(session: Session, args: CorrelateArgs, ctx: Context) -> Generator[Any, Any, Outcome]:
    yield from _steps("correlate_static_and_runtime")
    static_records, statics = _comparisons(session, args.static_comparisons, "static_comparisons")
    runtime_records, runtimes = _comparisons(session, args.runtime_comparisons, "runtime_comparisons")
    result = must(correlate(statics, runtimes, args.mappings, args.offset, args.limit))
    yield ReportProgress(phase="publishing", message="correlate_static_and_runtime: retaining the result")
    records = [*static_records, *runtime_records]
    parameters = _referenced(args, static_comparisons=static_records, runtime_comparisons=runtime_records)
    made = _derived("correlate_static_and_runtime", parameters, result, [e.evidence_id for e in records])
    return recorded(record(session, records), made)


def _bundle(value: Any, field: str) -> Generator[Any, Any, ParsedBundle]:
    """A supplied bundle, verified record by record (every id recomputed) as import_evidence_bundle does."""
    checked = yield from verify_bundle(value)
    return must(checked.alt(lambda err: err.with_details(field=field)))


@typed
@refusable
def build_reconstruction_obligation_ledger(
    session: Session, args: LedgerArgs, ctx: Context
) -> Generator[Any, Any, Outcome]:
    yield from _steps("build_reconstruction_obligation_ledger")
    request: LedgerRequest = must(structure(to_wire(args), LedgerRequest))
    bundle = yield from _bundle(args.evidence_bundle, "evidence_bundle")
    result = must(build(request, {e.evidence_id: e for e in bundle.records}))
    yield ReportProgress(phase="publishing", message="build_reconstruction_obligation_ledger: retaining the result")
    cited = [e for e in bundle.records if e.evidence_id in set(result["evidence_links"])]
    parameters = {**to_wire(args), "evidence_bundle": _digested(args.evidence_bundle, bundle)}
    made = _derived("build_reconstruction_obligation_ledger", parameters, result, [e.evidence_id for e in cited])
    return recorded(record(session, cited), made)


@typed
@refusable
def evaluate_reconstruction_coverage(
    session: Session, args: CoverageArgs, ctx: Context
) -> Generator[Any, Any, Outcome]:
    yield from _steps("evaluate_reconstruction_coverage")
    data: CoverageData = must(
        structure(args.coverage, CoverageData).alt(lambda err: err.with_details(field="coverage"))
    )
    revision = must(workspace.identify(args.coverage, data))
    bundle = yield from _bundle(data.evidence_bundle, "coverage.evidence_bundle")
    clock: ClockFacts = yield from need(ReadClock())
    ids, unknowns = {e.evidence_id for e in bundle.records}, {u["unknown_id"] for u in bundle.unknowns}
    named = revision.revision_sha256 if revision else None
    result = must(evaluate(data, args.boundary_id, ids, unknowns, clock.epoch_ms, named))
    yield ReportProgress(phase="publishing", message="evaluate_reconstruction_coverage: retaining the result")
    cited = [e for e in bundle.records if e.evidence_id in set(result.evidence_ids)]
    wire = to_wire(args)
    parameters = {**wire, "coverage": {**wire["coverage"], "evidence_bundle": _digested(data.evidence_bundle, bundle)}}
    made = _derived("evaluate_reconstruction_coverage", parameters, result, [e.evidence_id for e in cited])
    return recorded(record(session, cited), made)


PROGRAMS: Mapping[str, ToolProgram] = {
    "build_reconstruction_obligation_ledger": build_reconstruction_obligation_ledger,
    "evaluate_reconstruction_coverage": evaluate_reconstruction_coverage,
    "verify_reconstruction": verify_reconstruction,
    "find_changed_behavior": find_changed_behavior,
    "correlate_static_and_runtime": correlate_static_and_runtime,
}
