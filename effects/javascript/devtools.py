"""DevTools discovery and bounded observation over the shared CDP boundary (effects.cdp).

Events are kept in arrival order up to `max_events` (the rest counted); the window ends
early when the websocket closes (the runtime exited or the page went away), and the
answer says so instead of failing: what was seen before the exit is the observation.
"""

from __future__ import annotations

import datetime
import os
import time
from typing import Any
from urllib.parse import unquote, urlsplit

import anyio
from returns.result import Failure, Result, Success

from effects import cdp
from effects.progress import Progress
from rea.errors import ReaError
from rea.javascript.devtools_effects import DiscoverDevtools, ObserveTarget


async def discover(effect: DiscoverDevtools, progress: Progress) -> Result[Any, ReaError]:
    match await cdp.browser_version(effect.endpoint, effect.operation):
        case Success(version):
            targets = await cdp.list_targets(effect.endpoint, effect.operation)
            return targets.map(lambda listed: {"version": version, "targets": listed, "realpaths": _realpaths(listed)})
        case refused:
            return refused


def _realpaths(targets: list[dict[str, Any]]) -> dict[str, str]:
    """file: URL -> the canonical path (symlinks resolved) of each file target."""
    out = {}
    for t in targets:
        url = t.get("url")
        if isinstance(url, str) and url.startswith("file://"):
            out[url] = os.path.realpath(unquote(urlsplit(url).path))
    return out


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


MAX_SOURCE_BYTES = 16 << 20


async def _sources(session: cdp.CdpSession, events: list[list[Any]], limit: int) -> dict[str, Any]:
    """scriptId -> source text (or None past the budget) of the first `limit` file: scripts."""
    out: dict[str, Any] = {}
    budget = MAX_SOURCE_BYTES
    for _at, method, params in events:
        if len(out) >= limit or session.disconnected:
            break
        if method == "Debugger.scriptParsed" and str(params.get("url", "")).startswith("file://"):
            got = await session.send("Debugger.getScriptSource", {"scriptId": params["scriptId"]})
            text = got.map(lambda answer: answer.get("scriptSource")).value_or(None)
            fits = isinstance(text, str) and len(text.encode("utf-8", "surrogatepass")) <= budget
            out[params["scriptId"]] = text if fits else None
            budget -= len(text.encode("utf-8", "surrogatepass")) if fits and isinstance(text, str) else 0
    return out


class _Recorder:
    def __init__(self, limit: int, started: float) -> None:
        self.limit, self.started = limit, started
        self.events: list[list[Any]] = []
        self.observed = 0
        self.dropped: dict[str, int] = {}

    def handler(self, method: str) -> Any:
        def keep(params: dict[str, Any]) -> None:
            self.observed += 1
            if len(self.events) < self.limit:
                self.events.append([round((time.monotonic() - self.started) * 1000), method, params])
            else:
                self.dropped[method] = self.dropped.get(method, 0) + 1

        return keep


async def _commands(session: cdp.CdpSession, commands: Any, results: dict[str, Any], errors: list[Any]) -> None:
    for method, params in commands:
        match await session.send(method, dict(params)):
            case Success(answer):
                results[method] = answer
            case Failure(error):
                errors.append({"method": method, "reason": (error.details or {}).get("reason")})
                if session.disconnected:
                    return


async def observe(effect: ObserveTarget, progress: Progress) -> Result[Any, ReaError]:
    match await cdp.browser_version(effect.endpoint, effect.operation):
        case Success(version):
            match await cdp.attach(effect.endpoint, effect.target_id, effect.operation):
                case Success(session):
                    return Success(await _observation(effect, version, session))
                case refused:
                    return refused
        case refused:
            return refused


async def _observation(effect: ObserveTarget, version: dict[str, Any], session: cdp.CdpSession) -> dict[str, Any]:
    """Listen, run the start commands, wait out the window (or the target's exit), read the scripts' sources,
    run the finish commands; the session is closed whatever happens."""
    started, started_at = time.monotonic(), _now()
    recorder = _Recorder(effect.max_events, started)
    for method in effect.listen:
        session.on(method, recorder.handler(method))
    results: dict[str, Any] = {}
    errors: list[Any] = []
    try:
        await _commands(session, effect.start, results, errors)
        with anyio.move_on_after(effect.observation_ms / 1000):
            while not session.disconnected:
                await anyio.sleep(0.02)
        exited = session.disconnected
        ended_at = _now()
        sources = await _sources(session, recorder.events, effect.script_sources) if not exited else {}
        if not exited:
            await _commands(session, effect.finish, results, errors)
            exited = session.disconnected
    finally:
        await session.close()
    return {
        "version": version,
        "target": session.target,
        "events": recorder.events,
        "observed": recorder.observed,
        "dropped": recorder.dropped,
        "results": results,
        "errors": errors,
        "exited": exited,
        "elapsed_ms": round((time.monotonic() - started) * 1000),
        "started_at": started_at,
        "ended_at": ended_at,
        "sources": sources,
    }


HANDLERS = {DiscoverDevtools: discover, ObserveTarget: observe}
