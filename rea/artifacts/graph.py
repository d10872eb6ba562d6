"""The content-addressed artifact graph: built from reader facts, paged, and parsed back strictly.

Identity is content: `art_` commits to bytes (sha256, size), `occ_` to where they occur
(parent occurrence, logical path, kind, artifact), `edge_`/`ic_`/`agm_` to their fields.
Every id is a prefix plus the sha256 of canonical JSON, so the graph is independent of
the order a reader happened to report entries in.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import orjson

from rea.artifacts.model import (  # noqa: F401  (SECTIONS: the sections this graph pages)
    CONTAINER_FORMATS,
    ROOT_ONLY_FORMATS,
    SECTIONS,
    EntryFact,
    InventoryFacts,
    Limits,
    kind_for,
    normalize_member_name,
)
from rea.artifacts.records import Contradiction, Edge, ManagedRole, Node, Occurrence, SourceLocation
from rea.canonical_json import canonical_sha256
from rea.paging import paginate
from rea.wire.convert import to_wire

GRAPH_SCHEMA_VERSION = 1
ROOT_SCOPE_NOTICE = (
    "Root-only inventory: the root artifact was hashed as a whole; its container entries were not enumerated."
)
# historical REA wording that meant the same root-only scope
_LEGACY_ROOT_NOTICES = ("root-only inventory", "container entries were not enumerated", "not a recognized container")
UNPACKED_CAUSE = (
    "Packaging tools commonly sign or strip .asar.unpacked native binaries after writing the archive "
    "header, so the declared hash no longer matches; Electron does not check unpacked companions at "
    "runtime."
)


_SAFE = 2**53 - 1
_FLAT = (str, bool, type(None))


def flat_sha256(body: Mapping[str, Any]) -> str:
    """canonical_sha256 of a flat object with ASCII keys and string/bool/null/safe-integer values.

    For exactly these values RFC 8785 output equals orjson's sorted-key output (keys compare the
    same by code point and by UTF-16 unit when they are ASCII; strings escape identically), so the
    id skips the general canonicalizer's census. Anything else takes the general path; a law in
    property_tests checks the two agree."""
    for key, value in body.items():
        if not key.isascii() or not (type(value) in _FLAT or (type(value) is int and -_SAFE <= value <= _SAFE)):
            return canonical_sha256(body)
    return hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).hexdigest()


def _id(prefix: str, body: Mapping[str, Any]) -> str:
    """Id bodies are built here with ASCII literal keys and str/None/int values (sizes, ordinals,
    UTF-8-clean paths), so the unchecked fast form applies; a law checks it against canonical_sha256."""
    return prefix + hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).hexdigest()


def artifact_id(sha256: str, size: int) -> str:
    return _id("art_", {"sha256": sha256, "size": size})


_MANAGED_ROLES = {
    "assembly": "a .NET assembly (PE with a CLI header): read its metadata with inspect_managed_artifact",
    "portable-pdb": "a portable PDB (CLI metadata debug symbols): inspect_managed_artifact of the assembly "
    "beside it reads it",
}


def managed_node(role: str | None) -> ManagedRole | None:
    """Our extra node field for .NET files: what the bytes are and the managed tool that reads them."""
    if role is None:
        return None
    return ManagedRole(role=role, next_tool="inspect_managed_artifact", detail=_MANAGED_ROLES[role])  # type: ignore[arg-type]


def coverage_status_of(coverage: Mapping[str, str]) -> str:
    return "complete" if coverage["status"] == "complete" else "partial"


def build_inventory(facts: InventoryFacts, limits: Limits) -> dict[str, Any]:
    """The complete graph of one traversal (every record, no paging)."""
    root_name, problem = normalize_member_name(facts.root_name, limits.max_path_bytes)
    root_name = root_name or "root"
    root_is_dir = facts.root_format == "directory"
    root_art = artifact_id(facts.root_sha256, facts.root_size)
    # the root's name is shown but not committed to: renaming the file keeps every id
    root_occ = _id(
        "occ_",
        {"parent_occurrence_id": None, "entry_kind": "directory" if root_is_dir else "file", "artifact_id": root_art},
    )
    built = _Built(root_occ=root_occ, root_art=root_art, incomplete=bool(facts.limit_hits) or bool(facts.omissions))
    built.add_node(
        root_art,
        facts.root_sha256,
        facts.root_size,
        facts.root_format,
        root_name,
        False,
        "materialized",
        (),
        _root_notes(facts.root_format),
        facts.root_managed_role,
    )
    built.occurrences.append(_root_occurrence(root_occ, root_art, root_name, root_is_dir, facts.root_size))
    for entry in sorted(facts.entries, key=lambda e: e.index):
        built.add_entry(entry)
    chains = built.chains
    built.occurrences.sort(key=lambda o: (chains[o.occurrence_id], o.entry_kind, o.occurrence_id))
    first = built.node_first_chain
    node_list = sorted(built.nodes.values(), key=lambda n: (first[n.artifact_id], n.artifact_id))
    built.contradictions.sort(key=lambda c: (chains[c.occurrence_id], c.contradiction_id))
    limitations = list(facts.limitations) + _case_collisions(built.occurrences) + _reader_notes(facts)
    scope = "container-entries" if facts.root_format in CONTAINER_FORMATS else "root"
    if scope == "root":
        limitations.append(ROOT_SCOPE_NOTICE)
    coverage = {"scope": scope, "status": "unknown" if built.incomplete else "complete"}
    graph = {  # the graph's records turn into JSON here: the complete inventory is stored and paged as JSON
        "nodes": [to_wire(n) for n in node_list],
        "occurrences": [to_wire(o) for o in built.occurrences],
        "edges": [to_wire(e) for e in _order_edges(built.edges, chains)],
        "integrity_contradictions": [to_wire(c) for c in built.contradictions],
    }
    return _complete(facts, limits, root_art, graph, coverage, limitations)


@attrs.define
class _Built:
    """The records build_inventory gathers, entry by entry: why a class, the passes share six tables and the
    `incomplete` verdict, and a node first met deeper is replaced by the same bytes met nearer the root."""

    root_occ: str
    root_art: str
    incomplete: bool
    nodes: dict[str, Node] = attrs.Factory(dict)
    node_first_chain: dict[str, tuple[str, ...]] = attrs.Factory(dict)
    occurrences: list[Occurrence] = attrs.Factory(list)
    chains: dict[str, tuple[str, ...]] = attrs.Factory(dict)
    occ_of_entry: dict[int, str] = attrs.Factory(dict)
    art_of_entry: dict[int, str | None] = attrs.Factory(dict)
    edges: list[_Contains] = attrs.Factory(list)
    contradictions: list[Contradiction] = attrs.Factory(list)

    def __attrs_post_init__(self) -> None:
        self.chains[self.root_occ] = ()

    def add_node(
        self,
        aid: str,
        sha: str,
        size: int,
        fmt: str,
        name: str,
        executable: bool,
        state: str,
        chain: tuple[str, ...],
        notes: Sequence[str] = (),
        role: str | None = None,
    ) -> None:
        if aid in self.nodes and self.node_first_chain[aid] <= chain:
            return
        self.nodes[aid] = Node(
            artifact_id=aid,
            kind=kind_for(fmt, name, executable),
            format=fmt,
            sha256=sha,
            size=size,
            media_type=None,
            architecture=None,
            executable=executable,
            content_state=state,  # type: ignore[arg-type]
            limitations=tuple(notes),
            managed=managed_node(role),
        )
        self.node_first_chain[aid] = chain

    def add_entry(self, entry: EntryFact) -> None:
        parent_occ = self.root_occ if entry.parent is None else self.occ_of_entry.get(entry.parent)
        parent_art = self.root_art if entry.parent is None else self.art_of_entry.get(entry.parent)
        if parent_occ is None:
            self.incomplete = True
            return
        aid = None
        if entry.entry_kind in ("file", "slice") and entry.sha256 is not None and entry.size is not None:
            aid = artifact_id(entry.sha256, entry.size)
        occ = _id(
            "occ_",
            {
                "parent_occurrence_id": parent_occ,
                "logical_path": entry.logical_path,
                "entry_kind": entry.entry_kind,
                "artifact_id": aid,
            },
        )
        chain = self.chains[parent_occ] + (entry.logical_path,)
        self.occ_of_entry[entry.index] = occ
        self.art_of_entry[entry.index] = aid
        notes = list(entry.limitations)
        if entry.link_target is not None:
            notes.append(f"symlink to {entry.link_target!r}; recorded, never followed")
        if entry.entry_kind in ("file", "slice") and entry.hash_status in ("not-hashed-limit", "unavailable"):
            self.incomplete = True
        self.chains[occ] = chain
        self.occurrences.append(_occurrence(entry, occ, aid, parent_occ, notes))
        if aid is not None:
            self.add_node(
                aid,
                entry.sha256 or "",
                entry.size or 0,
                entry.format,
                entry.logical_path,
                entry.executable,
                "embedded",
                chain,
                role=entry.managed_role,
            )
            if parent_art is not None:
                self.edges.append(_contains(parent_art, aid, occ, entry.logical_path))
        if entry.hash_status == "mismatched" and entry.declared_sha256 and entry.sha256:
            self.incomplete = True
            self.contradictions.append(_contradiction(entry, occ, parent_art or self.root_art))


# ------------------------------------------------- passes of build_inventory


def _root_notes(root_format: str) -> list[str]:
    if root_format not in ROOT_ONLY_FORMATS:
        return []
    return [
        f"{root_format.upper()} contents are not enumerated by this reader; the root is recorded by its digest only."
    ]


def _root_occurrence(root_occ: str, root_art: str, root_name: str, root_is_dir: bool, size: int) -> Occurrence:
    """The root's own occurrence: verified (its digest is what open_binary hashed), never a parent's member."""
    return Occurrence(
        occurrence_id=root_occ,
        artifact_id=root_art,
        parent_occurrence_id=None,
        logical_path=root_name,
        entry_kind="directory" if root_is_dir else "file",
        declared_size=None if root_is_dir else size,
        compressed_size=None,
        executable=False,
        encrypted=False,
        hash_status="verified",
        source_location=None,
        unpacked=False,
        limitations=(),
    )


@attrs.frozen
class _Contains:
    """A containment edge, before _order_edges numbers it and gives it its id."""

    parent_artifact_id: str
    child_artifact_id: str
    occurrence_id: str
    logical_path: str


def _contains(parent_art: str, aid: str, occ: str, logical_path: str) -> _Contains:
    return _Contains(parent_art, aid, occ, logical_path)


def _occurrence(entry: EntryFact, occ: str, aid: str | None, parent_occ: str, notes: list[str]) -> Occurrence:
    """One reader entry as an occurrence record (where the bytes occur; the artifact is what they are)."""
    return Occurrence(
        occurrence_id=occ,
        artifact_id=aid,
        parent_occurrence_id=parent_occ,
        logical_path=entry.logical_path,
        entry_kind=entry.entry_kind,  # type: ignore[arg-type]  # a reader's kinds are the record's
        declared_size=entry.declared_size,
        compressed_size=entry.compressed_size,
        executable=entry.executable,
        encrypted=entry.encrypted,
        hash_status=entry.hash_status,  # type: ignore[arg-type]
        source_location=None
        if entry.source_offset is None
        else SourceLocation(offset=entry.source_offset, length=entry.source_length or 0),
        unpacked=entry.unpacked,
        limitations=tuple(notes),
    )


def _contradiction(entry: EntryFact, occ: str, parent_art: str) -> Contradiction:
    """An entry whose observed bytes contradict its container's declared hash, with its `ic_` id."""
    notes = [
        "The observed bytes contradict the container's declared integrity hash; they were quarantined "
        "from nested expansion."
    ]
    if entry.integrity_detail:
        notes.append(entry.integrity_detail)
    if entry.unpacked:
        notes.append(UNPACKED_CAUSE)
    unnamed = Contradiction(
        contradiction_id="",
        occurrence_id=occ,
        parent_artifact_id=parent_art,
        logical_path=entry.logical_path,
        declared_sha256=entry.declared_sha256 or "",  # set: only a mismatch with both digests is recorded
        observed_sha256=entry.sha256 or "",
        entry_kind="slice" if entry.entry_kind == "slice" else "file",
        unpacked=entry.unpacked,
        trust="observed-untrusted",
        provenance="container-integrity-metadata-versus-observed-bytes",
        limitations=tuple(notes),
    )
    body = {k: v for k, v in to_wire(unnamed).items() if k != "contradiction_id"}  # the id commits to the rest
    return attrs.evolve(unnamed, contradiction_id=_id("ic_", body))


def _order_edges(edges: list[_Contains], chains: Mapping[str, tuple[str, ...]]) -> list[Edge]:
    """Edges sorted by where they occur, numbered, each with its `edge_` id."""
    ordered = sorted(edges, key=lambda e: (chains[e.occurrence_id], e.child_artifact_id))
    return [
        Edge(
            edge_id=_id(
                "edge_",
                {
                    "ordinal": ordinal,
                    "parent_artifact_id": e.parent_artifact_id,
                    "child_artifact_id": e.child_artifact_id,
                    "relation": "contains",
                    "occurrence_id": e.occurrence_id,
                },
            ),
            parent_artifact_id=e.parent_artifact_id,
            child_artifact_id=e.child_artifact_id,
            relation="contains",
            occurrence_id=e.occurrence_id,
            logical_path=e.logical_path,
            producer=None,
            ordinal=ordinal,
        )
        for ordinal, e in enumerate(ordered)
    ]


def _case_collisions(occurrences: Sequence[Occurrence]) -> list[str]:
    """Case-distinct siblings stay separate; the materialization diagnostic does not reduce coverage."""
    by_folded: dict[tuple[str | None, str], set[str]] = defaultdict(set)
    for o in occurrences[1:]:
        by_folded[(o.parent_occurrence_id, o.logical_path.casefold())].add(o.logical_path)
    return [
        "Case-distinct members " + ", ".join(sorted(spellings)) + " were each read and kept "
        "separate; they would collide when materialized on a case-insensitive file system."
        for _, spellings in sorted(by_folded.items(), key=lambda kv: sorted(kv[1]))
        if len(spellings) > 1
    ]


def _reader_notes(facts: InventoryFacts) -> list[str]:
    """The limits the reader hit and the entries it omitted, in words."""
    hits = [
        f"Limit {hit.limit}={hit.value} reached"
        + (f" at {hit.logical_path}" if hit.logical_path else "")
        + f": {hit.message}"
        for hit in facts.limit_hits
    ]
    return hits + [f"Omitted {om.entry_type} {om.logical_path}: {om.reason}" for om in facts.omissions]


def _complete(
    facts: InventoryFacts,
    limits: Limits,
    root_art: str,
    graph: Mapping[str, list[dict[str, Any]]],
    coverage: Mapping[str, str],
    limitations: list[str],
) -> dict[str, Any]:
    """The graph with its manifest (whose `agm_` id commits to the graph digest, counts, limits and coverage)."""
    manifest_body = {
        "schema_version": GRAPH_SCHEMA_VERSION,
        "root_artifact_id": root_art,
        "root_sha256": facts.root_sha256,
        "root_format": facts.root_format,
        "graph_sha256": canonical_sha256(_nameless(graph)),
        "node_count": len(graph["nodes"]),
        "occurrence_count": len(graph["occurrences"]),
        "edge_count": len(graph["edges"]),
        "integrity_contradiction_count": len(graph["integrity_contradictions"]),
        "limits": limits.to_json(),
        "coverage": coverage,
    }
    manifest = {
        "schema_version": GRAPH_SCHEMA_VERSION,
        "manifest_id": "agm_" + canonical_sha256(manifest_body),  # nested, may hold a float
        **{k: v for k, v in manifest_body.items() if k != "schema_version"},
    }
    return {
        "manifest": manifest,
        **graph,
        "limits": limits.to_json(),
        "coverage": coverage,
        "coverage_status": coverage_status_of(coverage),
        "limit_hits": [
            {"limit": h.limit, "value": h.value, "logical_path": h.logical_path, "message": h.message}
            for h in facts.limit_hits
        ],
        "omitted_entries": [
            {"logical_path": o.logical_path, "entry_type": o.entry_type, "reason": o.reason} for o in facts.omissions
        ],
        "limitations": limitations,
    }


def _nameless(graph: Mapping[str, Any]) -> dict[str, Any]:
    occurrences = [dict(o, logical_path=None) if o["parent_occurrence_id"] is None else o for o in graph["occurrences"]]
    return {**graph, "occurrences": occurrences}


def page_inventory(complete: Mapping[str, Any], windows: Mapping[str, tuple[int, int | None]]) -> dict[str, Any]:
    """Inventory Evidence payload: the manifest and coverage in full, each section as a page."""
    result = {k: v for k, v in complete.items() if k not in SECTIONS}
    for section in SECTIONS:
        offset, limit = windows.get(section, (0, None))
        items = complete[section]
        page = paginate(items, offset, limit if limit is not None else max(len(items), 1))
        result[section] = {"items": list(page.items), **page.envelope()}
    return result


def inventory_result(
    complete: Mapping[str, Any],
    windows: Mapping[str, tuple[int, int | None]],
    contradictions: tuple[int, int | None] = (0, None),
) -> dict[str, Any]:
    """The inventory_artifact payload (3.1 shape): node/occurrence/edge pages, every integrity contradiction
    as an array (a slice only when asked), and the external-command provenance (none: readers are in-process)."""
    result = page_inventory(complete, windows)
    offset, limit = contradictions
    result["integrity_contradictions"] = list(paginate(complete["integrity_contradictions"], offset, limit).items)
    result["provenance"] = []
    return result
