"""Objective-C runtime metadata (64-bit) from __objc_classlist, __objc_protolist and __objc_catlist.

The layouts are the objc4 runtime's: class_t {isa, superclass, cache, vtable, data},
class_ro_t {flags, instanceStart, instanceSize, reserved, ivarLayout, name, baseMethods,
baseProtocols, ivars, weakIvarLayout, baseProperties}, method lists with 24-byte
absolute or 12-byte relative entries, protocol_t, category_t, ivar_t and property_t.
Each record decodes on its own: a pointer outside the image marks that record
`invalid` (with the address) and the others still decode. Superclass chains are
walked with a visited set, so a cycle is reported, never followed forever.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, TypeVar

import attrs

from rea.apple_metadata.decoded import MethodType, RawCategory, RawClass, RawIvar, RawMethod, RawProtocol, Undecoded
from rea.apple_metadata.image import MachImage, OutsideImage
from rea.apple_metadata.records import ObjcProperty, PropertyAttribute

DATA_SEGMENTS = ("__DATA", "__DATA_CONST", "__DATA_DIRTY")
RO_META, RO_ROOT = 0x1, 0x2
FAST_DATA_MASK = 0x0000_7FFF_FFFF_FFF8
SWIFT_BITS = 0x3
RELATIVE_METHODS, DIRECT_SELECTORS = 0x8000_0000, 0x4000_0000
MAX_LIST = 65_536
MAX_CHAIN = 64
T = TypeVar("T")
CLASS_PREFIXES = ("_OBJC_CLASS_$_", "OBJC_CLASS_$_", "_OBJC_METACLASS_$_", "OBJC_METACLASS_$_")


def _bound_name(symbol: str) -> str:
    for prefix in CLASS_PREFIXES:
        if symbol.startswith(prefix):
            return symbol[len(prefix) :]
    return symbol


def list_entries(image: MachImage, section: str) -> list[int]:
    """The pointer slots of a __DATA list section (8 bytes each)."""
    found = image.section(DATA_SEGMENTS, section)
    if found is None:
        return []
    return [found.addr + i * 8 for i in range(min(found.size // 8, MAX_LIST))]


def _string_at(image: MachImage, slot: int) -> str | None:
    target = image.target(slot)
    return None if target is None else image.cstring(target)


def method_list(image: MachImage, addr: int | None, kind: MethodType) -> tuple[RawMethod, ...]:
    """Every entry of a method_list_t: selector, type encoding, implementation address."""
    if addr is None:
        return ()
    header = image.u32(addr)
    count = image.u32(addr + 4)
    entsize = header & 0xFFFC
    if count > MAX_LIST or entsize == 0:
        raise OutsideImage(f"the method list at 0x{addr:x} claims {count} entries of {entsize} bytes")
    image.file_offset(addr + 8, max(1, count * entsize))
    methods = []
    for index in range(count):
        entry = addr + 8 + index * entsize
        if header & RELATIVE_METHODS:
            name_ref = image.relative(entry)
            selector = (
                None
                if name_ref is None
                else image.cstring(name_ref)
                if header & DIRECT_SELECTORS
                else _string_at(image, name_ref)
            )
            types = image.relative(entry + 4)
            imp = image.relative(entry + 8)
            encoding = None if types is None else image.cstring(types)
        else:
            selector = _string_at(image, entry)
            encoding = _string_at(image, entry + 8)
            imp = image.target(entry + 16)
        methods.append(RawMethod(selector=selector or "", types=encoding, imp=imp, method_type=kind, entry=entry))
    return tuple(methods)


def _protocol_names(image: MachImage, addr: int | None) -> tuple[str, ...]:
    """Names of a protocol_list_t's protocols (count is 64-bit)."""
    if addr is None:
        return ()
    count = image.u64(addr)
    if count > MAX_LIST:
        raise OutsideImage(f"the protocol list at 0x{addr:x} claims {count} entries")
    names = []
    for index in range(count):
        slot = addr + 8 + index * 8
        pointer = image.pointer(slot)
        if pointer.bound is not None:
            names.append(pointer.bound.removeprefix("__OBJC_PROTOCOL_$_").removeprefix("_OBJC_PROTOCOL_$_"))
        elif pointer.target is not None:
            names.append(_string_at(image, pointer.target + 8) or "")
    return tuple(names)


def _fixed_entries(image: MachImage, addr: int | None, minimum: int, what: str) -> list[int]:
    """Entry addresses of an {entsize, count} list (ivar_list_t, property_list_t), its extent checked."""
    if addr is None:
        return []
    entsize, count = image.u32(addr), image.u32(addr + 4)
    if count > MAX_LIST or entsize < minimum:
        raise OutsideImage(f"the {what} list at 0x{addr:x} claims {count} entries of {entsize} bytes")
    image.file_offset(addr + 8, max(1, count * entsize))
    return [addr + 8 + index * entsize for index in range(count)]


def ivars(image: MachImage, addr: int | None) -> tuple[RawIvar, ...]:
    found = []
    for entry in _fixed_entries(image, addr, 32, "ivar"):
        offset_slot = image.target(entry)
        alignment_raw, size = image.u32(entry + 24), image.u32(entry + 28)
        found.append(
            RawIvar(
                name=_string_at(image, entry + 8) or "",
                type_encoding=_string_at(image, entry + 16),
                offset=None if offset_slot is None else image.u32(offset_slot),
                size=size,
                alignment=1 << alignment_raw if alignment_raw < 32 else None,
                entry=entry,
            )
        )
    return tuple(found)


PROPERTY_FLAGS = {"R": "readonly", "C": "copy", "&": "strong", "W": "weak", "N": "nonatomic", "D": "dynamic"}


def property_attributes(name: str, text: str) -> ObjcProperty:
    """An @property attribute string (T type, R, C, &, W, N, G getter, S setter, V ivar) as facts."""
    parts = [(part[0], part[1:]) for part in text.split(",") if part]
    facts = {key: value for key, value in parts if key in ("T", "G", "S")}
    atomic = not any(key == "N" for key, _value in parts)
    return ObjcProperty(
        name=name,
        type_encoding=facts.get("T"),
        attributes=tuple(
            PropertyAttribute(
                name=key,
                value=value,
                is_weak=key == "W",
                is_atomic=atomic,
                is_copy=key == "C",
                is_strong=key == "&",
            )
            for key, value in parts
        ),
        is_readonly=any(key == "R" for key, _value in parts),
        getter=facts.get("G"),
        setter=facts.get("S"),
    )


def properties(image: MachImage, addr: int | None) -> tuple[ObjcProperty, ...]:
    return tuple(
        property_attributes(_string_at(image, entry) or "", _string_at(image, entry + 8) or "")
        for entry in _fixed_entries(image, addr, 16, "property")
    )


def _ro(image: MachImage, cls: int) -> tuple[int, bool]:
    """The class_ro_t address of a class_t, and whether the Swift bits are set."""
    bits = image.target(cls + 32)
    if bits is None:
        raise OutsideImage(f"the class at 0x{cls:x} has no class_ro_t")
    return bits & FAST_DATA_MASK, bool(bits & SWIFT_BITS)


def class_name(image: MachImage, cls: int) -> str:
    ro, _swift = _ro(image, cls)
    return _string_at(image, ro + 24) or ""


def superclass(image: MachImage, cls: int) -> tuple[str | None, int | None]:
    """The superclass's name and address: a bound external class by its symbol, a local one read."""
    pointer = image.pointer(cls + 8)
    if pointer.bound is not None:
        return _bound_name(pointer.bound), None
    if pointer.target is None:
        return None, None
    try:
        return class_name(image, pointer.target), pointer.target
    except OutsideImage:  # the class itself decodes; its superclass's name does not
        return None, pointer.target


def superclass_chain(image: MachImage, cls: int) -> tuple[list[str], str | None]:
    """Names up the local superclass chain, and why the walk stopped early (a cycle or the bound)."""
    names: list[str] = []
    seen = {cls}
    current = cls
    for _ in range(MAX_CHAIN):
        name, parent = superclass(image, current)
        if name is None and parent is not None:
            return names, f"the superclass at 0x{parent:x} does not decode inside the image"
        if name is not None:
            names.append(name)
        if parent is None:
            return names, None
        if parent in seen:
            return names, f"cyclic superclass chain at 0x{parent:x}"
        seen.add(parent)
        current = parent
    return names, f"superclass chain longer than {MAX_CHAIN}"


@attrs.frozen(kw_only=True)
class _ClassRo:
    """The class_ro_t fields a class reading uses (list pointers still unread)."""

    flags: int
    instance_size: int
    name: str
    methods: int | None
    protocols: int | None
    ivars: int | None
    properties: int | None
    swift: bool


def _class_ro(image: MachImage, cls: int) -> _ClassRo:
    ro, swift = _ro(image, cls)
    flags = image.u32(ro)
    return _ClassRo(
        flags=flags,
        instance_size=image.u32(ro + 8),
        name=_string_at(image, ro + 24) or "",
        methods=image.target(ro + 32),
        protocols=image.target(ro + 40),
        ivars=image.target(ro + 48),
        properties=image.target(ro + 64),
        swift=swift,
    )


def read_class(image: MachImage, cls: int) -> RawClass:
    """One class (and its metaclass's class methods); raises OutsideImage where it does not decode."""
    ro = _class_ro(image, cls)
    meta = image.target(cls)
    class_methods: tuple[RawMethod, ...] = ()
    if meta is not None:
        class_methods = method_list(image, _class_ro(image, meta).methods, "class")
    super_name, super_addr = superclass(image, cls)
    chain, chain_problem = superclass_chain(image, cls)
    return RawClass(
        address=cls,
        name=ro.name,
        super_class=super_name,
        superclass_address=super_addr,
        superclass_chain=tuple(chain),
        chain_problem=chain_problem,
        metaclass_address=meta,
        is_root_class=bool(ro.flags & RO_ROOT),
        instance_size=ro.instance_size,
        swift=ro.swift,
        methods=method_list(image, ro.methods, "instance") + class_methods,
        protocols=_protocol_names(image, ro.protocols),
        ivars=ivars(image, ro.ivars),
        properties=properties(image, ro.properties),
    )


def read_protocol(image: MachImage, proto: int) -> RawProtocol:
    lists = {
        "instance": image.target(proto + 24),
        "class": image.target(proto + 32),
        "optional_instance": image.target(proto + 40),
        "optional_class": image.target(proto + 48),
    }
    required = method_list(image, lists["instance"], "instance") + method_list(image, lists["class"], "class")
    optional = method_list(image, lists["optional_instance"], "instance") + method_list(
        image, lists["optional_class"], "class"
    )
    return RawProtocol(
        address=proto,
        name=_string_at(image, proto + 8) or "",
        adopted_protocols=_protocol_names(image, image.target(proto + 16)),
        methods=required,
        optional_methods=optional,
        properties=properties(image, image.target(proto + 56)),
    )


def read_category(image: MachImage, cat: int) -> RawCategory:
    pointer = image.pointer(cat + 8)
    source: Literal["local", "external", "unresolved"]
    if pointer.bound is not None:
        cls_name, source = _bound_name(pointer.bound), "external"
    elif pointer.target is not None:
        cls_name, source = class_name(image, pointer.target), "local"
    else:
        cls_name, source = None, "unresolved"
    return RawCategory(
        address=cat,
        name=_string_at(image, cat) or "",
        class_name=cls_name,
        class_source=source,
        instance_methods=method_list(image, image.target(cat + 16), "instance"),
        class_methods=method_list(image, image.target(cat + 24), "class"),
        protocols=_protocol_names(image, image.target(cat + 32)),
        properties=properties(image, image.target(cat + 40)),
    )


def read_all(
    image: MachImage, section: str, reader: Callable[[MachImage, int], T], limit: int
) -> tuple[tuple[T | Undecoded, ...], int]:
    """Every record a list section points at, up to `limit`: decoded ones, or Undecoded (address, error)."""
    slots = list_entries(image, section)
    records: list[T | Undecoded] = []
    for slot in slots[:limit]:
        target = None
        try:
            target = image.target(slot)
            if target is None:
                raise OutsideImage(f"the {section} slot at 0x{slot:x} is null or bound outside the image")
            records.append(reader(image, target))
        except OutsideImage as problem:
            records.append(Undecoded(address=target, slot=slot, error=str(problem)))
    return tuple(records), len(slots)
