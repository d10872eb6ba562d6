"""The MCP client every end-to-end test speaks through: the Python SDK client on a real stdio pipe to the
`rea mcp` server this checkout runs, and the checks every reply must pass (a success's text is its canonical
structured content; an error is the canonical envelope with a remediation)."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from rea.canonical_json import canonicalize
from support import clean_env, rea_command


@asynccontextmanager
async def connect(tap: list | None = None, **env: str):
    """A Python SDK client on a real stdio pipe; `tap` receives every message the client reads."""
    cmd = rea_command()
    params = StdioServerParameters(command=cmd[0], args=[*cmd[1:], "mcp"], env=clean_env(**env))
    async with stdio_client(params) as (read, write):
        async with anyio.create_task_group() as group:
            if tap is not None:
                read = _tapped(group, read, tap)
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session
            group.cancel_scope.cancel()


def _tapped(group, read, tap: list):
    forward, tapped = anyio.create_memory_object_stream(1_000)

    async def pump():
        async with forward:
            async for message in read:
                tap.append(message)
                await forward.send(message)

    group.start_soon(pump)
    return tapped


def notification_methods(tap: list) -> list[str]:
    return [
        m.message.method
        for m in tap
        if not isinstance(m, Exception)
        and getattr(m.message, "method", None)
        and getattr(m.message, "id", None) is None
    ]


async def tool_list(session) -> list[dict]:
    return [t.model_dump(by_alias=True, exclude_none=True) for t in (await session.list_tools()).tools]


def catalog_tools() -> list[dict]:
    """What tools/list must return: the catalog's projection, every tool with its schemas."""
    from effects.server import _tools

    return [t.model_dump(by_alias=True, exclude_none=True) for t in _tools("full")]


def run(coro_fn):
    return anyio.run(coro_fn)


def ok(result):
    assert result.is_error is False, result.content[0].text
    assert json.loads(result.content[0].text) == result.structured_content
    assert result.content[0].text.encode() == canonicalize(result.structured_content)
    return result.structured_content["result"]


def err(result, code):
    assert result.is_error is True and result.structured_content is None
    body = json.loads(result.content[0].text)["error"]
    assert body["code"] == code, body
    assert set(body) >= {"code", "category", "message", "retryable", "remediation"}
    assert set(body["remediation"]) == {"action"}  # strict, as the reference parses it
    return body


def evidence(result):
    """A successful call's whole Evidence record (not only its result)."""
    assert result.is_error is False, result.content[0].text
    assert result.content[0].text.encode() == canonicalize(result.structured_content)
    assert result.structured_content["evidence_id"].startswith("ev_")
    return result.structured_content


def error(result, code):
    """A failed call's error body, of the code expected (the looser check artifact tests grew up with)."""
    assert result.is_error is True
    body = json.loads(result.content[0].text)["error"]
    assert body["code"] == code, body
    return body
