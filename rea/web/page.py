"""The page model of inspect_web_page: frames, DOM, accessibility, resources and scripts from raw CDP.

Each pass reads one raw snapshot, applies the origin scope and limits, and notes what it
left out in the ledger. DOM text and attribute values are never kept (lengths and names
are); accessibility text only when approved.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from rea.loopback import origin_of
from rea.web.completeness import Ledger
from rea.web.records.page import (
    Accessibility,
    AxNode,
    AxState,
    AxTextCapture,
    Dom,
    DomNode,
    Frame,
    ReconciledAmbiguous,
    ReconciledExact,
    ReconciledNone,
    Resource,
    Script,
    Scripts,
    SourceIncluded,
    SourceWithheld,
)
from rea.web.redaction import text_artifact
from rea.web.scope import clean_url, in_scope

Raw = Mapping[str, Any]


def frames(tree: Raw | None) -> tuple[Frame, ...]:
    out: list[Frame] = []
    pending = [tree] if tree else []
    while pending:
        node = pending.pop()
        frame = node.get("frame") or {}
        url = str(frame.get("url", ""))
        out.append(
            Frame(
                frame_id=str(frame.get("id", "")),
                parent_frame_id=frame.get("parentId"),
                url=clean_url(url),
                origin=origin_of(url),
            )
        )
        pending.extend(reversed(node.get("childFrames") or []))
    return tuple(out)


def walk_dom(root: Raw | None) -> Iterator[tuple[int, Raw]]:
    """(parent index, node) in pre-order over children, shadow roots, template and frame documents."""
    pending: list[tuple[int, Raw]] = [(-1, root)] if root else []
    index = 0
    while pending:
        parent, node = pending.pop()
        yield parent, node
        kids = [
            *(node.get("shadowRoots") or []),
            *([node["templateContent"]] if node.get("templateContent") else []),
            *(node.get("children") or []),
            *([node["contentDocument"]] if node.get("contentDocument") else []),
        ]
        pending.extend((index, kid) for kid in reversed(kids))
        index += 1


def attribute_pairs(node: Raw) -> list[tuple[str, str]]:
    flat = node.get("attributes") or []
    return [(str(flat[i]), str(flat[i + 1])) for i in range(0, len(flat) - 1, 2)]


def dom(root: Raw | None, max_nodes: int, ledger: Ledger) -> tuple[Dom, list[tuple[int, Raw]]]:
    """The retained DOM nodes, and (index, raw node) of element nodes for the metadata pass."""
    nodes: list[DomNode] = []
    elements: list[tuple[int, Raw]] = []
    total = 0
    for index, (parent, node) in enumerate(walk_dom(root)):
        total += 1
        if index >= max_nodes:
            continue
        nodes.append(
            DomNode(
                index=index,
                parent_index=parent,
                node_type=int(node.get("nodeType", 0)),
                node_name=str(node.get("nodeName", "")),
                node_value_length=len(str(node.get("nodeValue") or "")),
                attribute_names=tuple(name for name, _ in attribute_pairs(node)),
            )
        )
        if node.get("nodeType") == 1:
            elements.append((index, node))
    if total > max_nodes:
        ledger.exclude("dom", "resource_budget_exhausted", total - max_nodes)
        ledger.note(f"DOM: {max_nodes} of {total} nodes retained (max_dom_nodes).")
    return Dom(total_nodes=total, nodes=tuple(nodes)), elements


def _ax_value(value: Raw | None) -> Any:
    return None if not value else value.get("value")


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _states(node: Raw) -> tuple[AxState, ...]:
    out = []
    for prop in node.get("properties") or []:
        value = _ax_value(prop.get("value"))
        if isinstance(value, (bool, int, float, str)):
            out.append(AxState(name=str(prop.get("name", "")), value=value))
    return tuple(out)


def accessibility(raw: Sequence[Raw] | None, include_text: bool, ledger: Ledger) -> Accessibility:
    if raw is None:
        ledger.exclude("accessibility", "provider_unavailable", None)
        return Accessibility(
            total_nodes=0,
            text_capture=AxTextCapture(status="unavailable", retained_bytes=0, excluded_fields=0),
            nodes=(),
        )
    nodes: list[AxNode] = []
    retained, withheld = 0, 0
    for node in raw:
        texts = {key: _ax_value(node.get(key)) for key in ("name", "description")}
        for key, text in texts.items():
            if not isinstance(text, (str, int, float)) or text == "":
                texts[key] = None
            elif include_text:
                texts[key] = str(text)
                retained += len(str(text).encode())
            else:
                texts[key] = None
                withheld += 1
        nodes.append(
            AxNode(
                node_id=str(node.get("nodeId", "")),
                parent_id=node.get("parentId"),
                role=_text_or_none(_ax_value(node.get("role"))),
                name=texts["name"],
                description=texts["description"],
                ignored=bool(node.get("ignored", False)),
                states=_states(node),
            )
        )
    if withheld:
        ledger.exclude("accessibility", "not_approved", withheld)
    return Accessibility(
        total_nodes=len(raw),
        text_capture=AxTextCapture(
            status="included" if include_text else "not_approved", retained_bytes=retained, excluded_fields=withheld
        ),
        nodes=tuple(nodes),
    )


def _key(prefix: str, *parts: str) -> str:
    return prefix + "_" + hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def resources(tree: Raw | None, origins: Sequence[str], ledger: Ledger) -> tuple[Resource, ...]:
    if tree is None:
        ledger.exclude("resources", "provider_unavailable", None)
        return ()
    out: list[Resource] = []
    pending = [tree]
    while pending:
        node = pending.pop()
        frame = node.get("frame") or {}
        entries = [
            {"url": frame.get("url", ""), "type": "Document", "mimeType": frame.get("mimeType", "")},
            *(node.get("resources") or []),
        ]
        for entry in entries:
            url = str(entry.get("url", ""))
            if not in_scope(url, origins):
                ledger.exclude("resources", "disallowed_origin" if origin_of(url) else "unsupported_url")
                continue
            size = entry.get("contentSize")
            out.append(
                Resource(
                    resource_key=_key("res", str(frame.get("id", "")), url),
                    url=clean_url(url),
                    origin=origin_of(url),
                    type=str(entry.get("type", "Other")),
                    mime_type=str(entry.get("mimeType", "")),
                    content_size=size if isinstance(size, (int, float)) and size >= 0 else None,
                )
            )
        pending.extend(reversed(node.get("childFrames") or []))
    return tuple(out)


def _reconcile(url: str, by_url: Mapping[str, list[str]]) -> ReconciledExact | ReconciledAmbiguous | ReconciledNone:
    keys = by_url.get(url, [])
    if len(keys) == 1:
        return ReconciledExact(status="exact", resource_key=keys[0])
    if keys:
        return ReconciledAmbiguous(status="ambiguous", candidate_resource_keys=tuple(sorted(keys)))
    return ReconciledNone(status="unmatched", reason="no_exact_sanitized_url")


def _source(script: Raw, sources: Mapping[str, str], include: bool) -> SourceWithheld | SourceIncluded:
    if not include:
        return SourceWithheld(included=False, reason="not_approved")
    text = sources.get(str(script.get("scriptId", "")))
    if text is None:
        return SourceWithheld(included=False, reason="resource_budget_exhausted")
    media = "application/wasm" if script.get("scriptLanguage") == "WebAssembly" else "text/javascript"
    return SourceIncluded(included=True, artifact=text_artifact(text, media))


def scripts(
    raw: Sequence[Raw],
    sources: Mapping[str, str],
    resource_list: Sequence[Resource],
    origins: Sequence[str],
    include_sources: bool,
    ledger: Ledger,
) -> Scripts:
    by_url: dict[str, list[str]] = {}
    for r in resource_list:
        by_url.setdefault(r.url, []).append(r.resource_key)
    items: list[Script] = []
    seen: dict[str, int] = {}
    for script in raw:
        url = str(script.get("url", ""))
        if not url:
            ledger.exclude("scripts", "unsupported_url")
            continue
        if not in_scope(url, origins):
            ledger.exclude("scripts", "disallowed_origin" if origin_of(url) else "unsupported_url")
            continue
        key = _key("scr", url, str(script.get("hash", "")))
        seen[key] = seen.get(key, 0) + 1
        source = _source(script, sources, include_sources)
        if include_sources and not source.included:
            ledger.exclude("script_sources", "resource_budget_exhausted")
        items.append(
            Script(
                script_key=key if seen[key] == 1 else f"{key}_{seen[key]}",
                frame_id=(script.get("executionContextAuxData") or {}).get("frameId"),
                url=clean_url(url),
                origin=origin_of(url),
                cdp_hash=str(script.get("hash", "")),
                length=int(script.get("length", 0)),
                is_module=bool(script.get("isModule", False)),
                language=script.get("scriptLanguage"),
                source_map_url=script.get("sourceMapURL") or None,
                resource_reconciliation=_reconcile(clean_url(url), by_url),
                source=source,
            )
        )
    if not include_sources and items:
        ledger.exclude("script_sources", "not_approved", len(items))
    return Scripts(total=len(raw), items=tuple(items))
