"""Contracts of the web family: passive tools over a caller's loopback Chromium (CDP)."""

from __future__ import annotations

from rea.wire.tool import evidence_tool
from rea.wire.web import BrowserTargetList, InspectWebPageArgs, ListBrowserTargetsArgs, WebPageInspection

ENDPOINT = "http://127.0.0.1:9222"
TARGET = "TARGET_ID_FROM_LIST_BROWSER_TARGETS"
PASSIVE = {"mutatesSession", "idempotent", "accessesNetwork"}

LIST_BROWSER_TARGETS = evidence_tool(
    "list_browser_targets",
    "List Browser Targets",
    (
        "List page targets exposed by the selected loopback Chrome DevTools Protocol endpoint (refused before "
        "connecting unless it is 127.0.0.0/8, [::1] or localhost with a port). Optionally filter by exact origin. "
        "URLs preserve query values and fragments; only URL userinfo credentials are removed."
    ),
    args=ListBrowserTargetsArgs,
    result=BrowserTargetList,
    examples=[{"cdp_endpoint": ENDPOINT}, {"cdp_endpoint": ENDPOINT, "allowed_origins": ["https://app.example.test"]}],
    surface="browser-provider",
    effects=PASSIVE,
)

INSPECT_WEB_PAGE = evidence_tool(
    "inspect_web_page",
    "Inspect Web Page",
    (
        "Passively inspect one selected page target through CDP without evaluating JavaScript, navigating, "
        "clicking, closing, or mutating the page. If no origin filter is supplied, capture is scoped to the "
        "target's current origin. Returns DOM structure, accessibility, scripts, resources, attach-window network "
        "and console metadata, workers, and redacted storage inventory as Evidence; a page that navigates during "
        "the window fails with target_changed."
    ),
    args=InspectWebPageArgs,
    result=WebPageInspection,
    examples=[{"cdp_endpoint": ENDPOINT, "target_id": TARGET}],
    surface="browser-provider",
    effects=PASSIVE,
)

CLI_COMMANDS = ("list-browser-targets", "inspect-web-page")
TOOLS = (LIST_BROWSER_TARGETS, INSPECT_WEB_PAGE)
