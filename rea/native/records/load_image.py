"""Wire records of inspect_native_load_image (REA 6.x shapes: domain/native/nativeLoadImage): what the
DOS loader put in memory (observations) and the checks that recompute it from the file."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.wire.schema import Open, field

_DIGEST = "^[0-9a-f]{64}$"


@attrs.frozen(kw_only=True)
class LoadImageArgs:
    """The reference's input is empty: the open DOS MZ or COM target is read."""


@attrs.frozen(kw_only=True)
class SourceFile:
    name: str = field("File name of the target")
    size: int = field("File size in bytes", minimum=0)
    original_sha256: str = field("sha256 of the file as it is", pattern=_DIGEST)
    modified_sha256: str = field("sha256 of the file with every applied relocation patched in", pattern=_DIGEST)


@attrs.frozen(kw_only=True)
class MemoryMapping:
    block: str = field("Block name: HEADER, MODULE, or ALLOCATION (uninitialized e_minalloc memory)")
    start: str = field("First address: HEADER:0x.. in the header space, else the linear real-mode address")
    end: str = field("Last address (inclusive)")
    address_space: str = field("HEADER or ram")
    initialized: bool = field("Backed by file bytes")
    loaded: bool = field("Part of the loaded program image (the header is not)")
    overlay: bool = field("In a separate address space (the header), not in ram")
    length: int = field("Length in bytes", minimum=1)
    source_file_index: int | None = field("Index into source_files of the backing file (null: not file-backed)")
    file_offset: int | None = field("File offset of the first byte (null: not file-backed)")
    sha256: str | None = field("sha256 of the bytes in memory after relocation (null: not file-backed)")


@attrs.frozen(kw_only=True)
class Relocation:
    address: str = field("Linear address of the patched word")
    segment: int | None = field("Loaded segment of the word (load segment + record segment, 16-bit)")
    offset: int | None = field("Offset of the word in that segment")
    status: Literal["APPLIED", "SKIPPED"] = field("APPLIED, or SKIPPED when the record points outside the module")
    type: int = field("Relocation type (0: DOS segment fixup)")
    values: tuple[int, ...] = field("[record segment, record offset, relocated word] (no word when skipped)")
    original_bytes_hex: str | None = field("The word before this fixup, hex (null: outside the file)")
    memory_bytes_hex: str | None = field("The word in memory after it, hex (null: not applied)")


@attrs.frozen(kw_only=True)
class Register:
    name: str = field("Register")
    value_hex: str | None = field("Value at entry, 0x hex")


@attrs.frozen(kw_only=True)
class EntryContext:
    address: str = field("Entry linear address")
    registers: tuple[Register, ...] = field("Register values the loader sets at entry")


@attrs.frozen(kw_only=True)
class Observations:
    executable_format: str = field("Loader format name (Ghidra's names: Old-style DOS Executable (MZ), Raw Binary)")
    language_id: str = field("Processor language (x86:LE:16:Real Mode)")
    compiler_spec_id: str = field("Compiler specification (default)")
    image_base: str = field("Image base (0x0: addresses are linear)")
    default_address_space: str = field("Default address space (ram)")
    source_files: tuple[SourceFile, ...] = field("The file the image was loaded from")
    mappings: tuple[MemoryMapping, ...] = field("Memory blocks and the file ranges backing them")
    relocations: tuple[Relocation, ...] = field("Segment fixups, in table order")
    entry_points: tuple[str, ...] = field("Entry linear addresses")
    entry_context: tuple[EntryContext, ...] = field("Registers at entry")


@attrs.frozen(kw_only=True)
class Check:
    name: str = field("What was compared")
    matched: bool = field("Whether the observed value satisfies the expectation")
    expected: Open = field("The expected value, or a bound {at_least} / {at_most}")
    observed: Open = field("The observed value")
    file_offset: int | None = field("File offset of the datum the check is about (a header field, a record)")
    address: str | None = field("Address the check is about")


@attrs.frozen(kw_only=True)
class Entry:
    relative_segment: int = field("e_cs: entry segment relative to the load segment", minimum=0, maximum=0xFFFF)
    offset: int = field("e_ip: entry offset", minimum=0, maximum=0xFFFF)
    linear_address: str = field("Linear address of the entry at the load segment")


@attrs.frozen(kw_only=True)
class LoadImage:
    status: Literal["verified", "mismatch"] = field("verified when every check matched, else mismatch")
    format: Literal["dos-mz", "dos-com"] = field("The interpretation")
    target_sha256: str = field("sha256 of the open target", pattern=_DIGEST)
    load_segment: int = field("Segment the image is loaded at (0x1000)", minimum=0, maximum=0xFFFF)
    header_bytes: int = field("Header size (e_cparhdr * 16; 0 for COM)", minimum=0)
    module_bytes: int = field("Loaded module size (file bytes after the header up to the image end)", minimum=0)
    overlay_bytes: int = field("File bytes after the declared image (not loaded)", minimum=0)
    entry: Entry = field("Entry point")
    observations: Observations = field("What the loader put in memory")
    checks: tuple[Check, ...] = field("Independent checks, with the coordinates of each mismatch")
    limitations: tuple[str, ...] = field("What the verification does not cover")
