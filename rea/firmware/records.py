"""Wire records of inspect_firmware_regions and extract_firmware: the REA 6.x shape (domain/firmware/firmwareAnalysis).

The reference scans regions with Binwalk and extracts with Unblob; we run unblob for both
(its chunk report is the region list), so `engine` names unblob, and a region's
`reported_confidence` is ours to define: unblob reports no score, only whether a handler
validated the chunk (255) or the bytes are an unknown chunk (listed apart, with no score).
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.local_paths import LOCAL_PATH_PATTERN
from rea.wire.schema import Open, field, local_path

SHA256 = "^[a-f0-9]{64}$"
MAX_FIRMWARE_BYTES = 128 << 20
SAFE = 2**53 - 1


@attrs.frozen(kw_only=True)
class FirmwareRegionsArgs:
    path: str = local_path("Local firmware file; never executed")


@attrs.frozen(kw_only=True)
class ByteRange:
    offset: int = field("First byte", minimum=0, maximum=SAFE)
    length: int = field("Bytes", minimum=1, maximum=SAFE)


@attrs.frozen(kw_only=True)
class ExtractFirmwareArgs:
    path: str = local_path("Local firmware file; never executed")
    output_directory: str = field(
        "Absent directory to create (absolute; its parent must exist)",
        pattern=LOCAL_PATH_PATTERN,
        minLength=1,
        maxLength=16384,
    )
    range: ByteRange | None = field("Byte interval to extract; omit for the whole file", omit_none=True)
    max_depth: int = field("Extraction depth; reaching it yields partial", default=3, minimum=1, maximum=10)
    max_output_bytes: int = field("Staging byte budget", default=256 << 20, minimum=1, maximum=512 << 20)
    max_output_files: int = field("Staging entry budget", default=10_000, minimum=1, maximum=100_000)


# --------------------------------------------------------------------- results


@attrs.frozen(kw_only=True)
class FirmwareEngine:
    name: str = field("unblob")
    version: str = field("Its --version banner")
    executable_path: str = field("The unblob command run")
    executable_sha256: str = field("SHA-256 of that file", pattern=SHA256)
    source_revision: None = field("Not attested")
    worker_count: Literal[1] = field("One worker")


@attrs.frozen(kw_only=True)
class FirmwareRegion:
    provider_id: str = field("unblob's chunk id (run-local)")
    offset: int = field("Chunk start in the file", minimum=0)
    reported_size: int = field("Chunk length unblob reported", minimum=0)
    signature: str = field("unblob handler name (squashfs_v4_le, gzip, uimage, ...)")
    description: str = field("What the handler found")
    reported_confidence: int = field("255: a handler validated the chunk", minimum=0, maximum=255)
    size_basis: Literal["provider_reported_validation_unknown"] = field("The length is unblob's")
    encrypted: bool | None = field("unblob's is_encrypted")


@attrs.frozen(kw_only=True)
class UnknownChunk:
    offset: int = field("Start", minimum=0)
    size: int = field("Length", minimum=0)


@attrs.frozen(kw_only=True)
class FirmwareRegions:
    artifact: Open = field("{path, sha256, bytes} of the file")
    engine: FirmwareEngine = field("The engine run")
    input_size: int = field("File size", minimum=0)
    regions: tuple[FirmwareRegion, ...] = field("Recognized chunks by offset")
    unknown_chunks: tuple[UnknownChunk, ...] = field("Byte ranges no handler recognized")
    coverage: Literal["signature_scan"] = field("Chunks found, nothing extracted")
    limitations: tuple[str, ...] = field("What the scan cannot tell")


@attrs.frozen(kw_only=True)
class FirmwareSelection:
    offset: int = field("First byte", minimum=0)
    length: int = field("Bytes", minimum=0)
    sha256: str = field("SHA-256 of the selected bytes", pattern=SHA256)


@attrs.frozen(kw_only=True)
class ExtractedFile:
    relative_path: str = field("Path under output_directory")
    path: str = field("Absolute path")
    size: int = field("Bytes", minimum=0)
    sha256: str = field("SHA-256 read back after publication", pattern=SHA256)
    reported_sha256: str | None = field("unblob's digest (null: none)")
    mime_type: str | None = field("unblob's MIME type (null: none)")
    analysis_depth: int | None = field("unblob task depth (null: unknown)")
    runtime_address: None = field("Unknown")
    original_file_range: None = field("Unknown through decompression")


@attrs.frozen(kw_only=True)
class UnpublishedEntry:
    relative_path: str = field("Where it was extracted")
    kind: Literal["symlink", "special"] = field("Never published")
    link_target: str | None = field("A symlink's target")


@attrs.frozen(kw_only=True)
class FirmwareChunk:
    input_path: str = field("$input, or $output/<relative path> of the file it was found in")
    provider_id: str = field("unblob chunk id")
    range: ByteRange | None = field("Offset and length in that file (null: empty)")
    handler: str | None = field("Handler name (null: unknown chunk)")
    encrypted: bool | None = field("unblob's is_encrypted (null: unknown chunk)")
    root_file_range: ByteRange | None = field("The same bytes in the original file (null: not there)")


@attrs.frozen(kw_only=True)
class FirmwareDerivation:
    parent_path: str = field("$input or $output/<relative path>")
    child_path: str = field("$output/<relative path>")
    provider_blob_id: str = field("unblob blob id")
    handler: str | None = field("Handler that produced it (null: unknown)")
    parent_file_range: ByteRange | None = field("Bytes of the parent it came from (null: unknown)")


@attrs.frozen(kw_only=True)
class ExtractedFirmware:
    artifact: Open = field("{path, sha256, bytes} of the file")
    engine: FirmwareEngine = field("The engine run")
    selection: FirmwareSelection = field("The bytes extracted")
    output_directory: str = field("Where the tree was published")
    coverage: Literal["complete", "partial"] = field("partial: unknown chunks, problems, depth limits")
    files: tuple[ExtractedFile, ...] = field("Regular files published")
    unpublished_entries: tuple[UnpublishedEntry, ...] = field("Links and special files not published")
    chunks: tuple[FirmwareChunk, ...] = field("Chunks unblob reported")
    derivations: tuple[FirmwareDerivation, ...] = field("Parent to child lineage")
    depth_limited_paths: tuple[str, ...] = field("Paths not examined past max_depth")
    diagnostics: tuple[Open, ...] = field("unblob's problem reports, and ours")
    published_bytes: int = field("Bytes of the files", minimum=0)
    limitations: tuple[str, ...] = field("What extraction cannot tell")
