"""Programs of the web family: passive observation of a caller's browser over loopback CDP.

Every program checks the endpoint (loopback, before any connection) and the origin policy
first, lists the endpoint's targets, refuses a target outside the policy before attaching
to it, and only then observes. Results are Evidence with no file subject (a live page has
no digest to pin); the browser is the provider.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any, Protocol

import attrs
from returns.result import Failure, Result, Success

from rea.browser_failures import browser_failure
from rea.effect_types import AnyEffect, Program, ToolProgram
from rea.errors import ReaError, invalid_request
from rea.evidence import Provider, create_evidence
from rea.loopback import origin_of, parse_endpoint
from rea.program import Context, Outcome, ReportProgress, must, need, recorded, refusable, refuse, typed
from rea.session import Session
from rea.web.effects import ObservationKind, ObserveBrowser
from rea.web.inspection import inspection
from rea.web.records.browser import InspectWebPageArgs, ListBrowserTargetsArgs
from rea.web.records.runtime import (
    EventListenerArgs,
    ObserveExecutionArgs,
    ObserveSessionArgs,
    WebEventListeners,
    WebObservationSession,
)
from rea.web.records.screenshot import CaptureWebScreenshotArgs, WebScreenshot
from rea.web.records.webmcp import DiscoverWebMcpArgs, WebMcpDiscovery
from rea.web.runtime import execution, listeners
from rea.web.scope import allowed_origins, in_scope
from rea.web.screenshot import screenshot
from rea.web.targets import PAGE_TYPES, browser_version, page_target, target_list
from rea.web.timeline import recording
from rea.web.timeline import session as timeline_session
from rea.web.webmcp import discovery
from rea.wire.convert import to_wire

Facts = dict[str, Any]


class PageArgs(Protocol):
    """What every page-observing argument record holds (the scope and the target)."""

    @property
    def cdp_endpoint(self) -> str: ...

    @property
    def allowed_origins(self) -> tuple[str, ...]: ...

    @property
    def target_id(self) -> str: ...


def _provider(version: Mapping[str, Any]) -> Provider:
    return Provider(
        id="chromium-cdp", name="Chrome DevTools Protocol", version=str(version.get("Browser") or "") or None
    )


def _request_scope(endpoint: str, origins: Sequence[str]) -> Result[tuple[str, tuple[str, ...]], ReaError]:
    """The loopback endpoint's URL and the exact origins, checked before any connection."""
    return parse_endpoint(endpoint).bind(lambda found: allowed_origins(origins).map(lambda kept: (found.url, kept)))


def _evidence(session: Session, operation: str, args: object, version: Facts, built: Any) -> Outcome:
    """The observation's Evidence; its result (a record, or JSON already) turned into JSON here."""
    result = to_wire(built)
    return recorded(
        session,
        create_evidence(
            provider=_provider(version),
            operation=operation,
            parameters=to_wire(args),
            normalized_result=result,
            subject=None,
            confidence="observed",
            authority="external-service",
            limitations=result["limitations"],
        ),
    )


def _targets(operation: str, endpoint: str) -> Generator[AnyEffect, Any, Facts]:
    """The endpoint's /json/version and /json/list (a step every program takes before attaching)."""
    yield ReportProgress(phase="listing targets", message=endpoint)
    facts: Facts = yield from need(ObserveBrowser(kind="targets", operation=operation, endpoint=endpoint))
    return facts


@typed
@refusable
def list_browser_targets(session: Session, args: ListBrowserTargetsArgs, ctx: Context) -> Program:
    endpoint, origins = must(_request_scope(args.cdp_endpoint, args.allowed_origins))
    facts = yield from _targets("list_browser_targets", endpoint)
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


def storage_options(args: InspectWebPageArgs) -> None:
    """Storage fingerprints are taken of storage keys: asking for them alone is refused."""
    if args.include_storage_fingerprints and not args.include_storage_keys:
        refuse(
            invalid_request(
                "include_storage_fingerprints needs include_storage_keys: storage fingerprints require storage key "
                "capture",
                field="include_storage_fingerprints",
                accepted="include_storage_keys: true alongside include_storage_fingerprints: true",
            )
        )


PAGE_OPTIONS = (
    "observation_ms",
    "max_events",
    "include_script_sources",
    "max_script_source_bytes",
    "include_json_body_shapes",
)


@attrs.frozen(kw_only=True)
class Observed:
    """One observation of one page: the endpoint's facts (version, targets), the target, the origins it was
    observed under and what the browser answered."""

    facts: Facts
    target: Facts
    scope: tuple[str, ...]
    raw: Facts

    @property
    def version(self) -> Facts:
        version: Facts = self.facts["version"]
        return version


def options_of(args: object, names: Sequence[str]) -> Facts:
    """The named arguments, as JSON, for the observing effect."""
    wire = to_wire(args)
    return {name: wire[name] for name in names}


def observe(
    args: PageArgs, operation: str, kind: ObservationKind, options: Mapping[str, Any]
) -> Generator[AnyEffect, Any, Observed]:
    """Scope, list, select, then one observation (any refusal ends the program)."""
    endpoint, origins = must(_request_scope(args.cdp_endpoint, args.allowed_origins))
    facts = yield from _targets(operation, endpoint)
    target, page_scope = must(select_page(operation, facts, args.target_id, origins))
    yield ReportProgress(phase=f"observing {kind}", message=str(args.target_id))
    raw = yield from need(
        ObserveBrowser(
            kind=kind,
            operation=operation,
            endpoint=endpoint,
            target_id=args.target_id,
            options={**options, "scope": page_scope, "target_origin": origin_of(str(target.get("url", "")))},
        )
    )
    return Observed(facts=facts, target=target, scope=page_scope, raw=raw)


@typed
@refusable
def inspect_web_page(session: Session, args: InspectWebPageArgs, ctx: Context) -> Program:
    storage_options(args)
    seen = yield from observe(args, "inspect_web_page", "page", options_of(args, PAGE_OPTIONS))
    result = inspection(seen.version, seen.target, seen.facts["targets"], seen.raw, seen.scope, args)
    return _evidence(session, "inspect_web_page", args, seen.version, result)


# a passive tool's result from its observation and its arguments
Builder = Callable[[Observed, Any], Result[Any, ReaError]]


def passive_tool(operation: str, kind: ObservationKind, options: tuple[str, ...], build: Builder) -> ToolProgram:
    """The program of a tool that observes one page once and records what `build` makes of it."""

    @typed
    @refusable
    def program(session: Session, args: PageArgs, ctx: Context) -> Program:
        seen = yield from observe(args, operation, kind, options_of(args, options))
        return _evidence(session, operation, args, seen.version, must(build(seen, args)))

    return program


def _discovery(seen: Observed, args: DiscoverWebMcpArgs) -> Result[WebMcpDiscovery, ReaError]:
    return Success(discovery(seen.version, seen.target, seen.raw, seen.scope, to_wire(args)))


def _screenshot(seen: Observed, args: CaptureWebScreenshotArgs) -> Result[WebScreenshot, ReaError]:
    return screenshot(seen.version, seen.target, seen.raw, seen.scope)


def _listeners(seen: Observed, args: EventListenerArgs) -> Result[WebEventListeners, ReaError]:
    return Success(listeners(seen.version, seen.target, seen.raw, args.selector, seen.scope))


def _execution(seen: Observed, args: ObserveExecutionArgs) -> Result[Facts, ReaError]:
    return Success(execution(seen.version, seen.target, seen.raw, args.observation_ms, seen.scope))


def _session(seen: Observed, args: ObserveSessionArgs) -> Result[WebObservationSession, ReaError]:
    return Success(
        timeline_session(
            browser_version(seen.version),
            page_target(seen.target),
            recording(seen.raw),
            seen.scope,
            args.observation_ms,
            args.max_timeline_events,
        )
    )


PASSIVE_TOOLS: Mapping[str, ToolProgram] = {
    "discover_webmcp_tools": passive_tool("discover_webmcp_tools", "webmcp", ("observation_ms",), _discovery),
    "capture_web_screenshot": passive_tool(
        "capture_web_screenshot", "screenshot", ("maximum_image_bytes",), _screenshot
    ),
    "inspect_web_event_listeners": passive_tool("inspect_web_event_listeners", "listeners", ("selector",), _listeners),
    "observe_web_execution": passive_tool("observe_web_execution", "execution", ("observation_ms",), _execution),
    "observe_web_session": passive_tool("observe_web_session", "session", ("observation_ms",), _session),
}


PROGRAMS: Mapping[str, ToolProgram] = {
    "list_browser_targets": list_browser_targets,
    "inspect_web_page": inspect_web_page,
    **PASSIVE_TOOLS,
}
