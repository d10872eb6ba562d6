"""Comparisons of application records: versions, source against bundle, export shapes (pure)."""

from __future__ import annotations

from typing import Any
from collections.abc import Callable, Mapping

from rea.javascript.graph import MODULE_KINDS
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


def _index(result: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """category -> key -> comparable facts."""
    nodes = result["nodes"]
    out: dict[str, dict[str, Any]] = {c: {} for c in CATEGORIES}
    for n in nodes:
        k = n["kind"]
        if k == "module":
            out["modules"][n["path"]] = {
                "sha256": n.get("sha256"),
                "roles": sorted(r["role"] for r in n.get("roles", ())),
                "parse": n.get("parse"),
            }
            for e in n.get("exports", ()):
                out["exports"][f"{n['path']}#{e['name']}"] = {"form": e.get("form"), "shape": e.get("shape")}
        elif k == "bundled-module" and (n.get("source") or n.get("path")):
            # keyed by original source, not by module id or bundle file name: both change between builds
            key = comparable_path(n.get("source") or n["path"])
            key = key if key not in out["bundled_modules"] else f"{key} ({n['bundle']})"
            out["bundled_modules"][key] = {
                "exports": sorted(e["name"] for e in n.get("exports", ())),
                "generated_bytes": n["location"]["end"] - n["location"]["start"]
                if "end" in n.get("location", {})
                else None,
                "segments": n.get("segments"),
            }
        elif k == "ipc-channel":
            out["ipc_channels"][n["channel"]] = {"ends": n["ends"], "linked": n["linked"]}
        elif k == "route":
            out["routes"][n["id"][6:]] = {}
        elif k == "url":
            out["urls"][n["url"]] = {}
        elif k == "protocol":
            out["protocols"][n["scheme"]] = {}
        elif k == "context-bridge-api":
            out["context_bridge_apis"][n["key"]] = {"members": n.get("members")}
        elif k == "browser-window":
            out["browser_windows"][n["id"].split(":", 1)[1].rsplit(":", 1)[0] + f"#{n['constructor']}"] = {
                "web_preferences": n["web_preferences"]
            }
        elif k == "package":
            for dep, version in (n.get("dependencies") or {}).items():
                out["dependencies"][f"{n['path']}:{dep}"] = {"range": version}
            if n.get("name") is not None:
                out["dependencies"][f"{n['path']}:(self)"] = {"name": n.get("name"), "version": n.get("version")}
    return out


def compare_versions(left: Mapping[str, Any], right: Mapping[str, Any], max_items: int) -> dict[str, Any]:
    """Pair by exact key (path, channel, route, ...); one-sided absence is added/removed only when the
    other side's coverage is complete, otherwise unknown."""
    li, ri = _index(left), _index(right)
    left_complete = left["coverage"]["status"] == "complete"
    right_complete = right["coverage"]["status"] == "complete"
    categories: dict[str, Any] = {}
    emitted = omitted = 0
    totals = {"unchanged": 0, "added": 0, "removed": 0, "changed": 0, "unknown": 0}
    for category in CATEGORIES:
        items = []
        counts = {"unchanged": 0, "added": 0, "removed": 0, "changed": 0, "unknown": 0}
        for key in sorted(set(li[category]) | set(ri[category])):
            a, b = li[category].get(key), ri[category].get(key)
            if a is not None and b is not None:
                if a == b:
                    status = "unchanged"
                elif category == "modules" and (a.get("sha256") is None or b.get("sha256") is None):
                    status = "unknown"
                else:
                    status = "changed"
            elif a is None:
                status = "added" if left_complete else "unknown"
            else:
                status = "removed" if right_complete else "unknown"
            counts[status] += 1
            if status == "unchanged":
                continue
            if emitted >= max_items:
                omitted += 1
                continue
            item: dict[str, Any] = {"key": key, "status": status}
            if status == "changed":
                item["changed"] = sorted(f for f in set(a) | set(b) if a.get(f) != b.get(f))
                item["left"], item["right"] = a, b
            elif status == "unknown" and (a is None or b is None):
                item["reason"] = "the other side's coverage is partial: absence is not established"
            items.append(item)
            emitted += 1
        categories[category] = {"counts": counts, "items": items}
        for s, c in counts.items():
            totals[s] += c
    return {
        "categories": categories,
        "totals": totals,
        "truncated": omitted > 0,
        "omitted_items": omitted,
        "coverage": {"left": left["coverage"]["status"], "right": right["coverage"]["status"]},
        "pairing": "exact keys: module path, bundled module's original source, export path#name, channel, route, "
        "URL, scheme, dependency name",
    }


def source_to_bundle(application: Mapping[str, Any], reference: Mapping[str, Any] | None) -> dict[str, Any]:
    """Reference source files (another application record, or the bundle's own source-map sources)
    against what the bundle ships: source-map sources and recovered bundled modules."""
    shipped: dict[str, list[str]] = {}
    for n in application["nodes"]:
        if n["kind"] in ("original-source-module", "bundled-module") and (n.get("source") or n.get("path")):
            shipped.setdefault(comparable_path(n.get("source") or n["path"]), []).append(n["id"])
    if reference is None:
        ref = {
            comparable_path(n.get("source") or n["path"]): n
            for n in application["nodes"]
            if n["kind"] == "original-source-module"
        }
        basis = "source-map sources of the application itself"
        ref_complete = application["coverage"]["status"] == "complete"
    else:
        ref = {n["path"]: n for n in reference["nodes"] if n["kind"] == "module" and "node_modules/" not in n["path"]}
        basis = "modules of the reference source tree"
        ref_complete = reference["coverage"]["status"] == "complete"
    matched, missing, ambiguous = [], [], []
    used: set[str] = set()
    for path in sorted(ref):
        candidates = sorted(k for k in shipped if k == path or k.endswith("/" + path) or path.endswith("/" + k))
        exact = [k for k in candidates if k == path]
        pick = exact or candidates
        if len(pick) == 1:
            matched.append(
                {
                    "source": path,
                    "shipped": pick[0],
                    "nodes": shipped[pick[0]],
                    "basis": "exact-path" if exact else "path-suffix",
                }
            )
            used.add(pick[0])
        elif len(pick) > 1:
            ambiguous.append({"source": path, "candidates": pick[:20]})
        else:
            missing.append({"source": path})
    extra = [{"shipped": k, "nodes": v} for k, v in sorted(shipped.items()) if k not in used]
    app_complete = application["coverage"]["status"] == "complete"
    return {
        "basis": basis,
        "matched": matched,
        "missing": missing,
        "extra": extra,
        "ambiguous": ambiguous,
        "counts": {
            "reference": len(ref),
            "shipped": len(shipped),
            "matched": len(matched),
            "missing": len(missing),
            "extra": len(extra),
            "ambiguous": len(ambiguous),
        },
        "missing_status": "missing" if app_complete else "unknown",
        "coverage": {
            "application": application["coverage"]["status"],
            "reference": "complete" if ref_complete else "partial",
        },
    }


def find_export(result: Mapping[str, Any], module_path: str, name: str) -> tuple[dict[str, Any] | None, list[str]]:
    """One export of the module at `module_path`: a file of the tree, else an original source a source map
    embeds (by its path or its comparable path), so shipped bundles with maps compare too."""
    modules = [n for n in result["nodes"] if n["kind"] == "module" and n["path"] == module_path]
    if not modules:
        wanted = comparable_path(module_path)
        modules = [
            n
            for n in result["nodes"]
            if n["kind"] == "original-source-module"
            and "exports" in n
            and (n["path"] == module_path or comparable_path(n["path"]) == wanted)
        ]
    if len(modules) != 1:
        base = module_path.rsplit("/", 1)[-1]
        candidates = sorted(
            n["path"]
            for n in result["nodes"]
            if n["kind"] in ("module", "original-source-module") and n["path"].endswith(base)
        )[:100]
        return None, candidates
    exports = [e for e in modules[0].get("exports", ()) if e["name"] == name]
    if len(exports) != 1:
        return None, sorted({e["name"] for e in modules[0].get("exports", ())})[:100]
    return exports[0], []


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


def export_shapes(left: Mapping[str, Any] | None, right: Mapping[str, Any] | None) -> dict[str, Any]:
    if left is None or right is None:
        return {"status": "unknown", "reason": "the export was not found exactly once on both sides"}
    ls, rs = left.get("shape", {}), right.get("shape", {})
    lm, lwhy = _members(ls)
    rm, rwhy = _members(rs)
    base = {"left": {"form": left.get("form"), "shape": ls}, "right": {"form": right.get("form"), "shape": rs}}
    if ls.get("type") != rs.get("type"):
        return {
            **base,
            "status": "changed",
            "changes": [{"path": "/type", "status": "changed", "left": ls.get("type"), "right": rs.get("type")}],
        }
    if lm is None or rm is None:
        return {**base, "status": "unknown", "reason": lwhy if lm is None else rwhy, "changes": []}
    changes = [{"path": f"/{m}", "status": "added"} for m in sorted(rm - lm)] + [
        {"path": f"/{m}", "status": "removed"} for m in sorted(lm - rm)
    ]
    return {**base, "status": "changed" if changes else "unchanged", "changes": changes, "members_compared": lwhy}


Compare = Callable[..., dict[str, Any]]
MODULE_NODE_KINDS = MODULE_KINDS
