"""What happened within the attach window: network requests, WebSocket frames, console calls.

Nothing before the attach moment is known (`prior_activity_available: false`); console
messages the browser replays from before it are left out and said so. Bodies and payloads
become value-free JSON shapes only when approved; console text only when approved.
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from typing import Any

from rea.loopback import origin_of
from rea.web.completeness import Ledger
from rea.web.records.page import (
    BodyShapes,
    ConsoleEvent,
    ConsoleText,
    ConsoleTextCapture,
    Initiator,
    NetworkRequest,
    PayloadShape,
    WebSocketEvent,
)
from rea.web.redaction import json_shape
from rea.web.scope import clean_url, in_scope

# The `Mapping[str, Any]` parameters below are CDP payloads as Chromium sent them (Network.*, WebSocket frames,
# Runtime.consoleAPICalled), third-party JSON: each is read here, once per item, into rea.web.records.page records.


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and value >= 0 else None


def initiator(raw: Mapping[str, Any] | None) -> Initiator:
    raw = raw or {}
    frames = ((raw.get("stack") or {}).get("callFrames")) or []
    top = frames[0] if frames else {}
    url = raw.get("url") or top.get("url") or None
    return Initiator(
        type=str(raw.get("type", "other")),
        url=clean_url(url) if url else None,
        line=_int_or_none(raw.get("lineNumber", top.get("lineNumber"))),
        column=_int_or_none(raw.get("columnNumber", top.get("columnNumber"))),
    )


def body_shapes(request_body: object, response_body: object, approved: bool) -> BodyShapes:
    """The captured bodies' JSON shapes (a body that is not text has none)."""
    if not approved:
        return BodyShapes(status="not_approved", request=None, response=None)
    request = json_shape(request_body) if isinstance(request_body, str) else None
    response = json_shape(response_body) if isinstance(response_body, str) else None
    if request is not None and response is not None:
        return BodyShapes(status="included", request=request, response=response)
    return BodyShapes(status="partial" if request or response else "unavailable", request=request, response=response)


def requests(
    raw: Sequence[tuple[str, Mapping[str, Any]]], origins: Sequence[str], approved: bool, ledger: Ledger
) -> tuple[NetworkRequest, ...]:
    out = []
    for rid, entry in raw:
        request = entry["sent"].get("request") or {}
        url = str(request.get("url", ""))
        if not in_scope(url, origins):
            ledger.exclude("network_requests", "disallowed_origin" if origin_of(url) else "unsupported_url")
            continue
        response = (entry.get("response") or {}).get("response") or {}
        finished = entry.get("finished") or {}
        out.append(
            NetworkRequest(
                request_id=rid,
                url=clean_url(url),
                origin=origin_of(url),
                method=str(request.get("method", "")),
                resource_type=entry["sent"].get("type"),
                status=response.get("status"),
                mime_type=response.get("mimeType"),
                encoded_data_length=finished.get("encodedDataLength"),
                initiator=initiator(entry["sent"].get("initiator")),
                body_shapes=body_shapes(entry.get("request_body"), entry.get("response_body"), approved),
            )
        )
    if not approved and out:
        ledger.exclude("json_body_shapes", "not_approved", len(out))
    return tuple(out)


def _payload_shape(opcode: object, payload: str, approved: bool) -> PayloadShape | None:
    """A frame's payload shape: binary (opcode 2), else JSON when it parses, else text."""
    if not approved:
        return None
    if opcode == 2:
        return PayloadShape(format="binary", json_shape=None)
    shape = json_shape(payload)
    return PayloadShape(format="json" if shape is not None else "text", json_shape=shape)


def websocket_events(
    raw: Sequence[Mapping[str, Any]], known: Container[str], approved: bool, ledger: Ledger
) -> tuple[WebSocketEvent, ...]:
    out = []
    for frame in raw:
        rid = str(frame.get("requestId", ""))
        if rid not in known:
            # a socket opened before the attach moment: its URL, and so its origin, is unknown
            ledger.exclude("websocket_frames", "unattributed_origin")
            ledger.attach_limited.add("websocket_connections")
            continue
        payload = str(frame.get("payloadData", ""))
        out.append(
            WebSocketEvent(
                request_id=rid,
                direction=frame["direction"],
                opcode=int(frame.get("opcode", 0)),
                payload_bytes=len(payload.encode("utf-8", "surrogatepass")),
                payload_shape=_payload_shape(frame.get("opcode"), payload, approved),
            )
        )
    if not approved and out:
        ledger.exclude("websocket_shapes", "not_approved", len(out))
    return tuple(out)


def _text(index: int, arg: Mapping[str, Any]) -> ConsoleText:
    """One console argument's text: its primitive value, else its description, else its type."""
    if "value" in arg and isinstance(arg["value"], (str, int, float, bool)) or arg.get("type") == "undefined":
        text = str(arg.get("value", "undefined"))
    else:
        text = str(arg.get("description") or arg.get("unserializableValue") or arg.get("type", ""))
    return ConsoleText(argument_index=index, type=str(arg.get("type", "")), text=text)


def console(
    raw: Sequence[Mapping[str, Any]], started_ms: float, approved: bool, ledger: Ledger
) -> tuple[ConsoleEvent, ...]:
    out, prior = [], 0
    for event in raw:
        timestamp = float(event.get("timestamp", 0))
        if timestamp < started_ms:
            prior += 1
            continue
        args = event.get("args") or []
        frames = (event.get("stackTrace") or {}).get("callFrames") or []
        top = frames[0] if frames else {}
        values = tuple(_text(i, a) for i, a in enumerate(args))
        out.append(
            ConsoleEvent(
                type=str(event.get("type", "log")),
                timestamp=timestamp,
                argument_types=tuple(str(a.get("subtype") or a.get("type", "")) for a in args),
                url=clean_url(top["url"]) if top.get("url") else None,
                line=_int_or_none(top.get("lineNumber")),
                column=_int_or_none(top.get("columnNumber")),
                text_capture=ConsoleTextCapture(
                    status="included" if approved else "not_approved",
                    values=values if approved else (),
                    retained_bytes=sum(len(v.text.encode()) for v in values) if approved else 0,
                ),
            )
        )
    if prior:
        ledger.attach_limited.add("console_events")
        ledger.note(f"Console: {prior} message(s) the browser replayed from before the attach moment were left out.")
    if not approved and out:
        ledger.exclude("console_text", "not_approved", len(out))
    return tuple(out)
