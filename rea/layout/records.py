"""Wire records of inspect_binary_layout: the REA 6.x layout shape, widened from x86-64 ELF to ELF, PE and Mach-O.

Names and field types follow the reference (domain/native/binaryLayout): numbers a
64-bit image can hold travel as lowercase `0x` hex strings, never as unsafe JSON
numbers; a name keeps its original bytes and where they sit. Where the reference
names an ELF-only field, a PE or Mach-O row fills it when the format has the fact
and leaves it null when it has not (a PE section has no sh_link). Format-specific
facts the reference has no field for are extras (`image_relocations`, `pe`, `macho`).
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from rea.wire.key_order import sent_in
from rea.wire.schema import field, local_path

HEX = "^0x(?:0|[1-9a-f][0-9a-f]{0,15})$"
SHA256 = "^[a-f0-9]{64}$"
BASE64 = "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"
Format = Literal["elf", "pe", "macho"]
Scalar = str | int
EntryMeaning = Literal["linked-virtual-address", "relative-virtual-address", "file-offset", "not-applicable", "absent"]
ValueMeaning = Literal[
    "undefined",
    "alignment",
    "absolute-value",
    "no-address",
    "unknown-section-index",
    "section-offset",
    "tls-offset",
    "linked-virtual-address",
]


def _hex(description: str) -> Any:
    return field(description, pattern=HEX)


def _hex_or_none(description: str) -> Any:
    return field(description + " (null: the format has no such field)", pattern=HEX)


# ------------------------------------------------------------------ arguments


@attrs.frozen(kw_only=True)
class LayoutArgs:
    path: str = local_path("The binary (ELF, PE/PE32+, Mach-O thin or universal)")
    detail: Literal["complete", "summary"] = field(
        "complete: the layout Evidence; summary: retain it and return its summary view (parent_evidence_id)",
        default="complete",
    )
    architecture: str | None = field(
        "Universal slice to read (as list_architectures names it); required when there are several",
        omit_none=True,
        minLength=1,
        maxLength=64,
    )
    max_symbols: int = field("Symbol rows kept (the rest are counted)", default=200_000, minimum=0)
    max_relocations: int = field("Relocation rows kept (the rest are counted)", default=500_000, minimum=0)


# --------------------------------------------------------------------- result


@attrs.frozen(kw_only=True)
class Range:
    offset: str = _hex("File offset")
    bytes: str = _hex("Length in bytes")


@attrs.frozen(kw_only=True)
class Name:
    display: str = field("The name as text (invalid UTF-8 replaced)")
    bytes_base64: str | None = field("The original name bytes, base64 (null: not read)", pattern=BASE64)
    location: Range | None = field("Where the name bytes sit in the file (null: not file-backed or unknown)")
    unknown_reason: str | None = field("Why the name is unknown (null when it was read)")


@attrs.frozen(kw_only=True)
class LayoutArtifact:
    path: str = field("The selected path", minLength=1)
    sha256: str = field("SHA-256 of the whole file", pattern=SHA256)
    bytes: int = field("File size", minimum=0)


@attrs.frozen(kw_only=True)
class Architecture:
    machine: str = field("Header machine: EM_* (ELF), IMAGE_FILE_MACHINE_* (PE), CPU_TYPE_* (Mach-O)")
    bits: Literal[32, 64] = field("Word size")
    byte_order: Literal["little", "big"] = field("Byte order")


@attrs.frozen(kw_only=True)
class EntryPoint:
    reported_value: str = _hex("The header's entry field, as recorded")
    meaning: EntryMeaning = field(
        "linked-virtual-address (ELF e_entry, Mach-O LC_UNIXTHREAD pc), relative-virtual-address (PE "
        "AddressOfEntryPoint), file-offset (Mach-O LC_MAIN entryoff), not-applicable (relocatable object), "
        "absent (zero or no entry command)"
    )
    execution_status: Literal["unknown"] = field("Whether the entry runs is not observed statically")


@attrs.frozen(kw_only=True)
class Section:
    index: int = field("Original header index", minimum=0)
    name: Name = field("Section name")
    name_offset: str | None = _hex_or_none("ELF sh_name offset into the section-name table")
    type: Scalar = field("SHT_* (ELF), S_* (Mach-O), IMAGE_SCN for PE; the number when unnamed")
    header_location: Range = field("Where the section header sits")
    address: str = _hex("Linked virtual address (PE: RVA)")
    offset: str = _hex("File offset of the contents")
    size: str = _hex("Size (ELF sh_size; PE VirtualSize; Mach-O size)")
    alignment: str = _hex("Alignment in bytes")
    flags: str = _hex("sh_flags (ELF), Characteristics (PE), flags (Mach-O)")
    link: int | None = field("ELF sh_link (null: not ELF)", minimum=0)
    info: int | None = field("ELF sh_info (null: not ELF)", minimum=0)
    entry_size: str | None = _hex_or_none("ELF sh_entsize")
    file_backing: Literal["file", "none"] = field("Whether the contents occupy file bytes")
    segment: str | None = field("Mach-O: the owning segment name (our extra; null otherwise)")
    raw_size: str | None = _hex_or_none("PE SizeOfRawData (our extra)")


@attrs.frozen(kw_only=True)
class Permissions:
    read: bool = field("Readable")
    write: bool = field("Writable")
    execute: bool = field("Executable")


@attrs.frozen(kw_only=True)
class Segment:
    index: int = field("Original index (ELF program header; Mach-O segment command order)", minimum=0)
    type: Scalar = field("PT_* (ELF), LC_SEGMENT/LC_SEGMENT_64 (Mach-O)")
    name: str | None = field("Mach-O segment name (our extra; null for ELF)")
    header_location: Range = field("Where the program header or load command sits")
    offset: str = _hex("File offset")
    file_size: str = _hex("Bytes in the file")
    memory_size: str = _hex("Bytes in memory")
    virtual_address: str = _hex("Linked virtual address")
    physical_address: str = _hex("ELF p_paddr (Mach-O: the virtual address)")
    alignment: str = _hex("Alignment (Mach-O: 0x0, none recorded)")
    flags: str = _hex("p_flags (ELF), initprot (Mach-O)")
    file_backing: Literal["file", "none"] = field("Whether the segment has file bytes")
    permissions: Permissions | None = field("Meaning of the flags (null for PT_NULL)")


@attrs.frozen(kw_only=True)
class Symbol:
    table_index: int = field("Section index of the symbol table (Mach-O, PE: 0, the one table)", minimum=0)
    entry_index: int = field("Index within the table", minimum=0)
    name: Name = field("Symbol name")
    name_offset: str = _hex("Offset of the name in the table's string table")
    location: Range = field("Where the symbol entry sits")
    value: str = _hex("Recorded value")
    value_meaning: ValueMeaning = field("What the value is, from the section index and image type")
    size: str = _hex("st_size (ELF); 0x0 where the format records none")
    binding: Scalar = field("STB_* (ELF), external/local (Mach-O, PE storage class)")
    type: Scalar = field("STT_* (ELF), N_* type (Mach-O), COFF type (PE)")
    visibility: Scalar = field("STV_* (ELF); default elsewhere")
    section_index: Scalar = field("SHN_* or the section index")


@attrs.frozen(kw_only=True)
class SectionOffsetTarget:
    kind: Literal["section-offset"] = field("An offset inside a section (relocatable objects)")
    section_index: int = field("The section relocated", minimum=0)
    offset: str = _hex("Offset inside it")


@attrs.frozen(kw_only=True)
class AddressTarget:
    kind: Literal["linked-virtual-address"] = field("A linked address (executables, shared objects)")
    address: str = _hex("The address")


@attrs.frozen(kw_only=True)
class UnknownSectionTarget:
    kind: Literal["unknown-section"] = field("The owner names no usable section")
    reported_section_index: int = field("The recorded sh_info", minimum=0)
    offset: str = _hex("The recorded offset")
    unknown_reason: Literal["undefined-section-reference", "inactive-section-header"] = field("Why it is unknown")


@attrs.frozen(kw_only=True)
class Relocation:
    section_index: int = field("The SHT_REL/SHT_RELA section holding the entry", minimum=0)
    entry_index: int = field("Index within it", minimum=0)
    reported_offset: str = _hex("r_offset")
    target: SectionOffsetTarget | AddressTarget | UnknownSectionTarget = field("What r_offset designates")
    location: Range = field("Where the entry sits")
    type: int = field("r_type", minimum=0)
    type_name: str | None = field("Our extra: the r_type name for the machine (null: unnamed)")
    symbol_table_index: int = field("The owner's sh_link", minimum=0)
    symbol_index: int = field("r_sym", minimum=0)
    symbol_reference_meaning: Literal["zero-symbol-value", "symbol-table-entry"] = field("Index 0 means value zero")
    symbol_name: str | None = field("Our extra: the referenced symbol's name (null: index 0 or unnamed)")
    addend: str | None = field("RELA r_addend in decimal (null for REL)", pattern="^-?(?:0|[1-9][0-9]{0,18})$")


@attrs.frozen(kw_only=True)
class RelrEntry:
    decoded_index: int = field("Order of the decoded offset", minimum=0)
    reported_offset: str = _hex("The relocated address")


@attrs.frozen(kw_only=True)
class PackedRelative:
    section_index: int = field("The SHT_RELR section", minimum=0)
    location: Range = field("Its file range")
    encoded_bytes_base64: str = field("Its exact bytes", pattern=BASE64)
    entries: tuple[RelrEntry, ...] = field("Decoded offsets, in encoding order")
    offset_meaning: Literal["linked-virtual-address", "unknown"] = field("What the offsets are")
    evidence_kind: Literal["derived"] = field("Offsets are decoded, not recorded")
    entry_source_locations: None = field("Decoded entries have no single source location")
    addends: None = field("RELR addends live at the relocated addresses")


@attrs.frozen(kw_only=True)
class ImageRelocation:
    """PE base relocations and Mach-O fixups (our extra: the reference's relocations are ELF's)."""

    kind: Literal["pe-base-relocation-block", "macho-relocation", "macho-chained-fixup", "macho-bind"] = field(
        "Source; pe-base-relocation-block: one run of a PE base relocation block's entries of one type"
    )
    address: str = _hex("Relocated address (PE block: the page RVA; Mach-O: linked virtual address)")
    type: str = field("Relocation or fixup type name")
    symbol_name: str | None = field("Bound symbol, if any")
    library: str | None = field("Mach-O: the dylib the bind names")
    offsets: tuple[int, ...] | None = field(
        "PE block only: each relocated address as its offset from the page (address + offset is the RVA)",
        omit_none=True,
        schema={"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 4095}},
    )


@attrs.frozen(kw_only=True)
class LinkedEntry:
    display_name: str = field("Symbol the slot or stub serves")
    address: str = _hex("Slot or stub address")


@attrs.frozen(kw_only=True)
class ImportSlot:
    library: str = field("Imported DLL or dylib")
    name: str | None = field("Imported name (null: by ordinal)")
    ordinal: int | None = field("Import ordinal (null: by name)")
    address: str = _hex("IAT slot RVA (PE) or stub address (Mach-O)")


@attrs.frozen(kw_only=True)
class Linkage:
    needed_libraries: tuple[Name, ...] = field("DT_NEEDED (ELF), imported DLLs (PE), LC_LOAD_*DYLIB (Mach-O)")
    interpreters: tuple[Name, ...] = field("PT_INTERP (ELF), LC_LOAD_DYLINKER (Mach-O)")
    got: tuple[LinkedEntry, ...] = field("ELF GOT slots from JUMP_SLOT/GLOB_DAT relocations")
    plt: tuple[LinkedEntry, ...] = field("ELF x86-64 PLT stubs (.plt.sec or .plt), in JUMP_SLOT order")
    convenience_maps_completeness: Literal["unknown"] = field("GOT/PLT maps are derived, not exhaustive")
    runtime_library_paths: None = field("Paths resolved at run time are not observed")
    library_search_paths: tuple[str, ...] = field("Our extra: DT_RPATH/DT_RUNPATH (ELF), LC_RPATH (Mach-O)")
    import_slots: tuple[ImportSlot, ...] = field("Our extra: PE IAT slots and Mach-O symbol stubs")


@attrs.frozen(kw_only=True)
class CetFeatures:
    ibt: bool = field("GNU_PROPERTY_X86_FEATURE_1_IBT")
    shstk: bool = field("GNU_PROPERTY_X86_FEATURE_1_SHSTK")


@attrs.frozen(kw_only=True)
class ArmFeatures:
    bti: bool = field("GNU_PROPERTY_AARCH64_FEATURE_1_BTI")
    pac: bool = field("GNU_PROPERTY_AARCH64_FEATURE_1_PAC")


@attrs.frozen(kw_only=True)
class PeMitigations:
    dll_characteristics: str = _hex("IMAGE_OPTIONAL_HEADER DllCharacteristics")
    flags: tuple[str, ...] = field("Its named bits (IMAGE_DLLCHARACTERISTICS_*)")
    guard_flags: str | None = field("Load configuration GuardFlags (null: no load configuration)", pattern=HEX)
    control_flow_guard: bool = field("GUARD_CF and IMAGE_GUARD_CF_INSTRUMENTED")
    safe_seh: bool | None = field("PE32 SEHandlerTable present (null: PE32+ or no load configuration)")


@attrs.frozen(kw_only=True)
class MachoMitigations:
    header_flags: tuple[str, ...] = field("MH_* header flags")
    pie: bool = field("MH_PIE")
    allow_stack_execution: bool = field("MH_ALLOW_STACK_EXECUTION")
    no_heap_execution: bool = field("MH_NO_HEAP_EXECUTION")
    code_signature: bool = field("An LC_CODE_SIGNATURE command is present")
    hardened_runtime: bool | None = field("CodeDirectory flag CS_RUNTIME (null: unsigned or unreadable)")


@attrs.frozen(kw_only=True)
class Mitigations:
    evidence_kind: Literal["inferred"] = field("Inferred from headers, notes and symbols")
    position_independent: bool = field("ET_DYN with PIE/interpreter, PE DYNAMIC_BASE with relocations, Mach-O MH_PIE")
    nx_indicator: bool | None = field("Non-executable stack/data indicated (null: no indicator recorded)")
    executable_stack_indicator: bool = field("PT_GNU_STACK with X, Mach-O MH_ALLOW_STACK_EXECUTION")
    stack_canary_indicator: bool = field("__stack_chk_fail / __stack_chk_guard / __security_cookie referenced")
    relro: Literal["Partial", "Full"] | None = field("ELF PT_GNU_RELRO, Full with BIND_NOW (null: none)")
    fortify_symbols: tuple[str, ...] = field("Our extra: *_chk fortified functions referenced")
    cet: CetFeatures | None = field("Our extra: x86 CET properties (null: no x86 feature property)")
    arm: ArmFeatures | None = field("Our extra: AArch64 BTI/PAC properties (null: none recorded)")
    pe: PeMitigations | None = field("Our extra: PE DllCharacteristics and CFG (null: not PE)")
    macho: MachoMitigations | None = field("Our extra: Mach-O flags and hardened runtime (null: not Mach-O)")

    __wire__ = sent_in(
        (
            "evidence_kind",
            "position_independent",
            "nx_indicator",
            "executable_stack_indicator",
            "relro",
            "cet",
            "arm",
            "pe",
            "macho",
            "stack_canary_indicator",
            "fortify_symbols",
        )
    )


@attrs.frozen(kw_only=True)
class Diagnostics:
    stdout: str = field("Reader output (lief runs in process: empty)")
    stderr: str = field("Reader warnings")
    truncated: bool = field("Diagnostics were cut")


@attrs.frozen(kw_only=True)
class CollectionCount:
    returned: int = field("Rows in this result", minimum=0)
    total: int = field("Rows the file records", minimum=0)
    exhaustive: bool = field("Every recorded row is returned")


@attrs.frozen(kw_only=True)
class LayoutCoverage:
    """Our extra: what the reader kept of each collection and why the rest is missing."""

    sections: CollectionCount = field("Section headers")
    segments: CollectionCount = field("Program headers / segment commands")
    symbols: CollectionCount = field("Symbol table entries")
    relocations: CollectionCount = field("REL/RELA entries")
    section_table: Literal["present", "absent", "malformed"] = field(
        "ELF: whether a section header table was found (absent: stripped; malformed: out of the file)"
    )


@attrs.frozen(kw_only=True)
class PeExport:
    ordinal: int = field("Ordinal (ordinal base + index in the Export Address Table)", minimum=0)
    name: str | None = field("Exported name (null: exported by ordinal only)")
    rva: str = _hex("The Export Address Table word: the export's RVA, or the forwarder string's RVA")
    kind: Literal["export", "forwarder"] = field("forwarder: the RVA points inside the export directory")
    forwarder: str | None = field("DLL.function the loader resolves instead (null: not forwarded)")


@attrs.frozen(kw_only=True)
class PeExportDirectory:
    dll_name: str | None = field("The DLL name the directory records")
    ordinal_base: int = field("Ordinal of the first Export Address Table entry", minimum=0)
    timestamp: int = field("TimeDateStamp", minimum=0)
    directory_rva: str = _hex("RVA of the export directory (data directory 0)")
    directory_size: str = _hex("Its size")
    address_table_rva: str = _hex("RVA of the Export Address Table")
    address_table_entries: int = field("Entries in it (unused slots included)", minimum=0)
    name_table_rva: str = _hex("RVA of the name pointer table")
    name_table_entries: int = field("Named exports", minimum=0)
    ordinal_table_rva: str = _hex("RVA of the ordinal table")
    entries: tuple[PeExport, ...] = field("Every used Export Address Table entry, by ordinal")

    __wire__ = sent_in(
        (
            "dll_name",
            "ordinal_base",
            "timestamp",
            "directory_rva",
            "directory_size",
            "address_table_rva",
            "name_table_rva",
            "ordinal_table_rva",
            "address_table_entries",
            "name_table_entries",
            "entries",
        )
    )


@attrs.frozen(kw_only=True)
class PeImportEntry:
    name: str | None = field("Imported name (null: by ordinal)")
    ordinal: int | None = field("Ordinal (null: by name)")
    hint: int | None = field("The name's hint (null: by ordinal)")
    iat_rva: str = _hex("RVA of its Import Address Table slot")


@attrs.frozen(kw_only=True)
class PeImportDll:
    library: str = field("DLL name")
    lookup_table_rva: str = _hex("RVA of its import lookup table (OriginalFirstThunk; 0x0: none)")
    address_table_rva: str = _hex("RVA of its Import Address Table (FirstThunk)")
    entries: tuple[PeImportEntry, ...] = field("Its imports, in table order")


@attrs.frozen(kw_only=True)
class PeDirectories:
    exports: PeExportDirectory | None = field("The export directory (null: none)")
    imports: tuple[PeImportDll, ...] = field("The import directory, one descriptor per DLL")


@attrs.frozen(kw_only=True)
class BinaryLayout:
    artifact: LayoutArtifact = field("The file read")
    format: Format = field("elf, pe or macho")
    architecture: Architecture = field("Machine, word size and byte order")
    image_type: str = field("ET_* (ELF), IMAGE_FILE_DLL/EXECUTABLE (PE), MH_* (Mach-O)")
    entry_point: EntryPoint = field("The header's entry and what it means")
    runtime_load_base: None = field("The load base is not observed statically")
    sections: tuple[Section, ...] = field("Every section header, in original order")
    segments: tuple[Segment, ...] = field("Every program header or segment command, in order")
    symbols: tuple[Symbol, ...] = field("Symbol table entries (ELF .symtab and .dynsym; Mach-O nlist; COFF)")
    relocations: tuple[Relocation, ...] = field("ELF REL/RELA entries with their owners")
    packed_relative_relocations: tuple[PackedRelative, ...] = field("ELF SHT_RELR tables, decoded")
    relocation_inventory_completeness: Literal["unknown"] = field("Relocations from tables only")
    image_relocations: tuple[ImageRelocation, ...] = field("Our extra: PE base relocations and Mach-O fixups")
    linkage: Linkage = field("Libraries, interpreter, GOT/PLT, import slots")
    pe_directories: PeDirectories | None = field(
        "Our extra, PE only: the export directory (names, ordinals, forwarders, RVAs) and the import directory "
        "(DLLs, names or ordinals, IAT slot RVAs); null for ELF and Mach-O"
    )
    mitigations: Mitigations = field("Hardening indicators")
    diagnostics: Diagnostics = field("Reader diagnostics")
    slice: str | None = field("Our extra: the universal-binary slice read (null: thin file)")
    coverage: LayoutCoverage = field("Our extra: returned, recorded and exhaustive per collection")
    limitations: tuple[str, ...] = field("What this read did not observe")
