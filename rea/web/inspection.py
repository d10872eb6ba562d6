"""inspect_web_page's result, assembled from one raw passive observation by the page, activity,
metadata and storage passes; completeness comes from the one ledger they all write."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from rea.loopback import origin_of
from rea.web import activity, page
from rea.web.completeness import Ledger, classify
from rea.web.metadata import metadata
from rea.web.records.browser import InspectWebPageArgs
from rea.web.records.page import Console, Network, Storage, StorageFingerprint, Worker
from rea.web.redaction import fingerprint
from rea.web.scope import clean_url, in_scope
from rea.web.targets import WORKER_TYPES, browser_version, target_record
from rea.wire.convert import to_wire

LIMITATIONS = (
    "Network and console activity is observed only within the attach window; earlier activity is not available.",
    "Dedicated workers are not listed by the endpoint's /json/list; only service and shared workers appear.",
    "Storage values are never returned; keys and fingerprints only when requested.",
)


def storage(raw: Mapping[str, Any] | None, origin: str, args: InspectWebPageArgs, ledger: Ledger) -> Storage:
    raw = raw or {}
    local, session = raw.get("local"), raw.get("session")
    keys = args.include_storage_keys
    for got in (local, session):
        if got is None:
            ledger.exclude("storage_keys", "provider_unavailable", None)
        elif not keys and got:
            ledger.exclude("storage_keys", "not_approved", len(got))
    prints: list[StorageFingerprint] = []
    if args.include_storage_fingerprints:
        prints += [fingerprint("cookie", str(k), str(v)) for k, v in raw.get("cookies") or []]
        prints += [fingerprint("local_storage", str(k), str(v)) for k, v in local or []]
        prints += [fingerprint("session_storage", str(k), str(v)) for k, v in session or []]
    complete = args.include_storage_fingerprints and all(
        raw.get(k) is not None for k in ("cookies", "local", "session")
    )
    return Storage(
        origin=origin,
        usage_bytes=raw.get("usage"),
        quota_bytes=raw.get("quota"),
        local_storage_keys=tuple(sorted(str(k) for k, _ in local or [])) if keys else (),
        session_storage_keys=tuple(sorted(str(k) for k, _ in session or [])) if keys else (),
        indexed_db_names=tuple(sorted(str(n) for n in raw.get("indexed_db") or [])),
        cache_names=tuple(sorted(str(n) for n in raw.get("caches") or [])),
        content_fingerprints=tuple(sorted(prints, key=lambda p: (p.scope, p.identity_sha256))),
        fingerprint_algorithm="sha256",
        fingerprints_complete=bool(complete),
        values_redacted=True,
    )


def workers(targets: Sequence[Mapping[str, Any]], origins: Sequence[str], ledger: Ledger) -> tuple[Worker, ...]:
    out = []
    for raw in targets:
        if raw.get("type") not in WORKER_TYPES:
            continue
        url = str(raw.get("url", ""))
        if not in_scope(url, origins):
            ledger.exclude("workers", "disallowed_origin")
            continue
        record = target_record(raw)
        out.append(
            Worker(
                target_id=record.target_id,
                type=record.type,
                url=record.url,
                origin=origin_of(url),
                attached=record.attached,
                opener_target_id=raw.get("openerId"),
                parent_frame_id=raw.get("parentFrameId"),
            )
        )
    return tuple(out)


def _dropped(raw: Mapping[str, Any], ledger: Ledger) -> None:
    dropped = raw.get("dropped") or {}
    ledger.drop("scripts", dropped.get("scripts", 0), "scripts")
    ledger.drop("network_requests", dropped.get("network_requests", 0), "network_requests")
    ledger.drop("console_events", dropped.get("console_events", 0), "console_events")
    ledger.drop("websocket_frames", dropped.get("websocket_frames", 0), "websocket_frames")
    for section, message in sorted((raw.get("unavailable") or {}).items()):
        ledger.unavailable.add(section)
        ledger.note(f"{section}: the browser did not answer ({message}).")


def inspection(
    version: Mapping[str, Any],
    target: Mapping[str, Any],
    targets: Sequence[Mapping[str, Any]],
    raw: Mapping[str, Any],
    origins: Sequence[str],
    args: InspectWebPageArgs,
) -> dict[str, Any]:
    """The result's JSON: each section built as its record (rea.web.records.page), wired here at the edge. The
    sections stay in the order the reply has always had (completeness last), which is not the order of
    WebPageInspection's fields, so the top level is assembled as JSON rather than as that record."""
    ledger = Ledger()
    _dropped(raw, ledger)
    base = str(raw.get("main_frame_url") or target.get("url", ""))
    dom, elements = page.dom(raw.get("document"), args.max_dom_nodes, ledger)
    resources = page.resources(raw.get("resource_tree"), origins, ledger)
    requests = raw.get("requests") or []
    network = activity.requests(requests, origins, args.include_json_body_shapes, ledger)
    started = str(raw["started_at"])
    sections = {
        "browser": browser_version(version),
        "target": attrs.evolve(target_record(target), url=clean_url(base)),
        "capture_window": {
            "started_at": started,
            "ended_at": raw["ended_at"],
            "observation_ms": args.observation_ms,
        },
        "frames": page.frames(raw.get("frame_tree")),
        "dom": dom,
        "accessibility": page.accessibility(raw.get("ax_nodes"), args.include_accessibility_text, ledger),
        "scripts": page.scripts(
            raw.get("scripts") or [],
            raw.get("sources") or {},
            resources,
            origins,
            args.include_script_sources,
            ledger,
        ),
        "resources": resources,
        "network": Network(
            requests=network,
            websocket_events=activity.websocket_events(
                raw.get("websocket_frames") or [], dict(requests), args.include_websocket_shapes, ledger
            ),
            coverage_started_at=started,
            prior_activity_available=False,
        ),
        "console": Console(
            events=activity.console(
                raw.get("console") or [], float(raw["started_ms"]), args.include_console_text, ledger
            ),
            coverage_started_at=started,
            prior_activity_available=False,
        ),
        "workers": workers(targets, origins, ledger),
        "metadata": metadata(requests, elements, base, origins),
        "storage": storage(raw.get("storage"), origin_of(base) or "null", args, ledger),
    }
    result: dict[str, Any] = to_wire(sections)
    return {**result, "completeness": to_wire(classify(ledger)), "limitations": [*LIMITATIONS, *ledger.limitations]}
