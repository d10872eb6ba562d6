"""Contracts of the native surface REA answers itself: annotations, navigation, bytes, instructions."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rea.catalog.cli import Command, Positional, declared
from rea.catalog.contract import ToolContract
from rea.native import text
from rea.native.contract.tools import BINARY
from rea.native.records import arguments as wa
from rea.native.records import load_image as wl
from rea.native.records import surface as w
from rea.wire.tool import evidence_tool

_READ = {"mutatesSession", "launchesProcess", "idempotent"}
_WRITE = {"mutatesSession", "mutatesTarget", "launchesProcess", "idempotent"}
# overwriting or clearing analyst metadata discards what was there
_DISCARD = {*_WRITE, "mayDiscardData"}
_AT = {"address": "0x1000"}


def _tool(
    name: str, title: str, description: str, args: type, result: Any, example: Mapping[str, Any], effects: set[str]
) -> ToolContract:
    return evidence_tool(
        name,
        title,
        description,
        args=args,
        result=result,
        surface="official-proxy",
        examples=[dict(example)],
        effects=effects,
        needs="provider",
    )


_KEPT = " Kept per target digest and analysis profile, across reopens and restarts."

TOOLS: tuple[ToolContract, ...] = (
    _tool(
        "comment",
        "Comment",
        "The analyst comment at an address, or null." + _KEPT,
        w.CursorArgs,
        str | None,
        _AT,
        _READ,
    ),
    _tool(
        "inline_comment",
        "Inline Comment",
        "The inline comment at an address, or null." + _KEPT,
        w.CursorArgs,
        str | None,
        _AT,
        _READ,
    ),
    _tool(
        "set_comment",
        "Set Comment",
        "Store the comment at an address (empty text clears it); it shows in dossiers, pseudocode and "
        "address context. Overwrites the previous comment." + _KEPT,
        w.CommentArgs,
        bool,
        {"address": "0x1000", "comment": "validated entry point"},
        _DISCARD,
    ),
    _tool(
        "set_inline_comment",
        "Set Inline Comment",
        "Store the inline comment at an address (empty text clears it). Overwrites the previous one." + _KEPT,
        w.CommentArgs,
        bool,
        {"address": "0x1000", "comment": "calls parser"},
        _DISCARD,
    ),
    _tool(
        "set_address_name",
        "Set Address Name",
        "Name an address; procedures and names listings, searches, dossiers and pseudocode use the name. "
        "Overwrites the previous analyst name." + _KEPT,
        w.NameAtArgs,
        bool,
        {"address": "0x1000", "name": "entry"},
        _DISCARD,
    ),
    _tool(
        "set_addresses_names",
        "Set Addresses Names",
        "Name several addresses in one atomic edit: address -> true when named, false when outside every "
        "segment. A bad name rejects the whole request." + _KEPT,
        w.NamesArgs,
        Mapping[str, bool],
        {"names": {"0x1000": "entry"}},
        _DISCARD,
    ),
    _tool(
        "set_bookmark",
        "Set Bookmark",
        "Bookmark an address, optionally named (replaces a bookmark there)." + _KEPT,
        w.BookmarkArgs,
        bool,
        _AT,
        _DISCARD,
    ),
    _tool(
        "unset_bookmark",
        "Unset Bookmark",
        "Remove the bookmark at an address: true when one was removed, false when there was none." + _KEPT,
        wa.AddressArgs,
        bool,
        _AT,
        _DISCARD,
    ),
    _tool(
        "list_bookmarks",
        "List Bookmarks",
        "Every bookmark as {address, name}, by address." + _KEPT,
        wa.DocumentArgs,
        tuple[w.Bookmark, ...],
        {},
        _READ,
    ),
    _tool(
        "annotate_native_function",
        "Annotate Native Function",
        "Rename, comment and record the signature, calling convention and variable names and types of one "
        "function in one atomic edit (the binary is never modified); answers the readback and the refreshed "
        "analyze_function dossier. At least one change is required; empty comment text clears it." + _KEPT,
        w.AnnotateArgs,
        w.FunctionAnnotations,
        {"procedure": "main", "name": "entry_main"},
        _DISCARD,
    ),
    _tool(
        "goto_address",
        "Go To Address",
        "Check and normalize an address inside a loaded segment; the providers run headless, so no cursor moves.",
        wa.AddressArgs,
        str,
        _AT,
        _READ,
    ),
    _tool(
        "next_address",
        "Next Address",
        "The next instruction start after an address inside a procedure (the engine's disassembly), else the "
        "next byte.",
        w.CursorArgs,
        str,
        _AT,
        _READ,
    ),
    _tool(
        "prev_address",
        "Previous Address",
        "The previous instruction start before an address inside a procedure, else the previous byte.",
        w.CursorArgs,
        str,
        _AT,
        _READ,
    ),
    _tool(
        "read_bytes",
        "Read Bytes",
        "At most 4,096 file-backed bytes from a virtual address, as hex with the exact returned length; a read "
        "that reaches zero-filled memory or a segment's end says so (complete: false, stop_reason).",
        w.ReadBytesArgs,
        w.BytesRead,
        _AT,
        _READ,
    ),
    _tool(
        "address_to_file_offset",
        "Address To File Offset",
        "The file offset of a virtual address from the file's load segments; unmapped or zero-filled "
        "addresses fail explicitly.",
        wa.AddressArgs,
        w.FileOffset,
        _AT,
        _READ,
    ),
    _tool(
        "inspect_native_instruction",
        "Inspect Native Instruction",
        (
            "capstone's decode of the instruction at an address: status (decoded, not-instruction-boundary, "
            "data, undecodable, outside-memory), bytes, mnemonic, operands, flow and references "
            "(destinations, pointer slots, rip-relative data, angr's data references)."
        ),
        wa.AddressArgs,
        w.InstructionFacts,
        _AT,
        _READ,
    ),
    _tool(
        "resolve_native_call_targets",
        "Resolve Native Call Targets",
        "The targets of the call at an address: direct (encoded), resolved-indirect (angr's CFG found one), "
        "ambiguous (several candidates), unresolved, or not-call; with the references behind each.",
        wa.AddressArgs,
        w.CallTargets,
        _AT,
        _READ,
    ),
)

# written by hand (effects.native.surface_cli): set-comment chooses its tool by --inline, and
# inspect-native-load-image passes --target-format to open_binary
CLI_COMMANDS = ("inspect-native-load-image", "set-comment")

# each opens the binary first (as `rea function` does), then asks at an address
_ADDRESS = Positional(argument="address", help="link-time virtual address (0x...)")


def _at(name: str, help_: str, render: Callable[[Any], str], **more: Any) -> Command:
    return Command(name=name, help=help_, opens=BINARY, positionals=(_ADDRESS,), render=render, **more)


COMMANDS = {
    "read_bytes": _at("read-bytes", "file-backed bytes at an address", text.read_bytes, defaults={"length": 256}),
    "address_to_file_offset": _at("address-to-file-offset", "file offset of an address", text.plain),
    "inspect_native_instruction": _at(
        "inspect-native-instruction", "decode the instruction at an address", text.instruction
    ),
    "resolve_native_call_targets": _at(
        "resolve-native-call-targets", "targets of the call at an address", text.call_targets
    ),
    "comment": _at("comment", "the analyst comment at an address", text.plain),
    "list_bookmarks": Command(
        name="list-bookmarks", help="every bookmark of a binary", opens=BINARY, render=text.plain
    ),
    "annotate_native_function": Command(
        name="annotate-native-function",
        help="rename, comment or type one function",
        opens=BINARY,
        positionals=(Positional(argument="procedure", help="procedure start address (0x...) or exact name"),),
        render=text.annotation,
    ),
}

MACOS_ONLY = (
    "Needs macOS accessibility (and Hopper's Interface Builder metadata): on this host it answers "
    "capability_unavailable (host_unsupported)."
)


def _macos(
    name: str, title: str, description: str, args: type, result: Any, example: Mapping[str, Any]
) -> ToolContract:
    return evidence_tool(
        name,
        title,
        description + " " + MACOS_ONLY,
        args=args,
        result=result,
        surface="official-proxy",
        examples=[dict(example)],
        effects={"mutatesSession", "changesUiState", "executesForeignCode"}
        if name == "capture_native_ui_scenario"
        else {"mutatesSession"},
    )


UI_TOOLS: tuple[ToolContract, ...] = (
    _macos(
        "observe_native_ui",
        "Observe Native UI",
        "A running app's window by pid and window id: bounded accessibility tree and window screenshot.",
        w.UiObservationArgs,
        w.UiObservation,
        {"pid": 123, "window_id": 456},
    ),
    _macos(
        "capture_native_ui_scenario",
        "Capture Native UI Scenario",
        "Click, scroll, key-entry and wait steps in one app window with before/after captures.",
        w.UiScenarioArgs,
        w.UiScenario,
        {"pid": 123, "window_id": 456, "steps": [{"kind": "wait", "milliseconds": 100}]},
    ),
    _macos(
        "trace_native_ui_action",
        "Trace Native UI Action",
        "Interface Builder connections to Objective-C handlers to static callees, with edge kinds and unknowns.",
        w.UiActionArgs,
        w.UiActionGraph,
        {"action": "buttonPressed:"},
    ),
)
TOOLS = (*TOOLS, *UI_TOOLS)

TOOLS = (
    *TOOLS,
    _tool(
        "inspect_native_data_type",
        "Inspect Native Data Type",
        (
            "One DWARF type of the binary (pyelftools), by name or as the type of the global at an address: "
            "kind, size, alignment, fields, bitfields, enum values and referenced types. Without DWARF: "
            "status unavailable with the reason."
        ),
        w.DataTypeArgs,
        w.DataType,
        {"type": "point"},
        _READ,
    ),
)

TOOLS = (
    *TOOLS,
    evidence_tool(
        "inspect_native_load_image",
        "Inspect Native Load Image",
        (
            "Load the open DOS MZ executable (or COM program) as DOS would at segment 0x1000 and verify the "
            "image against the file: source digests, header and module mappings with memory digests, each "
            "relocation applied, the entry point and its registers. Independent checks recompute each fact "
            "from the file and test the header's declared extents, with the file offset of each mismatch; a "
            "lying header gives status mismatch. Nothing is executed or modified."
        ),
        args=wl.LoadImageArgs,
        result=wl.LoadImage,
        surface="official-proxy",
        examples=[{}],
        effects={"mutatesSession", "idempotent"},  # reads the file itself: no engine process
        needs="dos-image",
    ),
)
TOOLS = declared(TOOLS, COMMANDS)
