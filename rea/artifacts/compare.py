"""Artifact comparison, pure: equality only where both sides are completely observed.

compare(a, b) mirrors compare(b, a): added and removed swap, left and right swap,
everything else is identical.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from returns.result import Failure, Result

from rea.artifacts.inventory_parsing import merge_pages, parse_inventory, source_complete
from rea.artifacts.model import CLASSIFICATIONS
from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence
from rea.paging import paginate
from rea.results import all_of

ROOT_PATH = "."  # the reference's logical path of the root occurrence
RUNTIME_NOTICE = "Static artifact equality does not establish unchanged runtime behavior."
INVENTORY_OPERATIONS = ("inventory_artifact", "inspect_artifact")


def inventory_of(evidence: Evidence) -> Result[dict[str, Any], ReaError]:
    """The inventory payload inside inventory_artifact or inspect_artifact Evidence, parsed."""
    if evidence.operation == "inventory_artifact":
        payload = evidence.normalized_result
    elif evidence.operation == "inspect_artifact" and isinstance(evidence.normalized_result, dict):
        payload = _substep_inventory(evidence.normalized_result)
    else:
        return Failure(
            invalid_request(
                f"Evidence {evidence.evidence_id} comes from {evidence.operation}, not an artifact inventory",
                field="evidence",
                accepted="inspect_artifact or inventory_artifact Evidence",
            )
        )
    return parse_inventory(payload)


def _substep_inventory(inspection: Mapping[str, Any]) -> Any:
    """The inventory inside inspect_artifact's result: substeps[0].evidence (6.x), or the historical
    inline `inventory` of records made before it."""
    substeps = inspection.get("substeps")
    if isinstance(substeps, list) and substeps and isinstance(substeps[0], dict):
        evidence = substeps[0].get("evidence")
        if isinstance(evidence, dict) and evidence.get("evidence_id") == substeps[0].get("evidence_id"):
            return evidence.get("normalized_result")
        return None
    return inspection.get("inventory")


def _keys(inv: Mapping[str, Any]) -> tuple[dict[str, dict[str, Any]], dict[str, Any] | None]:
    """Occurrences keyed by their container chain ('a.whl!/x.py'); and the root occurrence."""
    by_id = {o["occurrence_id"]: o for o in inv["occurrences"]["items"]}
    root = next((o for o in by_id.values() if o["parent_occurrence_id"] is None), None)
    containers = {o["parent_occurrence_id"] for o in by_id.values()}
    keyed: dict[str, dict[str, Any]] = {}
    for occ in by_id.values():
        if occ["parent_occurrence_id"] is None:
            continue
        parts = [occ["logical_path"]]
        parent = by_id.get(occ["parent_occurrence_id"])
        while parent is not None and parent["parent_occurrence_id"] is not None:
            parts.append(parent["logical_path"] + "!")
            parent = by_id.get(parent["parent_occurrence_id"])
        if parent is None:
            continue  # its chain is not available; counted through source_complete
        keyed["/".join(reversed(parts))] = occ
    del containers
    return keyed, root


def _contradicted(inv: Mapping[str, Any]) -> set[str]:
    return {c["occurrence_id"] for c in inv["integrity_contradictions"]["items"]}


def _dimensions(left: Mapping[str, Any], right: Mapping[str, Any]) -> list[str]:
    dims = []
    if left.get("artifact_id") != right.get("artifact_id"):
        dims.append("content")
    if left["entry_kind"] != right["entry_kind"]:
        dims.append("kind")
    if left.get("executable") != right.get("executable"):
        dims.append("executable")
    return dims


Side = Mapping[str, Any] | None


def _entry(path: str, classification: str, dims: list[str], lo: Side, ro: Side) -> dict[str, Any]:
    """One change record: the member's path, its classification and dimensions, and both sides' ids."""
    return {
        "logical_path": path,
        "classification": classification,
        "dimensions": dims,
        "left_occurrence_id": lo and lo["occurrence_id"],
        "right_occurrence_id": ro and ro["occurrence_id"],
        "left_artifact_id": lo and lo.get("artifact_id"),
        "right_artifact_id": ro and ro.get("artifact_id"),
    }


def _root_change(lroot: Side, rroot: Side, lbad: set[str], rbad: set[str]) -> dict[str, Any] | None:
    """The roots' delta (content and executable metadata), or None when they are alike or one is absent."""
    if lroot is None or rroot is None:
        return None
    if lroot["occurrence_id"] in lbad or rroot["occurrence_id"] in rbad:
        return _entry(ROOT_PATH, "contradiction", ["integrity"], lroot, rroot)
    dims = _dimensions(lroot, rroot)
    return _entry(ROOT_PATH, "changed", dims, lroot, rroot) if dims else None


def _member_changes(
    lkeys: Mapping[str, Any], rkeys: Mapping[str, Any], lbad: set[str], rbad: set[str], uncertainty: list[str]
) -> tuple[list[dict[str, Any]], int]:
    """Every member path's change in path order, and how many were unchanged; a member whose hash is
    unavailable cannot be compared by content, which `uncertainty` then says."""
    changes: list[dict[str, Any]] = []
    unchanged = 0
    for path in sorted(set(lkeys) | set(rkeys)):
        lo, ro = lkeys.get(path), rkeys.get(path)
        if (lo and lo["occurrence_id"] in lbad) or (ro and ro["occurrence_id"] in rbad):
            changes.append(_entry(path, "contradiction", ["integrity"], lo, ro))
        elif lo is None:
            changes.append(_entry(path, "added", ["content"], lo, ro))
        elif ro is None:
            changes.append(_entry(path, "removed", ["content"], lo, ro))
        else:
            hashed = all(o["entry_kind"] not in ("file", "slice") or o["hash_status"] == "verified" for o in (lo, ro))
            dims = _dimensions(lo, ro)
            if not hashed:
                dims = [d for d in dims if d != "content"]
                changes.append(_entry(path, "changed" if dims else "unknown", dims or ["content"], lo, ro))
                uncertainty.append(f"{path}: an occurrence hash is unavailable, so its content cannot be compared")
            elif dims:
                changes.append(_entry(path, "changed", dims, lo, ro))
            else:
                unchanged += 1
    return changes, unchanged


def _status(counts: Mapping[str, int], members_complete: bool, root_changed: bool, uncertain: bool) -> str:
    """The comparison's one word, first rule that holds: a contradiction, missing members, changes, only
    additions, only removals, something not comparable, else unchanged."""
    if counts["contradiction"]:
        return "contradiction"
    if not members_complete:
        return "truncated"
    if counts["changed"] or (counts["added"] and counts["removed"]) or root_changed:
        return "changed"
    if counts["added"]:
        return "added"
    if counts["removed"]:
        return "removed"
    return "unknown" if uncertain or counts["unknown"] else "unchanged"


def compare_inventories(left: Mapping[str, Any], right: Mapping[str, Any]) -> dict[str, Any]:
    """Compare two parsed (and merged) inventories; the complete, unpaged result."""
    limitations: list[str] = []
    uncertainty: list[str] = []
    lkeys, lroot = _keys(left)
    rkeys, rroot = _keys(right)
    lbad, rbad = _contradicted(left), _contradicted(right)
    root_change = _root_change(lroot, rroot, lbad, rbad)
    changes, unchanged = _member_changes(lkeys, rkeys, lbad, rbad, uncertainty)
    lcov, rcov = left["coverage"], right["coverage"]
    if lcov["scope"] != rcov["scope"]:
        uncertainty.append(
            f"coverage scopes differ (left {lcov['scope']}, right {rcov['scope']}); equality of "
            "members cannot be concluded"
        )
    for side, cov in (("left", lcov), ("right", rcov)):
        if cov["status"] != "complete":
            uncertainty.append(f"the {side} traversal coverage is unknown; unobserved members may differ")
    members_complete = all(
        len(inv[s]["items"]) == inv["manifest"].get(c)
        for inv in (left, right)
        for s, c in (("nodes", "node_count"), ("occurrences", "occurrence_count"), ("edges", "edge_count"))
    )
    if lcov["scope"] == "root" and rcov["scope"] == "root":
        limitations.append(
            "Both sides are root-scoped: the roots were compared as whole artifacts; container "
            "members were not enumerated."
        )
    all_changes = ([root_change] if root_change else []) + changes
    counts = {c: sum(1 for x in all_changes if x["classification"] == c) for c in CLASSIFICATIONS}
    status = _status(counts, members_complete, root_change is not None, bool(uncertainty))
    if status == "truncated":
        limitations.append(
            "Graph members committed by a manifest are missing from the supplied Evidence; pass every "
            "page of each inventory (or inspect_artifact Evidence) to compare completely."
        )
    limitations.append(RUNTIME_NOTICE)
    return {
        "status": status,
        "left_manifest_id": left["manifest"].get("manifest_id"),
        "right_manifest_id": right["manifest"].get("manifest_id"),
        "left_coverage": dict(lcov),
        "right_coverage": dict(rcov),
        "summary": {**counts, "unchanged": unchanged},
        "changes": all_changes,
        "uncertainty": sorted(set(uncertainty)),
        "limitations": limitations,
    }


def compare_artifacts(
    left: Sequence[Evidence], right: Sequence[Evidence], offset: int = 0, limit: int | None = None
) -> Result[dict[str, Any], ReaError]:
    """Compare left and right inventory Evidence (each one record or several pages of one inventory)."""
    # left, then right, each record in order: the first that cannot be read is the answer
    sides = all_of(_side(name, records) for name, records in (("left", left), ("right", right)))
    return sides.map(lambda merged: _compared(left, right, merged, offset, limit))


def _side(name: str, records: Sequence[Evidence]) -> Result[dict[str, Any], ReaError]:
    """One side's inventory: its pages read and merged; an error names the side (`field`)."""
    if not records:
        return Failure(invalid_request(f"{name} holds no Evidence", field=name))
    parsed = all_of(inventory_of(record) for record in records)
    return parsed.bind(merge_pages).alt(lambda error: error.with_details(field=name))


def _compared(
    left: Sequence[Evidence], right: Sequence[Evidence], sides: list[dict[str, Any]], offset: int, limit: int | None
) -> dict[str, Any]:
    result = compare_inventories(sides[0], sides[1])
    links = [e.evidence_id for e in (*left, *right)]  # both sides cited, as the reference does
    page = paginate(result["changes"], offset, limit)
    result["changes"] = [{**c, "evidence_links": links} for c in page.items]
    result["changes_page"] = page.envelope()
    result["source_complete"] = {"left": source_complete(sides[0]), "right": source_complete(sides[1])}
    return result
