"""capture_electron_scenario's runner: launch the Electron executable with the app, drive windows over CDP.

The same owned-browser machinery as capture_browser_scenario (OwnedChromium: own process group,
private profile, loopback debugging port, verified gone, profile removed) with the application
as the launch argument. Clicks use the scenario page's real mouse input; reload and crash are
Page.reload / Page.crash on the chosen window. Main-process hooks (IPC, shell, deep links) do not
exist over CDP: deep-link actions fail saying so and those families are reported unavailable.
Tested against headless Chromium, which speaks the same protocol (no Electron binary here).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import Any

import anyio
import attrs
import psutil
from returns.result import Failure, Result, Success

from effects import cdp
from effects.chain import then
from effects.chromium import OwnedChromium
from effects.web.scenario import cleanup_failure
from effects.web.scenario_page import ScenarioPage, StepFailed
from rea.errors import ReaError, invalid_request
from rea.loopback import Endpoint
from rea.web.scenario_effects import RunScenario

PAGE_ARGS: dict[str, Any] = {
    "capture": {"events": ["page-errors", "frames"]},
    "request_replay": {"mode": "disabled"},
    "environment": None,
    "storage": {"cookies": []},
}
UNAVAILABLE = ["ipc", "shell", "permission", "download", "popup-attempt", "updater", "preload", "protocol"]


def _windows(targets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [t for t in targets if t.get("type") == "page"]


def _processes(pid: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    try:
        root = psutil.Process(pid)
        members = [root, *root.children(recursive=True)]
    except psutil.Error:
        return out
    for proc in members:
        try:
            cmd = proc.cmdline()
            kind = next((a.split("=", 1)[1] for a in cmd if a.startswith("--type=")), "browser")
            service = next((a.split("=", 1)[1] for a in cmd if a.startswith("--utility-sub-type=")), None)
            out.append(
                {"pid": proc.pid, "type": kind or "browser", "name": proc.name() or None, "service_name": service}
            )
        except psutil.Error:
            continue
    return sorted(out, key=lambda p: p["pid"])


async def _page(endpoint: Endpoint, target: dict[str, Any], operation: str) -> Result[ScenarioPage, ReaError]:
    return await then(await cdp.connect(endpoint, target, operation), _listening)


async def _listening(session: cdp.CdpSession) -> Result[ScenarioPage, ReaError]:
    page = ScenarioPage(session, PAGE_ARGS, (), {}, [])
    page.listen()
    for method in ("Page.enable", "Runtime.enable"):
        (await page.session.send(method)).unwrap()
    return Success(page)


async def _act(page: ScenarioPage, action: Mapping[str, Any]) -> None:
    kind = action["kind"]
    if kind == "wait":
        await anyio.sleep(action["duration_ms"] / 1000)
    elif kind == "click":
        await page.click({"kind": "css", "selector": action["selector"]})
    elif kind == "renderer-reload":
        await page.reload()
    elif kind == "renderer-crash":
        await page.session.send("Page.crash", timeout_s=2)  # the renderer dies: no answer is expected


async def _actions(endpoint: Endpoint, effect: RunScenario, timeline: list[dict[str, Any]]) -> list[dict[str, Any]]:
    results = []
    pages: dict[str, ScenarioPage] = {}
    failed = False
    try:
        for action in effect.args["actions"]:
            started = time.monotonic()
            index = action.get("window_index") if action["kind"] in ("wait", "deep-link") else action["window_index"]
            row = {"step_id": action["step_id"], "kind": action["kind"], "window_index": index, "target": None}
            if failed:
                results.append(
                    {**row, "elapsed_ms": 0, "status": "cancelled", "error": "not run: an earlier action failed"}
                )
                continue
            status, error = "completed", None
            try:
                if action["kind"] == "deep-link":
                    raise StepFailed("deep-link delivery needs Electron main-process hooks, which CDP does not offer")
                if index is not None:
                    windows = _windows((await cdp.list_targets(endpoint, effect.operation)).unwrap())
                    if index >= len(windows):
                        raise StepFailed(f"window_index {index}: the application has {len(windows)} window(s)")
                    target = windows[index]
                    row["target"] = target["id"]
                    if target["id"] not in pages:
                        pages[target["id"]] = (await _page(endpoint, target, effect.operation)).unwrap()
                    with anyio.fail_after(30):
                        await _act(pages[target["id"]], action)
                else:
                    await anyio.sleep(action["duration_ms"] / 1000)
            except TimeoutError:
                status, error = "failed", f"{action['kind']} did not complete within 30 s"
            except StepFailed as exc:
                status, error = "failed", str(exc)
            except Exception as exc:
                status, error = "failed", f"{type(exc).__name__}: {exc}"
            failed = status != "completed"
            results.append(
                {**row, "elapsed_ms": int((time.monotonic() - started) * 1000), "status": status, "error": error}
            )
    finally:
        for page in pages.values():
            timeline += [_timeline(e, page) for e in page.events]
            await page.session.close()
    return results


def _timeline(event: Mapping[str, Any], page: ScenarioPage) -> dict[str, Any]:
    error = event["kind"] == "page-error"
    return {
        "sequence": 1,
        "correlation_id": None,
        "kind": "error" if error else "navigation",
        "event": event.get("message") if error else event["kind"],
        "phase": "failed" if error else "observed",
        "channel": None,
        "direction": None,
        "sender": None,
        "receiver": None,
        "frame": None,
        "target": str(page.session.target.get("id")),
        "argument_shapes": [],
        "result_shape": None,
        "process_type": "renderer",
        "source": "cdp-" + ("runtime" if error else "page"),
        "capture_method": "event-emitter",
        "artifact_path": None,
        "artifact_sha256": None,
        "error": error,
    }


async def run_electron(effect: RunScenario) -> Result[dict[str, Any], ReaError]:
    args = effect.args
    for name in ("executable_path", "application_path"):
        if not os.path.exists(args[name]) or (name == "executable_path" and not os.access(args[name], os.X_OK)):
            return Failure(invalid_request(f"{name} {args[name]!r} does not exist or cannot run", field=name))
    chromium = OwnedChromium(effect.operation)
    timeline: list[dict[str, Any]] = []
    try:
        started = await chromium.start(
            extra_args=list(args["args"]), url=args["application_path"], executable=args["executable_path"]
        )
        ran = await then(started, lambda endpoint: _run(chromium, endpoint, effect, timeline))
    finally:
        with anyio.CancelScope(shield=True):
            remaining = await chromium.stop()
    # a failed start is the answer; a finished run whose application outlived its stop is cleanup_incomplete
    return ran.bind(
        lambda run: (
            Failure(cleanup_failure("The Electron application", remaining))
            if remaining
            else Success(_answer(args, run, timeline))
        )
    )


@attrs.frozen(kw_only=True)
class _Run:
    """What one run of the application observed before it was stopped."""

    version: dict[str, Any]
    actions: list[dict[str, Any]]
    windows: list[dict[str, Any]]
    processes: list[dict[str, Any]]


async def _run(
    chromium: OwnedChromium, endpoint: Endpoint, effect: RunScenario, timeline: list[dict[str, Any]]
) -> Result[_Run, ReaError]:
    version = (await cdp.browser_version(endpoint, effect.operation)).unwrap()
    actions = await _actions(endpoint, effect, timeline)
    windows = _windows((await cdp.list_targets(endpoint, effect.operation)).value_or([]))
    processes = _processes(chromium.process.pid) if chromium.process is not None else []
    return Success(_Run(version=version, actions=actions, windows=windows, processes=processes))


def _answer(args: Mapping[str, Any], run: _Run, timeline: list[dict[str, Any]]) -> dict[str, Any]:
    version, actions, windows, processes = run.version, run.actions, run.windows, run.processes
    for i, event in enumerate(timeline, start=1):
        event["sequence"] = i
    product = str(version.get("Browser") or "unknown")
    return {
        "application": {
            "executable_path": args["executable_path"],
            "application_path": args["application_path"],
            "electron_version": product.partition("/")[2] or product,
            "process_ownership": "provider-owned",
            "cleanup": "terminated-owned-process",
        },
        "actions": actions,
        "windows": [
            {
                "window_id": w["id"],
                "web_contents_id": w["id"],
                "url": w.get("url", ""),
                "title": w.get("title", ""),
                "visible": None,
                "destroyed": False,
            }
            for w in windows
        ],
        "processes": {"items": processes},
        "ipc": {"events": [], "observed": 0, "dropped": None},
        "timeline": {"events": timeline, "observed": len(timeline), "dropped": 0},
        "coverage": {
            "status": "partial_attach",
            "observed_event_families": ["navigation", "error", "web-contents-lifecycle"],
            "unavailable_event_families": UNAVAILABLE,
            "observed_roles": sorted({p["type"] for p in processes}),
            "pre_capture_activity": "unavailable",
        },
        "limitations": [
            "Driven over the Chrome DevTools Protocol only: IPC, shell, permission, download, popup, updater, "
            "preload and protocol events need Electron main-process hooks and are unavailable, not absent.",
            "Windows are the page targets at the end of the run, in target order; visibility is not reported.",
            "Tested against headless Chromium (same protocol); no Electron binary is installed on this host.",
        ],
    }
