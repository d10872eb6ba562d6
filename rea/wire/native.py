"""Wire records of the native family: REA 6.x argument and result shapes.

Field names, types and enums follow the reference (officialToolContracts,
enhancedInputs, toolOutputSchemaGroups, hopperValues); our extras are optional
arguments or additional result fields, never a different shape for a shared name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

from rea.wire.schema import Open, field

_DOCUMENT = "Document (a headless provider has one)"
_PROCEDURE = "Procedure: name, entry address (0x...) or sub_<hex> name"
# one habit for every procedure-or-address argument (rea.native.subject resolves both spellings)
_CHOSEN = "Name, entry address (0x...) or sub_<hex> name (or give address)"
_SAME_AS_PROCEDURE = "Same as procedure (either name); give one"
_AT_OR_NAME = "An address (0x hex, or space:0x...) or a procedure, symbol or sub_<hex> name"
_AT_OR_NAMED = _AT_OR_NAME + "; procedure is the same"
_SAME_AS_ADDRESS = "Same as address (either name); give one"
DETAIL = "complete (default) or summary: counts and first rows, paged with inspect_analysis_view"


def procedure_choice() -> Any:
    """`procedure`, optional because `address` may name it instead (the program requires one)."""
    return field(_CHOSEN, omit_none=True, minLength=1)


def address_alias() -> Any:
    """`address` as another spelling of `procedure`."""
    return field(_SAME_AS_PROCEDURE, omit_none=True, minLength=1)


def detail_choice() -> Any:
    return field(DETAIL, default="complete")


Detail = Literal["complete", "summary"]

# enums the pure answers compute before building a record (named so their locals are typed too)
SymbolSource = Literal["default", "analysis", "ai", "imported", "user_defined"]
NotContainedReason = Literal["outside_segments", "not_in_procedure"]
Coverage = Literal["complete", "partial", "unknown"]
GoalStatus = Literal["not_requested", "reached", "not_reached", "unknown"]
Dimension = Literal["identity", "pseudocode", "assembly", "comments", "calls", "references", "strings_names", "cfg"]
Verdict = Literal["unchanged", "changed", "truncated", "unknown"]


# ------------------------------------------------------------------ arguments


@attrs.frozen(kw_only=True)
class DocumentArgs:
    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)


@attrs.frozen(kw_only=True)
class ProcedureArgs:
    procedure: str | None = procedure_choice()
    address: str | None = address_alias()
    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)


@attrs.frozen(kw_only=True)
class ListingArgs:
    """A complete listing by default (the reference's answer); offset/limit page it when asked."""

    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)
    offset: int = field("First item to return (default 0)", default=0, minimum=0, maximum=2**53 - 1)
    limit: int | None = field("Items to return (default: all of them)", omit_none=True, minimum=1, maximum=2**53 - 1)
    detail: Detail = detail_choice()


OriginKind = Literal["program", "library", "runtime", "unknown"]
_ORIGIN_FILTER = (
    "Only procedures of this origin: program (own code), library (static or imported), runtime (C "
    "or Go runtime), unknown"
)


@attrs.frozen(kw_only=True)
class ProcedureListingArgs(ListingArgs):
    """list_procedures: the listing arguments, and an origin to keep to (the program's own code alone)."""

    origin: OriginKind | None = field(_ORIGIN_FILTER, omit_none=True)


# -------------------------------------------------------------------- results


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


_NO_TOTAL = 2**53 - 1


@attrs.frozen(kw_only=True)
class AddressArgs:
    address: str = field(_AT_OR_NAME, minLength=1)
    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)


@attrs.frozen(kw_only=True)
class OptionalAddressArgs:
    """The reference makes the address optional (a GUI cursor default); headless, it must be given."""

    address: str | None = field(_AT_OR_NAMED + "; required here: angr has no cursor", omit_none=True, minLength=1)
    procedure: str | None = field(_SAME_AS_ADDRESS, omit_none=True, minLength=1)
    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)


@attrs.frozen(kw_only=True)
class FilteredListingArgs:
    address: str | None = field(
        "Only the entry at this address (0x hex, or a name denoting one)", omit_none=True, minLength=1
    )
    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)
    offset: int = field("First item to return (default 0)", default=0, minimum=0, maximum=_NO_TOTAL)
    limit: int | None = field("Items to return (default: all of them)", omit_none=True, minimum=1, maximum=_NO_TOTAL)
    detail: Detail = detail_choice()


@attrs.frozen(kw_only=True)
class SearchArgs:
    pattern: str = field("Text or regular expression to find", minLength=1, maxLength=256)
    mode: Literal["literal", "regex"] = field("literal substring or regular expression", default="literal")
    case_sensitive: bool = field("Match case", default=False)
    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)
    offset: int = field("First match to return (default 0)", default=0, minimum=0, maximum=_NO_TOTAL)
    limit: int | None = field("Matches to return (default: all of them)", omit_none=True, minimum=1, maximum=_NO_TOTAL)
    detail: Detail = detail_choice()


StringOrigin = Literal["stored", "stack", "decoded"]
_STRING_ORIGIN_FILTER = (
    "Only strings of this origin (default: all): stored (in a data section), stack (built by "
    "immediate stores in a frame), decoded (made by a decoder routine; the first ask emulates its "
    "call sites, seconds, then the cache answers)"
)


@attrs.frozen(kw_only=True)
class StringListingArgs(FilteredListingArgs):
    """list_strings: the listing arguments, and a string origin to keep to (stack strings alone)."""

    origin: StringOrigin | None = field(_STRING_ORIGIN_FILTER, omit_none=True)


@attrs.frozen(kw_only=True)
class StringSearchArgs(SearchArgs):
    """search_strings: the search arguments, and a string origin to keep to."""

    origin: StringOrigin | None = field(_STRING_ORIGIN_FILTER, omit_none=True)


@attrs.frozen(kw_only=True)
class ProcedureSearchArgs(SearchArgs):
    """search_procedures: the search arguments, and an origin to keep to."""

    origin: OriginKind | None = field(_ORIGIN_FILTER, omit_none=True)


@attrs.frozen(kw_only=True)
class OverviewArgs:
    detail: Literal["concise", "detailed"] = field("detailed adds sections and a string sample", default="concise")
    limit: int = field("Largest procedures and imports to list", default=10, minimum=1, maximum=50)


@attrs.frozen(kw_only=True)
class ReferencesArgs:
    procedure: str | None = procedure_choice()
    address: str | None = address_alias()
    direction: Literal["incoming", "outgoing"] = field("References into or out of the procedure", default="outgoing")
    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)
    max_instructions: int = field(
        "Accepted for the reference (3.1); angr's references need no scan", default=500, minimum=1, maximum=5000
    )
    offset: int = field("First reference to return (default 0)", default=0, minimum=0, maximum=_NO_TOTAL)
    limit: int | None = field("References to return (default: all)", omit_none=True, minimum=1, maximum=_NO_TOTAL)
    detail: Detail = detail_choice()


@attrs.frozen(kw_only=True)
class InstructionArgs:
    procedure: str | None = procedure_choice()
    address: str | None = address_alias()
    offset: int = field("First instruction", default=0, minimum=0, maximum=100_000)
    limit: int = field("Instructions in the window", default=64, minimum=1, maximum=500)
    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)
    include_bytes: bool = field(
        "Add `bytes`, each instruction's hex bytes in the order of `instructions`", default=False
    )
    detail: Detail = detail_choice()


@attrs.frozen(kw_only=True)
class ProcedureTextArgs(ProcedureArgs):
    """procedure_assembly, procedure_pseudo_code, procedure_callers and procedure_callees: one procedure, and
    a summary for a very large answer (libcrypto's most-called function has 74 KB of named callers)."""

    detail: Detail = detail_choice()


@attrs.frozen(kw_only=True)
class NameArgs:
    name: str = field("Exact symbol, import or procedure name", minLength=1)


@attrs.frozen(kw_only=True)
class BatchArgs:
    addresses: tuple[str, ...] = field(
        "Procedure addresses or names; an empty list decompiles nothing", factory=tuple, maxItems=1000
    )
    detail: Detail = detail_choice()


@attrs.frozen(kw_only=True)
class CollectionOffsets:
    basic_blocks: int = field("", default=0, minimum=0, maximum=_NO_TOTAL)
    callees: int = field("", default=0, minimum=0, maximum=_NO_TOTAL)
    callers: int = field("", default=0, minimum=0, maximum=_NO_TOTAL)
    comments: int = field("", default=0, minimum=0, maximum=_NO_TOTAL)
    incoming_references: int = field("", default=0, minimum=0, maximum=_NO_TOTAL)
    outgoing_references: int = field("", default=0, minimum=0, maximum=_NO_TOTAL)
    referenced_names: int = field("", default=0, minimum=0, maximum=_NO_TOTAL)
    referenced_strings: int = field("", default=0, minimum=0, maximum=_NO_TOTAL)


@attrs.frozen(kw_only=True)
class DossierArgs:
    """6.x takes only `procedure` and answers the complete dossier; the 3.1 windows are accepted as extras."""

    procedure: str | None = procedure_choice()
    address: str | None = address_alias()
    detail: Detail = detail_choice()
    include_assembly: bool = field(
        "Include the assembly (false: the facet is empty and says so)",
        default=True,
    )
    limit: int | None = field("Most rows per collection (default: all)", omit_none=True, minimum=1, maximum=_NO_TOTAL)
    collection_offset: CollectionOffsets | None = field("First row per collection (3.1)", omit_none=True)
    assembly_offset: int = field("First assembly line (3.1)", default=0, minimum=0, maximum=_NO_TOTAL)
    max_instructions: int | None = field(
        "Most assembly lines (default: all)", omit_none=True, minimum=1, maximum=_NO_TOTAL
    )
    pseudocode_offset: int = field("First pseudocode character (3.1)", default=0, minimum=0, maximum=_NO_TOTAL)
    max_pseudocode_chars: int | None = field(
        "Most pseudocode characters (default: all)", omit_none=True, minimum=0, maximum=_NO_TOTAL
    )


@attrs.frozen(kw_only=True)
class CallGraphArgs:
    address: str | None = field(
        _CHOSEN.replace("Give procedure or address", "Give address or procedure"), omit_none=True, minLength=1
    )
    procedure: str | None = field("The same as address, by the other name; give one", omit_none=True, minLength=1)
    direction: Literal["forward", "backward"] = field("Callees (forward) or callers (backward)", default="forward")
    depth: int | None = field(
        "Deepest level (default: the whole reachable graph)", omit_none=True, minimum=0, maximum=_NO_TOTAL
    )
    detail: Detail = detail_choice()


@attrs.frozen(kw_only=True)
class CallPathArgs:
    start: str = field(_PROCEDURE, minLength=1)
    goal: str | None = field(_PROCEDURE + "; omit to explore from start", omit_none=True, minLength=1)
    direction: Literal["forward", "backward"] = field(
        "Follow callees (forward) or callers (backward)", default="forward"
    )
    max_depth: int = field("Deepest level", default=5, minimum=1, maximum=10)
    max_nodes: int = field("Most procedures visited", default=100, minimum=1, maximum=500)
    max_operations: int = field(
        "Most relationship reads (one per expanded procedure)", default=100, minimum=1, maximum=500
    )
    detail: Detail = detail_choice()


# ----------------------------------------------------------------- results


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


@attrs.frozen(kw_only=True)
class ProcedureInfo:
    name: str = field("Name")
    entrypoint: str = field("Entry address")
    basicblock_count: int = field("Basic blocks", minimum=0)
    length: int = field("Bytes covered by its blocks", minimum=0)
    signature: str | None = field("Prototype (angr does not recover one: null)")
    locals: tuple[LocalVariable, ...] = field("Local variables (angr does not report them: empty)")
    classification: Classification | None = field("Kind")
    body: Body = field("Body ranges")
    callers: int = field("Calling procedures (extra)", minimum=0)
    callees: int = field("Called procedures (extra)", minimum=0)


@attrs.frozen(kw_only=True)
class ReferenceKind:
    """The reference's classified reference kind; angr knows calls from its CFG and data references from its
    xref database (read, write or offset)."""

    available: Literal[True] = field("The reference is classified")
    provenance: str = field("Who classified it", minLength=1)
    type: str = field("call, or angr's data-reference type: read, write, offset")
    flow: bool = field("A control-flow reference")
    call: bool = field("A call")
    jump: bool = field("A jump")
    data: bool = field("A data reference")
    read: bool = field("Reads the target")
    write: bool = field("Writes the target")
    indirect: bool = field("Through a register or memory (angr lists only resolved targets: false)")
    computed: bool = field("Computed target")
    conditional: bool = field("Taken conditionally")
    terminal: bool = field("Ends the block without falling through")
    primary: bool = field("The instruction's primary reference")
    operand_index: int = field("Operand holding the target (-1: not recorded)")
    external: bool = field("The target is an import")


@attrs.frozen(kw_only=True)
class ReferenceEdge:
    source_address: str = field("Referencing instruction")
    target_address: str = field("Referenced address")
    source_procedure: ProcedureRef | None = field("Procedure of the source")
    target_procedure: ProcedureRef | None = field("Procedure starting at the target")
    kind: ReferenceKind = field("Reference kind")


@attrs.frozen(kw_only=True)
class UnresolvedCall:
    address: str = field("Call site")
    reason: str = field("Why its target is unknown")


@attrs.frozen(kw_only=True)
class ProcedureReferences:
    procedure: ProcedureIdentity = field("The procedure")
    direction: Literal["incoming", "outgoing"] = field("The direction asked for")
    reference_kinds_available: bool = field("Whether kinds are classified")
    unresolved_calls: tuple[UnresolvedCall, ...] = field("Call sites with unknown targets (outgoing)")
    references: tuple[ReferenceEdge, ...] = field("Every reference")
    instruction_scan_truncated: bool = field("3.1: the scan stopped early (never, for angr)")
    instructions_scanned: int = field("3.1: instructions scanned (0: angr reads its xref database)", minimum=0)


@attrs.frozen(kw_only=True)
class InstructionWindow:
    procedure: ProcedureIdentity = field("The procedure")
    instructions: tuple[str, ...] = field("`address: mnemonic operands` lines of the window")
    limitations: tuple[str, ...] = field("What the window leaves out")
    offset: int = field("First instruction of the window (extra)", minimum=0)
    total: int = field("Instructions in the procedure (extra)", minimum=0)
    next_offset: int | None = field("Where the next window starts, or null (extra)")
    bytes: tuple[str, ...] | None = field(
        "Each instruction's hex bytes, in the order of `instructions` (extra; include_bytes: true)", omit_none=True
    )


@attrs.frozen(kw_only=True)
class ErrorRemediation:
    action: str = field("What to do")


@attrs.frozen(kw_only=True)
class ErrorRecord:
    code: str = field("Canonical error code")
    category: str = field("Error category")
    message: str = field("What happened")
    retryable: bool = field("Whether retrying can help")
    remediation: ErrorRemediation = field("What to do next")
    details: Mapping[str, Open] | None = field("Code-specific facts", omit_none=True)


@attrs.frozen(kw_only=True)
class ResolvedRef:
    status: Literal["resolved", "unknown"] = field("Whether the request named a procedure")
    address: str | None = field("Entry address")
    name: str | None = field("Name")


@attrs.frozen(kw_only=True)
class Decompiled:
    address: str = field("The address or name asked for")
    status: Literal["ok"] = field("Decompiled")
    pseudocode: str = field("Pseudocode", minLength=1)
    procedure: ResolvedRef = field("The procedure it named")


@attrs.frozen(kw_only=True)
class NotDecompiled:
    address: str = field("The address or name asked for")
    status: Literal["error"] = field("Failed")
    error: ErrorRecord = field("Why")
    procedure: ResolvedRef = field("The procedure it named")


@attrs.frozen(kw_only=True)
class Batch:
    items: tuple[Decompiled | NotDecompiled, ...] = field("One row per address, in request order")
    total: int = field("Rows", minimum=0)
    succeeded: int = field("ok rows", minimum=0)
    failed: int = field("error rows", minimum=0)


@attrs.frozen(kw_only=True)
class XrefsResolved:
    status: Literal["resolved"] = field("The name denotes an address")
    name: str = field("The name")
    address: str = field("The address it denotes")
    xrefs: tuple[str, ...] = field("Referencing instruction addresses")
    addresses: tuple[str, ...] = field("Every address with this name (extra; usually one)")


@attrs.frozen(kw_only=True)
class XrefsUnresolved:
    status: Literal["unresolved"] = field("No such name")
    name: str = field("The name")
    reason: Literal["name_not_found"] = field("Why")


@attrs.frozen(kw_only=True)
class GraphNodeOk:
    address: str = field("Procedure address")
    status: Literal["ok"] = field("Its relationships were read")
    calls: tuple[str, ...] = field("Observed callees (forward) or callers (backward)")
    name: str | None = field("Name (extra)")
    coverage: Coverage = field("How complete `calls` is")
    limitations: tuple[str, ...] = field("Caveats of this read")


@attrs.frozen(kw_only=True)
class GraphNodeError:
    address: str = field("Address that could not be read")
    status: Literal["error"] = field("Its relationships were not read")
    error: ErrorRecord = field("Why")


@attrs.frozen(kw_only=True)
class CallGraph:
    """Keyed by traversal depth ("0", "1", ...) plus a top-level `limitations` array (the spec)."""

    levels: Mapping[str, tuple[GraphNodeOk | GraphNodeError, ...]]
    limitations: tuple[str, ...]

    @staticmethod
    def __wire_schema__(role: object) -> dict[str, object]:
        from rea.wire.schema import schema_of

        node = schema_of(GraphNodeOk | GraphNodeError)
        return {
            "type": "object",
            "description": "Nodes keyed by traversal depth, and the deduplicated caveats of every read",
            "properties": {"limitations": {"type": "array", "items": {"type": "string"}}},
            "patternProperties": {"^(0|[1-9][0-9]*)$": {"type": "array", "items": node}},
            "required": ["0", "limitations"],
            "additionalProperties": False,
        }

    def __wire__(self) -> dict[str, object]:
        from rea.wire.convert import to_wire

        return {**{k: to_wire(v) for k, v in self.levels.items()}, "limitations": list(self.limitations)}


@attrs.frozen(kw_only=True)
class PathNode:
    address: str = field("Procedure address")
    depth: int = field("Discovery depth", minimum=0)
    name: str | None = field("Its name (extra; null when none is known)")


@attrs.frozen(kw_only=True)
class PathEdge:
    source_address: str = field("The caller (edges follow the call, whichever way the trace walks)")
    target_address: str = field("The callee")
    discovery_depth: int = field("Depth of the end the expansion discovered", minimum=1)


@attrs.frozen(kw_only=True)
class Failure:
    address: str = field("Address whose relationships could not be read")
    error: ErrorRecord = field("Why")


@attrs.frozen(kw_only=True)
class Traversal:
    nodes_visited: int = field("Procedures visited", minimum=1)


@attrs.frozen(kw_only=True)
class PathLimits:
    max_depth: int = field("", minimum=1)
    max_nodes: int = field("", minimum=1)
    max_operations: int = field("", minimum=1)


@attrs.frozen(kw_only=True)
class CallPath:
    start: str = field("Start procedure address")
    goal: str | None = field("Goal procedure address")
    direction: Literal["forward", "backward"] = field("Traversal direction")
    goal_status: GoalStatus = field("unknown: not reached while some expansion was unresolved")
    nodes: tuple[PathNode, ...] = field("Visited procedures")
    edges: tuple[PathEdge, ...] = field("Traversed call edges")
    traversal_path: tuple[str, ...] = field("start ... goal, when reached")
    failures: tuple[Failure, ...] = field("Reads that failed")
    traversal: Traversal = field("Traversal counts")
    frontier: tuple[str, ...] = field("Procedures left unexpanded")
    truncated: bool = field("Some expansion was limited or unresolved (each is in residual_unknowns)")
    residual_unknowns: tuple[str, ...] = field("Each limited or unresolved expansion, in words")
    limitations: tuple[str, ...] = field("Caveats")
    limits: PathLimits = field("The limits applied")


@attrs.frozen(kw_only=True)
class LocalVariable:
    description: str = field("The variable")
    provenance: str = field("Who reported it")


@attrs.frozen(kw_only=True)
class DossierProcedure:
    address: str = field("Entry address")
    name: str = field("Name")
    signature: str | None = field("Prototype (angr recovers none: null)")
    locals: tuple[LocalVariable, ...] = field(
        "Stack locals of angr's pseudocode, each with the assembly's operand for its bytes"
    )
    classification: Classification = field("Kind")
    body: Body = field("Body ranges")
    kind: Literal["function", "thunk", "external"] = field("Kind (extra)")
    size: int = field("Bytes (extra)", minimum=0)
    returning: bool | None = field("Returns (extra)")


@attrs.frozen(kw_only=True)
class Comment:
    address: str = field("Address")
    kind: Literal["comment", "inline"] = field("Comment kind")
    text: str = field("Text")


@attrs.frozen(kw_only=True)
class Referenced:
    address: str = field("Address of the string or name")
    value: str = field("Its text")
    source_address: str = field("The procedure's instruction referencing it (or the procedure entry)")


@attrs.frozen(kw_only=True)
class Block:
    start: str = field("First address")
    end: str = field("Address after the last byte")
    successors: tuple[str, ...] = field("Blocks control can flow to")


@attrs.frozen(kw_only=True)
class Availability:
    available: bool = field("Observed")
    reason: str | None = field("Why not", omit_none=True)


@attrs.frozen(kw_only=True)
class FacetAvailability:
    pseudocode: Availability = field("")
    assembly: Availability = field("")
    comments: Availability = field("")
    callers: Availability = field("")
    callees: Availability = field("")
    references: Availability = field("")
    strings_names: Availability = field("")
    cfg: Availability = field("")


@attrs.frozen(kw_only=True)
class ValueFlow:
    available: bool = field("Whether value flow was computed")
    reason: str | None = field("Why not", omit_none=True)


@attrs.frozen(kw_only=True)
class Dossier:
    procedure: DossierProcedure = field("Identity and body")
    pseudocode: str | None = field("Decompiled pseudocode (null: unavailable, see facet_availability)")
    assembly: tuple[str, ...] = field("`address: mnemonic operands` lines")
    comments: tuple[Comment, ...] = field("Analyst comments (angr keeps none)")
    callers: tuple[ProcedureRef, ...] = field("Calling procedures")
    callees: tuple[ProcedureRef, ...] = field("Called procedures")
    incoming_references: tuple[ReferenceEdge, ...] = field("References to the entry")
    outgoing_references: tuple[ReferenceEdge, ...] = field("References out of the body")
    referenced_strings: tuple[Referenced, ...] = field("Strings the body references")
    referenced_names: tuple[Referenced, ...] = field("Named addresses the body references")
    basic_blocks: tuple[Block, ...] = field("Control-flow graph")
    unresolved_calls: tuple[UnresolvedCall, ...] = field("Calls whose target angr did not resolve")
    native_api: None = field("Imported APIs by family (not classified by this provider: null)")
    native_value_flow: ValueFlow = field("Value flow")
    limitations: tuple[str, ...] = field("What the dossier leaves out")
    facet_availability: FacetAvailability = field("Which facets were observed")
    pseudocode_length: int = field("Characters of the complete pseudocode (extra)", minimum=0)
    pseudocode_truncated: bool = field("Bounded by max_pseudocode_chars (extra)")
    assembly_total: int = field("Instructions in the procedure (extra)", minimum=0)


@attrs.frozen(kw_only=True)
class Available:
    state: Literal["available"] = field("The facet was read")
    value: Open = field("The facet's value: a name string, a procedure identity, or a list of bookmarks")


@attrs.frozen(kw_only=True)
class Unavailable:
    state: Literal["unavailable"] = field("The facet cannot be read here")
    reason: str = field("Why")
    remediation: str = field("What to do instead")


@attrs.frozen(kw_only=True)
class AddressContext:
    address: str = field("The address")
    document: str | None = field("The document")
    name: Available | Unavailable = field("Name at the address")
    procedure: Available | Unavailable = field("Containing procedure")
    comment: Available | Unavailable = field("Comment")
    inline_comment: Available | Unavailable = field("Inline comment")
    bookmarks: Available | Unavailable = field("Bookmarks")


@attrs.frozen(kw_only=True)
class NavigationContext:
    document: str = field("Current document")
    address: str = field("Cursor address")
    procedure: str | None = field("Procedure at the cursor")


@attrs.frozen(kw_only=True)
class CompareArgs:
    """Exactly one of left / left_evidence_ids per side (checked by the program)."""

    left: Open = field(
        "analyze_function Evidence: the complete record or {kind: retained-evidence, evidence_id}",
        omit_none=True,
        schema={"type": "object"},
    )
    right: Open = field(
        "analyze_function Evidence: the complete record or {kind: retained-evidence, evidence_id}",
        omit_none=True,
        schema={"type": "object"},
    )
    left_evidence_ids: tuple[str, ...] | None = field(
        "Retained analyze_function Evidence ids (3.1)", omit_none=True, minItems=1, maxItems=100
    )
    right_evidence_ids: tuple[str, ...] | None = field(
        "Retained analyze_function Evidence ids (3.1)", omit_none=True, minItems=1, maxItems=100
    )
    offset: int = field("First change (3.1; changes are complete)", default=0, minimum=0, maximum=_NO_TOTAL)
    limit: int = field("Changes (3.1; changes are complete)", default=100, minimum=1, maximum=100)


@attrs.frozen(kw_only=True)
class TextDelta:
    added_lines: int = field("", minimum=0)
    removed_lines: int = field("", minimum=0)
    hunks: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class DimensionResult:
    dimension: Dimension = field("What was compared")
    status: Verdict = field("The verdict of this dimension")
    left_digest: str | None = field("sha256 of the left side's compared facts (null: not observed)")
    right_digest: str | None = field("sha256 of the right side's compared facts (null: not observed)")
    left_count: int | None = field("Left items compared", minimum=0)
    right_count: int | None = field("Right items compared", minimum=0)
    text_delta: TextDelta | None = field("Line delta for text dimensions")
    conclusion_kind: Literal["derived_relationship", "contradiction", "unresolved_branch"] = field("What it rests on")
    evidence_links: tuple[str, ...] = field("The compared Evidence", minItems=2)
    limitations: tuple[str, ...] = field("Why it is unknown, or its caveats")
    added: tuple[str, ...] = field("Items only on the right (extra; first 50)")
    removed: tuple[str, ...] = field("Items only on the left (extra; first 50)")


@attrs.frozen(kw_only=True)
class FunctionMatch:
    status: Literal["matched", "mismatched", "ambiguous"] = field("Whether the two dossiers are the same function")
    method: Literal["symbol", "explicit"] = field("symbol: same name; explicit: the caller paired them")
    left_name: str = field("")
    right_name: str = field("")


@attrs.frozen(kw_only=True)
class DimensionSummary:
    unchanged: int = field("", minimum=0)
    changed: int = field("", minimum=0)
    truncated: int = field("", minimum=0)
    unknown: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class FunctionComparison:
    status: Verdict = field("Overall verdict")
    function_match: FunctionMatch = field("How the functions were paired")
    left_subject_sha256: str = field("Left binary", pattern="^[a-f0-9]{64}$")
    right_subject_sha256: str = field("Right binary", pattern="^[a-f0-9]{64}$")
    summary: DimensionSummary = field("Dimensions by status")
    dimensions: tuple[DimensionResult, ...] = field("All eight dimensions", minItems=8, maxItems=8)
    changes: tuple[DimensionResult, ...] = field("The changed dimensions")
    limitations: tuple[str, ...] = field("Caveats")
    left_evidence_ids: tuple[str, ...] = field("Left dossiers (extra)")
    right_evidence_ids: tuple[str, ...] = field("Right dossiers (extra)")
