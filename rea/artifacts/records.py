"""Wire records of the artifact family: REA 6.x argument shapes and the inventory graph
(the reports of inspect, extract and compare: rea.artifacts.report_records).

Names, types and enums follow the reference (artifactToolContracts, artifactGraph,
artifactIntegrityPolicy; 3.1 for inventory_artifact).
Our extras are optional arguments or additional result fields, never a different shape
for a shared name. Paging extras default to the reference's complete answer.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from rea.artifacts.model import LIMIT_BOUNDS
from rea.wire.key_order import sent_in
from rea.wire.schema import Open, field

SHA256 = "^[a-f0-9]{64}$"
_MAX = 2**53 - 1


def id_pattern(prefix: str) -> str:
    return f"^{prefix}_[a-f0-9]{{64}}$"


def _limit(name: str, description: str) -> Any:
    lo, hi, default = LIMIT_BOUNDS[name]
    return field(description, default=default, minimum=lo, maximum=hi)


Policy = Literal["fail", "record-and-continue"]
_POLICY = (
    "fail (default): a mismatch fails the call; record-and-continue: quarantine and record "
    "contradicted bytes, go on with verified siblings"
)


# ------------------------------------------------------------------ arguments


@attrs.frozen(kw_only=True)
class TraversalArgs:
    """The integrity policy and traversal limits every artifact reader takes."""

    integrity_policy: Policy = field(_POLICY, default="fail")
    max_entries: int = _limit("max_entries", "Members recorded before traversal stops (coverage becomes unknown)")
    max_total_bytes: int = _limit("max_total_bytes", "Decompressed bytes read across the traversal")
    max_entry_bytes: int = _limit("max_entry_bytes", "Decompressed bytes read from one member")
    max_compression_ratio: float = _limit(
        "max_compression_ratio", "Stop decompressing a member past this expansion ratio (bomb guard)"
    )
    max_depth: int = _limit("max_depth", "Nested container levels expanded (0: the root's members only)")
    max_path_bytes: int = _limit("max_path_bytes", "Longest accepted member path in UTF-8 bytes")
    max_integrity_mismatches: int | None = field(
        "With record-and-continue, fail with truncated past this many contradictions (default: no cap)",
        omit_none=True,
        minimum=1,
        maximum=100,
    )


def _cap(description: str, maximum: int) -> Any:
    return field(f"Most {description} kept (default: all)", omit_none=True, minimum=1, maximum=maximum)


@attrs.frozen(kw_only=True)
class InspectArgs(TraversalArgs):
    detail: Literal["complete", "summary"] = field(
        "complete: the inspection Evidence; summary: retain it and return its summary view", default="complete"
    )
    max_observations: int | None = _cap("observations", 500)
    max_hypotheses: int | None = _cap("hypotheses", 100)
    max_unexplored_branches: int | None = _cap("unexplored branches", 100)
    max_next_probes: int | None = _cap("next probes", 50)


def _offset(what: str) -> Any:
    return field(f"First {what} to return", default=0, minimum=0, maximum=_MAX)


def _page(what: str) -> Any:
    return field(f"{what} per page", default=100, minimum=1, maximum=500)


@attrs.frozen(kw_only=True)
class InventoryArgs(TraversalArgs):
    node_offset: int = _offset("node")
    node_limit: int = _page("Nodes")
    occurrence_offset: int = _offset("occurrence")
    occurrence_limit: int = _page("Occurrences")
    edge_offset: int = _offset("edge")
    edge_limit: int = _page("Edges")
    contradiction_offset: int = _offset("integrity contradiction (our extra)")
    contradiction_limit: int | None = field(
        "Integrity contradictions to return (default: all of them)", omit_none=True, minimum=1, maximum=500
    )


@attrs.frozen(kw_only=True)
class ExtractArgs(TraversalArgs):
    occurrence_ids: tuple[str, ...] | None = field(
        "Only these regular-file occurrences (default: every regular file)",
        omit_none=True,
        schema={
            "type": "array",
            "items": {"type": "string", "pattern": id_pattern("occ")},
            "minItems": 1,
            "maxItems": 500,
            "uniqueItems": True,
        },
    )


_SIDE_SCHEMA = {
    "anyOf": [
        {"type": "object", "description": "inspect_artifact or inventory_artifact Evidence, or a retained reference"},
        {
            "type": "array",
            "items": {"type": "object", "description": "one page of an inventory (inline or retained)"},
            "minItems": 1,
            "maxItems": 100,
        },
    ]
}


@attrs.frozen(kw_only=True)
class CompareArgs:
    left: Open = field(
        'Complete inline Evidence, {"kind": "retained-evidence", "evidence_id": "ev_..."}, or every page of one '
        "inventory as an array",
        schema=_SIDE_SCHEMA,
    )
    right: Open = field("The other side, in the same forms as left", schema=_SIDE_SCHEMA)
    offset: int = field("First change to return", default=0, minimum=0, maximum=_MAX)
    limit: int | None = field("Changes to return (default: all of them)", omit_none=True, minimum=1, maximum=_MAX)


# ------------------------------------------------------------------ graph records


@attrs.frozen(kw_only=True)
class Limits:
    max_entries: int = field("Members recorded")
    max_total_bytes: int = field("Bytes read across the traversal")
    max_entry_bytes: int = field("Bytes read from one member")
    max_compression_ratio: float = field("Expansion ratio guard")
    max_depth: int = field("Nested levels expanded")
    max_path_bytes: int = field("Longest member path")


@attrs.frozen(kw_only=True)
class Coverage:
    scope: Literal["root", "container-entries"] = field("What the traversal enumerated")
    status: Literal["complete", "unknown"] = field("Whether every member was observed")


@attrs.frozen(kw_only=True)
class Command:
    """An external command that produced an artifact (none today: every reader is in-process)."""

    tool: str = field("Program name", minLength=1)
    arguments: tuple[str, ...] = field("Its arguments")
    tool_version: str | None = field("Its version")
    executable_sha256: str | None = field("Digest of its executable")
    exit_code: int | None = field("Exit status")
    effects: tuple[Literal["read", "write", "mount"], ...] = field("Observable side effects")


@attrs.frozen(kw_only=True)
class ManagedRole:
    role: Literal["assembly", "portable-pdb"] = field("A PE with a CLI header, or a portable PDB (BSJB metadata)")
    next_tool: Literal["inspect_managed_artifact"] = field("The managed tool that reads it")
    detail: str = field("What that tool answers", minLength=1)


@attrs.frozen(kw_only=True)
class Node:
    artifact_id: str = field("Content address of the bytes", pattern=id_pattern("art"))
    kind: str = field("Artifact category")
    format: str = field("Storage format")
    sha256: str = field("Content digest", pattern=SHA256)
    size: int = field("Bytes", minimum=0)
    media_type: str | None = field("Media type")
    architecture: str | None = field("Architecture")
    executable: bool = field("Executable permission or format")
    content_state: Literal["materialized", "embedded", "virtual"] = field("Where the bytes live")
    limitations: tuple[str, ...] = field("What is not known about it")
    managed: ManagedRole | None = field(
        "Our extra: a .NET assembly or portable PDB, and the tool for it", omit_none=True
    )

    def __wire__(self) -> dict[str, object]:
        """A .NET node has always sent `managed` first (its key was written before the node's own); else absent."""
        from rea.wire.convert import to_wire  # convert reads __wire__, so it is imported when one is called

        body = _node_body(self)
        return body if self.managed is None else {"managed": to_wire(self.managed), **body}


_node_body = sent_in(  # every field but managed, which Node.__wire__ sends first when there is one
    (
        "artifact_id",
        "kind",
        "format",
        "sha256",
        "size",
        "media_type",
        "architecture",
        "executable",
        "content_state",
        "limitations",
    )
)


@attrs.frozen(kw_only=True)
class SourceLocation:
    offset: int = field("Offset in the container", minimum=0)
    length: int = field("Length", minimum=0)


@attrs.frozen(kw_only=True)
class Occurrence:
    occurrence_id: str = field("Where the artifact occurs", pattern=id_pattern("occ"))
    artifact_id: str | None = field("Its artifact (null for directories and symlinks)")
    parent_occurrence_id: str | None = field("The containing occurrence (null: the root)")
    logical_path: str = field("Normalized relative path inside the parent container", minLength=1)
    entry_kind: Literal["file", "directory", "symlink", "slice"] = field("Member kind")
    declared_size: int | None = field("Declared bytes")
    compressed_size: int | None = field("Compressed bytes")
    executable: bool = field("Executable")
    encrypted: bool = field("Encrypted")
    hash_status: Literal["verified", "mismatched", "not-hashed-limit", "unavailable"] = field("Hash outcome")
    source_location: SourceLocation | None = field("Byte range in the container")
    unpacked: bool = field("An ASAR .asar.unpacked companion (our extra)")
    limitations: tuple[str, ...] = field("What is not known about it")

    __wire__ = sent_in(
        (
            "occurrence_id",
            "artifact_id",
            "parent_occurrence_id",
            "logical_path",
            "entry_kind",
            "declared_size",
            "compressed_size",
            "executable",
            "encrypted",
            "hash_status",
            "source_location",
            "unpacked",
            "limitations",
        )
    )


@attrs.frozen(kw_only=True)
class Edge:
    edge_id: str = field("Edge id", pattern=id_pattern("edge"))
    parent_artifact_id: str = field("Container artifact", pattern=id_pattern("art"))
    child_artifact_id: str = field("Contained artifact", pattern=id_pattern("art"))
    relation: Literal["contains", "extracts", "slice-of", "embeds", "loads", "maps-source", "derived-from"] = field(
        "Relation"
    )
    occurrence_id: str = field("The occurrence that names the child", pattern=id_pattern("occ"))
    logical_path: str | None = field("Its path")
    producer: Command | None = field("Command that produced the child (null: read in-process)")
    ordinal: int = field("Position in manifest order", minimum=0)

    __wire__ = sent_in(
        (
            "parent_artifact_id",
            "child_artifact_id",
            "relation",
            "occurrence_id",
            "logical_path",
            "producer",
            "ordinal",
            "edge_id",
        )
    )


@attrs.frozen(kw_only=True)
class Contradiction:
    contradiction_id: str = field("Contradiction id", pattern=id_pattern("ic"))
    occurrence_id: str = field("Contradicted occurrence", pattern=id_pattern("occ"))
    parent_artifact_id: str = field("Its container", pattern=id_pattern("art"))
    logical_path: str = field("Its path", minLength=1)
    declared_sha256: str = field("Digest the container declares", pattern=SHA256)
    observed_sha256: str = field("Digest of the bytes read", pattern=SHA256)
    entry_kind: Literal["file", "slice"] = field("Member kind")
    unpacked: bool = field("An ASAR unpacked companion")
    trust: Literal["observed-untrusted"] = field("The bytes are observed, not trusted")
    provenance: Literal["container-integrity-metadata-versus-observed-bytes"] = field("What was compared")
    limitations: tuple[str, ...] = field("Why, and what it means", minItems=1)

    __wire__ = sent_in(
        (
            "contradiction_id",
            "occurrence_id",
            "parent_artifact_id",
            "logical_path",
            "declared_sha256",
            "observed_sha256",
            "entry_kind",
            "unpacked",
            "trust",
            "provenance",
            "limitations",
        )
    )


@attrs.frozen(kw_only=True)
class Manifest:
    schema_version: Literal[1] = field("Graph schema")
    manifest_id: str = field("Commitment to the whole graph", pattern=id_pattern("agm"))
    root_artifact_id: str = field("Root artifact", pattern=id_pattern("art"))
    root_sha256: str = field("Root digest", pattern=SHA256)
    root_format: str = field("Root format")
    graph_sha256: str = field("Digest of all graph records", pattern=SHA256)
    node_count: int = field("Nodes", minimum=1)
    occurrence_count: int = field("Occurrences", minimum=1)
    edge_count: int = field("Edges", minimum=0)
    integrity_contradiction_count: int = field("Contradictions (our extra)", minimum=0)
    limits: Limits = field("Limits the traversal ran under (our extra)")
    coverage: Coverage = field("Scoped coverage (our extra)")


@attrs.frozen(kw_only=True)
class NodePage:
    items: tuple[Node, ...] = field("Nodes of this page")
    offset: int = field("First item", minimum=0)
    limit: int | None = field("Page size")
    total: int = field("Items in the complete listing", minimum=0)
    next_offset: int | None = field("Next offset (null: nothing follows)")


@attrs.frozen(kw_only=True)
class OccurrencePage:
    items: tuple[Occurrence, ...] = field("Occurrences of this page")
    offset: int = field("First item", minimum=0)
    limit: int | None = field("Page size")
    total: int = field("Items in the complete listing", minimum=0)
    next_offset: int | None = field("Next offset (null: nothing follows)")


@attrs.frozen(kw_only=True)
class EdgePage:
    items: tuple[Edge, ...] = field("Edges of this page")
    offset: int = field("First item", minimum=0)
    limit: int | None = field("Page size")
    total: int = field("Items in the complete listing", minimum=0)
    next_offset: int | None = field("Next offset (null: nothing follows)")


@attrs.frozen(kw_only=True)
class LimitHit:
    limit: str = field("Limit name")
    value: float = field("Its value")
    logical_path: str | None = field("Where it was reached")
    message: str = field("What happened")


@attrs.frozen(kw_only=True)
class OmittedEntry:
    logical_path: str = field("Path")
    entry_type: str = field("Type (FIFO, socket, device, unsafe name, ...)")
    reason: str = field("Why it was not opened")


@attrs.frozen(kw_only=True)
class InventoryResult:
    """inventory_artifact (3.1 shape): node/occurrence/edge pages, contradictions as an array."""

    manifest: Manifest = field("The graph's manifest")
    nodes: NodePage = field("A page of nodes")
    occurrences: OccurrencePage = field("A page of occurrences")
    edges: EdgePage = field("A page of edges")
    integrity_contradictions: tuple[Contradiction, ...] = field("Integrity contradictions")
    provenance: tuple[Command, ...] = field("External commands run (none: every reader is in-process)")
    limits: Limits = field("Limits the traversal ran under")
    coverage: Coverage = field("Scoped coverage")
    coverage_status: Literal["complete", "partial"] = field("Legacy coverage, derived from coverage.status")
    limit_hits: tuple[LimitHit, ...] = field("Limits reached")
    omitted_entries: tuple[OmittedEntry, ...] = field("Entries deliberately not opened")
    limitations: tuple[str, ...] = field("What the inventory does not establish")
