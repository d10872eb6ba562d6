"""Wire records of the Mach-O reading tools: list_architectures, inspect_macho, demangle_swift, inspect_signature.

The REA 6.x shapes (domain/native/macho*); shared scalar patterns and the artifact record
come from rea.layout.records, the layout tool's own records.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import attrs

from rea.layout.records import SHA256
from rea.wire.schema import Open, field

# ------------------------------------------------------------ list_architectures


@attrs.frozen(kw_only=True)
class ArchitecturesArgs:
    """The reference's input is empty: the open target (open_binary) is read."""


@attrs.frozen(kw_only=True)
class ArchitectureRow:
    name: str = field("lipo's name: i386, x86_64, x86_64h, arm64, arm64e, armv7, ...")
    cpu_type: str | None = field("CPU_TYPE_* (or the number in hex)")
    cpu_subtype: str | None = field("CPU_SUBTYPE_* (or the number)")
    file_offset: int | None = field("Where the slice starts (0 for a thin file)", minimum=0)
    size: int | None = field("Slice bytes", minimum=0)
    alignment: int | None = field("Slice alignment in bytes (null: a thin file records none)", minimum=0)
    universal: bool = field("Our extra: the row comes from a universal header")


@attrs.frozen(kw_only=True)
class ArchitectureList:
    items: tuple[ArchitectureRow, ...] = field("Every slice, in header order")
    total: int | None = field("Slices the file declares", minimum=0)
    exhaustive: bool = field("Every declared slice is listed")
    limitations: tuple[str, ...] = field("What the list does not say")


@attrs.frozen(kw_only=True)
class CommandProvenance:
    tool: str = field("Command run", minLength=1)
    command: tuple[str, ...] = field("Its argv")
    tool_version: str | None = field("Its version")
    version_reason: str | None = field("Why the version is unknown")
    executable_sha256: str = field("Digest of the executable", pattern=SHA256)
    exit: Open = field("{code, signal} of the command")
    stdout_bytes: int = field("Bytes of output", minimum=0)
    stderr_bytes: int = field("Bytes of errors", minimum=0)
    stdout_truncated: bool = field("Output was cut")
    stderr_truncated: bool = field("Errors were cut")


@attrs.frozen(kw_only=True)
class Architectures:
    architectures: ArchitectureList = field("The slices")
    provenance: tuple[CommandProvenance, ...] = field("External commands run (none: lief reads in process)")
    limitations: tuple[str, ...] = field("What this read did not observe")


# ------------------------------------------------------------------ inspect_macho


@attrs.frozen(kw_only=True)
class MachoArgs:
    """The reference's input is empty (the open target); our extras select a slice, delivery and a cap."""

    architecture: str | None = field(
        "Universal slice to read (as list_architectures names it); default: open_binary's slice",
        omit_none=True,
        minLength=1,
        maxLength=64,
    )
    detail: Literal["complete", "summary"] = field(
        "complete: the Mach-O Evidence; summary: retain it and return its summary view (parent_evidence_id)",
        default="complete",
    )
    max_symbols: int = field("Imports and exports kept each (the rest are counted)", default=500_000, minimum=0)


@attrs.frozen(kw_only=True)
class MachoEntry:
    file_offset: int = field("LC_MAIN entry offset, in the whole file", minimum=0)


@attrs.frozen(kw_only=True)
class EntryRows:
    items: tuple[MachoEntry, ...] = field("Entry points")
    total: int | None = field("Recorded", minimum=0)
    exhaustive: bool = field("Every recorded row is returned")
    limitations: tuple[str, ...] = field("Why rows are missing")


@attrs.frozen(kw_only=True)
class BuildTool:
    name: str = field("Tool (ld, clang, swift)")
    version: str = field("Its version")


@attrs.frozen(kw_only=True)
class BuildMetadata:
    platform: str | None = field("macos, ios, ...")
    minimum_os: str | None = field("Minimum OS version")
    sdk: str | None = field("SDK version")
    tools: tuple[BuildTool, ...] = field("Build tools (LC_BUILD_VERSION)")


@attrs.frozen(kw_only=True)
class BuildRows:
    items: tuple[BuildMetadata, ...] = field("LC_BUILD_VERSION and LC_VERSION_MIN_* commands")
    total: int | None = field("Recorded", minimum=0)
    exhaustive: bool = field("Every recorded row is returned")
    limitations: tuple[str, ...] = field("Why rows are missing")


@attrs.frozen(kw_only=True)
class LoadCommand:
    index: int = field("Command order", minimum=0)
    kind: str = field("LC_*")
    file_offset: int | None = field("Where the command sits in the file", minimum=0)
    fields: Mapping[str, str | int | float | None] = field("cmdsize and the command's main fields")


@attrs.frozen(kw_only=True)
class LoadCommandRows:
    items: tuple[LoadCommand, ...] = field("Every load command")
    total: int | None = field("Recorded", minimum=0)
    exhaustive: bool = field("Every recorded row is returned")
    limitations: tuple[str, ...] = field("Why rows are missing")


@attrs.frozen(kw_only=True)
class Dependency:
    path: str = field("Install name of the dylib")
    kind: str = field("load, weak, reexport, lazy or upward")
    current_version: str | None = field("x.y.z")
    compatibility_version: str | None = field("x.y.z")


@attrs.frozen(kw_only=True)
class DependencyRows:
    items: tuple[Dependency, ...] = field("Linked dylibs (LC_ID_DYLIB excluded: it is install_name)")
    total: int | None = field("Recorded", minimum=0)
    exhaustive: bool = field("Every recorded row is returned")
    limitations: tuple[str, ...] = field("Why rows are missing")


@attrs.frozen(kw_only=True)
class MachoSymbol:
    name: str = field("Symbol name")
    address: str | None = field("Hex address (null: imported or re-exported)", pattern="^0x[a-fA-F0-9]+$")
    weak: bool | None = field("Weak reference or definition")
    reexport: bool | None = field("Re-exported from another dylib (null: not an export)")
    source: str | None = field("Imports: the binding dylib; re-exports: the source dylib")


@attrs.frozen(kw_only=True)
class SymbolRows:
    items: tuple[MachoSymbol, ...] = field("Symbols")
    total: int | None = field("Recorded", minimum=0)
    exhaustive: bool = field("Every recorded row is returned")
    limitations: tuple[str, ...] = field("Why rows are missing")


@attrs.frozen(kw_only=True)
class SegmentPermissions:
    read: bool | None = field("VM_PROT_READ")
    write: bool | None = field("VM_PROT_WRITE")
    execute: bool | None = field("VM_PROT_EXECUTE")
    raw: str | None = field("rwx form")


@attrs.frozen(kw_only=True)
class MachoSection:
    segment: str = field("Owning segment")
    name: str = field("Section name")
    address: str | None = field("Hex address", pattern="^0x[a-fA-F0-9]+$")
    size: int | None = field("Size", minimum=0)
    file_offset: int | None = field("Offset in the file (null: zero-fill)", minimum=0)
    alignment: int | None = field("Alignment in bytes", minimum=0)
    flags: tuple[str, ...] = field("Attribute and type names")


@attrs.frozen(kw_only=True)
class SectionRows:
    items: tuple[MachoSection, ...] = field("Sections of the segment")
    total: int | None = field("Recorded", minimum=0)
    exhaustive: bool = field("Every recorded row is returned")
    limitations: tuple[str, ...] = field("Why rows are missing")


@attrs.frozen(kw_only=True)
class MachoSegment:
    name: str = field("Segment name")
    vm_address: str | None = field("Hex VM address", pattern="^0x[a-fA-F0-9]+$")
    vm_size: int | None = field("VM size", minimum=0)
    file_offset: int | None = field("Offset in the file", minimum=0)
    file_size: int | None = field("File bytes", minimum=0)
    maximum_permissions: SegmentPermissions = field("maxprot")
    initial_permissions: SegmentPermissions = field("initprot")
    sections: SectionRows = field("Its sections")


@attrs.frozen(kw_only=True)
class SegmentRows:
    items: tuple[MachoSegment, ...] = field("Segments")
    total: int | None = field("Recorded", minimum=0)
    exhaustive: bool = field("Every recorded row is returned")
    limitations: tuple[str, ...] = field("Why rows are missing")


@attrs.frozen(kw_only=True)
class MachoInspection:
    format: Literal["mach-o"] = field("Mach-O")
    endian: Literal["little", "big"] | None = field("Byte order of the image")
    word_size: Literal[32, 64] | None = field("32 or 64")
    file_type: str | None = field("MH_*")
    flags: tuple[str, ...] = field("MH_* header flags")
    uuid: str | None = field("LC_UUID (null: none)")
    entrypoints: EntryRows = field("LC_MAIN entries")
    architectures: ArchitectureList = field("The file's slices")
    build_metadata: BuildRows = field("Platform, minimum OS, SDK, tools")
    load_commands: LoadCommandRows = field("Every load command")
    dependencies: DependencyRows = field("Linked dylibs")
    imports: SymbolRows = field("Imported symbols")
    exports: SymbolRows = field("Exported symbols")
    segments: SegmentRows = field("Segments with their sections")
    provenance: tuple[CommandProvenance, ...] = field("External commands run (none: lief reads in process)")
    install_name: str | None = field("Our extra: LC_ID_DYLIB of a dylib (null: not a dylib)")
    slice: str | None = field("Our extra: the universal slice read (null: thin)")
    limitations: tuple[str, ...] = field("What this read did not observe")


# ----------------------------------------------------------------- demangle_swift


@attrs.frozen(kw_only=True)
class DemangleArgs:
    symbols: tuple[str, ...] = field(
        "Mangled Swift symbols ($s..., _$s..., $S..., _T...)",
        schema={
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 4096},
            "minItems": 1,
            "maxItems": 500,
        },
    )


@attrs.frozen(kw_only=True)
class Demangled:
    input: str = field("The symbol given")
    output: str = field("swift-demangle's output (the input itself when unchanged)")
    status: Literal["demangled", "unchanged", "invalid"] = field("What swift-demangle made of it")


@attrs.frozen(kw_only=True)
class DemangleResult:
    symbols: tuple[Demangled, ...] = field("One row per input, in order")
    provenance: tuple[CommandProvenance, ...] = field("The swift-demangle run")
    limitations: tuple[str, ...] = field("What the run did not establish")


# -------------------------------------------------------------- inspect_signature


@attrs.frozen(kw_only=True)
class SignatureArgs:
    """The reference's input is empty (the open target); our extra selects a universal slice."""

    architecture: str | None = field(
        "Universal slice whose signature to read; default: open_binary's slice",
        omit_none=True,
        minLength=1,
        maxLength=64,
    )


@attrs.frozen(kw_only=True)
class CodeDirectory:
    slot: int = field("SuperBlob slot (0: primary, 0x1000+: alternates)", minimum=0)
    version: str = field("CodeDirectory version (hex)")
    flags: int = field("CodeDirectory flags (CS_RUNTIME 0x10000, CS_ADHOC 0x2, CS_LINKER_SIGNED 0x20000)", minimum=0)
    hash_type: str = field("sha1, sha256, sha256-truncated, sha384")
    hash_size: int = field("Bytes per page hash", minimum=0)
    identifier: str | None = field("Signing identifier")
    team_identifier: str | None = field("Team identifier (CodeDirectory 0x20200+)")
    cdhash: str | None = field("Digest of this CodeDirectory, first 20 bytes in hex")


@attrs.frozen(kw_only=True)
class Signature:
    signed: bool = field("A CodeDirectory was read")
    identifier: str | None = field("Primary CodeDirectory identifier")
    team_identifier: str | None = field("Team identifier")
    format: str | None = field("Mach-O thin (arch) or Mach-O universal (arch)")
    cdhashes: tuple[str, ...] = field("cdhash of every CodeDirectory")
    hash_algorithms: tuple[str, ...] = field("Hash type of every CodeDirectory")
    authorities: tuple[str, ...] = field("Signing certificate common names from the CMS blob, signer first")
    designated_requirement: str | None = field("Not decompiled here (null; see limitations)")
    entitlements: Open = field("The XML entitlements as JSON (null: none)")
    timestamp: str | None = field("CMS signing time (ISO 8601; null: none)")
    hardened_runtime: bool | None = field("CS_RUNTIME in the primary CodeDirectory (null: unsigned)")
    provenance: tuple[CommandProvenance, ...] = field("External commands run (none: read in process)")
    code_directories: tuple[CodeDirectory, ...] = field("Our extra: every CodeDirectory read")
    limitations: tuple[str, ...] = field("What this read did not observe")
