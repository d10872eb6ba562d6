"""inspect_analysis_view over artifact Evidence: summaries and inventory pages, pure."""

from __future__ import annotations

from collections import Counter
from typing import Any
from collections.abc import Mapping, Sequence

from returns.result import Failure, Result, Success

from rea.canonical_json import canonical_sha256
from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence
from rea.paging import paginate
from rea.artifacts.compare import inventory_of
from rea.artifacts.graph import SECTIONS, source_complete

DEFAULT_LIMIT = 64
VIEWS = ("summary", "inventory")
_COUNT_KEYS = {
    "nodes": "node_count",
    "occurrences": "occurrence_count",
    "edges": "edge_count",
    "integrity_contradictions": "integrity_contradiction_count",
}


def inventory_evidence_ids(source: Evidence) -> list[str]:
    if source.operation == "inspect_artifact" and isinstance(source.normalized_result, dict):
        return list(source.normalized_result.get("inventory_evidence_ids", []))
    return [source.evidence_id]


def artifact_view(source: Evidence, args: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    """The normalized_result of one view of completed inspect_artifact / inventory_artifact Evidence."""
    parsed = inventory_of(source)
    if not isinstance(parsed, Success):
        return Failure(parsed.failure().with_details(field="source"))
    inv = parsed.unwrap()
    view = args.get("view", "summary")
    complete = source_complete(inv)
    manifest = inv["manifest"]
    base = {
        "view": view,
        "parent_evidence_id": source.evidence_id,
        "source_operation": source.operation,
        "manifest_id": manifest.get("manifest_id"),
        "coverage": inv["coverage"],
        "coverage_status": inv["coverage_status"],
        "source_complete": complete,
    }
    if view == "summary":
        expected = {s: manifest.get(k) for s, k in _COUNT_KEYS.items()}
        available = {s: len(inv[s]["items"]) for s in SECTIONS}
        kinds = Counter(o["entry_kind"] for o in inv["occurrences"]["items"])
        formats = Counter(n["format"] for n in inv["nodes"]["items"])
        result = {
            **base,
            "expected_counts": expected,
            "available_counts": available,
            "entry_kinds": dict(sorted(kinds.items())),
            "node_formats": dict(sorted(formats.items())),
            "inventory_evidence_ids": inventory_evidence_ids(source),
            "root": {
                "artifact_id": manifest.get("root_artifact_id"),
                "sha256": manifest.get("root_sha256"),
                "format": manifest.get("root_format"),
            },
            "limitations": list(inv.get("limitations", [])),
        }
    else:
        section = args.get("section")
        if section not in SECTIONS:
            return Failure(
                invalid_request("the inventory view needs section", field="section", accepted=" | ".join(SECTIONS))
            )
        items: Sequence[Mapping[str, Any]] = inv[section]["items"]
        paths = args.get("logical_paths")
        if paths is not None:
            if section != "occurrences":
                return Failure(
                    invalid_request(
                        "logical_paths filters the occurrences section only",
                        field="logical_paths",
                        accepted='section "occurrences"',
                    )
                )
            wanted = set(paths)
            items = [o for o in items if o["logical_path"] in wanted]
        page = paginate(items, args.get("offset", 0), args.get("limit", DEFAULT_LIMIT))
        limitations = []
        if not complete:
            limitations.append(
                "The source inventory is not complete: exhausting these pages does not establish "
                "that unreturned paths are absent."
            )
        result = {
            **base,
            "section": section,
            "logical_paths": None if paths is None else list(paths),
            "items": list(page.items),
            **page.envelope(),
            "limitations": limitations,
        }
    result["selected_facts_sha256"] = canonical_sha256({k: v for k, v in result.items() if k != "view"})
    return Success(result)
