"""Which slice of a universal (fat) Mach-O open_binary analyses: the caller's selector, else the host-preferred one.

Pure: the checked universal header's rows (cputype, cpusubtype, offset, size, align) in, the choice out.
The choice travels in the analysis profile's loader options, so every cache entry, annotation store and
Evidence digest is per slice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request
from rea.layout.macho_names import arch_name
from rea.session import machine_architecture

# What a default REA host runs natively first; a universal binary without either opens its first slice.
PREFERRED = ("x86_64", "arm64")


def slice_rows(slices: Sequence[Mapping[str, Any]], chosen: int | None) -> list[dict[str, Any]]:
    """Every slice in header order, named as lipo names it, the chosen one marked."""
    return [
        {
            "index": i,
            "architecture": arch_name(s["cputype"], s["cpusubtype"]),
            "cputype": s["cputype"],
            "cpusubtype": s["cpusubtype"],
            "offset": s["offset"],
            "size": s["size"],
            "selected": i == chosen,
        }
        for i, s in enumerate(slices)
    ]


def _default(names: Sequence[str]) -> int:
    return next((names.index(name) for name in PREFERRED if name in names), 0)


def choose_slice(slices: Sequence[Mapping[str, Any]], requested: str | None) -> Result[dict[str, Any], ReaError]:
    """{index, selection (request|default), rows}; an unknown selector names every accepted one."""
    names = [arch_name(s["cputype"], s["cpusubtype"]) for s in slices]
    if not names:
        return Failure(invalid_request("the universal binary declares no slices", field="path", accepted="a slice"))
    if requested is None:
        index, selection = _default(names), "default"
    elif requested in names:
        index, selection = names.index(requested), "request"
    else:
        return Failure(
            invalid_request(
                f"open_binary: the universal binary has no {requested} slice (it holds {', '.join(names)})",
                field="architecture",
                accepted="one of: " + ", ".join(names),
                reason="no-slice",
                available=names,
            )
        )
    return Success({"index": index, "selection": selection, "rows": slice_rows(slices, index)})


def subject_architecture(row: Mapping[str, Any]) -> str | None:
    """The chosen slice's architecture in the subject vocabulary (x86, x86_64, arm, arm64)."""
    return machine_architecture("mach-o", row["cputype"])


def loader_slice(row: Mapping[str, Any]) -> dict[str, Any]:
    """The loader option naming the slice: the bytes angr reads are [offset, offset + size) of the file."""
    return {"architecture": row["architecture"], "index": row["index"], "offset": row["offset"], "size": row["size"]}


def opened_slice(binding: Mapping[str, Any] | None) -> str | None:
    """The slice open_binary selected (as lipo names it), kept in the binding's loader options; None for a
    thin target or no binding. Slice-aware tools read it when the call names no architecture."""
    if binding is None:
        return None
    loader = ((binding.get("analysis_profile") or {}).get("parameters") or {}).get("loader") or {}
    chosen = loader.get("fat_slice")
    return str(chosen["architecture"]) if isinstance(chosen, Mapping) and chosen.get("architecture") else None


def thin_selector(requested: str, fmt: str, architecture: str | None) -> Result[str, ReaError]:
    """A selector on a target that is not universal must name its one architecture (which it then is)."""
    if requested == architecture:
        return Success(requested)
    accepted = f"{architecture} (the target's one architecture), or omit architecture" if architecture else None
    return Failure(
        invalid_request(
            f"open_binary: architecture {requested} selects a slice of a universal Mach-O; this {fmt} target is "
            f"{architecture or 'of no known architecture'}",
            field="architecture",
            accepted=accepted or "omit architecture: the target has no slices",
            reason="no-slice",
            available=[architecture] if architecture else [],
        )
    )
