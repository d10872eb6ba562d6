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


# ------------------------------------------------------------ members result


@attrs.frozen(kw_only=True)
class ManagedSignature:
    raw_length: int = _count("Blob length")
    raw_sha256: str = field("SHA-256 of the blob", pattern=SHA256)
    kind: Literal["method", "field", "unknown"] = field("Signature kind")
    parse_status: Literal["decoded", "partial", "unsupported", "malformed"] = field("How far it decoded")
    calling_convention: str | None = field("default, instance default, vararg, field, ...")
    generic_parameter_count: int | None = field("Generic method arity", minimum=0, maximum=_MAX)
    parameter_count: int | None = field("Parameters", minimum=0, maximum=_MAX)
    return_type: str | None = field("Return type (ILAsm-style)")
    parameter_types: tuple[str, ...] = field("Parameter types (ILAsm-style)")
    field_type: str | None = field("Field type (ILAsm-style)")
    issue: str | None = field("Why it did not decode completely")


@attrs.frozen(kw_only=True)
class RowRange:
    first_row: int | None = field("First member row, null when empty", minimum=1, maximum=_MAX)
    last_row: int | None = field("Last member row, null when empty", minimum=0, maximum=_MAX)
    count: int = _count("Members in the run")


@attrs.frozen(kw_only=True)
class ManagedType:
    token: str = _token()
    row_offset: int = _count("File offset of the row")
    namespace: str = field("Namespace (empty for nested types)")
    name: str = field("Type name")
    full_name: str = field("Namespace.Name, nested types as Outer/Inner")
    flags: int = _u32("TypeAttributes")
    extends_token: str | None = field("Base type token", pattern=TOKEN)
    field_list: RowRange = field("Field rows")
    method_list: RowRange = field("MethodDef rows")
    extends: str | None = field("Our extra: the base type's name")
    enclosing_type_token: str | None = field("Our extra: the enclosing type of a nested type", pattern=TOKEN)
    generic_parameters: tuple[str, ...] = field("Our extra: generic parameter names in order")
    interfaces: tuple[str, ...] = field("Our extra: implemented interfaces (names)")


@attrs.frozen(kw_only=True)
class ManagedField:
    token: str = _token()
    row_offset: int = _count("File offset of the row")
    declaring_type_token: str | None = field("Owning TypeDef", pattern=TOKEN)
    declaring_type: str | None = field("Owning type's full name")
    name: str = field("Field name")
    flags: int = _u16("FieldAttributes")
    signature: ManagedSignature = field("Decoded FieldSig")


@attrs.frozen(kw_only=True)
class ExceptionRegion:
    flags: int = _u32("Clause kind flags (0 catch, 1 filter, 2 finally, 4 fault)")
    try_offset: int = _count()
    try_length: int = _count()
    handler_offset: int = _count()
    handler_length: int = _count()
    class_token: str | None = field("Caught type", pattern=TOKEN)
    filter_offset: int | None = field("Filter start", minimum=0, maximum=_MAX)


@attrs.frozen(kw_only=True)
class InstructionAnchor:
    il_offset: int = _count("Offset from the first CIL byte")
    opcode: str = field("Mnemonic", minLength=1)
    operand_kind: OperandKind = field("Operand class")
    operand: str | None = field("Operand (tokens as 0x hex, branch targets as IL offsets in 0x hex)")


@attrs.frozen(kw_only=True)
class MethodBody:
    status: Literal["present", "partial", "absent", "malformed"] = field("Whether the body was read")
    header_format: Literal["tiny", "fat", "none", "unknown"] = field("Method header format")
    rva: int = _u32("Body RVA")
    file_offset: int | None = field("Body file offset", minimum=0, maximum=_MAX)
    max_stack: int | None = field("MaxStack", minimum=0, maximum=_MAX)
    init_locals: bool | None = field("CorILMethod_InitLocals")
    local_var_sig_token: str | None = field("Locals signature", pattern=TOKEN)
    il_size: int = _count("CIL bytes")
    il_sha256: str | None = field(
        "SHA-256 of exactly the il_size CIL bytes (no header, locals, padding or extra sections)", pattern=SHA256
    )
    normalized_il_sha256: str | None = field(
        "SHA-256 of the UTF-8 JSON [opcode, operand_kind, operand] tuples of a complete decode (tokens kept, "
        "switch targets omitted)",
        pattern=SHA256,
    )
    instruction_count: int = _count("Instructions in the body")
    decoded_instruction_count: int = _count("Instructions decoded (max_method_instructions)")
    truncated_instructions: int = _count("Instructions not decoded")
    opcode_counts: Mapping[str, int] = field("Decoded instructions per mnemonic", schema={
        "type": "object", "additionalProperties": {"type": "integer", "minimum": 1, "maximum": _MAX}
    })  # fmt: skip
    anchors: tuple[InstructionAnchor, ...] = field("Instructions with a token, branch or switch operand")
    exception_regions: tuple[ExceptionRegion, ...] = field("Exception clauses")
    issue: str | None = field("Why the body is partial, absent or malformed")


@attrs.frozen(kw_only=True)
class ManagedMethod:
    token: str = _token()
    row_offset: int = _count("File offset of the row")
    declaring_type_token: str | None = field("Owning TypeDef", pattern=TOKEN)
    declaring_type: str | None = field("Owning type's full name")
    name: str = field("Method name")
    rva: int = _u32("Body RVA (0: no body)")
    impl_flags: int = _u16("MethodImplAttributes")
    flags: int = _u16("MethodAttributes")
    signature: ManagedSignature = field("Decoded MethodDefSig")
    body: MethodBody = field("The CIL body")


@attrs.frozen(kw_only=True)
class MemberReference:
    token: str = _token()
    row_offset: int = _count("File offset of the row")
    parent_token: str | None = field("Class (TypeRef, TypeDef, TypeSpec, ModuleRef or MethodDef)", pattern=TOKEN)
    name: str = field("Member name")
    signature: ManagedSignature = field("Decoded signature")
    parent: str | None = field("Our extra: the parent's name")


@attrs.frozen(kw_only=True)
class CallEdge:
    caller_token: str = _token("Calling MethodDef")
    caller: str | None = field("Caller's qualified name")
    opcode: str = field("call, callvirt, newobj, ldftn, ldvirtftn or jmp")
    target_token: str = _token("Called member")
    target_kind: Literal["method-def", "member-ref", "method-spec", "unknown"] = field("Target table")
    target_name: str | None = field("Target's qualified name")
    il_offset: int = _count("Our extra: where in the caller's CIL")


@attrs.frozen(kw_only=True)
class FieldAccess:
    method_token: str = _token("Accessing MethodDef")
    method: str | None = field("Method's qualified name")
    opcode: str = field("ldfld, stfld, ldsfld, stsfld, ldflda or ldsflda")
    field_token: str = _token("Accessed field (Field or MemberRef)")
    field_name: str | None = field("Field's qualified name")
    il_offset: int = _count("Our extra: where in the method's CIL")


@attrs.frozen(kw_only=True)
class MembersResult:
    schema_version: Literal[1] = field("Result schema version")
    artifact: ArtifactRef = field("The file read")
    module: ModuleIdentity | None = field("Module row")
    metadata: MemberMetadata = field("Metadata root")
    identity_scope: IdentityScope = field("What the tokens are bound to")
    types: tuple[ManagedType, ...] = field("TypeDefs")
    fields: tuple[ManagedField, ...] = field("Fields")
    methods: tuple[ManagedMethod, ...] = field("MethodDefs with their bodies")
    member_refs: tuple[MemberReference, ...] = field("MemberRefs")
    call_edges: tuple[CallEdge, ...] = field("Calls found in the CIL of every body")
    field_accesses: tuple[FieldAccess, ...] = field("Field loads and stores found in the CIL")
    coverage: Coverage = field("What was read")
    limitations: tuple[str, ...] = field("What this answer does not establish")


# ------------------------------------------------------- boundaries result

CharSet = Literal["not-specified", "ansi", "unicode", "auto", "unknown"]
CallConvention = Literal["not-specified", "winapi", "cdecl", "stdcall", "thiscall", "fastcall", "unknown"]
Tristate = Literal["assembly-default", "enabled", "disabled", "unknown"]


@attrs.frozen(kw_only=True)
class CliNative:
    il_only: bool = field("COMIMAGE_FLAGS_ILONLY")
    requires_32bit: bool = field("COMIMAGE_FLAGS_32BITREQUIRED")
    strong_name_signed: bool = field("COMIMAGE_FLAGS_STRONGNAMESIGNED")
    native_entry_point: bool = field("COMIMAGE_FLAGS_NATIVE_ENTRYPOINT")
    ready_to_run_signature: bool = field("The managed native header carries the RTR signature")
    managed_native_header_rva: int = _u32()
    managed_native_header_size: int = _u32()


@attrs.frozen(kw_only=True)
class ModuleReference:
    token: str = _token()
    row_offset: int = _count("File offset of the row")
    name: str = field("Native module name as declared (e.g. kernel32.dll, libc.so.6)")


@attrs.frozen(kw_only=True)
class PInvokeImport:
    token: str = _token("ImplMap row")
    row_offset: int = _count("File offset of the row")
    mapping_flags: int = _u16("PInvokeAttributes")
    mapping_flags_hex: str = field("PInvokeAttributes as 0x hex", pattern="^0x[0-9a-f]{4}$")
    member_token: str | None = field("The MethodDef (or Field) forwarded", pattern=TOKEN)
    member_kind: Literal["method", "field", "unknown"] = field("What is forwarded")
    member_name: str | None = field("Its qualified name")
    import_name: str = field("Entry point name in the native module")
    import_scope_token: str | None = field("ModuleRef token", pattern=TOKEN)
    import_scope_name: str | None = field("ModuleRef name")
    no_mangle: bool = field("ExactSpelling")
    char_set: CharSet = field("String marshalling charset")
    call_convention: CallConvention = field("Unmanaged calling convention")
    supports_last_error: bool = field("SetLastError")
    best_fit: Tristate = field("BestFitMapping")
    throw_on_unmappable_char: Tristate = field("ThrowOnUnmappableChar")
    verification: Literal["managed-declaration-only"] = field("Declared in metadata; not checked against the module")
    signature: str | None = field("Our extra: the managed signature, ILAsm-style")


@attrs.frozen(kw_only=True)
class NativeImplementation:
    token: str = _token("MethodDef")
    row_offset: int = _count("File offset of the row")
    name: str = field("Qualified method name")
    rva: int = _u32("Body RVA")
    flags: int = _u16("MethodAttributes")
    impl_flags: int = _u16("MethodImplAttributes")
    code_type: Literal["il", "native", "optil", "runtime", "unknown"] = field("MethodImpl code type")
    managed_kind: Literal["managed", "unmanaged", "unknown"] = field("MethodImpl managed mask")
    pinvoke_declared: bool = field("PinvokeImpl is set")
    boundary_kind: Literal["pinvoke", "native-body", "runtime-provided", "unmanaged-method", "mixed-or-unknown"] = (
        field("Why it crosses the boundary")
    )
    body_interpretation: Literal["managed-cil", "native-or-runtime", "not-file-backed", "unknown"] = field(
        "What the RVA points to"
    )


@attrs.frozen(kw_only=True)
class BoundarySummary:
    module_ref_count: int = _count()
    pinvoke_import_count: int = _count()
    native_implementation_count: int = _count()
    ready_to_run: bool | None = field("ReadyToRun native code present")
    mixed_mode_or_native_header: bool | None = field("Not IL-only, or a managed native header")


@attrs.frozen(kw_only=True)
class BoundariesResult:
    schema_version: Literal[1] = field("Result schema version")
    artifact: ArtifactRef = field("The file read")
    module: ModuleIdentity | None = field("Module row")
    metadata: MemberMetadata = field("Metadata root")
    identity_scope: IdentityScope = field("What the tokens are bound to")
    cli_native: CliNative | None = field("CLI header native indicators")
    module_refs: tuple[ModuleReference, ...] = field("ModuleRefs")
    pinvoke_imports: tuple[PInvokeImport, ...] = field("ImplMap (DllImport) declarations")
    native_implementations: tuple[NativeImplementation, ...] = field("Methods without managed CIL")
    summary: BoundarySummary = field("Counts and indicators")
    native_exports: tuple[str, ...] = field("Our extra: names in the PE export directory (mixed-mode images)")
    coverage: Coverage = field("What was read")
    limitations: tuple[str, ...] = field("What this answer does not establish")


# ------------------------------------------------------------- comparison

EVIDENCE_ID = "^ev_[a-f0-9]{64}$"
Basis = Literal["exact-il-signature", "exact-signature", "structural-method-shape", "field-signature", "none"]
MethodDimension = Literal[
    "signature", "cil", "opcode-shape", "call-shape", "field-shape", "exception-shape", "availability"
]


@attrs.frozen(kw_only=True)
class CompareLimits:
    max_candidates: int = field("Candidate tokens listed per ambiguous item", default=50, minimum=1, maximum=500)
    max_field_matches: int = field("Field items returned", default=5000, minimum=0, maximum=50000)
    max_method_matches: int = field("Method items returned", default=10000, minimum=1, maximum=50000)


@attrs.frozen(kw_only=True)
class CompareArgs:
    left_evidence_id: str = field("Retained inspect_managed_members Evidence of the older build", pattern=EVIDENCE_ID)
    right_evidence_id: str = field("Retained inspect_managed_members Evidence of the newer build", pattern=EVIDENCE_ID)
    limits: CompareLimits = field("Result bounds", factory=CompareLimits)


@attrs.frozen(kw_only=True)
class Algorithm:
    name: Literal["rea-managed-member-comparison"] = field("Algorithm")
    version: Literal[1] = field("Version")
    token_identity: Literal["build-local"] = field("Tokens are never matched across builds")
    name_matching: Literal["not-used"] = field("Members are matched by content, then by declared signature")


@attrs.frozen(kw_only=True)
class CompareSide:
    evidence_id: str = field("The members Evidence", pattern=EVIDENCE_ID)
    artifact_sha256: str = field("Its artifact", pattern=SHA256)
    mvid: str | None = field("Its module version id", pattern=GUID)
    module_name: str | None = field("Its module name")
    metadata_status: MetadataStatus = field("Its metadata status")
    methods_total: int = _count("Methods it lists")
    fields_total: int = _count("Fields it lists")


@attrs.frozen(kw_only=True)
class MemberSide:
    token: str = _token()
    declaring_type: str | None = field("Owning type")
    name: str = field("Member name")
    signature_sha256: str = field("Raw signature SHA-256", pattern=SHA256)
    normalized_il_sha256: str | None = field("Decoded-tuple CIL SHA-256 (methods)", pattern=SHA256, omit_none=True)


@attrs.frozen(kw_only=True)
class Match:
    status: Literal["matched", "unmatched", "ambiguous"] = field("Whether one counterpart was found")
    basis: Basis = field("Which key matched")
    confidence: Literal["exact", "high", "unknown"] = field("exact for hash keys, high for the structural shape")
    candidate_left_tokens: tuple[str, ...] = field("Ambiguous: the left members sharing the key")
    candidate_right_tokens: tuple[str, ...] = field("Ambiguous: the right members sharing the key")


@attrs.frozen(kw_only=True)
class MethodItem:
    item_id: str = field("mmc_method_ id", pattern="^mmc_method_[a-f0-9]{64}$")
    status: Literal["unchanged", "changed", "added", "removed", "unknown"] = field("Verdict")
    dimensions: tuple[MethodDimension, ...] = field("What differs")
    left: MemberSide | None = field("Left member")
    right: MemberSide | None = field("Right member")
    match: Match = field("How it was matched")
    evidence_links: tuple[str, ...] = field("The two members Evidence")
    limitations: tuple[str, ...] = field("What this item does not establish")


@attrs.frozen(kw_only=True)
class FieldItem:
    item_id: str = field("mmc_field_ id", pattern="^mmc_field_[a-f0-9]{64}$")
    status: Literal["unchanged", "changed", "added", "removed", "unknown"] = field("Verdict")
    left: MemberSide | None = field("Left field")
    right: MemberSide | None = field("Right field")
    match: Match = field("How it was matched")
    evidence_links: tuple[str, ...] = field("The two members Evidence")
    limitations: tuple[str, ...] = field("What this item does not establish")


@attrs.frozen(kw_only=True)
class CompareSummary:
    unchanged: int = _count()
    changed: int = _count()
    added: int = _count()
    removed: int = _count()
    unknown: int = _count()


@attrs.frozen(kw_only=True)
class Matching:
    exact_il_signature: int = _count()
    exact_signature: int = _count("6.x: same declaring type, name and signature")
    structural_method_shape: int = _count()
    field_signature: int = _count()
    ambiguous: int = _count()
    unmatched: int = _count()


@attrs.frozen(kw_only=True)
class CompareCoverage:
    status: Literal["complete-within-inputs", "partial", "truncated"] = field("Whether every member was compared")
    left_status: CoverageState = field("Left members coverage")
    right_status: CoverageState = field("Right members coverage")
    omitted_methods: int = _count("Method items past max_method_matches")
    omitted_fields: int = _count("Field items past max_field_matches")
    omitted_candidates: int = _count("Candidate tokens past max_candidates")


@attrs.frozen(kw_only=True)
class ComparisonResult:
    schema_version: Literal[1] = field("Result schema version")
    comparison_id: str = field("mmc_ id of the comparison", pattern="^mmc_[a-f0-9]{64}$")
    algorithm: Algorithm = field("The matching algorithm")
    left: CompareSide = field("Left build")
    right: CompareSide = field("Right build")
    summary: CompareSummary = field("Items per verdict")
    matching: Matching = field("Items per matching basis")
    methods: tuple[MethodItem, ...] = field("Method items")
    fields: tuple[FieldItem, ...] = field("Field items")
    coverage: CompareCoverage = field("What was compared")
    evidence_links: tuple[str, ...] = field("The two members Evidence")
    limitations: tuple[str, ...] = field("What the comparison does not establish")
