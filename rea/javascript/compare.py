"""Comparisons of application records: versions, source against bundle, export shapes (pure).

Each answers in the reference's comparison shape (rea.javascript.records.comparison: VersionsResult,
SourceToBundleResult, ExportShapesResult): an id, the two sides' identities, items or changes
with their own ids, a summary and coverage. Absence on a partial side is unknown, never removed.
"""

from __future__ import annotations

import hashlib
from typing import Any
from collections.abc import Mapping, Sequence

from rea.canonical_json import canonical_sha256
from rea.javascript.graph import MODULE_KINDS
from rea.javascript.ids import edge_id
from rea.javascript.observations import pairing_envelope
from rea.javascript.sourcemap import comparable_path

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


def graph_side(evidence_id: str, result: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "evidence_id": evidence_id,
        "graph_id": result["graph"]["graph_id"],
        "root_artifact_sha256": result["root_artifact_sha256"],
    }


def graph_status(result: Mapping[str, Any]) -> str:
    return result["graph"]["coverage"]["status"]


# ---------------------------------------------------------------- versions


def _open_modules(result: Mapping[str, Any]) -> frozenset[str]:
    """Paths of modules whose export list is open (a star re-export, a computed name): absence of an export
    there is not established."""
    return frozenset(n["path"] for n in result["graph"]["nodes"] if n["subkind"] == "module" and n.get("exports_open"))


def _index(result: Mapping[str, Any]) -> dict[str, dict[str, tuple[str, str, dict[str, Any]]]]:
    """category -> key -> (node id, node kind, comparable facts)."""
    out: dict[str, dict[str, tuple[str, str, dict[str, Any]]]] = {c: {} for c in CATEGORIES}
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


def _facts(n: Mapping[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
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
    simple = {
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


def _outcome(category: str, a: dict | None, b: dict | None, left_complete: bool, right_complete: bool) -> str:
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


def _version_item(category, key, left, right, status, links) -> dict[str, Any]:
    a, b = (left or (None, None, None)), (right or (None, None, None))
    fa, fb = a[2], b[2]
    changed = sorted(f for f in set(fa or {}) | set(fb or {}) if (fa or {}).get(f) != (fb or {}).get(f))
    if status in ("added", "removed") or (status == "unknown" and (fa is None or fb is None)):
        dimensions = ["availability"] if status != "unknown" else ["coverage"]
    else:
        dimensions = sorted(
            {"content" if f in _CONTENT else "properties" for f in changed}
            | ({"coverage"} if status == "unknown" else set())
        )
    both = a[0] is not None and b[0] is not None
    item: dict[str, Any] = {
        "item_id": "javc_item_" + canonical_sha256([category, key]),
        "node_kind": a[1] or b[1],
        "left_node_id": a[0],
        "right_node_id": b[0],
        "status": status,
        "match": {
            "status": "matched" if both else "unmatched",
            "basis": ("exact-node-identity" if a[0] == b[0] else "semantic-key") if both else "none",
            "confidence": ("exact" if a[0] == b[0] else "medium") if both else "unknown",
            "candidate_left_node_ids": [a[0]] if a[0] else [],
            "candidate_right_node_ids": [b[0]] if b[0] else [],
        },
        "dimensions": dimensions,
        "evidence_links": list(links),
        "limitations": (
            ["The other side's coverage is partial: absence is not established."]
            if status == "unknown" and not both
            else ["A module's content digest is missing on one side (not read)."]
            if status == "unknown"
            else []
        ),
        "category": category,
        "key": key,
        "changed_fields": changed if both else [],
    }
    if status == "changed" or (status == "unknown" and both):
        item["left"], item["right"] = fa, fb
    return item


def compare_versions(
    left: Mapping[str, Any], right: Mapping[str, Any], max_items: int, links: Sequence[str]
) -> dict[str, Any]:
    """Pair by exact key (path, channel, route, ...); one-sided absence is added/removed only when the
    other side's coverage is complete, otherwise unknown. Changed items come first, then unchanged ones."""
    li, ri = _index(left), _index(right)
    lc, rc = graph_status(left) == "complete", graph_status(right) == "complete"
    lo, ro = _open_modules(left), _open_modules(right)
    categories: dict[str, Any] = {}
    pending: list[dict[str, Any]] = []
    settled: list[dict[str, Any]] = []
    content_only: list[str] = []
    for category in CATEGORIES:
        counts = dict.fromkeys(OUTCOMES, 0)
        for key in sorted(set(li[category]) | set(ri[category])):
            a, b = li[category].get(key), ri[category].get(key)
            module = key.rsplit("#", 1)[0] if category == "exports" else None
            status = _outcome(category, a and a[2], b and b[2], lc and module not in lo, rc and module not in ro)
            counts[status] += 1
            item = _version_item(category, key, a, b, status, links)
            if category == "modules" and status == "changed" and item["changed_fields"] == ["sha256"]:
                content_only.append(key)  # bytes differ, nothing the graph records does: counted, not listed
                continue
            (settled if status == "unchanged" else pending).append(item)
        categories[category] = {"counts": counts}
    every = pending + settled
    items, omitted = every[:max_items], max(0, len(every) - max_items)
    summary = {s: sum(c["counts"][s] for c in categories.values()) for s in OUTCOMES}
    matched = [i for i in every if i["match"]["status"] == "matched"]
    partial = not (lc and rc)
    return {
        "schema_version": 1,
        "comparison_id": "javc_" + canonical_sha256({"left": links[0], "right": links[1], "limit": max_items}),
        "left": {},
        "right": {},
        "matching": {
            "exact_node_identity": sum(1 for i in matched if i["match"]["basis"] == "exact-node-identity"),
            "exact_content_digest": 0,
            "exact_module_source_digest": 0,
            "source_map_identity": 0,
            "structural_fingerprint": 0,
            "semantic_key": sum(1 for i in matched if i["match"]["basis"] == "semantic-key"),
            "ambiguous": 0,
            "unmatched": len(every) - len(matched),
        },
        "items": items,
        "summary": summary,
        "coverage": {
            "status": "truncated" if omitted else "partial" if partial else "complete-within-inputs",
            "left_graph_status": graph_status(left),
            "right_graph_status": graph_status(right),
            "omitted_comparison_items": omitted,
            "omitted_candidate_references": 0,
            "omitted_graph_nodes": 0,
            "omitted_graph_edges": 0,
            "omitted_graph_observations": 0,
        },
        "evidence_links": list(links),
        "categories": categories,
        "pairing": PAIRING,
        "content_only_changes": {
            "category": "modules",
            "count": len(content_only),
            "sample_keys": content_only[:CONTENT_ONLY_SAMPLE],
            "note": CONTENT_ONLY_NOTE,
        },
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


def _changed_from(item: Mapping[str, Any]) -> dict[str, Any] | None:
    left, right = item["left_node_id"], item["right_node_id"]
    if item["match"]["status"] != "matched" or item["status"] == "unchanged" or left == right:
        return None
    properties = {
        "comparison_item_id": item["item_id"],
        "status": item["status"],
        "match_basis": item["match"]["basis"],
        "match_confidence": item["match"]["confidence"],
        "dimensions": item["dimensions"],
    }
    return {
        "edge_id": edge_id({"relation": "changed_from", "from": right, "to": left, "item": item["item_id"]}),
        "source_node_id": right,
        "target_node_id": left,
        "relation": "changed_from",
        "properties": properties,
        **pairing_envelope(properties),
    }


def change_graph(
    left: Mapping[str, Any], right: Mapping[str, Any], items: Sequence[Mapping[str, Any]], limits: Mapping[str, int]
) -> dict[str, Any]:
    """The reference's change graph, bounded by max_graph_nodes and max_graph_edges."""
    lg, rg = left["graph"], right["graph"]
    changed = [i for i in items if i["status"] != "unchanged"]
    wanted = {*lg["root_node_ids"], *rg["root_node_ids"]} | {
        n for i in changed for n in (i["left_node_id"], i["right_node_id"]) if n is not None
    }
    by_id = {n["node_id"]: n for n in lg["nodes"] if n["node_id"] in wanted}
    by_id.update({n["node_id"]: n for n in rg["nodes"] if n["node_id"] in wanted})
    nodes = [by_id[n] for n in sorted(by_id)][: limits["max_graph_nodes"]]
    kept = {n["node_id"] for n in nodes}
    edges: dict[str, Mapping[str, Any]] = {}  # an edge id names the same relation in either version
    for e in (*lg["edges"], *rg["edges"]):
        if e["source_node_id"] in kept and e["target_node_id"] in kept:
            edges.setdefault(e["edge_id"], e)
    pairs = [c for c in map(_changed_from, changed) if c and {c["source_node_id"], c["target_node_id"]} <= kept]
    every = [*edges.values(), *pairs]
    listed = [dict(e) for e in every[: limits["max_graph_edges"]]]
    omitted = (len(by_id) - len(nodes), len(every) - len(listed))
    complete = lg["coverage"]["status"] == rg["coverage"]["status"] == "complete" and not any(omitted)
    bounds = [("max_graph_nodes", omitted[0]), ("max_graph_edges", omitted[1])]
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
            "limits": [{"name": n, "unit": "items", "value": limits[n]} for n, o in bounds if o],
        },
        "limitations": [CHANGE_GRAPH_NOTE],
        "_omitted": omitted,
    }


# -------------------------------------------------------- source to bundle

WEIGHTS = {
    "exact-source-digest": 60,
    "source-map-original-path": 30,
    "current-path-exact": 30,
    "current-path-suffix": 15,
    "basename-match": 5,
    "language-extension": 5,
}
MIN_SCORE = 20
_SHIPPED_KINDS = ("original-source-module", "bundled-module")


def _shipped(application: Mapping[str, Any]) -> dict[str, list[Mapping[str, Any]]]:
    """Comparable source path -> the shipped nodes (original sources, bundled modules) that carry it."""
    out: dict[str, list[Mapping[str, Any]]] = {}
    for n in application["graph"]["nodes"]:
        if n["subkind"] in _SHIPPED_KINDS and (n.get("source") or n.get("path")):
            out.setdefault(comparable_path(n.get("source") or n["path"]), []).append(n)
    return out


def _signals(path: str, sha: str | None, key: str, node: Mapping[str, Any]) -> list[dict[str, Any]]:
    signals = []
    digest = node.get("content_sha256") or node.get("sha256")
    if sha is not None and digest == sha:
        signals.append(("exact-source-digest", sha, digest))
    if node["subkind"] == "original-source-module" or node.get("source"):
        signals.append(("source-map-original-path", path, node.get("source") or node["path"]))
    signals.append(("current-path-exact" if key == path else "current-path-suffix", path, key))
    return [{"kind": k, "weight": WEIGHTS[k], "source_value": s, "current_values": [c]} for k, s, c in signals]


def _candidates(path: str, sha: str | None, keys: Sequence[str], shipped) -> list[dict[str, Any]]:
    out = []
    for key in keys:
        for node in shipped[key]:
            signals = _signals(path, sha, key, node)
            score = sum(s["weight"] for s in signals)
            exact = signals[0]["kind"] == "exact-source-digest"
            out.append(
                {
                    "current_node_id": node["node_id"],
                    "current_node_kind": node["kind"],
                    "score": score,
                    "confidence": "exact" if exact else "high" if key == path else "medium",
                    "signals": signals,
                }
            )
    return sorted(out, key=lambda c: (-c["score"], c["current_node_id"]))


def _mapping(entry: Mapping[str, Any], shipped, app_complete: bool, cap: int) -> tuple[dict[str, Any], list[str]]:
    path, sha = entry["path"], entry.get("sha256")
    keys = sorted(k for k in shipped if k == path or k.endswith("/" + path) or path.endswith("/" + k))
    exact = [k for k in keys if k == path]
    pick = exact or keys
    candidates = _candidates(path, sha, keys, shipped)
    limitations: list[str] = []
    if not pick:
        status = "removed" if app_complete else "unknown"
        if not app_complete:
            limitations.append("The application's coverage is partial: absence is not established.")
    elif len(pick) > 1:
        status = "unknown"
        limitations.append(f"{len(pick)} shipped paths end with this path: the mapping is ambiguous.")
    elif sum(1 for n in shipped[pick[0]] if n["subkind"] == "bundled-module") > 1:
        status = "duplicated"
    elif sha is not None and any(c["signals"][0]["kind"] == "exact-source-digest" for c in candidates):
        status = "unchanged"
    elif sha is not None and any(n.get("content_sha256") for n in shipped[pick[0]]):
        status = "modified"
    else:
        status = "unknown"
        limitations.append("No content digest on one side: the shipped content cannot be compared.")
    used = pick if len(pick) == 1 else []
    current = [n["node_id"] for k in used for n in shipped[k]]
    confidence = candidates[0]["confidence"] if candidates and used else "unknown"
    return (
        {
            "mapping_id": "stbc_item_" + canonical_sha256(path),
            "source_path": path,
            "source_language": entry.get("language"),
            "source_sha256": sha,
            "status": status,
            "confidence": confidence,
            "current_node_ids": current,
            "candidates": candidates[:cap],
            "omitted_candidates": max(0, len(candidates) - cap),
            "limitations": limitations,
        },
        used,
    )


def source_to_bundle(
    application: Mapping[str, Any],
    entries: Sequence[Mapping[str, Any]],
    reference: Mapping[str, Any],
    links: Sequence[str],
    limits: Mapping[str, int],
) -> dict[str, Any]:
    """Each reference source file mapped to what the bundle ships (source-map sources, bundled modules)."""
    every = _shipped(application)
    shipped, retained = _bounded(every, limits["max_application_nodes"])
    app_complete = graph_status(application) == "complete" and retained == sum(map(len, every.values()))
    files = sorted(entries, key=lambda e: e["path"])
    items, used = [], set()
    for entry in files[: limits["max_source_files"]]:
        item, keys = _mapping(entry, shipped, app_complete, limits["max_candidate_nodes"])
        items.append(item)
        used.update(keys)
    summary = dict.fromkeys(("unchanged", "modified", "removed", "split", "merged", "duplicated", "unknown"), 0)
    for item in items:
        summary[item["status"]] += 1
    unmapped = sorted(n["node_id"] for k, ns in shipped.items() if k not in used for n in ns)
    coverage = _source_coverage(application, reference, items, len(files), (retained, sum(map(len, every.values()))))
    if coverage["candidate_evaluations"] > limits["max_candidate_evaluations"]:
        coverage["status"] = "truncated"
    return {
        "schema_version": 1,
        "comparison_id": "stbc_" + canonical_sha256({"links": list(links), "reference": reference["root_sha256"]}),
        "application": {},
        "reference": dict(reference),
        "items": items,
        "unmapped_current_node_ids": unmapped,
        "summary": summary,
        "scoring": {
            "algorithm": "rea-source-to-bundle-signals/v1",
            "minimum_candidate_score": MIN_SCORE,
            "weights": [{"signal": k, "weight": v} for k, v in WEIGHTS.items()],
        },
        "coverage": coverage,
        "evidence_links": list(links),
    }


def _bounded(shipped: Mapping[str, list], cap: int) -> tuple[dict[str, list], int]:
    """The first `cap` shipped nodes, in comparable-path order."""
    out: dict[str, list] = {}
    kept = 0
    for key in sorted(shipped):
        room = cap - kept
        if room <= 0:
            break
        out[key] = list(shipped[key][:room])
        kept += len(out[key])
    return out, kept


def _source_coverage(application, reference, items, files: int, nodes: tuple[int, int]) -> dict[str, Any]:
    omitted_files, omitted_nodes = files - len(items), nodes[1] - nodes[0]
    partial = graph_status(application) != "complete" or reference["inventory_state"] != "complete"
    return {
        "status": "truncated" if omitted_files or omitted_nodes else "partial" if partial else "complete-within-inputs",
        "application_graph_status": graph_status(application),
        "reference_inventory_state": reference["inventory_state"],
        "retained_source_files": len(items),
        "omitted_source_files": omitted_files,
        "retained_application_nodes": nodes[0],
        "omitted_application_nodes": omitted_nodes,
        "candidate_evaluations": sum(len(i["candidates"]) + i["omitted_candidates"] for i in items),
        "omitted_candidate_evaluations": 0,
        "omitted_candidate_references": sum(i["omitted_candidates"] for i in items),
        "omitted_unmapped_current_nodes": 0,
    }


def _language(path: str) -> str | None:
    ext = path.rsplit(".", 1)[-1] if "." in path.rsplit("/", 1)[-1] else ""
    return {"js": "javascript", "mjs": "javascript", "cjs": "javascript", "jsx": "javascript"}.get(
        ext, "typescript" if ext in ("ts", "tsx", "mts", "cts") else None
    )


def own_sources(application: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The bundle's own source-map sources as the reference (reference omitted)."""
    return [
        {
            "path": comparable_path(n.get("source") or n["path"]),
            "sha256": n.get("content_sha256"),
            "language": _language(n["path"]),
        }
        for n in application["graph"]["nodes"]
        if n["subkind"] == "original-source-module"
    ]


def tree_sources(reference: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The modules of an analysed source tree (outside node_modules) as the reference."""
    return [
        {"path": n["path"], "sha256": n.get("sha256"), "language": n.get("language")}
        for n in reference["graph"]["nodes"]
        if n["subkind"] == "module" and "node_modules/" not in n["path"]
    ]


def historical_sources(graph: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The hashed (or unhashed) files of a HistoricalSourceGraph."""
    return [
        {"path": e["path"], "sha256": e.get("sha256"), "language": e.get("language")}
        for e in graph["entries"]
        if e.get("kind") == "file"
    ]


# ---------------------------------------------------------- export shapes


def _candidate(node: Mapping[str, Any], name: str, module_path: str, export_name: str) -> dict[str, Any]:
    return {
        "node_id": node["node_id"],
        "module_path": node["path"],
        "export_name": name,
        "matches_requested_module": node["path"] == module_path,
        "matches_requested_export": name == export_name,
    }


def find_export(result: Mapping[str, Any], module_path: str, name: str) -> dict[str, Any]:
    """One export of the module at `module_path`: a file of the tree, else an original source a source map
    embeds (by its path or its comparable path), so shipped bundles with maps compare too."""
    nodes = result["graph"]["nodes"]
    modules = [n for n in nodes if n["subkind"] == "module" and n["path"] == module_path]
    if not modules:
        wanted = comparable_path(module_path)
        modules = [
            n
            for n in nodes
            if n["subkind"] == "original-source-module"
            and "exports" in n
            and (n["path"] == module_path or comparable_path(n["path"]) == wanted)
        ]
    if len(modules) != 1:
        base = module_path.rsplit("/", 1)[-1]
        pool = modules or [
            n for n in nodes if n["subkind"] in ("module", "original-source-module") and n["path"].endswith(base)
        ]
        found = [_candidate(n, e["name"], module_path, name) for n in pool for e in n.get("exports", ())]
        return {"status": "ambiguous" if modules else "missing", "node": None, "export": None, "candidates": found}
    exports = [e for e in modules[0].get("exports", ()) if e["name"] == name]
    if len(exports) != 1:
        found = [_candidate(modules[0], e["name"], module_path, name) for e in modules[0].get("exports", ())]
        return {"status": "missing", "node": modules[0], "export": None, "candidates": found}
    return {
        "status": "selected",
        "node": modules[0],
        "export": _followed(result, modules[0], exports[0]),
        "candidates": [],
    }


MAX_REEXPORT_HOPS = 8


def _followed(result: Mapping[str, Any], node: Mapping[str, Any], export: Mapping[str, Any]) -> Mapping[str, Any]:
    """A getter re-export (`get: () => _v.default`, `_v = require("./v1.js")`) stands for the export it
    returns: follow the module's resolved import of that specifier, a bounded number of hops."""
    edges = result["graph"]["edges"]
    by_id = {n["node_id"]: n for n in result["graph"]["nodes"]}
    through: list[str] = []
    for _ in range(MAX_REEXPORT_HOPS):
        link = (export.get("shape") or {}).get("reexports")
        if not link or link["name"] == "*":
            break
        target = next(
            (
                by_id.get(e["target_node_id"])
                for e in edges
                if e["relation"] == "imports"
                and e["source_node_id"] == node["node_id"]
                and e.get("specifier") == link["specifier"]
            ),
            None,
        )
        hit = [x for x in (target or {}).get("exports", ()) if x["name"] == link["name"]] if target else []
        if len(hit) != 1:
            break
        through.append(f"{target['path']}#{link['name']}")
        node, export = target, hit[0]
    return {**export, "through": through} if through else export


def export_side(
    found: Mapping[str, Any], evidence_id: str, result, module_path: str, name: str, cap: int = 100
) -> dict[str, Any]:
    side: dict[str, Any] = {
        "status": found["status"],
        "evidence_id": evidence_id,
        "graph_id": result["graph"]["graph_id"],
        "requested_module_path": module_path,
        "requested_export_name": name,
        "selected_node_id": found["node"]["node_id"] if found["status"] == "selected" else None,
        "candidates": found["candidates"][:cap],
        "omitted_candidates": max(0, len(found["candidates"]) - cap),
    }
    if found["export"] is not None:
        side["form"] = found["export"].get("form")
        side["shape"] = found["export"].get("shape", {})
        if found["export"].get("through"):
            side["resolved_through"] = found["export"]["through"]
    return {k: v for k, v in side.items() if v is not None or k == "selected_node_id"}


def _members(shape: Mapping[str, Any]) -> tuple[set[str] | None, str]:
    kind = shape.get("type")
    if kind in ("object", "class"):
        if shape.get("members_truncated"):
            return None, "member list truncated at the per-node bound"
        return set(shape.get("members") or ()), "members"
    if kind == "function":
        returns = shape.get("returns") or []
        if returns and all(r is not None for r in returns) and not shape.get("returns_truncated"):
            return set().union(*map(set, returns)), "returned object keys"
        return None, "return value not statically resolvable"
    return None, f"{kind} export has no static member shape"


_PRESENT = {"availability": "unknown", "reason": "present; its value is not modelled statically"}
_ABSENT = {"availability": "absent"}


def _pointer(member: str) -> str:
    return "/" + member.replace("~", "~0").replace("/", "~1")


def _change(path: str, status: str, left: dict, right: dict, links: Sequence[str], why: str | None = None) -> dict:
    return {
        "change_id": "jesc_change_" + canonical_sha256([path, status]),
        "path": path,
        "status": status,
        "left": left,
        "right": right,
        "discriminant": None,
        "left_source_range": None,
        "right_source_range": None,
        "evidence_links": list(links),
        "limitations": [why] if why else [],
    }


def shape_changes(left: Mapping | None, right: Mapping | None, links: Sequence[str]) -> tuple[list[dict], str | None]:
    """Member changes between two selected exports, or one unknown change with the reason."""
    if left is None or right is None:
        why = "the export was not found exactly once on both sides"
        unknown = {"availability": "unknown", "reason": why}
        return [_change("", "unknown", unknown, unknown, links, why)], why
    ls, rs = left.get("shape", {}), right.get("shape", {})
    if "unknown" in (ls.get("type", "unknown"), rs.get("type", "unknown")):
        why = (
            "an export's value is not modelled statically ("
            + ("left" if ls.get("type", "unknown") == "unknown" else "right")
            + ")"
        )
        unknown = {"availability": "unknown", "reason": why}
        return [_change("", "unknown", unknown, unknown, links, why)], why
    if ls.get("type") != rs.get("type"):
        values = (
            {"availability": "literal", "value": ls.get("type")},
            {"availability": "literal", "value": rs.get("type")},
        )
        return [_change("/type", "changed", *values, links)], None
    if ls.get("type") == "literal":
        return _literal_change(comparable_shape(ls), comparable_shape(rs), links), None
    lm, lwhy = _members(ls)
    rm, rwhy = _members(rs)
    if lm is None or rm is None:
        why = lwhy if lm is None else rwhy
        unknown = {"availability": "unknown", "reason": why}
        return [_change("", "unknown", unknown, unknown, links, why)], why
    added = [_change(_pointer(m), "added", _ABSENT, _PRESENT, links) for m in sorted(rm - lm)]
    removed = [_change(_pointer(m), "removed", _PRESENT, _ABSENT, links) for m in sorted(lm - rm)]
    return added + removed, None


def _literal_change(ls: Mapping[str, Any], rs: Mapping[str, Any], links: Sequence[str]) -> list[dict]:
    """Two literal exports: unchanged when their digests agree, else one change showing both values."""
    if ls.get("sha256") == rs.get("sha256") and ls.get("value") == rs.get("value"):
        return []
    sides = [{"availability": "literal", "value": s.get("value"), "sha256": s.get("sha256")} for s in (ls, rs)]
    cut = [s for s, shape in zip(("left", "right"), (ls, rs)) if shape.get("value_truncated")]
    why = f"the {' and '.join(cut)} value is shown to its first 512 characters" if cut else None
    return [_change("/value", "changed", *sides, links, why)]


def _cut(export: Mapping | None) -> int:
    """Member lists of a shape that the per-node bound cut (each counted once: their lengths are unknown)."""
    shape = (export or {}).get("shape") or {}
    return sum(1 for flag in ("members_truncated", "returns_truncated") if shape.get(flag))


def _variant_coverage(left: Mapping | None, right: Mapping | None) -> dict[str, Any]:
    """The reference's variant counts: an export here has one static shape (its direct returns' keys are
    merged, never split into variants), so a pair is one variant on each side or none."""
    return {
        "paired_variants": int(left is not None and right is not None),
        "unpaired_left_variants": int(left is not None and right is None),
        "unpaired_right_variants": int(right is not None and left is None),
        "omitted_left_variants": 0,
        "omitted_right_variants": 0,
        "left_source_omitted_variants": None,
        "right_source_omitted_variants": None,
        "left_omitted_fields": _cut(left),
        "right_omitted_fields": _cut(right),
        "left_omitted_property_coverage": 0,
        "right_omitted_property_coverage": 0,
    }


def export_shapes(
    sides: Sequence[dict], found: Sequence[Mapping], statuses: Sequence[str], links, max_changes: int = 1000
) -> dict:
    every, why = shape_changes(found[0]["export"], found[1]["export"], links)
    open_sides = [
        f"{side}: {f['node']['path']} re-exports or computes names it does not list ({f['node']['exports_open'][0]['reason']})"
        for side, f in zip(("left", "right"), found)
        if f["export"] is None and f["node"] is not None and f["node"].get("exports_open")
    ]
    if open_sides:
        why = "the export was not found, and its module's export list is open: " + "; ".join(open_sides)
        every = [
            _change(
                "",
                "unknown",
                {"availability": "unknown", "reason": why},
                {"availability": "unknown", "reason": why},
                links,
                why,
            )
        ]
    summary = {s: sum(1 for c in every if c["status"] == s) for s in ("added", "changed", "removed", "unknown")}
    changes = every[:max_changes]
    partial = why or set(statuses) != {"complete"}
    coverage: dict[str, Any] = {
        "status": "truncated" if len(every) > max_changes else "partial" if partial else "complete-within-inputs",
        "left_graph_status": statuses[0],
        "right_graph_status": statuses[1],
        "omitted_changes": len(every) - len(changes),
        "omitted_candidates": sides[0]["omitted_candidates"] + sides[1]["omitted_candidates"],
        **_variant_coverage(found[0]["export"], found[1]["export"]),
    }
    if why:
        coverage["reason"] = why
    return {
        "schema_version": 1,
        "comparison_id": "jesc_" + canonical_sha256({"links": list(links), "left": sides[0], "right": sides[1]}),
        "left": sides[0],
        "right": sides[1],
        "changes": changes,
        "summary": summary,
        "coverage": coverage,
        "runtime_validation": {
            "automatically_started": False,
            "recommended_tool": "run_controlled_replay",
            "required_for": "runtime-semantics",
        },
        "evidence_links": list(links),
        "status": "unknown" if why else "changed" if every else "unchanged",
    }


MODULE_NODE_KINDS = MODULE_KINDS
