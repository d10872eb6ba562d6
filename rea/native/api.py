"""inspect_native_api: the calling boundary of one procedure as angr's decompiler recovered it
(prototype, calling convention, argument storage) and the jump tables CFGFast resolved in it, in
REA 6.x's nativeApiBoundary shape. angr infers types from use, so they are `medium` confidence at
best and marked as the decompiler's reconstruction; storage follows from the calling convention."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rea.native.addresses import value
from rea.native.records import analyses as w

SOURCE = "angr decompiler (calling convention and variable recovery)"
TABLES = "angr CFGFast jump table resolver"
MAX_PARAMETERS = 64
MAX_TABLES = 64
MAX_SLOTS = 4096
NO_CASES = "angr reports table slots, not the case values that select them: case_value is null."
NOT_SOURCE = "Types are inferred by angr from how the values are used; they are not the declared source types."


def _value(row: Mapping[str, Any], ordinal: int | None, cc: str) -> w.ApiValue:
    role = "parameter" if ordinal is not None else "return"
    return w.ApiValue(
        ordinal=ordinal,
        name=row.get("name") if ordinal is not None else None,
        data_type=row["type"],
        size_bytes=row.get("size"),
        storage=row.get("storage"),
        confidence="medium" if row.get("storage") else "low",
        evidence=(
            w.ApiEvidence(kind="decompiler-type", source=SOURCE, detail=f"{role} type {row['type']}"),
            w.ApiEvidence(
                kind="calling-convention", source=SOURCE, detail=f"{cc} assigns {row.get('storage') or 'no storage'}"
            ),
        ),
        decompiler_artifacts=("recovered-signature", "register-or-stack-storage")
        if ordinal is not None
        else ("recovered-signature",),
        role=role,  # type: ignore[arg-type]
    )


def _table(row: Mapping[str, Any]) -> w.JumpTable:
    entries, size, base = row["entries"], row.get("entry_size"), row.get("table")
    kept = entries[:MAX_SLOTS]
    slot = (lambda i: (f"0x{value(base) + i * size:x}",)) if base and size and ":" not in base else (lambda i: ())
    detail = f"{len(entries)} slots of {size} bytes at {base}"
    sources: tuple[w.JumpSource, ...] = ()
    if base is not None:
        sources = (
            w.JumpSource(
                address=base,
                provenance="angr-cfg-jump-table-resolver",
                entry_size_bytes=size,
                entry_count=len(entries),
                confidence="high",
                evidence=(w.ApiEvidence(kind="jump-table", source=TABLES, detail=detail),),
            ),
        )
    mappings = tuple(
        w.JumpMapping(
            case_value=None,
            entry_index=i,
            target_address=target,
            data_addresses=slot(i),
            confidence="high",
            evidence=(w.ApiEvidence(kind="jump-table", source=TABLES, detail=f"slot {i} of {detail}"),),
        )
        for i, target in enumerate(kept)
    )
    return w.JumpTable(
        dispatch_address=row["dispatch"],
        data_sources=sources,
        data_sources_truncated=False,
        mappings=mappings,
        mappings_truncated=len(entries) > len(kept),
        limitations=(NO_CASES,),
    )


def boundary(facts: Mapping[str, Any]) -> w.ApiBoundary:
    cc = facts["calling_convention"]
    params, tables = facts["parameters"], facts["jump_tables"]
    returned = facts["return"] or {"type": "void", "size": 0, "storage": None}
    return w.ApiBoundary(
        available=True,
        provenance="angr",
        signature_source=SOURCE,
        calling_convention=cc,
        return_type=_value(returned, None, cc),
        parameters=tuple(_value(p, i, cc) for i, p in enumerate(params[:MAX_PARAMETERS])),
        parameters_truncated=len(params) > MAX_PARAMETERS,
        jump_tables=tuple(_table(t) for t in tables[:MAX_TABLES]),
        jump_tables_truncated=len(tables) > MAX_TABLES,
        pseudocode=w.PseudocodeKind(classification="decompiler-generated-non-source", compilable=False),
        decompiler_artifacts=("recovered-signature", "register-and-stack-variables", "pseudocode"),
        limitations=(NOT_SOURCE, NO_CASES) if tables else (NOT_SOURCE,),
    )


def substeps(analysed: str, projected: str, residual: tuple[str, ...], ok: bool) -> tuple[w.ApiSubstep, ...]:
    return (
        w.ApiSubstep(operation="analyze_function", status="completed", observations=(analysed,)),
        w.ApiSubstep(
            operation="project_native_api_boundary",
            status="completed" if ok else "unsupported",
            observations=(projected,),
        ),
        w.ApiSubstep(
            operation="preserve_residual_unknowns",
            status="completed",
            observations=residual or ("no residual unknowns",),
        ),
    )


def answer(proc: Mapping[str, Any], facts: Mapping[str, Any] | None, reason: str | None, count: int) -> w.NativeApi:
    """The result for one procedure: its boundary from the worker's facts, or why there is none."""
    identity = w.ApiProcedure(address=proc["address"], name=proc["name"])
    analysed = f"{proc['name']} at {proc['address']}: {count} instructions"
    if facts is None:
        why = reason or "no boundary"
        residual: tuple[str, ...] = (f"The calling boundary of {proc['name']} is unknown: {why}",)
        return w.NativeApi(
            schema_version=1,
            procedure=identity,
            boundary=w.NoBoundary(available=False, reason=why, residual_unknowns=residual),
            substeps=substeps(analysed, why, residual, False),
            unsupported_branches=(why,),
            residual_unknowns=residual,
        )
    projected = (
        f"{facts['calling_convention']}: {len(facts['parameters'])} parameters, {len(facts['jump_tables'])} jump tables"
    )
    residual = (NO_CASES,) if facts["jump_tables"] else ()
    return w.NativeApi(
        schema_version=1,
        procedure=identity,
        boundary=boundary(facts),
        substeps=substeps(analysed, projected, residual, True),
        unsupported_branches=(),
        residual_unknowns=residual,
    )
