"""The native family's listing results: procedure rows and identities, the overview, strings, names, segments
and search rows (the reference's shapes; our extras are additional fields)."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.native.records.arguments import NotContainedReason, OriginKind, StringOrigin, SymbolSource
from rea.wire.schema import field


@attrs.frozen(kw_only=True)
class ProcedureOrigin:
    """Where a procedure's code came from, and what said so (rea.native.origin has the rules)."""

    kind: OriginKind = field("program: the binary's own code; library; runtime; unknown: nothing could tell")
    source: str = field(
        "What decided it: dwarf, symtab-file, go-package, rust-crate, library-match (bytes equal an installed "
        "static library's, relocations masked), library-name, neighbours, runtime-name, runtime-section, import, "
        "unmatched (in no library the binary could be compared with), fragment-of (a part only its owner jumps to; "
        "unit names the owner), engine-placeholder, no-facts",
        minLength=1,
    )
    unit: str | None = field("The compile unit, source file, package, crate or library member it names")


@attrs.frozen(kw_only=True)
class ProcedureFlags:
    external: bool = field("An import: its body is outside this binary")
    thunk: bool = field("A jump stub to another procedure")
    thunk_target: str | None = field("The address a thunk jumps to, when known")


@attrs.frozen(kw_only=True)
class ProcedureRow:
    """list_procedures: `value` is the name, as the reference names it."""

    address: str = field("Entry address")
    value: str = field("Procedure name")
    procedure: ProcedureFlags | None = field("Kind facts", omit_none=True)
    kind: Literal["function", "thunk", "external"] = field("Our classification (extra)")
    size: int = field("Bytes covered by the procedure's blocks (extra)", minimum=0)
    origin: ProcedureOrigin = field("Where its code came from (extra)")


@attrs.frozen(kw_only=True)
class ProcedureIdentity:
    address: str = field("Entry address")
    name: str = field("Procedure name")
    classification: Classification | None = field("Kind")
    body: Body = field("Body ranges")


@attrs.frozen(kw_only=True)
class ProcedureRef:
    """A procedure named inside another answer (a reference's ends, a dossier's callers and callees): the
    reference's required fields only; its body is read from procedure_info or its own dossier."""

    address: str = field("Entry address")
    name: str = field("Procedure name")
    classification: Classification | None = field(
        "Kind (null at a reference's ends: kind.external marks an import, and the procedure's own kind is in "
        "the dossier's procedure, callers and callees, or procedure_info)"
    )


@attrs.frozen(kw_only=True)
class Extent:
    name: str = field("Segment name")
    start: str = field("First address")
    end: str = field("Address after the last byte")
    length: int = field("Bytes", minimum=0)


@attrs.frozen(kw_only=True)
class Engine:
    name: str = field("Engine")
    version: str = field("Engine version")


@attrs.frozen(kw_only=True)
class Counts:
    procedures: int = field("", minimum=0)
    functions: int = field("", minimum=0)
    thunks: int = field("", minimum=0)
    imports: int = field("", minimum=0)
    strings: int = field("", minimum=0)
    sections: int = field("", minimum=0)
    segments: int = field("", minimum=0)
    symbols: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class SizedProcedure:
    address: str = field("Entry address")
    name: str = field("Name")
    size: int = field("Bytes", minimum=0)


@attrs.frozen(kw_only=True)
class OriginCounts:
    program: int = field("The binary's own procedures", minimum=0)
    library: int = field("Library procedures (static library code and imports)", minimum=0)
    runtime: int = field("Runtime procedures (C start-up, Go runtime)", minimum=0)
    unknown: int = field("Procedures nothing could place", minimum=0)


@attrs.frozen(kw_only=True)
class AnalysisState:
    source: Literal["cfg", "metadata", "index"] = field(
        "Where the procedures come from: angr's CFG; the binary's metadata (symbols, exception-frame "
        "starts, Go pclntab) without one; or REA's fast index (that metadata plus a linear sweep of all code)"
    )
    coverage: Literal["complete", "partial"] = field(
        "partial: the CFG was not recovered (calls are not known), or the index left indirect calls and jumps "
        "unresolved or bytes undecoded"
    )
    engine_error: str | None = field("Why CFG recovery failed (metadata source)", omit_none=True)
    merged_fragments: int = field("CFG fragments folded into the function they lie in", minimum=0)
    unresolved_indirect: int | None = field(
        "Indirect calls and jumps the index counted but did not follow (index source; our extra)",
        minimum=0,
        omit_none=True,
    )
    undecoded_bytes: int | None = field(
        "Bytes of executable sections that decode to no instruction (index source; our extra)",
        minimum=0,
        omit_none=True,
    )


@attrs.frozen(kw_only=True)
class GoDependency:
    path: str = field("Module path")
    version: str = field("Module version (a replacement follows =>)")


@attrs.frozen(kw_only=True)
class GoVersionCandidate:
    value: str = field("A go1.x string found in the file")
    file_offset: str = field("File offset of its first byte (0x hex)")


@attrs.frozen(kw_only=True)
class GoVersionInference:
    """Our extra: the toolchain version when the build info is absent, from runtime.buildVersion's bytes."""

    value: str = field("The go1.x string offered as the toolchain version")
    file_offset: str = field("File offset of its first byte (0x hex)")
    address: str | None = field("Its linked virtual address (null: the offset maps to no segment)")
    source: Literal["string-scan"] = field("Found by its shape in the file's bytes, not read from build info")
    evidence_kind: Literal["inferred"] = field("An inference: nothing but its shape ties it to the toolchain")
    confidence: Literal["medium", "low"] = field("medium: every go1.x string agrees; low: they disagree")
    candidates: tuple[GoVersionCandidate, ...] = field("Every go1.x string found (at most 8), in file order")


@attrs.frozen(kw_only=True)
class GoInfo:
    pclntab_layout: str | None = field("pclntab header layout: 1.2, 1.16, 1.18 or 1.20 (null: no table)")
    functions: int = field("Functions named in pclntab", minimum=0)
    go_version: str | None = field("Toolchain version from the build info")
    module_path: str | None = field("Main package path from the build info")
    main_version: str | None = field("Main module version")
    dependencies: tuple[GoDependency, ...] = field("Module dependencies from the build info")
    problems: tuple[str, ...] = field("Table rows or build info that could not be read, and why")
    inferred_version: GoVersionInference | None = field(
        "Without build info: a go1.x string in the binary's data offered as the version (null: build info was "
        "read, or no such string)",
        omit_none=True,
    )


@attrs.frozen(kw_only=True)
class Overview:
    document: str = field("The open document")
    detail: Literal["concise", "detailed"] = field("The detail asked for")
    program_procedures: tuple[SizedProcedure, ...] = field(
        "The program's own functions, largest first (the first `limit`; extra): list_procedures with "
        "origin program lists them all"
    )
    origins: OriginCounts = field("Procedures per origin (extra)")
    segments: tuple[Extent, ...] = field("Loadable segments")
    segment_count: int = field("Loadable segments", minimum=0)
    procedure_count: int = field("Procedures, thunks and imports", minimum=0)
    string_count: int = field("Strings the analysis found", minimum=0)
    format: str = field("Container format")
    architecture: str = field("Architecture")
    bits: int = field("Word size", minimum=0)
    endianness: str = field("Byte order")
    entry: str | None = field("Entry point")
    entry_procedure: ProcedureIdentity | None = field("Procedure containing the entry point")
    pic: bool = field("Position-independent")
    linked_base: str = field("Link-time base address")
    stripped: bool = field("No function symbols")
    engine: Engine = field("Analysis engine")
    counts: Counts = field("Inventory counts")
    largest_procedures: tuple[SizedProcedure, ...] = field("Largest functions")
    imports: tuple[str, ...] = field("Imported names (concise: the first `limit`)")
    sections: tuple[Region, ...] | None = field("Sections (detailed)", omit_none=True)
    strings_sample: tuple[AddressedValue, ...] | None = field("First strings (detailed)", omit_none=True)
    analysis: AnalysisState | None = field("How the inventory was recovered (extra)", omit_none=True)
    go: GoInfo | None = field("Go pclntab and build info (extra; Go binaries only)", omit_none=True)


@attrs.frozen(kw_only=True)
class StringFacts:
    encoding: str = field("utf-8, utf-16le, ...", minLength=1)
    termination: Literal["missing", "present_or_not_required"] = field("Whether a terminator follows")
    byte_length: int = field("Bytes the string occupies", minimum=0)


@attrs.frozen(kw_only=True)
class AddressedValue:
    address: str = field("Address")
    value: str = field("Name or text")


@attrs.frozen(kw_only=True)
class DecodedInput:
    register: str = field("Argument register")
    kind: Literal["integer", "buffer", "pointer"] = field("integer value, buffer bytes, or pointer into the image")
    value: str = field("The integer or pointer (hex), or the buffer's bytes (hex)")


@attrs.frozen(kw_only=True)
class StringRow:
    address: str = field("Address of the first character")
    value: str = field("Decoded text (first 4,096 characters)")
    string: StringFacts = field("Encoding facts")
    truncated: bool = field("value holds only the first 4,096 characters (extra)")
    referenced_by: tuple[str, ...] | None = field(
        "Procedures referencing it (extra; absent before CFG recovery)", omit_none=True
    )
    section: str | None = field("Section it was scanned from (extra; before CFG recovery)", omit_none=True)
    origin: StringOrigin = field(
        "stored: in the clear at address; stack: built by immediate stores, address is the first store; "
        "decoded: produced by a decoder routine called with constant data, recovered by emulation, address is "
        "the call site (extra)",
        default="stored",
    )
    procedure: str | None = field("Procedure whose frame holds it (extra; stack strings)", omit_none=True)
    frame_offset: str | None = field(
        "Where its first byte lies in the frame, base register and offset like rbp-0x20 (extra; stack strings)",
        omit_none=True,
    )
    decoder: str | None = field("Decoder procedure that produced it (extra; decoded strings)", omit_none=True)
    call_site: str | None = field("Call of the decoder that produced it (extra; decoded strings)", omit_none=True)
    inputs: tuple[DecodedInput, ...] | None = field(
        "The decoder call's inputs the string was produced from (extra; decoded strings)", omit_none=True
    )


@attrs.frozen(kw_only=True)
class SymbolFacts:
    primary: bool = field("From the symbol table")
    dynamic: bool = field("Assigned by the analysis")
    external: bool = field("Imported")
    type: str = field("function, object, ...")
    source: SymbolSource = field("Where the name came from")


@attrs.frozen(kw_only=True)
class NameRow:
    address: str = field("Address the name denotes")
    value: str = field("The name")
    symbol: SymbolFacts = field("Symbol facts")


@attrs.frozen(kw_only=True)
class Permissions:
    available: bool = field("Whether the loader reported permissions")
    source: str | None = field("Where they come from", omit_none=True)
    reason: str | None = field("Why they are unavailable", omit_none=True)


@attrs.frozen(kw_only=True)
class Region:
    name: str = field("Name")
    start: str = field("First address")
    end: str = field("Address after the last byte")
    readable: bool | None = field("Readable")
    writable: bool | None = field("Writable")
    executable: bool | None = field("Executable")
    permissions: Permissions = field("Permission provenance")
    provenance: str = field("Which reader reported the region (the reference names its providers; ours: cle-loader)")
    size: int = field("Bytes (extra)", minimum=0)


@attrs.frozen(kw_only=True)
class Segment(Region):
    sections: tuple[Region, ...] = field("Sections inside this segment")


@attrs.frozen(kw_only=True)
class Contained:
    query_address: str = field("The address asked about")
    found: Literal[True] = field("A procedure contains it")
    procedure: ProcedureIdentity = field("That procedure")


@attrs.frozen(kw_only=True)
class NotContained:
    query_address: str = field("The address asked about")
    found: Literal[False] = field("No procedure contains it")
    procedure: None = field("Always null")
    reason: NotContainedReason = field("Why")


@attrs.frozen(kw_only=True)
class SearchRow:
    address: str = field("Address")
    value: str = field("Matched name or text")


@attrs.frozen(kw_only=True)
class Classification:
    external: bool = field("An import: its body is outside this binary")
    thunk: bool = field("A jump stub to another procedure")
    thunk_target: str | None = field("The address a thunk jumps to, when known")
    provenance: str = field("Who classified it", minLength=1)
    kind: Literal["function", "thunk", "external"] = field("angr's classification (extra)")
    returning: bool | None = field("Whether it returns (extra; null: unknown)")


@attrs.frozen(kw_only=True)
class Range:
    start: str = field("First address")
    end: str = field("Address after the last byte")


@attrs.frozen(kw_only=True)
class Body:
    available: bool = field("Whether the body's ranges are known")
    ranges: tuple[Range, ...] = field("Basic-block ranges, merged where contiguous")
    reason: str | None = field("Why not", omit_none=True)
