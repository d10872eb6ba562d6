"""Wire records of the runtime tools: inspect_web_event_listeners, observe_web_execution and
observe_web_session (listeners, V8 coverage, initiated requests and the session timeline)."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.web.records.browser import (
    SHA256,
    BrowserVersion,
    Completeness,
    Scope,
    endpoint_field,
    origins_field,
    target_field,
)
from rea.wire.schema import Open, field

# ------------------------------------------------ runtime tools (listeners, execution)

ZERO_LINE = "Zero-based line within the script resource, as CDP reports it"
ZERO_COLUMN = "Zero-based UTF-16 column within the line, as CDP reports it"


@attrs.frozen(kw_only=True)
class EventListenerArgs:
    cdp_endpoint: str = endpoint_field()
    allowed_origins: tuple[str, ...] = origins_field()
    target_id: str = target_field()
    selector: str = field("CSS selector; listeners of its first match in the main document", minLength=1)


@attrs.frozen(kw_only=True)
class ObserveExecutionArgs:
    cdp_endpoint: str = endpoint_field()
    allowed_origins: tuple[str, ...] = origins_field()
    target_id: str = target_field()
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
    cdp_endpoint: str = endpoint_field()
    allowed_origins: tuple[str, ...] = origins_field()
    target_id: str = target_field()
    approved: bool = field("Ignored (kept for older clients)", default=True)
    observation_ms: int = field("Window length", default=10_000, minimum=1, maximum=60_000)
    max_timeline_events: int = field("Timeline events retained", default=2_000, minimum=1, maximum=20_000)


TimelineEventType = Literal[
    "navigation_requested",
    "navigation_committed",
    "same_origin_reload",
    "same_document_navigation",
    "redirect",
    "load_failed",
    "lifecycle",
    "target_terminated",
]


@attrs.frozen(kw_only=True)
class TimelineEvent:
    sequence: int = field("", minimum=1)
    type: TimelineEventType = field("")
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
