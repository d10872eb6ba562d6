"""Contract of capture_browser_scenario: a controlled run of declared actions in an owned headless Chromium."""

from __future__ import annotations

from rea.wire.tool import evidence_tool
from rea.wire.web_scenario import BrowserScenarioCapture, CaptureBrowserScenarioArgs

EXAMPLE = {
    "browser": {"mode": "launch", "executable_path": "/usr/lib/chromium/chromium"},
    "start_url": {"url": "https://app.example.test/", "query": []},
    "actions": [{"step_id": "settle", "action": "wait_for_timeout", "duration_ms": 250}],
}

CAPTURE_BROWSER_SCENARIO = evidence_tool(
    "capture_browser_scenario",
    "Capture Browser Scenario",
    (
        "Run a controlled browser scenario when passive observation cannot exercise the application. Launch an "
        "owned headless Chromium (private temporary profile, stopped and removed after; recorded in the process "
        "lineage) or connect to one loopback CDP target, load start_url, then run the declared actions (goto, "
        "click, fill, press, select_option, check, uncheck, wait_for, wait_for_timeout; locators by test id, "
        "role or CSS). Only allowed_origins (default: the start URL's origin) may be reached: every other request, "
        "navigation included, is failed by the browser. Secrets come from server environment variables and never "
        "appear in the result. Each step retains the requested DOM, accessibility, URL, history, storage "
        "(values hashed) and screenshot artifacts; console, page-error, network and frame events are retained on "
        "request. Drives code REA does not own."
    ),
    args=CaptureBrowserScenarioArgs,
    result=BrowserScenarioCapture,
    examples=[EXAMPLE],
    surface="browser-provider",
    effects={
        "mutatesTarget",
        "mutatesSession",
        "writesFilesystem",
        "launchesProcess",
        "accessesNetwork",
        "changesUiState",
        "mayDiscardData",
        "executesForeignCode",
    },
)

CLI_COMMANDS = ("capture-browser-scenario",)
TOOLS = (CAPTURE_BROWSER_SCENARIO,)
