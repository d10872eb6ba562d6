"""Programs of the web family: passive observation of a caller's browser over loopback CDP.

Every program checks the endpoint (loopback, before any connection) and the origin policy
first, lists the endpoint's targets, refuses a target outside the policy before attaching
to it, and only then observes. Results are Evidence with no file subject (a live page has
no digest to pin); the browser is the provider.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from typing import Any

from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from rea.browser_failures import browser_failure
from rea.effect_types import AnyEffect, Program, ToolProgram
from rea.errors import ReaError, invalid_request
from rea.evidence import Provider, create_evidence
from rea.loopback import origin_of, parse_endpoint
from rea.program import Context, Outcome, ReportProgress, failed, recorded
from rea.session import Session
from rea.web.effects import ObservationKind, ObserveBrowser
from rea.web.runtime import execution, listeners
from rea.web.screenshot import screenshot
from rea.web.timeline import session as timeline_session
from rea.web.webmcp import discovery
from rea.web.inspection import inspection
from rea.web.scope import allowed_origins, in_scope
from rea.web.targets import PAGE_TYPES, target_list

Facts = dict[str, Any]


def _provider(version: Mapping[str, Any]) -> Provider:
    return Provider(
        id="chromium-cdp", name="Chrome DevTools Protocol", version=str(version.get("Browser") or "") or None
    )


def _request_scope(args: Mapping[str, Any]) -> Result[tuple[str, tuple[str, ...]], ReaError]:
    endpoint = parse_endpoint(args["cdp_endpoint"])
    if isinstance(endpoint, Failure):
        return endpoint
    origins = allowed_origins(args["allowed_origins"])
    if isinstance(origins, Failure):
        return origins
    return Success((endpoint.unwrap().url, origins.unwrap()))


def _evidence(session: Session, operation: str, args: Mapping[str, Any], version: Facts, result: Facts) -> Outcome:
    return recorded(
        session,
        create_evidence(
            provider=_provider(version),
            operation=operation,
            parameters=dict(args),
            normalized_result=result,
            subject=None,
            confidence="observed",
            authority="external-service",
            limitations=result["limitations"],
        ),
    )


def _targets(operation: str, endpoint: str) -> Generator[AnyEffect, Any, Result[Facts, ReaError]]:
    """The endpoint's /json/version and /json/list (a step every program takes before attaching)."""
    yield ReportProgress(phase="listing targets", message=endpoint)
    got: Result[Facts, ReaError] = yield ObserveBrowser(kind="targets", operation=operation, endpoint=endpoint)
    return got


def list_browser_targets(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    scope = _request_scope(args)
    if isinstance(scope, Failure):
        return failed(session, scope.failure())
    endpoint, origins = scope.unwrap()
    got = yield from _targets("list_browser_targets", endpoint)
    if not is_successful(got):
        return failed(session, got.failure())
    facts = got.unwrap()
    result = target_list(facts["version"], facts["targets"], origins)
    return _evidence(session, "list_browser_targets", args, facts["version"], result)


def select_page(
    operation: str, facts: Facts, target_id: str, origins: tuple[str, ...]
) -> Result[tuple[Facts, tuple[str, ...]], ReaError]:
    """The named page target and the origins it may be observed under (its own when none were given)."""
    target = next((t for t in facts["targets"] if t.get("id") == target_id), None)
    if target is None:
        known = sorted(str(t.get("id")) for t in facts["targets"] if t.get("type") in PAGE_TYPES)[:20]
        return Failure(
            browser_failure(
                operation, "target_not_found", f"no target {target_id!r} at the endpoint", known_targets=known
            )
        )
    url = str(target.get("url", ""))
    if target.get("type") not in PAGE_TYPES:
        return Failure(
            browser_failure(
                operation, "target_not_allowed", f"target {target_id!r} is a {target.get('type')}, not a page"
            )
        )
    own = origin_of(url)
    scope = origins or ((own,) if own and url.startswith(("http://", "https://")) else ())
    if not in_scope(url, scope):
        return Failure(
            browser_failure(
                operation,
                "target_not_allowed",
                f"target {target_id!r} is at {url!r}, outside the allowed origins {list(scope)}",
                target_origin=own,
            )
        )
    return Success((target, scope))


def _inspect_refusal(args: Mapping[str, Any]) -> ReaError | None:
    if args["include_storage_fingerprints"] and not args["include_storage_keys"]:
        return invalid_request(
            "include_storage_fingerprints needs include_storage_keys: storage fingerprints require storage key capture",
            field="include_storage_fingerprints",
            accepted="include_storage_keys: true alongside include_storage_fingerprints: true",
        )
    return None


PAGE_OPTIONS = (
    "observation_ms",
    "max_events",
    "include_script_sources",
    "max_script_source_bytes",
    "include_json_body_shapes",
)


Observed = tuple[Facts, Facts, tuple[str, ...], Facts]


def observe(
    session: Session, args: Mapping[str, Any], operation: str, kind: ObservationKind, options: Mapping[str, Any]
) -> Generator[AnyEffect, Any, Outcome | Observed]:
    """Scope, list, select, then one observation: (endpoint facts, target, origins, raw) or a failed Outcome."""
    scope = _request_scope(args)
    if isinstance(scope, Failure):
        return failed(session, scope.failure())
    endpoint, origins = scope.unwrap()
    got = yield from _targets(operation, endpoint)
    if not is_successful(got):
        return failed(session, got.failure())
    facts = got.unwrap()
    selected = select_page(operation, facts, args["target_id"], origins)
    if isinstance(selected, Failure):
        return failed(session, selected.failure())
    target, page_scope = selected.unwrap()
    yield ReportProgress(phase=f"observing {kind}", message=str(args["target_id"]))
    observed = yield ObserveBrowser(
        kind=kind,
        operation=operation,
        endpoint=endpoint,
        target_id=args["target_id"],
        options={**options, "scope": page_scope, "target_origin": origin_of(str(target.get("url", "")))},
    )
    if not is_successful(observed):
        return failed(session, observed.failure())
    return facts, target, page_scope, observed.unwrap()


def inspect_web_page(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    refusal = _inspect_refusal(args)
    if refusal is not None:
        return failed(session, refusal)
    options = {k: args[k] for k in PAGE_OPTIONS}
    got = yield from observe(session, args, "inspect_web_page", "page", options)
    if isinstance(got, Outcome):
        return got
    facts, target, scope, raw = got
    result = inspection(facts["version"], target, facts["targets"], raw, scope, args)
    return _evidence(session, "inspect_web_page", args, facts["version"], result)


# a passive tool's result from (endpoint facts, target, origin scope, raw observation, arguments)
Builder = Callable[[Facts, Facts, tuple[str, ...], Facts, Mapping[str, Any]], Result[Facts, ReaError]]


def passive_tool(operation: str, kind: ObservationKind, options: tuple[str, ...], build: Builder) -> ToolProgram:
    """The program of a tool that observes one page once and records what `build` makes of it."""

    def program(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
        got = yield from observe(session, args, operation, kind, {k: args[k] for k in options})
        if isinstance(got, Outcome):
            return got
        facts, target, scope, raw = got
        built = build(facts, target, scope, raw, args)
        if isinstance(built, Failure):
            return failed(session, built.failure())
        return _evidence(session, operation, args, facts["version"], built.unwrap())

    return program


PASSIVE_TOOLS: Mapping[str, ToolProgram] = {
    "discover_webmcp_tools": passive_tool(
        "discover_webmcp_tools",
        "webmcp",
        ("observation_ms",),
        lambda facts, target, scope, raw, args: Success(discovery(facts["version"], target, raw, scope, args)),
    ),
    "capture_web_screenshot": passive_tool(
        "capture_web_screenshot",
        "screenshot",
        ("maximum_image_bytes",),
        lambda facts, target, scope, raw, args: screenshot(facts["version"], target, raw, scope),
    ),
    "inspect_web_event_listeners": passive_tool(
        "inspect_web_event_listeners",
        "listeners",
        ("selector",),
        lambda facts, target, scope, raw, args: Success(
            listeners(facts["version"], target, raw, args["selector"], scope)
        ),
    ),
    "observe_web_execution": passive_tool(
        "observe_web_execution",
        "execution",
        ("observation_ms",),
        lambda facts, target, scope, raw, args: Success(
            execution(facts["version"], target, raw, args["observation_ms"], scope)
        ),
    ),
    "observe_web_session": passive_tool(
        "observe_web_session",
        "session",
        ("observation_ms",),
        lambda facts, target, scope, raw, args: Success(
            timeline_session(facts["version"], target, raw, scope, args["observation_ms"], args["max_timeline_events"])
        ),
    ),
}


PROGRAMS: Mapping[str, ToolProgram] = {
    "list_browser_targets": list_browser_targets,
    "inspect_web_page": inspect_web_page,
    **PASSIVE_TOOLS,
}
