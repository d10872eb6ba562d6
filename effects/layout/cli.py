"""`rea inspect-binary-layout PATH`: the layout tool on one connection, JSON or readable text."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any
from collections.abc import Mapping, Sequence

from effects.commands import ToolCommand, given

TEXT_ROWS = 400


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="ELF, PE/PE32+ or Mach-O file")
    parser.add_argument("--architecture", default=None, help="slice of a universal Mach-O (x86_64, arm64, ...)")
    parser.add_argument("--detail", choices=("complete", "summary"), default=None)
    parser.add_argument("--max-symbols", type=int, default=None)
    parser.add_argument("--max-relocations", type=int, default=None)


def _steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    args = {"path": os.path.abspath(ns.path), **given(ns, "architecture", "detail", "max_symbols", "max_relocations")}
    return [("inspect_binary_layout", args)]


def _mitigation_line(m: Mapping[str, Any]) -> str:
    parts = [
        f"pie={m['position_independent']}",
        f"nx={m['nx_indicator']}",
        f"relro={m['relro']}",
        f"canary={m['stack_canary_indicator']}",
        f"fortify={len(m['fortify_symbols'])}",
    ]
    if m["cet"]:
        parts.append(f"ibt={m['cet']['ibt']} shstk={m['cet']['shstk']}")
    if m["pe"]:
        parts.append("dll=" + ",".join(f.removeprefix("IMAGE_DLLCHARACTERISTICS_") for f in m["pe"]["flags"]))
        parts.append(f"cfg={m['pe']['control_flow_guard']}")
    if m["macho"]:
        parts.append(f"hardened_runtime={m['macho']['hardened_runtime']}")
    return "  mitigations " + " ".join(parts)


def _layout_lines(r: Mapping[str, Any]) -> list[str]:
    arch = r["architecture"]
    entry = r["entry_point"]
    lines = [
        f"  {r['format']} {arch['machine']} {arch['bits']}-bit {arch['byte_order']} {r['image_type']}"
        + (f" slice {r['slice']}" if r["slice"] else ""),
        f"  entry {entry['reported_value']} ({entry['meaning']})",
        f"  {len(r['sections'])} sections, {len(r['segments'])} segments, {len(r['symbols'])} symbols, "
        f"{len(r['relocations'])} relocations, {len(r['image_relocations'])} image relocations",
        _mitigation_line(r["mitigations"]),
    ]
    link = r["linkage"]
    for lib in link["needed_libraries"]:
        lines.append(f"  needs {lib['display']}")
    for interp in link["interpreters"]:
        lines.append(f"  interpreter {interp['display']}")
    for path in link["library_search_paths"]:
        lines.append(f"  search path {path}")
    for s in r["sections"][:TEXT_ROWS]:
        lines.append(f"  [{s['index']:>3}] {s['name']['display']:<24} {s['type']!s:<18} {s['address']:>18} {s['size']}")
    return lines


def _render(value: Mapping[str, Any]) -> str:
    result = value.get("normalized_result") or {}
    lines = [f"{value['operation']} {value['evidence_id']}"]
    if "sections" in result:
        lines += _layout_lines(result)
    elif result.get("kind") == "summary":
        s = result["summary"]
        lines.append(f"  summary of {result['parent_evidence_id']}: {s['format']} {s['image_type']} {s['counts']}")
    for text in value.get("limitations", []):
        lines.append(f"  limitation: {text}")
    return "\n".join(lines)


def _configure_list(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="Mach-O file (thin or universal)")


def _list_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    return [("open_binary", {"path": os.path.abspath(ns.path)}), ("list_architectures", {})]


def _render_list(value: Mapping[str, Any]) -> str:
    lines = [f"{value['operation']} {value['evidence_id']}"]
    for row in value["normalized_result"]["architectures"]["items"]:
        lines.append(
            f"  {row['name']:<8} {row['cpu_type']} {row['cpu_subtype']} offset {row['file_offset']} "
            f"size {row['size']} align {row['alignment']}"
        )
    return "\n".join(lines)


def _configure_macho(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="Mach-O file (thin or universal)")
    parser.add_argument("--architecture", default=None, help="slice of a universal file (x86_64, arm64, ...)")
    parser.add_argument("--detail", choices=("complete", "summary"), default=None)
    parser.add_argument("--max-symbols", type=int, default=None)


def _macho_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    args = given(ns, "architecture", "detail", "max_symbols")
    return [("open_binary", {"path": os.path.abspath(ns.path)}), ("inspect_macho", args)]


def _render_macho(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [f"{value['operation']} {value['evidence_id']}"]
    if r.get("kind") == "summary":
        s = r["summary"]
        lines.append(
            f"  summary of {r['parent_evidence_id']}: {s['file_type']} {s['slice'] or 'thin'} uuid {s['uuid']}"
        )
        for key, c in s["collections"].items():
            lines.append(f"  {key:<15} {c['returned']}/{c['total']}{'' if c['exhaustive'] else ' (not exhaustive)'}")
        return "\n".join(lines)
    lines.append(f"  {r['file_type']} {r['word_size']}-bit {r['endian']} uuid {r['uuid']} slice {r['slice'] or 'thin'}")
    lines.append("  flags " + " ".join(r["flags"]))
    for d in r["dependencies"]["items"]:
        lines.append(f"  {d['kind']:<8} {d['path']} {d['current_version']} (compat {d['compatibility_version']})")
    for b in r["build_metadata"]["items"]:
        lines.append(f"  build {b['platform']} min {b['minimum_os']} sdk {b['sdk']}")
    for seg in r["segments"]["items"]:
        lines.append(f"  segment {seg['name']:<16} {seg['vm_address']} {seg['initial_permissions']['raw']}")
    lines.append(
        f"  {r['imports']['total']} imports, {r['exports']['total']} exports, {r['load_commands']['total']} load commands"
    )
    return "\n".join(lines)


def _configure_demangle(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("symbols", nargs="+", help="mangled Swift symbols")


def _demangle_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    return [("demangle_swift", {"symbols": list(ns.symbols)})]


def _render_demangle(value: Mapping[str, Any]) -> str:
    rows = value["normalized_result"]["symbols"]
    return "\n".join(
        [f"{value['operation']} {value['evidence_id']}"]
        + [f"  {r['status']:<9} {r['input']} -> {r['output']}" for r in rows]
    )


def _configure_signature(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="Mach-O file (thin or universal)")
    parser.add_argument("--architecture", default=None, help="slice of a universal file")


def _signature_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    args = {"architecture": ns.architecture} if ns.architecture else {}
    return [("open_binary", {"path": os.path.abspath(ns.path)}), ("inspect_signature", args)]


def _render_signature(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [f"{value['operation']} {value['evidence_id']}", f"  signed={r['signed']} format={r['format']}"]
    lines.append(f"  identifier={r['identifier']} team={r['team_identifier']} hardened_runtime={r['hardened_runtime']}")
    for cd in r["code_directories"]:
        lines.append(f"  CodeDirectory slot 0x{cd['slot']:x} {cd['hash_type']} cdhash {cd['cdhash']}")
    lines += [f"  Authority={a}" for a in r["authorities"]]
    if r["timestamp"]:
        lines.append(f"  Timestamp={r['timestamp']}")
    lines += [f"  limitation: {t}" for t in r["limitations"]]
    return "\n".join(lines)


COMMANDS: tuple[ToolCommand, ...] = (
    ToolCommand(
        name="inspect-signature",
        help="the embedded code signature of a Mach-O (inspect_signature)",
        configure=_configure_signature,
        steps=_signature_steps,
        render=_render_signature,
    ),
    ToolCommand(
        name="demangle-swift",
        help="demangle Swift symbols with the host's swift-demangle",
        configure=_configure_demangle,
        steps=_demangle_steps,
        render=_render_demangle,
    ),
    ToolCommand(
        name="inspect-macho",
        help="header, load commands, dependencies, symbols and segments of a Mach-O (inspect_macho)",
        configure=_configure_macho,
        steps=_macho_steps,
        render=_render_macho,
    ),
    ToolCommand(
        name="list-architectures",
        help="the slices of a universal Mach-O (or the one image of a thin file)",
        configure=_configure_list,
        steps=_list_steps,
        render=_render_list,
    ),
    ToolCommand(
        name="inspect-binary-layout",
        help="sections, segments, symbols, relocations, linkage and mitigations of an ELF, PE or Mach-O",
        configure=_configure,
        steps=_steps,
        render=_render,
    ),
)


def _configure_crash(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="Linux x86-64 ELF core file")
    parser.add_argument("--include-debugger-context", action="store_true", help="add gdb's core-only view")


def _crash_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    args = {"path": os.path.abspath(ns.path), "include_debugger_context": ns.include_debugger_context}
    return [("inspect_recorded_crash", args)]


def _render_crash(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [f"{value['operation']} {value['evidence_id']}"]
    process = r["process"]
    if process:
        lines.append(f"  process {process['historical_pid']} {process['command']!r}: {process['arguments']}")
    for s in r["signals"]:
        where = f" at {s['fault_address']}" if s["fault_address"] else ""
        lines.append(f"  signal {s['number']} code {s['code']}{where}")
    for t in r["threads"]:
        regs = {x["name"]: x["value"] for x in t["registers"]}
        lines.append(f"  thread {t['historical_pid']} rip={regs['rip']} rsp={regs['rsp']} rbp={regs['rbp']}")
    lines.append(f"  {len(r['segments'])} segments, {len(r['notes'])} notes, {len(r['mapped_files'])} mapped files")
    for m in r["mapped_files"][:TEXT_ROWS]:
        lines.append(f"  {m['start']}-{m['end']} {m['file_offset']:>10} {m['path']}")
    debugger = r["debugger"]
    if debugger["status"] == "available":
        lines += [f"  gdb {frame}" for frame in debugger["frames"]]
    elif debugger["status"] == "unavailable":
        lines.append(f"  gdb unavailable: {debugger['reason']}")
    lines += [f"  limitation: {t}" for t in r["limitations"]]
    return "\n".join(lines)


COMMANDS = (
    *COMMANDS,
    ToolCommand(
        name="inspect-recorded-crash",
        help="segments, notes, registers, signal and mapped files of a Linux x86-64 core (inspect_recorded_crash)",
        configure=_configure_crash,
        steps=_crash_steps,
        render=_render_crash,
    ),
)


def _configure_plist(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="a plist file, or a bundle directory with --relative-path")
    parser.add_argument(
        "--relative-path", default=None, help="the plist inside the bundle (default Contents/Info.plist)"
    )


def _plist_steps(ns: argparse.Namespace) -> Sequence[tuple[str, Mapping[str, Any]]]:
    path = os.path.abspath(ns.path)
    if os.path.isdir(path):
        args = {"relative_path": ns.relative_path} if ns.relative_path else {}
        return [("open_binary", {"path": path}), ("inspect_plist", args)]
    return [("inspect_plist", {"path": path})]


def _render_plist(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    b = r["bundle"]
    lines = [f"{value['operation']} {value['evidence_id']}", f"  {r['format']} plist {r['source_path']}"]
    lines.append(
        f"  bundle {b['identifier']} executable={b['executable']} version={b['short_version']} ({b['version']})"
    )
    if isinstance(r["value"], dict):
        lines += [f"  {k}: {json.dumps(v)[:100]}" for k, v in list(r["value"].items())[:TEXT_ROWS]]
    lines += [f"  limitation: {t}" for t in r["limitations"]]
    return "\n".join(lines)


COMMANDS = (
    *COMMANDS,
    ToolCommand(
        name="inspect-plist",
        help="an XML, binary or JSON property list as JSON, with the bundle identity (inspect_plist)",
        configure=_configure_plist,
        steps=_plist_steps,
        render=_render_plist,
    ),
)
