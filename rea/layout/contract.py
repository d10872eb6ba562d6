"""Contracts of the binary layout family (inspect_binary_layout; views: rea.views.contract)."""

from __future__ import annotations

import attrs

from rea.catalog.cli import Alias, Command, Opens, Positional, declared
from rea.catalog.schemas import evidence_output
from rea.layout import text
from rea.layout.crash_records import RecordedCrash, RecordedCrashArgs
from rea.layout.dylib_records import DylibArgs, DylibResolution
from rea.layout.macho_records import (
    Architectures,
    ArchitecturesArgs,
    DemangleArgs,
    DemangleResult,
    MachoArgs,
    MachoInspection,
    Signature,
    SignatureArgs,
)
from rea.layout.plist_records import PlistArgs, PlistResult
from rea.layout.records import BinaryLayout, LayoutArgs
from rea.views.contract import VIEW_RESULT_SCHEMA
from rea.wire.schema import schema_of
from rea.wire.tool import evidence_tool

INSPECT_BINARY_LAYOUT = evidence_tool(
    "inspect_binary_layout",
    "Inspect Binary Layout",
    (
        "Read the file layout of a local ELF, PE/PE32+ or Mach-O (thin, or the slice architecture names) "
        "without a disassembler: sections, segments, symbols, relocations and fixups, needed libraries, "
        "interpreter and rpaths, entry point, linkage (GOT/PLT, IAT) and inferred mitigations (NX, "
        "PIE/ASLR, RELRO, canary, FORTIFY, CET/BTI, CFG, hardened runtime). Numbers are 0x hex strings. "
        "detail: summary retains the complete Evidence and returns its summary (parent_evidence_id); read "
        "facets, sections and symbols with inspect_analysis_view."
    ),
    args=LayoutArgs,
    result=BinaryLayout,
    examples=[{"path": "/usr/bin/true"}, {"path": "/usr/bin/true", "detail": "summary"}],
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent"},
)
# detail: summary answers with the summary view Evidence of inspect_analysis_view instead
INSPECT_BINARY_LAYOUT = attrs.evolve(
    INSPECT_BINARY_LAYOUT,
    output_schema=evidence_output({"anyOf": [schema_of(BinaryLayout), VIEW_RESULT_SCHEMA]}),
)

LIST_ARCHITECTURES = evidence_tool(
    "list_architectures",
    "List Architectures",
    (
        "After open_binary on a Mach-O file, list its architectures on any host: every slice of a "
        "universal binary (lipo name, CPU type and subtype, file offset, size, alignment) from a checked "
        "universal header, or the one image of a thin file."
    ),
    args=ArchitecturesArgs,
    result=Architectures,
    examples=[{}],
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent"},
    needs="target",
)

INSPECT_MACHO = evidence_tool(
    "inspect_macho",
    "Inspect Mach-O",
    (
        "After open_binary on a Mach-O file (thin, or the universal slice architecture names), read it "
        "with lief on any host: header, UUID, entry points, build metadata (platform, minimum OS, SDK), "
        "load commands, dependencies with versions, imports with their dylib, exports and segments with "
        "sections, each collection with its total. Frameworks hold megabytes of symbols: pass detail: "
        '"summary" first, then page facets with inspect_analysis_view {kind: macho}.'
    ),
    args=MachoArgs,
    result=MachoInspection,
    examples=[{}, {"detail": "summary"}, {"architecture": "arm64", "detail": "summary"}],
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent"},
    needs="target",
)
INSPECT_MACHO = attrs.evolve(
    INSPECT_MACHO, output_schema=evidence_output({"anyOf": [schema_of(MachoInspection), VIEW_RESULT_SCHEMA]})
)

DEMANGLE_SWIFT = evidence_tool(
    "demangle_swift",
    "Demangle Swift",
    (
        "Demangle Swift symbols with the host's swift-demangle: each input with its output and status "
        "(demangled, unchanged, invalid). Without swift-demangle: capability_unavailable with the install "
        "step; nothing is guessed."
    ),
    args=DemangleArgs,
    result=DemangleResult,
    examples=[{"symbols": ["$s4Test3fooyyF"]}],
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent", "launchesProcess"},
)

INSPECT_SIGNATURE = evidence_tool(
    "inspect_signature",
    "Inspect Signature",
    (
        "After open_binary on a Mach-O file, read its embedded code signature on any host: signed or not, "
        "identifier and team, each CodeDirectory with hash type and cdhash, hardened runtime, XML "
        "entitlements, signing authorities and time. Lying blob lengths end the reading with a "
        "limitation; requirements are not decompiled."
    ),
    args=SignatureArgs,
    result=Signature,
    examples=[{}],
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent"},
    needs="target",
)

INSPECT_RECORDED_CRASH = evidence_tool(
    "inspect_recorded_crash",
    "Inspect Recorded Crash",
    (
        "Read a Linux x86-64 ELF core file without running or attaching to anything: program headers, "
        "notes with their raw bytes and locations, each thread's registers (NT_PRSTATUS), signal and "
        "faulting address (NT_SIGINFO), process and command line (NT_PRPSINFO) and mapped files "
        "(NT_FILE). Recorded pids are history. include_debugger_context adds gdb's core-only view "
        "(mapping candidates, frames). A truncated core names the cut segments."
    ),
    args=RecordedCrashArgs,
    result=RecordedCrash,
    examples=[{"path": "/artifacts/crash.core"}, {"path": "/artifacts/crash.core", "include_debugger_context": True}],
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent", "launchesProcess"},  # gdb, only with include_debugger_context
)

INSPECT_PLIST = evidence_tool(
    "inspect_plist",
    "Inspect Property List",
    (
        "Read a property list on any host: relative_path inside the open bundle directory (default "
        "Contents/Info.plist), or path naming a plist file. XML, binary and JSON plists become JSON "
        "(data, dates, UIDs and big integers tagged), with the bundle's identifier, executable, name and "
        "versions. Entity declarations are refused; a plist past max_nodes or max_depth is cut and says "
        "so."
    ),
    args=PlistArgs,
    result=PlistResult,
    examples=[{"relative_path": "Contents/Info.plist"}, {"path": "/artifacts/Info.plist"}],
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent"},
)

TRACE_DYLIB_RESOLUTION = evidence_tool(
    "trace_dylib_resolution",
    "Trace Dylib Resolution",
    (
        "After open_binary on a Mach-O file or a .app or bundle directory, resolve on any host which file "
        "each LC_LOAD_DYLIB (weak, re-export, lazy, upward) reaches per process root and slice: @rpath "
        "through the loader's LC_RPATH entries and up its load chain, @loader_path, @executable_path, "
        "each candidate tried with its outcome. Unresolved loads are named in findings; absolute system "
        "paths stay outside-target (no dyld shared cache is read)."
    ),
    args=DylibArgs,
    result=DylibResolution,
    examples=[{}, {"architecture": "arm64"}, {"roots": ["Contents/MacOS/App"]}],
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent"},
    needs="target",
)

# written by hand (effects.layout.cli): `rea inspect-plist` opens a bundle directory first but reads a plist file
# directly; `rea inspect-signature` leaves out an empty --architecture (the schema refuses "")
CLI_COMMANDS = ("inspect-plist", "inspect-signature")

_MACHO = Opens(help="Mach-O file (thin or universal)")
COMMANDS = {
    "inspect_binary_layout": Command(
        name="inspect-binary-layout",
        help="sections, segments, symbols, relocations, linkage and mitigations of an ELF, PE or Mach-O",
        positionals=(Positional(argument="path", help="ELF, PE/PE32+ or Mach-O file"),),
        render=text.layout,
    ),
    "list_architectures": Command(
        name="list-architectures",
        help="the slices of a universal Mach-O (or the one image of a thin file)",
        opens=_MACHO,
        render=text.architectures,
    ),
    "inspect_macho": Command(
        name="inspect-macho",
        help="header, load commands, dependencies, symbols and segments of a Mach-O (inspect_macho)",
        opens=_MACHO,
        render=text.macho,
    ),
    "demangle_swift": Command(
        name="demangle-swift",
        help="demangle Swift symbols with the host's swift-demangle",
        positionals=(Positional(argument="symbols", many=True, at_least_one=True, help="mangled Swift symbols"),),
        render=text.demangled,
    ),
    "inspect_recorded_crash": Command(
        name="inspect-recorded-crash",
        help="segments, notes, registers, signal and mapped files of a Linux x86-64 core (inspect_recorded_crash)",
        positionals=(Positional(argument="path", help="Linux x86-64 ELF core file"),),
        # the hand-written command always sent it
        defaults={"include_debugger_context": False},
        render=text.recorded_crash,
    ),
    "trace_dylib_resolution": Command(
        name="trace-dylib-resolution",
        help="which file each Mach-O dylib load reaches (@rpath, @loader_path, @executable_path)",
        opens=Opens(help="a Mach-O file, or a .app / bundle directory"),
        aliases=(Alias(option="--root", argument="roots", repeat=True, help="a process root (repeatable)"),),
        render=text.dylib_resolution,
    ),
}
TOOLS = declared(
    (
        INSPECT_BINARY_LAYOUT,
        LIST_ARCHITECTURES,
        INSPECT_MACHO,
        DEMANGLE_SWIFT,
        INSPECT_SIGNATURE,
        INSPECT_RECORDED_CRASH,
        INSPECT_PLIST,
        TRACE_DYLIB_RESOLUTION,
    ),
    COMMANDS,
)
