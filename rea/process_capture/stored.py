"""A stored capture as compare_process_captures reads it: the fields the comparison decides over, read once from
a retained capture's normalized_result (results.ProcessCapture as JSON) into records.

Read leniently, as the comparison always read it: only the fields it uses, each indexed where it always was,
and defaulted (`host_paths`, a protocol event's connection, kind, direction and data_truncated) where it always
was, so a capture retained by an earlier build reads the same as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from rea.process_capture.records import Normalization, NormalizationPattern
from rea.wire.schema import Open


@attrs.frozen(kw_only=True)
class StoredFrame:
    at_ms: int
    data: str


@attrs.frozen(kw_only=True)
class StoredScreen:
    """The last rendered frame: its lines and time."""

    at_ms: int
    lines: tuple[str, ...]


@attrs.frozen(kw_only=True)
class StoredInteraction:
    type: str
    data: str
    outcome: str
    dispatched_at_ms: int


@attrs.frozen(kw_only=True)
class StoredExit:
    code: int | None
    signal: int | None
    reason: str
    settlement: str  # the settlement's state


@attrs.frozen(kw_only=True)
class StoredEntry:
    type: str
    size: int
    mode: int
    sha256: str | None
    symlink_target: str | None


@attrs.frozen(kw_only=True)
class StoredEffect:
    path: str
    status: str
    before: StoredEntry | None
    after: StoredEntry | None


@attrs.frozen(kw_only=True)
class StoredSample:
    at_ms: int
    pid: int
    parent_pid: int
    command: str


@attrs.frozen(kw_only=True)
class StoredProtocolEvent:
    """A protocol event's fields in results' ProtocolEvent order but its sequence (never compared), so that its
    wire form less the times is the observation the comparison has always compared."""

    at_ms: int
    protocol: str
    direction: str | None
    method: str | None
    path: str | None
    data: str
    outcome: str
    kind: str | None
    connection: int
    client: str
    server: str
    status: int | None
    bytes: int
    sha256: str | None
    data_truncated: bool


@attrs.frozen(kw_only=True)
class StoredShim:
    at_ms: int
    command: str
    arguments: tuple[str, ...]
    route_index: int | None
    outcome: str


@attrs.frozen(kw_only=True)
class StoredCapture:
    normalization: Normalization
    host_paths: Mapping[str, str]  # placeholder -> host path
    comparison_contract: Open  # the manifest's open JSON object, compared key by key
    completed_at: str
    frames: tuple[StoredFrame, ...]
    last_screen: StoredScreen | None
    interaction_events: tuple[StoredInteraction, ...]
    exit: StoredExit
    filesystem_effects: tuple[StoredEffect, ...]
    process_samples: tuple[StoredSample, ...]
    protocol_events: tuple[StoredProtocolEvent, ...]
    shim_events: tuple[StoredShim, ...]
    unknown_scopes: frozenset[str]  # the residual unknowns' scopes
    truncated: bool


def read_capture(raw: Mapping[str, Any]) -> StoredCapture:
    """The capture's compared fields as records (the one place its JSON is read)."""
    norm, manifest, screens = raw["normalization"], raw["manifest"], raw["rendered_frames"]
    last = screens[-1] if screens else None
    return StoredCapture(
        normalization=Normalization(
            paths=norm["paths"],
            patterns=tuple(
                NormalizationPattern(pattern=p["pattern"], replacement=p["replacement"]) for p in norm["patterns"]
            ),  # fmt: skip
            pids=norm["pids"],
            ports=norm["ports"],
            time_bucket_ms=norm["time_bucket_ms"],
        ),
        host_paths=manifest.get("host_paths", {}),
        comparison_contract=manifest["comparison_contract"],
        completed_at=manifest["completed_at"],
        frames=tuple(StoredFrame(at_ms=f["at_ms"], data=f["data"]) for f in raw["frames"]),
        last_screen=None if last is None else StoredScreen(at_ms=last["at_ms"], lines=tuple(last["lines"])),
        interaction_events=tuple(
            StoredInteraction(
                type=e["type"], data=e["data"], outcome=e["outcome"], dispatched_at_ms=e["dispatched_at_ms"]
            )
            for e in raw["interaction_events"]
        ),  # fmt: skip
        exit=StoredExit(
            code=raw["exit"]["code"],
            signal=raw["exit"]["signal"],
            reason=raw["exit"]["reason"],
            settlement=raw["settlement"]["state"],
        ),  # fmt: skip
        filesystem_effects=tuple(
            StoredEffect(path=e["path"], status=e["status"], before=_entry(e["before"]), after=_entry(e["after"]))
            for e in raw["filesystem_effects"]
        ),  # fmt: skip
        process_samples=tuple(
            StoredSample(at_ms=s["at_ms"], pid=s["pid"], parent_pid=s["parent_pid"], command=s["command"])
            for s in raw["process_samples"]
        ),  # fmt: skip
        protocol_events=tuple(_protocol_event(e) for e in raw["protocol_events"]),
        shim_events=tuple(
            StoredShim(
                at_ms=e["at_ms"],
                command=e["command"],
                arguments=tuple(e["arguments"]),
                route_index=e["route_index"],
                outcome=e["outcome"],
            )
            for e in raw["shim_events"]
        ),  # fmt: skip
        unknown_scopes=frozenset(u["scope"] for u in raw["residual_unknowns"]),
        truncated=bool(raw["truncated"]),
    )


def _entry(raw: Mapping[str, Any] | None) -> StoredEntry | None:
    if raw is None:
        return None
    return StoredEntry(type=raw["type"], size=raw["size"], mode=raw["mode"], sha256=raw["sha256"],
                       symlink_target=raw["symlink_target"])  # fmt: skip


def _protocol_event(raw: Mapping[str, Any]) -> StoredProtocolEvent:
    return StoredProtocolEvent(
        at_ms=raw["at_ms"],
        protocol=raw["protocol"],
        direction=raw.get("direction"),
        method=raw["method"],
        path=raw["path"],
        data=raw["data"],
        outcome=raw["outcome"],
        kind=raw.get("kind"),
        connection=raw.get("connection", 0),
        client=raw["client"],
        server=raw["server"],
        status=raw["status"],
        bytes=raw["bytes"],
        sha256=raw["sha256"],
        data_truncated=bool(raw.get("data_truncated")),
    )
