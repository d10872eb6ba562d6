"""Electron file pages over CDP: which targets qualify and what a passive inspection of one says.

Pure: the effect hands over `/json/version`, `/json/list` (with each file URL's canonical
path) and one window's events and command results. Only local `file://` pages qualify;
everything else is counted, not shown. The DOM keeps structure only (names, types,
attribute names, value lengths), never text or attribute values.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

from rea.javascript.runtime_observation import observation_key as _key

START: tuple[tuple[str, Mapping[str, object]], ...] = (
    ("Page.enable", {}),
    ("Debugger.enable", {}),
    ("Debugger.setSkipAllPauses", {"skip": True}),
)
FINISH: tuple[tuple[str, Mapping[str, object]], ...] = (
    ("Page.getFrameTree", {}),
    ("Page.getResourceTree", {}),
    ("DOM.getDocument", {"depth": -1, "pierce": False}),
    ("Debugger.disable", {}),
)
LISTEN = ("Debugger.scriptParsed",)
MAX_DOM_NODES = 5000
WORKER_TYPES = ("worker", "service_worker", "shared_worker")


def file_path(url: Any) -> str | None:
    if not isinstance(url, str) or not url.startswith("file://"):
        return None
    path = unquote(urlsplit(url).path)
    return path if path.startswith("/") else None


def browser_of(raw: Mapping[str, Any]) -> dict[str, str]:
    def text(key: str) -> str:
        return str(raw.get(key) or "")

    return {
        "product": text("Browser"),
        "protocol_version": text("Protocol-Version"),
        "revision": text("WebKit-Version"),
        "user_agent": text("User-Agent"),
        "js_version": text("V8-Version"),
    }


def _target(raw: Mapping[str, Any], realpaths: Mapping[str, str]) -> dict[str, Any]:
    url = raw.get("url")
    return {
        "target_id": raw["id"],
        "type": str(raw.get("type") or ""),
        "title": str(raw.get("title") or ""),
        "file_path": realpaths.get(url, file_path(url) or "") if isinstance(url, str) else "",
        "attached": bool(raw.get("attached", False)),
    }


def target_list(discovered: Mapping[str, Any]) -> dict[str, Any]:
    targets, unsupported, non_page = [], 0, 0
    for raw in discovered["targets"]:
        if raw.get("type") != "page":
            non_page += 1
        elif file_path(raw.get("url")) is None:
            unsupported += 1
        else:
            targets.append(_target(raw, discovered.get("realpaths", {})))
    return {
        "browser": browser_of(discovered["version"]),
        "targets": targets,
        "excluded": {"unsupported_url": unsupported, "non_page": non_page},
        "limitations": [
            "Only local file:// page targets are listed; other pages and non-page targets are counted in excluded.",
            "Selecting an endpoint exposes every eligible target and its local path metadata.",
        ],
    }


def eligible(discovered: Mapping[str, Any], target_id: str) -> dict[str, Any] | None:
    """The target when it exists at the endpoint and is a local file page, else None."""
    for raw in discovered["targets"]:
        if raw.get("id") == target_id:
            return raw if raw.get("type") == "page" and file_path(raw.get("url")) is not None else None
    return None


# ------------------------------------------------------------------ inspection


def _frames(tree: Any, excluded: dict[str, int]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    stack = [tree] if isinstance(tree, dict) else []
    while stack:
        node = stack.pop()
        frame: dict[str, Any] = node["frame"] if isinstance(node.get("frame"), dict) else {}
        path = file_path(frame.get("url"))
        if path is None:
            excluded["frames"] = excluded.get("frames", 0) + 1
        else:
            out.append({"frame_id": str(frame.get("id")), "parent_frame_id": frame.get("parentId"), "file_path": path})
        stack.extend(c for c in reversed(node.get("childFrames") or []) if isinstance(c, dict))
    return out


def _resources(tree: Any, excluded: dict[str, int]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    stack = [tree] if isinstance(tree, dict) else []
    while stack:
        node = stack.pop()
        for r in node.get("resources") or []:
            path = file_path(r.get("url")) if isinstance(r, dict) else None
            if path is None:
                excluded["resources"] = excluded.get("resources", 0) + 1
                continue
            size = r.get("contentSize")
            out.append(
                {
                    "resource_key": _key("electron_resource_", r.get("url"), r.get("type")),
                    "file_path": path,
                    "type": str(r.get("type") or ""),
                    "mime_type": str(r.get("mimeType") or ""),
                    "content_size": size if isinstance(size, int | float) and size >= 0 else None,
                }
            )
        stack.extend(c for c in node.get("childFrames") or [] if isinstance(c, dict))
    return out


def _dom(document: Any) -> tuple[dict[str, Any], bool]:
    nodes: list[dict[str, Any]] = []
    total = 0
    stack: list[tuple[Any, int]] = [(document, -1)] if isinstance(document, dict) else []
    while stack:
        node, parent = stack.pop()
        total += 1
        if len(nodes) >= MAX_DOM_NODES:
            stack.extend((c, -1) for c in node.get("children") or [] if isinstance(c, dict))
            continue
        index = len(nodes)
        attrs = node.get("attributes") or []
        nodes.append(
            {
                "index": index,
                "parent_index": parent,
                "node_type": node.get("nodeType") if isinstance(node.get("nodeType"), int) else 0,
                "node_name": str(node.get("nodeName") or ""),
                "node_value_length": len(node.get("nodeValue") or ""),
                "attribute_names": [str(a) for a in attrs[0::2]],
            }
        )
        children = [c for c in node.get("children") or [] if isinstance(c, dict)]
        stack.extend((c, index) for c in reversed(children))
    return {"total_nodes": total, "nodes": nodes}, total > len(nodes)


def _source(text: Any, asked: bool, known: bool) -> dict[str, Any]:
    if not asked:
        return {"included": False, "reason": "include_script_sources is false"}
    if not isinstance(text, str):
        why = "over the 16 MiB source budget or not answered" if known else "not read (script limit)"
        return {"included": False, "reason": why}
    data = text.encode("utf-8", "surrogatepass")
    artifact = {
        "sha256": hashlib.sha256(data).hexdigest(),
        "bytes": len(data),
        "media_type": "text/javascript",
        "charset": "utf-8",
        "text": text,
    }
    return {"included": True, "artifact": artifact}


def _scripts(raw: Mapping[str, Any], target_id: str, asked: bool, excluded: dict[str, int]) -> list[dict[str, Any]]:
    out = []
    sources = raw.get("sources", {})
    for _at, method, p in raw["events"]:
        if method != "Debugger.scriptParsed" or not isinstance(p, dict):
            continue
        path = file_path(p.get("url"))
        if path is None:
            excluded["scripts"] = excluded.get("scripts", 0) + 1
            continue
        aux: dict[str, Any] = p["executionContextAuxData"] if isinstance(p.get("executionContextAuxData"), dict) else {}
        out.append(
            {
                "script_key": _key("electron_script_", target_id, p.get("scriptId"), p.get("url"), p.get("hash")),
                "frame_id": aux.get("frameId") if isinstance(aux.get("frameId"), str) else None,
                "file_path": path,
                "cdp_hash": p.get("hash") if isinstance(p.get("hash"), str) else None,
                "length": p.get("length") if isinstance(p.get("length"), int) and p["length"] >= 0 else None,
                "is_module": p.get("isModule") if isinstance(p.get("isModule"), bool) else None,
                "language": p.get("scriptLanguage") if isinstance(p.get("scriptLanguage"), str) else None,
                "source": _source(sources.get(p.get("scriptId")), asked, p.get("scriptId") in sources),
            }
        )
    return out


def _completeness(
    excluded: Mapping[str, int], truncated: Sequence[str], unavailable: Sequence[str], dropped: int
) -> dict[str, Any]:
    conditions = (["policy_filtered"] if excluded else []) + (["truncated"] if truncated else [])
    status = conditions[-1] if conditions else "complete_within_window"
    return {
        "status": status,
        "conditions": conditions or ["complete_within_window"],
        "policy_filtered_sections": sorted(excluded),
        "attach_limited_sections": [],
        "truncated_sections": list(truncated),
        "unavailable_sections": list(unavailable),
        "excluded": [
            {"section": s, "reason": "not a local file:// URL", "count": n} for s, n in sorted(excluded.items())
        ],
        "dropped_events": {
            "scripts": dropped,
            "network_requests": 0,
            "console_events": 0,
            "websocket_connections": 0,
            "websocket_frames": 0,
            "webmcp_tools": 0,
            "timeline_events": 0,
            "total": dropped,
        },
    }


def inspection(raw: Mapping[str, Any], discovered: Mapping[str, Any], args: Mapping[str, Any]) -> dict[str, Any]:
    """The inspect_electron_page result from one window."""
    excluded: dict[str, int] = {}
    results = raw["results"]
    target = _target(raw["target"], discovered.get("realpaths", {}))
    unavailable = [m for m, key in (("frames", "Page.getFrameTree"), ("dom", "DOM.getDocument")) if key not in results]
    frames = _frames((results.get("Page.getFrameTree") or {}).get("frameTree"), excluded)
    resources = _resources((results.get("Page.getResourceTree") or {}).get("frameTree"), excluded)
    dom, dom_truncated = _dom((results.get("DOM.getDocument") or {}).get("root"))
    scripts = _scripts(raw, target["target_id"], args["include_script_sources"], excluded)
    workers = [
        {
            "target_id": t["id"],
            "type": t["type"],
            "file_path": file_path(t.get("url")) or "",
            "attached": bool(t.get("attached", False)),
            "opener_target_id": t.get("openerId") or None,
            "parent_frame_id": t.get("parentFrameId") or None,
        }
        for t in discovered["targets"]
        if t.get("type") in WORKER_TYPES and file_path(t.get("url")) is not None
    ]
    dropped = sum(raw["dropped"].values())
    truncated = (["dom"] if dom_truncated else []) + (["scripts"] if dropped else [])
    limitations = [
        f"One {args['observation_ms']} ms window; scripts parsed before attach are replayed while the page holds them.",
        "Renderer JavaScript is never evaluated and no Electron API is invoked; DOM text and attribute values are "
        "not kept.",
        *[f"{e['method']} failed ({e['reason']})" for e in raw["errors"]],
    ]
    if raw["exited"]:
        limitations.append(f"The page went away {raw['elapsed_ms']} ms into the window; later activity is unobserved.")
    return {
        "browser": browser_of(raw["version"]),
        "target": target,
        "capture_window": {
            "started_at": raw["started_at"],
            "ended_at": raw["ended_at"],
            "observation_ms": args["observation_ms"],
        },
        "completeness": _completeness(excluded, truncated, unavailable, dropped),
        "frames": frames,
        "dom": dom,
        "scripts": {"total": len(scripts), "items": scripts},
        "resources": resources,
        "workers": workers,
        "limitations": limitations,
    }
