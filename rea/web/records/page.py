"""Wire records of inspect_web_page's result (REA 6.x domain/browserObservation): frames, DOM,
accessibility, scripts, network, console, workers, metadata and storage of one page."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.web.records.browser import SHA256, BrowserTarget, BrowserVersion, CaptureWindow, Completeness, JsonType, Scope
from rea.wire.schema import field


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


UrlAttribute = Literal["href", "src", "action", "formaction", "poster"]


@attrs.frozen(kw_only=True)
class DomUrl:
    node_index: int = field("", minimum=0)
    attribute: UrlAttribute = field("")
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


FingerprintScope = Literal[
    "cookie", "local_storage", "session_storage", "indexed_db_schema", "indexed_db_record", "cache_entry"
]


@attrs.frozen(kw_only=True)
class StorageFingerprint:
    scope: FingerprintScope = field("")
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
