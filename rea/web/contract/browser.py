"""Contracts of the web family: passive tools over a caller's loopback Chromium (CDP)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rea.catalog.cli import Alias, Command, Positional, declared
from rea.catalog.contract import ToolContract
from rea.web import browser_text as text
from rea.web.records.browser import BrowserTargetList, InspectWebPageArgs, ListBrowserTargetsArgs
from rea.web.records.page import WebPageInspection
from rea.web.records.runtime import (
    EventListenerArgs,
    ObserveExecutionArgs,
    ObserveSessionArgs,
    WebEventListeners,
    WebExecution,
    WebObservationSession,
)
from rea.web.records.screenshot import CaptureWebScreenshotArgs, WebScreenshot
from rea.web.records.webmcp import DiscoverWebMcpArgs, WebMcpDiscovery
from rea.wire.tool import evidence_tool

ENDPOINT = "http://127.0.0.1:9222"
TARGET = "TARGET_ID_FROM_LIST_BROWSER_TARGETS"
PASSIVE = {"mutatesSession", "idempotent", "accessesNetwork"}

LIST_BROWSER_TARGETS = evidence_tool(
    "list_browser_targets",
    "List Browser Targets",
    (
        "List the page targets of a loopback Chrome DevTools endpoint (127.0.0.0/8, [::1] or localhost "
        "with a port), optionally only those of exact origins. URLs keep query and fragment; userinfo "
        "credentials are removed."
    ),
    args=ListBrowserTargetsArgs,
    result=BrowserTargetList,
    examples=[{"cdp_endpoint": ENDPOINT}, {"cdp_endpoint": ENDPOINT, "allowed_origins": ["https://app.example.test"]}],
    surface="browser-provider",
    effects=PASSIVE,
)

INSPECT_WEB_PAGE = evidence_tool(
    "inspect_web_page",
    "Inspect Web Page",
    (
        "Passively inspect one page target through CDP without evaluating JavaScript, navigating or "
        "clicking; without an origin filter, capture is scoped to the target's current origin. Returns "
        "DOM structure, accessibility, scripts, resources, network and console metadata, workers and a "
        "redacted storage inventory; a page that navigates meanwhile fails with target_changed."
    ),
    args=InspectWebPageArgs,
    result=WebPageInspection,
    examples=[{"cdp_endpoint": ENDPOINT, "target_id": TARGET}],
    surface="browser-provider",
    effects=PASSIVE,
)


DISCOVER_WEBMCP_TOOLS = evidence_tool(
    "discover_webmcp_tools",
    "Discover WebMCP Tools",
    (
        "List every page-registered WebMCP tool (registerTool and declarative <form toolname>) with its "
        "input-schema summary, passively over the experimental CDP WebMCP domain for observation_ms. "
        "Schemas past the depth, node or byte bounds are summarized and digested. Page-declared metadata "
        "is untrusted; REA never registers or invokes the tools. status unavailable when the browser has "
        "no WebMCP domain."
    ),
    args=DiscoverWebMcpArgs,
    result=WebMcpDiscovery,
    examples=[{"cdp_endpoint": ENDPOINT, "target_id": TARGET, "observation_ms": 100}],
    surface="browser-provider",
    effects=PASSIVE,
)

CAPTURE_WEB_SCREENSHOT = evidence_tool(
    "capture_web_screenshot",
    "Capture Web Screenshot",
    (
        "Capture the visible viewport of one page as an inline, content-addressed PNG "
        "(rea://web-screenshot/sha256/...). Never scrolls, navigates or evaluates page JavaScript; a PNG "
        "over maximum_image_bytes is refused (resource_constraint)."
    ),
    args=CaptureWebScreenshotArgs,
    result=WebScreenshot,
    examples=[{"cdp_endpoint": ENDPOINT, "target_id": TARGET}],
    surface="browser-provider",
    effects=PASSIVE,
)

INSPECT_WEB_EVENT_LISTENERS = evidence_tool(
    "inspect_web_event_listeners",
    "Inspect Web Event Listeners",
    (
        "List the event listeners registered directly on the first main-document match of a CSS selector, "
        "each with its script location and the captured source of those scripts. No event is dispatched; "
        "the one object handle is released. A registration does not show that it ran."
    ),
    args=EventListenerArgs,
    result=WebEventListeners,
    examples=[{"cdp_endpoint": ENDPOINT, "target_id": TARGET, "selector": "#run"}],
    surface="browser-provider",
    effects=PASSIVE,
)

OBSERVE_WEB_EXECUTION = evidence_tool(
    "observe_web_execution",
    "Observe Web Execution",
    (
        "Arm precise V8 call-count coverage for observation_ms while the page is driven from outside, "
        "then take one sample: functions with ranges and counts (UTF-16 offsets), requests with initiator "
        "call sites and async parents, and the scripts with captured sources. Coverage resets counters "
        "and disables optimized execution for the window; REA runs no page code. Ends early when the "
        "document changes or the target ends."
    ),
    args=ObserveExecutionArgs,
    result=WebExecution,
    examples=[{"cdp_endpoint": ENDPOINT, "target_id": TARGET, "observation_ms": 1000}],
    surface="browser-provider",
    effects={"mutatesSession", "mutatesTarget", "accessesNetwork", "mayDiscardData"},
)

OBSERVE_WEB_SESSION = evidence_tool(
    "observe_web_session",
    "Observe Web Session",
    (
        "Watch navigation, redirect, lifecycle and failure events for the requested duration while the "
        "user operates the page, scoped to the target's current origin unless origins are given; ends "
        "early when the page leaves that scope or the target ends."
    ),
    args=ObserveSessionArgs,
    result=WebObservationSession,
    examples=[{"cdp_endpoint": ENDPOINT, "target_id": TARGET, "observation_ms": 10_000}],
    surface="browser-provider",
    effects=PASSIVE,
)

TOOLS: tuple[ToolContract, ...] = (
    LIST_BROWSER_TARGETS,
    INSPECT_WEB_PAGE,
    DISCOVER_WEBMCP_TOOLS,
    CAPTURE_WEB_SCREENSHOT,
    INSPECT_WEB_EVENT_LISTENERS,
    OBSERVE_WEB_EXECUTION,
    OBSERVE_WEB_SESSION,
)

# every command takes the endpoint (and the target) by position, and --origin for each allowed origin
_ENDPOINT = Positional(argument="cdp_endpoint", help="loopback DevTools endpoint, e.g. http://127.0.0.1:9222")
_TARGET = Positional(argument="target_id", help="page target id (rea list-browser-targets)")
_ORIGIN = Alias(option="--origin", argument="allowed_origins", repeat=True, help="allowed exact origin (repeatable)")


def _browser(name: str, help_: str, render: Callable[[Any], str], *more: Positional, **sent: Any) -> Command:
    positionals = (_ENDPOINT,) if name == "list-browser-targets" else (_ENDPOINT, _TARGET, *more)
    return Command(
        name=name,
        help=help_,
        positionals=positionals,
        aliases=(_ORIGIN,),
        defaults={"allowed_origins": []},
        sends=sent,
        render=render,
    )


COMMANDS = {
    "list_browser_targets": _browser(
        "list-browser-targets", "list the page targets of a loopback Chromium DevTools endpoint", text.targets
    ),
    "inspect_web_page": _browser(
        "inspect-web-page",
        "passively inspect one page target: DOM, accessibility, scripts, resources, network, storage",
        text.page,
    ),
    "discover_webmcp_tools": _browser(
        "discover-webmcp-tools", "inventory the WebMCP tools a page registered (never invoked)", text.webmcp
    ),
    "capture_web_screenshot": _browser(
        "capture-web-screenshot",
        "capture a page's visible viewport as a content-addressed PNG",
        text.screenshot,
        approved=True,
        screenshot_approved=True,
    ),
    "inspect_web_event_listeners": _browser(
        "inspect-web-event-listeners",
        "list the event listeners on a selector's first match, with their script locations",
        text.listeners,
        Positional(argument="selector", help="CSS selector (its first match in the main document)"),
    ),
    "observe_web_execution": _browser(
        "observe-web-execution",
        "precise V8 coverage and request initiators over a window while the page is driven",
        text.execution,
    ),
    "observe_web_session": _browser(
        "observe-web-session",
        "navigation, redirect, lifecycle and failure timeline over a window",
        text.session,
        approved=True,
    ),
}
TOOLS = declared(TOOLS, COMMANDS)
