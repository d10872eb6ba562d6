"""How the views read analyze_javascript_application results: the one place that knows their shape.

The producer moved from top-level `nodes` keyed `id` to `graph.nodes` keyed `node_id` (with `input_path`,
`root_artifact_sha256` and a `summary`); a stored record of either shape is read here once into a
`StoredApplication`, so views and their tests do not depend on which one a record carries. Reading is as
lenient as it always was: a key an older record lacks reads as it did (absent, empty, or the subject's).
Rows the views echo (a node, an edge, a finding) are kept exactly as stored, so a view's bytes do not
depend on this reading.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from rea.evidence import Evidence
from rea.javascript.graph_kinds import MODULE_KINDS, SCHEMA

OPERATION = "analyze_javascript_application"
# the reference's module kinds beside ours
VIEW_MODULE_KINDS = (*MODULE_KINDS, "javascript-asset", "javascript-module", "source-module")
COLLECTIONS = ("findings", "unknowns", "entry_points", "parse_failures", "integrity_contradictions")


@attrs.frozen(kw_only=True)
class StoredNode:
    """A graph node as the views read it: its id (wire `node_id`, or an older record's `id`), our kind
    (`subkind` on the wire), its file path when it has one, and the row as stored (echoed whole)."""

    node_id: str
    kind: str | None
    label: str | None
    path: str | None
    row: Mapping[str, Any]

    def fact(self, key: str) -> Any:
        """A kind-specific fact of the node (None when the node has none)."""
        return self.row.get(key)


@attrs.frozen(kw_only=True)
class StoredEdge:
    """A graph edge as the views read it: its ends (either shape), relation and sub-kind, and the row."""

    source: Any
    target: Any
    relation: Any
    kind: Any
    row: Mapping[str, Any]


@attrs.frozen(kw_only=True)
class StoredApplication:
    """A stored application record, read once. Open rows (findings, unknowns, ...) are JSON kept as stored."""

    nodes: tuple[StoredNode, ...]
    edges: tuple[StoredEdge, ...]
    input_path: str
    format: str
    root_artifact_sha256: str
    application: Any
    statistics: Any
    electron: Any
    coverage: Any  # the application graph's (graph.coverage in the 6.x shape)
    analysis_coverage: Any  # ours: status, limits_reached, parse failures, integrity contradictions
    collections: Mapping[str, tuple[Any, ...]]

    def modules(self) -> list[StoredNode]:
        return [n for n in self.nodes if n.kind in VIEW_MODULE_KINDS]

    def collection(self, name: str) -> list[Any]:
        return list(self.collections.get(name, ()))


def _graph(result: Mapping[str, Any]) -> Mapping[str, Any]:
    graph = result.get("graph")
    return graph if isinstance(graph, Mapping) else result


def is_application(evidence: Evidence) -> bool:
    result = evidence.normalized_result
    return (
        evidence.operation == OPERATION
        and isinstance(result, Mapping)
        and (result.get("schema") == SCHEMA or isinstance(result.get("graph"), Mapping))
        and isinstance(_graph(result).get("nodes"), list)
    )


def _node(row: Mapping[str, Any]) -> StoredNode:
    path = row.get("path")
    return StoredNode(
        node_id=str(row.get("node_id", row.get("id"))),
        kind=row.get("subkind", row.get("kind")),
        label=row.get("label"),
        path=path if isinstance(path, str) else None,
        row=row,
    )


def _edge(row: Mapping[str, Any]) -> StoredEdge:
    if "source_node_id" in row:
        ends = (row["source_node_id"], row.get("target_node_id"))
    else:
        ends = (row.get("from"), row.get("to"))
    return StoredEdge(source=ends[0], target=ends[1], relation=row.get("relation"), kind=row.get("kind"), row=row)


def stored(result: Mapping[str, Any], source: Evidence) -> StoredApplication:
    """The record of `source` (whose normalized_result `is_application` accepted), read once."""
    graph = _graph(result)
    found_app = result.get("application")
    application = found_app if isinstance(found_app, Mapping) else {}
    found_path = result.get("input_path") or application.get("root")
    root = result.get("root_artifact_sha256")
    summary = result.get("summary")
    coverage = graph.get("coverage", result.get("coverage"))
    coverage = coverage if isinstance(coverage, Mapping) else {}
    ours = result.get("coverage")
    return StoredApplication(
        nodes=tuple(_node(n) for n in graph["nodes"]),
        edges=tuple(_edge(e) for e in graph.get("edges") or ()),
        input_path=str(found_path if found_path is not None else (source.subject.local_path if source.subject else "")),
        format=str(result.get("format") or application.get("format") or "directory"),
        root_artifact_sha256=str(root) if root else (source.subject.sha256 if source.subject else "0" * 64),
        application=found_app,
        statistics=result.get("statistics") or {},
        electron=summary if isinstance(summary, Mapping) else {"electron": application.get("electron")},
        coverage=coverage,
        analysis_coverage=ours if isinstance(ours, Mapping) else coverage,
        collections={name: tuple(value) for name in COLLECTIONS if isinstance(value := result.get(name), list)},
    )
