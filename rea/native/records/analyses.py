"""Wire records of the native analyses over the angr snapshot and dossiers: trace_feature (literal
matches traced through references), build_call_path (paths over analyze_function Evidence) and
inspect_native_api (the calling boundary angr's decompiler recovered). Shapes: REA 6.x
toolOutputSchemaGroups (literalTraceOutput), domain/callPathSchemas and nativeApiBoundary."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.native.records.arguments import address_alias, procedure_choice
from rea.native.records.listings import Contained, NotContained
from rea.wire.schema import Open, field

_CANON = "^0x(?:0|[1-9a-f][0-9a-f]*)$"
_EVIDENCE = "^ev_[a-f0-9]{64}$"
_APPROVAL = "Accepted; residuals are kept in the Evidence anyway"


# ------------------------------------------------------------- trace_feature


@attrs.frozen(kw_only=True)
class FeatureArgs:
    query: str = field("Literal text searched in string values and procedure names", minLength=1)
    case_sensitive: bool = field("Match case exactly", default=False)
    limit: int = field("Most matches, and most references", default=20, minimum=1, maximum=100)
    max_operations: int = field(
        "Most reads (a 500-row page, a reference lookup or a containing-procedure resolution each)",
        default=20,
        minimum=1,
        maximum=100,
    )
    unknown_registry_approved: Literal[True] | None = field(_APPROVAL, omit_none=True)


@attrs.frozen(kw_only=True)
class FeatureMatch:
    type: Literal["string", "procedure"] = field("What matched")
    address: str = field("Its address")
    value: str = field("The string or procedure name")


@attrs.frozen(kw_only=True)
class FeatureReference:
    target_address: str = field("The matched address")
    source_address: str = field("The instruction that references it")
    containing_procedure: Contained | NotContained = field("The procedure holding the source")


@attrs.frozen(kw_only=True)
class FeatureTrace:
    query: str = field("The query")
    search_mode: Literal["literal"] = field("Substring search, no patterns")
    operations_used: int = field("Reads spent", minimum=0)
    operation_budget: int = field("max_operations", minimum=1)
    matches: tuple[FeatureMatch, ...] = field("Strings first, then procedures, in address order")
    references: tuple[FeatureReference, ...] = field("References to the matches, in match order")
    truncated: bool = field("A budget or limit stopped the trace (residual_unknowns says which)")
    residual_unknowns: tuple[str, ...] = field("What the trace did not read")


# ------------------------------------------------------------ build_call_path


@attrs.frozen(kw_only=True)
class PathEndpoint:
    address: str = field(
        "A procedure entry address (0x hex), or its name or sub_<hex> name as the supplied dossiers name it",
        minLength=1,
    )


@attrs.frozen(kw_only=True)
class CallPathArgs:
    functions: tuple[Open, ...] = field(
        (
            "analyze_function Evidence (inline or retained), one per function a path may cross; their "
            "callees are the edges"
        ),
        minItems=1,
        maxItems=500,
        schema={"type": "array", "items": {"type": "object"}, "minItems": 1, "maxItems": 500},
    )
    start: PathEndpoint = field("Where paths start (its dossier is required)")
    goal: PathEndpoint = field("Where paths end")
    max_depth: int = field("Most hops in a path", default=8, minimum=0, maximum=32)
    max_paths: int = field("Most paths enumerated", default=10, minimum=1, maximum=100)
    offset: int = field("First path returned", default=0, minimum=0, maximum=9007199254740991)
    limit: int = field("Paths returned", default=100, minimum=1, maximum=100)
    unknown_registry_approved: Literal[True] | None = field(_APPROVAL, omit_none=True)


@attrs.frozen(kw_only=True)
class PathNode:
    address: str = field("Procedure entry", pattern=_CANON)
    name: str | None = field("Its name in the dossier that lists it")
    evidence_links: tuple[str, ...] = field("Dossiers that show it", minItems=1, maxItems=100)


@attrs.frozen(kw_only=True)
class PathEdge:
    source: str = field("Caller", pattern=_CANON)
    target: str = field("Callee", pattern=_CANON)
    evidence_links: tuple[str, ...] = field("The caller's dossier", minItems=1, maxItems=100)


@attrs.frozen(kw_only=True)
class CallPathRoute:
    hops: int = field("Edges in the path", minimum=0)
    nodes: tuple[PathNode, ...] = field("start ... goal", minItems=1, maxItems=33)
    edges: tuple[PathEdge, ...] = field("Calls along it", maxItems=32)
    evidence_links: tuple[str, ...] = field("Every dossier the path cites", minItems=1)


@attrs.frozen(kw_only=True)
class PathPage:
    offset: int = field("First path in this page", minimum=0)
    limit: int = field("Page size", minimum=1, maximum=100)
    items: tuple[CallPathRoute, ...] = field("Paths, shortest first", maxItems=100)
    returned: int = field("Paths in this page", minimum=0, maximum=100)
    next_offset: int | None = field("Offset of the next page, null at the end")
    total: int | None = field("Paths enumerated (null when enumeration was capped)")
    truncated: bool = field("Enumeration stopped at max_paths or its expansion budget")
    lower_bound: int = field("At least this many paths exist", minimum=0)


@attrs.frozen(kw_only=True)
class Explored:
    nodes: int = field("Procedures reached", minimum=0)
    edges: int = field("Calls out of them", minimum=0)
    depth_reached: int = field("Deepest level reached", minimum=0)


@attrs.frozen(kw_only=True)
class SearchScope:
    max_depth: int = field("max_depth", minimum=0, maximum=32)
    max_paths: int = field("max_paths", minimum=1, maximum=100)
    exhaustive: bool = field("Every reachable function had complete callee coverage within max_depth")


@attrs.frozen(kw_only=True)
class CallPaths:
    start: str = field("Start", pattern=_CANON)
    goal: str = field("Goal", pattern=_CANON)
    status: Literal["found", "not_found", "unknown", "truncated"] = field(
        "found; not_found only when the search was exhaustive; unknown when coverage gaps leave it open; "
        "truncated when enumeration was capped"
    )
    shortest_hops: int | None = field("Hops of the shortest path found")
    explored: Explored = field("What the search reached")
    search_scope: SearchScope = field("Bounds and whether the search was exhaustive")
    paths: PathPage = field("The page of paths")
    evidence_links: tuple[str, ...] = field("Every dossier supplied", minItems=1)
    limitations: tuple[str, ...] = field("Coverage gaps and bounds that were hit")


# --------------------------------------------------------- inspect_native_api

Confidence = Literal["low", "medium", "high"]


@attrs.frozen(kw_only=True)
class NativeApiArgs:
    procedure: str | None = procedure_choice()
    address: str | None = address_alias()
    max_pseudocode_chars: int = field("Pseudocode read by the analyze step", default=20_000, minimum=1, maximum=100_000)
    max_instructions: int = field(
        "Most instructions of the procedure; a larger one is not projected", default=500, minimum=1, maximum=5_000
    )
    unknown_registry_approved: Literal[True] | None = field(
        "Accepted; unsupported branches are kept in the Evidence anyway",
        omit_none=True,
    )


@attrs.frozen(kw_only=True)
class ApiEvidence:
    kind: Literal["signature-source", "decompiler-type", "type-lock", "calling-convention", "jump-table"] = field(
        "What the fact rests on"
    )
    source: str = field("Which analysis said it", minLength=1)
    detail: str = field("What it said", minLength=1)


@attrs.frozen(kw_only=True)
class ApiValue:
    ordinal: int | None = field("Parameter position (null for the return value)")
    name: str | None = field("Name the decompiler gave it (null for the return value)")
    data_type: str = field("C type angr recovered", minLength=1)
    size_bytes: int | None = field("Size in bytes", minimum=0)
    storage: str | None = field("Register or stack slot the calling convention assigns")
    confidence: Confidence = field("How far to trust the type (angr's types are inferred)")
    evidence: tuple[ApiEvidence, ...] = field("Facts behind it", minItems=1)
    decompiler_artifacts: tuple[
        Literal["recovered-signature", "register-or-stack-storage", "compiler-generated-variable"], ...
    ] = field("Which parts are the decompiler's reconstruction")
    role: Literal["parameter", "return"] = field("Parameter or return value")


@attrs.frozen(kw_only=True)
class JumpSource:
    address: str = field("Table address", minLength=1)
    provenance: Literal["angr-cfg-jump-table-resolver"] = field("Who found the table")
    entry_size_bytes: int | None = field("Bytes per entry", minimum=1)
    entry_count: int | None = field("Entries", minimum=0)
    confidence: Confidence = field("Static resolution, not a runtime observation")
    evidence: tuple[ApiEvidence, ...] = field("Facts behind it", minItems=1)


@attrs.frozen(kw_only=True)
class JumpMapping:
    case_value: int | None = field("Case value (null: angr reports table slots, not case values)")
    entry_index: int = field("Slot in the table (extra)", minimum=0)
    target_address: str = field("Where the slot jumps", minLength=1)
    data_addresses: tuple[str, ...] = field("The slot's address")
    confidence: Confidence = field("Static resolution")
    evidence: tuple[ApiEvidence, ...] = field("Facts behind it", minItems=1)


@attrs.frozen(kw_only=True)
class JumpTable:
    dispatch_address: str = field("The indirect jump", minLength=1)
    data_sources: tuple[JumpSource, ...] = field("Tables it reads")
    data_sources_truncated: bool = field("More tables than reported")
    mappings: tuple[JumpMapping, ...] = field("Slot -> target")
    mappings_truncated: bool = field("More slots than reported")
    limitations: tuple[str, ...] = field("What this table leaves out")


@attrs.frozen(kw_only=True)
class PseudocodeKind:
    classification: Literal["decompiler-generated-non-source"] = field("Never original source")
    compilable: Literal[False] = field("Not meant to compile")


DecompilerArtifact = Literal[
    "recovered-signature",
    "register-and-stack-variables",
    "compiler-generated-control-flow",
    "pointer-arithmetic",
    "pseudocode",
]


@attrs.frozen(kw_only=True)
class ApiBoundary:
    available: Literal[True] = field("The boundary was projected")
    provenance: str = field("Engine", minLength=1)
    signature_source: str = field("Analysis the signature comes from", minLength=1)
    calling_convention: str = field("angr's calling convention class", minLength=1)
    return_type: ApiValue = field("Return value")
    parameters: tuple[ApiValue, ...] = field("Parameters in order")
    parameters_truncated: bool = field("More parameters than reported")
    jump_tables: tuple[JumpTable, ...] = field("Jump tables angr resolved inside the procedure")
    jump_tables_truncated: bool = field("More tables than reported")
    pseudocode: PseudocodeKind = field("What the pseudocode is")
    decompiler_artifacts: tuple[DecompilerArtifact, ...] = field("Parts of the answer that are reconstruction")
    limitations: tuple[str, ...] = field("What the boundary leaves out")


@attrs.frozen(kw_only=True)
class NoBoundary:
    available: Literal[False] = field("No boundary could be projected")
    reason: str = field("Why", minLength=1)
    residual_unknowns: tuple[str, ...] = field("What stays unknown", minItems=1)


@attrs.frozen(kw_only=True)
class ApiSubstep:
    operation: Literal["analyze_function", "project_native_api_boundary", "preserve_residual_unknowns"] = field("Step")
    status: Literal["completed", "unsupported"] = field("Outcome")
    observations: tuple[str, ...] = field("What it saw")


@attrs.frozen(kw_only=True)
class ApiProcedure:
    address: str = field("Entry address", minLength=1)
    name: str = field("Name", minLength=1)


@attrs.frozen(kw_only=True)
class NativeApi:
    schema_version: Literal[1] = field("Result schema version")
    procedure: ApiProcedure = field("The procedure")
    boundary: ApiBoundary | NoBoundary = field("Its calling boundary")
    substeps: tuple[ApiSubstep, ...] = field("The three steps", minItems=3, maxItems=3)
    unsupported_branches: tuple[str, ...] = field("Parts of the boundary this provider cannot project")
    residual_unknowns: tuple[str, ...] = field("What stays unknown")
