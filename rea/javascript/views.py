"""Views over analyze_javascript_application Evidence: summary, one module, pages of modules.

`application_view` is the pure projection the shared inspect_analysis_view tool
dispatches to for application Evidence; `view_evidence` wraps it as derived
Evidence linked to its parent.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any
from collections.abc import Mapping

from returns.result import Failure, Result, Success

from rea.canonical_json import canonical_sha256
from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence, create_evidence
from rea.javascript.graph import MODULE_KINDS, SCHEMA
from rea.paging import paginate

OPERATION = "analyze_javascript_application"
VIEWS = ("summary", "module", "modules")
DEFAULT_LIMIT = 64
MAX_LIMIT = 1000
TOP = 20
MODULE_EDGE_LIMIT = 200


def is_application(evidence: Evidence) -> bool:
    result = evidence.normalized_result
    return (
        evidence.operation == OPERATION
        and isinstance(result, Mapping)
        and result.get("schema") == SCHEMA
        and "graph" in result
    )


def check_application(evidence: Evidence, field: str) -> Result[Mapping[str, Any], ReaError]:
    if not is_application(evidence):
        kind = evidence.operation
        if (
            isinstance(evidence.normalized_result, Mapping)
            and evidence.normalized_result.get("view") is not None
            and evidence.normalized_result.get("parent_evidence_id")
        ):
            hint = (
                f"it is a {evidence.normalized_result.get('view')} view; pass its parent "
                f"{evidence.normalized_result.get('parent_evidence_id')} instead"
            )
        else:
            hint = f"it was produced by {kind}"
        return Failure(
            invalid_request(
                f"{field} must be complete analyze_javascript_application Evidence; {hint}.",
                field=field,
                accepted='complete application Evidence inline, or {"kind": "retained-evidence", "evidence_id": ...}',
                reason="wrong_evidence_kind",
            )
        )
    return Success(evidence.normalized_result)


def _reference(evidence_id: str, view: str, **extra: Any) -> dict[str, Any]:
    return {
        "tool": "inspect_analysis_view",
        "arguments": {"source": {"kind": "retained-evidence", "evidence_id": evidence_id}, "view": view, **extra},
    }


def summary(result: Mapping[str, Any], evidence_id: str) -> dict[str, Any]:
    nodes = result["graph"]["nodes"]
    by_role: dict[str, list[str]] = defaultdict(list)
    for n in nodes:
        for r in n.get("roles", ()):
            by_role[r["role"]].append(n["node_id"])
    channels = [
        {"channel": n["channel"], "ends": n["ends"], "linked": n["linked"], "node_id": n["node_id"]}
        for n in nodes
        if n["kind"] == "ipc-channel"
    ]
    windows = [
        {"node_id": n["node_id"], "web_preferences": n["web_preferences"], "location": n["location"]}
        for n in nodes
        if n["kind"] == "browser-window"
    ]
    module_total = sum(1 for n in nodes if n["kind"] in MODULE_KINDS)
    bundles: dict[str, dict[str, Any]] = {}
    for n in nodes:
        if n["kind"] == "module" and n.get("bundlers"):
            bundles.setdefault(
                n["path"],
                {
                    "node_id": n["node_id"],
                    "bundlers": n["bundlers"],
                    "bundled_modules": 0,
                    "named": 0,
                    "recovered_by": {},
                },
            )
    for n in nodes:
        if n["kind"] == "bundled-module":
            entry = bundles.setdefault(
                n["bundle"],
                {
                    "node_id": f"module:{n['bundle']}",
                    "bundlers": [],
                    "bundled_modules": 0,
                    "named": 0,
                    "recovered_by": {},
                },
            )
            entry["bundled_modules"] += 1
            entry["named"] += bool(n.get("path"))
            entry["recovered_by"][n["recovered_by"]] = entry["recovered_by"].get(n["recovered_by"], 0) + 1
    return {
        "application": result["application"],
        "coverage": result["coverage"],
        "statistics": result["statistics"],
        "entry_points": result["entry_points"][:TOP],
        "roles": {role: {"count": len(ids), "modules": sorted(ids)[:TOP]} for role, ids in sorted(by_role.items())},
        "ipc_channels": {
            "total": len(channels),
            "unlinked": sum(not c["linked"] for c in channels),
            "items": channels[:TOP],
        },
        "browser_windows": windows[:TOP],
        "bundles": [
            {"path": path, **info}
            for path, info in sorted(bundles.items(), key=lambda kv: (-kv[1]["bundled_modules"], kv[0]))
        ][:TOP],
        "bundles_total": len(bundles),
        "top_findings": result["findings"][:TOP],
        "findings_total": len(result["findings"]),
        "unknowns": result["unknowns"][:TOP],
        "unknowns_total": len(result["unknowns"]),
        "parse_failures": result["parse_failures"][:TOP],
        "integrity_contradictions": result.get("integrity_contradictions", []),
        "pages": {
            "modules": _reference(evidence_id, "modules", offset=0, limit=DEFAULT_LIMIT),
            "module_total": module_total,
            "next_module_offsets": list(range(0, module_total, DEFAULT_LIMIT))[:TOP],
        },
    }


def _module(result: Mapping[str, Any], args: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    nodes = result["graph"]["nodes"]
    if args.get("node_id") is not None:
        found = [n for n in nodes if n["node_id"] == args["node_id"]]
        if not found:
            return Failure(
                invalid_request(
                    f"No node has id {args['node_id']!r} in this application record.",
                    field="node_id",
                    accepted="a node id from the modules view or summary",
                )
            )
    elif args.get("path") is not None:
        found = [n for n in nodes if n["kind"] in MODULE_KINDS and n.get("path") == args["path"]]
        if not found:
            return Failure(
                invalid_request(
                    f"No module has path {args['path']!r}.",
                    field="path",
                    accepted="a module path from the modules view",
                )
            )
        if len(found) > 1:
            return Failure(
                invalid_request(
                    f"{len(found)} modules have path {args['path']!r}; select one by node_id.",
                    field="path",
                    accepted="node_id",
                    reason="ambiguous",
                    candidates=[n["node_id"] for n in found],
                )
            )
    else:
        return Failure(
            invalid_request(
                "The module view needs node_id or path.", field="node_id", accepted="node_id (exact) or path"
            )
        )
    node = found[0]
    outgoing = [e for e in result["graph"]["edges"] if e["source_node_id"] == node["node_id"]]
    incoming = [e for e in result["graph"]["edges"] if e["target_node_id"] == node["node_id"]]
    return Success(
        {
            "node": node,
            "outgoing": outgoing[:MODULE_EDGE_LIMIT],
            "outgoing_total": len(outgoing),
            "incoming": incoming[:MODULE_EDGE_LIMIT],
            "incoming_total": len(incoming),
            "truncated": len(outgoing) > MODULE_EDGE_LIMIT or len(incoming) > MODULE_EDGE_LIMIT,
        }
    )


def _modules(result: Mapping[str, Any], args: Mapping[str, Any]) -> dict[str, Any]:
    items = [n for n in result["graph"]["nodes"] if n["kind"] in MODULE_KINDS]
    page = paginate(items, args.get("offset", 0), args.get("limit", DEFAULT_LIMIT))
    return {"items": list(page.items), **page.envelope(), "source_coverage": result["coverage"]["status"]}


def application_view(source: Evidence, args: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    """The selected view of complete application Evidence, with a digest of the selected facts."""
    checked = check_application(source, "source")
    if not isinstance(checked, Success):
        return checked
    result = checked.unwrap()
    view = args.get("view", "summary")
    if view not in VIEWS:
        return Failure(invalid_request(f"Unknown application view {view!r}.", field="view", accepted=", ".join(VIEWS)))
    limit = args.get("limit", DEFAULT_LIMIT)
    if (
        not isinstance(limit, int)
        or not 1 <= limit <= MAX_LIMIT
        or not isinstance(args.get("offset", 0), int)
        or args.get("offset", 0) < 0
    ):
        return Failure(invalid_request("offset must be >= 0 and limit between 1 and 1000.", field="limit"))
    if view == "summary":
        body: dict[str, Any] = summary(result, source.evidence_id)
    elif view == "module":
        selected = _module(result, args)
        if not isinstance(selected, Success):
            return selected
        body = selected.unwrap()
    else:
        body = _modules(result, args)
    return Success({"view": view, "parent_evidence_id": source.evidence_id, **body, "digest": canonical_sha256(body)})


def view_evidence(source: Evidence, args: Mapping[str, Any]) -> Result[Evidence, ReaError]:
    projected = application_view(source, args)
    if not isinstance(projected, Success):
        return projected
    parameters = {
        "source": {"kind": "retained-evidence", "evidence_id": source.evidence_id},
        **{k: v for k, v in args.items() if k != "source"},
    }
    return create_evidence(
        provider=source.provider,
        operation="inspect_analysis_view",
        parameters=parameters,
        normalized_result=projected.unwrap(),
        subject=source.subject,
        analysis_profile=source.analysis_profile,
        confidence="derived",
        authority=source.authority,
        limitations=("A view of retained Evidence: it selects facts of the parent and adds none.",),
        evidence_links=(source.evidence_id,),
    )
