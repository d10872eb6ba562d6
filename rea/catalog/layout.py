"""Contracts of the binary layout family (inspect_binary_layout; views: rea.catalog.views)."""

from __future__ import annotations

import attrs

from rea.catalog.schemas import evidence_output
from rea.catalog.views import VIEW_RESULT_SCHEMA
from rea.wire.layout import (
    Architectures,
    ArchitecturesArgs,
    BinaryLayout,
    DemangleArgs,
    DemangleResult,
    LayoutArgs,
    MachoArgs,
    MachoInspection,
    Signature,
    SignatureArgs,
)
from rea.wire.dylib import DylibArgs, DylibResolution
from rea.wire.crash import RecordedCrash, RecordedCrashArgs
from rea.wire.plist import PlistArgs, PlistResult
from rea.wire.schema import schema_of
from rea.wire.tool import evidence_tool

INSPECT_BINARY_LAYOUT = evidence_tool(
    "inspect_binary_layout",
    "Inspect Binary Layout",
    (
        "Read the file layout of a local ELF (any machine), PE/PE32+ or Mach-O (thin, or one slice of a universal "
        "binary chosen by architecture) without a disassembler: sections, segments, symbols, ELF REL/RELA/RELR "
        "relocations with their owners, PE base relocations and Mach-O fixups, needed libraries, interpreter and "
        "rpaths, the entry point with its meaning, linkage (GOT/PLT, IAT slots) and inferred mitigations (NX, "
        "PIE/ASLR, RELRO, canary and FORTIFY evidence, CET/BTI, DllCharacteristics and CFG, Mach-O PIE and "
        "hardened runtime). Numbers are 0x hex strings; names keep their bytes and file locations. detail: summary "
        "retains the complete Evidence and returns its summary view (parent_evidence_id); then read facets, "
        "sections and symbols with inspect_analysis_view."
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
        "After open_binary on a Mach-O file, list its architectures: every slice of a universal binary (name as "
        "lipo gives it, CPU type and subtype, file offset, size, alignment) from a checked universal header (slices "
        "inside the file, not overlapping), or the one image of a thin file. Works on any host; no Mac needed."
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
        "After open_binary on a Mach-O file (thin, or a universal binary with architecture naming the slice), "
        "read it with lief on any host: header (endian, word size, file type, flags, UUID), entry points, "
        "architectures, build metadata (platform, minimum OS, SDK, tools), every load command, dependencies with "
        "versions, imports (binding dylib), exports (address, weak, re-export source) and segments with sections. "
        "Each collection carries its total and exhaustive flag. Frameworks hold megabytes of symbols: select "
        'detail: "summary" first, then page facets with inspect_analysis_view {kind: macho}.'
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
        "Demangle Swift symbols with the host's swift-demangle (a Swift toolchain on PATH): each input with its "
        "output and status (demangled, unchanged, invalid) and the command's provenance. Without swift-demangle "
        "the call fails with capability_unavailable and the install step; nothing is guessed."
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
        "After open_binary on a Mach-O file, read its embedded code signature on any host: whether it is signed, "
        "identifier and team identifier, every CodeDirectory with its hash type and cdhash, hardened runtime "
        "(CS_RUNTIME), XML entitlements, signing authorities and signing time from the CMS blob. Unsigned images "
        "say so; lying blob lengths end the reading with a limitation. Requirements are not decompiled."
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
        "Read a Linux x86-64 ELF core file (as the kernel or gdb's gcore writes it) without running the crashed "
        "program or attaching to any process: every program header, every note with its raw owner and descriptor "
        "bytes and where they sit, each thread's amd64 registers (NT_PRSTATUS), the signal and faulting address "
        "(NT_SIGINFO), the recorded process and command line (NT_PRPSINFO) and its mapped files (NT_FILE). Recorded "
        "pids are history: the live process is unknown. include_debugger_context adds Debian gdb's core-only view "
        "(mapping candidates, frames). A truncated core says which segments are cut."
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
        "Read a property list on any host: relative_path inside the open bundle directory (open_binary on the "
        ".app, .framework or bundle; default Contents/Info.plist), or path (ours) naming a plist file. XML, binary "
        "(bplist00) and JSON plists become JSON (data, dates, UIDs and big integers as tagged objects), with the "
        "bundle's CFBundle identifier, executable, name and versions. Entity declarations are refused; a plist "
        "that unfolds past max_nodes or max_depth is cut where it stopped, and says so."
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
        "After open_binary on a Mach-O file or a .app / bundle directory, answer on any host which file each "
        "LC_LOAD_DYLIB, weak, re-export, lazy and upward load reaches, per process root (the open Mach-O, or every "
        "executable in the bundle) and slice: @rpath through the LC_RPATH entries of the loader and then up its "
        "load chain, @loader_path, @executable_path, with every candidate tried and its outcome, symlinks "
        "followed inside the root. Unresolved loads are kept and named in findings with absent earlier rpath "
        "candidates; absolute system paths stay outside-target (no dyld shared cache is read)."
    ),
    args=DylibArgs,
    result=DylibResolution,
    examples=[{}, {"architecture": "arm64"}, {"roots": ["Contents/MacOS/App"]}],
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent"},
    needs="target",
)

CLI_COMMANDS = (
    "trace-dylib-resolution",
    "demangle-swift",
    "inspect-binary-layout",
    "inspect-macho",
    "inspect-plist",
    "inspect-recorded-crash",
    "inspect-signature",
    "list-architectures",
)
TOOLS = (
    INSPECT_BINARY_LAYOUT,
    LIST_ARCHITECTURES,
    INSPECT_MACHO,
    DEMANGLE_SWIFT,
    INSPECT_SIGNATURE,
    INSPECT_RECORDED_CRASH,
    INSPECT_PLIST,
    TRACE_DYLIB_RESOLUTION,
)
