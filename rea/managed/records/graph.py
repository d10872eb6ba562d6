"""Wire records of project_managed_application_graph: managed Evidence as one JavaScriptApplicationGraph.

The graph is the provider-neutral application graph of the JavaScript family (its evidence,
observation, coverage and identity records are reused); the managed node kinds and the
`managed-static-analysis` authority are already in its vocabulary. Inputs are the 3.1 retained ids;
`inventory_evidence_id` (our extra) links the artifact node to the inventory_artifact Evidence
that names the same file.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from rea.javascript.ids import EDGE_ID, NODE_ID
from rea.javascript.records.fields import Relation
from rea.javascript.records.graph import (
    EdgeStrategy,
    GraphCoverage,
    GraphEvidence,
    LocalKeyIdentity,
    Observation,
    ReferenceNodeKind,
)
from rea.managed.records.artifact import SHA256
from rea.wire.schema import Open, field

EVIDENCE_ID = "^ev_[a-f0-9]{64}$"
_MAX = 2**53 - 1


def _limit(default: int) -> Any:
    return field(f"Nodes of this kind projected (default {default})", default=default, minimum=0, maximum=100_000)


def _count(description: str = "") -> Any:
    return field(description, minimum=0, maximum=_MAX)


def _source(description: str) -> Any:
    return field(description, default=None, pattern=EVIDENCE_ID)


@attrs.frozen(kw_only=True)
class GraphLimits:
    max_types: int = _limit(5000)
    max_methods: int = _limit(10000)
    max_fields: int = _limit(5000)
    max_pinvoke_imports: int = _limit(5000)
    max_native_implementations: int = _limit(5000)


@attrs.frozen(kw_only=True)
class GraphArgs:
    """At least one of the three managed ids (checked by the program: the 3.1 schema is a union of three)."""

    managed_artifact_evidence_id: str | None = _source("Retained inspect_managed_artifact Evidence")
    managed_members_evidence_id: str | None = _source("Retained inspect_managed_members Evidence")
    managed_native_boundaries_evidence_id: str | None = _source("Retained inspect_managed_native_boundaries Evidence")
    inventory_evidence_id: str | None = _source(
        "Retained inventory_artifact (or inspect_artifact) Evidence of the same file"
    )
    limits: GraphLimits = field("Result bounds", factory=GraphLimits)


@attrs.frozen(kw_only=True)
class DigestIdentity:
    strategy: Literal["content-digest"] = field("The file, by its bytes")
    stability: Literal["global-exact"] = field("The same bytes anywhere")
    sha256: str = field("Its SHA-256", pattern=SHA256)


@attrs.frozen(kw_only=True)
class ManagedGraphNode:
    node_id: str = field("jag_node_<sha256> of the node's readable key", pattern=NODE_ID)
    kind: ReferenceNodeKind = field("Node kind (managed-assembly, managed-type, managed-method, ...)")
    identity: DigestIdentity | LocalKeyIdentity = field("What the node is: the file, or a build-local key")
    observations: tuple[Observation, ...] = field("What the managed Evidence observed of it", minItems=1)
    label: str = field("Readable name")
    subkind: str = field("Our kind: artifact, assembly, assembly-reference, module, type, method, field, ...")


@attrs.frozen(kw_only=True)
class ManagedGraphEdge:
    edge_id: str = field("jag_edge_<sha256> of the edge's ends, relation and kind", pattern=EDGE_ID)
    source_node_id: str = field("Where the relation starts", pattern=NODE_ID)
    target_node_id: str = field("Where it ends", pattern=NODE_ID)
    relation: Relation = field("contains, imports or calls")
    kind: str = field("declares-managed-type, managed-pinvoke, references-assembly, managed-call, ...")
    properties: Open = field("The edge's facts", schema={"type": "object"})
    evidence: GraphEvidence = field("Where the relation comes from")
    identifier_strategy: EdgeStrategy = field("How the edge id is derived")


@attrs.frozen(kw_only=True)
class ManagedApplicationGraph:
    schema: Literal["JavaScriptApplicationGraph"] = field("Graph schema (the provider-neutral application graph)")
    schema_version: Literal[1] = field("Graph schema version")
    graph_id: str = field("jag_<sha256> of the graph's content", pattern="^jag_[a-f0-9]{64}$")
    root_node_ids: tuple[str, ...] = field("The artifact node")
    nodes: tuple[ManagedGraphNode, ...] = field("Every node")
    edges: tuple[ManagedGraphEdge, ...] = field("Every edge")
    coverage: GraphCoverage = field("What the graph covers")
    limitations: tuple[str, ...] = field("What the graph does not establish")


@attrs.frozen(kw_only=True)
class SourceEvidence:
    managed_artifact_evidence_id: str | None = field("inspect_managed_artifact Evidence", pattern=EVIDENCE_ID)
    managed_members_evidence_id: str | None = field("inspect_managed_members Evidence", pattern=EVIDENCE_ID)
    managed_native_boundaries_evidence_id: str | None = field(
        "inspect_managed_native_boundaries Evidence", pattern=EVIDENCE_ID
    )
    inventory_evidence_id: str | None = field("Our extra: the inventory Evidence linked", pattern=EVIDENCE_ID)


@attrs.frozen(kw_only=True)
class GraphSummary:
    graph_nodes: int = _count()
    graph_edges: int = _count()
    assemblies: int = _count("managed-assembly nodes (this assembly and the ones it references)")
    modules: int = _count()
    types: int = _count()
    methods: int = _count()
    fields: int = _count()
    pinvoke_imports: int = _count()
    native_implementations: int = _count()


@attrs.frozen(kw_only=True)
class ProjectionCoverage:
    status: Literal["complete-within-inputs", "partial", "truncated"] = field("Whether everything was projected")
    omitted_types: int = _count()
    omitted_methods: int = _count()
    omitted_fields: int = _count()
    omitted_pinvoke_imports: int = _count()
    omitted_native_implementations: int = _count()


@attrs.frozen(kw_only=True)
class GraphResult:
    schema_version: Literal[1] = field("Result schema version")
    projection_id: str = field("magp_ id", pattern="^magp_[a-f0-9]{64}$")
    root_artifact_sha256: str = field("The assembly", pattern=SHA256)
    source_evidence: SourceEvidence = field("The Evidence projected")
    summary: GraphSummary = field("Counts")
    graph: ManagedApplicationGraph = field("The graph")
    coverage: ProjectionCoverage = field("What was projected")
    evidence_links: tuple[str, ...] = field("The Evidence projected", minItems=1)
    limitations: tuple[str, ...] = field("What the projection does not establish")
