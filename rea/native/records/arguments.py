"""Wire records of the native family: REA 6.x argument and result shapes.

Field names, types and enums follow the reference (officialToolContracts,
enhancedInputs, toolOutputSchemaGroups, hopperValues); our extras are optional
arguments or additional result fields, never a different shape for a shared name.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from rea.wire.schema import field

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


NO_TOTAL = 2**53 - 1


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
    offset: int = field("First item to return (default 0)", default=0, minimum=0, maximum=NO_TOTAL)
    limit: int | None = field("Items to return (default: all of them)", omit_none=True, minimum=1, maximum=NO_TOTAL)
    detail: Detail = detail_choice()


@attrs.frozen(kw_only=True)
class SearchArgs:
    pattern: str = field("Text or regular expression to find", minLength=1, maxLength=256)
    mode: Literal["literal", "regex"] = field("literal substring or regular expression", default="literal")
    case_sensitive: bool = field("Match case", default=False)
    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)
    offset: int = field("First match to return (default 0)", default=0, minimum=0, maximum=NO_TOTAL)
    limit: int | None = field("Matches to return (default: all of them)", omit_none=True, minimum=1, maximum=NO_TOTAL)
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
    offset: int = field("First reference to return (default 0)", default=0, minimum=0, maximum=NO_TOTAL)
    limit: int | None = field("References to return (default: all)", omit_none=True, minimum=1, maximum=NO_TOTAL)
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
    basic_blocks: int = field("", default=0, minimum=0, maximum=NO_TOTAL)
    callees: int = field("", default=0, minimum=0, maximum=NO_TOTAL)
    callers: int = field("", default=0, minimum=0, maximum=NO_TOTAL)
    comments: int = field("", default=0, minimum=0, maximum=NO_TOTAL)
    incoming_references: int = field("", default=0, minimum=0, maximum=NO_TOTAL)
    outgoing_references: int = field("", default=0, minimum=0, maximum=NO_TOTAL)
    referenced_names: int = field("", default=0, minimum=0, maximum=NO_TOTAL)
    referenced_strings: int = field("", default=0, minimum=0, maximum=NO_TOTAL)


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
    limit: int | None = field("Most rows per collection (default: all)", omit_none=True, minimum=1, maximum=NO_TOTAL)
    collection_offset: CollectionOffsets | None = field("First row per collection (3.1)", omit_none=True)
    assembly_offset: int = field("First assembly line (3.1)", default=0, minimum=0, maximum=NO_TOTAL)
    max_instructions: int | None = field(
        "Most assembly lines (default: all)", omit_none=True, minimum=1, maximum=NO_TOTAL
    )
    pseudocode_offset: int = field("First pseudocode character (3.1)", default=0, minimum=0, maximum=NO_TOTAL)
    max_pseudocode_chars: int | None = field(
        "Most pseudocode characters (default: all)", omit_none=True, minimum=0, maximum=NO_TOTAL
    )


@attrs.frozen(kw_only=True)
class CallGraphArgs:
    address: str | None = field(
        _CHOSEN.replace("Give procedure or address", "Give address or procedure"), omit_none=True, minLength=1
    )
    procedure: str | None = field("The same as address, by the other name; give one", omit_none=True, minLength=1)
    direction: Literal["forward", "backward"] = field("Callees (forward) or callers (backward)", default="forward")
    depth: int | None = field(
        "Deepest level (default: the whole reachable graph)", omit_none=True, minimum=0, maximum=NO_TOTAL
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
