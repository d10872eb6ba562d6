"""Wire records of the live-browser tools (REA 6.x domain/browserObservation*, browserCompleteness).

Every tool here reads a page through a caller's loopback CDP endpoint (rea.loopback) and
never navigates, clicks, evaluates page script or closes it. Names, enums and fields are
the reference's; our extras are optional limits on the arguments, always reported in
`completeness` and `limitations` when they bite.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from rea.wire.schema import field

SHA256 = "^[a-f0-9]{64}$"
MAX_ORIGINS = 32

Section = Literal[
    "frames",
    "dom",
    "accessibility",
    "scripts",
    "script_sources",
    "resources",
    "network_requests",
    "network_initiators",
    "console_events",
    "console_text",
    "websocket_connections",
    "websocket_frames",
    "websocket_shapes",
    "json_body_shapes",
    "workers",
    "storage",
    "storage_keys",
    "metadata",
    "webmcp_tools",
    "screenshot",
    "source_maps",
    "timeline",
]
ExclusionReason = Literal[
    "disallowed_origin",
    "unsupported_url",
    "unattributed_origin",
    "not_approved",
    "out_of_target_scope",
    "provider_unavailable",
    "invalid_protocol_value",
    "resource_budget_exhausted",
]
Condition = Literal["complete_within_window", "policy_filtered", "attach_limited", "truncated"]
JsonType = Literal["object", "array", "string", "number", "boolean", "null"]
Scope = Literal["approved", "outside_policy", "unsupported"]


# ------------------------------------------------------------------ arguments


def endpoint_field() -> Any:
    return field(
        "Loopback DevTools endpoint of a browser you started (http://127.0.0.1:9222)",
        minLength=1,
        maxLength=2048,
    )


def origins_field() -> Any:
    return field(
        (
            "Exact http(s) origins whose targets, scripts and requests are kept; empty: all, each "
            "page scoped to its own origin"
        ),
        default=(),
        schema={
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 2048},
            "maxItems": MAX_ORIGINS,
        },
    )


def target_field() -> Any:
    return field("A page target_id from list_browser_targets", minLength=1, maxLength=256)


@attrs.frozen(kw_only=True)
class ListBrowserTargetsArgs:
    cdp_endpoint: str = endpoint_field()
    allowed_origins: tuple[str, ...] = origins_field()


@attrs.frozen(kw_only=True)
class InspectWebPageArgs:
    cdp_endpoint: str = endpoint_field()
    allowed_origins: tuple[str, ...] = origins_field()
    target_id: str = target_field()
    observation_ms: int = field(
        "How long network and console events are collected after attaching", default=500, minimum=0, maximum=600_000
    )
    include_accessibility_text: bool = field("Keep accessibility names and descriptions", default=False)
    include_console_text: bool = field("Keep console argument text", default=False)
    include_json_body_shapes: bool = field("Keep value-free shapes of JSON request/response bodies", default=False)
    include_websocket_shapes: bool = field("Keep value-free shapes of WebSocket payloads", default=False)
    include_storage_keys: bool = field("Keep localStorage/sessionStorage key names (values never)", default=False)
    include_storage_fingerprints: bool = field(
        "Keep SHA-256 fingerprints of storage entries (needs include_storage_keys)", default=False
    )
    include_script_sources: bool = field("Keep script source text as content-addressed artifacts", default=False)
    max_dom_nodes: int = field("DOM nodes retained", default=50_000, minimum=1, maximum=1_000_000)
    max_events: int = field(
        "Network, console and WebSocket events retained each", default=5_000, minimum=1, maximum=100_000
    )
    max_script_source_bytes: int = field(
        "Total script source bytes retained", default=16 << 20, minimum=0, maximum=256 << 20
    )


# ------------------------------------------------------------ shared results


@attrs.frozen(kw_only=True)
class BrowserVersion:
    product: str = field("Browser product and version (/json/version Browser)")
    protocol_version: str = field("DevTools protocol version")
    revision: str = field("Browser revision")
    user_agent: str = field("User agent")
    js_version: str = field("V8 version")


@attrs.frozen(kw_only=True)
class BrowserTarget:
    target_id: str = field("DevTools target id")
    type: str = field("page, iframe, service_worker, ...")
    title: str = field("Title")
    url: str = field("URL (userinfo credentials removed; query and fragment kept)")
    origin: str = field("Origin of the URL ('null' for opaque ones)")
    attached: bool = field("Whether another DevTools client is attached")


@attrs.frozen(kw_only=True)
class Exclusion:
    section: Section = field("Section the observations belonged to")
    reason: ExclusionReason = field("Why they were not retained")
    count: int | None = field("How many (null when not countable)", minimum=0)


@attrs.frozen(kw_only=True)
class DroppedEvents:
    scripts: int = field("", minimum=0)
    network_requests: int = field("", minimum=0)
    console_events: int = field("", minimum=0)
    websocket_connections: int = field("", minimum=0)
    websocket_frames: int = field("", minimum=0)
    webmcp_tools: int = field("", minimum=0)
    timeline_events: int = field("", minimum=0)
    total: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class Completeness:
    status: Condition = field("The strongest condition (truncated > policy_filtered > attach_limited)")
    conditions: tuple[Condition, ...] = field("Every condition that holds", minItems=1, maxItems=3)
    policy_filtered_sections: tuple[Section, ...] = field("Sections the origin policy or an approval narrowed")
    attach_limited_sections: tuple[Section, ...] = field("Sections only seen from the attach moment on")
    truncated_sections: tuple[Section, ...] = field("Sections cut by a limit")
    unavailable_sections: tuple[Section, ...] = field("Sections the browser did not answer")
    excluded: tuple[Exclusion, ...] = field("What was left out, and why")
    dropped_events: DroppedEvents = field("Events dropped by limits")


# ------------------------------------------------------ list_browser_targets


@attrs.frozen(kw_only=True)
class TargetExclusions:
    disallowed_origin: int = field("Pages outside allowed_origins", minimum=0)
    unsupported_url: int = field("Pages with a non-http(s) URL while a filter applies", minimum=0)
    non_page: int = field("Workers, extensions, browser targets", minimum=0)


@attrs.frozen(kw_only=True)
class BrowserTargetList:
    browser: BrowserVersion = field("The endpoint's browser")
    targets: tuple[BrowserTarget, ...] = field("Page targets the policy retains")
    excluded: TargetExclusions = field("Counts of targets left out")
    limitations: tuple[str, ...] = field("What this listing cannot say")


# ------------------------------------------------------------ inspect_web_page


@attrs.frozen(kw_only=True)
class CaptureWindow:
    started_at: str = field("Attach time (ISO 8601 UTC)")
    ended_at: str = field("End of observation")
    observation_ms: int = field("Requested window", minimum=0)
