"""Wire records of the Apple metadata tools: get_objc_classes, get_objc_protocols, analyze_swift_types and
inspect_native_dispatch_metadata, read from the Mach-O file itself.

Shapes follow REA 6.x (symbolDiscoveryOutput, the analyze_swift_types categories, the
objcSwiftMetadata result of inspect_native_dispatch_metadata); facts the reference has
no field for (superclass, file offsets, per-record decode state) are extras.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import attrs

from rea.wire.key_order import sent_in
from rea.wire.schema import field

HEX = "^0x[0-9a-f]+$"
SHA256 = "^[a-f0-9]{64}$"
DecodeStatus = Literal["decoded", "partial", "unsupported", "invalid"]
SwiftCategoryName = Literal["classes", "structs", "enums", "protocols", "extensions", "other"]


def _architecture() -> object:
    return field(
        "Universal slice to read (as list_architectures names it); default: open_binary's slice",
        omit_none=True,
        minLength=1,
        maxLength=64,
    )


# ------------------------------------------------------------------ arguments


@attrs.frozen(kw_only=True)
class ObjcClassesArgs:
    pattern: str = field("Case-sensitive literal filter on class names (empty: every class)", default="")
    architecture: str | None = _architecture()  # type: ignore[assignment]


@attrs.frozen(kw_only=True)
class ObjcProtocolsArgs:
    architecture: str | None = _architecture()  # type: ignore[assignment]


@attrs.frozen(kw_only=True)
class SwiftTypesArgs:
    category: SwiftCategoryName | None = field("Limit results to one Swift category", omit_none=True)
    pattern: str | None = field("Case-sensitive literal filter on type names", omit_none=True)
    architecture: str | None = _architecture()  # type: ignore[assignment]


@attrs.frozen(kw_only=True)
class DispatchMetadataArgs:
    max_records: int = field(
        "Records decoded per metadata list",
        default=5_000,
        minimum=1,
        maximum=20_000,
    )
    architecture: str | None = _architecture()  # type: ignore[assignment]


# ------------------------------------------------------------------ shared rows


@attrs.frozen(kw_only=True)
class Decode:
    status: DecodeStatus = field("How completely this record decoded")
    reason: str | None = field("Why it is not decoded completely (null when it is)")


@attrs.frozen(kw_only=True)
class Coverage:
    listed: int = field("Entries the section lists", minimum=0)
    examined: int = field("Entries read (at most the bound)", minimum=0)
    decoded: int = field("Entries decoded completely", minimum=0)
    invalid: int = field("Entries whose structures lie outside the image or do not decode", minimum=0)


@attrs.frozen(kw_only=True)
class ObjcClassEntry:
    address: str = field("class_t address", pattern=HEX)
    name: str = field("Class name from its class_ro_t (empty when it did not decode)")
    super_class: str | None = field("Our extra: superclass name (a bound external class by its symbol)")
    metaclass_address: str | None = field("Our extra: the metaclass address", pattern=HEX)
    instance_size: int | None = field("Our extra: instanceSize", minimum=0)
    method_count: int = field("Our extra: instance and class methods", minimum=0)
    swift: bool = field("Our extra: the class data carries the Swift bits")
    file_offset: int | None = field("Our extra: file offset of the class_t in the slice", minimum=0)
    decode: Decode = field("Our extra: decode state")


@attrs.frozen(kw_only=True)
class ObjcClasses:
    count: int = field("Classes returned", minimum=0)
    classes: tuple[ObjcClassEntry, ...] = field("Classes from __objc_classlist, in list order")
    coverage: Coverage = field("Our extra: how much of __objc_classlist was read")
    slice: str | None = field("Our extra: the universal slice read (null for a thin file)")
    limitations: tuple[str, ...] = field("What this reading did not cover")


@attrs.frozen(kw_only=True)
class ProtocolEntry:
    address: str = field("protocol_t or Swift protocol descriptor address", pattern=HEX)
    name: str = field("Protocol name (Swift: module-qualified)")
    source: Literal["objc", "swift"] = field("Our extra: __objc_protolist or __swift5_protos")
    file_offset: int | None = field("Our extra: file offset in the slice", minimum=0)
    decode: Decode = field("Our extra: decode state")


@attrs.frozen(kw_only=True)
class ObjcProtocols:
    count: int = field("Protocols returned", minimum=0)
    protocols: tuple[ProtocolEntry, ...] = field("Objective-C then Swift protocols, deduplicated by name")
    slice: str | None = field("Our extra: the universal slice read (null for a thin file)")
    limitations: tuple[str, ...] = field("What this reading did not cover")


@attrs.frozen(kw_only=True)
class SwiftTypeEntry:
    address: str = field("Context descriptor address", pattern=HEX)
    name: str = field("Module-qualified type name from the descriptor chain")
    kind: str = field("Our extra: descriptor kind (class, struct, enum, protocol, ...)")
    module: str | None = field("Our extra: the module context's name")
    generic: bool = field("Our extra: the descriptor is generic")
    file_offset: int | None = field("Our extra: file offset in the slice", minimum=0)


@attrs.frozen(kw_only=True)
class SwiftCategory:
    count: int = field("Types in the category", minimum=0)
    items: tuple[SwiftTypeEntry, ...] = field("Its types")


@attrs.frozen(kw_only=True)
class SwiftTypes:
    total: int = field("Distinct types over every category", minimum=0)
    categories: Mapping[str, SwiftCategory] = field("classes, structs, enums, protocols, extensions, other")
    slice: str | None = field("Our extra: the universal slice read (null for a thin file)")
    limitations: tuple[str, ...] = field("What this reading did not cover")


# ------------------------------------------------------------------ dispatch metadata (6.x objcSwiftMetadata)


@attrs.frozen(kw_only=True)
class Location:
    address: str | None = field("Virtual address", pattern=HEX)
    file_offset: int | None = field("File offset in the slice", minimum=0)


@attrs.frozen(kw_only=True)
class MetadataEvidence:
    kind: Literal["binary_metadata", "interface_builder_resource", "symbol", "reference", "decompiler"] = field(
        "Where the fact comes from"
    )
    description: str = field("What was read", minLength=1)
    location: Location = field("Where")
    artifact_path: str | None = field("The file read")
    artifact_sha256: str | None = field("Its digest", pattern=SHA256)


@attrs.frozen(kw_only=True)
class ObjcMethod:
    selector: str = field("Selector")
    method_type: Literal["instance", "class", "ivar_getter", "ivar_setter"] = field("Instance or class method")
    address: int | None = field("Implementation address (a number, as the reference)", minimum=0)
    is_required: bool = field("Required by its protocol")
    is_optional: bool = field("Optional in its protocol")
    type_encoding: str | None = field("Our extra: the method's type encoding")


@attrs.frozen(kw_only=True)
class PropertyAttribute:
    name: str = field("Attribute letter (T, R, C, &, W, N, G, S, V, D)", minLength=1)
    value: str = field("Its value")
    is_weak: bool = field("W")
    is_atomic: bool = field("No N attribute")
    is_copy: bool = field("C")
    is_strong: bool = field("&")


@attrs.frozen(kw_only=True)
class ObjcProperty:
    name: str = field("Property name")
    type_encoding: str | None = field("T attribute")
    attributes: tuple[PropertyAttribute, ...] = field("Every attribute in order")
    is_readonly: bool = field("R attribute")
    getter: str | None = field("G attribute")
    setter: str | None = field("S attribute")

    # the reply has always sent the G and S facts before the attributes
    __wire__ = sent_in(("name", "type_encoding", "getter", "setter", "attributes", "is_readonly"))


@attrs.frozen(kw_only=True)
class ObjcClassRecord:
    name: str = field("Class name")
    super_class: str | None = field("Superclass name")
    is_meta_class: bool = field("Always false: metaclass methods are folded in as class methods")
    is_root_class: bool = field("RO_ROOT")
    methods: tuple[ObjcMethod, ...] = field("Instance methods, then class methods")
    properties: tuple[ObjcProperty, ...] = field("baseProperties")
    protocols: tuple[str, ...] = field("baseProtocols names")
    ivar_count: int = field("Instance variables", minimum=0)
    instance_size: int | None = field("instanceSize", minimum=0)
    location: Location = field("The class_t")
    superclass_address: str | None = field("Local superclass address", pattern=HEX)
    metaclass_address: str | None = field("Metaclass address", pattern=HEX)
    superclass_chain: tuple[str, ...] = field("Our extra: names up the chain, nearest first")
    decode: Decode = field("Decode state")
    evidence: tuple[MetadataEvidence, ...] = field("Binary metadata read")


@attrs.frozen(kw_only=True)
class ObjcProtocolRow:
    name: str = field("Protocol name")
    methods: tuple[ObjcMethod, ...] = field("Required methods")
    optional_methods: tuple[ObjcMethod, ...] = field("Optional methods")
    properties: tuple[ObjcProperty, ...] = field("Properties")


@attrs.frozen(kw_only=True)
class ObjcProtocolRecord:
    name: str = field("Protocol name")
    adopted_protocols: tuple[str, ...] = field("Protocols it adopts")
    methods: tuple[ObjcMethod, ...] = field("Required methods")
    optional_methods: tuple[ObjcMethod, ...] = field("Optional methods")
    location: Location = field("The protocol_t")
    decode: Decode = field("Decode state")
    evidence: tuple[MetadataEvidence, ...] = field("Binary metadata read", minItems=1)


@attrs.frozen(kw_only=True)
class ObjcCategory:
    name: str = field("Category name", minLength=1)
    class_name: str | None = field("Extended class (external ones from the bind symbol)")
    class_source: Literal["local", "external", "unresolved"] = field("Where the class is")
    instance_methods: tuple[str, ...] = field("Instance selectors")
    class_methods: tuple[str, ...] = field("Class selectors")
    protocols: tuple[str, ...] = field("Protocols added")
    properties: tuple[ObjcProperty, ...] = field("Properties added")
    location: Location = field("The category_t")
    decode: Decode = field("Decode state")
    evidence: tuple[MetadataEvidence, ...] = field("Binary metadata read", minItems=1)


@attrs.frozen(kw_only=True)
class ObjcIvar:
    class_name: str = field("Owning class", minLength=1)
    name: str = field("Ivar name", minLength=1)
    type_encoding: str | None = field("Type encoding")
    offset: int | None = field("Offset read through the ivar offset slot", minimum=0)
    size: int | None = field("Size", minimum=0)
    alignment: int | None = field("Alignment in bytes", minimum=1)
    location: Location = field("The ivar_t")
    decode: Decode = field("Decode state")
    evidence: tuple[MetadataEvidence, ...] = field("Binary metadata read", minItems=1)


@attrs.frozen(kw_only=True)
class ObjcImplementation:
    class_name: str = field("Class", minLength=1)
    selector: str = field("Selector", minLength=1)
    method_type: Literal["instance", "class"] = field("Instance or class method")
    implementation_address: str | None = field("IMP", pattern=HEX)
    category: str | None = field("Category adding it, null for the class's own methods")
    location: Location = field("The method entry")
    decode: Decode = field("Decode state")
    evidence: tuple[MetadataEvidence, ...] = field("Binary metadata read", minItems=1)


@attrs.frozen(kw_only=True)
class SwiftDecl:
    kind: Literal["class", "struct", "enum", "protocol", "extension", "actor", "global_var", "global_func"] = field(
        "Declaration kind"
    )
    name: str = field("Module-qualified name", minLength=1)
    module: str | None = field("Module")
    access_level: Literal["private", "fileprivate", "internal", "public", "open"] = field(
        "Not recorded in type metadata: always the schema default internal (see access_level_recorded)"
    )
    access_level_recorded: bool = field("Our extra: false, access_level is the default, not a read fact")
    super_class: str | None = field("Not decoded: null")
    protocols: tuple[str, ...] = field("Not decoded: empty")
    is_final: bool = field("Not decoded: false")
    is_required: bool = field("Not decoded: false")
    is_convenience_init: bool = field("Not decoded: false")
    is_override: bool = field("Not decoded: false")
    location: Location = field("Our extra: the context descriptor")


@attrs.frozen(kw_only=True)
class SwiftSymbol:
    mangled_name: str = field("Swift-mangled symbol", minLength=1)
    address: str = field("Its address", minLength=1)
    decode: Decode = field("Not demangled")
    evidence: tuple[MetadataEvidence, ...] = field("Symbol table", minItems=1)


@attrs.frozen(kw_only=True)
class SwiftConformance:
    type_name: str = field("Conforming type", minLength=1)
    protocol_name: str = field("Protocol", minLength=1)
    module: str | None = field("Module")
    witness_table: Location = field("Witness table")
    location: Location = field("Conformance descriptor")
    decode: Decode = field("Decode state")
    evidence: tuple[MetadataEvidence, ...] = field("Binary metadata read", minItems=1)


@attrs.frozen(kw_only=True)
class SwiftDispatchSlot:
    owner: str = field("Owning type or conformance", minLength=1)
    table_kind: Literal["witness_table", "class_vtable"] = field("Table")
    slot_index: int = field("Slot", minimum=0)
    requirement: str | None = field("Requirement")
    implementation: str | None = field("Implementation symbol")
    implementation_address: str | None = field("Implementation address")
    thunk_address: str | None = field("Thunk address")
    location: Location = field("Slot")
    decode: Decode = field("Decode state")
    evidence: tuple[MetadataEvidence, ...] = field("Binary metadata read", minItems=1)


@attrs.frozen(kw_only=True)
class RelativePointer:
    field_location: Location = field("The pointer field", key="field")
    target: Location = field("Its target")
    displacement: int = field("Signed displacement")
    indirectable: bool = field("Indirectable")
    indirect: bool | None = field("Indirect")
    decode: Decode = field("Decode state")
    evidence: tuple[MetadataEvidence, ...] = field("Binary metadata read", minItems=1)


@attrs.frozen(kw_only=True)
class FacetCoverage:
    facet: str = field("Facet", minLength=1)
    status: Literal["complete", "partial", "unsupported", "not_requested"] = field("Coverage")
    reason: str | None = field("Why it is not complete")
    examined: int = field("Records examined", minimum=0)
    decoded: int = field("Records decoded", minimum=0)


@attrs.frozen(kw_only=True)
class DispatchMetadata:
    objc_classes: tuple[ObjcClassRecord, ...] = field("Classes")
    objc_protocols: tuple[ObjcProtocolRow, ...] = field("Protocols")
    objc_categories: tuple[ObjcCategory, ...] = field("Categories")
    swift_decls: tuple[SwiftDecl, ...] = field("Swift type and protocol descriptors")
    objc_ivars: tuple[ObjcIvar, ...] = field("Instance variables")
    objc_protocol_records: tuple[ObjcProtocolRecord, ...] = field("Protocol declarations")
    objc_dispatch_implementations: tuple[ObjcImplementation, ...] = field("Selector implementations")
    swift_conformances: tuple[SwiftConformance, ...] = field("Not decoded (coverage says so): empty", maxItems=0)
    swift_dispatch_slots: tuple[SwiftDispatchSlot, ...] = field("Not decoded (coverage says so): empty", maxItems=0)
    swift_symbols: tuple[SwiftSymbol, ...] = field("Swift-mangled symbols of the symbol table")
    relative_pointers: tuple[RelativePointer, ...] = field("Not reported: empty", maxItems=0)
    coverage: tuple[FacetCoverage, ...] = field("Per-facet coverage; empty arrays mean something only with it")
    db_save_result: None = field("No analysis database: null")


@attrs.frozen(kw_only=True)
class ProviderRow:
    id: str = field("Provider id", minLength=1)
    name: str = field("Provider name", minLength=1)
    version: str | None = field("Provider version")


@attrs.frozen(kw_only=True)
class DispatchMetadataResult:
    target_sha256: str | None = field("Digest of the file read", pattern=SHA256)
    provider: ProviderRow = field("The reader")
    analysis_profile_digest: str | None = field("No analysis profile: null")
    result: DispatchMetadata = field("The metadata")
    slice: str | None = field("Our extra: the universal slice read (null for a thin file)")
    limitations: tuple[str, ...] = field("Our extra: what this reading did not cover")
