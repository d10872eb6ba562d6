"""Wire records of the managed (.NET) family: REA 6.x argument and result shapes.

Names, types and enums follow the reference (managedToolContracts, domain/managed/managedArtifact);
the 3.1 `max_*` limits and per-listing offset/limit are our optional extras (a listing is complete
by default, as 6.x answers it). Tokens are build-local metadata coordinates (`0x` + 8 hex digits).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

from rea.wire.schema import field, local_path

TOKEN = "^0x[0-9a-f]{8}$"
SHA256 = "^[a-f0-9]{64}$"
GUID = "^[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$"
VERSION = r"^\d+\.\d+\.\d+\.\d+$"
_U32 = 0xFFFF_FFFF
_U16 = 0xFFFF
_MAX = 2**53 - 1

# the 3.1 limits: (minimum, maximum, default)
LIMIT_BOUNDS: Mapping[str, tuple[int, int, int]] = {
    "max_file_bytes": (4096, 1 << 30, 256 << 20),
    "max_metadata_bytes": (256, 256 << 20, 64 << 20),
    "max_heap_item_bytes": (1, 16 << 20, 1 << 20),
    "max_table_rows": (1, 1_000_000, 100_000),
    "max_method_body_bytes": (1, 16 << 20, 1 << 20),
    "max_method_instructions": (1, 100_000, 10_000),
}

IssueCode = Literal[
    "resource-limit",
    "invalid-cli-header",
    "invalid-directory",
    "invalid-metadata-root",
    "invalid-stream",
    "missing-stream",
    "invalid-tables",
    "invalid-row",
    "invalid-heap-index",
    "invalid-string",
    "invalid-blob",
    "unsupported-signature",
    "invalid-guid",
    "invalid-resource",
]
CoverageState = Literal["complete", "partial", "unavailable"]
MetadataStatus = Literal["absent", "complete", "partial", "malformed"]
KeyKind = Literal["none", "public-key", "public-key-token"]
PeArchitecture = Literal["x86", "x86_64", "arm", "arm64"]
RuntimeFamily = Literal["dotnet-framework", "modern-dotnet", "unity-mono", "mixed-clr-native", "unknown"]
Implementation = Literal["cil", "cil-and-ready-to-run", "cpp-cli-mixed", "metadata-only", "not-managed", "unknown"]
ManagedArchitecture = Literal["anycpu", "anycpu-prefer-32", "x86", "x86_64", "arm", "arm64", "unknown"]
OperandKind = Literal[
    "none", "branch", "constant", "field", "method", "signature", "string", "switch", "token", "type", "variable",
    "unknown",
]  # fmt: skip


def _limit(name: str, what: str) -> Any:
    lo, hi, default = LIMIT_BOUNDS[name]
    return field(f"Limit: {what}", default=default, minimum=lo, maximum=hi)


def _offset(what: str) -> Any:
    return field(f"First {what} to return", default=0, minimum=0, maximum=_MAX)


def _page(what: str) -> Any:
    return field(f"Most {what} to return (default: all)", omit_none=True, minimum=1, maximum=_MAX)


Detail = Literal["complete", "summary"]


def _detail() -> Any:
    return field(
        "complete (default) or summary: counts, first rows and parent_evidence_id to page with the managed view",
        default="complete",
    )


def _token(description: str = "Metadata token") -> Any:
    return field(description, pattern=TOKEN)


def _u32(description: str = "") -> Any:
    return field(description, minimum=0, maximum=_U32)


def _u16(description: str = "") -> Any:
    return field(description, minimum=0, maximum=_U16)


def _count(description: str = "") -> Any:
    return field(description, minimum=0, maximum=_MAX)


# ------------------------------------------------------------------ arguments


@attrs.frozen(kw_only=True)
class TargetArgs:
    """6.x: an explicit path, or the open target; the 3.1 limits as extras."""

    path: str | None = local_path("Managed PE/CLI path; omitted: the open target", omit_none=True)
    max_file_bytes: int = _limit("max_file_bytes", "largest file read")
    max_metadata_bytes: int = _limit("max_metadata_bytes", "largest CLI metadata root read")
    max_heap_item_bytes: int = _limit("max_heap_item_bytes", "largest string/blob heap item decoded")
    max_table_rows: int = _limit("max_table_rows", "rows read per metadata table")


@attrs.frozen(kw_only=True)
class ArtifactArgs(TargetArgs):
    reference_offset: int = _offset("assembly reference")
    reference_limit: int | None = _page("assembly references")
    resource_offset: int = _offset("manifest resource")
    resource_limit: int | None = _page("manifest resources")
    attribute_offset: int = _offset("custom attribute")
    attribute_limit: int | None = _page("custom attributes")
    document_offset: int = _offset("portable PDB document")
    document_limit: int | None = _page("portable PDB documents")
    detail: Detail = _detail()


@attrs.frozen(kw_only=True)
class MembersArgs(TargetArgs):
    max_method_body_bytes: int = _limit("max_method_body_bytes", "bytes of one method body decoded")
    max_method_instructions: int = _limit("max_method_instructions", "instructions decoded per body")
    instruction_anchor_limit: int = field(
        "Instruction anchors kept per method body", default=100, minimum=0, maximum=500
    )
    type_offset: int = _offset("type")
    type_limit: int | None = _page("types")
    method_offset: int = _offset("method")
    method_limit: int | None = _page("methods")
    field_offset: int = _offset("field")
    field_limit: int | None = _page("fields")
    member_ref_offset: int = _offset("member reference")
    member_ref_limit: int | None = _page("member references")
    edge_offset: int = _offset("call edge and field access")
    edge_limit: int | None = _page("call edges and field accesses")
    detail: Detail = _detail()


@attrs.frozen(kw_only=True)
class BoundaryArgs(TargetArgs):
    module_ref_offset: int = _offset("module reference")
    module_ref_limit: int | None = _page("module references")
    import_offset: int = _offset("P/Invoke import")
    import_limit: int | None = _page("P/Invoke imports")
    implementation_offset: int = _offset("native implementation")
    implementation_limit: int | None = _page("native implementations")


# -------------------------------------------------------------------- results


@attrs.frozen(kw_only=True)
class ArtifactRef:
    path: str = field("Local path read", minLength=1)
    sha256: str = field("SHA-256 of the file", pattern=SHA256)
    byte_length: int = _count("File size in bytes")
    format: Literal["pe"] = field("Container format")


@attrs.frozen(kw_only=True)
class EntryPoint:
    kind: Literal["metadata-token", "native-rva", "none"] = field("What the CLI header's entry point names")
    value: str | None = field("The token or RVA (0x hex), null when none")


@attrs.frozen(kw_only=True)
class StrongNameVerification:
    state: Literal["verified", "failed", "not-signed", "unverifiable"] = field(
        "RSA check of the strong-name signature over the image hash (ECMA-335 II.6.2.1.3)"
    )
    detail: str = field("Why: the hash algorithm checked, or what prevented or failed the check")


@attrs.frozen(kw_only=True)
class CliHeader:
    header_offset: int = _count("File offset of the CLI header")
    header_size: int = field("cb of the CLI header", minimum=72, maximum=_MAX)
    runtime_version: str = field("Metadata root version string (e.g. v4.0.30319)")
    flags: int = _u32("CLI header flags")
    flag_names: tuple[str, ...] = field("Names of the set flags (il-only, 32bit-required, strong-name-signed, ...)")
    entry_point: EntryPoint = field("Managed or native entry point")
    metadata_rva: int = field("RVA of the metadata root", minimum=1, maximum=_U32)
    metadata_size: int = field("Size of the metadata root", minimum=1, maximum=_U32)
    resources_rva: int = _u32()
    resources_size: int = _u32()
    strong_name_rva: int = _u32()
    strong_name_size: int = _u32()
    managed_native_header_rva: int = _u32()
    managed_native_header_size: int = _u32()
    ready_to_run_signature: bool = field("The managed native header starts with the ReadyToRun signature (RTR)")
    strong_name_verification: StrongNameVerification = field("Whether the strong-name signature verifies")


@attrs.frozen(kw_only=True)
class PeFacts:
    machine: int = _u16("COFF Machine")
    machine_hex: str = field("COFF Machine as 0x hex", pattern="^0x[0-9a-f]{4}$")
    architecture: PeArchitecture = field("Architecture of the PE image")
    optional_header: Literal["pe32", "pe32-plus"] = field("Optional header magic")
    section_count: int = field("Number of sections", minimum=1, maximum=_U16)
    characteristics: int = _u16("COFF characteristics")
    cli: CliHeader | None = field("The CLI (COR20) header, null when the image has none")


@attrs.frozen(kw_only=True)
class ClassificationEvidence:
    code: str = field("What was observed", minLength=1)
    detail: str = field("The observation", minLength=1)
    file_offset: int | None = field("Where, when it has a file offset", minimum=0, maximum=_MAX)


@attrs.frozen(kw_only=True)
class Classification:
    status: Literal["managed", "not-managed", "malformed"] = field("Whether the PE is a managed assembly")
    container: Literal["pe"] = field("Container format")
    runtime_family: RuntimeFamily = field("Runtime the references and attributes point to")
    implementation: Implementation = field("How the code is shipped")
    managed_architecture: ManagedArchitecture = field("Architecture the CLI flags and machine select")
    evidence: tuple[ClassificationEvidence, ...] = field("The observations the classification rests on")


@attrs.frozen(kw_only=True)
class Metadata:
    status: MetadataStatus = field("Whether the metadata was read completely")
    version: str | None = field("Metadata root version string")
    stream_names: tuple[str, ...] = field("Stream names in header order")
    table_row_counts: Mapping[str, int] = field("Rows per present table", schema={
        "type": "object", "additionalProperties": {"type": "integer", "minimum": 0, "maximum": _U32}
    })  # fmt: skip


@attrs.frozen(kw_only=True)
class MemberMetadata:
    status: MetadataStatus = field("Whether the metadata was read completely")
    version: str | None = field("Metadata root version string")
    table_row_counts: Mapping[str, int] = field("Rows per present table", schema={
        "type": "object", "additionalProperties": {"type": "integer", "minimum": 0, "maximum": _U32}
    })  # fmt: skip


@attrs.frozen(kw_only=True)
class ModuleIdentity:
    name: str = field("Module name")
    generation: int = _u16("Generation")
    mvid: str | None = field("Module version id (GUID)", pattern=GUID)
    enc_id: str | None = field("Edit-and-continue id", pattern=GUID)
    enc_base_id: str | None = field("Edit-and-continue base id", pattern=GUID)
    token: str = _token()
    row_offset: int = _count("File offset of the row")


@attrs.frozen(kw_only=True)
class PublicKey:
    kind: KeyKind = field("What the blob holds")
    byte_length: int = _count("Blob length")
    sha256: str | None = field("SHA-256 of the blob", pattern=SHA256)
    token: str | None = field("Public key token (last 8 bytes of the SHA-1, reversed) or the token itself",
                              pattern="^[a-f0-9]{16}$")  # fmt: skip


@attrs.frozen(kw_only=True)
class AssemblyIdentity:
    name: str = field("Assembly name")
    version: str = field("major.minor.build.revision", pattern=VERSION)
    culture: str | None = field("Culture, null when neutral")
    flags: int = _u32("Assembly flags")
    hash_algorithm: int = _u32("HashAlgId")
    public_key: PublicKey = field("Public key and its token")
    token: str = _token()
    row_offset: int = _count("File offset of the row")


@attrs.frozen(kw_only=True)
class AssemblyReference:
    name: str = field("Referenced assembly name")
    version: str = field("major.minor.build.revision", pattern=VERSION)
    culture: str | None = field("Culture, null when neutral")
    flags: int = _u32("AssemblyRef flags")
    public_key_or_token: PublicKey = field("Public key or its token")
    hash_value_sha256: str | None = field("SHA-256 of the HashValue blob", pattern=SHA256)
    hash_value_length: int = _count("HashValue blob length")
    token: str = _token()
    row_offset: int = _count("File offset of the row")


@attrs.frozen(kw_only=True)
class ManagedResource:
    name: str = field("Manifest resource name")
    flags: int = _u32("ManifestResource flags")
    visibility: Literal["public", "private", "unknown"] = field("Visibility flag")
    implementation_token: str | None = field("File or AssemblyRef holding it; null when embedded", pattern=TOKEN)
    embedded: bool = field("Stored in this file's CLI resources")
    declared_offset: int = _u32("Offset into the resources blob")
    data_length: int | None = field("Length of the embedded data", minimum=0, maximum=_MAX)
    data_sha256: str | None = field("SHA-256 of the embedded data", pattern=SHA256)
    token: str = _token()
    row_offset: int = _count("File offset of the row")


@attrs.frozen(kw_only=True)
class CustomAttribute:
    parent_token: str = _token("Token the attribute is attached to")
    constructor_token: str | None = field("MethodDef or MemberRef of the constructor", pattern=TOKEN)
    type_name: str | None = field("Attribute type (namespace.name) when resolvable")
    value_length: int = _count("Value blob length")
    value_sha256: str = field("SHA-256 of the value blob", pattern=SHA256)
    decoded_fixed_string: str | None = field("The first fixed argument when it is a string")
    token: str = _token()
    row_offset: int = _count("File offset of the row")


@attrs.frozen(kw_only=True)
class IdentityScope:
    token_identity: Literal["build-local"] = field("Tokens are coordinates inside this build only")
    requires_artifact_sha256: str = field("The artifact the tokens belong to", pattern=SHA256)
    requires_mvid: str | None = field("The module version id they belong to", pattern=GUID)


@attrs.frozen(kw_only=True)
class ParseIssue:
    code: IssueCode = field("What went wrong")
    scope: str = field("Where (stream, table, row or member)", minLength=1)
    offset: int | None = field("File offset, when known", minimum=0, maximum=_MAX)
    detail: str = field("Description", minLength=1)


@attrs.frozen(kw_only=True)
class Coverage:
    state: CoverageState = field("complete, partial (limits or damage), unavailable (no metadata)")
    issues: tuple[ParseIssue, ...] = field("Every issue met while reading")


@attrs.frozen(kw_only=True)
class PdbDocumentRow:
    name: str = field("Source document name as recorded (joined from its name blob)")
    hash_algorithm: Literal["sha1", "sha256", "none", "unknown"] = field("Checksum algorithm (by its GUID)")
    hash_algorithm_guid: str | None = field("The algorithm GUID", pattern=GUID)
    hash: str = field("Checksum of the source file, hex (empty when none)", pattern="^[a-f0-9]*$")
    language: str = field("csharp, visual-basic, fsharp, or the language GUID")


@attrs.frozen(kw_only=True)
class MethodDebugCounts:
    rows: int = _count("MethodDebugInformation rows (one per MethodDef)")
    with_sequence_points: int = _count("Rows with a sequence-points blob")


@attrs.frozen(kw_only=True)
class PortablePdb:
    path: str = field("The .pdb beside the assembly", minLength=1)
    byte_length: int = _count("Its size")
    sha256: str | None = field("Its SHA-256", pattern=SHA256)
    pdb_id: str | None = field("PDB id GUID (#Pdb stream)", pattern=GUID)
    pdb_stamp: int | None = field("PDB id stamp", minimum=0, maximum=_U32)
    entry_point_token: str | None = field("Entry point MethodDef the PDB records", pattern=TOKEN)
    matches_assembly: Literal["matched", "mismatched", "no-codeview-record", "unknown"] = field(
        "Whether the assembly's CodeView (RSDS) record names this PDB id"
    )
    codeview_pdb_id: str | None = field("The PDB id the assembly's debug directory records", pattern=GUID)
    referenced_method_rows: int | None = field("MethodDef rows the PDB was built against", minimum=0, maximum=_MAX)
    documents: tuple[PdbDocumentRow, ...] = field("Source documents")
    method_debug_information: MethodDebugCounts = field("Method debug information counts")
    status: Literal["read", "partial", "unreadable"] = field("Whether it was read completely")
    issues: tuple[str, ...] = field("What could not be read")


@attrs.frozen(kw_only=True)
class ArtifactResult:
    schema_version: Literal[1] = field("Result schema version")
    artifact: ArtifactRef = field("The file read")
    pe: PeFacts = field("PE and CLI header facts")
    classification: Classification = field("Managed, runtime family and implementation")
    metadata: Metadata = field("Metadata root")
    module: ModuleIdentity | None = field("Module row, null when absent")
    assembly: AssemblyIdentity | None = field("Assembly row, null for a netmodule")
    target_frameworks: tuple[str, ...] = field("TargetFrameworkAttribute values")
    references: tuple[AssemblyReference, ...] = field("Assembly references")
    resources: tuple[ManagedResource, ...] = field("Manifest resources")
    attributes: tuple[CustomAttribute, ...] = field("Custom attributes")
    portable_pdb: PortablePdb | None = field("Our extra: the portable PDB beside the assembly (null: none there)")
    coverage: Coverage = field("What was read")
    limitations: tuple[str, ...] = field("What this answer does not establish")
