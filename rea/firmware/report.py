"""unblob's task report, normalized: regions, chunks, lineage and problems, in logical paths.

unblob answers one JSON list of task results, unordered: each task is a file or directory
it looked at (path, depth, blob id), with typed reports (`__typename__`): the file's stat,
magic and hashes, the chunks found in it (ChunkReport with a handler, UnknownChunkReport
without), where it carved them, and any problem (a failed extractor command, a removed
malicious link, ...). Paths in it are the private workspace's; results name them
logically instead: `$input` for the selected bytes, `$output/<relative path>` for what was
extracted, so a real file named `$input` stays distinct and no private path leaks.
The report enters the pure core here and leaves as the family's wire records.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from rea.firmware.records import ByteRange, FirmwareChunk, FirmwareDerivation, FirmwareRegion, UnknownChunk

ROUTINE = frozenset(
    {"StatReport", "FileMagicReport", "HashReport", "ChunkReport", "UnknownChunkReport", "CarveDirectoryReport"}
    | {"RandomnessReport", "EntropyReport"}
)
_CARVED = re.compile(r"^(\d+)-(\d+)\.(.+?)(?:_extract)?$")


@attrs.frozen(kw_only=True)
class Workspace:
    """Where unblob read and wrote: the selected bytes' file and the extraction root."""

    input_path: str
    output_root: str
    selection_offset: int
    max_depth: int


@attrs.frozen(kw_only=True)
class FileFacts:
    depth: int | None
    mime_type: str | None
    sha256: str | None


@attrs.frozen(kw_only=True)
class Normalized:
    regions: tuple[FirmwareRegion, ...]
    unknown_chunks: tuple[UnknownChunk, ...]
    chunks: tuple[FirmwareChunk, ...]
    derivations: tuple[FirmwareDerivation, ...]
    diagnostics: tuple[Mapping[str, Any], ...]  # unblob's own problem reports, scrubbed: open JSON by contract
    depth_limited_paths: tuple[str, ...]
    files: Mapping[str, FileFacts]  # by path relative to the output root


def logical(path: str, ws: Workspace) -> str:
    if path == ws.input_path:
        return "$input"
    root = ws.output_root.rstrip("/") + "/"
    if path.startswith(root):
        return "$output/" + path[len(root) :]
    return "$unknown"


def _relative(path: str, ws: Workspace) -> str | None:
    root = ws.output_root.rstrip("/") + "/"
    return path[len(root) :] if path.startswith(root) else None


def _scrub(value: Any, ws: Workspace) -> Any:
    """A report with every workspace path made logical."""
    if isinstance(value, str):
        return logical(value, ws) if value.startswith((ws.output_root, ws.input_path)) else value
    if isinstance(value, list):
        return [_scrub(v, ws) for v in value]
    if isinstance(value, dict):
        return {k: _scrub(v, ws) for k, v in value.items()}
    return value


def _int(value: Any) -> int:
    """A report's count, or 0 when it is not a non-negative integer (a hostile report never raises)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _list(value: Any) -> list[Any]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def run_local(identifier: Any) -> str:
    """unblob's ids are `<pid>:<n>`; the pid changes every run, the counter (one worker) does not."""
    return str(identifier).rsplit(":", 1)[-1]


def _range(offset: int, size: int) -> ByteRange | None:
    return ByteRange(offset=offset, length=size) if size > 0 else None


def _chunk(report: Mapping[str, Any], task_path: str, ws: Workspace) -> FirmwareChunk:
    start, size = _int(report.get("start_offset")), _int(report.get("size"))
    known = report["__typename__"] == "ChunkReport"
    at_root = task_path == ws.input_path
    return FirmwareChunk(
        input_path=logical(task_path, ws),
        provider_id=run_local(report.get("id", "")),
        range=_range(start, size),
        handler=str(report.get("handler_name")) if known else None,
        encrypted=bool(report.get("is_encrypted")) if known else None,
        root_file_range=_range(ws.selection_offset + start, size) if at_root else None,
    )


def _region(report: Mapping[str, Any]) -> FirmwareRegion:
    handler = str(report.get("handler_name"))
    return FirmwareRegion(
        provider_id=run_local(report.get("id", "")),
        offset=_int(report.get("start_offset")),
        reported_size=_int(report.get("size")),
        signature=handler,
        description=f"{handler} chunk: header validated by unblob's {handler} handler, end computed by it",
        reported_confidence=255,
        size_basis="provider_reported_validation_unknown",
        encrypted=bool(report.get("is_encrypted")),
    )


def _facts(reports: Sequence[Mapping[str, Any]], depth: int | None) -> FileFacts | None:
    kinds = {r.get("__typename__"): r for r in reports}
    stat = kinds.get("StatReport")
    if stat is None or not stat.get("is_file"):
        return None
    magic = kinds.get("FileMagicReport") or {}
    digest = kinds.get("HashReport") or {}
    return FileFacts(depth=depth, mime_type=magic.get("mime_type"), sha256=digest.get("sha256"))


def _derivation(
    parent: str, child: Mapping[str, Any], chunks: Sequence[Mapping[str, Any]], ws: Workspace
) -> FirmwareDerivation:
    """Lineage of one subtask: the carved chunk it came from, read from unblob's `<start>-<end>.<handler>` names,
    or the parent's one whole-file chunk."""
    child_path = str(child.get("path", ""))
    handler: str | None = None
    parent_range: ByteRange | None = None
    below = child_path[len(parent) :].lstrip("/") if child_path.startswith(parent) else ""
    first = below.split("/", 1)[0].removeprefix("_extract") if below else ""
    named = _CARVED.match(below.split("/", 1)[1].split("/", 1)[0]) if "/" in below else None
    if named is not None:
        start, end = int(named.group(1)), int(named.group(2))
        handler = None if named.group(3) == "unknown" else named.group(3)
        parent_range = _range(start, end - start)
    elif len(chunks) == 1 and first == "":
        handler = chunks[0].get("handler_name")
        parent_range = _range(_int(chunks[0].get("start_offset")), _int(chunks[0].get("size")))
    return FirmwareDerivation(
        parent_path=logical(parent, ws),
        child_path=logical(child_path, ws),
        provider_blob_id=run_local(child.get("blob_id", "")),
        handler=handler,
        parent_file_range=parent_range,
    )


def _unexpanded(entry: Mapping[str, Any], reports: Sequence[Mapping[str, Any]]) -> bool:
    """A task at the depth limit that unblob did not look into: a directory without subtasks, or no reports."""
    stat = next((r for r in reports if r.get("__typename__") == "StatReport"), None)
    return stat is None or (bool(stat.get("is_dir")) and not entry.get("subtasks"))


def normalize(raw: Any, ws: Workspace) -> Normalized:
    """The report's facts; entries that are not task results are named in diagnostics, never trusted."""
    regions: list[FirmwareRegion] = []
    unknown: list[UnknownChunk] = []
    chunks: list[FirmwareChunk] = []
    derivations: list[FirmwareDerivation] = []
    diagnostics: list[Mapping[str, Any]] = []
    limited: list[str] = []
    files: dict[str, FileFacts] = {}
    for entry in raw if isinstance(raw, list) else []:
        task = entry.get("task") if isinstance(entry, dict) else None
        if not isinstance(task, dict) or not isinstance(task.get("path"), str):
            diagnostics.append({"kind": "malformed-task", "entry": _scrub(entry, ws)})
            continue
        path, depth = task["path"], task.get("depth") if isinstance(task.get("depth"), int) else None
        reports = _list(entry.get("reports"))
        if depth is not None and depth >= ws.max_depth and _unexpanded(entry, reports):
            limited.append(logical(path, ws))
        found = [r for r in reports if r.get("__typename__") == "ChunkReport"]
        for report in reports:
            kind = report.get("__typename__")
            if kind == "ChunkReport" or kind == "UnknownChunkReport":
                chunks.append(_chunk(report, path, ws))
            if kind == "ChunkReport" and path == ws.input_path:
                regions.append(_region(report))
            if kind == "UnknownChunkReport" and path == ws.input_path:
                unknown.append(UnknownChunk(offset=_int(report.get("start_offset")), size=_int(report.get("size"))))
            if kind not in ROUTINE:
                diagnostics.append({"task": logical(path, ws), "report": _scrub(report, ws)})
        relative = _relative(path, ws)
        facts = _facts(reports, depth)
        if relative is not None and facts is not None:
            files[relative] = facts
        for child in _list(entry.get("subtasks")):
            derivations.append(_derivation(path, child, found, ws))
    return Normalized(
        regions=tuple(sorted(regions, key=lambda r: (r.offset, r.signature))),
        unknown_chunks=tuple(sorted(unknown, key=lambda r: r.offset)),
        chunks=tuple(sorted(chunks, key=lambda c: (c.input_path, c.range.offset if c.range else 0))),
        derivations=tuple(sorted(derivations, key=lambda d: (d.parent_path, d.child_path))),
        diagnostics=tuple(diagnostics),
        depth_limited_paths=tuple(sorted(set(limited))),
        files=files,
    )
