"""Programs of the JavaScript source-recovery and runtime tools (recover_javascript_sources, the Node
inspector, Electron over CDP, runtime reconciliation)."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any

from returns.result import Success

from rea import __version__
from rea.browser_failures import browser_failure
from rea.effect_types import Program, ToolProgram
from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence, Provider, Subject, create_evidence
from rea.javascript import electron_observation as el
from rea.javascript import reconcile_inputs as ri
from rea.javascript import runtime_observation as rt
from rea.javascript.devtools_answers import discovery_of, window_of
from rea.javascript.devtools_effects import DiscoverDevtools, ObserveTarget
from rea.javascript.reconcile import reconcile
from rea.javascript.records.electron import InspectElectronPageArgs, ListElectronTargetsArgs
from rea.javascript.records.reconciliation import ReconcileArgs, StaticLayer
from rea.javascript.records.recovery import RecoverArgs, RecoveredFile, RecoveryEngine
from rea.javascript.records.runtime import ListRuntimeTargetsArgs, ObserveRuntimeArgs
from rea.javascript.recovery import build
from rea.javascript.recovery_effects import PublishRecovery, ReadRecoveryInput
from rea.javascript.views import check_application
from rea.loopback import parse_endpoint
from rea.program import Context, Outcome, ReportProgress, must, need, refusable, refuse, typed
from rea.session import Session, record, resolve, resolve_analysis
from rea.wire.convert import to_wire

RECOVERY = Provider(id="rea-javascript-recovery", name="REA JavaScript source recovery", version=__version__)


@typed
@refusable
def recover_javascript_sources(session: Session, args: RecoverArgs, ctx: Context) -> Program:
    yield ReportProgress(phase="reading bundle", message=args.path)
    facts = yield from need(
        ReadRecoveryInput(path=args.path, source_root=args.source_root, output_directory=args.output_directory)
    )
    executable = facts["engine_file"]
    engine = RecoveryEngine(
        id=RECOVERY.id,
        version=__version__,
        executable=RecoveredFile(path=executable["path"], sha256=executable["sha256"], bytes=executable["bytes"]),
        audited_source_revision=f"rea {__version__}",
        executed_source_revision=f"rea {__version__}",
    )
    result, files = build(facts, args, facts["output_directory"], engine)
    yield ReportProgress(phase="publishing", message=f"{len(files)} files to {facts['output_directory']}")
    yield from need(PublishRecovery(output_directory=facts["output_directory"], files=tuple(files)))
    bundle = facts["bundle"]
    evidence = must(
        create_evidence(
            provider=RECOVERY,
            operation="recover_javascript_sources",
            parameters=to_wire(args),
            normalized_result=to_wire(result),
            subject=Subject(
                name=posixpath.basename(bundle["path"]),
                sha256=bundle["sha256"],
                format="javascript",
                architecture=None,
                local_path=bundle["path"],
            ),
            confidence="derived",
            limitations=result.limitations,
        )
    )
    return _retained(session, [evidence])


def _retained(session: Session, records: list[Evidence]) -> Outcome:
    """The session with the records (the last is the answer) retained, and the answer."""
    return Outcome(session=record(session, records), reply=Success(records[-1].to_json()))


INSPECTOR = Provider(id="rea-v8-inspector", name="REA V8 Inspector passive observation", version=__version__)


def _observed(session: Session, provider: Provider, operation: str, args: object, result: Any) -> Outcome:
    evidence = must(
        create_evidence(
            provider=provider,
            operation=operation,
            parameters=to_wire(args),
            normalized_result=result,
            authority="external-service",
            limitations=result["limitations"],
        )
    )
    return _retained(session, [evidence])


@typed
@refusable
def list_javascript_runtime_targets(session: Session, args: ListRuntimeTargetsArgs, ctx: Context) -> Program:
    endpoint = must(parse_endpoint(args.inspector_endpoint, argument="inspector_endpoint"))
    got = yield from need(DiscoverDevtools(endpoint=endpoint, operation="list_javascript_runtime_targets"))
    result = rt.target_list(discovery_of(got), args.offset, args.limit)
    return _observed(session, INSPECTOR, "list_javascript_runtime_targets", args, to_wire(result))


@typed
@refusable
def observe_javascript_runtime(session: Session, args: ObserveRuntimeArgs, ctx: Context) -> Program:
    endpoint = must(parse_endpoint(args.inspector_endpoint, argument="inspector_endpoint"))
    yield ReportProgress(phase="observing", message=f"{args.target_id} for {args.observation_ms} ms")
    got = yield from need(
        ObserveTarget(
            endpoint=endpoint,
            target_id=args.target_id,
            operation="observe_javascript_runtime",
            start=rt.START,
            listen=rt.LISTEN,
            finish=rt.FINISH,
            observation_ms=args.observation_ms,
            max_events=args.max_events,
        )
    )
    result = rt.observation(window_of(got), args)
    return _observed(session, INSPECTOR, "observe_javascript_runtime", args, to_wire(result))


ELECTRON = Provider(id="rea-cdp-electron", name="REA Electron file-page CDP observation provider", version=__version__)


@typed
@refusable
def list_electron_targets(session: Session, args: ListElectronTargetsArgs, ctx: Context) -> Program:
    endpoint = must(parse_endpoint(args.cdp_endpoint, argument="cdp_endpoint"))
    got = yield from need(DiscoverDevtools(endpoint=endpoint, operation="list_electron_targets"))
    return _observed(session, ELECTRON, "list_electron_targets", args, to_wire(el.target_list(discovery_of(got))))


@typed
@refusable
def inspect_electron_page(session: Session, args: InspectElectronPageArgs, ctx: Context) -> Program:
    endpoint = must(parse_endpoint(args.cdp_endpoint, argument="cdp_endpoint"))
    discovered = discovery_of((yield from need(DiscoverDevtools(endpoint=endpoint, operation="inspect_electron_page"))))
    if el.eligible(discovered, args.target_id) is None:
        known = any(t.id == args.target_id for t in discovered.targets)
        refuse(
            browser_failure(
                "inspect_electron_page",
                "target_not_allowed" if known else "target_not_found",
                f"target {args.target_id!r} is {'not a local file:// page' if known else 'not at the endpoint'}",
                target_id=args.target_id,
            )
        )
    got = yield from need(
        ObserveTarget(
            endpoint=endpoint,
            target_id=args.target_id,
            operation="inspect_electron_page",
            start=el.START,
            listen=el.LISTEN,
            finish=el.FINISH,
            observation_ms=args.observation_ms,
            max_events=10000,
            script_sources=500 if args.include_script_sources else 0,
        )
    )
    result = el.inspection(window_of(got), discovered, args)
    return _observed(session, ELECTRON, "inspect_electron_page", args, to_wire(result))


RECONCILIATION = Provider(
    id="rea-javascript-runtime-reconciliation", name="REA JavaScript runtime reconciliation", version="1"
)


def _refused(exc: ri.Refused, prefix: str = "") -> ReaError:
    path = f"{prefix}.{exc.path}" if prefix and not exc.path.startswith(prefix) else exc.path
    return invalid_request(f"{path}: {exc.message}", field=path, reason="inconsistent_evidence")


def _layer(session: Session, given: StaticLayer, index: int) -> ri.Layer:
    """One static layer: its application Evidence resolved and checked, its runtime mappings read."""
    at = f"static_layers[{index}]"
    evidence = must(resolve_analysis(session, given.analysis, f"{at}.analysis"))
    checked = must(check_application(evidence, f"{at}.analysis"))
    try:
        maps = ri.mappings(given.runtime_mappings, f"{at}.runtime_mappings")
        return ri.layer(given.role, evidence, checked, maps)
    except ri.Refused as exc:
        refuse(_refused(exc, at))


def _capture(session: Session, given: Any, index: int) -> ri.Capture:
    """One runtime capture: its Evidence resolved and read."""
    at = f"runtime_observations[{index}]"
    evidence = must(resolve(session, given, at))
    try:
        return ri.capture(evidence, at)
    except ri.Refused as exc:
        refuse(_refused(exc))


def _unique(evidence: list[Evidence], field: str) -> None:
    """Refuse a list that names one Evidence twice."""
    if len({e.evidence_id for e in evidence}) != len(evidence):
        refuse(invalid_request(f"{field} Evidence must be unique.", field=field, accepted="distinct Evidence records"))


def _reconcile_inputs(session: Session, args: ReconcileArgs) -> tuple[list[ri.Layer], list[ri.Capture]]:
    """The static layers and runtime captures, each resolved and checked (or the program ends refused)."""
    if [x.role for x in args.static_layers].count("application") != 1:
        refuse(invalid_request("Exactly one application static layer is required.", field="static_layers",
                               accepted="one layer with role application; others cache or assets"))  # fmt: skip
    if args.limits.max_runtime_entities < len(args.runtime_observations):
        refuse(invalid_request("limits.max_runtime_entities must keep one target per observation.",
                               field="limits.max_runtime_entities",
                               accepted=f">= {len(args.runtime_observations)}"))  # fmt: skip
    layers = [_layer(session, given, i) for i, given in enumerate(args.static_layers)]
    captures = [_capture(session, given, i) for i, given in enumerate(args.runtime_observations)]
    _unique([x.evidence for x in layers], "static_layers")
    _unique([c.evidence for c in captures], "runtime_observations")
    return layers, captures


@typed
@refusable
def reconcile_javascript_runtime(session: Session, args: ReconcileArgs, ctx: Context) -> Program:
    yield ReportProgress(phase="reconciling", message=f"{len(args.runtime_observations)} capture(s)")
    layers, captures = _reconcile_inputs(session, args)
    result = reconcile(layers, captures, args.limits)
    application = next(x for x in layers if x.role == "application")
    sources = [*(x.evidence for x in layers), *(c.evidence for c in captures)]
    evidence = must(
        create_evidence(
            provider=RECONCILIATION,
            operation="reconcile_javascript_runtime",
            predicate_type="rea.javascript-runtime-reconciliation/v1",
            parameters={
                "static_layers": [
                    {
                        "role": x.role,
                        "evidence_id": x.evidence.evidence_id,
                        "runtime_mappings": [to_wire(m) for m in x.mappings],
                    }
                    for x in layers
                ],
                "runtime_evidence_ids": [c.evidence.evidence_id for c in captures],
                "limits": to_wire(args.limits),
            },
            normalized_result=result,
            subject=application.evidence.subject,
            confidence="inferred",
            authority="analyst-inference",
            limitations=tuple(result["limitations"]),
            evidence_links=tuple(result["evidence_links"]),
        )
    )
    return _retained(session, [*sources, evidence])


PROGRAMS: Mapping[str, ToolProgram] = {
    "reconcile_javascript_runtime": reconcile_javascript_runtime,
    "list_electron_targets": list_electron_targets,
    "inspect_electron_page": inspect_electron_page,
    "recover_javascript_sources": recover_javascript_sources,
    "list_javascript_runtime_targets": list_javascript_runtime_targets,
    "observe_javascript_runtime": observe_javascript_runtime,
}
