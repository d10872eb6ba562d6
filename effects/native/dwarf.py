"""DWARF type facts of the target through pyelftools: one named type (or the type of the variable at
an address), its size, members, bitfields and enumerators. Facts only; absence is reported, not guessed."""

from __future__ import annotations

from typing import Any

import anyio
from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile
from returns.result import Failure, Result, Success

from effects.progress import Progress
from rea.errors import ReaError
from rea.native.effects import ReadDwarfType

KINDS = {
    "DW_TAG_structure_type": "struct",
    "DW_TAG_union_type": "union",
    "DW_TAG_enumeration_type": "enum",
    "DW_TAG_pointer_type": "pointer",
    "DW_TAG_array_type": "array",
    "DW_TAG_typedef": "typedef",
    "DW_TAG_base_type": "scalar",
    "DW_TAG_const_type": "qualifier",
    "DW_TAG_volatile_type": "qualifier",
    "DW_TAG_subroutine_type": "function",
}
MAX_DIES = 2_000_000


def _name(die: Any) -> str | None:
    attr = die.attributes.get("DW_AT_name")
    return attr.value.decode("utf-8", "replace") if attr is not None else None


def _int(die: Any, key: str) -> int | None:
    attr = die.attributes.get(key)
    return attr.value if attr is not None and isinstance(attr.value, int) else None


def _ref(die: Any) -> Any:
    return die.get_DIE_from_attribute("DW_AT_type") if "DW_AT_type" in die.attributes else None


def _type_name(die: Any, depth: int = 0) -> str:
    if die is None:
        return "void"
    name = _name(die)
    if name:
        return name
    inner = _type_name(_ref(die), depth + 1) if depth < 16 else "?"
    suffix = {"DW_TAG_pointer_type": " *", "DW_TAG_const_type": " const", "DW_TAG_array_type": "[]"}
    return inner + suffix.get(die.tag, "")


def _id(die: Any) -> str:
    return f"dwarf:0x{die.offset:x}"


def _facts(die: Any) -> dict[str, Any]:
    members, enumerators = [], []
    for child in die.iter_children():
        if child.tag == "DW_TAG_member":
            offset = _int(child, "DW_AT_data_member_location")
            members.append(
                {
                    "name": _name(child),
                    "offset": offset,
                    "type": _type_name(_ref(child)),
                    "type_id": _id(_ref(child)) if _ref(child) is not None else None,
                    "bit_size": _int(child, "DW_AT_bit_size"),
                    "bit_offset": _int(child, "DW_AT_data_bit_offset"),
                }
            )
        elif child.tag == "DW_TAG_enumerator":
            enumerators.append({"name": _name(child), "value": _int(child, "DW_AT_const_value")})
    target = _ref(die)
    return {
        "id": _id(die),
        "name": _name(die) or _type_name(die),
        "kind": KINDS.get(die.tag, "other"),
        "size": _int(die, "DW_AT_byte_size"),
        "alignment": _int(die, "DW_AT_alignment"),
        "members": members,
        "enumerators": enumerators,
        "child_type_ids": [_id(target)] if target is not None else [],
    }


def _variable_at(die: Any, address: int) -> bool:
    loc = die.attributes.get("DW_AT_location")
    if die.tag != "DW_TAG_variable" or loc is None or not isinstance(loc.value, list) or len(loc.value) != 9:
        return False
    return loc.value[0] == 0x03 and int.from_bytes(bytes(loc.value[1:]), "little") == address  # DW_OP_addr


def _lookup(effect: ReadDwarfType) -> dict[str, Any]:
    with open(effect.path, "rb") as handle:
        elf = ELFFile(handle)
        if elf.get_section_by_name(".debug_info") is None:  # has_dwarf_info() also counts .eh_frame
            return {"status": "unavailable", "reason": "the binary carries no DWARF debug information"}
        seen = 0
        for unit in elf.get_dwarf_info().iter_CUs():
            for die in unit.iter_DIEs():
                seen += 1
                if seen > MAX_DIES:
                    return {"status": "unavailable", "reason": f"more than {MAX_DIES} DWARF entries: not searched"}
                if effect.type is not None and die.tag in KINDS and _name(die) == effect.type:
                    if die.attributes.get("DW_AT_declaration") is None:
                        return {"status": "found", **_facts(die)}
                if effect.address is not None and _variable_at(die, effect.address):
                    found = _ref(die)
                    if found is not None:
                        return {"status": "found", "variable": _name(die), **_facts(found)}
        what = effect.type if effect.type is not None else f"a variable at 0x{effect.address:x}"
        return {"status": "not-found", "reason": f"no DWARF type entry for {what}"}


def guarded(effect: ReadDwarfType) -> Result[dict[str, Any], ReaError]:
    """_lookup, with whatever a damaged file makes pyelftools raise turned into a canonical error."""
    try:
        return Success(_lookup(effect))
    except ELFError:
        return Success({"status": "unavailable", "reason": "not an ELF file: DWARF is read from ELF targets"})
    except Exception as exc:  # pyelftools and construct raise many types on damaged sections  # noqa: BLE001
        return Failure(
            ReaError(
                code="target_unavailable",
                message=f"The target's DWARF cannot be read: {type(exc).__name__}: {exc}",
                details={"reason": "unreadable_dwarf"},
                action="Check that the file is a complete ELF with intact debug sections.",
            )
        )


async def _read(effect: ReadDwarfType, progress: Progress) -> Result[Any, ReaError]:
    return await anyio.to_thread.run_sync(guarded, effect)


HANDLERS = {ReadDwarfType: _read}
