"""Loopback endpoints: the only addresses REA's browser and inspector clients connect to.

The contract's request scope: browser calls carry a loopback CDP endpoint, and an
inspector endpoint is the same. The decision is made here, from the string alone, before
any connection exists, so a remote address is refused without a packet being sent and a
`localhost` that resolves elsewhere cannot be reached (only the literal name is accepted,
and the effect layer connects to 127.0.0.1 or ::1 itself). Origin filters for pages and
scripts live here too: what a request may touch is policy, not IO.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

# URL string parsing (no IO) is re-exported for the browser families: this module is the one
# place in rea/ that imports urllib (pyproject's import contract names it)
from urllib.parse import SplitResult
from urllib.parse import parse_qsl as parse_qsl
from urllib.parse import quote as quote
from urllib.parse import quote_plus as quote_plus
from urllib.parse import unquote as unquote
from urllib.parse import urlencode as urlencode
from urllib.parse import urljoin as urljoin
from urllib.parse import urlsplit as urlsplit
from urllib.parse import urlunsplit as urlunsplit

import attrs
from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request

# ---------------------------------------------------------------- endpoints

ENDPOINT_SCHEMES = ("http", "ws")
ACCEPTED = "an http:// or ws:// URL on 127.0.0.1, another 127.0.0.0/8 address, [::1] or localhost, with a port"


@attrs.frozen
class Endpoint:
    """A validated loopback endpoint: the host is a loopback literal, the port explicit."""

    scheme: str
    host: str  # "127.0.0.1", "::1" (never "localhost": it is pinned to 127.0.0.1)
    port: int
    path: str

    @property
    def netloc(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    @property
    def http_base(self) -> str:
        """The DevTools HTTP base (`/json/version`, `/json/list` live under it)."""
        return f"http://{self.netloc}"

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.netloc}{self.path}"


def _refuse(argument: str, value: str, reason: str) -> ReaError:
    return invalid_request(
        f"{argument} {value!r} is refused before any connection: {reason}. REA connects only to loopback.",
        field=argument,
        accepted=ACCEPTED,
        reason="target_not_allowed",
    )


def _loopback_host(parts: SplitResult) -> str | None:
    host = parts.hostname
    if host is None:
        return None
    if host == "localhost":
        return "127.0.0.1"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return str(address) if address.is_loopback else None


def _port(parts: SplitResult) -> int | None:
    try:
        return parts.port
    except ValueError:
        return -1


def parse_endpoint(
    value: str, *, argument: str = "cdp_endpoint", schemes: Iterable[str] = ENDPOINT_SCHEMES
) -> Result[Endpoint, ReaError]:
    """Accept a loopback http/ws endpoint with an explicit port; refuse everything else by name."""
    allowed = tuple(schemes)
    if not value or any(ord(c) < 0x21 or ord(c) == 0x7F for c in value):
        return Failure(_refuse(argument, value, "it is empty or holds whitespace or control characters"))
    try:
        parts = urlsplit(value)
    except ValueError as exc:
        return Failure(_refuse(argument, value, f"it is not a URL ({exc})"))
    if parts.scheme not in allowed:
        return Failure(_refuse(argument, value, f"the scheme must be one of {', '.join(allowed)}"))
    if parts.username is not None or parts.password is not None:
        return Failure(_refuse(argument, value, "it carries credentials"))
    if parts.query or parts.fragment:
        return Failure(_refuse(argument, value, "it carries a query or fragment"))
    host = _loopback_host(parts)
    if host is None:
        return Failure(_refuse(argument, value, f"host {parts.hostname!r} is not a loopback address"))
    port = _port(parts)
    if port is None or not 0 < port < 65536:
        return Failure(_refuse(argument, value, "it names no valid port"))
    return Success(Endpoint(scheme=parts.scheme, host=host, port=port, path=parts.path or ""))


def same_endpoint_host(endpoint: Endpoint, websocket_url: str) -> Result[Endpoint, ReaError]:
    """A target's webSocketDebuggerUrl must stay on the endpoint's loopback host and port.

    The browser writes that URL; a page or a hostile endpoint cannot redirect REA elsewhere.
    """
    parsed = parse_endpoint(websocket_url, argument="webSocketDebuggerUrl", schemes=("ws",))
    return parsed.bind(lambda ws: _on_host(endpoint, websocket_url, ws))


def _on_host(endpoint: Endpoint, websocket_url: str, ws: Endpoint) -> Result[Endpoint, ReaError]:
    if (ws.host, ws.port) != (endpoint.host, endpoint.port):
        return Failure(_refuse("webSocketDebuggerUrl", websocket_url, f"it leaves the endpoint {endpoint.netloc}"))
    return Success(ws)


# ------------------------------------------------------------------ origins


def origin_of(url: str) -> str | None:
    """The RFC 6454 origin `scheme://host[:port]` of a URL, or None for opaque ones (about:, data:)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https", "ws", "wss", "file") or (parts.scheme != "file" and not parts.hostname):
        return None
    if parts.scheme == "file":
        return "file://"
    default = {"http": 80, "https": 443, "ws": 80, "wss": 443}[parts.scheme]
    port = _port(parts)
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}" if port in (None, default) else f"{parts.scheme}://{host}:{port}"


def origin_allowed(url: str, allowed_origins: Iterable[str]) -> bool:
    """Whether a URL's origin is one of the caller's allowed origins (exact origin match; `*` allows all)."""
    allowed = tuple(allowed_origins)
    if "*" in allowed:
        return True
    origin = origin_of(url)
    return origin is not None and origin in {origin_of(a) or a for a in allowed}
