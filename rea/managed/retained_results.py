"""Managed results read back from retained Evidence: structured once, as leniently as they were read before.

verify, the application graph and the reconstruction import each read a managed Evidence record that
this session made or imported (an imported record may be of an older revision). Each reader here takes
only the keys its caller needs: a key the result's own record requires (schema_version 1, the only
revision) is indexed, a key the callers read with `.get` may be absent, so no record the callers
accepted is refused here; past this module they decide over records, not keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from rea.managed.records import verification as w


@attrs.frozen(kw_only=True)
class StoredArtifact:
    """The file a managed result describes."""

    sha256: str
    path: str
    byte_length: int


@attrs.frozen(kw_only=True)
class StoredModule:
    """The Module row (None fields: an older record without them)."""

    name: str | None
    mvid: str | None


@attrs.frozen(kw_only=True)
class StoredBoundaries:
    """What verify_managed_native_boundaries reads of an inspect_managed_native_boundaries result."""

    artifact: StoredArtifact
    module: StoredModule
    metadata_status: Any
    coverage_state: Any
    pinvoke_imports: tuple[w.ManagedDeclaration, ...]
    native_boundary_kinds: tuple[str, ...]


@attrs.frozen(kw_only=True)
class StoredBody:
    """A method body's lock facts."""

    status: str
    normalized_il_sha256: str | None
    il_sha256: str | None
    il_size: int


@attrs.frozen(kw_only=True)
class StoredMethod:
    """One MethodDef as the reconstruction lock compares it (token, signature digest, decoded body)."""

    token: str
    declaring_type: str | None
    name: str
    signature_sha256: str
    body: StoredBody


@attrs.frozen(kw_only=True)
class StoredMembers:
    """What import_managed_reconstruction reads of an inspect_managed_members result."""

    artifact: StoredArtifact
    module: StoredModule
    metadata_status: Any
    methods: tuple[StoredMethod, ...]


def _artifact(result: Mapping[str, Any]) -> StoredArtifact:
    a = result["artifact"]
    return StoredArtifact(sha256=a["sha256"], path=a["path"], byte_length=a["byte_length"])


def _module(result: Mapping[str, Any]) -> StoredModule:
    module = result.get("module") or {}
    return StoredModule(name=module.get("name"), mvid=module.get("mvid"))


def _declaration(p: Mapping[str, Any]) -> w.ManagedDeclaration:
    return w.ManagedDeclaration(
        token=p["token"], member_token=p["member_token"], member_name=p["member_name"], import_name=p["import_name"],
        import_scope_name=p["import_scope_name"], no_mangle=p["no_mangle"], char_set=p["char_set"],
        call_convention=p["call_convention"], declaration_verification="managed-declaration-only",
    )  # fmt: skip


def boundaries(result: Mapping[str, Any]) -> StoredBoundaries:
    """A retained boundaries result (its normalized_result, a JSON document) as the record verify reads."""
    return StoredBoundaries(
        artifact=_artifact(result),
        module=_module(result),
        metadata_status=result["metadata"]["status"],
        coverage_state=result["coverage"]["state"],
        pinvoke_imports=tuple(_declaration(p) for p in result["pinvoke_imports"]),
        native_boundary_kinds=tuple(n["boundary_kind"] for n in result["native_implementations"]),
    )


def _method(m: Mapping[str, Any]) -> StoredMethod:
    body = m["body"]
    return StoredMethod(
        token=m["token"],
        declaring_type=m.get("declaring_type"),
        name=m["name"],
        signature_sha256=m["signature"]["raw_sha256"],
        body=StoredBody(
            status=body["status"],
            normalized_il_sha256=body.get("normalized_il_sha256"),
            il_sha256=body.get("il_sha256"),
            il_size=body["il_size"],
        ),
    )


def members(result: Mapping[str, Any]) -> StoredMembers:
    """A retained members result (its normalized_result, a JSON document) as the record the import reads.
    A method's token, name, signature digest, body status and size are required fields of every members result
    (schema_version 1, the only one); the nullable ones may be absent."""
    return StoredMembers(
        artifact=_artifact(result),
        module=_module(result),
        metadata_status=(result.get("metadata") or {}).get("status"),
        methods=tuple(_method(m) for m in result["methods"]),
    )


@attrs.frozen(kw_only=True)
class ComparedSignature:
    """A member's signature as compare_managed_members keys it (None: a key the stored row lacks)."""

    parse_status: str
    raw_sha256: str
    kind: str | None = None
    calling_convention: str | None = None
    generic_parameter_count: int | None = None
    parameter_count: int | None = None
    return_type: str | None = None
    parameter_types: tuple[str, ...] | None = None


@attrs.frozen(kw_only=True)
class ComparedRegion:
    flags: int | None
    try_length: int | None
    handler_length: int | None
    class_token: str | None
    filter_offset: int | None


@attrs.frozen(kw_only=True)
class ComparedBody:
    """A method body's shape: digests, header and the opcode/anchor/exception facts the rounds compare."""

    status: str | None = None
    normalized_il_sha256: str | None = None
    il_sha256: str | None = None
    header_format: str | None = None
    il_size: int | None = None
    max_stack: int | None = None
    init_locals: bool | None = None
    opcode_counts: Mapping[str, int] | None = None
    anchors: tuple[tuple[str | None, str | None], ...] = ()  # (opcode, operand_kind)
    exception_regions: tuple[ComparedRegion, ...] = ()


@attrs.frozen(kw_only=True)
class ComparedMember:
    """A MethodDef or Field row as compare_managed_members matches it (fields carry no body)."""

    token: str
    declaring_type: str | None
    name: str
    flags: int | None
    signature: ComparedSignature
    body: ComparedBody


@attrs.frozen(kw_only=True)
class ComparedSide:
    """What compare_managed_members reads of one inspect_managed_members result."""

    artifact_sha256: str
    module: StoredModule
    metadata_status: Any
    coverage_state: Any
    limitations: tuple[str, ...]
    methods: tuple[ComparedMember, ...]
    fields: tuple[ComparedMember, ...]


def _region(r: Mapping[str, Any]) -> ComparedRegion:
    return ComparedRegion(flags=r.get("flags"), try_length=r.get("try_length"),
                          handler_length=r.get("handler_length"), class_token=r.get("class_token"),
                          filter_offset=r.get("filter_offset"))  # fmt: skip


def _body(body: Mapping[str, Any]) -> ComparedBody:
    get = body.get
    return ComparedBody(
        status=get("status"), normalized_il_sha256=get("normalized_il_sha256"), il_sha256=get("il_sha256"),
        header_format=get("header_format"), il_size=get("il_size"), max_stack=get("max_stack"),
        init_locals=get("init_locals"), opcode_counts=get("opcode_counts"),
        anchors=tuple((a.get("opcode"), a.get("operand_kind")) for a in get("anchors") or ()),
        exception_regions=tuple(_region(r) for r in get("exception_regions") or ()),
    )  # fmt: skip


def _signature(s: Mapping[str, Any]) -> ComparedSignature:
    given = s.get("parameter_types")
    return ComparedSignature(
        parse_status=s["parse_status"], raw_sha256=s["raw_sha256"], kind=s.get("kind"),
        calling_convention=s.get("calling_convention"), generic_parameter_count=s.get("generic_parameter_count"),
        parameter_count=s.get("parameter_count"), return_type=s.get("return_type"),
        parameter_types=None if given is None else tuple(given),
    )  # fmt: skip


def _compared(m: Mapping[str, Any]) -> ComparedMember:
    return ComparedMember(token=m["token"], declaring_type=m.get("declaring_type"), name=m["name"],
                          flags=m.get("flags"), signature=_signature(m["signature"]),
                          body=_body(m.get("body") or {}))  # fmt: skip


def compared(result: Mapping[str, Any]) -> ComparedSide:
    """A retained members result as compare_managed_members reads it: every member's token, name, signature
    digest and parse status are required (every round or side reads them); the rest is read where present."""
    return ComparedSide(
        artifact_sha256=result["artifact"]["sha256"],
        module=_module(result),
        metadata_status=result["metadata"]["status"],
        coverage_state=result["coverage"]["state"],
        limitations=tuple(result["limitations"]),
        methods=tuple(_compared(m) for m in result["methods"]),
        fields=tuple(_compared(f) for f in result["fields"]),
    )
