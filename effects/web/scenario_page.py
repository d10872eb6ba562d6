"""One driven page: origin enforcement and replay (Fetch), events, locators, actions and artifacts.

The page is REA's to drive for the scenario (the tool executes foreign code), so actions are
real input (Input.dispatchMouseEvent / insertText / dispatchKeyEvent) on elements found by CSS,
data-testid or the accessibility tree (Accessibility.queryAXTree). Every request pauses in the
Fetch domain: a declared replay route answers it, a request outside the scenario's origins is
failed by the browser (BlockedByClient), the rest continue. Secret values are replaced in every
retained text before it is digested.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

import anyio

from effects.cdp import CdpSession
from effects.web.scenario_artifacts import SNAPSHOTS
from rea.loopback import origin_of
from rea.web.scenario import MAX_EVENTS, redact, value_of, with_query
from rea.web.scope import clean_url

GROUP = "rea-scenario"
POLL_S = 0.05
KEYS: Mapping[str, tuple[str, int, str]] = {  # key -> (code, windows key code, text)
    "Enter": ("Enter", 13, "\r"),
    "Tab": ("Tab", 9, ""),
    "Escape": ("Escape", 27, ""),
    "Backspace": ("Backspace", 8, ""),
    "Delete": ("Delete", 46, ""),
    "ArrowUp": ("ArrowUp", 38, ""),
    "ArrowDown": ("ArrowDown", 40, ""),
    "ArrowLeft": ("ArrowLeft", 37, ""),
    "ArrowRight": ("ArrowRight", 39, ""),
    "Home": ("Home", 36, ""),
    "End": ("End", 35, ""),
    " ": ("Space", 32, " "),
}
FAMILY = {
    "console": "console",
    "page-error": "page-errors",
    "request": "network",
    "response": "network",
    "request-failed": "network",
    "frame-attached": "frames",
    "frame-detached": "frames",
    "frame-navigated": "frames",
}
CENTRE = """function(){ this.scrollIntoView({block: 'center', inline: 'center'});
  const r = this.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2, r.width, r.height]; }"""
CLEAR = """function(){ this.focus(); if ('value' in this) { this.value = '';
  this.dispatchEvent(new Event('input', {bubbles: true})); } else if (this.isContentEditable) { this.textContent = ''; }
  return document.activeElement === this; }"""
CHANGED = "function(){ this.dispatchEvent(new Event('change', {bubbles: true})); }"
FOCUS = "function(){ this.focus(); return document.activeElement === this; }"
CHECKED = "function(){ return !!this.checked; }"
VISIBLE = """function(){ const r = this.getBoundingClientRect(); const s = getComputedStyle(this);
  return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; }"""
SELECT = """function(v){ if (!(this instanceof HTMLSelectElement)) return 'the element is not a <select>';
  const o = [...this.options].find(o => o.value === v) || [...this.options].find(o => o.label === v || o.text === v);
  if (!o) return 'no option has that value or label'; this.value = o.value;
  this.dispatchEvent(new Event('input', {bubbles: true})); this.dispatchEvent(new Event('change', {bubbles: true}));
  return ''; }"""


class StepFailed(Exception):
    """An action could not be performed; the message becomes the step's error."""


class ScenarioPage:
    """The page a scenario drives, with what it observed so far."""

    def __init__(
        self,
        session: CdpSession,
        args: Mapping[str, Any],
        origins: Sequence[str],
        secrets: Mapping[str, str],
        forms: Sequence[tuple[str, str]],
    ) -> None:
        self.session, self.args, self.origins, self.secrets, self.forms = session, args, tuple(origins), secrets, forms
        self.families = set(args["capture"]["events"])
        self.events: list[dict[str, Any]] = []
        self.dropped = 0
        self.sequence = 0
        self.step_index = 0
        self.requests: dict[str, tuple[str, str]] = {}
        self.blocked_documents: list[str] = []
        self.loads = 0
        self.loading = False
        self.secret_typed = False
        self.main_frame: str | None = None
        self.tasks: set[asyncio.Task[Any]] = set()
        self.routes = {
            (r["method"], with_query(r["request"], secrets)): r for r in args["request_replay"].get("routes", ())
        }

    # ---------------------------------------------------------------- setup

    def listen(self) -> None:
        """Register the event handlers (before any domain is enabled, so nothing is missed)."""
        for method, handler in (
            ("Fetch.requestPaused", self._paused),
            ("Page.loadEventFired", self._loaded),
            ("Page.frameStartedLoading", self._started),
            ("Page.frameStoppedLoading", self._stopped),
            ("Runtime.consoleAPICalled", self._console),
            ("Runtime.exceptionThrown", self._exception),
            ("Network.requestWillBeSent", self._request),
            ("Network.responseReceived", self._response),
            ("Network.loadingFailed", self._failed),
            ("Page.frameAttached", lambda p: self._frame("frame-attached", None, None)),
            ("Page.frameDetached", lambda p: self._frame("frame-detached", None, None)),
            ("Page.frameNavigated", self._navigated),
        ):
            self.session.on(method, handler)

    async def setup(self) -> None:
        s = self.session
        self.listen()
        env = self.args["environment"]
        viewport = env["viewport"]
        commands: list[tuple[str, dict[str, Any]]] = [
            ("Page.enable", {}),
            ("Runtime.enable", {}),
            ("Network.enable", {}),
            ("Fetch.enable", {"patterns": [{"urlPattern": "*", "requestStage": "Request"}]}),
            (
                "Emulation.setDeviceMetricsOverride",
                {
                    "width": viewport["width"],
                    "height": viewport["height"],
                    "deviceScaleFactor": viewport["device_scale_factor"],
                    "mobile": False,
                },
            ),
            ("Emulation.setLocaleOverride", {"locale": env["locale"]}),
            ("Emulation.setTimezoneOverride", {"timezoneId": env["timezone"]}),
            (
                "Emulation.setEmulatedMedia",
                {
                    "features": [
                        {"name": "prefers-color-scheme", "value": env["color_scheme"]},
                        {"name": "prefers-reduced-motion", "value": env["reduced_motion"]},
                    ]
                },
            ),
            ("Network.setBypassServiceWorker", {"bypass": env["service_workers"] == "block"}),
        ]
        for method, params in commands:
            (await s.send(method, params)).unwrap()
        tree = (await s.send("Page.getFrameTree")).unwrap()
        self.main_frame = tree["frameTree"]["frame"]["id"]
        for cookie in self.args["storage"]["cookies"]:
            (
                await s.send(
                    "Network.setCookie",
                    {
                        "name": cookie["name"],
                        "value": value_of(cookie["value"], self.secrets),
                        "url": with_query(cookie["destination"], self.secrets),
                        "httpOnly": cookie["http_only"],
                        "secure": cookie["secure"],
                        "sameSite": cookie["same_site"],
                    },
                )
            ).unwrap()

    # ---------------------------------------------------------------- events

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def _keep(self, event: dict[str, Any]) -> None:
        if FAMILY[event["kind"]] not in self.families:
            return
        if len(self.events) >= MAX_EVENTS:
            self.dropped += 1
            return
        self.sequence += 1
        self.events.append({"sequence": self.sequence, "step_index": self.step_index, **event})

    def _url(self, url: str) -> str:
        return redact(clean_url(url), self.forms)

    def _paused(self, p: dict[str, Any]) -> None:
        self._spawn(self._decide(p))

    async def _decide(self, p: dict[str, Any]) -> None:
        request_id, url, method = p["requestId"], p["request"]["url"], p["request"]["method"]
        full = url + (p["request"].get("urlFragment") or "")
        route = self.routes.get((method, url)) or self.routes.get((method, full))
        replay = self.args["request_replay"]
        if route is not None:
            await self._fulfil(request_id, route)
        elif origin_of(url) in self.origins and not (replay["mode"] == "exact" and replay["unmatched"] == "abort"):
            await self.session.send("Fetch.continueRequest", {"requestId": request_id})
        else:
            if p.get("resourceType") == "Document" and p.get("frameId") == self.main_frame:
                self.blocked_documents.append(self._url(url))
            await self.session.send("Fetch.failRequest", {"requestId": request_id, "errorReason": "BlockedByClient"})

    async def _fulfil(self, request_id: str, route: Mapping[str, Any]) -> None:
        response = route["response"]
        if response["kind"] == "redirect":
            headers = [{"name": "Location", "value": with_query(response["destination"], self.secrets)}]
            body = b""
        else:
            headers = [{"name": h["name"], "value": value_of(h["value"], self.secrets)} for h in response["headers"]]
            body = value_of(response["body"], self.secrets).encode() if response.get("body") else b""
        await self.session.send(
            "Fetch.fulfillRequest",
            {
                "requestId": request_id,
                "responseCode": response["status"],
                "responseHeaders": headers,
                "body": base64.b64encode(body).decode("ascii"),
            },
        )

    def _loaded(self, p: dict[str, Any]) -> None:
        self.loads += 1

    def _started(self, p: dict[str, Any]) -> None:
        if p.get("frameId") == self.main_frame:
            self.loading = True

    def _stopped(self, p: dict[str, Any]) -> None:
        if p.get("frameId") == self.main_frame:
            self.loading = False

    def _console(self, p: dict[str, Any]) -> None:
        parts = [
            str(a["value"]) if "value" in a else str(a.get("description", a.get("type"))) for a in p.get("args", [])
        ]
        frames = (p.get("stackTrace") or {}).get("callFrames") or []
        self._keep(
            {
                "kind": "console",
                "level": str(p.get("type") or "log")[:64],
                "text": redact(" ".join(parts), self.forms)[:65536],
                "url": self._url(frames[0]["url"]) if frames and frames[0].get("url") else None,
            }
        )

    def _exception(self, p: dict[str, Any]) -> None:
        details = p.get("exceptionDetails") or {}
        description = str((details.get("exception") or {}).get("description") or details.get("text") or "")
        first, _, rest = description.partition("\n")
        self._keep(
            {
                "kind": "page-error",
                "message": redact(first, self.forms)[:65536],
                "stack": redact(description, self.forms)[:262144] if rest else None,
            }
        )

    def _network(self, kind: str, method: str, url: str, rtype: str, headers: Mapping[str, Any], **extra: Any) -> None:
        self._keep(
            {
                "kind": kind,
                "method": method[:32] or "GET",
                "url": self._url(url),
                "resource_type": (rtype or "Other")[:64],
                "header_names": sorted(str(h).lower() for h in headers)[:256],
                "status": None,
                "failure": None,
                **extra,
            }
        )

    def _request(self, p: dict[str, Any]) -> None:
        request = p["request"]
        self.requests[p["requestId"]] = (request["method"], request["url"])
        self._network("request", request["method"], request["url"], p.get("type", ""), request.get("headers") or {})

    def _response(self, p: dict[str, Any]) -> None:
        response = p["response"]
        method = self.requests.get(p["requestId"], ("GET", ""))[0]
        status = int(response.get("status") or 0)
        if 100 <= status <= 599:
            self._network(
                "response", method, response["url"], p.get("type", ""), response.get("headers") or {}, status=status
            )

    def _failed(self, p: dict[str, Any]) -> None:
        method, url = self.requests.get(p["requestId"], ("GET", ""))
        if url:
            reason = str(p.get("errorText") or "failed")
            if p.get("blockedReason") or "BLOCKED_BY_CLIENT" in reason:
                reason += " (outside allowed_origins or not replayed)"
            self._network(
                "request-failed", method, url, p.get("type", ""), {}, failure=redact(reason, self.forms)[:1024]
            )

    def _frame(self, kind: str, url: str | None, name: str | None) -> None:
        self._keep({"kind": kind, "url": self._url(url) if url else None, "name": name})

    def _navigated(self, p: dict[str, Any]) -> None:
        frame = p.get("frame") or {}
        self._frame("frame-navigated", frame.get("url"), frame.get("name") or None)

    # ---------------------------------------------------------------- navigation

    async def current_url(self) -> str:
        history = (await self.session.send("Page.getNavigationHistory")).value_or(None)
        if not history:
            return "about:blank"
        return self._url(history["entries"][history["currentIndex"]]["url"])

    async def navigate(self, url: str, wait_until: str) -> None:
        before = self.loads
        sent = await self.session.send("Page.navigate", {"url": url})
        reply = sent.unwrap()
        if reply.get("errorText"):
            raise StepFailed(f"navigation to {self._url(url)} failed: {reply['errorText']}")
        if wait_until == "load":
            await self._loaded_since(before)
        elif wait_until == "domcontentloaded":
            while not await self._ready():
                await anyio.sleep(POLL_S)

    async def reload(self) -> None:
        """Reload the document; return once the reloaded document has loaded (so the target has its URL)."""
        before = self.loads
        (await self.session.send("Page.reload")).unwrap()
        await self._loaded_since(before)

    async def _loaded_since(self, before: int) -> None:
        while self.loads == before:
            await anyio.sleep(POLL_S)

    async def _ready(self) -> bool:
        got = await self.session.send("Runtime.evaluate", {"expression": "document.readyState", "returnByValue": True})
        value = got.value_or({}).get("result", {}).get("value")
        return value in ("interactive", "complete")

    async def settle(self) -> None:
        """After an input action: let a navigation it started finish loading."""
        await anyio.sleep(POLL_S)
        while self.loading:
            await anyio.sleep(POLL_S)

    def refused(self) -> None:
        """Fail the step when the page tried to leave the scenario's origins during it."""
        if self.blocked_documents:
            raise StepFailed(f"navigation to {self.blocked_documents[-1]} was refused: outside allowed_origins")

    # ---------------------------------------------------------------- locators

    async def find(self, locator: Mapping[str, Any]) -> str | None:
        """The remote object id of the locator's element, or None when there is none (yet)."""
        if locator["kind"] == "role":
            return await self._by_role(locator["role"], locator["name"])
        if locator["kind"] == "css":
            expression = f"document.querySelector({json.dumps(locator['selector'])})"
        else:
            expression = (
                f"document.querySelector('[data-testid=\"' + CSS.escape({json.dumps(locator['value'])}) + '\"]')"
            )
        got = await self.session.send("Runtime.evaluate", {"expression": expression, "objectGroup": GROUP})
        reply = got.value_or({})
        details = reply.get("exceptionDetails")
        if details:
            text = str((details.get("exception") or {}).get("description") or details.get("text"))
            if "SyntaxError" in text or "not a valid selector" in text:
                raise StepFailed(f"the locator is not a valid selector: {text.splitlines()[0]}")
            return None  # the document is changing (a navigation in flight): try again
        result = reply.get("result") or {}
        return result.get("objectId") if result.get("subtype") != "null" else None

    async def _by_role(self, role: str, name: str) -> str | None:
        doc = (await self.session.send("DOM.getDocument", {"depth": 0})).value_or(None)
        if not doc:
            return None
        got = await self.session.send(
            "Accessibility.queryAXTree", {"nodeId": doc["root"]["nodeId"], "accessibleName": name, "role": role}
        )
        nodes = [n for n in got.value_or({}).get("nodes", []) if n.get("backendDOMNodeId") and not n.get("ignored")]
        if not nodes:
            return None
        resolved = await self.session.send(
            "DOM.resolveNode", {"backendNodeId": nodes[0]["backendDOMNodeId"], "objectGroup": GROUP}
        )
        object_id: str | None = resolved.value_or({}).get("object", {}).get("objectId")
        return object_id

    async def element(self, locator: Mapping[str, Any]) -> str:
        while True:
            found = await self.find(locator)
            if found is not None:
                return found
            await anyio.sleep(POLL_S)

    async def call(self, object_id: str, function: str, *arguments: Any) -> Any:
        got = await self.session.send(
            "Runtime.callFunctionOn",
            {
                "objectId": object_id,
                "functionDeclaration": function,
                "arguments": [{"value": a} for a in arguments],
                "returnByValue": True,
            },
        )
        reply = got.unwrap()
        if reply.get("exceptionDetails"):
            raise StepFailed(f"the element rejected the action: {reply['exceptionDetails'].get('text')}")
        return (reply.get("result") or {}).get("value")

    # ---------------------------------------------------------------- actions

    async def click(self, locator: Mapping[str, Any], button: str = "left", count: int = 1) -> None:
        while True:
            target = await self.element(locator)
            x, y, width, height = await self.call(target, CENTRE)
            if width > 0 and height > 0:
                break
            await anyio.sleep(POLL_S)
        mouse = {"x": x, "y": y, "button": button, "clickCount": count}
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            (await self.session.send("Input.dispatchMouseEvent", {"type": kind, **mouse})).unwrap()

    async def fill(self, locator: Mapping[str, Any], value: Mapping[str, Any]) -> None:
        target = await self.element(locator)
        if not await self.call(target, CLEAR):
            raise StepFailed("the element cannot take focus")
        text = value_of(value, self.secrets)
        if text:
            (await self.session.send("Input.insertText", {"text": text})).unwrap()
        await self.call(target, CHANGED)
        self.secret_typed |= value["source"] == "secret"

    async def press(self, locator: Mapping[str, Any], key: str) -> None:
        target = await self.element(locator)
        await self.call(target, FOCUS)
        code, vk, text = KEYS.get(
            key, (f"Key{key.upper()}" if len(key) == 1 and key.isalpha() else key, 0, key if len(key) == 1 else "")
        )
        if key not in KEYS and len(key) != 1:
            raise StepFailed(f"unknown key {key!r}: use one character or {', '.join(k for k in KEYS if k != ' ')}")
        base = {"key": key, "code": code, "windowsVirtualKeyCode": vk or (ord(key.upper()) if len(key) == 1 else 0)}
        down = {**base, "type": "keyDown", **({"text": text} if text else {})}
        for event in (down, {**base, "type": "keyUp"}):
            (await self.session.send("Input.dispatchKeyEvent", event)).unwrap()

    async def select(self, locator: Mapping[str, Any], value: Mapping[str, Any]) -> None:
        target = await self.element(locator)
        problem = await self.call(target, SELECT, value_of(value, self.secrets))
        if problem:
            raise StepFailed(str(problem))
        self.secret_typed |= value["source"] == "secret"

    async def check(self, locator: Mapping[str, Any], wanted: bool) -> None:
        if await self.call(await self.element(locator), CHECKED) != wanted:
            await self.click(locator)
            await self.settle()
        if await self.call(await self.element(locator), CHECKED) != wanted:
            raise StepFailed(f"the element did not become {'checked' if wanted else 'unchecked'}")

    async def wait_for(self, locator: Mapping[str, Any], state: str) -> None:
        while True:
            found = await self.find(locator)
            visible = found is not None and bool(await self.call(found, VISIBLE))
            done = {
                "attached": found is not None,
                "detached": found is None,
                "visible": visible,
                "hidden": not visible,
            }[state]
            if done:
                return
            await anyio.sleep(POLL_S)

    # ---------------------------------------------------------------- artifacts

    async def artifact(self, kind: str) -> dict[str, Any]:
        try:
            return await SNAPSHOTS[kind](self)
        except Exception as exc:  # a snapshot the browser could not give: missing, said why
            return {"state": "missing", "reason": redact(f"{type(exc).__name__}: {exc}", self.forms)[:1024] or "failed"}

    def elapsed_ms(self, started: float) -> int:
        return max(0, int((time.monotonic() - started) * 1000))
