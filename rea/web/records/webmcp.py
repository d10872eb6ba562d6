"""Wire records of discover_webmcp_tools: the tools a page registers with WebMCP, summarized schemas."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.web.records.browser import (
    SHA256,
    BrowserVersion,
    Completeness,
    JsonType,
    endpoint_field,
    origins_field,
    target_field,
)
from rea.wire.schema import Open, field

# ------------------------------------------------------- discover_webmcp_tools


@attrs.frozen(kw_only=True)
class DiscoverWebMcpArgs:
    cdp_endpoint: str = endpoint_field()
    allowed_origins: tuple[str, ...] = origins_field()
    target_id: str = target_field()
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
