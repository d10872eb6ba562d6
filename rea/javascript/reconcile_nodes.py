"""The parts reconcile_javascript_runtime matches: runtime nodes, static candidates, runtime locations as
artifact paths.

Runtime targets, frames, scripts and workers become capture-scoped graph nodes; the static layers'
documents and JavaScript files are indexed by digest and artifact path; a runtime file path or URL is
translated to artifact paths by the layer's root and the caller's mappings. The matching itself is in
rea.javascript.reconcile. Pure.
"""

from __future__ import annotations

import ntpath
import posixpath
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from rea.canonical_json import canonical_sha256
from rea.javascript.observations import COMPLETE, EDGE_STRATEGY, NODE_STRATEGY, observation_id
from rea.javascript.reconcile_inputs import Capture, Entity, Layer, Loc
from rea.javascript.records.reconciliation import FileRootMapping, RuntimeMapping
from rea.loopback import unquote, urlsplit

EXTRACTOR = {
    "name": "rea-javascript-runtime-reconciliation",
    "version": "1",
    "operation": "reconcile_javascript_runtime",
    "executable_sha256": None,
}
LOAD_STATE_KINDS = ("javascript-asset", "javascript-chunk", "javascript-module")
RUNTIME_KIND = {"target": "target", "frame": "frame", "script": "runtime-script-instance", "worker": "worker"}
SECTION = {"target": "target", "frame": "frames", "script": "scripts", "worker": "workers"}
# what static nodes a runtime entity can be: a page is a document, a script or worker a JavaScript file
STATIC_KIND = {"target": "renderer", "frame": "renderer", "script": "javascript", "worker": "javascript"}
MAX_ROOTS, MAX_NODES, MAX_EDGES, MAX_OBSERVATIONS, MAX_CANDIDATES = 1000, 100_000, 200_000, 64, 1000


def edge(source: str, target: str, relation: str, properties: Mapping[str, Any], evidence: Any) -> dict[str, Any]:
    key = {"source_node_id": source, "target_node_id": target, "relation": relation, "properties": dict(properties)}
    return {
        "edge_id": "jag_edge_" + canonical_sha256(key),
        **key,
        "evidence": evidence,
        "identifier_strategy": dict(EDGE_STRATEGY),
    }


# ------------------------------------------------------------------ runtime nodes


@attrs.frozen(kw_only=True)
class RuntimeEntity:
    entity: Entity
    capture: Capture
    node: Mapping[str, Any]

    @property
    def node_id(self) -> str:
        return str(self.node["node_id"])


def _coverage(capture: Capture, section: str) -> dict[str, Any]:
    if capture.section_complete(section):
        return dict(COMPLETE)
    truncated = section != "target" and section in capture.completeness.truncated_sections
    limit = {"name": f"passive-cdp-{section}-limit", "value": _section_count(capture, section), "unit": "items"}
    return {"status": "partial", "truncated": truncated, "omitted_count": None, "limits": [limit] if truncated else []}


def _section_count(capture: Capture, section: str) -> int:
    return {"target": 1, "frames": len(capture.frames), "scripts": len(capture.scripts)}.get(
        section, len(capture.workers)
    )


def _extractor(capture: Capture) -> dict[str, Any]:
    provider = capture.evidence.provider
    name = provider.id
    return {
        "name": name,
        "version": provider.version or "1",
        "operation": capture.evidence.operation,
        "executable_sha256": None,
    }


def _runtime_location(capture: Capture, frame: str | None, script: str | None) -> dict[str, Any]:
    value = {
        "kind": "runtime",
        "capture_sha256": capture.capture_sha256,
        "target_key": capture.target.key,
        "frame_key": frame,
        "script_key": script,
    }
    return {"available": True, "value": value}


def _runtime_evidence(capture: Capture, e: Entity) -> dict[str, Any]:
    section = SECTION[e.kind]
    if e.source_sha256 is None:
        scripts = section == "scripts"
        artifact: dict[str, Any] = {
            "available": False,
            "reason": "not-observed" if scripts else "not-applicable",
            "detail": "Script source bytes were not included in this passive capture."
            if scripts
            else "This runtime entity has no standalone artifact bytes.",
        }
    else:
        artifact = {"available": True, "artifact_id": f"art_{e.source_sha256}", "sha256": e.source_sha256}
    limitations = ["The entity was observed only within one bounded passive capture."]
    if not capture.section_complete(section):
        limitations.append(f"The runtime {section} inventory was incomplete within this capture.")
    return {
        "authority": "passive-cdp-runtime",
        "state": "observed",
        "confidence": "exact",
        "artifact": artifact,
        "location": _runtime_location(capture, e.frame_key, e.key if e.kind == "script" else None),
        "extractor": _extractor(capture),
        "coverage": _coverage(capture, section),
        "limitations": limitations,
        "evidence_ids": [capture.evidence.evidence_id],
    }


def _node_kind(e: Entity) -> str:
    if e.kind == "worker" and "service" in str(e.properties.get("runtime_type") or ""):
        return "service-worker"
    return RUNTIME_KIND[e.kind]


def runtime_node(capture: Capture, e: Entity) -> dict[str, Any]:
    kind = _node_kind(e)
    identity = {
        "strategy": "runtime-instance",
        "stability": "capture-only",
        "capture_sha256": capture.capture_sha256,
        "runtime_key": e.key,
    }
    node_id = "jag_node_" + canonical_sha256({"kind": kind, "identity": identity})
    observation = {
        "label": e.label or None,
        "source_map_reference": None,
        "properties": dict(e.properties),
        "evidence": _runtime_evidence(capture, e),
    }
    full = {
        **observation,
        "observation_id": observation_id(node_id, observation),
        "identifier_strategy": dict(NODE_STRATEGY),
    }
    return {"node_id": node_id, "kind": kind, "identity": identity, "observations": [full], "label": e.label or e.key}


@attrs.frozen(kw_only=True)
class RuntimeProjection:
    entities: tuple[RuntimeEntity, ...]
    edges: tuple[Mapping[str, Any], ...]
    targets: Mapping[str, RuntimeEntity]  # by capture evidence id
    omitted: int


def project_runtime(captures: Sequence[Capture], limit: int) -> RuntimeProjection:
    """Every capture's target, then its frames, scripts and workers while `limit` lasts."""
    targets = {
        c.evidence.evidence_id: RuntimeEntity(entity=c.target, capture=c, node=runtime_node(c, c.target))
        for c in captures
    }
    room = limit - len(targets)
    rest: list[RuntimeEntity] = []
    total = 0
    for c in captures:
        for e in (*c.frames, *c.scripts, *c.workers):
            total += 1
            if len(rest) < room:
                rest.append(RuntimeEntity(entity=e, capture=c, node=runtime_node(c, e)))
    entities = (*targets.values(), *rest)
    edges = tuple(x for c in captures for x in _runtime_edges(c, entities))
    return RuntimeProjection(entities=entities, edges=edges, targets=targets, omitted=total - len(rest))


def _relationship_evidence(capture: Capture, e: Entity) -> dict[str, Any]:
    return {
        "authority": "passive-cdp-runtime",
        "state": "observed",
        "confidence": "exact",
        "artifact": {
            "available": False,
            "reason": "not-applicable",
            "detail": "The relationship is runtime metadata, not standalone bytes.",
        },
        "location": _runtime_location(capture, e.frame_key, e.key if e.kind == "script" else None),
        "extractor": _extractor(capture),
        "coverage": _coverage(capture, SECTION[e.kind]),
        "limitations": ["The relationship was observed only within one bounded passive capture."],
        "evidence_ids": [capture.evidence.evidence_id],
    }


def _runtime_edges(capture: Capture, entities: Sequence[RuntimeEntity]) -> list[dict[str, Any]]:
    """target -> frame, frame (or the target) -> script and worker: what the capture says holds what."""
    local = [r for r in entities if r.capture is capture]
    target = next(r for r in local if r.entity.kind == "target")
    frames = {r.entity.key: r for r in local if r.entity.kind == "frame"}
    out = []
    for r in local:
        if r is target:
            continue
        parent = frames.get(r.entity.frame_key or "", target) if r.entity.kind in ("script", "worker") else target
        relation = "loads" if r.entity.kind == "script" else "contains"
        out.append(
            edge(
                parent.node_id,
                r.node_id,
                relation,
                {"basis": "passive-cdp-observation"},
                _relationship_evidence(capture, r.entity),
            )
        )
    return out


# ------------------------------------------------------------------ static candidates


def logical(path: str) -> str | None:
    """A relative POSIX path inside the artifact, or None (empty, '.', escaping, absolute)."""
    if not path or path.startswith("/"):
        return None
    normalized = posixpath.normpath(path.replace("\\", "/"))
    if normalized in (".", "artifact-root") or normalized == ".." or normalized.startswith("../"):
        return None
    return normalized


def _node_paths(node: Mapping[str, Any]) -> list[str]:
    found = []
    identity = node.get("identity") or {}
    if identity.get("strategy") == "canonical-path":
        found.append(identity.get("path"))
    for o in node.get("observations") or ():
        props = o.get("properties") or {}
        found += [props.get(k) for k in ("path", "resolved_path", "declared_path")]
        loc = (o.get("evidence") or {}).get("location") or {}
        if loc.get("available") and (loc.get("value") or {}).get("kind") == "artifact-path":
            found.append(loc["value"].get("path"))
    return [p for p in (logical(x) for x in found if isinstance(x, str)) if p is not None]


def static_paths(graph: Mapping[str, Any]) -> dict[str, list[str]]:
    """Each node's artifact paths, with those of the nodes it maps_to (a generated file and its source)."""
    nodes = {n["node_id"]: n for n in graph["nodes"]}
    mapped: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for e in graph.get("edges") or ():
        if e.get("relation") == "maps_to" and e.get("target_node_id") in nodes:
            mapped[e["source_node_id"]].append(nodes[e["target_node_id"]])
    return {
        nid: sorted(set(_node_paths(n)).union(*(_node_paths(m) for m in mapped.get(nid, ()))))
        for nid, n in nodes.items()
    }


def category(node: Mapping[str, Any]) -> str | None:
    """renderer (a document a page can be), javascript (a file a script can be), or None.

    Our graphs name a finer subkind; the reference's graphs only the kind. Modules inside a bundle or a
    source map are not files a runtime loads: they become resident through their file."""
    sub, kind = node.get("subkind"), node.get("kind")
    if sub is not None:
        return {"html-document": "renderer", "module": "javascript"}.get(sub)
    if kind == "electron-renderer":
        return "renderer"
    if kind == "javascript-module":
        roles = {(o.get("properties") or {}).get("semantic_role") for o in node.get("observations") or ()}
        return None if "source-module" in roles else "javascript"
    return "javascript" if kind in ("javascript-asset", "worker", "service-worker") else None


def digests(node: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(sha256, basis): the file's bytes, or a module factory's own source."""
    out = []
    identity = node.get("identity") or {}
    if identity.get("strategy") == "content-digest":
        out.append((identity.get("sha256"), "content-sha256"))
    for o in node.get("observations") or ():
        props = o.get("properties") or {}
        out.append((props.get("sha256"), "content-sha256"))
        if node.get("kind") == "javascript-module":
            out.append((props.get("source_sha256"), "module-source-sha256"))
    if isinstance(node.get("sha256"), str):
        out.append((node["sha256"], "content-sha256"))
    return sorted({(d, b) for d, b in out if isinstance(d, str) and len(d) == 64})


@attrs.frozen(kw_only=True)
class Candidate:
    layer: Layer
    node: Mapping[str, Any]
    category: str
    paths: tuple[str, ...]
    digests: tuple[tuple[str, str], ...]

    @property
    def key(self) -> tuple[str, str]:
        return (self.layer.layer_id, str(self.node["node_id"]))


def candidates(layers: Sequence[Layer], paths: Mapping[str, Mapping[str, list[str]]]) -> list[Candidate]:
    out = []
    for layer in layers:
        for node in layer.graph["nodes"]:
            cat = category(node)
            if cat is not None:
                node_paths = tuple(paths[layer.layer_id].get(node["node_id"], ()))
                out.append(
                    Candidate(layer=layer, node=node, category=cat, paths=node_paths, digests=tuple(digests(node)))
                )
    return sorted(out, key=lambda c: c.key)


# ------------------------------------------------------------------ runtime locations -> artifact paths


def _style(path: str) -> str | None:
    if ntpath.splitdrive(path)[0] and ("\\" in path or ":" in path[:3]):
        return "windows"
    return "posix" if path.startswith("/") else None


def below_root(root: str, value: str) -> str | None:
    style = _style(root)
    if style is None or style != _style(value):
        return None
    module = ntpath if style == "windows" else posixpath
    try:
        rest = module.relpath(value, root)
    except ValueError:  # another drive
        return None
    rest = rest.replace("\\", "/")
    if rest in ("", ".") or rest == ".." or rest.startswith("../") or module.isabs(rest):
        return None
    return logical(rest)


def below_url(prefix: str, value: str) -> str | None:
    try:
        base, url = urlsplit(prefix), urlsplit(value)
        same = (base.scheme, base.netloc.lower()) == (url.scheme, url.netloc.lower())
    except ValueError:
        return None
    if not same or not url.path.startswith(base.path):
        return None
    return logical(unquote(url.path[len(base.path) :]))


def _join(prefix: str, suffix: str) -> str | None:
    return logical(posixpath.join(prefix, suffix) if prefix else suffix)


def mapped_paths(layer: Layer, loc: Loc) -> list[tuple[str, str]]:
    """(artifact path, basis) a runtime location translates to in this layer."""
    out = []
    if loc.kind == "file" and layer.result.get("format") == "directory":
        path = below_root(str(layer.result.get("input_path") or ""), loc.value)
        if path is not None:
            out.append((path, "artifact-path"))
    for m in layer.mappings:
        if not _hits(m, loc):
            continue
        file_root = isinstance(m, FileRootMapping)
        rest = below_root(m.root, loc.value) if isinstance(m, FileRootMapping) else below_url(m.prefix, loc.value)
        joined = _join(m.artifact_prefix, rest or "")
        if joined is not None:
            out.append((joined, "operator-file-mapping" if file_root else "operator-url-mapping"))
    return sorted(set(out))


def _hits(m: RuntimeMapping, loc: Loc) -> bool:
    if isinstance(m, FileRootMapping):
        return loc.kind == "file" and below_root(m.root, loc.value) is not None
    return loc.kind == "url" and below_url(m.prefix, loc.value) is not None


def active_prefixes(layer: Layer, locations: Iterable[Loc]) -> list[str]:
    """The artifact prefixes some runtime location in these captures falls under."""
    locs = list(locations)
    found = {m.artifact_prefix for m in layer.mappings if any(_hits(m, loc) for loc in locs)}
    if layer.result.get("format") == "directory":
        root = str(layer.result.get("input_path") or "")
        if any(loc.kind == "file" and below_root(root, loc.value) is not None for loc in locs):
            found.add("")
    return sorted(found)


def within(path: str, prefix: str) -> bool:
    return prefix == "" or path == prefix or path.startswith(prefix + "/")
