"""Managed Evidence projected into the application graph: one pass per source, nodes keyed build-locally.

The artifact node is the file (content digest, `art_` id as inventory_artifact names it); assembly,
module, type, method, field, P/Invoke and native-implementation nodes are keyed by the artifact's
SHA-256 and their metadata token (tokens are build-local). Members and boundaries attach to their
owners (method -> type, P/Invoke -> the method it forwards); a member whose owner was not projected
attaches to the artifact. Referenced assemblies are nodes too (`imports` edges, our extra).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from rea import __version__
from rea.artifacts.graph import artifact_id
from rea.canonical_json import canonical_sha256
from rea.javascript.ids import edge_id, node_id
from rea.javascript.records import graph as js
from rea.managed.records import graph as w
from rea.wire.convert import to_wire

KINDS = ("types", "methods", "fields", "pinvoke_imports", "native_implementations")


@attrs.frozen(kw_only=True)
class Source:
    """A retained Evidence record the graph is projected from. `result` is its normalized result as stored: a
    JSON document of another tool (an imported one may be older), read leniently key by key as before."""

    evidence_id: str
    operation: str
    result: Mapping[str, Any]


@attrs.define
class Builder:
    sha256: str
    path: str
    links: tuple[str, ...]
    root_artifact_id: str
    nodes: list[w.ManagedGraphNode] = attrs.field(factory=list)
    edges: list[w.ManagedGraphEdge] = attrs.field(factory=list)
    by_token: dict[str, w.ManagedGraphNode] = attrs.field(factory=dict)

    def coverage(self, state: str) -> js.GraphCoverage:
        status: Any = "complete" if state == "complete" else "partial"
        return js.GraphCoverage(status=status, truncated=False, omitted_count=0 if status == "complete" else None,
                                limits=())  # fmt: skip

    def evidence(self, operation: str, ids: Sequence[str], state: str = "complete") -> js.GraphEvidence:
        return js.GraphEvidence(
            authority="managed-static-analysis", state="observed", confidence="exact",
            artifact=js.ArtifactRef(available=True, artifact_id=self.root_artifact_id, sha256=self.sha256),
            location=js.LocatedAt(available=True, value=js.ArtifactPath(kind="artifact-path", path=self.path)),
            extractor=js.Extractor(name="rea-managed", version=__version__, operation=operation,
                                   executable_sha256=None),
            coverage=self.coverage(state), limitations=(), evidence_ids=tuple(ids),
        )  # fmt: skip

    def node(
        self, kind: Any, subkind: str, identity: Any, label: str, facts: Mapping[str, Any], ev: js.GraphEvidence
    ) -> Any:
        key = identity.namespace + ":" + identity.key if hasattr(identity, "namespace") else "artifact:" + self.sha256
        observation = js.Observation(
            label=label, source_map_reference=None, properties=dict(facts), evidence=ev,
            observation_id="jag_observation_" + canonical_sha256([key, ev.extractor.operation, list(ev.evidence_ids)]),
            identifier_strategy=js.NodeStrategy(strategy="semantic-content-sha256", stability="observation-exact"),
        )  # fmt: skip
        made = w.ManagedGraphNode(node_id=node_id(f"{key}@{self.sha256}"), kind=kind, identity=identity,
                                  observations=(observation,), label=label, subkind=subkind)  # fmt: skip
        self.nodes.append(made)
        return made

    def local(self, namespace: str, key: str) -> js.LocalKeyIdentity:
        return js.LocalKeyIdentity(strategy="artifact-local-key", stability="artifact-version",
                                   artifact_sha256=self.sha256, namespace=namespace, key=key)  # fmt: skip

    def edge(self, source: Any, target: Any, relation: Any, kind: str, ev: js.GraphEvidence, **facts: Any) -> None:
        key = {"from": source.node_id, "relation": relation, "to": target.node_id, "kind": kind}
        self.edges.append(w.ManagedGraphEdge(
            edge_id=edge_id(key), source_node_id=source.node_id, target_node_id=target.node_id, relation=relation,
            kind=kind, properties={"kind": kind, **facts}, evidence=ev,
            identifier_strategy=js.EdgeStrategy(strategy="semantic-content-sha256", stability="relationship-exact"),
        ))  # fmt: skip

    def contains(self, owner: Any, child: Any, kind: str, state: str) -> None:
        self.edge(owner, child, "contains", kind, self.evidence("project-managed-contains", self.links, state))


def _artifact(b: Builder, inventory: Source | None, row: Mapping[str, Any] | None) -> Any:
    ev = b.evidence("project-managed-artifact", b.links)
    root = b.node("artifact", "artifact", w.DigestIdentity(strategy="content-digest", stability="global-exact",
                                                           sha256=b.sha256),
                  posixpath.basename(b.path), {"format": "pe", "source": "managed-application-graph"}, ev)  # fmt: skip
    if inventory is not None and row is not None:
        facts = {
            "artifact_id": row["artifact_id"],
            "kind": row.get("kind"),
            "format": row.get("format"),
            "size": row.get("size"),
            "logical_paths": _logical_paths(inventory.result, row["artifact_id"]),
        }
        seen = js.Observation(
            label=posixpath.basename(b.path), source_map_reference=None, properties=facts,
            evidence=attrs.evolve(b.evidence(inventory.operation, [inventory.evidence_id]), authority="artifact-bytes"),
            observation_id="jag_observation_" + canonical_sha256(["inventory", inventory.evidence_id, b.sha256]),
            identifier_strategy=js.NodeStrategy(strategy="semantic-content-sha256", stability="observation-exact"),
        )  # fmt: skip
        root = attrs.evolve(root, observations=(*root.observations, seen))
        b.nodes[-1] = root
    return root


def _logical_paths(inventory: Mapping[str, Any], art: str) -> list[str]:
    rows = (inventory.get("occurrences") or {}).get("items") or ()
    return [o["logical_path"] for o in rows if o.get("artifact_id") == art][:100]


def inventory_row(inventory: Mapping[str, Any], sha256: str) -> Mapping[str, Any] | None:
    return next((n for n in (inventory.get("nodes") or {}).get("items") or () if n.get("sha256") == sha256), None)


def _identity_nodes(b: Builder, root: Any, artifact: Source | None, sources: Sequence[Source]) -> Any:
    assembly = None
    if artifact is not None and artifact.result.get("assembly"):
        a, state = artifact.result["assembly"], artifact.result["coverage"]["state"]
        ev = b.evidence(artifact.operation, [artifact.evidence_id], state)
        facts = {
            "name": a["name"],
            "version": a["version"],
            "culture": a["culture"],
            "public_key_kind": a["public_key"]["kind"],
            "public_key_token": a["public_key"]["token"],
        }
        assembly = b.node("managed-assembly", "assembly", b.local("managed-assembly", a["token"]), a["name"], facts, ev)
        b.contains(root, assembly, "declares-managed-assembly", state)
        for r in artifact.result.get("references") or ():
            facts = {
                "name": r["name"],
                "version": r["version"],
                "culture": r["culture"],
                "public_key_token": r["public_key_or_token"]["token"],
                "token": r["token"],
            }
            ref = b.node(
                "managed-assembly",
                "assembly-reference",
                b.local("managed-assembly-reference-token", r["token"]),
                r["name"],
                facts,
                ev,
            )
            b.edge(assembly, ref, "imports", "references-assembly", ev, name=r["name"], version=r["version"])
    module_source = next((s for s in sources if s.result.get("module")), None)
    if module_source is not None:
        m, state = module_source.result["module"], module_source.result["coverage"]["state"]
        ev = b.evidence(module_source.operation, [module_source.evidence_id], state)
        facts = {"name": m["name"], "mvid": m["mvid"], "generation": m["generation"], "token": m["token"]}
        module = b.node("managed-module", "module", b.local("managed-module", m["mvid"] or m["token"]), m["name"],
                        facts, ev)  # fmt: skip
        b.contains(root, module, "declares-managed-module", state)
    return assembly


def _qualified(row: Mapping[str, Any]) -> str:
    return row["name"] if row.get("declaring_type") is None else f"{row['declaring_type']}.{row['name']}"


def _member_nodes(b: Builder, root: Any, members: Source, limits: w.GraphLimits) -> None:
    r, state = members.result, members.result["coverage"]["state"]
    ev = b.evidence(members.operation, [members.evidence_id], state)
    for t in r["types"][: limits.max_types]:
        facts = {k: t[k] for k in ("token", "namespace", "name", "full_name", "flags", "extends_token")}
        b.by_token[t["token"]] = node = b.node("managed-type", "type", b.local("managed-type-token", t["token"]),
                                               t["full_name"], facts, ev)  # fmt: skip
        b.contains(root, node, "declares-managed-type", state)
    for m in r["methods"][: limits.max_methods]:
        facts = {"token": m["token"], "declaring_type_token": m["declaring_type_token"],
                 "declaring_type": m["declaring_type"], "name": m["name"], "rva": m["rva"],
                 "signature_sha256": m["signature"]["raw_sha256"], "signature_status": m["signature"]["parse_status"],
                 "body_status": m["body"]["status"], "normalized_il_sha256": m["body"]["normalized_il_sha256"],
                 "il_size": m["body"]["il_size"]}  # fmt: skip
        node = b.node("managed-method", "method", b.local("managed-method-token", m["token"]), _qualified(m), facts, ev)
        owner, b.by_token[m["token"]] = b.by_token.get(m["declaring_type_token"] or "", root), node
        b.contains(owner, node, "declares-managed-method", state)
    for f in r["fields"][: limits.max_fields]:
        facts = {
            "token": f["token"],
            "declaring_type_token": f["declaring_type_token"],
            "declaring_type": f["declaring_type"],
            "name": f["name"],
            "flags": f["flags"],
            "signature_sha256": f["signature"]["raw_sha256"],
            "signature_status": f["signature"]["parse_status"],
        }
        node = b.node("managed-field", "field", b.local("managed-field-token", f["token"]), _qualified(f), facts, ev)
        b.contains(b.by_token.get(f["declaring_type_token"] or "", root), node, "declares-managed-field", state)


_PINVOKE = ("token", "member_token", "member_name", "import_name", "import_scope_name", "char_set", "call_convention",
            "verification")  # fmt: skip
_NATIVE = ("token", "name", "rva", "code_type", "managed_kind", "pinvoke_declared", "boundary_kind",
           "body_interpretation")  # fmt: skip


def _boundary_nodes(b: Builder, root: Any, boundaries: Source, members: Source | None, limits: w.GraphLimits) -> None:
    r, state = boundaries.result, boundaries.result["coverage"]["state"]
    ev = b.evidence(boundaries.operation, [boundaries.evidence_id], state)
    for p in r["pinvoke_imports"][: limits.max_pinvoke_imports]:
        node = b.node("managed-pinvoke-import", "pinvoke-import", b.local("managed-pinvoke-token", p["token"]),
                      p["import_name"], {k: p[k] for k in _PINVOKE}, ev)  # fmt: skip
        method = b.by_token.get(p["member_token"] or "")
        ids = [boundaries.evidence_id] + ([members.evidence_id] if method is not None and members else [])
        b.edge(method or root, node, "imports", "managed-pinvoke", b.evidence(boundaries.operation, ids, state),
               import_name=p["import_name"], import_scope_name=p["import_scope_name"])  # fmt: skip
    for n in r["native_implementations"][: limits.max_native_implementations]:
        node = b.node("managed-native-implementation", "native-implementation",
                      b.local("managed-native-implementation-token", n["token"]), n["name"],
                      {k: n[k] for k in _NATIVE}, ev)  # fmt: skip
        b.contains(b.by_token.get(n["token"], root), node, "declares-managed-native-implementation", state)


def omitted(sources: Mapping[str, Source | None], limits: w.GraphLimits) -> dict[str, int]:
    rows = {"types": "members", "methods": "members", "fields": "members", "pinvoke_imports": "boundaries",
            "native_implementations": "boundaries"}  # fmt: skip
    out = {}
    for kind, where in rows.items():
        source = sources.get(where)
        total = len(source.result[kind]) if source is not None else 0
        out[kind] = max(0, total - getattr(limits, "max_" + kind))
    return out


def _limitations(sources: Mapping[str, Source | None], cut: Mapping[str, int], partial: bool) -> list[str]:
    out = ["Managed graph projection preserves static metadata observations only; it does not execute managed "
           "code, load assemblies, or map managed tokens to native addresses."]  # fmt: skip
    missing = {
        "members": "Managed member Evidence was not supplied; type, method, and field nodes are absent.",
        "artifact": "Managed artifact Evidence was not supplied; assembly identity observations are absent.",
        "boundaries": "Managed native-boundary Evidence was not supplied; P/Invoke and native-implementation "
        "nodes are absent.",
    }
    out += [text for name, text in missing.items() if sources.get(name) is None]
    if partial:
        out.append("At least one supplied managed Evidence record has partial coverage.")
    out += [f"{n} {kind.replace('_', ' ')} past max_{kind} were not projected." for kind, n in cut.items() if n]
    return out


def project(
    sources: Mapping[str, Source | None], row: Mapping[str, Any] | None, limits: w.GraphLimits
) -> w.GraphResult:
    """`sources`: artifact, members, boundaries (at least one, same file) and inventory; `row`: the inventory's
    node for the file."""
    managed = [s for k, s in sources.items() if s is not None and k != "inventory"]
    facts = managed[0].result["artifact"]
    ids = {k: s.evidence_id for k, s in sources.items() if s is not None}
    links = tuple(s.evidence_id for s in managed) + tuple(ids[k] for k in ("inventory",) if k in ids)
    b = Builder(
        sha256=facts["sha256"],
        path=facts["path"],
        links=links,
        root_artifact_id=row["artifact_id"] if row else artifact_id(facts["sha256"], facts["byte_length"]),
    )
    root = _artifact(b, sources.get("inventory"), row)
    _identity_nodes(b, root, sources.get("artifact"), managed)
    if sources.get("members") is not None:
        _member_nodes(b, root, sources["members"], limits)  # type: ignore[arg-type]
    if sources.get("boundaries") is not None:
        _boundary_nodes(b, root, sources["boundaries"], sources.get("members"), limits)  # type: ignore[arg-type]
    cut = omitted(sources, limits)
    partial = any(s.result["coverage"]["state"] != "complete" for s in managed)
    limitations = _limitations(sources, cut, partial)
    graph_coverage = js.GraphCoverage(
        status="partial" if partial or any(cut.values()) else "complete", truncated=any(cut.values()),
        omitted_count=sum(cut.values()) if not partial else None,
        limits=tuple(js.LimitRow(name="max_" + k, unit="items", value=getattr(limits, "max_" + k)) for k, n in cut.items() if n),
    )  # fmt: skip
    graph = w.ManagedApplicationGraph(
        schema="JavaScriptApplicationGraph", schema_version=1,
        graph_id="jag_" + canonical_sha256([[n.node_id for n in b.nodes], [e.edge_id for e in b.edges]]),
        root_node_ids=(root.node_id,), nodes=tuple(b.nodes), edges=tuple(b.edges), coverage=graph_coverage,
        limitations=tuple(limitations),
    )  # fmt: skip
    count = {kind: sum(1 for n in b.nodes if n.kind == kind) for kind in {n.kind for n in b.nodes}}
    summary = w.GraphSummary(
        graph_nodes=len(b.nodes), graph_edges=len(b.edges), assemblies=count.get("managed-assembly", 0),
        modules=count.get("managed-module", 0), types=count.get("managed-type", 0),
        methods=count.get("managed-method", 0), fields=count.get("managed-field", 0),
        pinvoke_imports=count.get("managed-pinvoke-import", 0),
        native_implementations=count.get("managed-native-implementation", 0),
    )  # fmt: skip
    status: Any = "truncated" if any(cut.values()) else "partial" if partial else "complete-within-inputs"
    source_evidence = w.SourceEvidence(
        managed_artifact_evidence_id=ids.get("artifact"), managed_members_evidence_id=ids.get("members"),
        managed_native_boundaries_evidence_id=ids.get("boundaries"), inventory_evidence_id=ids.get("inventory"),
    )  # fmt: skip
    coverage = w.ProjectionCoverage(status=status, **{f"omitted_{k}": n for k, n in cut.items()})
    body = [b.sha256, list(links), graph.graph_id, to_wire(limits)]
    return w.GraphResult(
        schema_version=1, projection_id="magp_" + canonical_sha256(body), root_artifact_sha256=b.sha256,
        source_evidence=source_evidence, summary=summary, graph=graph, coverage=coverage, evidence_links=links,
        limitations=tuple(limitations),
    )  # fmt: skip
