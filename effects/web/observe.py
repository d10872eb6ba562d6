"""Passive page observation over CDP: enable domains, listen, read snapshots, never act.

Commands sent are the read-only ones: `*.enable`, `Page.getFrameTree`, `DOM.getDocument`,
`Accessibility.getFullAXTree`, `Page.getResourceTree`, `Debugger.getScriptSource`, storage
queries. The debugger is told to skip every pause so a `debugger;` statement on the page
cannot stop it because REA listened. Nothing navigates, clicks, evaluates or closes; a main
frame that navigates during the window makes the observation `target_changed`.
Raw facts go back to the pure core, which applies the origin policy and redaction.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, NoReturn

import anyio
from returns.result import Failure, Result, Success

from effects.cdp import CdpSession
from rea.errors import ReaError

OPTIONAL_FAILURE = ("protocol_error", "timeout")


def iso_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Recorder:
    """Events of one attach window, bounded: past `max_events` per kind they are counted, not kept."""

    def __init__(self, session: CdpSession, max_events: int) -> None:
        self.session = session
        self.max_events = max_events
        self.requests: dict[str, dict[str, Any]] = {}
        self.websocket_frames: list[dict[str, Any]] = []
        self.console: list[dict[str, Any]] = []
        self.scripts: list[dict[str, Any]] = []
        self.navigations: list[str] = []
        self.detached: str | None = None
        self.open = True  # past the window's end, new events are not the window's
        self.dropped = {"network_requests": 0, "websocket_frames": 0, "console_events": 0, "scripts": 0}

    def listen(self) -> None:
        on = self.session.on
        on("Network.requestWillBeSent", self._request)
        on("Network.responseReceived", self._response)
        on("Network.loadingFinished", self._finished)
        on("Network.loadingFailed", self._failed)
        on("Network.webSocketFrameSent", lambda p: self._frame(p, "sent"))
        on("Network.webSocketFrameReceived", lambda p: self._frame(p, "received"))
        on("Runtime.consoleAPICalled", lambda p: self._keep(self.console, p, "console_events"))
        on("Debugger.scriptParsed", lambda p: self._keep(self.scripts, p, "scripts"))
        on("Page.frameNavigated", self._navigated)
        on("Inspector.detached", lambda p: setattr(self, "detached", str(p.get("reason", "detached"))))

    def _keep(self, into: list[dict[str, Any]], params: dict[str, Any], kind: str) -> None:
        if not self.open:
            return
        if len(into) < self.max_events:
            into.append(params)
        else:
            self.dropped[kind] += 1

    def _request(self, p: dict[str, Any]) -> None:
        rid = str(p.get("requestId", ""))
        if rid in self.requests or not self.open:  # a redirect keeps its chain's first request line
            return
        if len(self.requests) >= self.max_events:
            self.dropped["network_requests"] += 1
            return
        self.requests[rid] = {"sent": p, "response": None, "finished": None, "failed": None}

    def _response(self, p: dict[str, Any]) -> None:
        entry = self.requests.get(str(p.get("requestId", "")))
        if entry is not None:
            entry["response"] = p

    def _finished(self, p: dict[str, Any]) -> None:
        entry = self.requests.get(str(p.get("requestId", "")))
        if entry is not None:
            entry["finished"] = p

    def _failed(self, p: dict[str, Any]) -> None:
        entry = self.requests.get(str(p.get("requestId", "")))
        if entry is not None:
            entry["failed"] = p

    def _frame(self, p: dict[str, Any], direction: str) -> None:
        response = p.get("response") or {}
        self._keep(
            self.websocket_frames,
            {
                "requestId": p.get("requestId"),
                "direction": direction,
                "opcode": response.get("opcode", 0),
                "payloadData": response.get("payloadData", ""),
            },
            "websocket_frames",
        )

    def _navigated(self, p: dict[str, Any]) -> None:
        frame = p.get("frame") or {}
        if not frame.get("parentId"):
            self.navigations.append(str(frame.get("url", "")))


async def optional(
    session: CdpSession, method: str, params: Mapping[str, Any] | None, unavailable: dict[str, str], section: str
) -> dict[str, Any] | None:
    """A snapshot command whose refusal makes one section unavailable instead of failing the call."""
    got = await session.send(method, dict(params or {}))
    return got.alt(lambda err: _skipped(err, unavailable, section)).value_or(None)


def _skipped(err: ReaError, unavailable: dict[str, str], section: str) -> ReaError:
    """An optional section's refusal, recorded as unavailable; any other failure ends the observation."""
    if (err.details or {}).get("reason") not in OPTIONAL_FAILURE:
        raise Stop(err)
    unavailable[section] = err.message
    return err


class Stop(Exception):
    """An observation's end with its error: raised where a step fails, answered by the observer's `except`."""

    def __init__(self, error: ReaError) -> None:
        self.error = error


def stopped(error: ReaError) -> NoReturn:
    """End the observation with this error (`result.alt(stopped).unwrap()`: its value, or the Stop)."""
    raise Stop(error)


async def required(session: CdpSession, method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    got = await session.send(method, dict(params or {}))
    return got.alt(stopped).unwrap()


async def enable(session: CdpSession, recorder: Recorder) -> None:
    recorder.listen()
    for method in ("Page.enable", "Network.enable", "Runtime.enable", "DOMStorage.enable"):
        await required(session, method)
    await required(session, "Debugger.enable", {"maxScriptsCacheSize": 0})
    await required(session, "Debugger.setSkipAllPauses", {"skip": True})


async def snapshots(session: CdpSession, unavailable: dict[str, str]) -> dict[str, Any]:
    frames = await required(session, "Page.getFrameTree")
    document = await required(session, "DOM.getDocument", {"depth": -1, "pierce": True})
    ax = await optional(session, "Accessibility.getFullAXTree", None, unavailable, "accessibility")
    resources = await optional(session, "Page.getResourceTree", None, unavailable, "resources")
    return {
        "frame_tree": frames.get("frameTree"),
        "document": document.get("root"),
        "ax_nodes": None if ax is None else ax.get("nodes", []),
        "resource_tree": None if resources is None else resources.get("frameTree"),
    }


async def storage(session: CdpSession, origin: str | None, unavailable: dict[str, str]) -> dict[str, Any] | None:
    """The origin's storage inventory; values come back only for fingerprinting in the pure core."""
    if origin is None:
        return None
    usage = await optional(session, "Storage.getUsageAndQuota", {"origin": origin}, unavailable, "storage")
    local = await optional(
        session,
        "DOMStorage.getDOMStorageItems",
        {"storageId": {"securityOrigin": origin, "isLocalStorage": True}},
        unavailable,
        "storage_keys",
    )
    sess = await optional(
        session,
        "DOMStorage.getDOMStorageItems",
        {"storageId": {"securityOrigin": origin, "isLocalStorage": False}},
        unavailable,
        "storage_keys",
    )
    idb = await optional(session, "IndexedDB.requestDatabaseNames", {"securityOrigin": origin}, unavailable, "storage")
    caches = await optional(
        session, "CacheStorage.requestCacheNames", {"securityOrigin": origin}, unavailable, "storage"
    )
    cookies = await optional(session, "Network.getCookies", {"urls": [origin + "/"]}, unavailable, "storage")
    return {
        "origin": origin,
        "usage": None if usage is None else usage.get("usage"),
        "quota": None if usage is None else usage.get("quota"),
        "local": None if local is None else local.get("entries", []),
        "session": None if sess is None else sess.get("entries", []),
        "indexed_db": None if idb is None else idb.get("databaseNames", []),
        "caches": None if caches is None else [c.get("cacheName", "") for c in caches.get("caches", [])],
        "cookies": None if cookies is None else [[c.get("name", ""), c.get("value", "")] for c in cookies["cookies"]],
    }


async def script_sources(session: CdpSession, scripts: list[dict[str, Any]], budget: int) -> dict[str, str]:
    """Sources of the parsed scripts, in order, until `budget` bytes are spent."""
    sources: dict[str, str] = {}
    spent = 0
    for script in scripts:
        sid = str(script.get("scriptId", ""))
        if not script.get("url") or spent + int(script.get("length", 0)) > budget:
            continue
        match await session.send("Debugger.getScriptSource", {"scriptId": sid}):
            case Success(found):
                text = str(found.get("scriptSource", ""))
                spent += len(text.encode("utf-8", "surrogatepass"))
                sources[sid] = text
    return sources


async def bodies(session: CdpSession, requests: dict[str, dict[str, Any]]) -> None:
    """Request and response bodies of JSON exchanges (approved shapes only; values stay in the effect's reply)."""
    for rid, entry in list(requests.items()):
        response = (entry.get("response") or {}).get("response") or {}
        if "json" in str(response.get("mimeType", "")) and entry.get("finished") is not None:
            match await session.send("Network.getResponseBody", {"requestId": rid}):
                case Success(body) if not body.get("base64Encoded"):
                    entry["response_body"] = body.get("body")
        posted = (entry["sent"].get("request") or {}).get("postData")
        if isinstance(posted, str):
            entry["request_body"] = posted


async def observe_page(session: CdpSession, options: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    recorder = Recorder(session, int(options.get("max_events", 5000)))
    unavailable: dict[str, str] = {}
    started_at, started_ms, clock = iso_now(), time.time() * 1000, time.monotonic()
    try:
        await enable(session, recorder)
        snap = await snapshots(session, unavailable)
        remaining = int(options.get("observation_ms", 0)) / 1000 - (time.monotonic() - clock)
        if remaining > 0:
            await anyio.sleep(remaining)
        ended_at = iso_now()
        recorder.open = False
        _unchanged(session, recorder).alt(stopped).unwrap()
        main = (snap["frame_tree"] or {}).get("frame") or {}
        origin = options.get("target_origin")
        store = await storage(session, origin if isinstance(origin, str) else None, unavailable)
        sources = {}
        if options.get("include_script_sources"):
            sources = await script_sources(session, recorder.scripts, int(options.get("max_script_source_bytes", 0)))
        if options.get("include_json_body_shapes"):
            await bodies(session, recorder.requests)
        _unchanged(session, recorder).alt(stopped).unwrap()
    except Stop as stop:
        return Failure(stop.error)
    return Success(
        {
            **snap,
            "main_frame_url": main.get("url"),
            "started_at": started_at,
            "started_ms": started_ms,
            "ended_at": ended_at,
            "scripts": recorder.scripts,
            "sources": sources,
            "requests": list(recorder.requests.items()),
            "websocket_frames": recorder.websocket_frames,
            "console": recorder.console,
            "storage": store,
            "dropped": recorder.dropped,
            "unavailable": unavailable,
        }
    )


def _unchanged(session: CdpSession, recorder: Recorder) -> Result[None, ReaError]:
    """The page is the one observed: still attached, never navigated away."""
    if recorder.detached is not None:
        return Failure(session.failure("disconnected", f"the target detached during observation ({recorder.detached})"))
    if recorder.navigations:
        return Failure(
            session.failure(
                "target_changed",
                f"the page navigated to {recorder.navigations[-1]!r} during observation",
                navigations=len(recorder.navigations),
            )
        )
    return Success(None)
