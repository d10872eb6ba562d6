"""Comparisons of application records (pure): versions here, source against bundle in
rea.javascript.compare_sources, export shapes in rea.javascript.compare_exports.

Each answers in the reference's comparison shape (rea.javascript.records.comparison: VersionsResult,
SourceToBundleResult, ExportShapesResult): an id, the two sides' identities, items or changes
with their own ids, a summary and coverage. Absence on a partial side is unknown, never removed.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import attrs

from rea.canonical_json import canonical_sha256
from rea.javascript.graph_kinds import MODULE_KINDS
from rea.javascript.ids import edge_id
from rea.javascript.observations import pairing_envelope
from rea.javascript.records.arguments import VersionLimits
from rea.javascript.records.comparison import (
    CategoryCounts,
    ContentOnlyChanges,
    Dimension,
    GraphSide,
    Outcomes,
    VersionCoverage,
    VersionItem,
    VersionMatch,
    VersionMatching,
)
from rea.javascript.records.fields import GraphStatus
from rea.javascript.sourcemap import comparable_path
from rea.wire.convert import to_wire

CATEGORIES = (
    "modules",
    "bundled_modules",
    "exports",
    "ipc_channels",
    "routes",
    "dependencies",
    "urls",
    "protocols",
    "context_bridge_apis",
    "browser_windows",
)
OUTCOMES = ("added", "changed", "removed", "unchanged", "unknown")
_CONTENT = frozenset(("sha256", "generated_bytes", "segments"))
PAIRING = (
    "exact keys: module path, bundled module's original source, export path#name, channel, route, URL, scheme, "
    "dependency name"
)


def graph_side(evidence_id: str, result: Mapping[str, Any]) -> GraphSide:
    return GraphSide(
        evidence_id=evidence_id,
        graph_id=result["graph"]["graph_id"],
        root_artifact_sha256=result["root_artifact_sha256"],
    )


def graph_status(result: Mapping[str, Any]) -> GraphStatus:
    status: GraphStatus = result["graph"]["coverage"]["status"]
    return status


# ---------------------------------------------------------------- versions


def _open_modules(result: Mapping[str, Any]) -> frozenset[str]:
    """Paths of modules whose export list is open (a star re-export, a computed name): absence of an export
    there is not established."""
    return frozenset(n["path"] for n in result["graph"]["nodes"] if n["subkind"] == "module" and n.get("exports_open"))


_Fact = tuple[str, str, dict[str, Any]]  # (category, key, comparable facts) of one node
_Indexed = tuple[str, str, dict[str, Any]]  # (node id, node kind, comparable facts) under a category's key


def _index(result: Mapping[str, Any]) -> dict[str, dict[str, _Indexed]]:
    """category -> key -> (node id, node kind, comparable facts)."""
    out: dict[str, dict[str, _Indexed]] = {c: {} for c in CATEGORIES}
    for n in result["graph"]["nodes"]:
        for category, key, facts in _facts(n):
            if category == "bundled_modules" and key in out[category]:
                key = f"{key} ({n['bundle']})"
            out[category][key] = (n["node_id"], n["kind"], facts)
    return out


def comparable_shape(shape: Any) -> Any:
    """A literal shape with both its value and its digest. A record written before literals carried both has a
    short literal's value only, or a long one's digest only: the value's digest is computed here so the two
    sides of a comparison always show the same fields (never a value on one side and a digest on the other)."""
    if not isinstance(shape, Mapping) or shape.get("type") != "literal" or "sha256" in shape:
        return shape
    if isinstance(shape.get("value"), str):
        return {**shape, "sha256": hashlib.sha256(shape["value"].encode("utf-8", "surrogatepass")).hexdigest()}
    return shape


def _facts(n: Mapping[str, Any]) -> list[_Fact]:
    k, label = n["subkind"], n["label"]
    if k == "module":
        facts = {"sha256": n.get("sha256"), "roles": sorted(r["role"] for r in n.get("roles", ())), "parse": n["parse"]}
        exports = [
            ("exports", f"{n['path']}#{e['name']}", {"form": e.get("form"), "shape": comparable_shape(e.get("shape"))})
            for e in n.get("exports", ())
        ]
        return [("modules", n["path"], facts), *exports]
    if k == "bundled-module" and (n.get("source") or n.get("path")):
        # keyed by original source, not by module id or bundle file name: both change between builds
        loc = n.get("location", {})
        return [
            (
                "bundled_modules",
                comparable_path(n.get("source") or n["path"]),
                {
                    "exports": sorted(e["name"] for e in n.get("exports", ())),
                    "generated_bytes": loc["end"] - loc["start"] if "end" in loc else None,
                    "segments": n.get("segments"),
                },
            )
        ]
    simple: dict[str, Callable[[], _Fact]] = {
        "ipc-channel": lambda: ("ipc_channels", n["channel"], {"ends": n["ends"], "linked": n["linked"]}),
        "route": lambda: ("routes", label[6:], {}),
        "url": lambda: ("urls", n["url"], {}),
        "protocol": lambda: ("protocols", n["scheme"], {}),
        "context-bridge-api": lambda: ("context_bridge_apis", n["key"], {"members": n.get("members")}),
        "browser-window": lambda: (
            "browser_windows",
            label.split(":", 1)[1].rsplit(":", 1)[0] + f"#{n['constructor']}",
            {"web_preferences": n["web_preferences"]},
        ),
    }
    if k in simple:
        return [simple[k]()]
    if k == "package":
        out = [("dependencies", f"{n['path']}:{dep}", {"range": v}) for dep, v in (n.get("dependencies") or {}).items()]
        if n.get("name") is not None:
            out.append(("dependencies", f"{n['path']}:(self)", {"name": n.get("name"), "version": n.get("version")}))
        return out
    return []


def _unknown_shape(facts: Mapping[str, Any]) -> bool:
    return ((facts.get("shape") or {}).get("type") or "unknown") == "unknown"


Outcome = Literal["added", "changed", "removed", "unchanged", "unknown"]


@attrs.frozen(kw_only=True)
class Compared:
    """What pairing the two records establishes, before the change graph is drawn from its items."""

    comparison_id: str
    matching: VersionMatching
    items: tuple[VersionItem, ...]
    summary: Outcomes
    coverage: VersionCoverage
    categories: dict[str, CategoryCounts]
    content_only_changes: ContentOnlyChanges


def _outcome(
    category: str, a: dict[str, Any] | None, b: dict[str, Any] | None, left_complete: bool, right_complete: bool
) -> Outcome:
    """A side that is unknown (an unread module, an export whose value is not modelled) makes a difference
    unknown, never changed; absence is established only by a complete other side."""
    if a is not None and b is not None:
        if a == b:
            return "unchanged"
        if category == "modules" and (a.get("sha256") is None or b.get("sha256") is None):
            return "unknown"
        if category == "exports" and (_unknown_shape(a) or _unknown_shape(b)):
            return "unknown"
        return "changed"
    if a is None:
        return "added" if left_complete else "unknown"
    return "removed" if right_complete else "unknown"


def _dimensions(status: Outcome, changed: Sequence[str], one_sided: bool) -> tuple[Dimension, ...]:
    """What differs: availability of a one-sided item, coverage when it is unknown, else content or properties."""
    if status in ("added", "removed") or (status == "unknown" and one_sided):
        return ("availability",) if status != "unknown" else ("coverage",)
    found: set[Dimension] = {"content" if f in _CONTENT else "properties" for f in changed}
    return tuple(sorted(found | ({"coverage"} if status == "unknown" else set())))


def _match(left: str | None, right: str | None) -> VersionMatch:
    both = left is not None and right is not None
    return VersionMatch(
        status="matched" if both else "unmatched",
        basis=("exact-node-identity" if left == right else "semantic-key") if both else "none",
        confidence=("exact" if left == right else "medium") if both else "unknown",
        candidate_left_node_ids=(left,) if left else (),
        candidate_right_node_ids=(right,) if right else (),
    )


_ONE_SIDED = ("The other side's coverage is partial: absence is not established.",)
_UNREAD = ("A module's content digest is missing on one side (not read).",)


def _version_item(
    category: str, key: str, left: _Indexed | None, right: _Indexed | None, status: Outcome, links: Sequence[str]
) -> VersionItem:
    a, b = (left or (None, None, None)), (right or (None, None, None))
    fa, fb = a[2], b[2]
    changed = sorted(f for f in set(fa or {}) | set(fb or {}) if (fa or {}).get(f) != (fb or {}).get(f))
    both = a[0] is not None and b[0] is not None
    shown = status == "changed" or (status == "unknown" and both)
    return VersionItem(
        item_id="javc_item_" + canonical_sha256([category, key]),
        node_kind=a[1] or b[1] or "",
        left_node_id=a[0],
        right_node_id=b[0],
        status=status,
        match=_match(a[0], b[0]),
        dimensions=_dimensions(status, changed, fa is None or fb is None),
        evidence_links=tuple(links),
        limitations=(_ONE_SIDED if not both else _UNREAD) if status == "unknown" else (),
        category=category,
        key=key,
        changed_fields=tuple(changed) if both else (),
        left=fa if shown else None,
        right=fb if shown else None,
    )


def _matching(every: Sequence[VersionItem]) -> VersionMatching:
    matched = [i for i in every if i.match.status == "matched"]
    return VersionMatching(
        exact_node_identity=sum(1 for i in matched if i.match.basis == "exact-node-identity"),
        exact_content_digest=0,
        exact_module_source_digest=0,
        source_map_identity=0,
        structural_fingerprint=0,
        semantic_key=sum(1 for i in matched if i.match.basis == "semantic-key"),
        ambiguous=0,
        unmatched=len(every) - len(matched),
    )


def _outcomes(counts: Mapping[str, int]) -> Outcomes:
    return Outcomes(
        added=counts["added"],
        changed=counts["changed"],
        removed=counts["removed"],
        unchanged=counts["unchanged"],
        unknown=counts["unknown"],
    )


def compare_versions(
    left: Mapping[str, Any], right: Mapping[str, Any], max_items: int, links: Sequence[str]
) -> Compared:
    """Pair by exact key (path, channel, route, ...); one-sided absence is added/removed only when the
    other side's coverage is complete, otherwise unknown. Changed items come first, then unchanged ones."""
    li, ri = _index(left), _index(right)
    lc, rc = graph_status(left) == "complete", graph_status(right) == "complete"
    lo, ro = _open_modules(left), _open_modules(right)
    categories: dict[str, CategoryCounts] = {}
    pending: list[VersionItem] = []
    settled: list[VersionItem] = []
    content_only: list[str] = []
    for category in CATEGORIES:
        counts: Counter[str] = Counter()
        for key in sorted(set(li[category]) | set(ri[category])):
            a, b = li[category].get(key), ri[category].get(key)
            module = key.rsplit("#", 1)[0] if category == "exports" else None
            status = _outcome(category, a and a[2], b and b[2], lc and module not in lo, rc and module not in ro)
            counts[status] += 1
            item = _version_item(category, key, a, b, status, links)
            if category == "modules" and status == "changed" and item.changed_fields == ("sha256",):
                content_only.append(key)  # bytes differ, nothing the graph records does: counted, not listed
                continue
            (settled if status == "unchanged" else pending).append(item)
        categories[category] = CategoryCounts(counts=_outcomes(counts))
    every = pending + settled
    items, omitted = every[:max_items], max(0, len(every) - max_items)
    summary = Counter({s: sum(getattr(c.counts, s) for c in categories.values()) for s in OUTCOMES})
    coverage = VersionCoverage(
        status="truncated" if omitted else "partial" if not (lc and rc) else "complete-within-inputs",
        left_graph_status=graph_status(left),
        right_graph_status=graph_status(right),
        omitted_comparison_items=omitted,
        omitted_candidate_references=0,
        omitted_graph_nodes=0,
        omitted_graph_edges=0,
        omitted_graph_observations=0,
    )
    only = ContentOnlyChanges(
        category="modules",
        count=len(content_only),
        sample_keys=tuple(content_only[:CONTENT_ONLY_SAMPLE]),
        note=CONTENT_ONLY_NOTE,
    )
    return Compared(
        comparison_id="javc_" + canonical_sha256({"left": links[0], "right": links[1], "limit": max_items}),
        matching=_matching(every),
        items=tuple(items),
        summary=_outcomes(summary),
        coverage=coverage,
        categories=categories,
        content_only_changes=only,
    )


def versions_result(
    compared: Compared,
    sides: tuple[GraphSide, GraphSide],
    graph: Mapping[str, Any],
    links: Sequence[str],
    limitations: Sequence[str],
) -> dict[str, Any]:
    """The VersionsResult on the wire, in the order its replies have always had; the change graph's nodes and
    edges are the two records' own, passed through as they are."""
    return {
        "schema_version": 1,
        "comparison_id": compared.comparison_id,
        "left": to_wire(sides[0]),
        "right": to_wire(sides[1]),
        "matching": to_wire(compared.matching),
        "items": to_wire(compared.items),
        "summary": to_wire(compared.summary),
        "coverage": to_wire(compared.coverage),
        "evidence_links": list(links),
        "categories": to_wire(compared.categories),
        "pairing": PAIRING,
        "content_only_changes": to_wire(compared.content_only_changes),
        "graph": graph,
        "limitations": list(limitations),
    }


CONTENT_ONLY_SAMPLE = 20
CONTENT_ONLY_NOTE = (
    "Modules whose bytes differ but whose recorded facts (roles, parse, exports) do not are counted in "
    "summary.changed and here, not listed as items; inspect one with compare_javascript_export_shapes or a view."
)

CHANGE_GRAPH_NOTE = (
    "The change graph holds both sides' roots and the nodes of changed, added, removed and unknown items with "
    "their relationships in either version; unchanged entities are counted in summary, not repeated here. "
    "changed_from edges are cross-version pairings (inferences), not runtime facts."
)


def _changed_from(item: VersionItem) -> dict[str, Any] | None:
    left, right = item.left_node_id, item.right_node_id
    if item.match.status != "matched" or item.status == "unchanged" or left == right:
        return None
    properties = {
        "comparison_item_id": item.item_id,
        "status": item.status,
        "match_basis": item.match.basis,
        "match_confidence": item.match.confidence,
        "dimensions": list(item.dimensions),
    }
    return {
        "edge_id": edge_id({"relation": "changed_from", "from": right, "to": left, "item": item.item_id}),
        "source_node_id": right,
        "target_node_id": left,
        "relation": "changed_from",
        "properties": properties,
        **pairing_envelope(properties),
    }


def change_graph(
    left: Mapping[str, Any], right: Mapping[str, Any], items: Sequence[VersionItem], limits: VersionLimits
) -> tuple[dict[str, Any], tuple[int, int]]:
    """The reference's change graph, bounded by max_graph_nodes and max_graph_edges, and what the bounds
    omitted (nodes, edges). Its nodes and edges are the two records' own, passed through as they are."""
    lg, rg = left["graph"], right["graph"]
    changed = [i for i in items if i.status != "unchanged"]
    wanted = {*lg["root_node_ids"], *rg["root_node_ids"]} | {
        n for i in changed for n in (i.left_node_id, i.right_node_id) if n is not None
    }
    by_id = {n["node_id"]: n for n in lg["nodes"] if n["node_id"] in wanted}
    by_id.update({n["node_id"]: n for n in rg["nodes"] if n["node_id"] in wanted})
    nodes = [by_id[n] for n in sorted(by_id)][: limits.max_graph_nodes]
    kept = {n["node_id"] for n in nodes}
    edges: dict[str, Mapping[str, Any]] = {}  # an edge id names the same relation in either version
    for e in (*lg["edges"], *rg["edges"]):
        if e["source_node_id"] in kept and e["target_node_id"] in kept:
            edges.setdefault(e["edge_id"], e)
    pairs = [c for c in map(_changed_from, changed) if c and {c["source_node_id"], c["target_node_id"]} <= kept]
    every = [*edges.values(), *pairs]
    listed = [dict(e) for e in every[: limits.max_graph_edges]]
    omitted = (len(by_id) - len(nodes), len(every) - len(listed))
    complete = lg["coverage"]["status"] == rg["coverage"]["status"] == "complete" and not any(omitted)
    bounds = [
        ("max_graph_nodes", limits.max_graph_nodes, omitted[0]),
        ("max_graph_edges", limits.max_graph_edges, omitted[1]),
    ]
    return {
        "schema": "JavaScriptApplicationGraph",
        "schema_version": 1,
        "graph_id": "jag_" + canonical_sha256({"left": lg["graph_id"], "right": rg["graph_id"], "nodes": sorted(kept)}),
        "root_node_ids": sorted(kept & {*lg["root_node_ids"], *rg["root_node_ids"]}),
        "nodes": nodes,
        "edges": listed,
        "coverage": {
            "status": "complete" if complete else "partial",
            "truncated": any(omitted),
            "omitted_count": sum(omitted),
            "limits": [{"name": n, "unit": "items", "value": v} for n, v, o in bounds if o],
        },
        "limitations": [CHANGE_GRAPH_NOTE],
    }, omitted


MODULE_NODE_KINDS = MODULE_KINDS
