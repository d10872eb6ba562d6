"""The other passive observers: WebMCP declarations, a viewport screenshot, listeners, a session
timeline, and one precise-coverage window. Each answers raw CDP facts for the pure core.

None navigates, clicks or evaluates page script. WebMCP's `invokeTool` is never sent.
`observe_web_execution` is the one that changes the page's engine state (precise coverage
resets V8's counters and deoptimizes), which its contract declares.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Mapping
from typing import Any

import anyio
from returns.result import Failure, Result, Success

from effects.cdp import CdpSession
from effects.web.observe import Stop, iso_now, required, stopped
from rea.errors import ReaError, invalid_request
from rea.web.scope import in_scope

Facts = dict[str, Any]
SOURCE_BUDGET = 32 << 20


async def _until(deadline: float, stopped: Callable[[], bool]) -> None:
    """Sleep until the monotonic deadline, or until `stopped()` (an event the window ends on)."""
    while time.monotonic() < deadline and not stopped():
        await anyio.sleep(min(0.05, max(0.0, deadline - time.monotonic())))


async def _main_frame(session: CdpSession) -> Facts:
    await required(session, "Page.enable")
    tree = await required(session, "Page.getFrameTree")
    return dict((tree.get("frameTree") or {}).get("frame") or {})


async def observe_webmcp(session: CdpSession, options: Mapping[str, Any]) -> Result[Facts, ReaError]:
    """toolsAdded/toolsRemoved from WebMCP.enable through the window; the set at its end."""
    current: dict[tuple[str, str], Facts] = {}
    removed = 0

    def added(params: Facts) -> None:
        for tool in params.get("tools") or []:
            current[(str(tool.get("frameId", "")), str(tool.get("name", "")))] = tool

    def gone(params: Facts) -> None:
        nonlocal removed
        for tool in params.get("tools") or []:
            removed += current.pop((str(tool.get("frameId", "")), str(tool.get("name", ""))), None) is not None

    session.on("WebMCP.toolsAdded", added)
    session.on("WebMCP.toolsRemoved", gone)
    try:
        frame = await _main_frame(session)
        match await session.send("WebMCP.enable"):
            case Failure(refused) if (refused.details or {}).get("reason") != "protocol_error":
                return Failure(refused)
            case Failure(refused):  # the browser has no WebMCP domain
                return Success({"frame": frame, "available": False, "reason": refused.message, "tools": []})
        await anyio.sleep(int(options.get("observation_ms", 0)) / 1000)
        await session.send("WebMCP.disable")
    except Stop as stop:
        return Failure(stop.error)
    return Success({"frame": frame, "available": True, "tools": list(current.values()), "removed": removed})


async def capture_screenshot(session: CdpSession, options: Mapping[str, Any]) -> Result[Facts, ReaError]:
    try:
        frame = await _main_frame(session)
        shot = await required(session, "Page.captureScreenshot", {"format": "png", "fromSurface": True})
    except Stop as stop:
        return Failure(stop.error)
    data = base64.b64decode(str(shot.get("data", "")))
    limit = int(options.get("maximum_image_bytes", 0))
    if len(data) > limit:
        return Failure(
            session.failure("payload_limit", f"the PNG is {len(data)} bytes, over maximum_image_bytes {limit}")
        )
    return Success({"frame": frame, "png": data, "captured_at": iso_now()})


def _scripts(session: CdpSession) -> tuple[list[Facts], dict[int, Facts]]:
    scripts: list[Facts] = []
    contexts: dict[int, Facts] = {}
    session.on("Debugger.scriptParsed", scripts.append)
    session.on(
        "Runtime.executionContextCreated",
        lambda p: contexts.__setitem__(int((p.get("context") or {}).get("id", 0)), p.get("context") or {}),
    )
    return scripts, contexts


async def _sources(session: CdpSession, ids: list[str]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    spent = 0
    for sid in dict.fromkeys(ids):
        got = await session.send("Debugger.getScriptSource", {"scriptId": sid})
        text = got.map(lambda found: str(found.get("scriptSource", ""))).value_or(None)
        if text is not None and spent + len(text) > SOURCE_BUDGET:
            text = None
        spent += len(text or "")
        out[sid] = text
    return out


async def _debugger(session: CdpSession) -> None:
    await required(session, "Runtime.enable")
    await required(session, "Debugger.enable", {"maxScriptsCacheSize": 0})
    await required(session, "Debugger.setSkipAllPauses", {"skip": True})


def _bad_selector(options: Mapping[str, Any], refused: ReaError) -> ReaError:
    return invalid_request(
        f"selector {options['selector']!r} is not a valid CSS selector ({refused.message})",
        field="selector",
        accepted="a CSS selector document.querySelector accepts",
    )


async def inspect_listeners(session: CdpSession, options: Mapping[str, Any]) -> Result[Facts, ReaError]:
    """Listeners on the selector's first match: DOM.querySelector, one object handle, released after."""
    scripts, contexts = _scripts(session)
    group = "rea-listeners"
    try:
        frame = await _main_frame(session)
        await _debugger(session)
        root = await required(session, "DOM.getDocument", {"depth": 0})
        found = await session.send(
            "DOM.querySelector", {"nodeId": root["root"]["nodeId"], "selector": str(options["selector"])}
        )
        node_id = int(found.alt(lambda refused: stopped(_bad_selector(options, refused))).unwrap().get("nodeId", 0))
        listeners: list[Facts] = []
        backend = None
        if node_id:
            described = await required(session, "DOM.describeNode", {"nodeId": node_id})
            backend = (described.get("node") or {}).get("backendNodeId")
            handle = await required(session, "DOM.resolveNode", {"nodeId": node_id, "objectGroup": group})
            got = await required(
                session, "DOMDebugger.getEventListeners", {"objectId": handle["object"]["objectId"], "depth": 0}
            )
            listeners = list(got.get("listeners") or [])
        released = await session.send("Runtime.releaseObjectGroup", {"objectGroup": group})
        released.alt(lambda _: stopped(session.failure("cleanup_failed", "the listener handles could not be released")))
        sources = await _sources(session, [str(item.get("scriptId")) for item in listeners])
    except Stop as stop:
        return Failure(stop.error)
    return Success(
        {
            "frame": frame,
            "backend_node_id": backend,
            "listeners": listeners,
            "scripts": scripts,
            "contexts": contexts,
            "sources": sources,
            "inspected_at": iso_now(),
        }
    )


async def observe_execution(session: CdpSession, options: Mapping[str, Any]) -> Result[Facts, ReaError]:
    """Precise call-count coverage over the window, with the requests the page made and their stacks."""
    scripts, contexts = _scripts(session)
    requests: list[Facts] = []
    events: dict[str, Any] = {"navigated": False, "detached": False}
    session.on("Network.requestWillBeSent", requests.append)
    session.on(
        "Page.frameNavigated",
        lambda p: events.__setitem__("navigated", events["navigated"] or not (p.get("frame") or {}).get("parentId")),
    )
    session.on("Inspector.detached", lambda p: events.__setitem__("detached", True))
    try:
        frame = await _main_frame(session)
        await _debugger(session)
        await required(session, "Network.enable")
        await required(session, "Runtime.setAsyncCallStackDepth", {"maxDepth": 8})
        await required(session, "Profiler.enable")
        armed_at = iso_now()
        started = await required(
            session,
            "Profiler.startPreciseCoverage",
            {"callCount": True, "detailed": True, "allowTriggeredUpdates": False},
        )
        await _until(
            time.monotonic() + int(options["observation_ms"]) / 1000, lambda: events["navigated"] or events["detached"]
        )
        taken = await session.send("Profiler.takePreciseCoverage")
        ended_at = iso_now()
        await required(session, "Profiler.stopPreciseCoverage")
        await required(session, "Profiler.disable")
        await required(session, "Runtime.setAsyncCallStackDepth", {"maxDepth": 0})
        coverage = taken.value_or(None)
        ids = [str(s.get("scriptId")) for s in (coverage or {}).get("result", [])]
        sources = await _sources(session, ids)
    except Stop as stop:
        return Failure(stop.error)
    return Success(
        {
            "frame": frame,
            "armed_at": armed_at,
            "ended_at": ended_at,
            "started_seconds": started.get("timestamp", 0.0),
            "coverage": coverage,
            "coverage_error": taken.swap().map(lambda error: error.message).value_or(None),
            "scripts": scripts,
            "contexts": contexts,
            "sources": sources,
            "requests": requests,
            "end": "target_terminated"
            if events["detached"]
            else "document_changed"
            if events["navigated"]
            else "window_elapsed",
        }
    )


async def observe_session(session: CdpSession, options: Mapping[str, Any]) -> Result[Facts, ReaError]:
    """Navigation, redirect, lifecycle and failure events through the window, in arrival order."""
    armed = time.monotonic()
    timeline: list[tuple[float, str, Facts]] = []
    state: dict[str, str | None] = {"stop": None}
    scope = tuple(options.get("scope") or ())

    def keep(kind: str) -> Any:
        def handler(params: Facts) -> None:
            timeline.append(((time.monotonic() - armed) * 1000, kind, params))
            if kind == "Page.frameNavigated" and not (params.get("frame") or {}).get("parentId"):
                url = str((params.get("frame") or {}).get("url", ""))
                if scope and not in_scope(url, scope):
                    state["stop"] = "target_left_scope"
            if kind in ("Inspector.targetCrashed", "Inspector.detached"):
                state["stop"] = "target_terminated"

        return handler

    for kind in (
        "Page.frameRequestedNavigation",
        "Page.frameNavigated",
        "Page.navigatedWithinDocument",
        "Page.lifecycleEvent",
        "Network.requestWillBeSent",
        "Network.loadingFailed",
        "Inspector.targetCrashed",
        "Inspector.detached",
    ):
        session.on(kind, keep(kind))
    try:
        frame = await _main_frame(session)
        await required(session, "Page.setLifecycleEventsEnabled", {"enabled": True})
        await required(session, "Network.enable")
        armed_at = iso_now()
        await _until(armed + int(options["observation_ms"]) / 1000, lambda: state["stop"] is not None)
        ended_at = iso_now()
        final = None
        if state["stop"] != "target_terminated":
            match await session.send("Page.getFrameTree"):
                case Success(tree):
                    top = (tree.get("frameTree") or {}).get("frame") or {}
                    final = str(top.get("url", "")) + str(top.get("urlFragment", ""))
    except Stop as stop:
        return Failure(stop.error)
    return Success(
        {
            "frame": frame,
            "armed_at": armed_at,
            "ended_at": ended_at,
            "timeline": timeline,
            "final_url": final,
            "end": state["stop"] or "window_elapsed",
        }
    )
