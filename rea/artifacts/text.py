"""The artifact commands' text output (rea.catalog.cli renderers): an Evidence reply as readable lines."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson


def evidence(value: Mapping[str, Any]) -> str:
    """inspect/inventory/extract/compare Evidence: its manifest and members, changes, output files, limitations."""
    result = value.get("normalized_result") or {}
    lines = [f"{value['operation']} {value['evidence_id']}"]
    inv = _inventory_of(result) if isinstance(result, dict) else {}
    manifest = inv.get("manifest") if isinstance(inv, dict) else None
    if manifest:
        cov = inv.get("coverage") or manifest.get("coverage") or {}  # an extraction's manifest carries its own
        lines.append(f"  manifest {manifest['manifest_id']}  root {manifest['root_format']} {manifest['root_sha256']}")
        lines.append(
            f"  {manifest['node_count']} nodes, {manifest['occurrence_count']} occurrences, "
            f"{manifest['edge_count']} edges, {manifest['integrity_contradiction_count']} contradictions; "
            f"coverage {cov.get('scope', '?')}/{cov.get('status', '?')}"
        )
        for occ in (inv.get("occurrences") or {}).get("items", [])[:200]:
            lines.append(f"  {occ['entry_kind']:<9} {occ['hash_status']:<16} {occ['logical_path']}")
    if "status" in result and "changes" in result:
        lines.append(f"  status {result['status']}  summary {orjson.dumps(result['summary']).decode()}")
        for change in result["changes"]:
            lines.append(f"  {change['classification']:<13} {change['logical_path']} {','.join(change['dimensions'])}")
    if "output_root" in result:
        lines.append(f"  output_root {result['output_root']}")
        for f in result["artifacts"]:
            lines.append(f"  {f['sha256']}  {f['relative_path']}")
    for text in value.get("limitations", []):
        lines.append(f"  limitation: {text}")
    return "\n".join(lines)


def _inventory_of(result: Mapping[str, Any]) -> Any:
    """The inventory an inspection carries in substeps[0].evidence, or the result itself."""
    substeps = result.get("substeps")
    return substeps[0]["evidence"]["normalized_result"] if substeps else result
