"""list_architectures: the slices a Mach-O file holds (one row for a thin image), from checked header facts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rea.layout.macho_names import arch_name, cpu_subtype_name, cpu_type_name
from rea.layout.macho_records import ArchitectureList, ArchitectureRow, Architectures


def _row(s: Mapping[str, Any]) -> ArchitectureRow:
    return ArchitectureRow(
        name=arch_name(s["cputype"], s["cpusubtype"]),
        cpu_type=cpu_type_name(s["cputype"]),
        cpu_subtype=cpu_subtype_name(s["cputype"], s["cpusubtype"]),
        file_offset=s["offset"],
        size=s["size"],
        alignment=None if s["align"] is None else 1 << s["align"] if s["align"] < 64 else None,
        universal=s["universal"],
    )


def architectures_result(slices: Sequence[Mapping[str, Any]], universal: bool) -> Architectures:
    rows = tuple(_row(s) for s in slices)
    limitations = () if universal else ("A thin Mach-O holds one image: its row covers the whole file.",)
    notes = (
        "Read in process with lief and the checked universal header; no external command ran (provenance is empty).",
    )
    return Architectures(
        architectures=ArchitectureList(items=rows, total=len(rows), exhaustive=True, limitations=limitations),
        provenance=(),
        limitations=notes,
    )
