"""inspect_macho: reader facts into the reference's collections (items, total, exhaustive, limitations). Pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, get_args

from rea.layout.architectures import architectures_result
from rea.views.records.requests import MachoFacet
from rea.wire.convert import to_wire

# the facets of a macho view, less provenance (a list, not a collection)
COLLECTIONS = tuple(facet for facet in get_args(MachoFacet) if facet != "provenance")


def collection(items: Sequence[Any], total: int | None = None, why: str | None = None) -> dict[str, Any]:
    recorded = len(items) if total is None else total
    exhaustive = len(items) >= recorded
    limitations = [] if exhaustive or why is None else [why.format(missing=recorded - len(items), total=recorded)]
    return {"items": list(items), "total": recorded, "exhaustive": exhaustive, "limitations": limitations}


def macho_result(facts: Mapping[str, Any]) -> dict[str, Any]:
    slices = facts["slices"]
    arch = architectures_result(
        [{**s, "universal": True} for s in slices] if slices else [facts["thin"]], bool(slices)
    ).architectures
    cap = "{missing} of {total} symbols were not returned (max_symbols cap)."
    limitations = ["Read in process with lief; no external command ran (provenance is empty)."]
    for key in ("imports", "exports"):
        if len(facts[key]) < facts[f"{key}_total"]:
            limitations.append(f"{key}: {facts[f'{key}_total'] - len(facts[key])} not returned (max_symbols).")
    return {
        "format": "mach-o",
        "endian": facts["endian"],
        "word_size": facts["word_size"],
        "file_type": facts["file_type"],
        "flags": list(facts["flags"]),
        "uuid": facts["uuid"],
        "entrypoints": collection(facts["entrypoints"]),
        "architectures": to_wire(arch),  # the one typed collection until this result is built as records
        "build_metadata": collection(facts["build_metadata"]),
        "load_commands": collection(facts["load_commands"]),
        "dependencies": collection(facts["dependencies"]),
        "imports": collection(facts["imports"], facts["imports_total"], cap),
        "exports": collection(facts["exports"], facts["exports_total"], cap),
        "segments": collection(facts["segments"]),
        "provenance": [],
        "install_name": facts["install_name"],
        "slice": facts["slice"],
        "limitations": limitations,
    }


def macho_summary(nr: Mapping[str, Any]) -> dict[str, Any]:
    """The spec's summary: selected slice, header fields and UUID; each collection as returned/total/exhaustive."""
    return {
        "slice": nr["slice"],
        "format": nr["format"],
        "endian": nr["endian"],
        "word_size": nr["word_size"],
        "file_type": nr["file_type"],
        "flags": nr["flags"],
        "uuid": nr["uuid"],
        "install_name": nr["install_name"],
        "collections": {
            key: {"returned": len(nr[key]["items"]), "total": nr[key]["total"], "exhaustive": nr[key]["exhaustive"]}
            for key in COLLECTIONS
        },
    }
