"""inspect_native_dispatch_metadata's result (the 6.x objcSwiftMetadata shape) from one Reading. Pure."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from rea.apple_metadata import swift
from rea.apple_metadata.decoded import (
    RawCategory,
    RawClass,
    RawMethod,
    RawProtocol,
    SwiftDescriptor,
    Undecoded,
    problem,
)
from rea.apple_metadata.records import (
    Decode,
    DispatchMetadata,
    DispatchMetadataResult,
    FacetCoverage,
    MetadataEvidence,
    ObjcCategory,
    ObjcClassRecord,
    ObjcImplementation,
    ObjcIvar,
    ObjcMethod,
    ObjcProtocolRecord,
    ObjcProtocolRow,
    SwiftDecl,
    SwiftSymbol,
)
from rea.apple_metadata.results import PROVIDER, SWIFT_PREFIXES, Reading, _decode, _hex

UNSUPPORTED = {
    "swift_conformances": "__swift5_proto conformance records are not decoded by this reader",
    "swift_dispatch_tables": "Swift witness tables and class vtables are not decoded by this reader",
    "relative_pointers": "relative pointers are followed while decoding but not reported one by one",
}
DECODED = Decode(status="decoded", reason=None)
SWIFT_DECL_KINDS = ("class", "struct", "enum", "protocol", "extension")


@attrs.frozen(kw_only=True)
class Artifact:
    """The file read, as every evidence row names it."""

    path: str
    sha256: str | None


class Projector:
    def __init__(self, reading: Reading, artifact: Artifact) -> None:
        self.reading = reading
        self.image = reading.image
        self.path = artifact.path
        self.sha256 = artifact.sha256

    def evidence(self, description: str, addr: int | None) -> tuple[MetadataEvidence, ...]:
        return (
            MetadataEvidence(
                kind="binary_metadata",
                description=description,
                location=self.image.location(addr),
                artifact_path=self.path,
                artifact_sha256=self.sha256,
            ),
        )

    def method(self, m: RawMethod, required: bool = False, optional: bool = False) -> ObjcMethod:
        return ObjcMethod(
            selector=m.selector,
            method_type=m.method_type,
            address=m.imp,
            is_required=required,
            is_optional=optional,
            type_encoding=m.types,
        )

    def klass(self, c: RawClass) -> ObjcClassRecord:
        return ObjcClassRecord(
            name=c.name,
            super_class=c.super_class,
            is_meta_class=False,
            is_root_class=c.is_root_class,
            methods=tuple(self.method(m) for m in c.methods),
            properties=c.properties,
            protocols=c.protocols,
            ivar_count=len(c.ivars),
            instance_size=c.instance_size,
            location=self.image.location(c.address),
            superclass_address=_hex(c.superclass_address),
            metaclass_address=_hex(c.metaclass_address),
            superclass_chain=c.superclass_chain,
            decode=_decode(c),
            evidence=self.evidence(f"class_t of {c.name} in __objc_classlist", c.address),
        )

    def implementations(
        self, owner: str, methods: Sequence[RawMethod], category: str | None
    ) -> list[ObjcImplementation]:
        return [
            ObjcImplementation(
                class_name=owner,
                selector=m.selector,
                method_type=m.method_type,
                implementation_address=_hex(m.imp),
                category=category,
                location=self.image.location(m.entry),
                decode=DECODED,
                evidence=self.evidence(f"method entry {m.selector} of {owner}", m.entry),
            )
            for m in methods
            if owner and m.selector
        ]

    def ivars(self, c: RawClass) -> list[ObjcIvar]:
        return [
            ObjcIvar(
                class_name=c.name,
                name=i.name,
                type_encoding=i.type_encoding,
                offset=i.offset,
                size=i.size,
                alignment=i.alignment,
                location=self.image.location(i.entry),
                decode=DECODED,
                evidence=self.evidence(f"ivar_t {i.name} of {c.name}", i.entry),
            )
            for i in c.ivars
            if c.name and i.name
        ]

    def protocol(self, p: RawProtocol) -> tuple[ObjcProtocolRow, ObjcProtocolRecord]:
        required = tuple(self.method(m, required=True) for m in p.methods)
        optional = tuple(self.method(m, optional=True) for m in p.optional_methods)
        row = ObjcProtocolRow(name=p.name, methods=required, optional_methods=optional, properties=p.properties)
        record = ObjcProtocolRecord(
            name=p.name,
            adopted_protocols=p.adopted_protocols,
            methods=required,
            optional_methods=optional,
            location=self.image.location(p.address),
            decode=_decode(p),
            evidence=self.evidence(f"protocol_t {p.name} in __objc_protolist", p.address),
        )
        return row, record

    def category(self, k: RawCategory) -> ObjcCategory:
        return ObjcCategory(
            name=k.name or "(unnamed)",
            class_name=k.class_name,
            class_source=k.class_source,
            instance_methods=tuple(m.selector for m in k.instance_methods),
            class_methods=tuple(m.selector for m in k.class_methods),
            protocols=k.protocols,
            properties=k.properties,
            location=self.image.location(k.address),
            decode=_decode(k),
            evidence=self.evidence(f"category_t {k.name} in __objc_catlist", k.address),
        )

    def swift_decl(self, t: SwiftDescriptor) -> SwiftDecl | None:
        kind = "extension" if t.nested_in_extension and t.kind in swift.CATEGORY else t.kind
        if kind not in SWIFT_DECL_KINDS or not t.qualified_name:
            return None
        return SwiftDecl(
            kind=kind,  # type: ignore[arg-type]  # one of SWIFT_DECL_KINDS, checked above
            name=t.qualified_name,
            module=t.module,
            access_level="internal",
            access_level_recorded=False,
            super_class=None,
            protocols=(),
            is_final=False,
            is_required=False,
            is_convenience_init=False,
            is_override=False,
            location=self.image.location(t.address),
        )

    def swift_symbols(self, limit: int) -> tuple[SwiftSymbol, ...]:
        rows = []
        for addr, name in sorted(self.image.symbols.items()):
            if name.startswith(SWIFT_PREFIXES):
                rows.append(
                    SwiftSymbol(
                        mangled_name=name,
                        address=f"0x{addr:x}",
                        decode=Decode(status="partial", reason="mangled_symbol_not_demangled"),
                        evidence=(
                            MetadataEvidence(
                                kind="symbol",
                                description=f"nlist symbol {name}",
                                location=self.image.location(addr),
                                artifact_path=self.path,
                                artifact_sha256=self.sha256,
                            ),
                        ),
                    )
                )
        return tuple(rows[:limit])


def _coverage(facet: str, listed: int, records: Sequence[object], limit: int) -> FacetCoverage:
    good = [r for r in records if not isinstance(r, Undecoded) and not problem(r)]
    complete = len(good) == len(records) and listed <= limit
    reason = None
    if listed > limit:
        reason = f"record_limit_reached: {listed} listed, {limit} read"
    elif not complete:
        reason = f"{len(records) - len(good)} record(s) did not decode completely"
    return FacetCoverage(
        facet=facet,
        status="complete" if complete else "partial",
        reason=reason,
        examined=len(records),
        decoded=len(good),
    )


def _coverages(reading: Reading, limit: int) -> tuple[FacetCoverage, ...]:
    """Per facet, how much was decoded; every facet unsupported on a 32-bit image."""
    coverage = [
        _coverage("objc_classes", reading.classes_listed, reading.classes, limit),
        _coverage("objc_protocols", reading.protocols_listed, reading.protocols, limit),
        _coverage("objc_categories", reading.categories_listed, reading.categories, limit),
        _coverage("objc_ivar_layouts", reading.classes_listed, reading.classes, limit),
        _coverage("objc_dispatch_implementations", reading.classes_listed, reading.classes, limit),
        _coverage("swift_declarations", reading.swift.types_listed, reading.swift.types, limit),
        _coverage("swift_protocols", reading.swift.protocols_listed, reading.swift.protocols, limit),
        *(
            FacetCoverage(facet=facet, status="unsupported", reason=reason, examined=0, decoded=0)
            for facet, reason in UNSUPPORTED.items()
        ),
    ]
    if not reading.image.is64:
        coverage = [
            attrs.evolve(row, status="unsupported", reason="32-bit metadata layouts are not decoded")
            for row in coverage
        ]
    return tuple(coverage)


def dispatch_result(reading: Reading, artifact: Artifact, limit: int) -> DispatchMetadataResult:
    p = Projector(reading, artifact)
    classes = [c for c in reading.classes[:limit] if isinstance(c, RawClass)]
    protocols = [p.protocol(x) for x in reading.protocols[:limit] if isinstance(x, RawProtocol)]
    categories = [k for k in reading.categories[:limit] if isinstance(k, RawCategory)]
    implementations = [x for c in classes for x in p.implementations(c.name, c.methods, None)]
    for k in categories:
        owner = k.class_name or ""
        implementations += p.implementations(owner, k.instance_methods + k.class_methods, k.name or None)
    types = [t for t in (*reading.swift.types, *reading.swift.protocols) if isinstance(t, SwiftDescriptor)]
    decls = [d for d in (p.swift_decl(t) for t in types[:limit]) if d is not None]
    result = DispatchMetadata(
        objc_classes=tuple(p.klass(c) for c in classes),
        objc_protocols=tuple(row for row, _record in protocols),
        objc_categories=tuple(p.category(k) for k in categories),
        swift_decls=tuple(decls),
        objc_ivars=tuple(i for c in classes for i in p.ivars(c)),
        objc_protocol_records=tuple(record for _row, record in protocols),
        objc_dispatch_implementations=tuple(implementations),
        swift_conformances=(),
        swift_dispatch_slots=(),
        swift_symbols=p.swift_symbols(limit),
        relative_pointers=(),
        coverage=_coverages(reading, limit),
        db_save_result=None,
    )
    return DispatchMetadataResult(
        target_sha256=artifact.sha256,
        provider=PROVIDER,
        analysis_profile_digest=None,
        result=result,
        slice=reading.slice,
        limitations=reading.notes(),
    )
