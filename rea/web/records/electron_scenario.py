"""Wire records of capture_electron_scenario (REA 6.x domain/javascript/electronActiveObservation).

REA launches the Electron executable with the application as an owned process (private profile,
loopback debugging port), drives its windows over CDP with the scenario runner, and reports
windows, processes and a navigation/error timeline. Main-process hooks (IPC, shell, updater)
are not observable over CDP: those families are reported unavailable, never empty-and-complete.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.wire.schema import field, local_path

ActionKind = Literal["click", "wait", "renderer-reload", "renderer-crash", "deep-link"]


@attrs.frozen(kw_only=True)
class ClickStep:
    step_id: str = field("", minLength=1)
    kind: Literal["click"] = field("Click the first match of a CSS selector")
    selector: str = field("", minLength=1)
    window_index: int = field("Window, in target order", default=0, minimum=0)


@attrs.frozen(kw_only=True)
class WaitStep:
    step_id: str = field("", minLength=1)
    kind: Literal["wait"] = field("Wait a fixed time")
    duration_ms: int = field("", minimum=0, maximum=600_000)
    window_index: int | None = field("", default=None, omit_none=True, minimum=0)


@attrs.frozen(kw_only=True)
class RendererStep:
    step_id: str = field("", minLength=1)
    kind: Literal["renderer-reload", "renderer-crash"] = field("Reload or crash one window's renderer")
    window_index: int = field("", default=0, minimum=0)


@attrs.frozen(kw_only=True)
class DeepLinkStep:
    step_id: str = field("", minLength=1)
    kind: Literal["deep-link"] = field("Synthetic open-url or second-instance delivery (needs main-process hooks)")
    delivery: Literal["open-url", "second-instance"] = field("")
    url: str = field("An absolute URL", minLength=1)


@attrs.frozen(kw_only=True)
class CaptureElectronScenarioArgs:
    executable_path: str = local_path("The Electron executable")
    application_path: str = local_path("The application (main script, directory or .asar) passed to it")
    application_root: str | None = local_path(
        "Root for application-relative paths (default: derived from application_path)", default=None, omit_none=True
    )
    args: tuple[str, ...] = field(
        "Extra arguments", default=(), schema={"type": "array", "items": {"type": "string", "pattern": "^[^\\u0000]*$"}}
    )
    actions: tuple[ClickStep | WaitStep | RendererStep | DeepLinkStep, ...] = field("Actions in order", default=())


@attrs.frozen(kw_only=True)
class Application:
    executable_path: str = field("")
    application_path: str = field("")
    electron_version: str = field("From the browser's /json/version", minLength=1)
    process_ownership: Literal["provider-owned"] = field("")
    cleanup: Literal["terminated-owned-process"] = field("")


@attrs.frozen(kw_only=True)
class ActionResult:
    step_id: str = field("", minLength=1)
    kind: ActionKind = field("")
    window_index: int | None = field("")
    target: str | None = field("The window's target id")
    elapsed_ms: int = field("", minimum=0)
    status: Literal["completed", "failed", "cancelled"] = field("")
    error: str | None = field("")


@attrs.frozen(kw_only=True)
class Window:
    window_id: str = field("")
    web_contents_id: str = field("")
    url: str = field("")
    title: str = field("")
    visible: bool | None = field("")
    destroyed: bool = field("")


@attrs.frozen(kw_only=True)
class ProcessMetric:
    pid: int = field("", minimum=1)
    type: str = field("browser, renderer, gpu-process, utility, zygote, ...", minLength=1)
    name: str | None = field("")
    service_name: str | None = field("")


@attrs.frozen(kw_only=True)
class Processes:
    items: tuple[ProcessMetric, ...] = field("")


@attrs.frozen(kw_only=True)
class IpcEvent:
    """One IPC message. None is ever observed over CDP; the record says what one would carry."""

    sequence: int = field("", minimum=1)
    channel: str = field("", minLength=1)
    direction: Literal["renderer-to-main", "main-to-renderer"] = field("")


@attrs.frozen(kw_only=True)
class Ipc:
    events: tuple[IpcEvent, ...] = field("IPC is not observable over CDP (always empty)", maxItems=0)
    observed: int = field("", minimum=0)
    dropped: int | None = field("")


@attrs.frozen(kw_only=True)
class TimelineEvent:
    sequence: int = field("", minimum=1)
    correlation_id: str | None = field("")
    kind: Literal["navigation", "web-contents-lifecycle", "error"] = field("")
    event: str | None = field("")
    phase: Literal["attempted", "completed", "blocked", "failed", "observed"] = field("")
    channel: str | None = field("")
    direction: None = field("")
    sender: str | None = field("")
    receiver: str | None = field("")
    frame: str | None = field("")
    target: str | None = field("")
    argument_shapes: tuple[str, ...] = field("")
    result_shape: str | None = field("")
    process_type: str | None = field("")
    source: str = field("")
    capture_method: Literal["api-wrapper", "event-emitter", "process-hook"] = field("")
    artifact_path: str | None = field("")
    artifact_sha256: str | None = field("")
    error: bool = field("")


@attrs.frozen(kw_only=True)
class Timeline:
    events: tuple[TimelineEvent, ...] = field("")
    observed: int = field("", minimum=0)
    dropped: int | None = field("")


@attrs.frozen(kw_only=True)
class Coverage:
    status: Literal["complete", "partial_attach", "hook_conflict", "target_exited", "cleanup_failed"] = field("")
    observed_event_families: tuple[str, ...] = field("")
    unavailable_event_families: tuple[str, ...] = field("")
    observed_roles: tuple[str, ...] = field("")
    pre_capture_activity: Literal["unavailable"] = field("")


@attrs.frozen(kw_only=True)
class ElectronScenario:
    application: Application = field("")
    actions: tuple[ActionResult, ...] = field("")
    windows: tuple[Window, ...] = field("")
    processes: Processes = field("")
    ipc: Ipc = field("")
    timeline: Timeline = field("")
    coverage: Coverage = field("")
    limitations: tuple[str, ...] = field("")
