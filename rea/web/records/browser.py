"""Wire records of the live-browser tools (REA 6.x domain/browserObservation*, browserCompleteness).

Every tool here reads a page through a caller's loopback CDP endpoint (rea.loopback) and
never navigates, clicks, evaluates page script or closes it. Names, enums and fields are
the reference's; our extras are optional limits on the arguments, always reported in
`completeness` and `limitations` when they bite.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from rea.wire.schema import Open, field

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


def _endpoint() -> Any:
    return field(
        "Loopback DevTools endpoint of a browser you started (http://127.0.0.1:9222)",
        minLength=1,
        maxLength=2048,
    )


def _origins() -> Any:
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


def _target() -> Any:
    return field("A page target_id from list_browser_targets", minLength=1, maxLength=256)


@attrs.frozen(kw_only=True)
class ListBrowserTargetsArgs:
    cdp_endpoint: str = _endpoint()
    allowed_origins: tuple[str, ...] = _origins()


@attrs.frozen(kw_only=True)
class InspectWebPageArgs:
    cdp_endpoint: str = _endpoint()
    allowed_origins: tuple[str, ...] = _origins()
    target_id: str = _target()
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


@attrs.frozen(kw_only=True)
class Frame:
    frame_id: str = field("")
    parent_frame_id: str | None = field("")
    url: str = field("")
    origin: str | None = field("")


@attrs.frozen(kw_only=True)
class DomNode:
    index: int = field("Pre-order index", minimum=0)
    parent_index: int = field("Parent's index (-1 for the document)", minimum=-1)
    node_type: int = field("DOM nodeType", minimum=0)
    node_name: str = field("nodeName")
    node_value_length: int = field("Length of nodeValue (the text itself is not kept)", minimum=0)
    attribute_names: tuple[str, ...] = field("Attribute names (values are not kept)")


@attrs.frozen(kw_only=True)
class Dom:
    total_nodes: int = field("Nodes in the document (shadow roots and frames pierced)", minimum=0)
    nodes: tuple[DomNode, ...] = field("Retained nodes, pre-order")


@attrs.frozen(kw_only=True)
class AxState:
    name: str = field("Property name")
    value: bool | float | str = field("Property value")


@attrs.frozen(kw_only=True)
class AxNode:
    node_id: str = field("")
    parent_id: str | None = field("")
    role: str | None = field("")
    name: str | None = field("Accessible name (null unless include_accessibility_text)")
    description: str | None = field("Accessible description (null unless include_accessibility_text)")
    ignored: bool = field("")
    states: tuple[AxState, ...] = field("Scalar properties (focusable, level, checked, ...)")


@attrs.frozen(kw_only=True)
class AxTextCapture:
    status: Literal["not_approved", "included", "unavailable"] = field("")
    retained_bytes: int = field("UTF-8 bytes of retained text", minimum=0)
    excluded_fields: int = field("Name/description fields withheld", minimum=0)


@attrs.frozen(kw_only=True)
class Accessibility:
    total_nodes: int = field("", minimum=0)
    text_capture: AxTextCapture = field("")
    nodes: tuple[AxNode, ...] = field("")


@attrs.frozen(kw_only=True)
class WebTextArtifact:
    uri: str = field("rea://web-content/sha256/<sha256>", pattern="^rea://web-content/sha256/[a-f0-9]{64}$")
    sha256: str = field("SHA-256 of the UTF-8 text", pattern=SHA256)
    bytes: int = field("UTF-8 length", minimum=0)
    media_type: str = field("", minLength=1, maxLength=256)
    charset: Literal["utf-8"] = field("")
    text: str = field("The text")


@attrs.frozen(kw_only=True)
class SourceWithheld:
    included: Literal[False] = field("")
    reason: str = field("not_approved, budget, unavailable")


@attrs.frozen(kw_only=True)
class SourceIncluded:
    included: Literal[True] = field("")
    artifact: WebTextArtifact = field("")


@attrs.frozen(kw_only=True)
class ReconciledExact:
    status: Literal["exact"] = field("")
    resource_key: str = field("")


@attrs.frozen(kw_only=True)
class ReconciledAmbiguous:
    status: Literal["ambiguous"] = field("")
    candidate_resource_keys: tuple[str, ...] = field("")


@attrs.frozen(kw_only=True)
class ReconciledNone:
    status: Literal["unmatched"] = field("")
    reason: Literal["no_exact_sanitized_url"] = field("")


@attrs.frozen(kw_only=True)
class Script:
    script_key: str = field("scr_<sha256 of url and hash>[_n]", pattern="^scr_[a-f0-9]{64}(?:_[0-9]+)?$")
    frame_id: str | None = field("")
    url: str = field("")
    origin: str | None = field("")
    cdp_hash: str = field("The browser's script hash")
    length: int = field("Source length", minimum=0)
    is_module: bool = field("")
    language: str | None = field("JavaScript or WebAssembly")
    source_map_url: str | None = field("sourceMappingURL")
    resource_reconciliation: ReconciledExact | ReconciledAmbiguous | ReconciledNone = field("")
    source: SourceWithheld | SourceIncluded = field("")


@attrs.frozen(kw_only=True)
class Scripts:
    total: int = field("Scripts the page parsed (before the policy)", minimum=0)
    items: tuple[Script, ...] = field("")


@attrs.frozen(kw_only=True)
class Resource:
    resource_key: str = field("res_<sha256 of frame and url>", pattern="^res_[a-f0-9]{64}$")
    url: str = field("")
    origin: str | None = field("")
    type: str = field("Document, Script, Stylesheet, Image, ...")
    mime_type: str = field("")
    content_size: float | None = field("", minimum=0)


@attrs.frozen(kw_only=True)
class JsonProperty:
    path: str = field("JSON pointer with * for array items")
    types: tuple[JsonType, ...] = field("", minItems=1)
    observations: int = field("", minimum=1)


@attrs.frozen(kw_only=True)
class JsonShape:
    root_type: JsonType = field("")
    node_count: int = field("", minimum=1)
    max_depth_observed: int = field("", minimum=0)
    properties: tuple[JsonProperty, ...] = field("")


@attrs.frozen(kw_only=True)
class Initiator:
    type: str = field("parser, script, preload, other")
    url: str | None = field("")
    line: int | None = field("", minimum=0)
    column: int | None = field("", minimum=0)


@attrs.frozen(kw_only=True)
class BodyShapes:
    status: Literal["not_approved", "included", "partial", "unavailable"] = field("")
    request: JsonShape | None = field("")
    response: JsonShape | None = field("")


@attrs.frozen(kw_only=True)
class NetworkRequest:
    request_id: str = field("")
    url: str = field("")
    origin: str | None = field("")
    method: str = field("")
    resource_type: str | None = field("")
    status: float | None = field("")
    mime_type: str | None = field("")
    encoded_data_length: float | None = field("", minimum=0)
    initiator: Initiator = field("")
    body_shapes: BodyShapes = field("")


@attrs.frozen(kw_only=True)
class PayloadShape:
    format: Literal["json", "text", "binary"] = field("")
    json_shape: JsonShape | None = field("")


@attrs.frozen(kw_only=True)
class WebSocketEvent:
    request_id: str = field("")
    direction: Literal["sent", "received"] = field("")
    opcode: int = field("", minimum=0)
    payload_bytes: int = field("", minimum=0)
    payload_shape: PayloadShape | None = field("")


@attrs.frozen(kw_only=True)
class Network:
    requests: tuple[NetworkRequest, ...] = field("Requests seen within the attach window")
    websocket_events: tuple[WebSocketEvent, ...] = field("")
    coverage_started_at: str = field("")
    prior_activity_available: Literal[False] = field("Nothing before the attach moment is known")


@attrs.frozen(kw_only=True)
class ConsoleText:
    argument_index: int = field("", minimum=0)
    type: str = field("")
    text: str = field("")


@attrs.frozen(kw_only=True)
class ConsoleTextCapture:
    status: Literal["not_approved", "included"] = field("")
    values: tuple[ConsoleText, ...] = field("")
    retained_bytes: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class ConsoleEvent:
    type: str = field("log, warning, error, ...")
    timestamp: float = field("Milliseconds since the epoch")
    argument_types: tuple[str, ...] = field("")
    url: str | None = field("")
    line: int | None = field("", minimum=0)
    column: int | None = field("", minimum=0)
    text_capture: ConsoleTextCapture = field("")


@attrs.frozen(kw_only=True)
class Console:
    events: tuple[ConsoleEvent, ...] = field("")
    coverage_started_at: str = field("")
    prior_activity_available: Literal[False] = field("")


@attrs.frozen(kw_only=True)
class Worker:
    target_id: str = field("")
    type: str = field("worker, service_worker, shared_worker")
    url: str = field("")
    origin: str | None = field("")
    attached: bool = field("")
    opener_target_id: str | None = field("")
    parent_frame_id: str | None = field("")


@attrs.frozen(kw_only=True)
class CspSource:
    kind: Literal["keyword", "scheme", "approved_origin", "external_origin", "other"] = field("")
    value: str | None = field("")


@attrs.frozen(kw_only=True)
class CspDirective:
    name: str = field("")
    sources: tuple[CspSource, ...] = field("")


@attrs.frozen(kw_only=True)
class Csp:
    directives: tuple[CspDirective, ...] = field("")
    nonce_count: int = field("", minimum=0)
    hash_count: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class LinkMetadata:
    href: str | None = field("")
    destination_scope: Scope = field("")
    rel: tuple[str, ...] = field("")
    # `as` is a Python keyword: the attribute is as_ and its wire key `as`
    as_: str | None = field("", key="as")
    type: str | None = field("")
    crossorigin: str | None = field("")


@attrs.frozen(kw_only=True)
class Policies:
    coop: str | None = field("")
    coep: str | None = field("")
    corp: str | None = field("")
    referrer_policy: str | None = field("")
    x_content_type_options: str | None = field("")
    permissions_policy_features: tuple[str, ...] = field("")


@attrs.frozen(kw_only=True)
class ResponseMetadata:
    request_id: str = field("")
    url: str = field("")
    mime_type: str | None = field("")
    content_length: int | None = field("", minimum=0)
    content_encoding: str | None = field("")
    csp: Csp = field("")
    links: tuple[LinkMetadata, ...] = field("")
    policies: Policies = field("")


@attrs.frozen(kw_only=True)
class DomUrl:
    node_index: int = field("", minimum=0)
    attribute: Literal["href", "src", "action", "formaction", "poster"] = field("")
    url: str | None = field("")
    destination_scope: Scope = field("")


@attrs.frozen(kw_only=True)
class AgentHint:
    mechanism: Literal["link_rel", "dom_link_rel", "well_known_resource", "response_header"] = field("")
    declaration: str = field("")
    url: str | None = field("")
    trust: Literal["page-declared-untrusted"] = field("")


@attrs.frozen(kw_only=True)
class SafeMetadata:
    responses: tuple[ResponseMetadata, ...] = field("Allowlisted response headers seen in the window")
    dom_urls: tuple[DomUrl, ...] = field("URL attributes of DOM nodes")
    agent_hints: tuple[AgentHint, ...] = field("Page-declared agent/MCP hints")
    excluded_dom_urls: int = field("", minimum=0)
    headers_allowlisted: Literal[True] = field("")


@attrs.frozen(kw_only=True)
class StorageFingerprint:
    scope: Literal[
        "cookie", "local_storage", "session_storage", "indexed_db_schema", "indexed_db_record", "cache_entry"
    ] = field("")
    identity_sha256: str = field("SHA-256 of scope and key", pattern=SHA256)
    value_sha256: str | None = field("SHA-256 of the value", pattern=SHA256)
    complete: bool = field("")


@attrs.frozen(kw_only=True)
class Storage:
    origin: str = field("")
    usage_bytes: float | None = field("", minimum=0)
    quota_bytes: float | None = field("", minimum=0)
    local_storage_keys: tuple[str, ...] = field("")
    session_storage_keys: tuple[str, ...] = field("")
    indexed_db_names: tuple[str, ...] = field("")
    cache_names: tuple[str, ...] = field("")
    content_fingerprints: tuple[StorageFingerprint, ...] = field("")
    fingerprint_algorithm: Literal["sha256"] = field("")
    fingerprints_complete: bool = field("")
    values_redacted: Literal[True] = field("Storage values are never returned")


@attrs.frozen(kw_only=True)
class WebPageInspection:
    browser: BrowserVersion = field("")
    target: BrowserTarget = field("")
    capture_window: CaptureWindow = field("")
    completeness: Completeness = field("")
    frames: tuple[Frame, ...] = field("")
    dom: Dom = field("")
    accessibility: Accessibility = field("")
    scripts: Scripts = field("")
    resources: tuple[Resource, ...] = field("")
    network: Network = field("")
    console: Console = field("")
    workers: tuple[Worker, ...] = field("")
    metadata: SafeMetadata = field("")
    storage: Storage = field("")
    limitations: tuple[str, ...] = field("")


# ------------------------------------------------------- discover_webmcp_tools


@attrs.frozen(kw_only=True)
class DiscoverWebMcpArgs:
    cdp_endpoint: str = _endpoint()
    allowed_origins: tuple[str, ...] = _origins()
    target_id: str = _target()
    observation_ms: int = field(
        "How long toolsAdded/toolsRemoved are followed after WebMCP.enable", default=100, minimum=0, maximum=600_000
    )
    max_tools: int = field("Tools retained", default=1_000, minimum=1, maximum=100_000)
    max_schema_depth: int = field(
        "Deepest input schema kept inline (deeper ones are summarized, never inlined)",
        default=20,
        minimum=1,
        maximum=1_000,
    )
    max_schema_nodes: int = field("JSON nodes of one input schema kept inline", default=5_000, minimum=1)
    max_schema_bytes: int = field("Canonical bytes of one input schema kept inline", default=262_144, minimum=1)


@attrs.frozen(kw_only=True)
class PageRef:
    target_id: str = field("")
    url: str = field("")
    origin: str = field("")


@attrs.frozen(kw_only=True)
class WebMcpAnnotations:
    read_only: bool | None = field("readOnlyHint as the page declared it")
    untrusted_content: bool | None = field("untrustedContentHint as declared")
    autosubmit: bool | None = field("Declarative form auto-submit (null when not declared)")


@attrs.frozen(kw_only=True)
class RegistrationSource:
    url: str = field("Script that called registerTool")
    line: int | None = field("Zero-based line", minimum=0)
    column: int | None = field("Zero-based column", minimum=0)


@attrs.frozen(kw_only=True)
class SchemaSummary:
    """Our extra: the structural summary of a declared input schema, bounded by depth and node count."""

    root_type: JsonType = field("")
    max_depth: int = field("Deepest nesting walked (stops at the bound + 1)", minimum=0)
    node_count: int = field("JSON nodes walked (stops at the bound + 1)", minimum=0)
    canonical_bytes: int = field("Bytes of the canonical JSON text", minimum=0)
    top_level_properties: tuple[str, ...] = field("Names under `properties` at the root")
    required: tuple[str, ...] = field("The root's `required` names")
    within_bounds: bool = field("Whether input_schema is carried inline")
    exceeded: tuple[Literal["depth", "nodes", "bytes"], ...] = field("Bounds it exceeded")


@attrs.frozen(kw_only=True)
class WebMcpTool:
    tool_key: str = field("webmcp_<sha256 of frame, name>", pattern="^webmcp_[a-f0-9]{64}$")
    name: str = field("Page-declared name")
    description: str = field("Page-declared description")
    frame_id: str = field("")
    frame_url: str = field("")
    owner_origin: str = field("")
    declaration_kind: Literal["declarative", "imperative"] = field("A <form toolname> or registerTool()")
    input_schema: Open = field("The declared JSON Schema (null past the bounds; see input_schema_summary)")
    input_schema_sha256: str | None = field("SHA-256 of its canonical JSON", pattern=SHA256)
    input_schema_summary: SchemaSummary | None = field("Our extra: bounded structural summary")
    annotations: WebMcpAnnotations = field("")
    registration_source: RegistrationSource | None = field("")
    trust: Literal["page-declared-untrusted"] = field("Declared by the page; never invoked by REA")


@attrs.frozen(kw_only=True)
class WebMcpTools:
    total: int = field("Tools registered at the end of the window", minimum=0)
    items: tuple[WebMcpTool, ...] = field("")


@attrs.frozen(kw_only=True)
class WebMcpDiscovery:
    browser: BrowserVersion = field("")
    target: PageRef = field("")
    status: Literal["available", "unavailable"] = field("unavailable: the browser has no WebMCP domain")
    tools: WebMcpTools = field("")
    completeness: Completeness = field("")
    limitations: tuple[str, ...] = field("")


# ------------------------------------------------------ capture_web_screenshot

MAX_SCREENSHOT_BYTES = 8 << 20


@attrs.frozen(kw_only=True)
class CaptureWebScreenshotArgs:
    cdp_endpoint: str = _endpoint()
    allowed_origins: tuple[str, ...] = _origins()
    target_id: str = _target()
    approved: bool = field("Ignored (kept for older clients)", default=True)
    screenshot_approved: bool = field("Ignored (kept for older clients)", default=True)
    maximum_image_bytes: int = field("Largest PNG retained", default=4 << 20, minimum=1, maximum=MAX_SCREENSHOT_BYTES)


@attrs.frozen(kw_only=True)
class ScreenshotArtifact:
    uri: str = field("rea://web-screenshot/sha256/<sha256>", pattern="^rea://web-screenshot/sha256/[a-f0-9]{64}$")
    sha256: str = field("SHA-256 of the PNG bytes", pattern=SHA256)
    bytes: int = field("", minimum=1, maximum=MAX_SCREENSHOT_BYTES)
    media_type: Literal["image/png"] = field("")
    data_base64: str = field("The PNG, canonical base64")


@attrs.frozen(kw_only=True)
class Viewport:
    width: int = field("", minimum=1)
    height: int = field("", minimum=1)


@attrs.frozen(kw_only=True)
class WebScreenshot:
    schema_version: Literal[1] = field("")
    browser: BrowserVersion = field("")
    target: PageRef = field("")
    captured_at: str = field("")
    viewport: Viewport = field("From the PNG's own IHDR")
    artifact: ScreenshotArtifact = field("")
    completeness: Completeness = field("")
    limitations: tuple[str, ...] = field("")


# ------------------------------------------------ runtime tools (listeners, execution)

ZERO_LINE = "Zero-based line within the script resource, as CDP reports it"
ZERO_COLUMN = "Zero-based UTF-16 column within the line, as CDP reports it"


@attrs.frozen(kw_only=True)
class EventListenerArgs:
    cdp_endpoint: str = _endpoint()
    allowed_origins: tuple[str, ...] = _origins()
    target_id: str = _target()
    selector: str = field("CSS selector; listeners of its first match in the main document", minLength=1)


@attrs.frozen(kw_only=True)
class ObserveExecutionArgs:
    cdp_endpoint: str = _endpoint()
    allowed_origins: tuple[str, ...] = _origins()
    target_id: str = _target()
    observation_ms: int = field(
        "Window of precise V8 coverage while the page is driven from outside",
        default=10_000,
        minimum=1,
        maximum=2_147_483_647,
    )


@attrs.frozen(kw_only=True)
class RuntimeTarget:
    target_id: str = field("", minLength=1)
    origin: str = field("", minLength=1)
    initial_url: str = field("")
    frame_id: str = field("Main frame", minLength=1)
    loader_id: str | None = field("Main frame's loader")


@attrs.frozen(kw_only=True)
class SourceCaptured:
    state: Literal["captured"] = field("")
    text: str = field("")
    sha256: str = field("", pattern=SHA256)
    utf8_bytes: int = field("", minimum=0)
    utf16_units: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class SourceMissing:
    state: Literal["unavailable", "excluded"] = field("")
    reason: str = field("", minLength=1)


@attrs.frozen(kw_only=True)
class ResourceStart:
    line_number: int = field(ZERO_LINE, minimum=0)
    column_number: int = field(ZERO_COLUMN, minimum=0)


@attrs.frozen(kw_only=True)
class RuntimeSource:
    script_id: str = field("The session's script id (sources are bound by it, never by URL)", minLength=1)
    url: str = field("")
    execution_context_id: int | None = field("")
    reported_execution_context: Open = field("The executionContextCreated description, when seen (object or null)")
    reported_script_context_aux_data: Open = field("executionContextAuxData as reported (object or null)")
    frame_id: str | None = field("")
    producer_hash: str | None = field("The browser's script hash")
    source_map_url: str | None = field("")
    has_source_url: bool | None = field("")
    language: str | None = field("")
    resource_start: ResourceStart | None = field("Where the script starts within its resource")
    source: SourceCaptured | SourceMissing = field("")


@attrs.frozen(kw_only=True)
class RuntimeLocation:
    script_id: str = field("")
    url: str | None = field("")
    line_number: int = field(ZERO_LINE, minimum=0)
    column_number: int | None = field(ZERO_COLUMN, minimum=0)
    function_name: str | None = field("")
    source_association: Literal["script_id", "unknown"] = field("Whether `sources` holds that script id")


@attrs.frozen(kw_only=True)
class SelectedNode:
    selector: str = field("")
    match: Literal["found", "not_found"] = field("")
    backend_node_id: int | None = field("", minimum=1)


@attrs.frozen(kw_only=True)
class Listener:
    type: str = field("Event type")
    use_capture: bool = field("")
    passive: bool = field("")
    once: bool = field("")
    location: RuntimeLocation = field("Where the handler is defined")
    execution: Literal["unknown"] = field("A declaration does not establish that it ran")


@attrs.frozen(kw_only=True)
class WebEventListeners:
    browser: BrowserVersion = field("")
    target: RuntimeTarget = field("")
    inspected_at: str = field("")
    selected_node: SelectedNode = field("")
    listeners: tuple[Listener, ...] = field("")
    sources: tuple[RuntimeSource, ...] = field("")
    cleanup: Literal["confirmed"] = field("The remote object handles REA made were released")
    limitations: tuple[str, ...] = field("")


@attrs.frozen(kw_only=True)
class ExecutionWindow:
    armed_at: str = field("")
    ended_at: str = field("")
    requested_ms: int = field("", minimum=1)
    end_reason: Literal["window_elapsed", "document_changed", "target_terminated"] = field("")
    producer_started_seconds: float = field("Profiler timestamp at start", minimum=0)
    producer_sampled_seconds: float | None = field("Profiler timestamp of the sample", minimum=0)


@attrs.frozen(kw_only=True)
class CoverageRange:
    start_offset: int = field("", minimum=0)
    end_offset: int = field("", minimum=0)
    count: int = field("", minimum=0)
    source_bounds: Literal["verified", "unknown"] = field("Whether the range lies inside the captured source")


@attrs.frozen(kw_only=True)
class CoverageFunction:
    name: str = field("")
    is_block_coverage: bool = field("")
    ranges: tuple[CoverageRange, ...] = field("")


@attrs.frozen(kw_only=True)
class CoverageScript:
    script_id: str = field("", minLength=1)
    reported_url: str = field("")
    functions: tuple[CoverageFunction, ...] = field("")


@attrs.frozen(kw_only=True)
class Coverage:
    state: Literal["captured", "unavailable"] = field("")
    reason: str | None = field("")
    offset_units: Literal["utf16-code-units"] = field("")
    end_offset: Literal["exclusive"] = field("")
    scripts: tuple[CoverageScript, ...] = field("")
    excluded_scripts: int = field("Scripts outside the origin scope", minimum=0)


@attrs.frozen(kw_only=True)
class AsyncParent:
    id: str = field("")
    debugger_id: str | None = field("")


@attrs.frozen(kw_only=True)
class InitiatedRequest:
    request_id: str = field("", minLength=1)
    url: str = field("")
    method: str = field("")
    timestamp_seconds: float = field("", minimum=0)
    initiator_type: str = field("")
    reported_initiator: Open = field("The initiator object as CDP reported it")
    callsites: tuple[RuntimeLocation, ...] = field("")
    async_parent_ids: tuple[AsyncParent, ...] = field("")
    causal_attribution: Literal["unknown"] = field("")


@attrs.frozen(kw_only=True)
class ScriptInventory:
    main_document_scripts: int = field("", minimum=0)
    not_reported_script_ids: tuple[str, ...] = field("Parsed scripts the coverage did not name")
    coverage_absence: Literal["unknown"] = field("Absence from coverage does not prove a script did not run")


@attrs.frozen(kw_only=True)
class Instrumentation:
    resets_execution_counters: Literal[True] = field("")
    disables_optimized_execution: Literal[True] = field("")
    takes_one_resetting_sample: bool = field("")
    executes_selected_code: Literal[False] = field("")
    cleanup: Literal["confirmed"] = field("")
    page_ownership: Literal["external"] = field("")


@attrs.frozen(kw_only=True)
class WebExecution:
    browser: BrowserVersion = field("")
    target: RuntimeTarget = field("")
    window: ExecutionWindow = field("")
    coverage: Coverage = field("")
    requests: tuple[InitiatedRequest, ...] = field("")
    excluded_requests: int = field("", minimum=0)
    script_inventory: ScriptInventory = field("")
    sources: tuple[RuntimeSource, ...] = field("")
    instrumentation: Instrumentation = field("")
    limitations: tuple[str, ...] = field("")


# ------------------------------------------------------ observe_web_session


@attrs.frozen(kw_only=True)
class ObserveSessionArgs:
    cdp_endpoint: str = _endpoint()
    allowed_origins: tuple[str, ...] = _origins()
    target_id: str = _target()
    approved: bool = field("Ignored (kept for older clients)", default=True)
    observation_ms: int = field("Window length", default=10_000, minimum=1, maximum=60_000)
    max_timeline_events: int = field("Timeline events retained", default=2_000, minimum=1, maximum=20_000)


@attrs.frozen(kw_only=True)
class TimelineEvent:
    sequence: int = field("", minimum=1)
    type: Literal[
        "navigation_requested",
        "navigation_committed",
        "same_origin_reload",
        "same_document_navigation",
        "redirect",
        "load_failed",
        "lifecycle",
        "target_terminated",
    ] = field("")
    timestamp: float = field("Milliseconds since the window was armed", minimum=0)
    frame_id: str | None = field("")
    loader_id: str | None = field("")
    request_id: str | None = field("")
    url: str | None = field("Null when outside the origin policy")
    destination_scope: Scope | None = field("")
    detail: str | None = field("Lifecycle name, failure text, navigation reason")


@attrs.frozen(kw_only=True)
class SessionTarget:
    target_id: str = field("")
    initial_url: str = field("")
    final_url: str | None = field("")


@attrs.frozen(kw_only=True)
class SessionWindow:
    armed_at: str = field("")
    ended_at: str = field("")
    requested_ms: int = field("", minimum=1)
    end_reason: Literal["window_elapsed", "target_left_scope", "target_terminated"] = field("")


@attrs.frozen(kw_only=True)
class WebObservationSession:
    schema_version: Literal[1] = field("")
    browser: BrowserVersion = field("")
    target: SessionTarget = field("")
    window: SessionWindow = field("")
    timeline: tuple[TimelineEvent, ...] = field("")
    completeness: Completeness = field("")
    limitations: tuple[str, ...] = field("")
