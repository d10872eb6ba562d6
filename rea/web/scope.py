"""What a browser request may touch: exact origins, and URLs with only their credentials removed.

The reference scopes every observation by exact http(s) origins (no path, no wildcard),
deduplicated and sorted; with none given, a page is scoped to its own current origin.
URLs keep their query values and fragments (they are the page's own data); only userinfo
credentials are removed, and `redacted` says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request
from rea.loopback import origin_of, parse_qsl, urlsplit, urlunsplit

ACCEPTED_ORIGIN = "an exact http(s) origin such as https://app.example.test or http://127.0.0.1:8080 (no path)"


def exact_origin(value: str) -> str | None:
    """The normalized origin of `value` when it is exactly one http(s) origin, else None."""
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname or "*" in parts.netloc:
        return None
    if parts.username is not None or parts.password is not None or parts.path not in ("", "/"):
        return None
    if parts.query or parts.fragment or value.endswith(("?", "#")):
        return None
    return origin_of(value)


def allowed_origins(values: Sequence[str], argument: str = "allowed_origins") -> Result[tuple[str, ...], ReaError]:
    """Deduplicated, sorted exact origins, or invalid_request naming the first that is not one."""
    found = []
    for value in values:
        origin = exact_origin(value)
        if origin is None:
            return Failure(
                invalid_request(
                    f"{argument} entry {value!r} is not one exact http(s) origin",
                    field=argument,
                    accepted=ACCEPTED_ORIGIN,
                )
            )
        found.append(origin)
    return Success(tuple(sorted(set(found))))


def in_scope(url: str, origins: Iterable[str]) -> bool:
    """Whether the URL's origin is one of `origins` (exact match)."""
    origin = origin_of(url)
    return origin is not None and origin in set(origins)


def sanitize_url(value: str) -> dict[str, Any]:
    """The URL without userinfo, its origin (None when opaque), its query parameter names."""
    try:
        parts = urlsplit(value)
        names = [k for k, _ in parse_qsl(parts.query, keep_blank_values=True)]
        had_credentials = parts.username is not None or parts.password is not None
    except ValueError:
        return {"url": value, "origin": None, "query_parameter_names": [], "redacted": False}
    url = value
    if had_credentials:
        netloc = parts.netloc.rsplit("@", 1)[1]
        url = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    return {"url": url, "origin": origin_of(value), "query_parameter_names": names, "redacted": had_credentials}


def clean_url(value: str) -> str:
    return str(sanitize_url(value)["url"])


def origin_text(url: str) -> str:
    """The origin as the reference's target lists write it: 'null' for an opaque URL."""
    return origin_of(url) or "null"
