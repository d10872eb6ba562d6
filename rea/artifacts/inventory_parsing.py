"""Inventory Evidence read back strictly: a payload normalized (legacy coverage_status to scoped coverage),
its conflicts refused, and the pages of one inventory merged into the whole before it is compared.

Why apart from rea.artifacts.graph: building a graph and trusting one handed back are different jobs, and the
second takes any JSON a caller supplies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from returns.result import Failure, Result, Success

from rea.artifacts.graph import _LEGACY_ROOT_NOTICES, coverage_status_of
from rea.artifacts.model import COVERAGE_SCOPES, COVERAGE_STATUSES, LEGACY_STATUSES, SECTIONS
from rea.errors import ReaError


def _reject(message: str, **details: Any) -> ReaError:
    return ReaError(
        code="evidence_integrity_mismatch",
        message=f"Artifact inventory rejected: {message}",
        details=details or None,
        action="Pass inventory_artifact or inspect_artifact Evidence exactly as REA produced it.",
    )


def _legacy_scope(limitations: Sequence[Any]) -> str:
    for text in limitations:
        if isinstance(text, str) and any(n in text.lower() for n in _LEGACY_ROOT_NOTICES):
            return "root"
    return "container-entries"


def parse_inventory(result: Any) -> Result[dict[str, Any], ReaError]:
    """Normalize an inventory payload: scoped coverage from legacy coverage_status, conflicts rejected."""
    if not isinstance(result, dict):
        return Failure(_reject("the normalized_result is not an object"))
    missing = [k for k in ("manifest", "nodes", "occurrences", "edges") if k not in result]
    if missing:
        return Failure(_reject(f"missing {', '.join(missing)}", missing=missing))
    manifest = result["manifest"]
    if not isinstance(manifest, dict) or not str(manifest.get("manifest_id", "")).startswith("agm_"):
        return Failure(_reject("the manifest has no agm_ manifest_id", field="manifest"))
    for section in SECTIONS:
        value = result.get(section, {"items": [], "offset": 0, "limit": 1, "total": 0, "next_offset": None})
        if isinstance(value, list):  # historical inline array (integrity_contradictions)
            continue
        if (
            not isinstance(value, dict)
            or not isinstance(value.get("items"), list)
            or not isinstance(value.get("total"), int)
        ):
            return Failure(_reject(f"{section} is not a page with items and total", field=section))
    coverage = result.get("coverage")
    legacy = result.get("coverage_status")
    if legacy is not None and legacy not in LEGACY_STATUSES:
        return Failure(_reject(f"coverage_status {legacy!r} is not complete or partial", field="coverage_status"))
    if coverage is None:
        if legacy is None:
            legacy = "partial"  # typed records never derive completeness from silence
        coverage = {
            "scope": _legacy_scope(result.get("limitations", [])),
            "status": "complete" if legacy == "complete" else "unknown",
        }
    else:
        if (
            not isinstance(coverage, dict)
            or set(coverage) != {"scope", "status"}
            or coverage["scope"] not in COVERAGE_SCOPES
            or coverage["status"] not in COVERAGE_STATUSES
        ):
            return Failure(
                _reject("coverage must be {scope: root|container-entries, status: complete|unknown}", field="coverage")
            )
        if legacy is not None and legacy != coverage_status_of(coverage):
            return Failure(
                _reject(
                    f"coverage_status {legacy!r} conflicts with coverage.status {coverage['status']!r}",
                    field="coverage_status",
                )
            )
    normalized = dict(result)
    normalized["coverage"] = dict(coverage)
    normalized["coverage_status"] = coverage_status_of(coverage)
    ic = normalized.get("integrity_contradictions", [])
    if isinstance(ic, list):
        normalized["integrity_contradictions"] = {
            "items": ic,
            "offset": 0,
            "limit": max(len(ic), 1),
            "total": len(ic),
            "next_offset": None,
        }
    elif "integrity_contradictions" not in normalized:
        normalized["integrity_contradictions"] = {"items": [], "offset": 0, "limit": 1, "total": 0, "next_offset": None}
    return Success(normalized)


def merge_pages(pages: Sequence[Mapping[str, Any]]) -> Result[dict[str, Any], ReaError]:
    """Several parsed pages of one inventory as one: same manifest and coverage, items de-duplicated."""
    first = pages[0]
    manifest_id = first["manifest"].get("manifest_id")
    merged: dict[str, Any] = {k: v for k, v in first.items() if k not in SECTIONS}
    keys = {
        "nodes": "artifact_id",
        "occurrences": "occurrence_id",
        "edges": "edge_id",
        "integrity_contradictions": "contradiction_id",
    }
    for page in pages[1:]:
        if page["manifest"].get("manifest_id") != manifest_id:
            return Failure(
                _reject(
                    "pages belong to different inventories (manifest_id differs)",
                    manifest_ids=[manifest_id, page["manifest"].get("manifest_id")],
                )
            )
        if page["coverage"] != first["coverage"]:
            return Failure(
                _reject(
                    "pages of one inventory carry different coverage declarations",
                    coverage=[first["coverage"], page["coverage"]],
                )
            )
    for section, key in keys.items():
        seen: dict[str, Any] = {}
        for page in pages:
            for item in page[section]["items"]:
                seen.setdefault(item.get(key), item)
        merged[section] = {"items": list(seen.values()), "total": first[section]["total"]}
    return Success(merged)


def source_complete(inv: Mapping[str, Any]) -> bool:
    """Every member the manifest commits to is available, and the traversal was complete."""
    manifest = inv["manifest"]
    counts = {
        "nodes": manifest.get("node_count"),
        "occurrences": manifest.get("occurrence_count"),
        "edges": manifest.get("edge_count"),
    }
    available = all(len(inv[s]["items"]) == counts[s] for s in counts)
    return available and inv["coverage"]["status"] == "complete"
