"""Wire records of capture_browser_scenario (REA 6.x domain/browserScenario*, browserScenarioCapture*).

A scenario drives a page REA does not own: a launched headless Chromium (or a caller's loopback
target) runs declared actions within declared origins, and each step's requested artifacts are
retained with secrets redacted. Names, enums and fields are the reference's.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from rea.wire.schema import Open, field, local_path
from rea.web.records.browser import MAX_ORIGINS, SHA256, ScreenshotArtifact

IDENTIFIER = "^[A-Za-z][A-Za-z0-9._-]*$"
MAX_ACTIONS = 128
SnapshotKind = Literal["screenshot", "dom", "accessibility", "url", "history", "storage"]
EventFamily = Literal["console", "page-errors", "network", "websockets", "frames", "workers", "popups", "downloads"]
Section = Literal[
    "action",
    "screenshot",
    "dom",
    "accessibility",
    "url",
    "history",
    "storage",
    "events",
    "frames",
    "workers",
    "popups",
    "websockets",
]
Role = Literal[
    "button",
    "checkbox",
    "combobox",
    "dialog",
    "link",
    "listbox",
    "menuitem",
    "option",
    "radio",
    "slider",
    "spinbutton",
    "switch",
    "tab",
    "textbox",
]


def _identifier(description: str) -> str:
    return field(description, pattern=IDENTIFIER, minLength=1, maxLength=64)  # type: ignore[no-any-return]


# ------------------------------------------------------------------ values


@attrs.frozen(kw_only=True)
class LiteralValue:
    source: Literal["literal"] = field("A public value written in the request")
    value: str = field("The value")


@attrs.frozen(kw_only=True)
class SecretValue:
    source: Literal["secret"] = field("A value read from a declared secret's environment variable")
    secret_id: str = _identifier("A secret_id declared in secrets")


Value = LiteralValue | SecretValue


@attrs.frozen(kw_only=True)
class QueryEntry:
    name: str = field("Query parameter name", minLength=1)
    value: Value = field("Its value")


@attrs.frozen(kw_only=True)
class ScenarioUrl:
    url: str = field("An http(s) URL without credentials", minLength=1, maxLength=8192)
    query: tuple[QueryEntry, ...] = field("Query parameters appended in order (secrets by reference)", default=())


# ------------------------------------------------------------------ browser


@attrs.frozen(kw_only=True)
class LaunchBrowser:
    mode: Literal["launch"] = field("REA launches an owned headless Chromium with a private profile")
    executable_path: str = local_path("The Chromium (or Chrome) executable REA launches")
    headless: bool = field("Run without a window (REA always runs headless on this host)", default=True)


@attrs.frozen(kw_only=True)
class ConnectBrowser:
    mode: Literal["connect"] = field("Drive one target of a caller's loopback CDP endpoint")
    cdp_endpoint: str = field("Loopback DevTools endpoint (http://127.0.0.1:9222)", minLength=1, maxLength=2048)
    target_id: str = field("A page target_id from list_browser_targets", minLength=1, maxLength=256)


# ------------------------------------------------------------------ environment


@attrs.frozen(kw_only=True)
class Viewport:
    width: int = field("CSS pixels", default=1280, minimum=1, maximum=16384)
    height: int = field("CSS pixels", default=720, minimum=1, maximum=16384)
    device_scale_factor: float = field("Device pixel ratio", default=1.0, exclusiveMinimum=0, maximum=8)


@attrs.frozen(kw_only=True)
class Environment:
    viewport: Viewport = field("Emulated viewport", factory=Viewport)
    locale: str = field("Locale", default="en-US", minLength=2, pattern="^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$")
    timezone: str = field(
        "IANA time zone", default="UTC", minLength=1, pattern="^[A-Za-z0-9_+-]+(?:/[A-Za-z0-9_+-]+)*$"
    )
    color_scheme: Literal["light", "dark", "no-preference"] = field("prefers-color-scheme", default="light")
    reduced_motion: Literal["reduce", "no-preference"] = field("prefers-reduced-motion", default="reduce")
    service_workers: Literal["allow", "block"] = field("Whether service workers may serve requests", default="block")


# ------------------------------------------------------------------ locators and actions


@attrs.frozen(kw_only=True)
class TestIdLocator:
    kind: Literal["test_id"] = field("An element by its data-testid attribute")
    value: str = field("The data-testid value", minLength=1)


@attrs.frozen(kw_only=True)
class RoleLocator:
    kind: Literal["role"] = field("An element by its accessibility role and accessible name")
    role: Role = field("The role")
    name: str = field("The accessible name", minLength=1)


@attrs.frozen(kw_only=True)
class CssLocator:
    kind: Literal["css"] = field("The first element matching a CSS selector")
    selector: str = field("The selector", minLength=1)


Locator = TestIdLocator | RoleLocator | CssLocator


def _step_id() -> str:
    return _identifier("Unique step id")


def _timeout() -> int | None:
    return field(  # type: ignore[no-any-return]
        "Action deadline in milliseconds (omitted: REA's 30 s bound)", default=None, omit_none=True, minimum=1
    )


def _locator() -> Locator:
    return field("The element the action applies to")  # type: ignore[no-any-return]


@attrs.frozen(kw_only=True)
class GotoAction:
    step_id: str = _step_id()
    timeout_ms: int | None = _timeout()
    action: Literal["goto"] = field("Navigate the page (the destination must be in allowed_origins)")
    destination: ScenarioUrl = field("Where to")
    wait_until: Literal["commit", "domcontentloaded", "load"] = field("When the navigation counts as done")


@attrs.frozen(kw_only=True)
class ClickAction:
    step_id: str = _step_id()
    timeout_ms: int | None = _timeout()
    action: Literal["click"] = field("Click the element's centre with real mouse input")
    locator: Locator = _locator()
    button: Literal["left", "middle", "right"] = field("Mouse button", default="left")
    click_count: int = field("Clicks", default=1, minimum=1, maximum=3)


@attrs.frozen(kw_only=True)
class FillAction:
    step_id: str = _step_id()
    timeout_ms: int | None = _timeout()
    action: Literal["fill"] = field("Focus the element, clear it and type the value")
    locator: Locator = _locator()
    value: Value = field("What to type")


@attrs.frozen(kw_only=True)
class PressAction:
    step_id: str = _step_id()
    timeout_ms: int | None = _timeout()
    action: Literal["press"] = field("Focus the element and press one key")
    locator: Locator = _locator()
    key: str = field("A key name (Enter, Tab, Escape, Backspace, ArrowDown, ...) or one character", minLength=1)


@attrs.frozen(kw_only=True)
class SelectOptionAction:
    step_id: str = _step_id()
    timeout_ms: int | None = _timeout()
    action: Literal["select_option"] = field("Select the option whose value (or label) matches")
    locator: Locator = _locator()
    value: Value = field("The option's value or label")


@attrs.frozen(kw_only=True)
class CheckAction:
    step_id: str = _step_id()
    timeout_ms: int | None = _timeout()
    action: Literal["check", "uncheck"] = field("Click a checkbox or radio until it is (un)checked")
    locator: Locator = _locator()


@attrs.frozen(kw_only=True)
class WaitForAction:
    step_id: str = _step_id()
    timeout_ms: int | None = _timeout()
    action: Literal["wait_for"] = field("Wait until the element reaches a state")
    locator: Locator = _locator()
    state: Literal["attached", "detached", "visible", "hidden"] = field("The state")


@attrs.frozen(kw_only=True)
class WaitForTimeoutAction:
    step_id: str = _step_id()
    action: Literal["wait_for_timeout"] = field("Wait a fixed time")
    duration_ms: int = field("Milliseconds; the wait ends early on cancellation", minimum=1, maximum=600_000)


Action = (
    GotoAction
    | ClickAction
    | FillAction
    | PressAction
    | SelectOptionAction
    | CheckAction
    | WaitForAction
    | WaitForTimeoutAction
)

# ------------------------------------------------------------------ storage, replay, secrets, capture


@attrs.frozen(kw_only=True)
class CookieSeed:
    name: str = field("Cookie name", minLength=1)
    value: Value = field("Cookie value")
    destination: ScenarioUrl = field("The URL the cookie is set for (within allowed_origins)")
    http_only: bool = field("HttpOnly")
    secure: bool = field("Secure")
    same_site: Literal["Strict", "Lax", "None"] = field("SameSite")


@attrs.frozen(kw_only=True)
class StorageEntry:
    name: str = field("Key", minLength=1)
    value: Value = field("Value")


@attrs.frozen(kw_only=True)
class OriginStorage:
    origin: str = field("Exact http(s) origin (within allowed_origins)", minLength=1, maxLength=2048)
    entries: tuple[StorageEntry, ...] = field("Entries to write")


@attrs.frozen(kw_only=True)
class Storage:
    cookies: tuple[CookieSeed, ...] = field("Initial cookies", default=())
    local_storage: tuple[OriginStorage, ...] = field("Initial localStorage", default=())
    session_storage: tuple[OriginStorage, ...] = field("Initial sessionStorage", default=())


@attrs.frozen(kw_only=True)
class ReplayHeader:
    name: str = field("Header name", minLength=1, pattern="^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+$")
    value: Value = field("Header value")


@attrs.frozen(kw_only=True)
class ReplayResponse:
    kind: Literal["response"] = field("Answer with this response")
    status: int = field("HTTP status", minimum=100, maximum=599)
    headers: tuple[ReplayHeader, ...] = field("Response headers", default=())
    body: Value | None = field("Response body (text)", default=None, omit_none=True)


@attrs.frozen(kw_only=True)
class ReplayRedirect:
    kind: Literal["redirect"] = field("Answer with a redirect")
    status: Literal[301, 302, 303, 307, 308] = field("Redirect status")
    destination: ScenarioUrl = field("Location (within allowed_origins)")


@attrs.frozen(kw_only=True)
class ReplayRoute:
    route_id: str = _identifier("Unique route id")
    method: Literal["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] = field("Request method")
    request: ScenarioUrl = field("The exact request URL (with query) this route answers")
    response: ReplayResponse | ReplayRedirect = field("What the browser receives instead of the network")


@attrs.frozen(kw_only=True)
class ReplayDisabled:
    mode: Literal["disabled"] = field("Requests within allowed_origins go to the network as usual")


@attrs.frozen(kw_only=True)
class ReplayExact:
    mode: Literal["exact"] = field("Answer declared requests from routes")
    unmatched: Literal["abort", "passthrough-declared-origins"] = field("What happens to other requests")
    routes: tuple[ReplayRoute, ...] = field("Routes", minItems=1)


@attrs.frozen(kw_only=True)
class Secret:
    secret_id: str = _identifier("The id actions and values refer to")
    environment_variable: str = field(
        "The server environment variable holding the value (never inline)", minLength=1, pattern="^[^=\\u0000]+$"
    )


@attrs.frozen(kw_only=True)
class CaptureRequest:
    after_each_step: tuple[SnapshotKind, ...] = field("Artifacts retained after every step", default=())
    at_end: tuple[SnapshotKind, ...] = field("Artifacts retained after the last step", default=("url",))
    events: tuple[EventFamily, ...] = field("Event families retained", default=())


@attrs.frozen(kw_only=True)
class CaptureBrowserScenarioArgs:
    browser: LaunchBrowser | ConnectBrowser = field(
        "Launch an owned headless Chromium or connect to one loopback CDP target"
    )
    start_url: ScenarioUrl = field("The initial http(s) URL (query values declared separately)")
    allowed_origins: tuple[str, ...] = field(
        "Exact http(s) origins navigation, storage and replay may use; empty: the start URL's origin",
        default=(),
        schema={
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 2048},
            "maxItems": MAX_ORIGINS,
        },
    )
    environment: Environment = field("Deterministic browser settings", factory=Environment)
    actions: tuple[Action, ...] = field("The explicit actions, in order", minItems=1, maxItems=MAX_ACTIONS)
    storage: Storage = field("Initial cookies and storage (defaults to empty)", factory=Storage)
    request_replay: ReplayDisabled | ReplayExact = field(
        "Exact request replay (default disabled)", factory=lambda: ReplayDisabled(mode="disabled")
    )
    secrets: tuple[Secret, ...] = field("Environment-variable references for secret values", default=())
    capture: CaptureRequest = field("Retained artifacts and event families", factory=CaptureRequest)


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


# ------------------------------------------------------------------ compare_web_captures

ArtifactKind = Literal["action_state", "screenshot", "dom", "accessibility", "url", "history", "storage", "events"]
NormalizableKind = Literal["action_state", "dom", "accessibility", "url", "history", "storage", "events"]
EvidenceState = Literal["captured", "not_requested", "missing", "truncated"]
DiffStatus = Literal["changed", "unchanged", "unknown"]


def _capture_field(description: str, nullable: bool = False) -> Any:
    """A producer result passed back whole: advertised as an object, validated in full by the program
    against the producer's own output schema (as 6.x does, to keep the advertised input small)."""
    body: dict[str, Any] = {"type": "object"}
    return field(
        description,
        default=None,
        omit_none=not nullable,
        schema={"anyOf": [body, {"type": "null"}]} if nullable else body,
    )


@attrs.frozen(kw_only=True)
class PassiveCapture:
    inspection: Open = field(
        "The complete normalized_result of inspect_web_page, unchanged (validated in full)", schema={"type": "object"}
    )
    webmcp: Open = _capture_field(
        "The complete normalized_result of discover_webmcp_tools for this capture, or null", nullable=True
    )


@attrs.frozen(kw_only=True)
class NormalizationRule:
    rule_id: str = field("Stable rule identity; rules run in rule_id order", minLength=1)
    artifacts: tuple[NormalizableKind, ...] = field("Artifact families whose strings use this rule", minItems=1)
    match: str = field("Exact public literal to replace (no regular expressions)", minLength=1)
    replacement: str = field("Its replacement in the normalized comparison")


@attrs.frozen(kw_only=True)
class Normalization:
    rules: tuple[NormalizationRule, ...] = field("Exact-literal rules", default=())


@attrs.frozen(kw_only=True)
class CompareWebCapturesArgs:
    before: PassiveCapture | None = field("Earlier passive page capture (with after)", default=None, omit_none=True)
    after: PassiveCapture | None = field("Later passive page capture (with before)", default=None, omit_none=True)
    before_scenario: Open = _capture_field("Earlier capture_browser_scenario normalized_result, unchanged")
    after_scenario: Open = _capture_field("Later capture_browser_scenario normalized_result, unchanged")
    normalization: Normalization | None = field(
        "Scenario pairs only: exact-literal rules (default {rules: []})", default=None, omit_none=True
    )
    max_changes: int = field("Change records retained", default=2000, minimum=1, maximum=20_000)


@attrs.frozen(kw_only=True)
class ArtifactDiff:
    artifact: ArtifactKind = field("")
    status: Literal["changed", "unknown"] = field("")
    before_state: EvidenceState = field("")
    after_state: EvidenceState = field("")
    before_sha256: str | None = field("Digest of the normalized value (null when not captured)")
    after_sha256: str | None = field("")
    reason: str | None = field("Why it is unknown")


@attrs.frozen(kw_only=True)
class AlignmentFailure:
    code: Literal[
        "duplicate_before_step_id",
        "duplicate_after_step_id",
        "missing_before_step",
        "missing_after_step",
        "action_mismatch",
        "capture_context_mismatch",
    ] = field("")
    step_id: str | None = field("")
    reason: str = field("", minLength=1)


@attrs.frozen(kw_only=True)
class Alignment:
    status: Literal["aligned", "partial", "failed"] = field("")
    aligned_steps: int = field("", minimum=0)
    before_only: tuple[str, ...] = field("")
    after_only: tuple[str, ...] = field("")
    failures: tuple[AlignmentFailure, ...] = field("")


@attrs.frozen(kw_only=True)
class StepDiff:
    step_id: str = field("", minLength=1)
    before_step_index: int = field("", minimum=0)
    after_step_index: int = field("", minimum=0)
    before_action: str = field("", minLength=1)
    after_action: str = field("", minLength=1)
    status: DiffStatus = field("")
    artifact_diffs: tuple[ArtifactDiff, ...] = field("")
    omitted_artifact_diffs: int = field("Our extra: records past max_changes", minimum=0)


@attrs.frozen(kw_only=True)
class CommittedNormalization:
    built_in_rules: tuple[
        Literal[
            "ignore_step_elapsed_ms",
            "ignore_event_sequence",
            "ignore_event_step_index",
            "compare_screenshot_content_digest",
            "compare_normalized_text_content",
        ],
        ...,
    ] = field("", minItems=5, maxItems=5)
    rules: tuple[NormalizationRule, ...] = field("The caller's rules in rule_id order")
    sha256: str = field("Digest of the committed policy", pattern=SHA256)


@attrs.frozen(kw_only=True)
class DiffCount:
    total: int = field("", minimum=0)
    retained: int = field("Our extra", minimum=0)
    omitted: int = field("Our extra", minimum=0)


@attrs.frozen(kw_only=True)
class ScenarioDiff:
    schema_version: Literal[1] = field("")
    comparison_kind: Literal["browser_scenario"] = field("")
    overall_status: DiffStatus = field("unchanged only when both captures are complete and aligned")
    normalization: CommittedNormalization = field("")
    alignment: Alignment = field("")
    steps: tuple[StepDiff, ...] = field("")
    artifact_diffs: DiffCount = field("")
    limitations: tuple[str, ...] = field("")


@attrs.frozen(kw_only=True)
class Change:
    identity: str = field("")
    change: Literal["added", "removed", "modified"] = field("")


@attrs.frozen(kw_only=True)
class Dimension:
    status: DiffStatus = field("")
    total_changes: int = field("", minimum=0)
    changes: tuple[Change, ...] = field("")
    omitted_changes: int = field("", minimum=0)
    reason: str | None = field("Why it is unknown")


@attrs.frozen(kw_only=True)
class Dimensions:
    dom_structure: Dimension = field("")
    scripts: Dimension = field("")
    resources: Dimension = field("")
    network: Dimension = field("")
    metadata: Dimension = field("")
    webmcp: Dimension = field("")
    accessibility: Dimension = field("")
    storage: Dimension = field("")


@attrs.frozen(kw_only=True)
class TargetRef:
    target_id: str = field("")
    url: str = field("")


@attrs.frozen(kw_only=True)
class WebCaptureDiff:
    schema_version: Literal[1] = field("")
    overall_status: DiffStatus = field("")
    before_target: TargetRef = field("")
    after_target: TargetRef = field("")
    dimensions: Dimensions = field("")
    limitations: tuple[str, ...] = field("")


WebCaptureComparison = ScenarioDiff | WebCaptureDiff
