"""The four tools' results from the decoded records: projections, filters and coverage. Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rea.apple_metadata import objc, swift
from rea.apple_metadata.image import MachImage

PROVIDER = {"id": "rea-apple-metadata", "name": "REA Mach-O Objective-C/Swift metadata reader", "version": "1"}
SWIFT_PREFIXES = ("_$s", "$s", "_$S", "$S", "_T0", "__T", "_Tt")
CATEGORY_ORDER = ("classes", "structs", "enums", "protocols", "extensions", "other")
MAX_RECORDS = 20_000


def _hex(addr: int | None) -> str | None:
    return None if addr is None else f"0x{addr:x}"


def _decode(record: Mapping[str, Any]) -> dict[str, Any]:
    if "error" in record:
        return {"status": "invalid", "reason": record["error"]}
    if record.get("chain_problem"):
        return {"status": "partial", "reason": record["chain_problem"]}
    return {"status": "decoded", "reason": None}


def _limitations(image: MachImage) -> list[str]:
    notes = []
    if not image.is64:
        notes.append("32-bit Objective-C and Swift metadata layouts are not decoded; lists read as empty")
    if image.chained_format is not None and image.chained_format not in (2, 6, 1, 9, 12):
        notes.append(f"chained-fixup pointer format {image.chained_format} is not decoded; its pointers read raw")
    return notes


class Reading:
    """One decoding of an image's metadata lists, shared by the four projections."""

    def __init__(self, image: MachImage, facts: Mapping[str, Any], limit: int = MAX_RECORDS) -> None:
        self.image = image
        self.facts = facts
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
            ("__swift5_types", self.swift["types_listed"]),
            ("__swift5_protos", self.swift["protocols_listed"]),
        )
        for name, listed in lists:
            if listed > bound:
                self.limitations.append(f"{name} lists {listed} entries; the first {bound} were read")
        for record in (
            *self.classes,
            *self.protocols,
            *self.categories,
            *self.swift["types"],
            *self.swift["protocols"],
        ):
            if "error" in record:
                self.limitations.append(f"a record did not decode: {record['error']}")

    def envelope(self) -> dict[str, Any]:
        return {"slice": self.facts.get("slice"), "limitations": list(dict.fromkeys(self.limitations))}


def objc_classes(reading: Reading, pattern: str) -> dict[str, Any]:
    rows = []
    for record in reading.classes:
        name = record.get("name", "")
        if pattern and pattern not in name:
            continue
        rows.append(
            {
                "address": _hex(record["address"]) or "0x0",
                "name": name,
                "super_class": record.get("super_class"),
                "metaclass_address": _hex(record.get("metaclass_address")),
                "instance_size": record.get("instance_size"),
                "method_count": len(record.get("methods", [])),
                "swift": record.get("swift", False),
                "file_offset": None if record["address"] is None else reading.image.offset_or_none(record["address"]),
                "decode": _decode(record),
            }
        )
    decoded = sum(1 for r in reading.classes if "error" not in r and not r.get("chain_problem"))
    coverage = {
        "listed": reading.classes_listed,
        "examined": len(reading.classes),
        "decoded": decoded,
        "invalid": sum(1 for r in reading.classes if "error" in r),
    }
    return {"count": len(rows), "classes": rows, "coverage": coverage, **reading.envelope()}


def objc_protocols(reading: Reading) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    sources = [("objc", r) for r in reading.protocols] + [("swift", r) for r in reading.swift["protocols"]]
    for source, record in sources:
        name = record.get("qualified_name") or record.get("name", "")
        if name and name in seen:
            continue
        seen.add(name)
        addr = record.get("address")
        rows.append(
            {
                "address": _hex(addr) or "0x0",
                "name": name,
                "source": source,
                "file_offset": None if addr is None else reading.image.offset_or_none(addr),
                "decode": _decode(record),
            }
        )
    return {"count": len(rows), "protocols": rows, **reading.envelope()}


def _swift_entry(reading: Reading, record: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "address": _hex(record["address"]) or "0x0",
        "name": record["qualified_name"],
        "kind": record["kind"],
        "module": record["module"],
        "generic": record["generic"],
        "file_offset": reading.image.offset_or_none(record["address"]),
    }


def swift_types(reading: Reading, category: str | None, pattern: str | None) -> dict[str, Any]:
    groups: dict[str, list[dict[str, Any]]] = {name: [] for name in CATEGORY_ORDER}
    seen: set[int] = set()
    for record in (*reading.swift["types"], *reading.swift["protocols"]):
        if "error" in record or record["address"] in seen:
            continue
        group = "extensions" if record["nested_in_extension"] else swift.CATEGORY.get(record["kind"], "other")
        if category is not None and group != category:
            continue
        if pattern is not None and pattern not in record["qualified_name"]:
            continue
        seen.add(record["address"])
        groups[group].append(_swift_entry(reading, record))
    categories = {name: {"count": len(items), "items": items} for name, items in groups.items()}
    return {"total": len(seen), "categories": categories, **reading.envelope()}
