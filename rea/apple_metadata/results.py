"""The four tools' results from the decoded records: projections, filters and coverage. Pure."""

from __future__ import annotations

from rea.apple_metadata import objc, swift
from rea.apple_metadata.decoded import (
    RawCategory,
    RawClass,
    RawProtocol,
    SwiftDescriptor,
    Undecoded,
    problem,
)
from rea.apple_metadata.image import MachImage
from rea.apple_metadata.records import (
    Coverage,
    Decode,
    ObjcClassEntry,
    ObjcClasses,
    ObjcProtocols,
    ProtocolEntry,
    ProviderRow,
    SwiftCategory,
    SwiftTypeEntry,
    SwiftTypes,
)

PROVIDER = ProviderRow(id="rea-apple-metadata", name="REA Mach-O Objective-C/Swift metadata reader", version="1")
SWIFT_PREFIXES = ("_$s", "$s", "_$S", "$S", "_T0", "__T", "_Tt")
CATEGORY_ORDER = ("classes", "structs", "enums", "protocols", "extensions", "other")
MAX_RECORDS = 20_000


def _hex(addr: int | None) -> str | None:
    return None if addr is None else f"0x{addr:x}"


def _decode(record: object) -> Decode:
    if isinstance(record, Undecoded):
        return Decode(status="invalid", reason=record.error)
    reason = problem(record)
    if reason:
        return Decode(status="partial", reason=reason)
    return Decode(status="decoded", reason=None)


def _limitations(image: MachImage) -> list[str]:
    notes = []
    if not image.is64:
        notes.append("32-bit Objective-C and Swift metadata layouts are not decoded; lists read as empty")
    if image.chained_format is not None and image.chained_format not in (2, 6, 1, 9, 12):
        notes.append(f"chained-fixup pointer format {image.chained_format} is not decoded; its pointers read raw")
    return notes


class Reading:
    """One decoding of an image's metadata lists, shared by the four projections."""

    def __init__(self, image: MachImage, slice_name: str | None, limit: int = MAX_RECORDS) -> None:
        self.image = image
        self.slice = slice_name
        self.limit = limit
        bound = limit if image.is64 else 0  # 32-bit layouts are listed, not decoded
        self.classes, self.classes_listed = objc.read_all(image, "__objc_classlist", objc.read_class, bound)
        self.protocols, self.protocols_listed = objc.read_all(image, "__objc_protolist", objc.read_protocol, bound)
        self.categories, self.categories_listed = objc.read_all(image, "__objc_catlist", objc.read_category, bound)
        self.swift = swift.read_swift(image, bound)
        self.limitations = _limitations(image)
        lists: tuple[tuple[str, int], ...] = (
            ("__objc_classlist", self.classes_listed),
            ("__objc_protolist", self.protocols_listed),
            ("__objc_catlist", self.categories_listed),
            ("__swift5_types", self.swift.types_listed),
            ("__swift5_protos", self.swift.protocols_listed),
        )
        for name, listed in lists:
            if listed > bound:
                self.limitations.append(f"{name} lists {listed} entries; the first {bound} were read")
        records: tuple[object, ...] = (
            *self.classes,
            *self.protocols,
            *self.categories,
            *self.swift.types,
            *self.swift.protocols,
        )
        for record in records:
            if isinstance(record, Undecoded):
                self.limitations.append(f"a record did not decode: {record.error}")

    def notes(self) -> tuple[str, ...]:
        """The limitations, each once, in the order they were found."""
        return tuple(dict.fromkeys(self.limitations))

    def decoded_classes(self) -> list[RawClass]:
        return [c for c in self.classes if isinstance(c, RawClass)]

    def decoded_protocols(self) -> list[RawProtocol]:
        return [p for p in self.protocols if isinstance(p, RawProtocol)]

    def decoded_categories(self) -> list[RawCategory]:
        return [k for k in self.categories if isinstance(k, RawCategory)]


def _class_entry(reading: Reading, record: RawClass | Undecoded) -> ObjcClassEntry:
    address = record.address
    decoded = record if isinstance(record, RawClass) else None
    return ObjcClassEntry(
        address=_hex(address) or "0x0",
        name=decoded.name if decoded else "",
        super_class=decoded.super_class if decoded else None,
        metaclass_address=_hex(decoded.metaclass_address) if decoded else None,
        instance_size=decoded.instance_size if decoded else None,
        method_count=len(decoded.methods) if decoded else 0,
        swift=decoded.swift if decoded else False,
        file_offset=None if address is None else reading.image.offset_or_none(address),
        decode=_decode(record),
    )


def objc_classes(reading: Reading, pattern: str) -> ObjcClasses:
    rows = []
    for record in reading.classes:
        name = record.name if isinstance(record, RawClass) else ""
        if pattern and pattern not in name:
            continue
        rows.append(_class_entry(reading, record))
    decoded = sum(1 for r in reading.classes if isinstance(r, RawClass) and not r.chain_problem)
    coverage = Coverage(
        listed=reading.classes_listed,
        examined=len(reading.classes),
        decoded=decoded,
        invalid=sum(1 for r in reading.classes if isinstance(r, Undecoded)),
    )
    return ObjcClasses(
        count=len(rows),
        classes=tuple(rows),
        coverage=coverage,
        slice=reading.slice,
        limitations=reading.notes(),
    )


def _protocol_name(record: RawProtocol | SwiftDescriptor | Undecoded) -> str:
    if isinstance(record, SwiftDescriptor):
        return record.qualified_name or record.name
    return record.name if isinstance(record, RawProtocol) else ""


def objc_protocols(reading: Reading) -> ObjcProtocols:
    rows: list[ProtocolEntry] = []
    seen: set[str] = set()
    sources: list[tuple[str, RawProtocol | SwiftDescriptor | Undecoded]] = [("objc", r) for r in reading.protocols] + [
        ("swift", r) for r in reading.swift.protocols
    ]
    for source, record in sources:
        name = _protocol_name(record)
        if name and name in seen:
            continue
        seen.add(name)
        addr = record.address
        rows.append(
            ProtocolEntry(
                address=_hex(addr) or "0x0",
                name=name,
                source="objc" if source == "objc" else "swift",
                file_offset=None if addr is None else reading.image.offset_or_none(addr),
                decode=_decode(record),
            )
        )
    return ObjcProtocols(count=len(rows), protocols=tuple(rows), slice=reading.slice, limitations=reading.notes())


def _swift_entry(reading: Reading, record: SwiftDescriptor) -> SwiftTypeEntry:
    return SwiftTypeEntry(
        address=_hex(record.address) or "0x0",
        name=record.qualified_name,
        kind=record.kind,
        module=record.module,
        generic=record.generic,
        file_offset=reading.image.offset_or_none(record.address),
    )


def swift_types(reading: Reading, category: str | None, pattern: str | None) -> SwiftTypes:
    groups: dict[str, list[SwiftTypeEntry]] = {name: [] for name in CATEGORY_ORDER}
    seen: set[int] = set()
    for record in (*reading.swift.types, *reading.swift.protocols):
        if not isinstance(record, SwiftDescriptor) or record.address in seen:
            continue
        group = "extensions" if record.nested_in_extension else swift.CATEGORY.get(record.kind, "other")
        if category is not None and group != category:
            continue
        if pattern is not None and pattern not in record.qualified_name:
            continue
        seen.add(record.address)
        groups[group].append(_swift_entry(reading, record))
    categories = {name: SwiftCategory(count=len(items), items=tuple(items)) for name, items in groups.items()}
    return SwiftTypes(total=len(seen), categories=categories, slice=reading.slice, limitations=reading.notes())
