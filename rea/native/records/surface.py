"""Wire records of the native surface REA keeps itself: analyst annotations, navigation, bytes,
instruction decode and call targets (REA 6.x shapes: toolOutputSchemaGroups, hopperMemoryContracts,
native/nativeInstruction, native/nativeFunctionAnnotations)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import attrs

from rea.native.annotations import MAX_NAME, MAX_TEXT
from rea.native.records.arguments import address_alias, procedure_choice
from rea.native.records.procedures import Dossier
from rea.wire.schema import field

_DOCUMENT = "Document (a headless provider has one)"
_ADDRESS = "Link-time virtual address (0x hex), or a procedure, symbol or sub_<hex> name"
_CURSORLESS = _ADDRESS + "; required here: angr has no cursor"
MAX_READ = 4096


@attrs.frozen(kw_only=True)
class CommentArgs:
    address: str = field(_ADDRESS, minLength=1)
    comment: str = field(f"The comment (empty text clears it; at most {MAX_TEXT} characters)", maxLength=MAX_TEXT)
    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)


@attrs.frozen(kw_only=True)
class NameAtArgs:
    address: str = field(_ADDRESS, minLength=1)
    name: str = field(
        f"The name (one line, no control characters, at most {MAX_NAME})", minLength=1, maxLength=MAX_NAME
    )
    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)


@attrs.frozen(kw_only=True)
class NamesArgs:
    names: Mapping[str, str] = field(
        "address (or a name denoting one) -> name, applied together", minProperties=1, maxProperties=10_000
    )
    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)


@attrs.frozen(kw_only=True)
class BookmarkArgs:
    address: str = field(_ADDRESS, minLength=1)
    name: str | None = field("The bookmark's name (default: none)", omit_none=True, maxLength=MAX_NAME)
    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)


@attrs.frozen(kw_only=True)
class CursorArgs:
    address: str | None = field(_CURSORLESS, omit_none=True, minLength=1)
    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)


@attrs.frozen(kw_only=True)
class VariableEdit:
    name: str = field("Current variable name as the pseudocode shows it", minLength=1, maxLength=MAX_NAME)
    new_name: str | None = field("New name", omit_none=True, minLength=1, maxLength=MAX_NAME)
    data_type: str | None = field(
        "C type to record for it, e.g. uint8_t", omit_none=True, minLength=1, maxLength=MAX_NAME
    )


@attrs.frozen(kw_only=True)
class AnnotateArgs:
    procedure: str | None = procedure_choice()
    address: str | None = address_alias()
    name: str | None = field("New procedure name", omit_none=True, minLength=1, maxLength=MAX_NAME)
    comment: str | None = field("Regular entry comment; empty text clears it", omit_none=True, maxLength=MAX_TEXT)
    inline_comment: str | None = field("Inline entry comment; empty text clears it", omit_none=True, maxLength=MAX_TEXT)
    signature: str | None = field("C prototype to record", omit_none=True, minLength=1, maxLength=4096)
    calling_convention: str | None = field(
        "Calling convention to record, e.g. sysv or ms", omit_none=True, minLength=1, maxLength=64
    )
    variables: tuple[VariableEdit, ...] | None = field(
        "Variable renames and types to record", omit_none=True, minItems=1, maxItems=256
    )
    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)


@attrs.frozen(kw_only=True)
class ReadBytesArgs:
    address: str = field(_ADDRESS, minLength=1)
    length: int = field(f"Bytes to read (at most {MAX_READ})", default=256, minimum=1, maximum=MAX_READ)
    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)


# -------------------------------------------------------------------- results


@attrs.frozen(kw_only=True)
class Bookmark:
    address: str = field("Bookmarked address")
    name: str = field("Its name (empty when unnamed)")


@attrs.frozen(kw_only=True)
class AnnotationReadback:
    address: str = field("Procedure entry")
    name: str = field("Procedure name after the edit")
    comment: str | None = field("Entry comment after the edit")
    inline_comment: str | None = field("Inline entry comment after the edit")
    signature: str | None = field("Recorded prototype (our extra)")
    calling_convention: str | None = field("Recorded calling convention (our extra)")
    variables: tuple[VariableEdit, ...] = field("Recorded variable renames and types (our extra)")


@attrs.frozen(kw_only=True)
class AnnotationEffects:
    scope: Literal["persistent-analysis-database"] = field("REA's annotation store in the analysis cache")
    source_bytes_modified: Literal[False] = field("The binary is never changed")
    persists_after_close: Literal[True] = field("Kept across close/reopen and restarts")


@attrs.frozen(kw_only=True)
class FunctionAnnotations:
    annotations: AnnotationReadback = field("Readback of the stored annotations")
    dossier: Dossier = field("The refreshed analyze_function dossier")
    effects: AnnotationEffects = field("Where the edit landed")


@attrs.frozen(kw_only=True)
class BytesRead:
    address: str = field("First address read")
    requested_bytes: int = field("Bytes asked for", minimum=1, maximum=MAX_READ)
    returned_bytes: int = field("Bytes returned", minimum=0, maximum=MAX_READ)
    bytes_hex: str = field("Lowercase hex of the returned bytes", pattern="^(?:[a-f0-9]{2})*$")
    complete: bool = field("All requested bytes were returned")
    file_offset: int | None = field("File offset of the first byte (our extra)", minimum=0)
    stop_reason: str | None = field("Why fewer bytes came back (our extra)")


@attrs.frozen(kw_only=True)
class FileOffset:
    address: str = field("The address")
    file_offset: int = field("Its offset in the original file", minimum=0, maximum=2**53 - 1)
    segment: str = field("The load segment holding it (our extra)")


@attrs.frozen(kw_only=True)
class Component:
    kind: Literal["register", "immediate", "address", "unknown"] = field("Component kind")
    text: str = field("Its text")
    value: str | None = field("Its value (hex), when numeric")
    bit_width: int | None = field("Width in bits", minimum=0)


@attrs.frozen(kw_only=True)
class Operand:
    index: int = field("Operand position", minimum=0)
    raw: str = field("Operand text")
    provider_type: int = field("capstone's operand type code")
    components: tuple[Component, ...] = field("Registers, immediates and addresses in it")
    memory_addressing: Literal["unavailable"] = field("Memory-addressing breakdown is not reported")


@attrs.frozen(kw_only=True)
class ClassificationFact:
    source: str = field("Which decoder fact")
    value: str = field("Its value")


@attrs.frozen(kw_only=True)
class Flow:
    kind: Literal["call", "jump", "return", "fallthrough", "terminal", "unavailable"] = field("Control flow")
    conditional: bool = field("Conditional branch")
    computed: bool = field("Destination computed at run time")
    direct_destinations: tuple[str, ...] = field("Destinations encoded in the instruction")
    classification_evidence: tuple[ClassificationFact, ...] = field("Decoder facts behind the classification")


@attrs.frozen(kw_only=True)
class Reference:
    target_address: str = field("Referenced address")
    type: str = field("call, jump, data or indirect-call/indirect-jump")
    call: bool = field("A call reference")
    jump: bool = field("A jump reference")
    indirect: bool = field("Through memory (a pointer slot)")
    computed: bool = field("Computed (register or memory) rather than encoded")
    operand_index: int = field("Operand it comes from (-1: from the analysis)")
    source_address: str | None = field("Instruction address")
    provenance: str | None = field("Who reported it: capstone or angr CFGFast")


@attrs.frozen(kw_only=True)
class InstructionFacts:
    address: str = field("The address")
    status: Literal["decoded", "not-instruction-boundary", "data", "undecodable", "outside-memory"] = field("Outcome")
    procedure: str | None = field("Entry address of the containing procedure")
    architecture: str = field("Architecture")
    mode: str = field("Decoder mode")
    bytes: str | None = field("Instruction bytes, hex")
    length: int | None = field("Instruction length", minimum=1)
    mnemonic: str | None = field("Mnemonic")
    raw_disassembly: str | None = field("Mnemonic and operands")
    operands: tuple[Operand, ...] = field("Operands in decoder order")
    flow: Flow = field("Control flow")
    references: tuple[Reference, ...] = field("References out of the instruction")
    limitations: tuple[str, ...] = field("What this answer does not cover")


CallStatus = Literal["direct", "resolved-indirect", "ambiguous", "unresolved", "not-call", "unavailable"]
Mechanism = Literal["direct", "computed", "indirect", "unavailable"]


@attrs.frozen(kw_only=True)
class CallTarget:
    address: str = field("Target address")
    procedure: str | None = field("Name of the procedure there")
    status: Literal["direct", "resolved-indirect", "candidate"] = field("How it was found")
    basis: Literal["provider-reference"] = field("Static provider references, never runtime certainty")
    references: tuple[Reference, ...] = field("The references behind it")


@attrs.frozen(kw_only=True)
class CallTargets:
    call_site: str = field("The call instruction")
    procedure: str | None = field("Entry address of the containing procedure")
    status: CallStatus = field("Resolution outcome")
    mechanism: Mechanism = field("How the call takes its destination")
    targets: tuple[CallTarget, ...] = field("Resolved targets or candidates")
    limitations: tuple[str, ...] = field("What this answer does not cover")


# ------------------------------------------------ macOS-only UI observation (typed unavailable here)


@attrs.frozen(kw_only=True)
class UiObservationArgs:
    pid: int = field("Process id of the running app", minimum=1)
    window_id: int = field("Window id in that app", minimum=0)
    screenshot: bool = field("Capture the window", default=True)
    accessibility: bool = field("Capture the accessibility tree", default=True)
    max_nodes: int = field("Accessibility nodes at most", default=500, minimum=1, maximum=10_000)


@attrs.frozen(kw_only=True)
class UiStep:
    kind: Literal["click", "scroll", "key-entry", "wait"] = field("Step kind")
    element: str | None = field("Element path or selector", omit_none=True, minLength=1)
    direction: Literal["increment", "decrement"] | None = field("Scroll direction", omit_none=True)
    text: str | None = field("Text to enter", omit_none=True, maxLength=4096)
    milliseconds: int | None = field("Wait duration", omit_none=True, minimum=0, maximum=60_000)


@attrs.frozen(kw_only=True)
class UiScenarioArgs:
    pid: int = field("Process id of the running app", minimum=1)
    window_id: int = field("Window id in that app", minimum=0)
    steps: tuple[UiStep, ...] = field("Ordered steps", minItems=1, maxItems=64)
    screenshot: bool = field("Capture the window around each step", default=True)
    accessibility: bool = field("Capture the accessibility tree around each step", default=True)
    max_nodes: int = field("Accessibility nodes at most per capture", default=500, minimum=1, maximum=10_000)


@attrs.frozen(kw_only=True)
class UiActionArgs:
    action: str = field("Selector, Interface Builder object id, symbol or address", minLength=1)
    max_depth: int = field("Static callee depth", default=4, minimum=0, maximum=64)
    max_nodes: int = field("Graph nodes at most", default=500, minimum=1, maximum=10_000)
    max_edges: int = field("Graph edges at most", default=2000, minimum=1, maximum=50_000)


@attrs.frozen(kw_only=True)
class UiObservation:
    accessibility: tuple[Mapping[str, str], ...] = field("Accessibility nodes (paths, roles, attributes)")
    screenshot: Mapping[str, str] | None = field("Window screenshot (PNG digest)")
    status: str = field("Permission and coverage status")


@attrs.frozen(kw_only=True)
class UiScenario:
    captures: tuple[UiObservation, ...] = field("Before/after captures in order")
    steps: tuple[Mapping[str, str], ...] = field("Per-step action results")
    failures: tuple[str, ...] = field("Capture and action failures")


@attrs.frozen(kw_only=True)
class UiActionGraph:
    nodes: tuple[Mapping[str, str], ...] = field("IB connections, Objective-C handlers and static callees")
    edges: tuple[Mapping[str, str], ...] = field("Edges with their kinds")
    unknowns: tuple[str, ...] = field("What could not be followed")


# ------------------------------------------------------------- DWARF types


@attrs.frozen(kw_only=True)
class DataTypeArgs:
    type: str | None = field("Type name (exactly one of type and address)", omit_none=True, minLength=1, maxLength=512)
    address: str | None = field(
        "Address of a global variable whose type to read (0x hex, or its symbol name)", omit_none=True, minLength=1
    )
    document: str | None = field(_DOCUMENT, omit_none=True, minLength=1)


@attrs.frozen(kw_only=True)
class TypeField:
    name: str | None = field("Member name (null when anonymous)")
    offset: int | None = field("Byte offset (null for a bitfield)")
    type: str = field("Member type name")
    type_id: str | None = field("Member type id")
    bit_size: int | None = field("Bit width of a bitfield")
    bit_offset: int | None = field("Bit offset of a bitfield from the start of the type")


@attrs.frozen(kw_only=True)
class EnumValue:
    name: str | None = field("Enumerator")
    value: int | None = field("Its value")


@attrs.frozen(kw_only=True)
class DataType:
    status: Literal["found", "not-found", "unavailable"] = field("Outcome")
    reason: str | None = field("Why nothing was found (null when found)")
    id: str | None = field("Type id (dwarf:0x<DIE offset>)")
    name: str | None = field("Type name")
    kind: str | None = field("struct, union, enum, pointer, array, typedef, scalar, qualifier, function")
    size: int | None = field("Size in bytes")
    alignment: int | None = field("Alignment in bytes when DWARF records it")
    packing: None = field("Packing is not recorded by DWARF")
    fields: tuple[TypeField, ...] = field("Members that are not bitfields")
    bitfields: tuple[TypeField, ...] = field("Bitfield members")
    enum_values: tuple[EnumValue, ...] = field("Enumerators")
    child_type_ids: tuple[str, ...] = field("Referenced type ids (typedef target, pointee, element)")
    variable: str | None = field("The variable at the address (address lookups)")
