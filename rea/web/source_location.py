"""trace_web_source_location (pure): one generated position through a caller-paired source map.

The map is decoded by the JavaScript family's VLQ decoder (rea.javascript.sourcemap). Regular maps and
indexed maps whose sections carry their map inline are read (external section URLs are refused); sections
are flattened into one source list in order. The lookup is the reference's: the greatest mapped generated
position at or before the requested one, across lines, and every segment at exactly that position.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request
from rea.javascript.sourcemap import Segment, segments
from rea.web.source_maps import resolve_source

MAX_SECTION_DEPTH = 64
MAX_SEGMENTS = 262_144
SEMANTICS = "greatest generated position <= requested, across lines; all equal-position segments"
UNITS = "one-based lines; zero-based UTF-16 columns"


class MapError(ValueError):
    pass


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_offset(text: str, line: int, column: int) -> int | None:
    """The UTF-16 offset of (one-based line, UTF-16 column) in `text`, or None when it is past the line."""
    lines = text.split("\n")
    if line > len(lines):
        return None
    if column > _utf16(lines[line - 1]):
        return None
    return sum(_utf16(row) + 1 for row in lines[: line - 1]) + column


def _flat(
    doc: Any, depth: int, path: tuple[int, ...], shift: tuple[int, int]
) -> Iterator[tuple[dict[str, Any], tuple[int, ...], tuple[int, int]]]:
    """(regular map, section path, (line, column) offset) of every leaf map in order."""
    if not isinstance(doc, dict) or doc.get("version") != 3:
        raise MapError("a map or section is not a version 3 source map")
    if isinstance(doc.get("sections"), list):
        if depth >= MAX_SECTION_DEPTH:
            raise MapError(f"sections nest deeper than {MAX_SECTION_DEPTH}")
        for i, section in enumerate(doc["sections"]):
            if not isinstance(section, dict) or "url" in section or not isinstance(section.get("map"), dict):
                raise MapError(f"section {i} has no inline map (external section URLs are not supported)")
            offset = section.get("offset") or {}
            line, column = offset.get("line"), offset.get("column")
            if not isinstance(line, int) or not isinstance(column, int) or line < 0 or column < 0:
                raise MapError(f"section {i} has no valid offset")
            base = (shift[0] + line, column + (shift[1] if line == 0 else 0))
            yield from _flat(section["map"], depth + 1, (*path, i), base)
        return
    if not isinstance(doc.get("mappings"), str) or not isinstance(doc.get("sources"), list):
        raise MapError("a regular map needs string mappings and a sources list")
    yield doc, path, shift


class Leaf:
    """One regular map of the (flattened) map, with its place in the flat source list."""

    def __init__(self, doc: dict[str, Any], path: tuple[int, ...], shift: tuple[int, int], first: int) -> None:
        self.doc, self.path, self.shift, self.first = doc, path, shift, first
        self.sources: list[Any] = doc["sources"]
        contents = doc.get("sourcesContent")
        self.contents: list[Any] = contents if isinstance(contents, list) else []
        names = doc.get("names")
        self.names: list[Any] = names if isinstance(names, list) else []
        root = doc.get("sourceRoot")
        self.root = root if isinstance(root, str) else None
        ignored = doc.get("ignoreList", doc.get("x_google_ignoreList"))
        self.ignored = set(ignored) if isinstance(ignored, list) else set()

    def placed(self) -> Iterator[tuple[tuple[int, int], Segment]]:
        for seg in segments(self.doc["mappings"]):
            column = seg.column + (self.shift[1] if seg.line == 0 else 0)
            if seg.source is not None and seg.source >= len(self.sources):
                raise MapError(f"a segment names source {seg.source} of {len(self.sources)}")
            yield (seg.line + self.shift[0], column), seg


def parse(text: str) -> tuple[str, list[Leaf], str | None]:
    doc = json.loads(text)
    leaves, first = [], 0
    for leaf_doc, path, shift in _flat(doc, 0, (), (0, 0)):
        leaf = Leaf(leaf_doc, path, shift, first)
        first += len(leaf.sources)
        leaves.append(leaf)
    reported = doc.get("file") if isinstance(doc, dict) and isinstance(doc.get("file"), str) else None
    return ("indexed" if isinstance(doc.get("sections"), list) else "regular"), leaves, reported


def _content(leaf: Leaf, index: int) -> dict[str, Any]:
    text = leaf.contents[index] if index < len(leaf.contents) else None
    if not isinstance(text, str):
        return {"state": "unavailable", "reason": "sourcesContent-not-retained"}
    data = text.encode("utf-8", "surrogatepass")
    return {
        "state": "embedded",
        "text": text,
        "utf8_sha256": hashlib.sha256(data).hexdigest(),
        "utf8_bytes": len(data),
        "representation": "UTF-8 encoding of decoded sourcesContent text",
    }


def _match(leaf: Leaf, seg: Segment, map_url: str) -> dict[str, Any]:
    if seg.source is None or seg.original_line is None or seg.original_column is None:
        return {"state": "generated-only"}
    content = _content(leaf, seg.source)
    line, column = seg.original_line + 1, seg.original_column
    offset = utf16_offset(content["text"], line, column) if content["state"] == "embedded" else None
    where = (
        "content-unavailable"
        if content["state"] != "embedded"
        else "verified-in-embedded-text"
        if offset is not None
        else "outside-embedded-text"
    )
    name = leaf.names[seg.name] if seg.name is not None and seg.name < len(leaf.names) else None
    reported = leaf.sources[seg.source]
    return {
        "state": "mapped",
        "flattened_source_index": leaf.first + seg.source,
        "section_path": list(leaf.path),
        "source_index": seg.source,
        "reported_source": reported if isinstance(reported, str) else None,
        "reported_source_root": leaf.root,
        "resolved_url": resolve_source(map_url, leaf.root, reported) if isinstance(reported, str) else None,
        "ignored": seg.source in leaf.ignored,
        "content": content,
        "original_position": {"line": line, "column": column, "offset": offset, "content_position": where},
        "name": name if isinstance(name, str) else None,
    }


def lookup(map_text: str, map_url: str, line: int, column: int) -> Result[dict[str, Any], ReaError]:
    """The codec's report for one requested (one-based line, UTF-16 column), or why the map cannot be read."""
    try:
        form, leaves, reported = parse(map_text)
        requested = (line - 1, column)
        best: tuple[int, int] | None = None
        found: list[tuple[Leaf, Segment]] = []
        count = 0
        for leaf in leaves:
            for at, seg in leaf.placed():
                count += 1
                if count > MAX_SEGMENTS:
                    raise MapError(f"more than {MAX_SEGMENTS} segments")
                if at > requested:
                    continue
                if best is None or at > best:
                    best, found = at, [(leaf, seg)]
                elif at == best:
                    found.append((leaf, seg))
    except (ValueError, RecursionError, MapError) as exc:
        return Failure(
            invalid_request(
                f"source_map cannot be decoded: {exc}",
                field="source_map.path",
                accepted="a version 3 regular map, or an indexed map whose sections carry their maps inline",
            )
        )
    return Success(
        {
            "format": form,
            "reported_file": reported,
            "lookup": {
                "requested": {"line": line, "column": column},
                "matched_generated_position": None if best is None else {"line": best[0] + 1, "column": best[1]},
                "semantics": SEMANTICS,
                "location_units": UNITS,
            },
            "matches": [_match(leaf, seg, map_url) for leaf, seg in found],
            "diagnostics": [] if best is not None else ["No mapping at or before the requested position."],
        }
    )
