"""compare_functions: two function dossiers, dimension by dimension, never claiming more
than both sides observed.

A dimension is unknown (with null counts) when either side declares its facet
unavailable, or when a legacy dossier holds an empty facet without declaring it.
Static equality is never presented as unchanged runtime behaviour.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Iterable, Mapping, Sequence

from rea.evidence import Evidence

RUNTIME_NOTICE = "Static equality of two dossiers does not establish unchanged runtime behaviour."
# dimension -> the facet_availability keys it needs
DIMENSIONS: Mapping[str, tuple[str, ...]] = {
    "identity": (),
    "pseudocode": ("pseudocode",),
    "calls": ("callees",),
    "callers": ("callers",),
    "references": ("references",),
    "strings": ("strings_names",),
    "cfg": ("cfg",),
}


def _facet(result: Mapping[str, Any], key: str) -> tuple[bool, str | None]:
    declared = result.get("facet_availability") or {}
    entry = declared.get(key)
    if isinstance(entry, Mapping):
        return bool(entry.get("available")), entry.get("reason")
    return (
        False,
        "the dossier does not declare this facet (a legacy record): an empty collection is not proof of absence",
    )


def _values(dimension: str, result: Mapping[str, Any]) -> list[str]:
    if dimension == "calls":
        return sorted(c.get("name") or c.get("address") for c in result.get("callees", ()))
    if dimension == "callers":
        return sorted(c.get("name") or c.get("address") for c in result.get("callers", ()))
    if dimension == "references":
        refs = result.get("references") or {}
        return sorted(f"{r.get('kind')}->{r.get('to')}" for r in refs.get("outgoing", ()))
    if dimension == "strings":
        return sorted(s.get("value", "") for s in result.get("strings", ()))
    if dimension == "cfg":
        blocks = result.get("basic_blocks", ())
        starts = [int(str(b["start"]).rpartition(":")[2], 16) for b in blocks]
        base = min(starts) if starts else 0
        # address-normalized topology: block offsets from the entry and sizes
        return [f"+{s - base}:{b['size']}" for s, b in sorted(zip(starts, blocks), key=lambda x: x[0])]
    return []


def _collection(dimension: str, left: Mapping[str, Any], right: Mapping[str, Any]) -> dict[str, Any]:
    lv, rv = _values(dimension, left), _values(dimension, right)
    added = sorted(set(rv) - set(lv))
    removed = sorted(set(lv) - set(rv))
    same = lv == rv
    return {
        "status": "equal" if same else "changed",
        "counts": {"left": len(lv), "right": len(rv), "added": len(added), "removed": len(removed)},
        "added": added[:50],
        "removed": removed[:50],
    }


def _unknown(reasons: Iterable[str]) -> dict[str, Any]:
    return {"status": "unknown", "counts": None, "reasons": sorted(set(reasons))}


def compare(left: Sequence[Evidence], right: Sequence[Evidence]) -> dict[str, Any]:
    """Pure comparison of the first analyze_function dossier on each side."""
    l, r = left[0].normalized_result, right[0].normalized_result
    dims: dict[str, Any] = {}
    same_provider = left[0].provider == right[0].provider
    for dimension, facets in DIMENSIONS.items():
        missing = []
        for key in facets:
            for side, result in (("left", l), ("right", r)):
                available, reason = _facet(result, key)
                if not available:
                    missing.append(f"{side} {key}: {reason}")
        if missing:
            dims[dimension] = _unknown(missing)
        elif dimension == "identity":
            lp, rp = l.get("procedure") or {}, r.get("procedure") or {}
            changed = [k for k in ("name", "size", "kind") if lp.get(k) != rp.get(k)]
            dims[dimension] = {
                "status": "changed" if changed else "equal",
                "changed_fields": changed,
                "left": lp,
                "right": rp,
            }
        elif dimension == "pseudocode":
            if not same_provider:
                dims[dimension] = _unknown(
                    ["the two dossiers come from different providers; their text is not comparable"]
                )
            elif l.get("pseudocode_truncated") or r.get("pseudocode_truncated"):
                dims[dimension] = _unknown(["a side holds truncated pseudocode"])
            else:
                equal = l.get("pseudocode") == r.get("pseudocode")
                dims[dimension] = {
                    "status": "equal" if equal else "changed",
                    "counts": {"left": len(l.get("pseudocode") or ""), "right": len(r.get("pseudocode") or "")},
                }
        else:
            dims[dimension] = _collection(dimension, l, r)
    statuses = {d["status"] for d in dims.values()}
    verdict = "changed" if "changed" in statuses else "uncertain" if "unknown" in statuses else "equal"
    return {
        "left": {"evidence_ids": [e.evidence_id for e in left], "procedure": l.get("procedure")},
        "right": {"evidence_ids": [e.evidence_id for e in right], "procedure": r.get("procedure")},
        "dimensions": dims,
        "verdict": verdict,
        "limitations": [RUNTIME_NOTICE],
    }
