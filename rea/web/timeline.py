"""observe_web_session's timeline: navigation, redirect, lifecycle and failure events, classified.

Raw CDP events arrive in order with their arrival time; each becomes one of the reference's
timeline types. URLs outside the origin policy are withheld (`url: null`) and scoped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from rea.web.completeness import Ledger, classify
from rea.web.records.browser import Scope
from rea.web.records.runtime import (
    SessionTarget,
    SessionWindow,
    TimelineEvent,
    TimelineEventType,
    WebObservationSession,
)
from rea.web.scope import clean_url, in_scope
from rea.web.targets import browser_version

Raw = Mapping[str, Any]
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


def _event(kind: str, p: Raw, last_url: dict[str, str]) -> tuple[TimelineEventType, _Fields] | None:
    """(timeline type, fields) of one raw event, or None when it is not a timeline event."""
    frame = p.get("frame") or {}
    if kind == "Page.frameRequestedNavigation":
        return "navigation_requested", _Fields(frame_id=p.get("frameId"), url=p.get("url"), detail=p.get("reason"))
    if kind == "Page.frameNavigated":
        fid, url = frame.get("id"), frame.get("url")
        same = last_url.get(str(fid)) == url and p.get("type") != "BackForwardCacheRestore"
        last_url[str(fid)] = str(url)
        kind_name: TimelineEventType = "same_origin_reload" if same else "navigation_committed"
        return kind_name, _Fields(frame_id=fid, loader_id=frame.get("loaderId"), url=url, detail=p.get("type"))
    if kind == "Page.navigatedWithinDocument":
        return "same_document_navigation", _Fields(
            frame_id=p.get("frameId"), url=p.get("url"), detail=p.get("navigationType")
        )
    if kind == "Page.lifecycleEvent":
        return "lifecycle", _Fields(frame_id=p.get("frameId"), loader_id=p.get("loaderId"), detail=p.get("name"))
    if kind == "Network.requestWillBeSent" and p.get("redirectResponse"):
        return "redirect", _Fields(
            frame_id=p.get("frameId"),
            loader_id=p.get("loaderId"),
            request_id=p.get("requestId"),
            url=(p.get("request") or {}).get("url"),
            detail=str((p.get("redirectResponse") or {}).get("status")),
        )
    if kind == "Network.loadingFailed" and p.get("type") == "Document":
        return "load_failed", _Fields(request_id=p.get("requestId"), detail=p.get("errorText"))
    if kind in ("Inspector.targetCrashed", "Inspector.detached"):
        return "target_terminated", _Fields(detail=p.get("reason", "crashed"))
    return None


def session(
    version: Raw, target: Raw, raw: Raw, origins: Sequence[str], requested_ms: int, max_events: int
) -> WebObservationSession:
    ledger = Ledger()
    frame = raw.get("frame") or {}
    initial = str(frame.get("url") or target.get("url", ""))
    last_url = {str(frame.get("id")): initial}
    timeline: list[TimelineEvent] = []
    for at, kind, params in raw.get("timeline") or []:
        found = _event(kind, params, last_url)
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
                timestamp=max(0.0, float(at)),
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
    final = raw.get("final_url")
    return WebObservationSession(
        schema_version=1,
        browser=browser_version(version),
        target=SessionTarget(
            target_id=str(target["id"]),
            initial_url=clean_url(initial),
            final_url=clean_url(final) if isinstance(final, str) and in_scope(final, origins) else None,
        ),
        window=SessionWindow(
            armed_at=raw["armed_at"], ended_at=raw["ended_at"], requested_ms=requested_ms, end_reason=raw["end"]
        ),
        timeline=tuple(timeline),
        completeness=classify(ledger),
        limitations=LIMITATIONS,
    )
