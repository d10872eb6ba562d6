"""Real inputs of the web family's offline tools: HAR recorded by headless Chromium, mitmproxy dumps, screenshots.

HAR: Chromium cannot write HAR itself, so the simplest real route is its DevTools
protocol: a loopback HTTP server serves a page whose script fetches JSON and binary
endpoints; Chromium (headless, its own profile, `--remote-debugging-port`) loads it
while the recorder collects Network.* events and response bodies and assembles the
HAR 1.2 document from them (as DevTools' own HAR export does). Flow dumps are
written by Debian's mitmproxy library in /usr/bin/python3. Screenshots are
`chromium --headless --screenshot` of pages with known geometry.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

BLOB = bytes(range(256)) * 4  # a binary body: Chromium hands it back base64-encoded
PAGE = """<!doctype html><html><head><link rel="icon" href="data:,"></head><body><h1>capture</h1><script>
async function go() {
  const ids = [1, 2, 17, "3f2504e0-4f89-41d3-9a0c-0305e82c3301"];
  for (const id of ids) await fetch("/api/items/" + id, {headers: {"Authorization": "Bearer s3cr3t-token"}});
  await fetch("/api/blob");
  await fetch("/api/login", {method: "POST", body: JSON.stringify({user: "alice", password: "hunter2"}),
                             headers: {"Content-Type": "application/json"}});
  document.title = "done";
}
go();
</script></body></html>"""
# request lines the page makes, by (method, path template): what the api-surface view must find
PAGE_GROUPS = {
    ("GET", "/"): 1,
    ("GET", "/api/items/{integer}"): 3,
    ("GET", "/api/items/{uuid}"): 1,
    ("GET", "/api/blob"): 1,
    ("POST", "/api/login"): 1,
}


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, kind: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/":
            self._send(200, PAGE.encode(), "text/html", {"Set-Cookie": "sid=cookie-secret; Path=/"})
        elif self.path.startswith("/api/items/"):
            item = self.path.rsplit("/", 1)[-1]
            self._send(200, json.dumps({"id": item, "price": 1.50}).encode(), "application/json")
        elif self.path == "/api/blob":
            self._send(200, BLOB, "application/octet-stream")
        else:
            self._send(404, b"no", "text/plain")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        self._send(201, b'{"ok":true}', "application/json")


@contextlib.contextmanager
def serve() -> Iterator[str]:
    """A loopback HTTP server on a free port; yields its origin."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@contextlib.contextmanager
def _browser(profile: Path) -> Iterator[int]:
    """Headless Chromium with remote debugging on a loopback port; yields the port, then kills its group."""
    exe = chromium()
    assert exe is not None
    proc = subprocess.Popen(
        [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        marker = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not marker.exists() or not marker.read_text().strip():
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("chromium did not start its DevTools endpoint")
            time.sleep(0.05)
        yield int(marker.read_text().split()[0])
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


class _Cdp:
    """A minimal synchronous CDP session over one page target's websocket."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        ident = self.next_id
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv(timeout=30))
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def pump(self, until: Any, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not until(self.events):
            if time.monotonic() > deadline:
                raise TimeoutError("the page did not finish its requests")
            try:
                self.events.append(json.loads(self.ws.recv(timeout=1)))
            except TimeoutError:
                pass


def _headers(mapping: dict[str, str]) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in mapping.items()]


def _entry(sent: dict[str, Any], response: dict[str, Any], body: dict[str, Any], size: int) -> dict[str, Any]:
    request = sent["request"]
    content: dict[str, Any] = {"size": size, "mimeType": response.get("mimeType", ""), "text": body["body"]}
    if body.get("base64Encoded"):
        content["encoding"] = "base64"
    har_request: dict[str, Any] = {
        "method": request["method"],
        "url": request["url"],
        "httpVersion": response.get("protocol", "http/1.1"),
        "headers": _headers(response.get("requestHeaders") or request.get("headers", {})),
        "queryString": [],
        "cookies": [],
        "headersSize": -1,
        "bodySize": len(request.get("postData", "")),
    }
    if "postData" in request:
        har_request["postData"] = {"mimeType": request["headers"].get("Content-Type", ""), "text": request["postData"]}
    return {
        "startedDateTime": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(sent["wallTime"])),
        "time": 0,
        "request": har_request,
        "response": {
            "status": response["status"],
            "statusText": response.get("statusText", ""),
            "httpVersion": response.get("protocol", "http/1.1"),
            "headers": _headers(response.get("headers", {})),
            "cookies": [],
            "content": content,
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": size,
        },
        "cache": {},
        "timings": {"send": 0, "wait": 0, "receive": 0},
        "_requestId": sent["requestId"],
    }


def record_har(url: str, out: Path, profile: Path, last: str) -> Path:
    """Load `url` in headless Chromium and write the HAR 1.2 of its requests, once the one to `last` finished."""
    with _browser(profile) as port:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as reply:
            page = next(t for t in json.load(reply) if t["type"] == "page")
        from websockets.sync.client import connect

        with connect(page["webSocketDebuggerUrl"], max_size=None) as ws:
            return _record(_Cdp(ws), url, out, last)


def _record(cdp: _Cdp, url: str, out: Path, last: str) -> Path:
    """The HAR of everything `cdp`'s page loads from `url` until the request to `last` finished."""
    cdp.call("Network.enable")
    cdp.call("Page.enable")
    cdp.call("Page.navigate", url=url)

    def finished(events: list[dict[str, Any]]) -> bool:
        ids = {
            e["params"]["requestId"]
            for e in events
            if e.get("method") == "Network.requestWillBeSent" and e["params"]["request"]["url"].endswith(last)
        }
        return any(e.get("method") == "Network.loadingFinished" and e["params"]["requestId"] in ids for e in events)

    cdp.pump(finished, 60)
    by_id: dict[str, dict[str, Any]] = {}
    for e in cdp.events:
        params = e.get("params", {})
        slot = by_id.setdefault(params.get("requestId", ""), {})
        if e.get("method") == "Network.requestWillBeSent":
            slot["sent"] = params
        elif e.get("method") == "Network.responseReceived":
            slot["response"] = params["response"]
        elif e.get("method") == "Network.responseReceivedExtraInfo":
            slot["raw_headers"] = params["headers"]  # with Set-Cookie, which responseReceived leaves out
        elif e.get("method") == "Network.loadingFinished":
            slot["size"] = int(params["encodedDataLength"])
    entries = []
    for request_id, slot in by_id.items():
        if {"sent", "response", "size"} <= set(slot):
            body = cdp.call("Network.getResponseBody", requestId=request_id)
            response = slot["response"] | ({"headers": slot["raw_headers"]} if "raw_headers" in slot else {})
            entries.append(_entry(slot["sent"], response, body, slot["size"]))
    version = cdp.call("Browser.getVersion")
    har = {
        "log": {
            "version": "1.2",
            "creator": {"name": "REA test recorder (Chromium DevTools protocol)", "version": "1"},
            "browser": {"name": "Chromium", "version": version["product"]},
            "pages": [],
            "entries": entries,
        }
    }
    out.write_text(json.dumps(har, indent=1))
    return out


def recorded_har(root: Path) -> Path:
    """The test page's HAR, recorded by Chromium against a loopback server."""
    with serve() as origin:
        return record_har(origin + "/", root / "page.har", root / "profile", last="/api/login")


MITM_WRITER = r"""
import sys
from mitmproxy import io, http
from mitmproxy.test import tflow

def flow(method, path, status, body, auth):
    f = tflow.tflow(resp=True)
    f.request = http.Request.make(method, "http://127.0.0.1:8080" + path, b"",
                                  {"Authorization": auth, "Accept": "*/*"})
    f.response = http.Response.make(status, body, {"Content-Type": "application/octet-stream",
                                                   "Set-Cookie": "sid=flow-cookie"})
    return f

with open(sys.argv[1], "wb") as out:
    w = io.FlowWriter(out)
    w.add(flow("GET", "/api/users/7", 200, bytes([0, 159, 146, 150]) + b"binary", "Bearer flow-token"))
    w.add(flow("DELETE", "/api/users/8", 204, b"", "Basic Zm9vOmJhcg=="))
    w.add(flow("GET", "/static/app.js", 200, b"console.log('plain text body')", "none"))
"""
# what MITM_WRITER wrote: (method, path, status, body)
MITM_FLOWS = [
    ("GET", "/api/users/7", 200, bytes([0, 159, 146, 150]) + b"binary"),
    ("DELETE", "/api/users/8", 204, b""),
    ("GET", "/static/app.js", 200, b"console.log('plain text body')"),
]


def mitm_available() -> bool:
    return subprocess.run(["/usr/bin/python3", "-c", "import mitmproxy"], capture_output=True).returncode == 0


def write_flows(path: Path, version: int | None = None) -> Path:
    """A flow dump written by mitmproxy's FlowWriter; `version` rewrites each record's format version."""
    subprocess.run(["/usr/bin/python3", "-c", MITM_WRITER, str(path)], check=True, capture_output=True)
    if version is not None:
        rewrite = (
            "import sys\nfrom mitmproxy.io import tnetstring\n"
            "data = open(sys.argv[1], 'rb').read()\nout = b''\n"
            "while data:\n    v, data = tnetstring.pop(data)\n    v['version'] = int(sys.argv[2])\n"
            "    out += tnetstring.dumps(v)\nopen(sys.argv[1], 'wb').write(out)\n"
        )
        subprocess.run(["/usr/bin/python3", "-c", rewrite, str(path), str(version)], check=True, capture_output=True)
    return path


def screenshot(root: Path, name: str, boxes: list[tuple[int, int, int, int, str]], size: tuple[int, int]) -> Path:
    """`chromium --headless --screenshot` of a white page with absolutely placed boxes (x, y, w, h, color)."""
    divs = "".join(
        f'<div style="position:absolute;left:{x}px;top:{y}px;width:{w}px;height:{h}px;background:{c}"></div>'
        for x, y, w, h, c in boxes
    )
    page = root / f"{name}.html"
    page.write_text(f'<html><body style="margin:0;background:#fff">{divs}</body></html>')
    out = root / f"{name}.png"
    exe = chromium()
    assert exe is not None
    subprocess.run(
        [
            exe,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--screenshot={out}",
            f"--window-size={size[0]},{size[1]}",
            f"--user-data-dir={root / ('profile-' + name)}",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
        start_new_session=True,
    )
    return out
