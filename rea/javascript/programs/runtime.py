"""Programs of the JavaScript source-recovery and runtime tools (recover_javascript_sources, the Node
inspector, Electron over CDP, runtime reconciliation)."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any

from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from rea import __version__
from rea.effect_types import Program, ToolProgram
from rea.evidence import Provider, Subject, create_evidence
from rea.javascript import electron_observation as el
from rea.javascript import runtime_observation as rt
from rea.javascript import reconcile_inputs as ri
from rea.javascript.reconcile import reconcile
from rea.javascript.views import check_application
from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence
from rea.javascript.devtools_effects import DiscoverDevtools, ObserveTarget
from rea.javascript.recovery import build
from rea.javascript.recovery_effects import PublishRecovery, ReadRecoveryInput
from rea.program import Context, Outcome, ReportProgress, failed, recorded
from rea.browser_failures import browser_failure
from rea.loopback import parse_endpoint
from rea.session import Session, record, resolve, resolve_analysis

RECOVERY = Provider(id="rea-javascript-recovery", name="REA JavaScript source recovery", version=__version__)


def recover_javascript_sources(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    yield ReportProgress(phase="reading bundle", message=args["path"])
    read = yield ReadRecoveryInput(
        path=args["path"], source_root=args.get("source_root"), output_directory=args.get("output_directory")
    )
    if not is_successful(read):
        return failed(session, read.failure())
    facts = read.unwrap()
    engine = {
        "id": RECOVERY.id,
        "version": __version__,
        "executable": facts["engine_file"],
        "audited_source_revision": f"rea {__version__}",
        "executed_source_revision": f"rea {__version__}",
    }
    result, files = build(facts, args, facts["output_directory"], engine)
    yield ReportProgress(phase="publishing", message=f"{len(files)} files to {facts['output_directory']}")
    published = yield PublishRecovery(output_directory=facts["output_directory"], files=tuple(files))
    if not is_successful(published):
        return failed(session, published.failure())
    bundle = facts["bundle"]
    return recorded(
        session,
        create_evidence(
            provider=RECOVERY,
            operation="recover_javascript_sources",
            parameters=dict(args),
            normalized_result=result,
            subject=Subject(
                name=posixpath.basename(bundle["path"]),
                sha256=bundle["sha256"],
                format="javascript",
                architecture=None,
                local_path=bundle["path"],
            ),
            confidence="derived",
            limitations=result["limitations"],
        ),
    )


INSPECTOR = Provider(id="rea-v8-inspector", name="REA V8 Inspector passive observation", version=__version__)


def _observed(session: Session, provider: Provider, operation: str, args: Mapping[str, Any], result: Any) -> Outcome:
    return recorded(
        session,
        create_evidence(
            provider=provider,
            operation=operation,
            parameters=dict(args),
            normalized_result=result,
            authority="external-service",
            limitations=result["limitations"],
        ),
    )


def list_javascript_runtime_targets(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    endpoint = parse_endpoint(args["inspector_endpoint"], argument="inspector_endpoint")
    if not is_successful(endpoint):
        return failed(session, endpoint.failure())
    got = yield DiscoverDevtools(endpoint=endpoint.unwrap(), operation="list_javascript_runtime_targets")
    if not is_successful(got):
        return failed(session, got.failure())
    result = rt.target_list(got.unwrap(), args["offset"], args["limit"])
    return _observed(session, INSPECTOR, "list_javascript_runtime_targets", args, result)


def observe_javascript_runtime(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    endpoint = parse_endpoint(args["inspector_endpoint"], argument="inspector_endpoint")
    if not is_successful(endpoint):
        return failed(session, endpoint.failure())
    yield ReportProgress(phase="observing", message=f"{args['target_id']} for {args['observation_ms']} ms")
    got = yield ObserveTarget(
        endpoint=endpoint.unwrap(),
        target_id=args["target_id"],
        operation="observe_javascript_runtime",
        start=rt.START,
        listen=rt.LISTEN,
        finish=rt.FINISH,
        observation_ms=args["observation_ms"],
        max_events=args["max_events"],
    )
    if not is_successful(got):
        return failed(session, got.failure())
    result = rt.observation(got.unwrap(), args)
    return _observed(session, INSPECTOR, "observe_javascript_runtime", args, result)


ELECTRON = Provider(id="rea-cdp-electron", name="REA Electron file-page CDP observation provider", version=__version__)


def list_electron_targets(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    endpoint = parse_endpoint(args["cdp_endpoint"], argument="cdp_endpoint")
    if not is_successful(endpoint):
        return failed(session, endpoint.failure())
    got = yield DiscoverDevtools(endpoint=endpoint.unwrap(), operation="list_electron_targets")
    if not is_successful(got):
        return failed(session, got.failure())
    return _observed(session, ELECTRON, "list_electron_targets", args, el.target_list(got.unwrap()))


def inspect_electron_page(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    endpoint = parse_endpoint(args["cdp_endpoint"], argument="cdp_endpoint")
    if not is_successful(endpoint):
        return failed(session, endpoint.failure())
    discovered = yield DiscoverDevtools(endpoint=endpoint.unwrap(), operation="inspect_electron_page")
    if not is_successful(discovered):
        return failed(session, discovered.failure())
    if el.eligible(discovered.unwrap(), args["target_id"]) is None:
        known = any(t.get("id") == args["target_id"] for t in discovered.unwrap()["targets"])
        return failed(
            session,
            browser_failure(
                "inspect_electron_page",
                "target_not_allowed" if known else "target_not_found",
                f"target {args['target_id']!r} is {'not a local file:// page' if known else 'not at the endpoint'}",
                target_id=args["target_id"],
            ),
        )
    got = yield ObserveTarget(
        endpoint=endpoint.unwrap(),
        target_id=args["target_id"],
        operation="inspect_electron_page",
        start=el.START,
        listen=el.LISTEN,
        finish=el.FINISH,
        observation_ms=args["observation_ms"],
        max_events=10000,
        script_sources=500 if args["include_script_sources"] else 0,
    )
    if not is_successful(got):
        return failed(session, got.failure())
    result = el.inspection(got.unwrap(), discovered.unwrap(), args)
    return _observed(session, ELECTRON, "inspect_electron_page", args, result)


RECONCILIATION = Provider(
    id="rea-javascript-runtime-reconciliation", name="REA JavaScript runtime reconciliation", version="1"
)


def _refused(exc: ri.Refused, prefix: str = "") -> Failure[ReaError]:
    path = f"{prefix}.{exc.path}" if prefix and not exc.path.startswith(prefix) else exc.path
    return Failure(invalid_request(f"{path}: {exc.message}", field=path, reason="inconsistent_evidence"))


def _layer(session: Session, given: Mapping[str, Any], index: int) -> Result[ri.Layer, ReaError]:
    at = f"static_layers[{index}]"
    found = resolve_analysis(session, given["analysis"], f"{at}.analysis")
    if not is_successful(found):
        return Failure(found.failure())
    evidence = found.unwrap()
    checked = check_application(evidence, f"{at}.analysis")
    if not is_successful(checked):
        return Failure(checked.failure())
    try:
        maps = ri.mappings(given.get("runtime_mappings") or (), f"{at}.runtime_mappings")
        return Success(ri.layer(given["role"], evidence, checked.unwrap(), maps))
    except ri.Refused as exc:
        return _refused(exc, at)


def _capture(session: Session, given: Any, index: int) -> Result[ri.Capture, ReaError]:
    at = f"runtime_observations[{index}]"
    found = resolve(session, given, at)
    if not is_successful(found):
        return Failure(found.failure())
    try:
        return Success(ri.capture(found.unwrap(), at))
    except ri.Refused as exc:
        return _refused(exc)


def _unique(evidence: list[Evidence], field: str) -> ReaError | None:
    if len({e.evidence_id for e in evidence}) == len(evidence):
        return None
    return invalid_request(f"{field} Evidence must be unique.", field=field, accepted="distinct Evidence records")


def _reconcile_inputs(
    session: Session, args: Mapping[str, Any]
) -> Result[tuple[list[ri.Layer], list[ri.Capture]], ReaError]:
    if [x["role"] for x in args["static_layers"]].count("application") != 1:
        return Failure(invalid_request("Exactly one application static layer is required.", field="static_layers",
                                       accepted="one layer with role application; others cache or assets"))  # fmt: skip
    if args["limits"]["max_runtime_entities"] < len(args["runtime_observations"]):
        return Failure(invalid_request("limits.max_runtime_entities must keep one target per observation.",
                                       field="limits.max_runtime_entities",
                                       accepted=f">= {len(args['runtime_observations'])}"))  # fmt: skip
    layers, captures = [], []
    for i, given in enumerate(args["static_layers"]):
        got = _layer(session, given, i)
        if not is_successful(got):
            return Failure(got.failure())
        layers.append(got.unwrap())
    for i, given in enumerate(args["runtime_observations"]):
        seen = _capture(session, given, i)
        if not is_successful(seen):
            return Failure(seen.failure())
        captures.append(seen.unwrap())
    twice = _unique([x.evidence for x in layers], "static_layers") or _unique(
        [c.evidence for c in captures], "runtime_observations"
    )
    return Failure(twice) if twice else Success((layers, captures))


def reconcile_javascript_runtime(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    yield ReportProgress(phase="reconciling", message=f"{len(args['runtime_observations'])} capture(s)")
    inputs = _reconcile_inputs(session, args)
    if not is_successful(inputs):
        return failed(session, inputs.failure())
    layers, captures = inputs.unwrap()
    result = reconcile(layers, captures, args["limits"])
    application = next(x for x in layers if x.role == "application")
    sources = [*(x.evidence for x in layers), *(c.evidence for c in captures)]
    built = create_evidence(
        provider=RECONCILIATION,
        operation="reconcile_javascript_runtime",
        predicate_type="rea.javascript-runtime-reconciliation/v1",
        parameters={
            "static_layers": [
                {"role": x.role, "evidence_id": x.evidence.evidence_id, "runtime_mappings": list(x.mappings)}
                for x in layers
            ],
            "runtime_evidence_ids": [c.evidence.evidence_id for c in captures],
            "limits": dict(args["limits"]),
        },
        normalized_result=result,
        subject=application.evidence.subject,
        confidence="inferred",
        authority="analyst-inference",
        limitations=tuple(result["limitations"]),
        evidence_links=tuple(result["evidence_links"]),
    )
    if not is_successful(built):
        return failed(session, built.failure())
    evidence = built.unwrap()
    return Outcome(session=record(session, [*sources, evidence]), reply=Success(evidence.to_json()))


PROGRAMS: Mapping[str, ToolProgram] = {
    "reconcile_javascript_runtime": reconcile_javascript_runtime,
    "list_electron_targets": list_electron_targets,
    "inspect_electron_page": inspect_electron_page,
    "recover_javascript_sources": recover_javascript_sources,
    "list_javascript_runtime_targets": list_javascript_runtime_targets,
    "observe_javascript_runtime": observe_javascript_runtime,
}
