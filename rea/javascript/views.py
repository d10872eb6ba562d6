"""Views over analyze_javascript_application Evidence: a summary, one module, stable pages of modules.

`application_view` is the projection inspect_analysis_view dispatches to for
application Evidence (`{kind: "summary"}`, `{kind: "item", collection: "modules",
selector: {node_id | path}}`, `{kind: "page", collection: "modules", offset,
limit}`); the record is read only through `view_access`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence
from rea.javascript import view_access as access
from rea.javascript.ids import node_id
from rea.javascript.view_access import OPERATION, StoredApplication, StoredEdge, StoredNode, is_application
from rea.views.projection import complete_coverage, page_rows, unique_sorted, view_error
from rea.views.records.requests import DEFAULT_LIMIT, PageView, view_call

TOP = 20
MODULE_EDGE_LIMIT = 200
__all__ = ["OPERATION", "application_view", "check_application", "is_application", "view_evidence"]


def check_application(evidence: Evidence, field: str) -> Result[Mapping[str, Any], ReaError]:
    if not is_application(evidence):
        result = evidence.normalized_result
        if isinstance(result, Mapping) and result.get("parent_evidence_id"):
            hint = f"it is a view; pass its parent {result.get('parent_evidence_id')} instead"
        else:
            hint = f"it was produced by {evidence.operation}"
        return Failure(
            invalid_request(
                f"{field} must be complete analyze_javascript_application Evidence; {hint}.",
                field=field,
                accepted='complete application Evidence inline, or {"kind": "retained-evidence", "evidence_id": ...}',
                reason="wrong_evidence_kind",
            )
        )
    return Success(evidence.normalized_result)


def _roles(nodes: Sequence[StoredNode]) -> dict[str, Any]:
    by_role: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for n in nodes:
        for r in n.fact("roles") or ():
            by_role[r["role"]].append((n.path or "", n.node_id))
    return {
        role: {
            "count": len(found),
            "modules": [i for _, i in sorted(found)[:TOP]],
            "paths": [p for p, _ in sorted(found)[:TOP]],
        }
        for role, found in sorted(by_role.items())
    }


def _bundles(nodes: Sequence[StoredNode]) -> list[dict[str, Any]]:
    bundles: dict[str, dict[str, Any]] = {}
    for n in nodes:
        if n.kind == "module" and n.fact("bundlers"):
            bundles.setdefault(
                n.row["path"],
                {"node_id": n.node_id, "bundlers": n.row["bundlers"], "bundled_modules": 0, "named": 0},
            )
    for n in nodes:
        if n.kind == "bundled-module":
            bundle = n.row["bundle"]
            entry = bundles.setdefault(
                bundle, {"node_id": node_id(f"module:{bundle}"), "bundlers": [], "bundled_modules": 0, "named": 0}
            )
            entry["bundled_modules"] += 1
            entry["named"] += bool(n.fact("path"))
            how = entry.setdefault("recovered_by", {})
            how[n.fact("recovered_by")] = how.get(n.fact("recovered_by"), 0) + 1
    ranked = sorted(bundles.items(), key=lambda kv: (-kv[1]["bundled_modules"], kv[0]))
    return [{"path": path, "recovered_by": {}, **info} for path, info in ranked]


def _protocols(nodes: Sequence[StoredNode], edges: Sequence[StoredEdge]) -> list[dict[str, Any]]:
    """Registered protocols (`app:`): the scheme, how it was registered (registerSchemesAsPrivileged,
    registerFileProtocol, handle, ...) and where first."""
    how: dict[Any, set[str]] = defaultdict(set)
    for e in edges:
        if e.relation == "handles" and e.kind:
            how[e.target].add(str(e.kind))
    return [
        {
            "scheme": n.fact("scheme"),
            "node_id": n.node_id,
            "registrations": sorted(how.get(n.node_id, ())),
            "location": n.fact("location"),
        }
        for n in nodes
        if n.kind == "protocol"
    ]


def _highlights(app: StoredApplication, evidence_id: str) -> dict[str, Any]:
    """Our summary extras: the first TOP of each list, with totals."""
    nodes = app.nodes
    channels = [
        {"channel": n.fact("channel"), "ends": n.fact("ends"), "linked": n.fact("linked"), "node_id": n.node_id}
        for n in nodes
        if n.kind == "ipc-channel"
    ]
    windows = [
        {"node_id": n.node_id, "web_preferences": n.fact("web_preferences"), "location": n.fact("location")}
        for n in nodes
        if n.kind == "browser-window"
    ]
    bundles = _bundles(nodes)
    findings, unknowns = app.collection("findings"), app.collection("unknowns")
    policies = [f for f in findings if f.get("kind") == "content-security-policy"]
    protocols = _protocols(nodes, app.edges)
    first_page = PageView(kind="page", collection="modules", offset=0, limit=DEFAULT_LIMIT)
    return {
        "application": app.application,
        "entry_points": app.collection("entry_points")[:TOP],
        "roles": _roles(nodes),
        "ipc_channels": {
            "total": len(channels),
            "unlinked": sum(not c["linked"] for c in channels),
            "items": channels[:TOP],
        },
        "browser_windows": windows[:TOP],
        "protocols": {"total": len(protocols), "items": protocols[:TOP]},
        "content_security_policies": {"total": len(policies), "items": policies[:TOP]},
        "bundles": bundles[:TOP],
        "bundles_total": len(bundles),
        "top_findings": findings[:TOP],
        "findings_total": len(findings),
        "unknowns": unknowns[:TOP],
        "unknowns_total": len(unknowns),
        "parse_failures": app.collection("parse_failures")[:TOP],
        "integrity_contradictions": app.collection("integrity_contradictions"),
        "pages": {"modules": view_call(evidence_id, first_page), "module_total": len(app.modules())},
    }


def _summary(source: Evidence, app: StoredApplication) -> dict[str, Any]:
    unknown_nodes = sum(1 for n in app.nodes if n.kind == "unknown")
    return {
        "input_path": app.input_path,
        "format": app.format,
        "root_artifact_sha256": app.root_artifact_sha256,
        "statistics": app.statistics,
        "electron": app.electron,
        "coverage": {
            "application": app.coverage,
            "analysis": app.analysis_coverage,
            "application_unknowns": unknown_nodes + len(app.collection("unknowns")),
        },
        "limitation_count": len(source.limitations),
        "highlights": _highlights(app, source.evidence_id),
    }


def _select_module(app: StoredApplication, selector: Mapping[str, Any]) -> Result[StoredNode, ReaError]:
    path = ("view", "selector")
    if "node_id" in selector:
        wanted = selector["node_id"]  # the wire id, or the readable label it is derived from
        found = [n for n in app.nodes if wanted in (n.node_id, n.fact("label"))]
        if not found:
            return Failure(
                view_error(f"No node has node_id {selector['node_id']!r}; page the modules collection.", path)
            )
        return Success(found[0])
    if "path" not in selector:
        return Failure(view_error("Module items are selected by exact path or node_id, not index or name.", path))
    found = [n for n in app.modules() if n.path == selector["path"]]
    if not found:
        return Failure(view_error(f"No module has path {selector['path']!r}; page the modules collection.", path))
    if len(found) > 1:
        return Failure(
            view_error(
                f"{len(found)} modules have path {selector['path']!r}; select one by node_id.",
                path,
                reason="ambiguous",
                candidates=[n.node_id for n in found],
            )
        )
    return Success(found[0])


def _module_item(app: StoredApplication, node: StoredNode) -> dict[str, Any]:
    own = node.node_id
    outgoing = [e.row for e in app.edges if e.source == own]
    incoming = [e.row for e in app.edges if e.target == own]
    return {
        "node_id": own,
        "kind": node.kind,
        "path": node.path,
        "node": node.row,
        "outgoing": outgoing[:MODULE_EDGE_LIMIT],
        "outgoing_total": len(outgoing),
        "incoming": incoming[:MODULE_EDGE_LIMIT],
        "incoming_total": len(incoming),
        "truncated": len(outgoing) > MODULE_EDGE_LIMIT or len(incoming) > MODULE_EDGE_LIMIT,
    }


def _unknowns(app: StoredApplication) -> list[str]:
    status = app.analysis_coverage.get("status")
    found = [] if status == "complete" else [f"graph.coverage.status is {status}"]
    count = len(app.collection("unknowns"))
    if count:
        found.append(f"{count} application graph unknowns remain in the parent Evidence.")
    return found


def _project(source: Evidence, app: StoredApplication, view: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    modules = app.modules()
    if view["kind"] == "summary":
        return Success(
            {
                "summary": _summary(source, app),
                "coverage": complete_coverage(len(modules), len(app.nodes)),
            }
        )
    if view["kind"] not in ("item", "page") or view["collection"] != "modules":
        return Failure(
            view_error(
                "analyze_javascript_application Evidence is read with summary views and item or page views of "
                "the modules collection (facets, sections and symbols belong to inspect_binary_layout Evidence)."
            )
        )
    if view["kind"] == "item":
        return _select_module(app, view["selector"]).map(
            lambda node: {"item": _module_item(app, node), "coverage": complete_coverage(1, len(modules))}
        )
    rows = [{"node_id": n.node_id, "kind": n.kind, "path": n.path} for n in modules]
    items, coverage = page_rows(rows, view["offset"], view["limit"])
    return Success({"items": items, "coverage": coverage})


def application_view(source: Evidence, view: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    """The unsealed view of complete application Evidence (see rea.views.projection.seal)."""
    return (
        check_application(source, "source")
        .map(lambda result: access.stored(result, source))
        .bind(
            lambda app: _project(source, app, view).map(
                lambda body: {
                    "kind": view["kind"],
                    "view": dict(view),
                    **body,
                    "limitations": unique_sorted(source.limitations),
                    "unknowns": _unknowns(app),
                }
            )
        )
    )


def view_evidence(source: Evidence, args: Mapping[str, Any]) -> Result[Evidence, ReaError]:
    """The producer's detail "summary": the same derived view Evidence inspect_analysis_view returns."""
    from rea.views.programs import view_evidence as shared  # that module dispatches to this one

    view = args.get("view", {"kind": "summary"})
    return shared(source, {"kind": view} if isinstance(view, str) else view)
