"""Swift type and protocol context descriptors from __swift5_types and __swift5_protos.

Each list entry is a signed 32-bit offset relative to itself (low two bits: 0 a
direct reference, 1 an indirect one through a pointer slot). A context descriptor
starts with flags (kind in the low five bits) and a relative parent reference;
types, protocols and modules keep a relative name next. The parent chain gives the
module and the nesting path; it is walked with a visited set and a depth bound.
"""

from __future__ import annotations

from rea.apple_metadata.decoded import SwiftDescriptor, SwiftLists, Undecoded
from rea.apple_metadata.image import MachImage, OutsideImage

TEXT_SEGMENTS = ("__TEXT",)
KINDS = {
    0: "module",
    1: "extension",
    2: "anonymous",
    3: "protocol",
    4: "opaque_type",
    16: "class",
    17: "struct",
    18: "enum",
}
CATEGORY = {
    "class": "classes",
    "struct": "structs",
    "enum": "enums",
    "protocol": "protocols",
    "extension": "extensions",
}
NAMED = frozenset({0, 3, 16, 17, 18})
MAX_DEPTH = 32
MAX_ENTRIES = 65_536
GENERIC = 0x80


def _reference(image: MachImage, field: int, indirect_bit: bool) -> int | None:
    """A relative reference; with indirection, the low bit selects a pointer slot to read."""
    raw = image.i32(field)
    if raw == 0:
        return None
    target = field + (raw & ~1 if indirect_bit else raw)
    if indirect_bit and raw & 1:
        return image.target(target)
    return target


def _entries(image: MachImage, name: str) -> list[tuple[int, int | None]]:
    section = image.section(TEXT_SEGMENTS, name)
    if section is None:
        return []
    found = []
    for index in range(min(section.size // 4, MAX_ENTRIES)):
        field = section.addr + index * 4
        raw = image.i32(field)
        target = field + (raw & ~3)
        found.append((field, image.target(target) if raw & 3 == 1 else target))
    return found


def _context(image: MachImage, addr: int) -> tuple[str, str | None, int | None, int]:
    flags = image.u32(addr)
    kind = KINDS.get(flags & 0x1F, f"kind-{flags & 0x1F}")
    parent = _reference(image, addr + 4, True)
    name = None
    if flags & 0x1F in NAMED:
        target = image.relative(addr + 8)
        name = None if target is None else image.cstring(target)
    return kind, name, parent, flags


def read_descriptor(image: MachImage, addr: int) -> SwiftDescriptor:
    """A type or protocol descriptor with its module and parent path (a cycle or an over-deep chain said)."""
    kind, name, parent, flags = _context(image, addr)
    path: list[str] = []
    module = None
    problem = None
    seen = {addr}
    extension = False
    for _ in range(MAX_DEPTH):
        if parent is None:
            break
        if parent in seen:
            problem = f"cyclic parent chain at 0x{parent:x}"
            break
        seen.add(parent)
        parent_kind, parent_name, parent, _flags = _context(image, parent)
        if parent_kind == "module":
            module = parent_name
        elif parent_kind == "extension":
            extension = True
        elif parent_name is not None:
            path.insert(0, parent_name)
    else:
        problem = f"parent chain deeper than {MAX_DEPTH}"
    qualified = ".".join([p for p in (module, *path, name) if p])
    return SwiftDescriptor(
        address=addr,
        kind=kind,
        name=name or "",
        qualified_name=qualified,
        module=module,
        nested_in_extension=extension,
        generic=bool(flags & GENERIC),
        chain_problem=problem,
    )


def _read_list(image: MachImage, section: str, limit: int) -> tuple[tuple[SwiftDescriptor | Undecoded, ...], int]:
    """One list's descriptors up to `limit`, decoded or Undecoded, and how many entries it lists."""
    try:
        entries = _entries(image, section)
    except OutsideImage as problem:
        return (Undecoded(address=None, error=str(problem)),), 0
    records: list[SwiftDescriptor | Undecoded] = []
    for field, target in entries[:limit]:
        try:
            if target is None:
                raise OutsideImage(f"the {section} entry at 0x{field:x} is null")
            records.append(read_descriptor(image, target))
        except OutsideImage as problem:
            records.append(Undecoded(address=target, error=str(problem)))
    return tuple(records), len(entries)


def read_swift(image: MachImage, limit: int) -> SwiftLists:
    """Every type and protocol descriptor listed, up to `limit` each: decoded, or Undecoded (address, error)."""
    types, types_listed = _read_list(image, "__swift5_types", limit)
    protocols, protocols_listed = _read_list(image, "__swift5_protos", limit)
    return SwiftLists(types=types, types_listed=types_listed, protocols=protocols, protocols_listed=protocols_listed)
