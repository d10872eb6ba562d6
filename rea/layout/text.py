"""The layout commands' text output (rea.catalog.cli renderers): a layout, Mach-O, signature or crash reply as
readable lines."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# at most this many sections, mapped files or plist keys are printed
TEXT_ROWS = 400
# at most this many dylib load edges (--json has them all)
TEXT_EDGES = 400


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


def layout(value: Mapping[str, Any]) -> str:
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


def architectures(value: Mapping[str, Any]) -> str:
    lines = [f"{value['operation']} {value['evidence_id']}"]
    for row in value["normalized_result"]["architectures"]["items"]:
        lines.append(
            f"  {row['name']:<8} {row['cpu_type']} {row['cpu_subtype']} offset {row['file_offset']} "
            f"size {row['size']} align {row['alignment']}"
        )
    return "\n".join(lines)


def macho(value: Mapping[str, Any]) -> str:
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


def demangled(value: Mapping[str, Any]) -> str:
    rows = value["normalized_result"]["symbols"]
    return "\n".join(
        [f"{value['operation']} {value['evidence_id']}"]
        + [f"  {r['status']:<9} {r['input']} -> {r['output']}" for r in rows]
    )


def signature(value: Mapping[str, Any]) -> str:
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


def recorded_crash(value: Mapping[str, Any]) -> str:
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


def dylib_resolution(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [f"{value['operation']} {value['evidence_id']}", f"  root {r['root_path']} ({r['coverage']['status']})"]
    lines += [f"  process {x['image']} ({x['architecture']})" for x in r["roots"]]
    for edge in r["edges"][:TEXT_EDGES]:
        reached = edge["resolution"]["image"] or "-"
        lines.append(
            f"  {edge['loader']} {edge['command']} {edge['install_name']} -> {edge['resolution']['status']} {reached}"
        )
    if len(r["edges"]) > TEXT_EDGES:
        lines.append(f"  ... {len(r['edges']) - TEXT_EDGES} more edges (--json for all)")
    lines += [f"  finding {f['kind']}: {f['explanation']}" for f in r["findings"]]
    return "\n".join(lines)
