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

from rea.evidence import Evidence
from rea.managed.records import verification as w

_BOUND = {"STB_GLOBAL", "STB_WEAK", "STB_GNU_UNIQUE", "STB_LOOS"}
_VISIBLE = {"STV_DEFAULT", "STV_PROTECTED"}
_NOT_CODE_OR_DATA = {"STT_SECTION", "STT_FILE"}
_UNDEFINED = {0, "0", "SHN_UNDEF", "UNDEF"}


@attrs.frozen(kw_only=True)
class Extracted:
    supported: bool
    symbols: tuple[w.NativeSymbol, ...]
    exhaustive: bool


def _symbol(evidence: Evidence, name: str, address: str | None, source: w.SymbolSource) -> w.NativeSymbol:
    subject = evidence.subject
    return w.NativeSymbol(
        evidence_id=evidence.evidence_id,
        operation=evidence.operation,
        name=name,
        address=address,
        module_name=None if subject is None else subject.name,
        module_path=None if subject is None else subject.local_path,
        source=source,
    )


def _result(evidence: Evidence) -> Mapping[str, Any]:
    """The native record's normalized result: another family's JSON, read leniently (a key it lacks reads as
    absent, as an older or partial record may), never structured strictly here."""
    result = evidence.normalized_result
    return result if isinstance(result, Mapping) else {}


def _dynsym_tables(result: Mapping[str, Any]) -> set[int]:
    return {s.get("index") for s in result.get("sections") or () if s.get("type") == "SHT_DYNSYM"}


def _elf_exported(row: Mapping[str, Any], tables: set[int]) -> bool:
    return (
        (not tables or row.get("table_index") in tables)
        and row.get("binding") in _BOUND
        and row.get("visibility", "STV_DEFAULT") in _VISIBLE
        and row.get("type") not in _NOT_CODE_OR_DATA
        and row.get("section_index") not in _UNDEFINED
        and bool((row.get("name") or {}).get("display"))
    )


def _layout(evidence: Evidence) -> Extracted:
    result = _result(evidence)
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


def _macho(evidence: Evidence) -> Extracted:
    exports = _result(evidence).get("exports")
    if not isinstance(exports, Mapping):
        return Extracted(supported=False, symbols=(), exhaustive=False)
    symbols = tuple(
        _symbol(evidence, row["name"], row.get("address"), "macho-export")
        for row in exports.get("items") or ()
        if row.get("name")
    )
    return Extracted(supported=True, symbols=symbols, exhaustive=bool(exports.get("exhaustive", True)))


def _dossier(evidence: Evidence) -> Extracted:
    procedure = _result(evidence).get("procedure")
    if not isinstance(procedure, Mapping) or not procedure.get("name"):
        return Extracted(supported=False, symbols=(), exhaustive=False)
    found = _symbol(evidence, procedure["name"], procedure.get("address"), "function-dossier")
    return Extracted(supported=True, symbols=(found,), exhaustive=True)


READERS: Mapping[str, Callable[[Evidence], Extracted]] = {
    "inspect_binary_layout": _layout,
    "inspect_macho": _macho,
    "analyze_function": _dossier,
}


def extract(evidence: Evidence) -> Extracted:
    reader = READERS.get(evidence.operation)
    return reader(evidence) if reader else Extracted(supported=False, symbols=(), exhaustive=False)


def supported_operations() -> Sequence[str]:
    return sorted(READERS)
