"""reconcile_javascript_runtime: which static JavaScript a passive capture saw, and how sure that is.

Each runtime entity is matched to the static layers conservatively, in this order (the
reference's rules):
1. captured source bytes whose digest equals one static file that also sits at the mapped path:
   content-and-location;
2. one static file with that digest anywhere: unique content;
3. no bytes, one static file at the mapped path: unique location (medium confidence);
4. several candidates: ambiguous, no edge; bytes that disagree with the file at the mapped path:
   unmatched, because a path never overrides a digest;
5. nothing mapped: unknown, never "absent".
A match is an inferred `observed_as` edge (static -> runtime). Static files then get a load state
(loaded, resident in a loaded file, not observed in complete captures of their mapped scope, or
unknown). None of it says code ran. Pure: inputs are parsed records (reconcile_inputs).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import attrs

from rea.canonical_json import canonical_sha256
from rea.javascript import reconcile_nodes as rn
from rea.javascript.observations import COMPLETE, PARTIAL
from rea.javascript.reconcile_inputs import Capture, Layer
from rea.javascript.reconcile_summary import capture_summary, input_status, layer_summary, summary
from rea.javascript.records import reconciliation as jr
from rea.javascript.records.reconciliation import ReconciliationLimits
from rea.wire.convert import to_wire

LIMITATIONS = (
    "Only caller-supplied, semantically verified Evidence records were reconciled.",
    "Digest equality establishes byte identity but not code reachability, module initialization, or feature execution.",
    "A static module resident in an observed bundle is not reported as executed.",
    "Not-observed means absent from the bounded captures in scope, never globally unloaded.",
    "Caller-declared file and URL mappings are inference inputs and do not expand CDP origin or filesystem-root "
    "authority.",
    "Source-map authority remains separate from passive runtime authority.",
)
SOURCE_MAP_LIMITATION = (
    "Source-map declarations and original-source content retain separate static authority and are not used as "
    "primary runtime byte matches."
)


@attrs.frozen(kw_only=True)
class Index:
    by_digest: Mapping[tuple[str, str], list[rn.Candidate]]  # (category, sha256)
    by_path: Mapping[tuple[str, str, str], list[rn.Candidate]]  # (layer, category, path)
    layers: Sequence[Layer]


def index(layers: Sequence[Layer], found: Sequence[rn.Candidate]) -> Index:
    by_digest: dict[tuple[str, str], list[rn.Candidate]] = defaultdict(list)
    by_path: dict[tuple[str, str, str], list[rn.Candidate]] = defaultdict(list)
    for c in found:
        for sha in sorted({sha for sha, _ in c.digests}):  # one entry per digest, whatever its basis
            by_digest[(c.category, sha)].append(c)
        for path in c.paths:
            by_path[(c.layer.layer_id, c.category, path)].append(c)
    return Index(by_digest=by_digest, by_path=by_path, layers=layers)


# ------------------------------------------------------------------ matching


@attrs.frozen(kw_only=True)
class Verdict:
    status: str
    basis: str
    confidence: str
    reason: str
    candidates: tuple[rn.Candidate, ...]
    matched: rn.Candidate | None = None


def _located(r: rn.RuntimeEntity, ix: Index) -> list[tuple[rn.Candidate, str]]:
    """Static candidates at the artifact paths this entity's location maps to, with the mapping's basis."""
    kind = rn.STATIC_KIND[r.entity.kind]
    seen: dict[tuple[str, str], tuple[rn.Candidate, str]] = {}
    for layer in ix.layers:
        for path, basis in rn.mapped_paths(layer, r.entity.location):
            for c in ix.by_path.get((layer.layer_id, kind, path), ()):
                seen.setdefault(c.key, (c, basis))
    return [seen[k] for k in sorted(seen)]


def _strongest(located: Sequence[tuple[rn.Candidate, str]]) -> str:
    bases = {b for _, b in located}
    return next(b for b in ("artifact-path", "operator-file-mapping", "operator-url-mapping") if b in bases)


def _by_content(r: rn.RuntimeEntity, ix: Index, located: list[tuple[rn.Candidate, str]]) -> Verdict:
    sha = r.entity.source_sha256
    content = ix.by_digest.get((rn.STATIC_KIND[r.entity.kind], str(sha)), [])
    at_path = {c.key for c, _ in located}
    both = [c for c in content if c.key in at_path]
    if len(both) == 1:
        return Verdict(status="matched", basis="content-and-location", confidence="high",
                       reason="content-and-location-match", candidates=(both[0],), matched=both[0])  # fmt: skip
    if len(content) == 1:
        basis = next((b for d, b in content[0].digests if d == sha), "content-sha256")
        return Verdict(status="matched", basis=basis, confidence="high", reason="unique-content-match",
                       candidates=(content[0],), matched=content[0])  # fmt: skip
    if content:
        return Verdict(status="ambiguous", basis="none", confidence="unknown",
                       reason="ambiguous-static-candidates", candidates=tuple(content))  # fmt: skip
    if located:
        return Verdict(status="unmatched", basis=_strongest(located), confidence="high",
                       reason="captured-content-disagrees-with-static-location",
                       candidates=tuple(c for c, _ in located))  # fmt: skip
    return Verdict(status="unmatched", basis="none", confidence="high", reason="no-static-content-match", candidates=())


def _by_location(r: rn.RuntimeEntity, ix: Index, located: list[tuple[rn.Candidate, str]]) -> Verdict:
    if len(located) == 1:
        c, basis = located[0]
        return Verdict(status="matched", basis=basis, confidence="medium", reason="unique-location-match",
                       candidates=(c,), matched=c)  # fmt: skip
    if located:
        return Verdict(status="ambiguous", basis=_strongest(located), confidence="unknown",
                       reason="ambiguous-static-candidates", candidates=tuple(c for c, _ in located))  # fmt: skip
    mapped = any(rn.mapped_paths(layer, r.entity.location) for layer in ix.layers)
    return Verdict(
        status="unmatched" if mapped else "unknown",
        basis="none",
        confidence="unknown",
        reason="no-static-content-match" if mapped else "no-authorized-location-mapping",
        candidates=(),
    )


def judge(r: rn.RuntimeEntity, ix: Index) -> Verdict:
    located = _located(r, ix)
    return _by_content(r, ix, located) if r.entity.source_sha256 is not None else _by_location(r, ix, located)


def _item(r: rn.RuntimeEntity, v: Verdict) -> jr.Reconciliation:
    """One entity's record, identified by the SHA-256 of everything else in it."""
    refs = list(dict.fromkeys(c.key for c in v.candidates))
    draft = jr.Reconciliation(
        reconciliation_id="",
        entity_kind=r.entity.kind,  # type: ignore[arg-type]  # an Entity's kind is one of the four
        runtime_evidence_id=r.capture.evidence.evidence_id,
        runtime_node_id=r.node_id,
        static_layer_id=v.matched.layer.layer_id if v.matched else None,
        static_node_id=v.matched.node["node_id"] if v.matched else None,
        status=v.status,  # type: ignore[arg-type]  # Verdict's status, basis, confidence and reason are the
        basis=v.basis,  # type: ignore[arg-type]  # contract's literals, written as str where they are decided
        confidence=v.confidence,  # type: ignore[arg-type]
        reason=v.reason,  # type: ignore[arg-type]
        candidate_static_count=len(refs),
        candidate_static_nodes=tuple(
            jr.CandidateRef(static_layer_id=layer, static_node_id=node) for layer, node in refs[: rn.MAX_CANDIDATES]
        ),
    )
    semantic = to_wire(draft)
    del semantic["reconciliation_id"]
    return attrs.evolve(draft, reconciliation_id="jrr_item_" + canonical_sha256(semantic))


def _observed_as(r: rn.RuntimeEntity, v: Verdict, item: jr.Reconciliation) -> dict[str, Any]:
    c = v.matched
    assert c is not None
    by_bytes = v.basis in ("content-sha256", "module-source-sha256", "content-and-location")
    sha = r.entity.source_sha256
    complete = c.layer.graph.get("coverage", {}).get("status") == "complete" and r.capture.scripts_complete
    evidence = {
        "authority": "cross-layer-reconciliation",
        "state": "inferred",
        "confidence": "medium" if v.confidence == "medium" else "high",
        "artifact": {"available": True, "artifact_id": f"art_{sha}", "sha256": sha}
        if sha
        else {"available": False, "reason": "not-observed", "detail": "Runtime source bytes were not captured."},
        "location": r.node["observations"][0]["evidence"]["location"],
        "extractor": dict(rn.EXTRACTOR),
        "coverage": dict(COMPLETE if complete else PARTIAL),
        "limitations": [
            "Equal content digests establish byte identity, not execution causality."
            if by_bytes
            else "Location correspondence is inferred from an artifact root or caller-declared mapping.",
            "Passive script parsing or target presence does not prove feature execution.",
        ],
        "evidence_ids": sorted([c.layer.evidence.evidence_id, r.capture.evidence.evidence_id]),
    }
    props = {"reconciliation_id": item.reconciliation_id, "basis": v.basis, "static_layer_id": c.layer.layer_id}
    return rn.edge(c.node["node_id"], r.node_id, "observed_as", props, evidence)


@attrs.frozen(kw_only=True)
class Matching:
    items: tuple[jr.Reconciliation, ...]
    edges: tuple[Mapping[str, Any], ...]
    omitted: int


def match(entities: Sequence[rn.RuntimeEntity], ix: Index, limit: int) -> Matching:
    judged = [(r, v, _item(r, v)) for r, v in ((r, judge(r, ix)) for r in entities)]
    judged.sort(key=lambda t: t[2].reconciliation_id)
    kept = judged[:limit]
    edges = tuple(_observed_as(r, v, item) for r, v, item in kept if v.matched is not None)
    return Matching(items=tuple(item for _, _, item in kept), edges=edges, omitted=len(judged) - len(kept))


# ------------------------------------------------------------------ load states


def _resident(layer: Layer, loaded: set[str]) -> set[str]:
    """Everything a loaded file contains (bundled modules, their modules): present, not shown to run."""
    children: dict[str, list[str]] = defaultdict(list)
    for e in layer.graph.get("edges") or ():
        if e.get("relation") == "contains":
            children[e["source_node_id"]].append(e["target_node_id"])
    pending, resident = list(loaded), set()
    while pending:
        for child in children.get(pending.pop(), ()):
            if child not in resident:
                resident.add(child)
                pending.append(child)
    return resident - loaded


LoadStatus = Literal["loaded", "resident-in-loaded-asset", "not-observed-in-capture", "unknown"]
LoadReason = Literal[
    "runtime-script-correspondence",
    "containing-asset-was-loaded",
    "not-observed-in-bounded-capture",
    "layer-outside-runtime-scope",
    "static-or-runtime-coverage-incomplete",
]
PAGE_CAPTURES = frozenset({"browser", "electron"})
PAGE_INVISIBLE_ROLES = frozenset({"main", "utility"})


def _outside_pages(node: Mapping[str, Any]) -> bool:
    """A module only Electron's main or utility process runs: no page capture could list it (our refinement
    of the reference, which would call it not-observed)."""
    roles = {
        r.get("role") for o in node.get("observations") or () for r in (o.get("properties") or {}).get("roles") or ()
    }
    return bool(roles) and roles <= PAGE_INVISIBLE_ROLES


def _layer_states(
    layer: Layer,
    entities: Sequence[rn.RuntimeEntity],
    items: Sequence[jr.Reconciliation],
    paths: Mapping[str, list[str]],
    complete: bool,
) -> list[jr.StaticLoadState]:
    direct: dict[str, list[str]] = defaultdict(list)
    for i in items:
        if i.status == "matched" and i.static_layer_id == layer.layer_id and i.static_node_id is not None:
            direct[i.static_node_id].append(i.runtime_node_id)
    resident = _resident(layer, set(direct))
    prefixes = rn.active_prefixes(layer, (r.entity.location for r in entities))
    scoped = [r for r in entities if rn.mapped_paths(layer, r.entity.location)]
    whole = complete and layer.graph.get("coverage", {}).get("status") == "complete" and bool(scoped)
    whole = whole and all(r.capture.scripts_complete for r in scoped)
    pages_only = all(r.capture.kind in PAGE_CAPTURES for r in scoped)
    out = []
    for node in layer.graph["nodes"]:
        if node.get("kind") not in rn.LOAD_STATE_KINDS:
            continue
        nid = node["node_id"]
        in_scope = any(rn.within(p, x) for p in paths.get(nid, ()) for x in prefixes)
        in_scope = in_scope and not (pages_only and _outside_pages(node))
        status, reason = _load_state(bool(direct.get(nid)), nid in resident, whole, in_scope)
        out.append(
            jr.StaticLoadState(
                static_layer_id=layer.layer_id,
                static_node_id=nid,
                kind=node["kind"],
                status=status,
                runtime_node_ids=tuple(sorted(set(direct.get(nid, ())))),
                reason=reason,
                path=paths[nid][0] if paths.get(nid) else None,
            )
        )
    return out


def _load_state(loaded: bool, resident: bool, whole: bool, in_scope: bool) -> tuple[LoadStatus, LoadReason]:
    if loaded:
        return "loaded", "runtime-script-correspondence"
    if resident:
        return "resident-in-loaded-asset", "containing-asset-was-loaded"
    if whole and in_scope:
        return "not-observed-in-capture", "not-observed-in-bounded-capture"
    return "unknown", "static-or-runtime-coverage-incomplete" if in_scope else "layer-outside-runtime-scope"


# ------------------------------------------------------------------ the combined graph


def _stripped_node(node: Mapping[str, Any]) -> dict[str, Any]:
    """The reference's fields of a static node (our flat facts stay in its observation's properties)."""
    out = {k: node[k] for k in ("node_id", "kind", "identity", "observations") if k in node}
    for k in ("label", "subkind"):
        if isinstance(node.get(k), str):
            out[k] = node[k]
    return out


def _stripped_edge(e: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("edge_id", "source_node_id", "target_node_id", "relation", "properties", "evidence", "identifier_strategy")
    return {k: e[k] for k in keys if k in e}


def _merge(nodes: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """One node per id, observations from every layer and capture (64 kept); omitted observations counted."""
    grouped: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for n in nodes:
        grouped[n["node_id"]].append(n)
    out, omitted = [], 0
    for nid in sorted(grouped):
        group = grouped[nid]
        observations = {o["observation_id"]: o for n in group for o in n.get("observations") or ()}
        kept = [observations[k] for k in sorted(observations)]
        omitted += max(0, len(kept) - rn.MAX_OBSERVATIONS)
        out.append({**group[0], "observations": kept[: rn.MAX_OBSERVATIONS]})
    return out, omitted


@attrs.frozen(kw_only=True)
class Graph:
    graph: Mapping[str, Any]
    omitted: int


def _roots(layers: Sequence[Layer], runtime: rn.RuntimeProjection) -> list[str]:
    ordered = [r.node_id for r in runtime.targets.values()]
    for role_first in (True, False):
        for layer in layers:
            if (layer.role == "application") == role_first:
                ordered += list(layer.graph.get("root_node_ids") or ())
    return list(dict.fromkeys(ordered))


def _bounded(
    nodes: list[dict[str, Any]], edges: Mapping[str, Mapping[str, Any]], roots: list[str]
) -> tuple[list[dict[str, Any]], list[Mapping[str, Any]], int]:
    """Roots first, then by id, within the graph caps; edges whose ends were kept."""
    first = set(roots[: rn.MAX_ROOTS])
    ordered = [n for n in nodes if n["node_id"] in first] + [n for n in nodes if n["node_id"] not in first]
    kept = ordered[: rn.MAX_NODES]
    ids = {n["node_id"] for n in kept}
    linked = [edges[k] for k in sorted(edges) if {edges[k]["source_node_id"], edges[k]["target_node_id"]} <= ids]
    kept_edges = linked[: rn.MAX_EDGES]
    omitted = len(roots) - len(first) + len(nodes) - len(kept) + len(edges) - len(kept_edges)
    return kept, kept_edges, omitted


def combined_graph(
    layers: Sequence[Layer],
    runtime: rn.RuntimeProjection,
    matched: Sequence[Mapping[str, Any]],
    input_status: str,
    projection_omitted: int,
) -> Graph:
    static_nodes = [_stripped_node(n) for layer in layers for n in layer.graph["nodes"]]
    nodes, merged_omitted = _merge([*static_nodes, *(r.node for r in runtime.entities)])
    static_edges = [_stripped_edge(e) for layer in layers for e in layer.graph.get("edges") or ()]
    edges = {e["edge_id"]: e for e in [*static_edges, *runtime.edges, *matched]}
    roots = _roots(layers, runtime)
    kept, kept_edges, cut = _bounded(nodes, edges, roots)
    omitted = merged_omitted + cut
    graph = {
        "schema": "JavaScriptApplicationGraph",
        "schema_version": 1,
        "graph_id": "jag_" + canonical_sha256([[n["node_id"] for n in kept], [e["edge_id"] for e in kept_edges]]),
        "root_node_ids": roots[: rn.MAX_ROOTS],
        "nodes": kept,
        "edges": kept_edges,
        "coverage": _graph_coverage(input_status, projection_omitted + omitted, len(kept)),
        "limitations": _graph_limitations(layers, input_status, projection_omitted + omitted > 0),
    }
    return Graph(graph=graph, omitted=omitted)


def _graph_coverage(input_status: str, omitted: int, nodes: int) -> dict[str, Any]:
    if input_status == "complete" and not omitted:
        return dict(COMPLETE)
    limits = []
    if input_status == "truncated":
        limits.append({"name": "runtime-reconciliation-input-coverage", "value": 1, "unit": "items"})
    if omitted:
        limits.append({"name": "runtime-reconciliation-output-limits", "value": nodes, "unit": "items"})
    truncated = input_status == "truncated" or omitted > 0
    return {
        "status": "partial",
        "truncated": truncated,
        "omitted_count": omitted if input_status != "truncated" else None,
        "limits": limits,
    }


def _graph_limitations(layers: Sequence[Layer], input_status: str, output_cut: bool) -> list[str]:
    out = {x for layer in layers for x in layer.graph.get("limitations") or () if isinstance(x, str)}
    out |= {
        "Runtime presence is bounded to passive capture windows and does not prove feature execution.",
        "Cross-layer observed_as edges are inferences; digest equality proves byte identity only.",
        "Source-map relationships retain their original static authority and are not promoted into runtime matches.",
    }
    if input_status != "complete":
        out.add("One or more source graphs or passive captures were incomplete or truncated.")
    if output_cut:
        out.add("The reconciled graph omitted entities or classifications at caller limits.")
    return sorted(out)


# ------------------------------------------------------------------ the result


def reconcile(layers: Sequence[Layer], captures: Sequence[Capture], limits: ReconciliationLimits) -> dict[str, Any]:
    """The result record of reconcile_javascript_runtime (layers sorted by id, captures by evidence id)."""
    layers = sorted(layers, key=lambda x: x.layer_id)
    captures = sorted(captures, key=lambda c: c.evidence.evidence_id)
    runtime = rn.project_runtime(captures, limits.max_runtime_entities)
    paths = {layer.layer_id: rn.static_paths(layer.graph) for layer in layers}
    matching = match(runtime.entities, index(layers, rn.candidates(layers, paths)), limits.max_reconciliation_items)
    whole = runtime.omitted == 0 and matching.omitted == 0
    states_all = [
        s
        for layer in layers
        for s in _layer_states(layer, runtime.entities, matching.items, paths[layer.layer_id], whole)
    ]
    states = states_all[: limits.max_static_load_states]
    status = input_status(layers, captures)
    projection_omitted = runtime.omitted + matching.omitted
    graph = combined_graph(layers, runtime, matching.edges, status, projection_omitted)
    cut = any((runtime.omitted, matching.omitted, len(states_all) - len(states), graph.omitted))
    truncated = cut or status == "truncated"
    limitations = list(LIMITATIONS)
    if status != "complete":
        limitations.append("One or more static graphs or passive captures were incomplete.")
    if cut:
        limitations.append("Runtime reconciliation omitted entities or classifications during projection.")
    semantic = {
        "static_layers": [to_wire(layer_summary(layer)) for layer in layers],
        "runtime_captures": [to_wire(capture_summary(c, runtime)) for c in captures],
        "graph": graph.graph,
        "summary": to_wire(summary(runtime, matching.items, states)),
        "reconciliations": [to_wire(i) for i in matching.items],
        "static_load_states": [to_wire(s) for s in states],
        "source_map_authority": to_wire(
            jr.SourceMapAuthority(
                used_for_primary_matching=False,
                static_layer_count=len(layers),
                static_layers_with_read_approval=sum(1 for layer in layers if layer.source_map_read_approved),
                runtime_script_declarations=sum(
                    1 for c in captures if c.kind == "browser" for s in c.scripts if s.properties.get("source_map_url")
                ),
                limitation=SOURCE_MAP_LIMITATION,
            )
        ),
        "coverage": to_wire(
            jr.Coverage(
                status="truncated" if truncated else "partial" if status == "partial" else "complete-within-inputs",
                truncated=truncated,
                omitted_runtime_entities=runtime.omitted,
                omitted_reconciliation_items=matching.omitted,
                omitted_static_load_states=len(states_all) - len(states),
                omitted_graph_items=graph.omitted,
            )
        ),
        "evidence_links": sorted({x.evidence.evidence_id for x in layers} | {c.evidence.evidence_id for c in captures}),
        "limitations": sorted(limitations),
    }
    return {"schema_version": 1, "reconciliation_id": "jrr_" + canonical_sha256(semantic), **semantic}
