"""Program of capture_browser_scenario: policy first, then one owned (or connected) run.

Every destination, id and secret reference is checked before a browser exists; the runner
answers redacted facts; the pure core classifies completeness. The capture is Evidence with
no file subject (a live run has no digest to pin), the browser its provider.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rea.canonical_json import canonical_sha256
from rea.effect_types import Program, ToolProgram
from rea.errors import ReaError, invalid_request
from rea.evidence import Provider, create_evidence
from rea.program import Context, Outcome, ReportProgress, must, need, recorded, refusable, refuse, typed
from rea.session import Session
from rea.validation import first_schema_error
from rea.web.capture_diff import compare_passive, compare_scenarios
from rea.web.records.capture_diff import CompareWebCapturesArgs, NormalizationRule, WebCaptureComparison
from rea.web.records.electron_scenario import CaptureElectronScenarioArgs
from rea.web.records.page import WebPageInspection
from rea.web.records.scenario import CaptureBrowserScenarioArgs
from rea.web.records.scenario_capture import BrowserScenarioCapture
from rea.web.records.webmcp import WebMcpDiscovery
from rea.web.scenario import capture_result, scenario_origins
from rea.web.scenario_effects import RunScenario
from rea.wire.convert import to_wire
from rea.wire.schema import Role, schema_of


def _observed(session: Session, operation: str, args: object, version: str, result: Mapping[str, Any]) -> Outcome:
    """A live run's Evidence: no file subject (nothing to pin), the browser as provider."""
    return recorded(
        session,
        create_evidence(
            provider=Provider(id="chromium-cdp", name="Chrome DevTools Protocol", version=version),
            operation=operation,
            parameters=to_wire(args),
            normalized_result=dict(result),
            subject=None,
            confidence="observed",
            authority="external-service",
            limitations=result["limitations"],
        ),
    )


def scenario_program(operation: str) -> ToolProgram:
    """capture_browser_scenario's program (capture_electron_scenario runs the same one over Electron)."""

    @typed
    @refusable
    def program(session: Session, args: CaptureBrowserScenarioArgs, ctx: Context) -> Program:
        wire = to_wire(args)  # the policy and the runner read the scenario as JSON
        origins = must(scenario_origins(wire))
        yield ReportProgress(phase="running scenario", message=f"{len(args.actions)} action(s)")
        facts = yield from need(RunScenario(operation=operation, args=wire, origins=origins))
        result = capture_result(to_wire(args), origins, facts)
        return _observed(session, operation, args, facts["browser"]["version"], result)

    return program


PASSIVE_PAIR, SCENARIO_PAIR = ("before", "after"), ("before_scenario", "after_scenario")
SHAPES = (
    "exactly one pair: {before, after} (inspect_web_page results, optional webmcp) or "
    "{before_scenario, after_scenario} (capture_browser_scenario results, optional normalization)"
)


def _pair(args: Mapping[str, Any]) -> tuple[str, ...]:
    """The one input shape given: the passive pair or the scenario pair (else the program ends refusing)."""
    given = [k for k in (*PASSIVE_PAIR, *SCENARIO_PAIR) if args.get(k) is not None]
    passive, scenario = [k for k in given if k in PASSIVE_PAIR], [k for k in given if k in SCENARIO_PAIR]
    if passive and scenario:
        refuse(invalid_request("compare_web_captures takes one input shape, not both", field=given[0], accepted=SHAPES))
    chosen = PASSIVE_PAIR if passive else SCENARIO_PAIR
    missing = [k for k in chosen if k not in given]
    if missing:
        refuse(
            invalid_request(
                f"compare_web_captures needs {missing[0]} beside {given or 'nothing'}",
                field=missing[0],
                accepted=SHAPES,
            )
        )
    if passive and args.get("normalization") is not None:
        refuse(invalid_request("normalization applies to scenario pairs only", field="normalization", accepted=SHAPES))
    return chosen


def _unique_rules(rules: Sequence[NormalizationRule]) -> None:
    ids = [r.rule_id for r in rules]
    if len(set(ids)) != len(ids) or any(len(set(r.artifacts)) != len(r.artifacts) for r in rules):
        refuse(
            invalid_request(
                "normalization rule ids, and the artifact kinds of each rule, must be unique",
                field="normalization.rules",
                accepted="rules with distinct rule_id values and no repeated artifact kind",
            )
        )


def _invalid_capture(where: str, problem: str, accepted: str) -> ReaError:
    return invalid_request(f"{where} is not a complete capture: {problem}", field=where, accepted=accepted)


def _scenario_problem(capture: Mapping[str, Any]) -> str | None:
    """The 6.x domain checks JSON Schema cannot say: counts, contiguous steps, event step references."""
    steps, events = capture["steps"], capture["events"]
    if events["retained"] != len(events["items"]):
        return "events.retained differs from the number of items"
    if len(steps) != capture["scenario"]["action_count"] + 1:
        return "steps must hold the initial state and one entry per action"
    if [s["step_index"] for s in steps] != list(range(len(steps))):
        return "step indices must be contiguous from zero"
    if any(e["step_index"] >= len(steps) for e in events["items"]):
        return "an event references an unknown step index"
    return None


def _captures_complete(args: Mapping[str, Any], chosen: tuple[str, ...]) -> None:
    """Each capture validated against its producer's own output schema (the advertised input is shallow)."""
    checks: list[tuple[str, Any, type]]
    if chosen == SCENARIO_PAIR:
        checks = [(k, args[k], BrowserScenarioCapture) for k in chosen]
    else:
        checks = [(f"{k}.inspection", args[k]["inspection"], WebPageInspection) for k in chosen]
        checks += [(f"{k}.webmcp", args[k]["webmcp"], WebMcpDiscovery) for k in chosen if args[k].get("webmcp")]
    for where, value, record in checks:
        found = first_schema_error(schema_of(record, Role.OUTPUT), value)
        accepted = f"the complete, unchanged result of {'capture_browser_scenario' if chosen == SCENARIO_PAIR else 'its producer'}"
        if found is not None:
            refuse(_invalid_capture(f"{where}{found[0].lstrip('$')}", found[1], accepted))
        problem = _scenario_problem(value) if record is BrowserScenarioCapture else None
        if problem is not None:
            refuse(_invalid_capture(where, problem, accepted))


@typed
@refusable
def compare_web_captures(session: Session, args: CompareWebCapturesArgs, ctx: Context) -> Program:
    wire = to_wire(args)  # the captures are compared, and named, in their JSON form
    chosen = _pair(wire)
    _captures_complete(wire, chosen)
    yield ReportProgress(phase="comparing captures", message=" and ".join(chosen))
    result: WebCaptureComparison
    if chosen == SCENARIO_PAIR:
        rules = args.normalization.rules if args.normalization is not None else ()
        _unique_rules(rules)
        result = compare_scenarios(wire["before_scenario"], wire["after_scenario"], rules, args.max_changes)
    else:
        result = compare_passive(wire["before"], wire["after"], args.max_changes)
    return recorded(
        session,
        create_evidence(
            provider=Provider(id="rea-web-capture-diff", name="REA capture comparison", version=None),
            operation="compare_web_captures",
            # the captures are named by their canonical digest, not carried again (each can be megabytes)
            parameters={k: {"sha256": canonical_sha256(wire[k])} if k in chosen else v for k, v in wire.items()},
            normalized_result=to_wire(result),
            confidence="derived",
            limitations=result.limitations,
        ),
    )


@typed
@refusable
def capture_electron_scenario(session: Session, args: CaptureElectronScenarioArgs, ctx: Context) -> Program:
    ids = [a.step_id for a in args.actions]
    if len(set(ids)) != len(ids):
        refuse(invalid_request("action step_ids must be unique", field="actions", accepted="unique step_id values"))
    yield ReportProgress(phase="running Electron scenario", message=f"{len(ids)} action(s)")
    result = yield from need(RunScenario(operation="capture_electron_scenario", args=to_wire(args), origins=()))
    return _observed(session, "capture_electron_scenario", args, result["application"]["electron_version"], result)


PROGRAMS: Mapping[str, ToolProgram] = {
    "capture_electron_scenario": capture_electron_scenario,
    "capture_browser_scenario": scenario_program("capture_browser_scenario"),
    "compare_web_captures": compare_web_captures,
}
