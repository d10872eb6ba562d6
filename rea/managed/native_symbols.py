"""Exported names read from native-family Evidence, one reader per operation (a table).

An ELF shared object's exports are its `.dynsym` definitions that the dynamic linker can bind:
global, weak or unique binding, default or protected visibility, a defining section (nm -D
--defined-only lists the same). Mach-O exports come from inspect_macho's export rows, a function
dossier names one procedure. Anything else is unsupported, never guessed at.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from rea.managed.records import verification as w

Json = Mapping[str, Any]

_BOUND = {"STB_GLOBAL", "STB_WEAK", "STB_GNU_UNIQUE", "STB_LOOS"}
_VISIBLE = {"STV_DEFAULT", "STV_PROTECTED"}
_NOT_CODE_OR_DATA = {"STT_SECTION", "STT_FILE"}
_UNDEFINED = {0, "0", "SHN_UNDEF", "UNDEF"}


@attrs.frozen(kw_only=True)
class Extracted:
    supported: bool
    symbols: tuple[w.NativeSymbol, ...]
    exhaustive: bool


def _symbol(evidence: Json, name: str, address: str | None, source: w.SymbolSource) -> w.NativeSymbol:
    subject = evidence.get("subject") or {}
    return w.NativeSymbol(
        evidence_id=evidence["evidence_id"],
        operation=evidence["operation"],
        name=name,
        address=address,
        module_name=subject.get("name"),
        module_path=subject.get("local_path"),
        source=source,
    )


def _dynsym_tables(result: Json) -> set[int]:
    return {s.get("index") for s in result.get("sections") or () if s.get("type") == "SHT_DYNSYM"}


def _elf_exported(row: Json, tables: set[int]) -> bool:
    return (
        (not tables or row.get("table_index") in tables)
        and row.get("binding") in _BOUND
        and row.get("visibility", "STV_DEFAULT") in _VISIBLE
        and row.get("type") not in _NOT_CODE_OR_DATA
        and row.get("section_index") not in _UNDEFINED
        and bool((row.get("name") or {}).get("display"))
    )


def _layout(evidence: Json) -> Extracted:
    result = evidence.get("normalized_result") or {}
    if result.get("format") != "elf" or not isinstance(result.get("symbols"), list):
        return Extracted(supported=False, symbols=(), exhaustive=False)
    tables = _dynsym_tables(result)
    seen: dict[str, w.NativeSymbol] = {}
    for row in result["symbols"]:
        if _elf_exported(row, tables):
            name = row["name"]["display"]
            seen.setdefault(name, _symbol(evidence, name, row.get("value"), "elf-export"))
    counted = (result.get("coverage") or {}).get("symbols") or {}
    return Extracted(supported=True, symbols=tuple(seen.values()), exhaustive=bool(counted.get("exhaustive", True)))


def _macho(evidence: Json) -> Extracted:
    exports = (evidence.get("normalized_result") or {}).get("exports")
    if not isinstance(exports, Mapping):
        return Extracted(supported=False, symbols=(), exhaustive=False)
    symbols = tuple(
        _symbol(evidence, row["name"], row.get("address"), "macho-export")
        for row in exports.get("items") or ()
        if row.get("name")
    )
    return Extracted(supported=True, symbols=symbols, exhaustive=bool(exports.get("exhaustive", True)))


def _dossier(evidence: Json) -> Extracted:
    procedure = (evidence.get("normalized_result") or {}).get("procedure")
    if not isinstance(procedure, Mapping) or not procedure.get("name"):
        return Extracted(supported=False, symbols=(), exhaustive=False)
    found = _symbol(evidence, procedure["name"], procedure.get("address"), "function-dossier")
    return Extracted(supported=True, symbols=(found,), exhaustive=True)


READERS: Mapping[str, Callable[[Json], Extracted]] = {
    "inspect_binary_layout": _layout,
    "inspect_macho": _macho,
    "analyze_function": _dossier,
}


def extract(evidence: Json) -> Extracted:
    reader = READERS.get(evidence.get("operation", ""))
    return reader(evidence) if reader else Extracted(supported=False, symbols=(), exhaustive=False)


def supported_operations() -> Sequence[str]:
    return sorted(READERS)
