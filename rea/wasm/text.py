"""`rea inspect-wasm-artifact` as readable text (the command is declared on its catalog row)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def render(value: Mapping[str, Any]) -> str:
    """The inspect-wasm-artifact reply as text: artifact, WAT digest, sections, imports, exports, glue references."""
    r = value.get("normalized_result") or {}
    lines = [f"{value['operation']} {value['evidence_id']}"]
    if "wat" in r and "sections" in r:
        wat = r["wat"]
        lines.append(
            f"  {r['artifact']['path']} {r['artifact']['bytes']} bytes, {r['validation']}, "
            f"WABT {r['tool_profile']['release']}"
        )
        lines.append(
            f"  wat sha256 {wat['sha256']} ({wat['utf16_length']} UTF-16 units, "
            f"{'complete' if wat['complete'] else 'first units inline'})"
        )
        if "module_counts" in r:
            c = r["module_counts"]
            lines.append(
                f"  functions {c['functions']} ({c['imported_functions']} imported, {c['defined_functions']} defined)"
            )
        for p in r["custom_sections"].get("producer_fields", []):
            values = ", ".join(f"{v['name']} {v['version']}".strip() for v in p["values"])
            lines.append(f"  producers {p['name']}: {values}")
        for s in r["sections"]:
            lines.append(f"  section {s['kind']:<10} {s['start']:>8}..{s['end']:<8} {s['description']}")
        lines += [f"  import {line.strip()}" for line in r["imports"]]
        lines += [f"  export {line.strip()}" for line in r["exports"]]
        for g in r["glue"]:
            for ref in g["references"]:
                lines.append(
                    f"  glue {g['artifact']['path']}:{ref['line']}:{ref['column']} {ref['value']!r} "
                    f"{ref['association']} {', '.join(ref['candidate_paths'])}"
                )
    elif r.get("kind") == "summary":
        lines.append(f"  summary of {r['parent_evidence_id']}: {r['summary']['counts']}")
    for text in value.get("limitations", []):
        lines.append(f"  limitation: {text}")
    return "\n".join(lines)
