"""Wire records of list_electron_targets and inspect_electron_page, in the REA 6.x shape
(domain/javascript/electronObservation): an Electron app's file:// pages over its loopback CDP
endpoint, read passively (no renderer JavaScript evaluated, no Electron API invoked)."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.web.records.browser import BrowserVersion, CaptureWindow, DroppedEvents
from rea.wire.schema import field

SHA256 = "^[a-f0-9]{64}$"
_ENDPOINT = (
    "Loopback CDP endpoint of the Electron app (--remote-debugging-port): http:// or ws:// on "
    "127.0.0.0/8, [::1] or localhost, with a port"
)


@attrs.frozen(kw_only=True)
class ListElectronTargetsArgs:
    cdp_endpoint: str = field(_ENDPOINT, minLength=1, maxLength=2048)


@attrs.frozen(kw_only=True)
class InspectElectronPageArgs:
    cdp_endpoint: str = field(_ENDPOINT, minLength=1, maxLength=2048)
    target_id: str = field("A target_id from list_electron_targets", minLength=1, maxLength=256)
    observation_ms: int = field("Observation window after attaching", default=100, minimum=0, maximum=10000)
    include_script_sources: bool = field("Include each file script's source (16 MiB in all)", default=False)


@attrs.frozen(kw_only=True)
class ElectronTarget:
    target_id: str = field("CDP target id")
    type: str = field("Target type (page)")
    title: str = field("Page title")
    file_path: str = field("The page's local file, canonicalized after symlink resolution")
    attached: bool = field("Whether a client is attached")


@attrs.frozen(kw_only=True)
class ElectronExclusions:
    unsupported_url: int = field("Pages that are not local file:// pages", minimum=0)
    non_page: int = field("Targets that are not pages (workers, the browser, ...)", minimum=0)


@attrs.frozen(kw_only=True)
class ElectronTargetList:
    browser: BrowserVersion = field("The endpoint's browser identity")
    targets: tuple[ElectronTarget, ...] = field("Every local file page")
    excluded: ElectronExclusions = field("Targets left out, by reason")
    limitations: tuple[str, ...] = field("What this listing does not establish")


@attrs.frozen(kw_only=True)
class Exclusion:
    section: str = field("frames, scripts, resources or workers")
    reason: str = field("Why items were left out")
    count: int | None = field("How many", minimum=0)


Condition = Literal["complete_within_window", "policy_filtered", "attach_limited", "truncated"]


@attrs.frozen(kw_only=True)
class Completeness:
    status: Condition = field("The most limiting condition")
    conditions: tuple[Condition, ...] = field("Every condition that holds", minItems=1, maxItems=3)
    policy_filtered_sections: tuple[str, ...] = field("Sections with items left out by policy (non-file URLs)")
    attach_limited_sections: tuple[str, ...] = field("Sections limited by what an attach can see")
    truncated_sections: tuple[str, ...] = field("Sections cut by a limit")
    unavailable_sections: tuple[str, ...] = field("Sections that could not be read")
    excluded: tuple[Exclusion, ...] = field("Items left out")
    dropped_events: DroppedEvents = field("Events dropped by limits")


@attrs.frozen(kw_only=True)
class Frame:
    frame_id: str = field("CDP frame id")
    parent_frame_id: str | None = field("Parent frame")
    file_path: str = field("The frame's local file")


@attrs.frozen(kw_only=True)
class DomNode:
    index: int = field("Pre-order index", minimum=0)
    parent_index: int = field("Parent's index; -1 for the document", minimum=-1)
    node_type: int = field("DOM node type", minimum=0)
    node_name: str = field("Node name")
    node_value_length: int = field("Length of its value (the value itself is not kept)", minimum=0)
    attribute_names: tuple[str, ...] = field("Attribute names (values are not kept)")


@attrs.frozen(kw_only=True)
class Dom:
    total_nodes: int = field("Nodes in the document", minimum=0)
    nodes: tuple[DomNode, ...] = field("Nodes, pre-order (bounded)")


@attrs.frozen(kw_only=True)
class TextArtifact:
    sha256: str = field("SHA-256 of the UTF-8 text", pattern=SHA256)
    bytes: int = field("UTF-8 size", minimum=0)
    media_type: str = field("text/javascript", minLength=1)
    charset: Literal["utf-8"] = field("Always utf-8")
    text: str = field("The source text")


@attrs.frozen(kw_only=True)
class SourceOmitted:
    included: Literal[False] = field("Not included")
    reason: str = field("Why")


@attrs.frozen(kw_only=True)
class SourceIncluded:
    included: Literal[True] = field("Included")
    artifact: TextArtifact = field("The source")


@attrs.frozen(kw_only=True)
class ElectronScript:
    script_key: str = field("electron_script_ + SHA-256", pattern="^electron_script_[a-f0-9]{64}$")
    frame_id: str | None = field("Frame it ran in, when stated")
    file_path: str = field("Its local file")
    cdp_hash: str | None = field("Producer-reported script hash; null when unavailable.")
    length: int | None = field("Producer-reported script length; null when unavailable.", minimum=0)
    is_module: bool | None = field("Producer-reported module classification; null when unavailable.")
    language: str | None = field("JavaScript or WebAssembly, when stated")
    source: SourceOmitted | SourceIncluded = field("Its source text, when asked for")


@attrs.frozen(kw_only=True)
class ElectronScripts:
    total: int = field("File scripts seen", minimum=0)
    items: tuple[ElectronScript, ...] = field("File scripts")


@attrs.frozen(kw_only=True)
class Resource:
    resource_key: str = field("electron_resource_ + SHA-256", pattern="^electron_resource_[a-f0-9]{64}$")
    file_path: str = field("Its local file")
    type: str = field("CDP resource type")
    mime_type: str = field("MIME type")
    content_size: float | None = field("Size when stated", minimum=0)


@attrs.frozen(kw_only=True)
class Worker:
    target_id: str = field("Worker target id", minLength=1)
    type: str = field("worker, service_worker, shared_worker", minLength=1)
    file_path: str = field("Its local file")
    attached: bool = field("Whether a client is attached")
    opener_target_id: str | None = field("Opener, when stated", minLength=1)
    parent_frame_id: str | None = field("Parent frame, when stated", minLength=1)


@attrs.frozen(kw_only=True)
class ElectronPageInspection:
    browser: BrowserVersion = field("The endpoint's browser identity")
    target: ElectronTarget = field("The inspected page")
    capture_window: CaptureWindow = field("When it was observed")
    completeness: Completeness = field("What the observation covers")
    frames: tuple[Frame, ...] = field("The page's file frames")
    dom: Dom = field("The document's structure (no text, no attribute values)")
    scripts: ElectronScripts = field("Scripts parsed in the page")
    resources: tuple[Resource, ...] = field("File resources of the frame tree")
    workers: tuple[Worker, ...] = field("File workers the endpoint lists")
    limitations: tuple[str, ...] = field("Limits of the observation")
