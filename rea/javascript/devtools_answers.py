"""The DevTools effects' answers, structured once where they enter the pure core.

DiscoverDevtools answers `/json/version`, `/json/list` and each file URL's canonical path;
ObserveTarget answers one window: the target attached to, the raw events kept, the finish
commands' results and what went wrong. Both arrive as the endpoint wrote them. Here the
fields the runtime and Electron observations read are taken out once, each in the one
reading both tools shared (a missing or empty value is the empty string, a non-string is its
text), so the rest decides over records. The events' params and the command results are
the protocol's own messages (scriptParsed, Page.getFrameTree, DOM.getDocument, ...): they
are read field by field where they are folded and stay as the endpoint sent them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs


def _text(value: object) -> str:
    return str(value) if value else ""


def _object(value: object) -> dict[Any, Any]:
    return value if isinstance(value, dict) else {}


@attrs.frozen(kw_only=True)
class DevtoolsVersion:
    """`/json/version`: each field its text, or "" when the endpoint leaves it out."""

    browser: str
    protocol_version: str
    webkit_version: str
    user_agent: str
    v8_text: str
    v8_version: str | None  # V8-Version exactly when the endpoint sends a string


def version_of(raw: object) -> DevtoolsVersion:
    found = _object(raw)
    v8 = found.get("V8-Version")
    return DevtoolsVersion(
        browser=_text(found.get("Browser")),
        protocol_version=_text(found.get("Protocol-Version")),
        webkit_version=_text(found.get("WebKit-Version")),
        user_agent=_text(found.get("User-Agent")),
        v8_text=_text(v8),
        v8_version=v8 if isinstance(v8, str) else None,
    )


@attrs.frozen(kw_only=True)
class ListedTarget:
    """One `/json/list` entry (effects.cdp keeps only entries whose id is a string)."""

    id: str
    type: str
    title: str
    url: str  # its text; a file target's is a file: URL
    attached: bool
    connectable: bool  # it offers a debugger websocket
    opener_id: str | None
    parent_frame_id: str | None


def target_of(raw: object) -> ListedTarget:
    found = _object(raw)
    return ListedTarget(
        id=str(found.get("id")),
        type=_text(found.get("type")),
        title=_text(found.get("title")),
        url=_text(found.get("url")),
        attached=bool(found.get("attached", False)),
        connectable=isinstance(found.get("webSocketDebuggerUrl"), str),
        opener_id=_text(found.get("openerId")) or None,
        parent_frame_id=_text(found.get("parentFrameId")) or None,
    )


@attrs.frozen(kw_only=True)
class Discovery:
    version: DevtoolsVersion
    targets: tuple[ListedTarget, ...]
    realpaths: Mapping[str, str]  # file: URL -> its canonical path


def discovery_of(raw: object) -> Discovery:
    found = _object(raw)
    return Discovery(
        version=version_of(found.get("version")),
        targets=tuple(target_of(t) for t in found.get("targets") or ()),
        realpaths=dict(found.get("realpaths") or {}),
    )


@attrs.frozen(kw_only=True)
class CommandError:
    method: str
    reason: object  # the failure's reason as the CDP boundary stated it


Event = tuple[int, str, object]  # ms into the window, method, the protocol's params


@attrs.frozen(kw_only=True)
class Window:
    """One ObserveTarget window."""

    version: DevtoolsVersion
    target: ListedTarget
    events: tuple[Event, ...]
    observed: int
    dropped: Mapping[str, int]  # method -> events past max_events
    results: Mapping[str, Any]  # finish command -> the protocol's answer (third-party JSON, read as it is)
    errors: tuple[CommandError, ...]
    exited: bool
    elapsed_ms: int
    started_at: str
    ended_at: str
    sources: Mapping[str, str | None]  # scriptId -> source text (None past the budget)


def window_of(raw: object) -> Window:
    found = _object(raw)
    return Window(
        version=version_of(found.get("version")),
        target=target_of(found.get("target")),
        events=tuple((at, method, params) for at, method, params in found.get("events") or ()),
        observed=found.get("observed") or 0,
        dropped=dict(found.get("dropped") or {}),
        results=dict(found.get("results") or {}),
        errors=tuple(CommandError(method=e["method"], reason=e["reason"]) for e in found.get("errors") or ()),
        exited=bool(found.get("exited")),
        elapsed_ms=found.get("elapsed_ms") or 0,
        started_at=str(found.get("started_at") or ""),
        ended_at=str(found.get("ended_at") or ""),
        sources=dict(found.get("sources") or {}),
    )
