"""observe_web_session's timeline: navigation, redirect, lifecycle and failure events, classified.

Raw CDP events arrive in order with their arrival time; each becomes one of the reference's
timeline types. URLs outside the origin policy are withheld (`url: null`) and scoped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import attrs

from rea.web.completeness import Ledger, classify
from rea.web.records.browser import BrowserVersion, Scope
from rea.web.records.runtime import (
    SessionTarget,
    SessionWindow,
    TimelineEvent,
    TimelineEventType,
    WebObservationSession,
)
from rea.web.scope import clean_url, in_scope
from rea.web.targets import PageTarget

LIMITATIONS = (
    "Only events within the armed window are recorded; what the user did is not recorded, only its effects.",
)


def _scope(url: str | None, origins: Sequence[str]) -> Scope | None:
    if url is None:
        return None
    if not url.startswith(("http://", "https://")):
        return "unsupported"
    return "approved" if in_scope(url, origins) else "outside_policy"


@attrs.frozen(kw_only=True)
class _Fields:
    """What one raw event says, as the browser reported it (CDP values, not yet checked)."""

    frame_id: Any = None
    loader_id: Any = None
    request_id: Any = None
    url: Any = None
    detail: Any = None


@attrs.frozen(kw_only=True)
class _Event:
    """One raw event read once: its arrival time, the timeline type it may become (None: not a timeline
    event) and its fields. Whether a committed navigation was a reload depends on the events before it,
    so that is decided over these records, in order."""

    at: Any
    type: TimelineEventType | None
    fields: _Fields = _Fields()
    restored: bool = False


@attrs.frozen(kw_only=True)
class Recording:
    """The observer's answer for one session window (effects/web/observers.py), read once: the main
    frame when armed, the events in arrival order, the final URL and how the window ended."""

    frame_key: str
    frame_url: object
    events: tuple[_Event, ...]
    final_url: object
    armed_at: str
    ended_at: str
    end: Literal["window_elapsed", "target_left_scope", "target_terminated"]


# `p` is one CDP event's params as Chromium sent them (a third-party payload): read here, once, per event type.
def _read_event(at: Any, kind: str, p: Mapping[str, Any]) -> _Event:
    """The record of one raw event (type None when it is not a timeline event)."""
    frame = p.get("frame") or {}
    if kind == "Page.frameRequestedNavigation":
        return _Event(
            at=at,
            type="navigation_requested",
            fields=_Fields(frame_id=p.get("frameId"), url=p.get("url"), detail=p.get("reason")),
        )
    if kind == "Page.frameNavigated":
        return _Event(
            at=at,
            type="navigation_committed",
            fields=_Fields(
                frame_id=frame.get("id"), loader_id=frame.get("loaderId"), url=frame.get("url"), detail=p.get("type")
            ),
            restored=p.get("type") == "BackForwardCacheRestore",
        )
    if kind == "Page.navigatedWithinDocument":
        return _Event(
            at=at,
            type="same_document_navigation",
            fields=_Fields(frame_id=p.get("frameId"), url=p.get("url"), detail=p.get("navigationType")),
        )
    if kind == "Page.lifecycleEvent":
        return _Event(
            at=at,
            type="lifecycle",
            fields=_Fields(frame_id=p.get("frameId"), loader_id=p.get("loaderId"), detail=p.get("name")),
        )
    if kind == "Network.requestWillBeSent" and p.get("redirectResponse"):
        return _Event(
            at=at,
            type="redirect",
            fields=_Fields(
                frame_id=p.get("frameId"),
                loader_id=p.get("loaderId"),
                request_id=p.get("requestId"),
                url=(p.get("request") or {}).get("url"),
                detail=str((p.get("redirectResponse") or {}).get("status")),
            ),
        )
    if kind == "Network.loadingFailed" and p.get("type") == "Document":
        return _Event(
            at=at, type="load_failed", fields=_Fields(request_id=p.get("requestId"), detail=p.get("errorText"))
        )
    if kind in ("Inspector.targetCrashed", "Inspector.detached"):
        return _Event(at=at, type="target_terminated", fields=_Fields(detail=p.get("reason", "crashed")))
    return _Event(at=at, type=None)


# `raw` is the observer's answer (JSON, as recorded): structured here, where it enters the pure core.
def recording(raw: Mapping[str, Any]) -> Recording:
    """The observer's answer as a record (what today's answers hold is all accepted; missing lists are empty)."""
    frame = raw.get("frame") or {}
    return Recording(
        frame_key=str(frame.get("id")),
        frame_url=frame.get("url"),
        events=tuple(_read_event(at, kind, params) for at, kind, params in raw.get("timeline") or []),
        final_url=raw.get("final_url"),
        armed_at=raw["armed_at"],
        ended_at=raw["ended_at"],
        end=raw["end"],
    )


def _event(event: _Event, last_url: dict[str, str]) -> tuple[TimelineEventType, _Fields] | None:
    """(timeline type, fields) of one event, or None when it is not a timeline event."""
    if event.type != "navigation_committed":
        return None if event.type is None else (event.type, event.fields)
    fid, url = event.fields.frame_id, event.fields.url
    same = last_url.get(str(fid)) == url and not event.restored
    last_url[str(fid)] = str(url)
    return ("same_origin_reload" if same else "navigation_committed"), event.fields


def session(
    browser: BrowserVersion,
    target: PageTarget,
    raw: Recording,
    origins: Sequence[str],
    requested_ms: int,
    max_events: int,
) -> WebObservationSession:
    ledger = Ledger()
    initial = str(raw.frame_url or target.url)
    last_url = {raw.frame_key: initial}
    timeline: list[TimelineEvent] = []
    for event in raw.events:
        found = _event(event, last_url)
        if found is None:
            continue
        if len(timeline) >= max_events:
            ledger.drop("timeline_events", 1, "timeline")
            continue
        name, fields = found
        url = fields.url
        scope = _scope(str(url), origins) if url else None
        timeline.append(
            TimelineEvent(
                sequence=len(timeline) + 1,
                type=name,
                timestamp=max(0.0, float(event.at)),
                frame_id=fields.frame_id,
                loader_id=fields.loader_id,
                request_id=fields.request_id,
                url=clean_url(str(url)) if scope == "approved" else None,
                destination_scope=scope,
                detail=None if fields.detail is None else str(fields.detail),
            )
        )
    outside = sum(e.destination_scope == "outside_policy" for e in timeline)
    if outside:
        ledger.exclude("timeline", "disallowed_origin", outside)
    final = raw.final_url
    return WebObservationSession(
        schema_version=1,
        browser=browser,
        target=SessionTarget(
            target_id=target.id,
            initial_url=clean_url(initial),
            final_url=clean_url(final) if isinstance(final, str) and in_scope(final, origins) else None,
        ),
        window=SessionWindow(
            armed_at=raw.armed_at, ended_at=raw.ended_at, requested_ms=requested_ms, end_reason=raw.end
        ),
        timeline=tuple(timeline),
        completeness=classify(ledger),
        limitations=LIMITATIONS,
    )
