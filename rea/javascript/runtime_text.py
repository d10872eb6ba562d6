"""The JavaScript runtime commands' readable text: pure functions from a reply to text (each command is declared on
its catalog row, rea.javascript.contract.runtime)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _location(loc: Mapping[str, Any]) -> str:
    return str(loc.get("file_path") or loc.get("sanitized_url") or loc.get("specifier") or loc.get("reported_url"))


def recovery(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [
        f"{r['source']['path']} -> {r['output_directory']} ({r['status']}, {r['total']} modules, "
        f"{r['failed']} failed; {r['reported_strategy']})"
    ]
    for m in r["modules"]:
        ranges = ", ".join(f"{b['start']}..{b['end']}" for b in m["provenance"]["byte_ranges"][:3])
        lines.append(
            f"  {m['reported_status']:<9} {m['reported_filename']}  [{m['provenance']['extraction']}] {ranges}"
        )
    for w in r["warnings"]:
        lines.append(f"  {'error' if w['is_error'] else 'warning'} {w['kind']}: {w['filename']}: {w['message']}")
    if r["analysis_input"]:
        lines.append(f"  analyze next: rea analyze-javascript-application {r['analysis_input']['input_path']}")
    lines.append(f"  evidence: {value['evidence_id']}")
    return "\n".join(lines)


def runtime_targets(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [f"{r['runtime']['product']} (protocol {r['runtime']['protocol_version']}), {r['total']} targets"]
    for t in r["targets"]:
        lines.append(f"  {t['target_id']}  {t['protocol_type']}  {_location(t['location'])}")
    lines.append(f"  evidence: {value['evidence_id']}")
    return "\n".join(lines)


def runtime_observation(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    c = r["capture"]
    lines = [
        f"{r['runtime']['product']} target {r['target']['target_id']}: {c['status']}"
        f"{' (runtime exited)' if c['runtime_exited'] else ''}, {len(r['scripts']['items'])} scripts, "
        f"{len(r['execution_contexts'])} contexts in {c['elapsed_ms']} ms"
    ]
    lines += [f"  module {path}" for path in r["modules_loaded"]]
    lines += [f"  console.{e['level']}: {e['text']}" for e in r["console"]]
    lines += [f"  exception: {e['text']}" for e in r["exceptions"]]
    lines += [f"  unknown: {u}" for u in r["unknowns"]]
    lines.append(f"  evidence: {value['evidence_id']}")
    return "\n".join(lines)


def electron_targets(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [f"{r['browser']['product']}: {len(r['targets'])} file pages, excluded {r['excluded']}"]
    lines += [f"  {t['target_id']}  {t['file_path']}  {t['title']!r}" for t in r["targets"]]
    lines.append(f"  evidence: {value['evidence_id']}")
    return "\n".join(lines)


def electron_page(value: Mapping[str, Any]) -> str:
    r = value["normalized_result"]
    lines = [
        f"{r['target']['file_path']} ({r['completeness']['status']}): {len(r['frames'])} frames, "
        f"{r['dom']['total_nodes']} DOM nodes, {r['scripts']['total']} scripts, {len(r['resources'])} resources"
    ]
    lines += [f"  script {s['file_path']} ({s['length']} chars)" for s in r["scripts"]["items"]]
    lines += [f"  resource {x['type']} {x['file_path']}" for x in r["resources"]]
    lines.append(f"  evidence: {value['evidence_id']}")
    return "\n".join(lines)
