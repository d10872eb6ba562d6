"""Source recovery from one bundle: which files to write, from which bytes, with which warnings.

The effect layer reads the bundle, its source map and (for sources without embedded
content) files beside it; this module decides everything else from those bytes: safe
relative names, the byte ranges each original source's mappings cover, the modules cut
from the bundle's own boundaries, the report, provenance and manifest documents and
their digests. Nothing here trusts the map: a source name that climbs out of the output
tree is renamed, a mapping past the end of the file is clipped and reported, a table
entry whose range is not inside the file is skipped with a warning.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from rea.javascript.records import recovery as rec
from rea.javascript.sourcemap import without_scheme
from rea.wire.convert import to_wire

REPORT, PROVENANCE, MANIFEST = "rea-recovery-report.json", "rea-recovery-provenance.json", "rea-recovery-manifest.json"
ORIGINAL_DIR, MODULE_DIR, REGION_DIR, INPUT_DIR = "original", "modules", "regions", "input"
MAX_NAME = 200  # bytes of one path component
MAX_DEPTH = 32  # components of one recovered path
LIMITATIONS = (
    "Recovered code is written verbatim (original sources as the map holds them, modules as byte cuts of the "
    "bundle); rewrite_level is recorded, not applied, and runtime equivalence is unknown.",
    "Original names are those the source map or the bundle's path comments state; numeric webpack ids stay ids.",
    "The bundle is never executed and no source map or source is fetched from the network.",
)


@attrs.frozen(kw_only=True)
class PlannedModule:
    """A module's record before its file is placed under the output directory."""

    reported_filename: str
    reported_status: str
    provenance: rec.ModuleProvenance

    def written(self, artifact: rec.RecoveredFile) -> rec.RecoveredModule:
        return rec.RecoveredModule(
            reported_filename=self.reported_filename,
            reported_status=self.reported_status,
            artifact=artifact,
            source_map=None,
            provenance=self.provenance,
        )


@attrs.frozen
class Planned:
    """One file to publish: its path under the output directory, its bytes, and its module record (or None)."""

    rel: str
    data: bytes
    module: PlannedModule | None


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ------------------------------------------------------------------ names


def _component(part: str) -> str:
    cleaned = "".join(c if c.isprintable() and c not in '\\:*?"<>|' else "_" for c in part)
    while len(cleaned.encode("utf-8")) > MAX_NAME:
        cleaned = cleaned[:-1]
    return cleaned or "_"


def safe_relative(name: str, fallback: str) -> str:
    """A relative path made from a source name that can never leave its directory: scheme, `.`, `..` and
    empty parts dropped, odd characters replaced, depth and component length bounded."""
    parts = [p for p in without_scheme(name).replace("\\", "/").split("/") if p not in ("", ".", "..")]
    parts = [_component(p) for p in parts[-MAX_DEPTH:]]
    return "/".join(parts) if parts else fallback


def _unique(rel: str, taken: set[str]) -> str:
    if rel not in taken and not any(t.startswith(rel + "/") for t in taken):
        taken.add(rel)
        return rel
    stem, ext = posixpath.splitext(rel)
    n = 2
    while f"{stem}~{n}{ext}" in taken:
        n += 1
    taken.add(f"{stem}~{n}{ext}")
    return f"{stem}~{n}{ext}"


# ------------------------------------------------------------------ mapping ranges


class _Lines:
    """Byte offsets of (line, UTF-16 column) positions in the bundle."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.starts = [0]
        at = data.find(b"\n")
        while at >= 0:
            self.starts.append(at + 1)
            at = data.find(b"\n", at + 1)
        self._columns: dict[int, list[int]] = {}

    def offset(self, line: int, column: int) -> tuple[int, bool]:
        """The byte offset and whether the position was inside the file (else it is clipped)."""
        if line < 0 or column < 0:
            return (0, False) if line < 0 else (self.starts[min(line, len(self.starts) - 1)], False)
        if line >= len(self.starts):
            return len(self.data), False
        units = self._units(line)
        if column < len(units):
            return self.starts[line] + units[column], True
        return self.starts[line] + units[-1], column == len(units) - 1

    def _units(self, line: int) -> list[int]:
        """Byte offset within the line of each UTF-16 unit, plus the line's end."""
        if line not in self._columns:
            end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.data)
            text = self.data[self.starts[line] : end].decode("utf-8", "replace")
            offsets, at = [], 0
            for char in text:
                size = len(char.encode("utf-8", "surrogatepass"))
                offsets.extend([at] * (2 if ord(char) > 0xFFFF else 1))
                at += size
            offsets.append(at)
            self._columns[line] = offsets
        return self._columns[line]


def mapped_ranges(data: bytes, runs: Sequence[Sequence[int]], sources: int) -> tuple[dict[int, list[list[int]]], int]:
    """Per source index, the merged [start, end) byte ranges its runs cover, and how many runs fell outside
    the file (clipped or dropped)."""
    lines = _Lines(data)
    out: dict[int, list[list[int]]] = {}
    outside = 0
    ordered = sorted((r for r in runs if 0 <= r[2] < sources), key=lambda r: (r[0], r[1]))
    offsets = []
    for run in ordered:
        offset, inside = lines.offset(run[0], run[1])
        outside += not inside
        offsets.append(offset)
    for i, run in enumerate(ordered):
        start = offsets[i]
        end = offsets[i + 1] if i + 1 < len(ordered) else len(data)
        if end <= start:
            continue
        spans = out.setdefault(run[2], [])
        if spans and spans[-1][1] == start:
            spans[-1][1] = end
        else:
            spans.append([start, end])
    return out, outside


# ------------------------------------------------------------------ plan


def _warning(filename: str, kind: str, message: str, is_error: bool = False) -> rec.RecoveryWarning:
    return rec.RecoveryWarning(filename=filename, kind=kind, is_error=is_error, message=message)


def _ranges(spans: Sequence[Sequence[int]]) -> tuple[rec.ByteRange, ...]:
    return tuple(rec.ByteRange(start=s, end=e) for s, e in spans)


class _Plan:
    def __init__(self, facts: Mapping[str, Any], mode: str) -> None:
        self.facts = facts
        self.mode = mode
        self.bundle: Mapping[str, Any] = facts["bundle"]
        self.data: bytes = self.bundle["data"]
        self.files: list[Planned] = []
        self.warnings: list[rec.RecoveryWarning] = []
        self.taken: set[str] = {REPORT, PROVENANCE, MANIFEST}
        self.strategies: list[str] = []

    def module(self, rel: str, data: bytes, status: str, reported: str, extraction: str, spans: Any) -> None:
        rel = _unique(rel, self.taken)
        self.files.append(
            Planned(
                rel,
                data,
                PlannedModule(
                    reported_filename=rel,
                    reported_status=status,
                    provenance=rec.ModuleProvenance(
                        reported_input=reported,
                        original_path=self.bundle["path"],
                        original_sha256=self.bundle["sha256"],
                        extraction=extraction,
                        byte_ranges=_ranges(spans),
                        context_byte_ranges=(),
                        range_semantics="half-open-utf8-bytes",
                    ),
                ),
            )
        )

    # -- source-map originals
    def originals(self) -> None:
        smap = self.facts.get("map")
        if smap is None:
            return
        if smap.get("error"):
            self.warnings.append(_warning(smap["location"], "source-map-unreadable", smap["error"], True))
            return
        self.strategies.append("source-map")
        sources = smap["sources"]
        spans, outside = mapped_ranges(self.data, smap.get("runs", ()), len(sources))
        if outside:
            self.warnings.append(
                _warning(
                    smap["location"],
                    "mapping-outside-file",
                    f"{outside} mapping runs point past the end of their line or of the file; their ranges are "
                    "clipped to the file",
                )
            )
        if smap.get("invalid_segments"):
            self.warnings.append(
                _warning(
                    smap["location"],
                    "invalid-mapping-segments",
                    f"{smap['invalid_segments']} mapping segments were not Base64 VLQ or named no listed source; "
                    "they are ignored",
                )
            )
        for index, source in enumerate(sources):
            self._original(index, source, spans.get(index, []))

    def _original(self, index: int, source: Mapping[str, Any], spans: Sequence[Sequence[int]]) -> None:
        name = source.get("name")
        shown = name if name is not None else f"source #{index}"
        if source.get("content") is None:
            self.warnings.append(
                _warning(shown, "source-content-unavailable", source.get("reason") or "no content", True)
            )
            return
        rel = f"{ORIGINAL_DIR}/{safe_relative(name or '', f'source-{index}.js')}"
        extraction = "source-map-content" if source.get("origin") == "embedded" else "source-map-file"
        self.module(rel, source["content"], "recovered", shown, extraction, spans)

    # -- structural modules
    def structural(self) -> None:
        table = self.facts.get("table")
        comments = self.facts.get("comment_modules") or []
        cuts: list[tuple[str, int, int, str]] = []  # (name, start, end, extraction)
        if table:
            kind = table.get("kind", "webpack")
            cuts = [(str(m["id"]), m["start"], m["end"], f"{kind}-module-table") for m in table["modules"]]
            self.strategies.append(f"{kind}-module-table")
        elif comments:
            starts = sorted(comments, key=lambda m: m["start"])
            cuts = [
                (
                    m["path"],
                    m["start"],
                    starts[i + 1]["start"] if i + 1 < len(starts) else len(self.data),
                    "path-comment",
                )
                for i, m in enumerate(starts)
            ]
            self.strategies.append("path-comment")
        kept = self._cuts(cuts)
        if self.mode == "inspection" and kept:
            self._regions(kept)
        if not kept and not any(f.module for f in self.files) and self.mode != "structural":
            self.strategies.append("whole-file")
            name = posixpath.basename(self.bundle["path"]) or "bundle.js"
            self.module(
                f"{MODULE_DIR}/{_component(name)}",
                self.data,
                "split",
                name,
                "whole-file",
                [[0, len(self.data)]] if self.data else [],
            )
            self.warnings.append(
                _warning(name, "single-module-fallback", "no module boundaries were found; the file is one module")
            )

    def _cuts(self, cuts: Sequence[tuple[str, int, int, str]]) -> list[tuple[int, int]]:
        kept: list[tuple[int, int]] = []
        for name, start, end, extraction in cuts:
            if not 0 <= start < end <= len(self.data):
                self.warnings.append(
                    _warning(name, "module-range-invalid", f"range [{start}, {end}) is not inside the file", True)
                )
                continue
            numeric = name.isdigit()
            rel = f"{MODULE_DIR}/{'module-' + name + '.js' if numeric else safe_relative(name, 'module.js')}"
            self.module(rel, self.data[start:end], "split", name, extraction, [[start, end]])
            kept.append((start, end))
        return kept

    def _regions(self, kept: Sequence[tuple[int, int]]) -> None:
        at = 0
        for start, end in [*sorted(kept), (len(self.data), len(self.data))]:
            if start > at and self.data[at:start].strip():
                self.module(
                    f"{REGION_DIR}/region-{at}-{start}.js",
                    self.data[at:start],
                    "region",
                    f"bytes {at}..{start}",
                    "inter-module-region",
                    [[at, start]],
                )
            at = max(at, end)


def plan(facts: Mapping[str, Any], mode: str) -> tuple[list[Planned], list[rec.RecoveryWarning], list[str]]:
    """The module files to write, the warnings and the strategies that produced them."""
    p = _Plan(facts, mode)
    p.originals()
    p.structural()
    name = posixpath.basename(p.bundle["path"]) or "bundle.js"
    p.files.append(Planned(_unique(f"{INPUT_DIR}/{_component(name)}", p.taken), p.data, None))
    return p.files, p.warnings, p.strategies


# ------------------------------------------------------------------ result


def _file(root: str, rel: str, data: bytes) -> rec.RecoveredFile:
    return rec.RecoveredFile(path=f"{root}/{rel}", sha256=digest(data), bytes=len(data))


def _json_bytes(value: Any) -> bytes:
    return (json.dumps(to_wire(value), indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def _analysis_input(root: str, files: Sequence[Planned]) -> rec.AnalysisInput | None:
    for directory in (ORIGINAL_DIR, MODULE_DIR):
        if any(f.module and f.rel.startswith(directory + "/") for f in files):
            return rec.AnalysisInput(input_path=f"{root}/{directory}", format="directory")
    return None


def _source_map(smap: Mapping[str, Any] | None) -> rec.SourceMapUsed | None:
    if smap is None or smap.get("error"):
        return None
    return rec.SourceMapUsed(
        location=smap["location"],
        sha256=smap["sha256"],
        bytes=smap["bytes"],
        sources=len(smap["sources"]),
        invalid_segments=smap.get("invalid_segments", 0),
    )


def build(
    facts: Mapping[str, Any], args: rec.RecoverArgs, root: str, engine: rec.RecoveryEngine
) -> tuple[rec.RecoveryResult, list[Planned]]:
    """The result and every file to publish (modules, the input copy, report, provenance, manifest) for
    output directory `root`."""
    files, warnings, strategies = plan(facts, args.extraction_mode)
    bundle = facts["bundle"]
    copy = next(f for f in files if f.module is None)
    modules = tuple(f.module.written(_file(root, f.rel, f.data)) for f in files if f.module is not None)
    smap = facts.get("map")
    formats = sorted({*facts.get("bundlers", ()), *(["source-map"] if smap and not smap.get("error") else [])})
    options = rec.RecoveryOptions(extraction_mode=args.extraction_mode, rewrite_level=args.rewrite_level)
    source = rec.RecoverySource(
        path=bundle["path"],
        sha256=bundle["sha256"],
        bytes=bundle["bytes"],
        snapshot_path=f"{root}/{copy.rel}",
        published_copy=_file(root, copy.rel, copy.data),
    )
    report = _json_bytes({"modules": modules, "warnings": warnings})
    provenance = _json_bytes({"source": source, "engine": engine, "options": options})
    listed = [*files, Planned(REPORT, report, None), Planned(PROVENANCE, provenance, None)]
    manifest = _json_bytes({"files": [{"path": f.rel, "sha256": digest(f.data), "bytes": len(f.data)} for f in listed]})
    failed = sum(1 for w in warnings if w.is_error)
    result = rec.RecoveryResult(
        source=source,
        engine=engine,
        options=options,
        status="partial" if failed else "complete",
        detected_formats=tuple(formats),
        reported_safety="read-only: the input is parsed and cut, never executed",
        reported_strategy="+".join(strategies) or "none",
        reported_format=strategies[0] if strategies else "none",
        total=len(modules),
        failed=failed,
        modules=modules,
        warnings=tuple(warnings),
        report=_file(root, REPORT, report),
        provenance=_file(root, PROVENANCE, provenance),
        manifest=_file(root, MANIFEST, manifest),
        analysis_input=_analysis_input(root, files),
        runtime_equivalence="unknown",
        limitations=LIMITATIONS,
        output_directory=root,
        source_map=_source_map(smap),
    )
    return result, [*listed, Planned(MANIFEST, manifest, None)]
