"""Contract of capture_browser_scenario: a controlled run of declared actions in an owned headless Chromium."""

from __future__ import annotations

from rea.web.records.capture_diff import CompareWebCapturesArgs, WebCaptureComparison
from rea.web.records.electron_scenario import CaptureElectronScenarioArgs, ElectronScenario
from rea.web.records.scenario import CaptureBrowserScenarioArgs
from rea.web.records.scenario_capture import BrowserScenarioCapture
from rea.wire.tool import evidence_tool

# the reference's effects for both active tools: they drive code REA does not own
ACTIVE = {
    "mutatesTarget",
    "mutatesSession",
    "writesFilesystem",
    "launchesProcess",
    "accessesNetwork",
    "changesUiState",
    "mayDiscardData",
    "executesForeignCode",
}
EXAMPLE = {
    "browser": {"mode": "launch", "executable_path": "/usr/lib/chromium/chromium"},
    "start_url": {"url": "https://app.example.test/", "query": []},
    "actions": [{"step_id": "settle", "action": "wait_for_timeout", "duration_ms": 250}],
}

CAPTURE_BROWSER_SCENARIO = evidence_tool(
    "capture_browser_scenario",
    "Capture Browser Scenario",
    (
        "Run declared browser actions when passive observation cannot exercise the application: launch an "
        "owned headless Chromium (private profile, removed after) or connect to one loopback CDP target, "
        "load start_url, then run goto, click, fill, press, select_option, check, uncheck, wait_for and "
        "wait_for_timeout steps (locators by test id, role or CSS). Only allowed_origins (default: the "
        "start URL's origin) are reachable; secrets come from server environment variables and never "
        "appear in the result. Each step retains the requested DOM, accessibility, URL, history, storage "
        "(hashed) and screenshot artifacts, and events on request. Drives code REA does not own."
    ),
    args=CaptureBrowserScenarioArgs,
    result=BrowserScenarioCapture,
    examples=[EXAMPLE],
    surface="browser-provider",
    effects=ACTIVE,
)

COMPARE_WEB_CAPTURES = evidence_tool(
    "compare_web_captures",
    "Compare Web Captures",
    (
        "Compare one pair of complete captures passed back unchanged: before/after (inspect_web_page "
        "results, each with an optional discover_webmcp_tools result) by dimension (DOM, scripts, "
        "resources, network, metadata, WebMCP, accessibility, storage), or before_scenario/after_scenario "
        "(capture_browser_scenario results) aligned by step_id, with optional literal normalization. "
        "Missing or truncated evidence and misaligned steps are unknown, never unchanged."
    ),
    args=CompareWebCapturesArgs,
    result=WebCaptureComparison,
    examples=(),  # every accepted input carries two complete captures inline: none is advertised
    surface="browser-provider",
    effects={"mutatesSession", "idempotent"},
)

CAPTURE_ELECTRON_SCENARIO = evidence_tool(
    "capture_electron_scenario",
    "Capture Electron Scenario",
    (
        "Run an owned Electron application when passive CDP observation cannot exercise it: REA launches "
        "executable_path with application_path (own process group, private profile, loopback debugging "
        "port; stopped, verified gone and the profile removed after), runs click and wait actions and "
        "renderer reload or crash over CDP, and returns windows, processes, a navigation and error "
        "timeline and per-action results. IPC, shell, deep-link and other main-process actions need hooks "
        "CDP lacks: they are reported unavailable."
    ),
    args=CaptureElectronScenarioArgs,
    result=ElectronScenario,
    examples=[
        {
            "executable_path": "/opt/electron/electron",
            "application_path": "/opt/example/resources/app/main.js",
            "args": [],
            "actions": [{"step_id": "exercise-ipc", "kind": "click", "selector": "#run"}],
        }
    ],
    surface="electron-provider",
    effects=ACTIVE,
)

CLI_COMMANDS = ("capture-browser-scenario", "compare-web-captures", "capture-electron-scenario")
TOOLS = (CAPTURE_BROWSER_SCENARIO, COMPARE_WEB_CAPTURES, CAPTURE_ELECTRON_SCENARIO)
