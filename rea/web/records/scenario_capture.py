"""Wire records of capture_browser_scenario's result (REA 6.x browserScenarioCapture*): each step's
artifacts, the events, the browser and the scenario's identity."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.web.records.browser import MAX_ORIGINS, SHA256
from rea.web.records.scenario import MAX_ACTIONS, Section
from rea.web.records.screenshot import ScreenshotArtifact
from rea.wire.schema import field

# ------------------------------------------------------------------ result: artifacts


@attrs.frozen(kw_only=True)
class NotRequested:
    state: Literal["not_requested"] = field("Not asked for at this step")


@attrs.frozen(kw_only=True)
class Missing:
    state: Literal["missing"] = field("Asked for and not captured")
    reason: str = field("Why", minLength=1, maxLength=1024)


@attrs.frozen(kw_only=True)
class Truncated:
    state: Literal["truncated"] = field("Captured in part")
    observed: int = field("Units observed", minimum=0)
    retained: int = field("Units retained", minimum=0)
    reason: str = field("Which bound", minLength=1, maxLength=1024)


@attrs.frozen(kw_only=True)
class TextArtifact:
    sha256: str = field("SHA-256 of the UTF-8 text", pattern=SHA256)
    bytes: int = field("UTF-8 bytes", minimum=0, maximum=16 << 20)
    text: str = field("The text (secrets redacted)", maxLength=1 << 20)


@attrs.frozen(kw_only=True)
class CapturedText:
    state: Literal["captured"] = field("")
    value: TextArtifact = field("")


@attrs.frozen(kw_only=True)
class CapturedScreenshot:
    state: Literal["captured"] = field("")
    value: ScreenshotArtifact = field("")


@attrs.frozen(kw_only=True)
class CapturedUrl:
    state: Literal["captured"] = field("")
    value: str = field("The page URL (credentials removed, secrets redacted)")


@attrs.frozen(kw_only=True)
class HistoryEntry:
    type: Literal["navigate", "reload", "back_forward", "prerender", "unknown"] = field("")
    name: str = field("The entry's URL")


@attrs.frozen(kw_only=True)
class History:
    length: int = field("Entries", minimum=0)
    current_url: str = field("")
    navigation_entries: tuple[HistoryEntry, ...] = field("", maxItems=256)


@attrs.frozen(kw_only=True)
class CapturedHistory:
    state: Literal["captured"] = field("")
    value: History = field("")


@attrs.frozen(kw_only=True)
class StorageValue:
    name: str = field("Key", maxLength=1024)
    value_state: Literal["hashed", "redacted-secret"] = field("hashed, or redacted-secret when it holds a secret")
    value_sha256: str | None = field("SHA-256 of the value (null when redacted)")


@attrs.frozen(kw_only=True)
class CookieValue:
    name: str = field("", maxLength=1024)
    domain: str = field("", maxLength=2048)
    path: str = field("", maxLength=4096)
    secure: bool = field("")
    http_only: bool = field("")
    same_site: Literal["Strict", "Lax", "None"] = field("")
    value_state: Literal["hashed", "redacted-secret"] = field("")
    value_sha256: str | None = field("")


@attrs.frozen(kw_only=True)
class StorageSnapshot:
    cookies: tuple[CookieValue, ...] = field("", maxItems=512)
    local_storage: tuple[StorageValue, ...] = field("", maxItems=512)
    session_storage: tuple[StorageValue, ...] = field("", maxItems=512)


@attrs.frozen(kw_only=True)
class CapturedStorage:
    state: Literal["captured"] = field("")
    value: StorageSnapshot = field("")


Absent = NotRequested | Missing | Truncated


@attrs.frozen(kw_only=True)
class StepArtifacts:
    screenshot: CapturedScreenshot | NotRequested | Missing | Truncated = field("")
    dom: CapturedText | NotRequested | Missing | Truncated = field("document outerHTML")
    accessibility: CapturedText | NotRequested | Missing | Truncated = field("the full accessibility tree as JSON")
    url: CapturedUrl | NotRequested | Missing | Truncated = field("")
    history: CapturedHistory | NotRequested | Missing | Truncated = field("")
    storage: CapturedStorage | NotRequested | Missing | Truncated = field("")


@attrs.frozen(kw_only=True)
class ScenarioCompleteness:
    status: Literal["complete", "incomplete", "truncated"] = field("")
    equality_eligible: bool = field("Only a complete capture can prove two runs equal")
    missing_sections: tuple[Section, ...] = field("")
    truncated_sections: tuple[Section, ...] = field("")


@attrs.frozen(kw_only=True)
class ScenarioStep:
    step_index: int = field("0 is the state after start_url loaded", minimum=0)
    step_id: str = field("", minLength=1, maxLength=64)
    action: str = field("", minLength=1, maxLength=64)
    elapsed_ms: int = field("", minimum=0)
    before_url: str = field("")
    after_url: str = field("")
    event_sequence_start: int = field("First event sequence of the step", minimum=1)
    event_sequence_end: int = field("Last event sequence of the step (start - 1 when none)", minimum=0)
    artifacts: StepArtifacts = field("")
    completeness: ScenarioCompleteness = field("")
    status: Literal["completed", "failed", "cancelled"] = field("")
    error: str | None = field("Why the step failed (null when completed)", maxLength=4096)


# ------------------------------------------------------------------ result: events


@attrs.frozen(kw_only=True)
class ConsoleEvent:
    sequence: int = field("", minimum=1)
    step_index: int = field("", minimum=0)
    kind: Literal["console"] = field("")
    level: str = field("", minLength=1, maxLength=64)
    text: str = field("Secrets redacted", maxLength=65536)
    url: str | None = field("")


@attrs.frozen(kw_only=True)
class PageErrorEvent:
    sequence: int = field("", minimum=1)
    step_index: int = field("", minimum=0)
    kind: Literal["page-error"] = field("")
    message: str = field("", maxLength=65536)
    stack: str | None = field("", maxLength=262144)


@attrs.frozen(kw_only=True)
class NetworkEvent:
    sequence: int = field("", minimum=1)
    step_index: int = field("", minimum=0)
    kind: Literal["request", "response", "request-failed"] = field("")
    method: str = field("", minLength=1, maxLength=32)
    url: str = field("")
    resource_type: str = field("", minLength=1, maxLength=64)
    header_names: tuple[str, ...] = field("Header names (values never)", maxItems=256)
    status: int | None = field("HTTP status of a response, else null")
    failure: str | None = field("Why a request failed, else null")


@attrs.frozen(kw_only=True)
class FrameEvent:
    sequence: int = field("", minimum=1)
    step_index: int = field("", minimum=0)
    kind: Literal[
        "frame-attached",
        "frame-detached",
        "frame-navigated",
        "worker-created",
        "worker-closed",
        "popup-opened",
        "popup-closed",
    ] = field("")
    url: str | None = field("")
    name: str | None = field("", maxLength=1024)


ScenarioEvent = ConsoleEvent | PageErrorEvent | NetworkEvent | FrameEvent


@attrs.frozen(kw_only=True)
class ScenarioEvents:
    retained: int = field("Equals len(items)", minimum=0)
    dropped: int = field("Past the retention bound", minimum=0)
    items: tuple[ScenarioEvent, ...] = field("", maxItems=100_000)


# ------------------------------------------------------------------ result


@attrs.frozen(kw_only=True)
class ScenarioBrowser:
    mode: Literal["launch", "connect"] = field("")
    process_ownership: Literal["provider-owned", "external"] = field("")
    cleanup: Literal["terminated-owned-process", "disconnected-external"] = field("")
    product: str = field("", minLength=1, maxLength=1024)
    version: str = field("", minLength=1, maxLength=256)


@attrs.frozen(kw_only=True)
class ScenarioIdentity:
    start_origin: str = field("", minLength=1, maxLength=2048)
    allowed_origins: tuple[str, ...] = field("", minItems=1, maxItems=MAX_ORIGINS)
    action_count: int = field("", minimum=1, maximum=MAX_ACTIONS)
    secret_references: tuple[str, ...] = field("secret_ids used (never their values)", maxItems=64)


@attrs.frozen(kw_only=True)
class BrowserScenarioCapture:
    schema_version: Literal[1] = field("")
    browser: ScenarioBrowser = field("")
    scenario: ScenarioIdentity = field("")
    duration_ms: int = field("", minimum=0)
    steps: tuple[ScenarioStep, ...] = field("action_count + 1 steps", minItems=1, maxItems=MAX_ACTIONS + 1)
    events: ScenarioEvents = field("")
    completeness: ScenarioCompleteness = field("")
    limitations: tuple[str, ...] = field("", maxItems=64)
