"""Source maps of a captured bundle: which to fetch, and what a fetched map says (pure).

A script's `sourceMappingURL` resolves against the script's URL; only http(s) maps inside the
origin scope are requested (the effect checks again at every redirect). A fetched map must be a
version 3 regular map; its mappings are decoded by the JavaScript family's decoder
(rea.javascript.sourcemap) and kept up to `max_source_map_mappings`; its embedded originals
become text artifacts and their literal imports the original module edges.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from rea.javascript.sourcemap import segments
from rea.loopback import urljoin
from rea.web.records.scripts import (
    OriginalModuleEdge,
    OriginalSource,
    SourceMapItem,
    SourceMapMapping,
    SourceMaps,
    SourceMapStatus,
)
from rea.web.redaction import text_artifact
from rea.web.scope import clean_url

_ORIGINAL_IMPORTS: tuple[tuple[Literal["static_import", "dynamic_import", "require"], re.Pattern[str]], ...] = (
    ("static_import", re.compile(r"""\b(?:import|export)\s+(?:[^'"\n]*?\s+from\s+)?["']([^"'\n]+)["']""")),
    ("dynamic_import", re.compile(r"""\bimport\s*\(\s*["']([^"'\n]+)["']\s*\)""")),
    ("require", re.compile(r"""\brequire\s*\(\s*["']([^"'\n]+)["']\s*\)""")),
)
NOT_REQUESTED = SourceMaps(
    status="not_requested", requested=0, processed=0, dropped=0, dropped_script_keys=(), items=()
)


def requests(scripts: Sequence[Mapping[str, Any]]) -> list[dict[str, str]]:
    """One request per analyzed script that declares a map, resolved against the script URL."""
    out = []
    for script in scripts:
        declared = script.get("source_map_url")
        if declared:
            out.append(
                {
                    "script_key": script["script_key"],
                    "declared_url": declared,
                    "fetch_url": urljoin(script["url"], declared),
                }
            )
    return out


def _empty(request: Mapping[str, Any], status: SourceMapStatus, limitation: str) -> SourceMapItem:
    return SourceMapItem(
        script_key=request["script_key"],
        declared_url=request["declared_url"],
        status=status,
        artifact=None,
        original_sources=(),
        original_module_edges=(),
        mappings=(),
        limitation=limitation,
    )


FETCH_LIMITATIONS: dict[SourceMapStatus, str] = {
    "policy_filtered": "The declared source-map URL (or a redirect) is outside the allowed exact origins.",
    "truncated": "The source-map response exceeded the remaining approved byte budget.",
}


def resolve_source(map_url: str, root: str | None, source: str) -> str | None:
    """A map's source name as a URL: `sourceRoot` (with a `/` added) and the name, against the map's URL."""
    prefix = (root or "") + ("/" if root and not root.endswith("/") else "")
    try:
        return urljoin(map_url, prefix + source)
    except ValueError:
        return None


def _resolved(map_url: str, root: str | None, source: str) -> str:
    joined = resolve_source(map_url, root, source)
    return (clean_url(joined) if joined is not None else (root or "") + source)[:4096]


def _edges(originals: Sequence[OriginalSource], maximum: int) -> tuple[tuple[OriginalModuleEdge, ...], bool]:
    edges: list[OriginalModuleEdge] = []
    seen: set[tuple[str, str, str]] = set()
    for original in originals:
        if original.artifact is None:
            continue
        for kind, pattern in _ORIGINAL_IMPORTS:
            for match in pattern.finditer(original.artifact.text):
                key = (original.source, kind, match.group(1)[:4096])
                if key in seen:
                    continue
                if len(edges) >= maximum:
                    return tuple(edges), True
                seen.add(key)
                edges.append(
                    OriginalModuleEdge(
                        from_source=key[0],
                        kind=kind,
                        specifier=key[2],
                        resolved_source=_resolved(key[0], None, key[2]) if "://" in key[0] else None,
                    )
                )
    return tuple(edges), False


def parse_map(request: Mapping[str, Any], text: str, limits: Mapping[str, int]) -> SourceMapItem:
    """One fetched map as an item: included, truncated (mappings or edges cut) or invalid."""
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return _empty(request, "invalid", "The source map is not JSON.")
    if not isinstance(doc, dict) or doc.get("version") != 3:
        return _empty(request, "invalid", "The source map is not a version 3 map.")
    if not isinstance(doc.get("mappings"), str) or not isinstance(doc.get("sources"), list):
        return _empty(request, "invalid", "Indexed (sectioned) maps and maps without mappings are not decoded here.")
    sources = doc["sources"]
    if len(sources) > limits["max_original_sources"]:
        return _empty(request, "truncated", "The source map exceeds the original-source inventory limit.")
    contents: list[Any] = doc["sourcesContent"] if isinstance(doc.get("sourcesContent"), list) else []
    names: list[Any] = doc["names"] if isinstance(doc.get("names"), list) else []
    root = doc.get("sourceRoot") if isinstance(doc.get("sourceRoot"), str) else None
    resolved = [_resolved(request["fetch_url"], root, s if isinstance(s, str) else "") for s in sources]
    originals = tuple(
        OriginalSource(
            source=resolved[i],
            artifact=text_artifact(contents[i], _media(resolved[i]))
            if i < len(contents) and isinstance(contents[i], str)
            else None,
        )
        for i in range(len(sources))
    )
    mappings: list[SourceMapMapping] = []
    total = 0
    try:
        for seg in segments(doc["mappings"]):
            if seg.source is None or seg.original_line is None or seg.original_column is None:
                continue
            if seg.source >= len(sources):
                raise ValueError(f"source index {seg.source} past the {len(sources)} sources")
            total += 1
            if len(mappings) < limits["max_source_map_mappings"]:
                name = names[seg.name] if seg.name is not None and seg.name < len(names) else None
                mappings.append(
                    SourceMapMapping(
                        generated_line=seg.line + 1,
                        generated_column=seg.column,
                        source=resolved[seg.source],
                        original_line=seg.original_line + 1,
                        original_column=seg.original_column,
                        name=name[:1024] if isinstance(name, str) else None,
                    )
                )
    except ValueError as exc:
        return _empty(request, "invalid", f"The source-map mappings do not decode: {exc}.")
    edges, edges_cut = _edges(originals, limits["max_findings"])
    cut = [f"Mappings were truncated from {total} to {len(mappings)}."] if total > len(mappings) else []
    cut += [f"Original module edges were truncated to {len(edges)}."] if edges_cut else []
    return SourceMapItem(
        script_key=request["script_key"],
        declared_url=request["declared_url"],
        status="truncated" if cut else "included",
        artifact=text_artifact(text, "application/source-map+json"),
        original_sources=originals,
        original_module_edges=edges,
        mappings=tuple(mappings),
        limitation=" ".join(cut) or None,
    )


def _media(source: str) -> str:
    return "text/typescript" if source.split("?", 1)[0].endswith((".ts", ".tsx")) else "text/javascript"


def _item(got: Mapping[str, Any], limits: Mapping[str, int]) -> SourceMapItem:
    status = got["status"]
    if status == "fetched":
        try:
            text = bytes(got["body"]).decode("utf-8")
        except UnicodeDecodeError:
            return _empty(got, "invalid", "The source map is not UTF-8.")
        return parse_map(got, text, limits)
    if status == "fetch_failed":
        return _empty(got, "fetch_failed", f"The source-map fetch failed: {got.get('message', 'no answer')}.")
    return next(_empty(got, known, why) for known, why in FETCH_LIMITATIONS.items() if known == status)


def source_maps(
    wanted: Sequence[Mapping[str, str]], fetched: Sequence[Mapping[str, Any]], limits: Mapping[str, int]
) -> SourceMaps:
    """The `source_maps` observation: every requested map processed or dropped, and the status they add to."""
    items = [_item(got, limits) for got in fetched]
    dropped = tuple(r["script_key"] for r in wanted[len(items) :])
    included = sum(1 for i in items if i.status == "included")
    status: Literal["included", "partial", "unavailable", "truncated"]
    if dropped or any(i.status == "truncated" for i in items):
        status = "truncated"
    elif not items:
        status = "unavailable"
    else:
        status = "included" if included == len(items) else "partial" if included else "unavailable"
    return SourceMaps(
        status=status,
        requested=len(wanted),
        processed=len(items),
        dropped=len(dropped),
        dropped_script_keys=dropped,
        items=tuple(items),
    )
