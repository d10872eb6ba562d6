"""The managed inspection commands' text output (rea.catalog.cli renderers): an inspection or its summary view as
readable lines."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _count(value: Any) -> str:
    return str(len(value)) if isinstance(value, list) else "-"


def summary(value: Mapping[str, Any]) -> str:
    """A managed summary view: identity, then each listing's total and whether the parent holds all of it."""
    r = value["normalized_result"]
    s = r["summary"]
    lines = [f"{s['operation']} summary {value['evidence_id']} of {r['parent_evidence_id']}",
             f"  {s['artifact']['path']} sha256 {s['artifact']['sha256']}"]  # fmt: skip
    if s["assembly"]:
        lines.append(f"  assembly {s['assembly']['name']} {s['assembly']['version']}")
    if s["classification"]:
        k = s["classification"]
        lines.append(f"  {k['status']} {k['runtime_family']} {k['implementation']} {k['managed_architecture']}")
    for facet, listing in s["listings"].items():
        whole = "" if listing["source_exhaustive"] else " (a page of the listing)"
        lines.append(f"  {facet} {listing['total']}{whole}")
    lines.append(f"  coverage {s['coverage']['state']} issues {s['coverage']['issue_count']}")
    lines.append(f"  page a listing: inspect-analysis-view with parent {r['parent_evidence_id']} and view kind managed")
    return "\n".join(lines)


def inspection(value: Mapping[str, Any]) -> str:
    """Headline facts of any managed result, then its listings' sizes, issues and limitations."""
    r = value["normalized_result"]
    if value["operation"] == "inspect_analysis_view":
        return summary(value)
    lines = [
        f"{value['operation']} {value['evidence_id']}",
        f"  {r['artifact']['path']} sha256 {r['artifact']['sha256']}",
    ]
    if r.get("assembly"):
        a = r["assembly"]
        lines.append(f"  assembly {a['name']} {a['version']} token {a['public_key']['token'] or 'none'}")
    if r.get("module"):
        lines.append(f"  module {r['module']['name']} mvid {r['module']['mvid']}")
    if r.get("classification"):
        k = r["classification"]
        lines.append(f"  {k['status']} {k['runtime_family']} {k['implementation']} {k['managed_architecture']}")
    if r.get("portable_pdb"):
        p = r["portable_pdb"]
        lines.append(f"  portable pdb {p['path']} {p['status']} {p['matches_assembly']} documents "
                     f"{len(p['documents'])} method debug rows {p['method_debug_information']['rows']}")  # fmt: skip
    listed = [key for key, item in r.items() if isinstance(item, list) and key not in ("limitations",)]
    lines.append("  " + ", ".join(f"{key} {_count(r[key])}" for key in listed))
    lines.append(f"  coverage {r['coverage']['state']}")
    for issue in r["coverage"]["issues"][:50]:
        lines.append(f"  issue {issue['code']} {issue['scope']}: {issue['detail']}")
    for text in value.get("limitations", []):
        lines.append(f"  limitation: {text}")
    return "\n".join(lines)
