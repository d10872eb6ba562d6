"""Wire records of the V8 inspector tools, in the REA 6.x shape (domain/javascript/javascriptRuntimeObservation).

list_javascript_runtime_targets and observe_javascript_runtime attach to a loopback
inspector endpoint (`node --inspect`, an Electron main process) and only listen:
Runtime.enable and Debugger.enable replay what is already loaded, pauses are skipped,
nothing is evaluated. Console and exception events inside the window are our extras.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.wire.schema import field

RuntimeKind = Literal["node", "electron-main", "electron-preload", "electron-renderer"]
_ENDPOINT = "Loopback inspector endpoint: http:// or ws:// on 127.0.0.0/8, [::1] or localhost, with a port"


def _endpoint() -> str:
    return field(_ENDPOINT, minLength=1, maxLength=2048)  # type: ignore[no-any-return]


@attrs.frozen(kw_only=True)
class ListRuntimeTargetsArgs:
    inspector_endpoint: str = _endpoint()
    limit: int = field("Targets returned", default=100, minimum=1, maximum=200)
    offset: int = field("Targets skipped", default=0, minimum=0)


@attrs.frozen(kw_only=True)
class ObserveRuntimeArgs:
    inspector_endpoint: str = _endpoint()
    target_id: str = field("A target_id from list_javascript_runtime_targets", minLength=1, maxLength=256)
    runtime_kind: RuntimeKind | None = field(
        "What the caller says the target is (recorded, unverified)", omit_none=True
    )
    observation_ms: int = field("Observation window after attaching", default=100, minimum=0, maximum=10000)
    max_events: int = field("Events retained", default=10000, minimum=1, maximum=50000)
    max_scripts: int = field("Scripts listed", default=2000, minimum=1, maximum=10000)


# --------------------------------------------------------------------- result


@attrs.frozen(kw_only=True)
class RuntimeVersion:
    product: str = field("The endpoint's Browser field (node.js/v20..., Electron/...)", minLength=1)
    protocol_version: str = field("Its Protocol-Version", minLength=1)
    v8_version: str | None = field("V8 version when the endpoint states it")


@attrs.frozen(kw_only=True)
class FileLocation:
    kind: Literal["file"] = field("A local file")
    file_path: str = field("Absolute path, percent-decoded from the file: URL", minLength=1)


@attrs.frozen(kw_only=True)
class UrlLocation:
    kind: Literal["url"] = field("A network or app URL")
    origin: str = field("Its origin", minLength=1)
    sanitized_url: str = field("The URL without credentials, query or fragment", minLength=1)


@attrs.frozen(kw_only=True)
class BuiltinLocation:
    kind: Literal["builtin"] = field("A runtime builtin (node:...)")
    specifier: str = field("Its specifier", minLength=1)


@attrs.frozen(kw_only=True)
class UnresolvedLocation:
    kind: Literal["unresolved"] = field("Discovery metadata only")
    reported_url: str = field("The URL the endpoint reported", minLength=1)
    reason: Literal["unverifiable-file-location"] = field("Discovery cannot verify a file location")


Location = FileLocation | UrlLocation | BuiltinLocation
TargetLocation = FileLocation | UrlLocation | BuiltinLocation | UnresolvedLocation


@attrs.frozen(kw_only=True)
class RuntimeTarget:
    target_id: str = field("The inspector's target id", minLength=1)
    protocol_type: str = field("Its type (node, page, ...)", minLength=1)
    attached: bool = field("Whether the endpoint reports a client attached")
    location: TargetLocation = field("Where the target says it runs")
    title: str = field("Our extra: the endpoint's title")


@attrs.frozen(kw_only=True)
class TargetExclusions:
    unsupported_location: int = field("Targets without a usable URL", minimum=0)
    unconnectable: int = field("Targets offering no debugger websocket", minimum=0)


@attrs.frozen(kw_only=True)
class RuntimeTargetList:
    runtime: RuntimeVersion = field("The endpoint's runtime")
    targets: tuple[RuntimeTarget, ...] = field("Targets, in endpoint order (paged by offset/limit)")
    excluded: TargetExclusions = field("Targets left out, by reason")
    limitations: tuple[str, ...] = field("What this listing does not establish")
    total: int = field("Our extra: eligible targets before paging", minimum=0)


@attrs.frozen(kw_only=True)
class ObservedTarget(RuntimeTarget):
    runtime_kind: Literal["node", "electron-main", "electron-preload", "electron-renderer", "unknown"] = field(
        "The caller's runtime_kind, or unknown"
    )
    runtime_kind_authority: Literal["caller-declared-unverified", "not-declared"] = field("Who said so")


@attrs.frozen(kw_only=True)
class Capture:
    observation_ms: int = field("The window asked for", minimum=0)
    events_observed: int = field("Events received", minimum=0)
    events_retained: int = field("Events kept", minimum=0)
    events_dropped: int = field("Events past max_events", minimum=0)
    metadata_bytes_retained: int = field("Bytes of metadata kept", minimum=0)
    truncated: bool = field("Whether anything was dropped")
    truncation_reasons: tuple[str, ...] = field("Which limit dropped what")
    status: Literal["complete", "partial"] = field("Our extra: partial when the runtime went away in the window")
    runtime_exited: bool = field("Our extra: the connection closed during the window (the runtime exited)")
    elapsed_ms: int = field("Our extra: how long the window actually lasted", minimum=0)


@attrs.frozen(kw_only=True)
class RuntimeScript:
    script_key: str = field(
        "v8_script_ + SHA-256 of target, script id, URL and hash", pattern="^v8_script_[a-f0-9]{64}$"
    )
    location: Location = field("Where the script came from")
    execution_context_key: str | None = field("Its execution context")
    cdp_hash: str | None = field("Producer-reported script hash; null when unavailable.")
    length: int | None = field("Producer-reported script length; null when unavailable.", minimum=0)
    is_module: bool | None = field("Producer-reported module classification; null when unavailable.")
    status: Literal["observed-loaded"] = field("The runtime parsed it")


@attrs.frozen(kw_only=True)
class ScriptExclusions:
    unsupported_location: int = field("Scripts without a file, URL or builtin location (eval, anonymous)", minimum=0)
    invalid_protocol_value: int = field("scriptParsed events missing fields", minimum=0)


@attrs.frozen(kw_only=True)
class RuntimeScripts:
    items: tuple[RuntimeScript, ...] = field("Scripts parsed (already loaded ones are replayed on attach)")
    observed_total: int = field("scriptParsed events seen", minimum=0)
    excluded: ScriptExclusions = field("Scripts left out, by reason")


@attrs.frozen(kw_only=True)
class ExecutionContext:
    context_key: str = field("ctx_ + the context's unique id", minLength=1)
    state: Literal["created", "destroyed", "cleared"] = field("Its last state in the window")
    name: str | None = field("Its name")
    origin: str | None = field("Its origin")


@attrs.frozen(kw_only=True)
class ConsoleEvent:
    """Our extra: one console API call in the window."""

    level: str = field("log, warn, error, ...")
    text: str = field("Its arguments as the runtime describes them (bounded)")
    timestamp: float | None = field("Runtime timestamp (ms since epoch)")
    url: str | None = field("Where it was called from, when the stack says")
    line: int | None = field("0-based line", minimum=0)


@attrs.frozen(kw_only=True)
class ExceptionEvent:
    """Our extra: one exception the runtime reported in the window."""

    text: str = field("The exception text and description (bounded)")
    url: str | None = field("Where it was thrown")
    line: int | None = field("0-based line", minimum=0)
    column: int | None = field("0-based column", minimum=0)
    timestamp: float | None = field("Runtime timestamp")


@attrs.frozen(kw_only=True)
class RuntimeObservation:
    runtime: RuntimeVersion = field("The endpoint's runtime")
    target: ObservedTarget = field("The observed target")
    capture: Capture = field("The window and what it kept")
    scripts: RuntimeScripts = field("Scripts the runtime parsed")
    execution_contexts: tuple[ExecutionContext, ...] = field("Execution contexts seen")
    directly_observed: tuple[str, ...] = field("What these facts are direct observations of")
    unavailable_without_instrumentation: tuple[str, ...] = field("What passive attach cannot see")
    unknowns: tuple[str, ...] = field("What stays unknown")
    limitations: tuple[str, ...] = field("Limits of the window")
    modules_loaded: tuple[str, ...] = field("Our extra: file paths of the non-builtin scripts, sorted")
    console: tuple[ConsoleEvent, ...] = field(
        "Our extra: console calls (those V8 still buffers are replayed on attach, then the window's)"
    )
    exceptions: tuple[ExceptionEvent, ...] = field("Our extra: exceptions reported in the window")
