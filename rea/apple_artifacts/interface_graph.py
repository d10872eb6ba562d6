"""decode_interface_builder's result: the documents' objects, hierarchy and connections as one bounded graph.

The shape is the reference's (documents, then one provider-neutral graph of nodes, edges
and coverage facets). Limits are hard: past max_objects nodes or max_connections
connections of a document, what is left out is counted in a coverage facet and the
graph says truncated; an endpoint that was left out makes its edge unresolved with the
reason, never a dangling id.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.apple_artifacts.interface import LIMITATIONS, PROVIDER, Connection, Document, node_kind
from rea.apple_artifacts.nib import ObjectTable
from rea.apple_artifacts.records import IbCoverage, IbDocument, IbEdge, IbGraph, IbNode, InterfaceBuilderResult

DocumentKind = Literal["nib", "storyboard_scene"]
Relation = Literal["contains", "outlet_to", "target_action", "segue_to"]
RELATIONS: dict[str, Relation] = {"outlet": "outlet_to", "action": "target_action", "segue": "segue_to"}


@attrs.frozen(kw_only=True)
class DecodedDocument:
    """One compiled document the effect read: its path in the bundle, digest, kind and object table."""

    relative_path: str
    sha256: str
    kind: DocumentKind
    table: ObjectTable | None
    problem: str | None = None  # why it could not be decoded


@attrs.frozen(kw_only=True)
class NoLocation:
    """Archives have no addresses: every location is null."""

    address: None = None
    file_offset: None = None


@attrs.frozen(kw_only=True)
class IbEvidence:
    kind: Literal["interface_builder_resource"]
    description: str
    location: NoLocation
    artifact_path: str
    artifact_sha256: str


@attrs.frozen(kw_only=True)
class RootAttributes:
    document_kind: DocumentKind


@attrs.frozen(kw_only=True)
class ObjectAttributes:
    interface_builder_object_id: str
    class_name: str
    custom_class: str | None


@attrs.frozen(kw_only=True)
class ConnectionAttributes:
    class_name: str
    label: str | None
    source_id: str | None
    destination_id: str | None


class _Graph:
    def __init__(self, target_sha256: str, max_objects: int) -> None:
        self.target_sha256, self.max_objects = target_sha256, max_objects
        self.nodes: dict[str, IbNode] = {}
        self.edges: list[IbEdge] = []
        self.coverage: list[IbCoverage] = []
        self.omitted_nodes = 0
        self.truncated = False

    def add(self, node: IbNode) -> bool:
        if node.id in self.nodes:
            return True
        if len(self.nodes) >= self.max_objects:
            self.truncated, self.omitted_nodes = True, self.omitted_nodes + 1
            return False
        self.nodes[node.id] = node
        return True

    def edge(
        self, id_: str, source: str, to: str | None, relation: Relation, evidence: tuple[IbEvidence, ...], reason: str
    ) -> bool:
        if source not in self.nodes:
            self.truncated = True
            return False
        if to is not None and to in self.nodes:
            self.edges.append(IbEdge(id=id_, from_=source, to=to, relation=relation, resolution="observed",
                                     evidence=evidence, limitations=()))  # fmt: skip
        else:
            self.edges.append(IbEdge(id=id_, from_=source, to=None, relation=relation, resolution="unresolved",
                                     reason=reason if to is None else "endpoint_omitted_by_object_limit",
                                     evidence=evidence, limitations=()))  # fmt: skip
        return True


def _evidence(doc: DecodedDocument, description: str) -> tuple[IbEvidence, ...]:
    return (IbEvidence(kind="interface_builder_resource", description=f"{doc.relative_path}: {description}",
                       location=NoLocation(), artifact_path=doc.relative_path, artifact_sha256=doc.sha256),)  # fmt: skip


def _facet(facet: str, complete: bool, reason: str, examined: int, omitted: int) -> IbCoverage:
    return IbCoverage(facet=facet, status="complete" if complete else "partial", reason=None if complete else reason,
                      examined=examined, omitted=omitted)  # fmt: skip


def _objects(graph: _Graph, doc: DecodedDocument, view: Document, unknown: set[str]) -> int:
    prefix, added, owners = f"ib:{doc.relative_path}:", 0, view.owners()
    for obj in view.interface_objects():
        custom = view.custom_class(obj)
        kind = "placeholder" if obj.index in owners else node_kind(obj.class_name, custom)
        if kind == "unknown":
            unknown.add(custom or obj.class_name)
        attributes = ObjectAttributes(interface_builder_object_id=str(obj.index), class_name=obj.class_name,
                                      custom_class=custom)  # fmt: skip
        node = IbNode(id=f"{prefix}object:{obj.index}", kind=kind, name=custom or obj.class_name, location=None,
                      attributes=attributes, evidence=_evidence(doc, f"object {obj.index}"))  # fmt: skip
        if not graph.add(node):
            break
        added += 1
    return added


def _connection(graph: _Graph, doc: DecodedDocument, item: Connection) -> None:
    prefix = f"ib:{doc.relative_path}:"
    source = f"{prefix}object:{item.source_id}"
    target = None if item.destination_id is None else f"{prefix}object:{item.destination_id}"
    label, ev = item.label, _evidence(doc, f"{item.kind} {item.id}")
    node_id = f"{prefix}{item.kind}:{item.id}"
    node_kind_ = item.kind if item.kind in ("outlet", "action", "segue") else "unknown"
    attributes = ConnectionAttributes(class_name=item.class_name, label=label, source_id=item.source_id,
                                      destination_id=item.destination_id)  # fmt: skip
    if not graph.add(IbNode(id=node_id, kind=node_kind_, name=label or item.id, location=None,
                            attributes=attributes, evidence=ev)):  # fmt: skip
        return
    relation = RELATIONS.get(item.kind, "contains")
    graph.edge(f"{node_id}:source", source, node_id, "contains" if item.kind == "outlet" else relation, ev,
               "source_object_missing")  # fmt: skip
    graph.edge(f"{node_id}:destination", node_id, target, relation, ev, "destination_object_missing_or_external")


def _connections(graph: _Graph, doc: DecodedDocument, view: Document, limit: int) -> tuple[int, int]:
    found = view.connections()
    for item in found[:limit]:
        _connection(graph, doc, item)
    return min(len(found), limit), max(0, len(found) - limit)


def _hierarchy(graph: _Graph, doc: DecodedDocument, view: Document) -> int:
    prefix, count = f"ib:{doc.relative_path}:", 0
    for parent, child in view.hierarchy():
        source = f"{prefix}root" if parent is None else f"{prefix}object:{parent}"
        target = f"{prefix}object:{child}"
        if graph.edge(f"{prefix}hierarchy:{source}:{target}", source, target, "contains",
                      _evidence(doc, f"hierarchy {child}"), "child_object_missing"):  # fmt: skip
            count += 1
    return count


def build(
    target_sha256: str, docs: list[DecodedDocument], limits: dict[str, int], found: int, notes: tuple[str, ...] = ()
) -> InterfaceBuilderResult:
    """The result of decode_interface_builder over the documents read (found: how many the bundle holds);
    notes are the walk's limitations, said after the documents'."""
    graph, summaries, unknown = _Graph(target_sha256, limits["max_objects"]), [], set()  # type: ignore[var-annotated]
    limitations = list(LIMITATIONS)
    for doc in docs:
        root_kind = "scene" if doc.kind == "nib" else "storyboard"
        graph.add(IbNode(id=f"ib:{doc.relative_path}:root", kind=root_kind, name=doc.relative_path,
                         location=None, attributes=RootAttributes(document_kind=doc.kind),
                         evidence=_evidence(doc, "compiled document")))  # fmt: skip
        if doc.table is None:
            limitations.append(f"{doc.relative_path} was not decoded: {doc.problem}")
            summaries.append(IbDocument(relative_path=doc.relative_path, archive_sha256=doc.sha256,
                                        document_kind=doc.kind, object_count=0, connection_count=0,
                                        hierarchy_complete=False))  # fmt: skip
            continue
        view = Document(doc.table)
        total_objects = len(view.interface_objects())
        before = graph.truncated
        added = _objects(graph, doc, view, unknown)
        hierarchy = _hierarchy(graph, doc, view)
        examined, omitted = _connections(graph, doc, view, limits["max_connections"])
        graph.truncated = graph.truncated or omitted > 0
        path = doc.relative_path
        graph.coverage += [
            _facet(f"objects:{path}", added == total_objects, "object_limit_reached", added, total_objects - added),
            _facet(f"connections:{path}", omitted == 0, "connection_limit_reached", examined, omitted),
            _facet(f"hierarchy:{path}", graph.truncated == before, "graph_limit_reached", hierarchy, 0)
            if hierarchy
            else IbCoverage(facet=f"hierarchy:{path}", status="unsupported", reason="archive_hierarchy_not_decoded",
                            examined=0, omitted=0),
            _facet(f"classes:{path}", True, "", len({o.class_name for o in doc.table.objects}), 0),
        ]  # fmt: skip
        summaries.append(IbDocument(relative_path=path, archive_sha256=doc.sha256, document_kind=doc.kind,
                                    object_count=total_objects, connection_count=examined + omitted,
                                    hierarchy_complete=hierarchy > 0 and graph.truncated == before))  # fmt: skip
    if found > len(docs):
        graph.truncated = True
        graph.coverage.append(_facet("documents", False, "document_limit_reached", len(docs), found - len(docs)))
    if graph.omitted_nodes:
        graph.coverage.append(
            _facet("graph_nodes", False, "max_objects_reached", len(graph.nodes), graph.omitted_nodes)
        )
    return InterfaceBuilderResult(
        target_sha256=target_sha256,
        documents=tuple(summaries),
        graph=IbGraph(target_sha256=target_sha256, provider=PROVIDER, nodes=tuple(graph.nodes.values()),
                      edges=tuple(graph.edges), coverage=tuple(graph.coverage), truncated=graph.truncated),
        unknown_classes=tuple(sorted(unknown)),
        limitations=(*limitations, *notes),
    )  # fmt: skip
