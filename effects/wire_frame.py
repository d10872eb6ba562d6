"""The bytes the SDK's stdio transport writes around one tool reply, measured with the SDK.

A reply leaves the server as: the result model dumped (`by_alias`, JSON mode, no
None fields), shaped by the protocol version's result surface (which drops and
re-orders fields), stamped on 2026-era versions, wrapped in a JSON-RPC response
and written by pydantic's JSON serializer with a newline. This module runs those
same steps on the reply with an empty text and an empty structuredContent, so the
frame is exact for this request's id, protocol version and `_meta`; the payload's
share is computed purely (`rea.replies`).
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pydantic_core
from mcp_types import SERVER_INFO_META_KEY, methods
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION, MODERN_PROTOCOL_VERSIONS

from rea.budget import WireFrame

METHOD = "tools/call"


def number_text(value: int | float) -> str:
    """How the SDK's serializer prints a number (pydantic's JSON writer)."""
    return pydantic_core.to_json(value).decode()


def shaped(result: types.CallToolResult, version: str, server_info: dict[str, Any] | None) -> dict[str, Any]:
    """The result as the SDK's runner hands it to the JSON-RPC layer."""
    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    dumped = methods.serialize_server_result(METHOD, version, dumped)
    if version in MODERN_PROTOCOL_VERSIONS:
        dumped.setdefault("resultType", "complete")
        meta = dumped.get("_meta")
        if server_info is not None and (meta is None or isinstance(meta, dict)):
            if not (meta or {}).get(SERVER_INFO_META_KEY):
                dumped["_meta"] = {**(meta or {}), SERVER_INFO_META_KEY: server_info}
    return dumped


def line(request_id: types.RequestId, result: dict[str, Any]) -> bytes:
    """The line the stdio writer sends for a result."""
    response = types.JSONRPCResponse(jsonrpc="2.0", id=request_id, result=result)
    return (response.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode()


def measure(
    request_id: types.RequestId | None,
    version: str | None,
    meta: dict[str, Any] | None,
    *,
    is_error: bool,
    server_info: dict[str, Any] | None = None,
) -> WireFrame:
    """The frame of one reply: the whole line with `""` as text and `{}` as structuredContent."""
    skeleton = types.CallToolResult(
        content=[types.TextContent(type="text", text="")],
        structured_content=None if is_error else {},
        is_error=is_error,
        _meta=meta,
    )
    known = version if version in KNOWN_PROTOCOL_VERSIONS else LATEST_HANDSHAKE_VERSION
    frame = line(0 if request_id is None else request_id, shaped(skeleton, known, server_info))
    return WireFrame(frame_bytes=len(frame), number_text=number_text)
