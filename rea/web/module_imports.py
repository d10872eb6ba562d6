"""trace_web_module_imports (pure): resolve an exported module's literal imports as a browser would.

Resolution follows the HTML standard's "resolve a module specifier": a URL-like specifier (`/`, `./`,
`../`, or an absolute URL) parses against the importer's URL; an optional import map's `scopes` (the
importer's most specific scope first) and then `imports` are consulted, exact keys before the longest
`/`-ending prefix; an unmapped bare specifier is rejected with the words Chromium uses. Computed
`import(expr)` stays unknown. Nothing is fetched or executed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request
from rea.loopback import urljoin, urlsplit, urlunsplit

RESOLVER = "rea-whatwg-module-resolver"
LIMITATIONS = (
    "Resolution follows the HTML standard's module-specifier algorithm in REA's own code, not a browser's "
    "loader; a resolved URL does not show that the module was fetched or ran.",
    "Computed dynamic imports and bundler-internal module ids remain unknown.",
    "Captured candidates are exported scripts at the resolved URL; a script the capture did not retain is "
    "not a candidate.",
)


def is_http(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _as_url(specifier: str, base: str) -> str | None:
    """The specifier as a URL when it is URL-like, else None (a bare specifier)."""
    if specifier.startswith(("/", "./", "../")):
        try:
            return urljoin(base, specifier)
        except ValueError:
            return None
    try:
        parts = urlsplit(specifier)
    except ValueError:
        return None
    if parts.scheme and (parts.netloc or parts.scheme in ("data", "blob", "about")):
        return specifier
    return None


def import_map(text: str, base_url: str) -> Result[dict[str, Any], ReaError]:
    """The map normalized: keys and addresses as URLs against `base_url` where URL-like (null addresses kept)."""
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return Failure(invalid_request(f"import_map.path is not JSON: {exc}", field="import_map.path"))
    if not isinstance(doc, dict):
        return Failure(invalid_request("an import map is a JSON object", field="import_map.path"))

    def table(raw: Any) -> dict[str, str | None]:
        out: dict[str, str | None] = {}
        for key, address in (raw or {}).items() if isinstance(raw, dict) else ():
            if not isinstance(key, str) or not key:
                continue
            normal = _as_url(key, base_url) or key
            out[normal] = _as_url(address, base_url) if isinstance(address, str) else None
        return out

    scopes: dict[str, Any] = doc["scopes"] if isinstance(doc.get("scopes"), dict) else {}
    return Success(
        {
            "imports": table(doc.get("imports")),
            "scopes": {urljoin(base_url, k): table(v) for k, v in scopes.items() if isinstance(k, str)},
        }
    )


def _match(normal: str, as_url: str | None, table: Mapping[str, str | None]) -> tuple[bool, str | None]:
    """(matched, address) in one specifier map; an address of None blocks."""
    if normal in table:
        return True, table[normal]
    for key in sorted(table, reverse=True):
        if key.endswith("/") and normal.startswith(key) and (as_url is None or is_http(as_url)):
            address = table[key]
            if address is None or not address.endswith("/"):
                return True, None
            try:
                return True, urljoin(address, normal[len(key) :])
            except ValueError:
                return True, None
    return False, None


def resolve(specifier: str, importer: str, imap: Mapping[str, Any] | None) -> dict[str, Any]:
    as_url = _as_url(specifier, importer)
    normal = as_url or specifier
    if imap is not None:
        tables = [t for scope, t in sorted(imap["scopes"].items(), reverse=True) if _in_scope(importer, scope)]
        for table in [*tables, imap["imports"]]:
            matched, address = _match(normal, as_url, table)
            if matched:
                if address is None:
                    return {"state": "rejected", "message": f'Import map blocked the specifier "{specifier}".'}
                return {"state": "resolved", "url": address}
    if as_url is not None:
        return {"state": "resolved", "url": as_url}
    return {
        "state": "rejected",
        "message": f'Failed to resolve module specifier "{specifier}". Relative references must start with either '
        '"/", "./", or "../".',
    }


def _in_scope(importer: str, scope: str) -> bool:
    return importer == scope or (scope.endswith("/") and importer.startswith(scope))


def _without_fragment(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    return urlunsplit((parts.scheme, parts.netloc, parts.path, parts.query, ""))


def candidates(url: str, scripts: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for i, script in enumerate(scripts):
        if not isinstance(script, dict) or script.get("content", {}).get("state") != "exported":
            continue
        if script.get("url") == url:
            out.append({"script_index": i, "match": "exact-reported-url", "script": script})
        elif _without_fragment(str(script.get("url"))) == _without_fragment(url):
            out.append({"script_index": i, "match": "response-url-without-fragment", "script": script})
    return out


def imports(
    facts: Mapping[str, Any], importer: str, imap: Mapping[str, Any] | None, scripts: Sequence[Any]
) -> list[dict[str, Any]]:
    out = []
    for row in facts.get("imports", []):
        specifier = row["specifier"]
        resolution = (
            {"state": "unknown", "reason": "computed-specifier"}
            if specifier is None
            else resolve(specifier, importer, imap)
        )
        out.append(
            {
                "kind": row["kind"],
                "specifier": specifier,
                "expression": row["expression"],
                "start": row["at"],
                "end": row["end"],
                "resolution": resolution,
                "captured_candidates": candidates(resolution["url"], scripts)
                if resolution["state"] == "resolved"
                else [],
                "execution": "unknown",
            }
        )
    return out


def importer_of(script: Mapping[str, Any], selected: str | None) -> Result[dict[str, str], ReaError]:
    if selected is not None:
        if not is_http(selected):
            return Failure(
                invalid_request(
                    f"importer_url {selected!r} is not an HTTP(S) URL",
                    field="importer_url",
                    accepted="an http(s) module URL",
                )
            )
        return Success({"url": selected, "basis": "caller-selected"})
    url = str(script.get("url", ""))
    if not is_http(url):
        return Failure(
            invalid_request(
                f"the script's reported URL {url!r} is not HTTP(S): its base is unknown",
                field="importer_url",
                accepted="importer_url naming the module's http(s) URL",
            )
        )
    return Success({"url": url, "basis": "reported-source-url"})
