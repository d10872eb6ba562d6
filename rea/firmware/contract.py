"""Contract of the firmware family (inspect_firmware_regions, extract_firmware)."""

from __future__ import annotations

from rea.firmware.records import ExtractedFirmware, ExtractFirmwareArgs, FirmwareRegions, FirmwareRegionsArgs
from rea.wire.tool import evidence_tool

INSPECT_FIRMWARE_REGIONS = evidence_tool(
    "inspect_firmware_regions",
    "Inspect Firmware Regions",
    (
        "Scan a local firmware file with unblob (never executed, nothing extracted): regions with offset, "
        "reported size, handler signature, description and confidence, unknown byte ranges, the engine's "
        "identity and limitations."
    ),
    args=FirmwareRegionsArgs,
    result=FirmwareRegions,
    examples=[{"path": "/artifacts/firmware.bin"}],
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent", "launchesProcess"},
)
EXTRACT_FIRMWARE = evidence_tool(
    "extract_firmware",
    "Extract Firmware",
    (
        "Extract a local firmware file (or a byte range) with unblob into an absent output_directory, published "
        "at once: files with SHA-256, chunks, lineage, unknown chunks, diagnostics, depth and size limits; "
        "coverage complete or partial. Nothing is executed."
    ),
    args=ExtractFirmwareArgs,
    result=ExtractedFirmware,
    examples=[{"path": "/artifacts/firmware.bin", "output_directory": "/tmp/firmware-out"}],
    surface="artifact-provider",
    effects={"mutatesSession", "launchesProcess", "writesFilesystem"},
)

CLI_COMMANDS: tuple[str, ...] = ()
TOOLS = (INSPECT_FIRMWARE_REGIONS, EXTRACT_FIRMWARE)
