"""Wire records of capture_browser_scenario (REA 6.x domain/browserScenario*, browserScenarioCapture*).

A scenario drives a page REA does not own: a launched headless Chromium (or a caller's loopback
target) runs declared actions within declared origins, and each step's requested artifacts are
retained with secrets redacted. Names, enums and fields are the reference's.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.web.records.browser import MAX_ORIGINS
from rea.wire.schema import field, local_path

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
