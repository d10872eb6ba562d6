"""The DevTools protocol boundary: loopback HTTP discovery and one CDP session per target.

Browser, Electron and Node inspector tools all speak CDP, so they share this one client:
`/json/version` and `/json/list` over plain HTTP to a validated loopback endpoint, then a
websocket to the target's own `webSocketDebuggerUrl` (checked to stay on that endpoint)
through cdp-use, a maintained, typed asyncio CDP client. Every failure is a canonical error
from the one reason table (rea.browser_failures); nothing here raises past its caller.

REA's passive tools only read: they enable domains and listen. What a tool may send is its
own decision; this module only carries commands and events.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import anyio
from returns.result import Failure, Result, Success

from effects.chain import then
from rea.browser_failures import Reason, browser_failure
from rea.errors import ReaError
from rea.loopback import Endpoint, same_endpoint_host

HTTP_TIMEOUT_S = 5.0
CONNECT_TIMEOUT_S = 5.0
COMMAND_TIMEOUT_S = 15.0
MAX_HTTP_BYTES = 16 << 20
MAX_FRAME_BYTES = 64 << 20


def _get(url: str) -> bytes:
    # no proxies: a loopback request must never be routed through an HTTP(S)_PROXY
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=HTTP_TIMEOUT_S) as reply:
        return bytes(reply.read(MAX_HTTP_BYTES + 1))


async def devtools_json(endpoint: Endpoint, path: str, operation: str) -> Result[Any, ReaError]:
    """GET a DevTools JSON document (`/json/version`, `/json/list`) from the endpoint."""
    url = endpoint.http_base + path
    try:
        raw = await anyio.to_thread.run_sync(_get, url, abandon_on_cancel=True)
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        return Failure(
            browser_failure(
                operation, "endpoint_unreachable", f"nothing answered at {url} ({exc})", endpoint=endpoint.url
            )
        )
    if len(raw) > MAX_HTTP_BYTES:
        return Failure(browser_failure(operation, "payload_limit", f"{url} answered more than {MAX_HTTP_BYTES} bytes"))
    try:
        return Success(json.loads(raw))
    except ValueError:
        return Failure(
            browser_failure(operation, "invalid_endpoint_response", f"{url} did not answer JSON", endpoint=endpoint.url)
        )


async def browser_version(endpoint: Endpoint, operation: str) -> Result[dict[str, Any], ReaError]:
    """The endpoint's `/json/version` (Browser, Protocol-Version, User-Agent, ...)."""
    got = await devtools_json(endpoint, "/json/version", operation)
    return got.bind(lambda found: _version_object(found, operation))


def _version_object(found: Any, operation: str) -> Result[dict[str, Any], ReaError]:
    if not isinstance(found, dict):
        return Failure(browser_failure(operation, "invalid_endpoint_response", "/json/version is not an object"))
    return Success(found)


async def list_targets(endpoint: Endpoint, operation: str) -> Result[list[dict[str, Any]], ReaError]:
    """The endpoint's `/json/list`: every debuggable target with id, type, url, title."""
    got = await devtools_json(endpoint, "/json/list", operation)
    return got.bind(lambda targets: _target_list(targets, operation))


def _target_list(targets: Any, operation: str) -> Result[list[dict[str, Any]], ReaError]:
    if not isinstance(targets, list) or not all(isinstance(t, dict) and isinstance(t.get("id"), str) for t in targets):
        return Failure(browser_failure(operation, "invalid_endpoint_response", "/json/list is not a list of targets"))
    return Success(targets)


class CdpSession:
    """One websocket to one target; commands answer Results, events go to registered handlers."""

    def __init__(self, client: Any, operation: str, target: dict[str, Any]) -> None:
        self._client = client
        self.operation = operation
        self.target = target

    @property
    def disconnected(self) -> bool:
        """The endpoint closed the websocket (the runtime exited, the page closed) or we stopped."""
        task = getattr(self._client, "_message_handler_task", None)
        return task is None or task.done()

    async def send(
        self, method: str, params: dict[str, Any] | None = None, *, timeout_s: float = COMMAND_TIMEOUT_S
    ) -> Result[dict[str, Any], ReaError]:
        if self.disconnected:
            return Failure(self.failure("disconnected", f"the connection was closed before {method}"))
        try:
            with anyio.fail_after(timeout_s):
                return Success(await self._client.send_raw(method, params or {}))
        except TimeoutError:
            return Failure(self.failure("timeout", f"{method} did not answer within {timeout_s:g} s", method=method))
        except ConnectionError as exc:
            return Failure(self.failure("disconnected", f"the connection closed during {method} ({exc})"))
        except RuntimeError as exc:  # cdp-use raises the protocol's {"code", "message"} error this way
            return Failure(self.failure("protocol_error", f"{method} was refused: {exc}", method=method))
        except Exception as exc:
            from websockets.exceptions import WebSocketException

            if isinstance(exc, OSError | WebSocketException):  # the socket closed under the send
                return Failure(self.failure("disconnected", f"the connection failed during {method} ({exc})"))
            raise

    def on(self, method: str, handler: Callable[[dict[str, Any]], None]) -> None:
        """Call `handler(params)` for every `method` event (experimental domains included)."""
        # cdp-use's typed `register` covers only the domains it generated; the registry takes any name
        self._client._event_registry.register(method, lambda params, _session: handler(params))

    def failure(self, reason: Reason, message: str, **details: Any) -> ReaError:
        return browser_failure(self.operation, reason, message, target_id=self.target.get("id"), **details)

    async def close(self) -> None:
        with anyio.CancelScope(shield=True):
            await self._client.stop()


async def attach(endpoint: Endpoint, target_id: str, operation: str) -> Result[CdpSession, ReaError]:
    """Connect to one target of the endpoint; the caller closes the session (`await s.close()`)."""
    targets = await list_targets(endpoint, operation)
    chosen = targets.bind(lambda found: _target(found, target_id, endpoint, operation))
    return await then(chosen, lambda target: connect(endpoint, target, operation))


def _target(
    targets: list[dict[str, Any]], target_id: str, endpoint: Endpoint, operation: str
) -> Result[dict[str, Any], ReaError]:
    target = next((t for t in targets if t["id"] == target_id), None)
    if target is None:
        known = sorted(t["id"] for t in targets)[:20]
        return Failure(
            browser_failure(
                operation, "target_not_found", f"no target {target_id!r} at {endpoint.url}", known_targets=known
            )
        )
    return Success(target)


async def connect(endpoint: Endpoint, target: dict[str, Any], operation: str) -> Result[CdpSession, ReaError]:
    """Open the websocket of a target listed by `list_targets` (or the browser's own, from /json/version)."""
    url = target.get("webSocketDebuggerUrl")
    if not isinstance(url, str):
        return Failure(
            browser_failure(operation, "target_not_allowed", "the target offers no debugger websocket (attached?)")
        )
    return await then(same_endpoint_host(endpoint, url), lambda checked: _open(checked.url, url, target, operation))


async def _open(checked: str, url: str, target: dict[str, Any], operation: str) -> Result[CdpSession, ReaError]:
    """The websocket of a checked debugger URL (`url` as the target listed it), started within CONNECT_TIMEOUT_S."""
    from cdp_use.client import CDPClient  # imported on first use: off the server's startup path

    client = CDPClient(checked, max_ws_frame_size=MAX_FRAME_BYTES)
    try:
        with anyio.fail_after(CONNECT_TIMEOUT_S):
            await client.start()  # type: ignore[no-untyped-call]  # cdp_use leaves start() unannotated
    except Exception as exc:  # a timeout, an OSError, or websockets' own InvalidHandshake family
        await CdpSession(client, operation, target).close()
        return Failure(browser_failure(operation, "endpoint_unreachable", f"the websocket {url} did not open ({exc})"))
    return Success(CdpSession(client, operation, target))
