"""How the views read analyze_javascript_application results: the one place that knows their shape.

The producer is moving from top-level `nodes` keyed `id` to `graph.nodes` keyed
`node_id` (with `input_path`, `root_artifact_sha256` and a `summary`); both
shapes are read here, so views and their tests do not depend on which one a
record carries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rea.evidence import Evidence
from rea.javascript.graph_kinds import MODULE_KINDS, SCHEMA

OPERATION = "analyze_javascript_application"
# the reference's module kinds beside ours
VIEW_MODULE_KINDS = (*MODULE_KINDS, "javascript-asset", "javascript-module", "source-module")


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


def nodes(result: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
    """The graph's node rows; `is_application` has already checked they are a list."""
    found: Sequence[Mapping[str, Any]] = _graph(result)["nodes"]
    return found


def edges(result: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
    return _graph(result).get("edges") or ()


def node_id(node: Mapping[str, Any]) -> str:
    return str(node.get("node_id", node.get("id")))


def kind(node: Mapping[str, Any]) -> Any:
    """Our kind of a node (`subkind` on the wire, where `kind` is the reference's coarser one)."""
    return node.get("subkind", node.get("kind"))


def edge_ends(edge: Mapping[str, Any]) -> tuple[Any, Any]:
    if "source_node_id" in edge:
        return edge["source_node_id"], edge.get("target_node_id")
    return edge.get("from"), edge.get("to")


def modules(result: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [n for n in nodes(result) if kind(n) in VIEW_MODULE_KINDS]


def module_path(node: Mapping[str, Any]) -> str | None:
    path = node.get("path")
    return path if isinstance(path, str) else None


def input_path(result: Mapping[str, Any], source: Evidence) -> str:
    found = result.get("input_path") or (result.get("application") or {}).get("root")
    return str(found if found is not None else (source.subject.local_path if source.subject else ""))


def input_format(result: Mapping[str, Any]) -> str:
    return str(result.get("format") or (result.get("application") or {}).get("format") or "directory")


def root_sha256(result: Mapping[str, Any], source: Evidence) -> str:
    found = result.get("root_artifact_sha256")
    return str(found) if found else (source.subject.sha256 if source.subject else "0" * 64)


def electron(result: Mapping[str, Any]) -> Any:
    summary = result.get("summary")
    return summary if isinstance(summary, Mapping) else {"electron": (result.get("application") or {}).get("electron")}


def coverage(result: Mapping[str, Any]) -> Mapping[str, Any]:
    """The application graph's coverage (graph.coverage in the 6.x shape)."""
    found = _graph(result).get("coverage", result.get("coverage"))
    return found if isinstance(found, Mapping) else {}


def analysis_coverage(result: Mapping[str, Any]) -> Mapping[str, Any]:
    """Our coverage of the analysis: status, limits_reached, parse failures, integrity contradictions."""
    found = result.get("coverage")
    return found if isinstance(found, Mapping) else coverage(result)


def collection(result: Mapping[str, Any], name: str) -> list[Any]:
    value = result.get(name)
    return list(value) if isinstance(value, list) else []
