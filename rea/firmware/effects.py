"""The firmware effects: unblob run once over a file (a chunk scan, or an extraction published atomically)."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.firmware.records import FirmwareEngine

TIMEOUT_S = 120.0  # the reference's deadline for one engine run


@attrs.frozen(kw_only=True)
class ScanFirmware:
    """unblob's chunk scan of `path` (nothing extracted); answers EngineRun."""

    path: str
    timeout_s: float = TIMEOUT_S


@attrs.frozen(kw_only=True)
class ExtractFirmware:
    """unblob's extraction of `path` (or its `offset`/`length` bytes) into a sibling staging directory, renamed to
    the absent `output_directory` only when it finished within the limits; answers EngineRun."""

    path: str
    output_directory: str
    offset: int | None
    length: int | None
    max_depth: int
    max_output_bytes: int
    max_output_files: int
    timeout_s: float = TIMEOUT_S


@attrs.frozen(kw_only=True)
class PublishedFile:
    relative_path: str
    size: int
    sha256: str


@attrs.frozen(kw_only=True)
class Unpublished:
    relative_path: str
    kind: Literal["symlink", "special"]
    link_target: str | None


@attrs.frozen(kw_only=True)
class EngineRun:
    """What one unblob run left: the file's identity, the engine, its report and (extraction) what was published."""

    path: str
    sha256: str
    size: int
    engine: FirmwareEngine
    report: object  # unblob's JSON report, as parsed
    input_path: str  # where unblob read the selected bytes (the report's paths start here)
    output_root: str  # where unblob wrote (the report's paths start here)
    selection_offset: int
    selection_length: int
    selection_sha256: str
    exit_code: int
    output_tail: str
    files: tuple[PublishedFile, ...] = ()
    unpublished: tuple[Unpublished, ...] = ()
