"""A scenario step's snapshots (REA 6.x browserScenarioCapture artifacts) of the page it drives: URL, DOM,
accessibility tree, screenshot, history and storage. Secrets are redacted from every text before it is digested;
storage and cookie values are only fingerprinted, and a screenshot is withheld once a secret was typed.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from rea.loopback import origin_of
from rea.web.scenario import holds_secret, redact
from rea.web.screenshot import artifact as png_artifact
from rea.wire.convert import to_wire

if TYPE_CHECKING:
    from effects.web.scenario_page import ScenarioPage

MAX_TEXT = 1 << 20


def text_artifact(text: str) -> dict[str, Any]:
    """Text retained whole (digested) up to MAX_TEXT characters, else truncated and not kept."""
    data = text.encode()
    if len(text) > MAX_TEXT:
        return {"state": "truncated", "observed": len(data), "retained": 0, "reason": f"over {MAX_TEXT} characters"}
    return {
        "state": "captured",
        "value": {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "text": text},
    }


async def url(page: ScenarioPage) -> dict[str, Any]:
    return {"state": "captured", "value": await page.current_url()}


async def dom(page: ScenarioPage) -> dict[str, Any]:
    doc = (await page.session.send("DOM.getDocument", {"depth": 0})).unwrap()
    html = (await page.session.send("DOM.getOuterHTML", {"nodeId": doc["root"]["nodeId"]})).unwrap()["outerHTML"]
    return text_artifact(redact(html, page.forms))


async def accessibility(page: ScenarioPage) -> dict[str, Any]:
    nodes = (await page.session.send("Accessibility.getFullAXTree")).unwrap()["nodes"]
    return text_artifact(redact(json.dumps(nodes, sort_keys=True, separators=(",", ":")), page.forms))


async def screenshot(page: ScenarioPage) -> dict[str, Any]:
    if page.secret_typed:
        return {
            "state": "missing",
            "reason": "withheld: a secret was typed into the page and pixels cannot be redacted",
        }
    png = base64.b64decode((await page.session.send("Page.captureScreenshot", {"format": "png"})).unwrap()["data"])
    if len(png) > 8 << 20:
        return {"state": "truncated", "observed": len(png), "retained": 0, "reason": "PNG over 8 MiB"}
    return {"state": "captured", "value": to_wire(png_artifact(png))}


async def history(page: ScenarioPage) -> dict[str, Any]:
    history = (await page.session.send("Page.getNavigationHistory")).unwrap()
    entries = history["entries"]
    kinds = {"reload": "reload", "auto_toplevel": "navigate", "typed": "navigate", "link": "navigate"}
    return {
        "state": "captured",
        "value": {
            "length": len(entries),
            "current_url": page._url(entries[history["currentIndex"]]["url"]),
            "navigation_entries": [
                {"type": kinds.get(e.get("transitionType", ""), "navigate"), "name": page._url(e["url"])}
                for e in entries[-256:]
            ],
        },
    }


def _fingerprint(page: ScenarioPage, value: str) -> dict[str, Any]:
    if holds_secret(value, page.forms):
        return {"value_state": "redacted-secret", "value_sha256": None}
    return {"value_state": "hashed", "value_sha256": hashlib.sha256(value.encode()).hexdigest()}


async def storage(page: ScenarioPage) -> dict[str, Any]:
    history = (await page.session.send("Page.getNavigationHistory")).unwrap()
    url = history["entries"][history["currentIndex"]]["url"]
    cookies = (await page.session.send("Network.getCookies", {"urls": [url]})).unwrap()["cookies"]
    origin = origin_of(url)
    stores: dict[str, list[dict[str, Any]]] = {"local_storage": [], "session_storage": []}
    if origin is not None:
        for key, local in (("local_storage", True), ("session_storage", False)):
            got = await page.session.send(
                "DOMStorage.getDOMStorageItems", {"storageId": {"securityOrigin": origin, "isLocalStorage": local}}
            )
            items = got.unwrap()["entries"]
            stores[key] = [{"name": redact(k, page.forms)[:1024], **_fingerprint(page, v)} for k, v in items[:512]]
    return {
        "state": "captured",
        "value": {
            "cookies": [
                {
                    "name": redact(c["name"], page.forms)[:1024],
                    "domain": c["domain"][:2048],
                    "path": c["path"][:4096],
                    "secure": bool(c["secure"]),
                    "http_only": bool(c["httpOnly"]),
                    "same_site": c.get("sameSite") if c.get("sameSite") in ("Strict", "Lax", "None") else "Lax",
                    **_fingerprint(page, c["value"]),
                }
                for c in cookies[:512]
            ],
            **stores,
        },
    }


SNAPSHOTS: Mapping[str, Callable[[ScenarioPage], Awaitable[dict[str, Any]]]] = {
    "url": url,
    "dom": dom,
    "accessibility": accessibility,
    "screenshot": screenshot,
    "history": history,
    "storage": storage,
}
