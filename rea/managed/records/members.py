"""Wire records of inspect_managed_members: types, fields, methods with their bodies, member references and edges."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import attrs

from rea.managed.records.artifact import (
    _MAX,
    SHA256,
    TOKEN,
    ArtifactRef,
    Coverage,
    IdentityScope,
    MemberMetadata,
    ModuleIdentity,
    OperandKind,
    _count,
    _token,
    _u16,
    _u32,
)
from rea.wire.schema import field

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
