"""A large HAR in Chrome DevTools' export shape, synthesised: thousands of entries, credentials in URLs.

Each entry has what a DevTools export has (request and response headers, queryString,
cookies, timings, `_initiator` call frames, `_resourceType`, `pageref`), and a body:
JSON text, script text, or a base64 PNG tile. Credentials sit where real captures put
them: a Maps key in `?key=` (and its queryString row), an OAuth token in a Referer,
a signed redirect in Location, an API key in an initiator's URL, a JWT in a page
title, `user:password@` in a URL. SECRETS lists every one, so a test can show none
of them survives anywhere in a reply.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

MAPS_KEY = "AIzaSyB" + "x7Q2m9Lk3Pz8Wn4Rt6Yu1Io5Aa0Ss9Dd2F"  # shaped like a Google API key (AIza + 35)
REFERER_TOKEN = "ya29.refererTokenValue0123456789"
SIGNATURE = "b9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5"
INITIATOR_KEY = "initiatorApiKeyValue42"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQyIn0.c2lnbmF0dXJlLXZhbHVl"
PASSWORD = "basicAuthPassw0rd"
SECRETS = (MAPS_KEY, REFERER_TOKEN, SIGNATURE, INITIATOR_KEY, JWT, PASSWORD)
ORIGIN = "https://maps.example.test"
TILE = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 2).decode()


def _headers(pairs: dict[str, str]) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in pairs.items()]


def _url(n: int) -> tuple[str, str, dict[str, Any]]:
    """(method, url, response extras) of entry n: API calls, numbered tiles, scripts, a redirect, the Maps loader."""
    kind = n % 8
    if kind == 0:
        return "GET", f"https://maps.googleapis.com/maps/api/js?key={MAPS_KEY}&libraries=places&v={n}", {}
    if kind in (1, 2):
        return "GET", f"{ORIGIN}/tiles/{n % 97}.xy", {"mime": "image/png", "tile": True}
    if kind == 3:
        return "POST", f"{ORIGIN}/api/items/{n}", {"mime": "application/json"}
    if kind == 4:
        location = f"https://cdn.example.test/signed/{n}.js?sig={SIGNATURE}&expires=1700000000"
        return "GET", f"{ORIGIN}/redirect/{n}", {"status": 302, "location": location}
    if kind == 5:
        return "GET", f"https://admin:{PASSWORD}@{ORIGIN.removeprefix('https://')}/admin/{n}", {}
    return "GET", f"{ORIGIN}/static/app.{n % 13}.js?lang=en", {"mime": "text/javascript"}


def _entry(n: int) -> dict[str, Any]:
    method, url, extra = _url(n)
    status = extra.get("status", 200)
    mime = extra.get("mime", "application/json")
    if extra.get("tile"):
        content = {"size": 520, "mimeType": mime, "text": TILE, "encoding": "base64"}
    elif mime == "text/javascript":
        text = "(function(){" + ";".join(f"var v{i}=window.app&&{i}" for i in range(24)) + "})();"
        content = {"size": len(text), "mimeType": mime, "text": text}
    else:
        text = json.dumps({"id": n, "items": [{"name": f"item-{i}", "price": i * 1.25} for i in range(12)]})
        content = {"size": len(text), "mimeType": mime, "text": text}
    query = url.partition("?")[2]
    response_headers = {"content-type": mime, "cache-control": "max-age=600", "date": "Fri, 04 Dec 2026 10:00:00 GMT"}
    if "location" in extra:
        response_headers["location"] = extra["location"]
    return {
        "_initiator": {
            "type": "script",
            "stack": {
                "callFrames": [
                    {
                        "functionName": "load",
                        "scriptId": str(40 + n % 5),
                        "url": f"{ORIGIN}/static/loader.js?apikey={INITIATOR_KEY}",
                        "lineNumber": 10 + n % 50,
                        "columnNumber": 4,
                    }
                ]
            },
        },
        "_priority": "High",
        "_resourceType": "fetch" if mime == "application/json" else "script",
        "cache": {},
        "connection": str(1000 + n % 6),
        "pageref": f"page_{1 + n // 1000}",
        "request": {
            "method": method,
            "url": url,
            "httpVersion": "http/2.0",
            "headers": _headers(
                {
                    ":authority": "maps.example.test",
                    ":method": method,
                    ":path": "/" + url.split("/", 3)[3],
                    "accept": "*/*",
                    "referer": f"{ORIGIN}/#access_token={REFERER_TOKEN}&state=xyz",
                    "user-agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/131.0.0.0 Safari/537.36",
                    "cookie": "sid=session-cookie-value",
                }
            ),
            "queryString": [
                {"name": k, "value": v} for k, _, v in (p.partition("=") for p in query.split("&") if query)
            ],
            "cookies": [{"name": "sid", "value": "session-cookie-value", "path": "/", "domain": "maps.example.test"}],
            "headersSize": -1,
            "bodySize": 0,
        },
        "response": {
            "status": status,
            "statusText": "Found" if status == 302 else "",
            "httpVersion": "http/2.0",
            "headers": _headers(response_headers),
            "cookies": [],
            "content": content,
            "redirectURL": extra.get("location", ""),
            "headersSize": -1,
            "bodySize": -1,
            "_transferSize": 900 + n % 300,
            "_error": None,
        },
        "serverIPAddress": "192.0.2.10",
        "startedDateTime": f"2026-12-04T10:{(n // 60) % 60:02d}:{n % 60:02d}.{n % 1000:03d}Z",
        "time": 12.5 + n % 40,
        "timings": {
            "blocked": 1.25,
            "dns": -1,
            "ssl": -1,
            "connect": -1,
            "send": 0.1,
            "wait": 10.5 + n % 9,
            "receive": 0.75,
            "_blocked_queueing": 0.9,
        },
    }


def large_har(path: Path, entries: int = 2000) -> Path:
    """A DevTools-shaped HAR of `entries` entries (2000 make about 7.5 MB)."""
    pages = [
        {
            "startedDateTime": "2026-12-04T10:00:00.000Z",
            "id": f"page_{i}",
            "title": f"{ORIGIN}/view?session={JWT}&p={i}",
            "pageTimings": {"onContentLoad": 512.5, "onLoad": 901.25},
        }
        for i in range(1, 2 + entries // 1000)
    ]
    document = {
        "log": {
            "version": "1.2",
            "creator": {"name": "WebInspector", "version": "537.36"},
            "pages": pages,
            "entries": [_entry(n) for n in range(entries)],
        }
    }
    path.write_text(json.dumps(document, indent=2))
    return path
