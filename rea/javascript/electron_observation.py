"""Electron file pages over CDP: which targets qualify and what a passive inspection of one says.

Pure: the effect's `/json/version`, `/json/list` (with each file URL's canonical path) and
one window's events and command results arrive structured (rea.javascript.devtools_answers);
the frame, resource and DOM trees are the protocol's own answers, read node by node. Only local `file://` pages qualify;
everything else is counted, not shown. The DOM keeps structure only (names, types,
attribute names, value lengths), never text or attribute values.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

from rea.javascript.devtools_answers import DevtoolsVersion, Discovery, ListedTarget, Window
from rea.javascript.records import electron as el
from rea.javascript.runtime_observation import observation_key as _key
from rea.web.records.browser import BrowserVersion, CaptureWindow, DroppedEvents

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


def file_path(url: object) -> str | None:
    if not isinstance(url, str) or not url.startswith("file://"):
        return None
    path = unquote(urlsplit(url).path)
    return path if path.startswith("/") else None


def browser_of(raw: DevtoolsVersion) -> BrowserVersion:
    return BrowserVersion(
        product=raw.browser,
        protocol_version=raw.protocol_version,
        revision=raw.webkit_version,
        user_agent=raw.user_agent,
        js_version=raw.v8_text,
    )


def _target(raw: ListedTarget, realpaths: Mapping[str, str]) -> el.ElectronTarget:
    return el.ElectronTarget(
        target_id=raw.id,
        type=raw.type,
        title=raw.title,
        file_path=realpaths.get(raw.url, file_path(raw.url) or ""),
        attached=raw.attached,
    )


def target_list(discovered: Discovery) -> el.ElectronTargetList:
    targets, unsupported, non_page = [], 0, 0
    for raw in discovered.targets:
        if raw.type != "page":
            non_page += 1
        elif file_path(raw.url) is None:
            unsupported += 1
        else:
            targets.append(_target(raw, discovered.realpaths))
    return el.ElectronTargetList(
        browser=browser_of(discovered.version),
        targets=tuple(targets),
        excluded=el.ElectronExclusions(unsupported_url=unsupported, non_page=non_page),
        limitations=(
            "Only local file:// page targets are listed; other pages and non-page targets are counted in excluded.",
            "Selecting an endpoint exposes every eligible target and its local path metadata.",
        ),
    )


def eligible(discovered: Discovery, target_id: str) -> ListedTarget | None:
    """The target when it exists at the endpoint and is a local file page, else None."""
    for raw in discovered.targets:
        if raw.id == target_id:
            return raw if raw.type == "page" and file_path(raw.url) is not None else None
    return None


# ------------------------------------------------------------------ inspection


def _frames(tree: object, excluded: dict[str, int]) -> list[el.Frame]:
    out: list[el.Frame] = []
    stack = [tree] if isinstance(tree, dict) else []
    while stack:
        node = stack.pop()
        frame: dict[Any, Any] = node["frame"] if isinstance(node.get("frame"), dict) else {}
        path = file_path(frame.get("url"))
        if path is None:
            excluded["frames"] = excluded.get("frames", 0) + 1
        else:
            out.append(el.Frame(frame_id=str(frame.get("id")), parent_frame_id=frame.get("parentId"), file_path=path))
        stack.extend(c for c in reversed(node.get("childFrames") or []) if isinstance(c, dict))
    return out


def _resources(tree: object, excluded: dict[str, int]) -> list[el.Resource]:
    out: list[el.Resource] = []
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
                el.Resource(
                    resource_key=_key("electron_resource_", r.get("url"), r.get("type")),
                    file_path=path,
                    type=str(r.get("type") or ""),
                    mime_type=str(r.get("mimeType") or ""),
                    content_size=size if isinstance(size, int | float) and size >= 0 else None,
                )
            )
        stack.extend(c for c in node.get("childFrames") or [] if isinstance(c, dict))
    return out


def _dom(document: object) -> tuple[el.Dom, bool]:
    nodes: list[el.DomNode] = []
    total = 0
    stack: list[tuple[Any, int]] = [(document, -1)] if isinstance(document, dict) else []
    while stack:
        node, parent = stack.pop()
        total += 1
        if len(nodes) >= MAX_DOM_NODES:
            stack.extend((c, -1) for c in node.get("children") or [] if isinstance(c, dict))
            continue
        index = len(nodes)
        names = node.get("attributes") or []
        nodes.append(
            el.DomNode(
                index=index,
                parent_index=parent,
                node_type=node.get("nodeType") if isinstance(node.get("nodeType"), int) else 0,
                node_name=str(node.get("nodeName") or ""),
                node_value_length=len(node.get("nodeValue") or ""),
                attribute_names=tuple(str(a) for a in names[0::2]),
            )
        )
        children = [c for c in node.get("children") or [] if isinstance(c, dict)]
        stack.extend((c, index) for c in reversed(children))
    return el.Dom(total_nodes=total, nodes=tuple(nodes)), total > len(nodes)


def _source(text: object, asked: bool, known: bool) -> el.SourceOmitted | el.SourceIncluded:
    if not asked:
        return el.SourceOmitted(included=False, reason="include_script_sources is false")
    if not isinstance(text, str):
        why = "over the 16 MiB source budget or not answered" if known else "not read (script limit)"
        return el.SourceOmitted(included=False, reason=why)
    data = text.encode("utf-8", "surrogatepass")
    artifact = el.TextArtifact(
        sha256=hashlib.sha256(data).hexdigest(),
        bytes=len(data),
        media_type="text/javascript",
        charset="utf-8",
        text=text,
    )
    return el.SourceIncluded(included=True, artifact=artifact)


def _script(
    p: Mapping[Any, Any], path: str, target_id: str, source: el.SourceOmitted | el.SourceIncluded
) -> el.ElectronScript:
    aux: dict[Any, Any] = p["executionContextAuxData"] if isinstance(p.get("executionContextAuxData"), dict) else {}
    return el.ElectronScript(
        script_key=_key("electron_script_", target_id, p.get("scriptId"), p.get("url"), p.get("hash")),
        frame_id=aux.get("frameId") if isinstance(aux.get("frameId"), str) else None,
        file_path=path,
        cdp_hash=p.get("hash") if isinstance(p.get("hash"), str) else None,
        length=p.get("length") if isinstance(p.get("length"), int) and p["length"] >= 0 else None,
        is_module=p.get("isModule") if isinstance(p.get("isModule"), bool) else None,
        language=p.get("scriptLanguage") if isinstance(p.get("scriptLanguage"), str) else None,
        source=source,
    )


def _scripts(window: Window, target_id: str, asked: bool, excluded: dict[str, int]) -> list[el.ElectronScript]:
    out = []
    sources = window.sources
    for _at, method, p in window.events:
        if method != "Debugger.scriptParsed" or not isinstance(p, dict):
            continue
        path = file_path(p.get("url"))
        if path is None:
            excluded["scripts"] = excluded.get("scripts", 0) + 1
            continue
        ident = p.get("scriptId")
        text = sources.get(ident) if isinstance(ident, str) else None
        known = isinstance(ident, str) and ident in sources
        out.append(_script(p, path, target_id, _source(text, asked, known)))
    return out


def _completeness(
    excluded: Mapping[str, int], truncated: Sequence[str], unavailable: Sequence[str], dropped: int
) -> el.Completeness:
    conditions: list[el.Condition] = ["policy_filtered"] if excluded else []
    conditions += ["truncated"] if truncated else []
    status: el.Condition = conditions[-1] if conditions else "complete_within_window"
    return el.Completeness(
        status=status,
        conditions=tuple(conditions) or ("complete_within_window",),
        policy_filtered_sections=tuple(sorted(excluded)),
        attach_limited_sections=(),
        truncated_sections=tuple(truncated),
        unavailable_sections=tuple(unavailable),
        excluded=tuple(
            el.Exclusion(section=s, reason="not a local file:// URL", count=n) for s, n in sorted(excluded.items())
        ),
        dropped_events=DroppedEvents(
            scripts=dropped,
            network_requests=0,
            console_events=0,
            websocket_connections=0,
            websocket_frames=0,
            webmcp_tools=0,
            timeline_events=0,
            total=dropped,
        ),
    )


def _workers(discovered: Discovery) -> tuple[el.Worker, ...]:
    return tuple(
        el.Worker(
            target_id=t.id,
            type=t.type,
            file_path=file_path(t.url) or "",
            attached=t.attached,
            opener_target_id=t.opener_id,
            parent_frame_id=t.parent_frame_id,
        )
        for t in discovered.targets
        if t.type in WORKER_TYPES and file_path(t.url) is not None
    )


def _limitations(window: Window, args: el.InspectElectronPageArgs) -> tuple[str, ...]:
    limitations = [
        f"One {args.observation_ms} ms window; scripts parsed before attach are replayed while the page holds them.",
        "Renderer JavaScript is never evaluated and no Electron API is invoked; DOM text and attribute values are "
        "not kept.",
        *[f"{e.method} failed ({e.reason})" for e in window.errors],
    ]
    if window.exited:
        limitations.append(f"The page went away {window.elapsed_ms} ms into the window; later activity is unobserved.")
    return tuple(limitations)


def _tree(window: Window, command: str, key: str) -> object:
    """One finish command's answer's tree (the protocol's JSON), or None when it did not answer."""
    return (window.results.get(command) or {}).get(key)


def inspection(window: Window, discovered: Discovery, args: el.InspectElectronPageArgs) -> el.ElectronPageInspection:
    """The inspect_electron_page result from one window."""
    excluded: dict[str, int] = {}
    target = _target(window.target, discovered.realpaths)
    unavailable = [
        m for m, key in (("frames", "Page.getFrameTree"), ("dom", "DOM.getDocument")) if key not in window.results
    ]
    frames = _frames(_tree(window, "Page.getFrameTree", "frameTree"), excluded)
    resources = _resources(_tree(window, "Page.getResourceTree", "frameTree"), excluded)
    dom, dom_truncated = _dom(_tree(window, "DOM.getDocument", "root"))
    scripts = _scripts(window, target.target_id, args.include_script_sources, excluded)
    dropped = sum(window.dropped.values())
    truncated = (["dom"] if dom_truncated else []) + (["scripts"] if dropped else [])
    return el.ElectronPageInspection(
        browser=browser_of(window.version),
        target=target,
        capture_window=CaptureWindow(
            started_at=window.started_at, ended_at=window.ended_at, observation_ms=args.observation_ms
        ),
        completeness=_completeness(excluded, truncated, unavailable, dropped),
        frames=tuple(frames),
        dom=dom,
        scripts=el.ElectronScripts(total=len(scripts), items=tuple(scripts)),
        resources=tuple(resources),
        workers=_workers(discovered),
        limitations=_limitations(window, args),
    )
