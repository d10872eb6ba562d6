"""inspect_managed_members: types, fields, methods with CIL bodies, member refs, call edges, field accesses."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

import orjson

from rea.managed import common as c
from rea.managed.facts import AssemblyFacts, Body, Instruction, Row
from rea.managed.names import Names, hex_token, token
from rea.managed.records import artifact as art
from rea.managed.records import members as w
from rea.managed.signatures import Signature, decode

OPERAND_KINDS: Mapping[str, art.OperandKind] = {
    "InlineNone": "none", "InlineBrTarget": "branch", "ShortInlineBrTarget": "branch", "InlineI": "constant",
    "InlineI8": "constant", "InlineR": "constant", "ShortInlineI": "constant", "ShortInlineR": "constant",
    "InlineField": "field", "InlineMethod": "method", "InlineSig": "signature", "InlineString": "string",
    "InlineSwitch": "switch", "InlineTok": "token", "InlineType": "type", "InlineVar": "variable",
    "ShortInlineVar": "variable",
}  # fmt: skip
ANCHORED = frozenset({"branch", "field", "method", "signature", "string", "switch", "token", "type"})
CALLS = frozenset({"call", "callvirt", "newobj", "ldftn", "ldvirtftn", "jmp"})
TARGET_KINDS: Mapping[int, Any] = {0x06: "method-def", 0x0A: "member-ref", 0x2B: "method-spec"}
CODE_TYPES = {0: "IL", 1: "native", 2: "OPTIL", 3: "runtime"}


def wire_signature(s: Signature) -> w.ManagedSignature:
    return w.ManagedSignature(
        raw_length=s.raw_length, raw_sha256=s.raw_sha256, kind=s.kind, parse_status=s.parse_status,
        calling_convention=s.calling_convention, generic_parameter_count=s.generic_parameter_count,
        parameter_count=s.parameter_count, return_type=s.return_type, parameter_types=s.parameter_types,
        field_type=s.field_type, issue=s.issue,
    )  # fmt: skip


def _range(first: int, count: int) -> w.RowRange:
    if count <= 0 or first < 1:  # an empty run, or a damaged list index (its count is dnfile's, from row 1)
        return w.RowRange(first_row=None, last_row=None, count=max(count, 0))
    return w.RowRange(first_row=first, last_row=first + count - 1, count=count)


def _generic_names(facts: AssemblyFacts) -> dict[int, list[str]]:
    """Owner token -> generic parameter names in Number order."""
    owners: dict[int, list[tuple[int, str]]] = {}
    for row in facts.rows("GenericParam"):
        owners.setdefault(c.number(row, "Owner"), []).append((c.number(row, "Number"), c.text(row, "Name")))
    return {owner: [name for _n, name in sorted(params)] for owner, params in owners.items()}


def types(facts: AssemblyFacts, names: Names) -> tuple[w.ManagedType, ...]:
    generics = _generic_names(facts)
    interfaces: dict[int, list[str]] = {}
    for row in facts.rows("InterfaceImpl"):
        interfaces.setdefault(c.number(row, "Class"), []).append(names.type_text(c.number(row, "Interface")))
    out = []
    for row in facts.rows("TypeDef"):
        extends = c.number(row, "Extends")
        outer = names.enclosing.get(row.index)
        out.append(
            w.ManagedType(
                token=token("TypeDef", row.index),
                row_offset=row.offset,
                namespace=c.text(row, "TypeNamespace"),
                name=c.text(row, "TypeName"),
                full_name=names.typedef(row.index) or "",
                flags=c.number(row, "Flags"),
                extends_token=hex_token(extends) if extends else None,
                field_list=_range(c.number(row, "FieldList"), c.number(row, "FieldList_count")),
                method_list=_range(c.number(row, "MethodList"), c.number(row, "MethodList_count")),
                extends=names.type_text(extends) if extends else None,
                enclosing_type_token=token("TypeDef", outer) if outer else None,
                generic_parameters=tuple(generics.get(0x02000000 | row.index, ())),
                interfaces=tuple(interfaces.get(row.index, ())),
            )  # fmt: skip
        )
    return tuple(out)


def _owner(owners: Mapping[int, int], names: Names, row: int) -> tuple[str | None, str | None]:
    owner = owners.get(row)
    return (token("TypeDef", owner), names.typedef(owner)) if owner else (None, None)


def fields(facts: AssemblyFacts, names: Names) -> tuple[w.ManagedField, ...]:
    out = []
    for row in facts.rows("Field"):
        owner_token, owner = _owner(names.field_owner, names, row.index)
        out.append(
            w.ManagedField(
                token=token("Field", row.index),
                row_offset=row.offset,
                declaring_type_token=owner_token,
                declaring_type=owner,
                name=c.text(row, "Name"),
                flags=c.number(row, "Flags") & 0xFFFF,
                signature=wire_signature(decode(c.blob(row, "Signature"), names.type_text)),
            )  # fmt: skip
        )
    return tuple(out)


def operand_text(i: Instruction, kind: str) -> str | None:
    value = i.operand
    if value is None or kind == "switch":
        return None
    if kind in ("field", "method", "signature", "string", "token", "type") and isinstance(value, int):
        return hex_token(value)
    if kind == "branch" and isinstance(value, int):
        return f"0x{value:x}"
    return str(value)


def _tuples(body: Body) -> Iterator[tuple[int, str, art.OperandKind, str | None]]:
    for i in body.instructions:
        kind = OPERAND_KINDS.get(i.operand_type, "unknown")
        yield i.offset, i.opcode, kind, operand_text(i, kind)


def _absent(rva: int, why: str) -> w.MethodBody:
    return w.MethodBody(
        status="absent", header_format="none", rva=rva, file_offset=None, max_stack=None, init_locals=None,
        local_var_sig_token=None, il_size=0, il_sha256=None, normalized_il_sha256=None, instruction_count=0,
        decoded_instruction_count=0, truncated_instructions=0, opcode_counts={}, anchors=(), exception_regions=(),
        issue=why,
    )  # fmt: skip


def _why_absent(row: Row) -> str:
    impl = c.number(row, "ImplFlags")
    if c.number(row, "Flags") & 0x2000:
        return "P/Invoke declaration: the body is native (see inspect_managed_native_boundaries)"
    if impl & 0x3:
        return f"code type {CODE_TYPES[impl & 0x3]}: no CIL body in the file"
    if c.number(row, "Flags") & 0x400:
        return "abstract method: no body"
    return "RVA 0: no body (runtime-provided or reference assembly)"


def method_body(row: Row, body: Body | None, anchor_limit: int) -> w.MethodBody:
    rva = c.number(row, "Rva")
    if body is None:
        return _absent(rva, _why_absent(row))
    tuples = list(_tuples(body))
    truncated = body.instruction_total - len(body.instructions)
    complete = body.issue is None and truncated == 0
    normalized = orjson.dumps([[op, kind, text] for _o, op, kind, text in tuples]) if complete else None
    anchors = [
        w.InstructionAnchor(il_offset=offset, opcode=op, operand_kind=kind, operand=text)
        for offset, op, kind, text in tuples
        if kind in ANCHORED
    ]
    status: Any = "malformed" if body.issue is not None else "partial" if truncated else "present"
    issue = body.issue or (
        f"{truncated} instructions past max_method_instructions were not decoded" if truncated else None
    )
    return w.MethodBody(
        status=status, header_format=body.header_format,  # type: ignore[arg-type]
        rva=rva, file_offset=body.file_offset, max_stack=body.max_stack, init_locals=body.init_locals,
        local_var_sig_token=hex_token(body.local_var_sig_token) if body.local_var_sig_token else None,
        il_size=body.il_size, il_sha256=body.il_sha256,
        normalized_il_sha256=hashlib.sha256(normalized).hexdigest() if normalized is not None else None,
        instruction_count=body.instruction_total, decoded_instruction_count=len(body.instructions),
        truncated_instructions=truncated, opcode_counts=dict(Counter(op for _o, op, _k, _t in tuples)),
        anchors=tuple(anchors[:anchor_limit]),
        exception_regions=tuple(
            w.ExceptionRegion(flags=r.flags, try_offset=r.try_offset, try_length=r.try_length,
                              handler_offset=r.handler_offset, handler_length=r.handler_length,
                              class_token=hex_token(r.class_token) if r.class_token else None,
                              filter_offset=r.filter_offset)  # fmt: skip
            for r in body.regions
        ),
        issue=issue,
    )  # fmt: skip


def methods(facts: AssemblyFacts, names: Names, anchor_limit: int) -> tuple[w.ManagedMethod, ...]:
    bodies = {b.method_row: b for b in facts.bodies}
    out = []
    for row in facts.rows("MethodDef"):
        owner_token, owner = _owner(names.method_owner, names, row.index)
        out.append(
            w.ManagedMethod(
                token=token("MethodDef", row.index),
                row_offset=row.offset,
                declaring_type_token=owner_token,
                declaring_type=owner,
                name=c.text(row, "Name"),
                rva=c.number(row, "Rva"),
                impl_flags=c.number(row, "ImplFlags") & 0xFFFF,
                flags=c.number(row, "Flags") & 0xFFFF,
                signature=wire_signature(decode(c.blob(row, "Signature"), names.type_text)),
                body=method_body(row, bodies.get(row.index), anchor_limit),
            )  # fmt: skip
        )
    return tuple(out)


def member_refs(facts: AssemblyFacts, names: Names) -> tuple[w.MemberReference, ...]:
    out = []
    for row in facts.rows("MemberRef"):
        parent = c.number(row, "Class")
        qualified = names.memberref(row.index) or ""
        out.append(
            w.MemberReference(
                token=token("MemberRef", row.index),
                row_offset=row.offset,
                parent_token=hex_token(parent) if parent else None,
                name=c.text(row, "Name"),
                signature=wire_signature(decode(c.blob(row, "Signature"), names.type_text)),
                parent=qualified.rsplit("::", 1)[0] if "::" in qualified else None,
            )  # fmt: skip
        )
    return tuple(out)


def edges(facts: AssemblyFacts, names: Names) -> tuple[tuple[w.CallEdge, ...], tuple[w.FieldAccess, ...]]:
    calls: list[w.CallEdge] = []
    accesses: list[w.FieldAccess] = []
    for body in facts.bodies:
        source = token("MethodDef", body.method_row)
        source_name = names.method(body.method_row)
        for i in body.instructions:
            if not isinstance(i.operand, int):
                continue
            if i.operand_type == "InlineMethod" and i.opcode in CALLS:
                calls.append(
                    w.CallEdge(
                        caller_token=source,
                        caller=source_name,
                        opcode=i.opcode,
                        target_token=hex_token(i.operand),
                        target_kind=TARGET_KINDS.get(i.operand >> 24, "unknown"),
                        target_name=names.member(i.operand),
                        il_offset=i.offset,
                    )  # fmt: skip
                )
            elif i.operand_type == "InlineField":
                accesses.append(
                    w.FieldAccess(
                        method_token=source,
                        method=source_name,
                        opcode=i.opcode,
                        field_token=hex_token(i.operand),
                        field_name=names.member(i.operand),
                        il_offset=i.offset,
                    )  # fmt: skip
                )
    return tuple(calls), tuple(accesses)


def _limitations(listings: Mapping[str, tuple[str, tuple[Any, ...]]], args: art.MembersArgs) -> list[str]:
    out = [
        c.NO_EXECUTION,
        "Tokens are build-local: compare members across builds by name and signature (compare_managed_members), "
        "not by token. normalized_il_sha256 keeps tokens and omits switch targets, so it does not commit control "
        "flow completely.",
    ]
    for key, (prefix, items) in listings.items():
        out += c.paging_limitations(key, len(items), *c.window(args, prefix))
    return out


def members_result(facts: AssemblyFacts, architecture: str, args: art.MembersArgs) -> w.MembersResult:
    names = Names(facts)
    module = c.module_identity(facts)
    call_edges, field_accesses = edges(facts, names)
    listings: dict[str, tuple[str, tuple[Any, ...]]] = {
        "types": ("type", types(facts, names)),
        "fields": ("field", fields(facts, names)),
        "methods": ("method", methods(facts, names, args.instruction_anchor_limit)),
        "member_refs": ("member_ref", member_refs(facts, names)),
        "call_edges": ("edge", call_edges),
        "field_accesses": ("edge", field_accesses),
    }
    paged = {key: c.page(items, *c.window(args, p)) for key, (p, items) in listings.items()}
    return w.MembersResult(
        schema_version=1,
        artifact=c.artifact_ref(facts),
        module=module,
        metadata=art.MemberMetadata(
            status=c.metadata_status(facts), version=facts.metadata_version, table_row_counts=c.row_counts(facts)
        ),  # fmt: skip
        identity_scope=c.identity_scope(facts, module),
        coverage=c.coverage(facts),
        limitations=tuple(_limitations(listings, args)),
        **paged,
    )
