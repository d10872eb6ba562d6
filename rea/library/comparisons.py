"""Every comparison the tools expose, and inspect_analysis_view, as functions of Evidence.

Each takes Evidence (the parsed record or its wire JSON, exactly as a tool answered
it) and the tool's options, and returns `Result[Evidence, ReaError]`: the very
record the tool would answer and retain, or the canonical error it would answer
with. The arguments mirror the tool's (`left`, `right`, `limits`, ...); a side
given as several records is handed to the tool as retained references.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from returns.result import Result, Success

from rea.artifacts.compare import compare_inventories as compare_inventories
from rea.errors import ReaError
from rea.evidence import Evidence
from rea.library.derive import EvidenceInput, parsed_at, wire
from rea.library.derive import derive as derive
from rea.library.typed import typed_result as typed_result
from rea.results import all_of

Side = EvidenceInput | Sequence[EvidenceInput]
RETAINED = "retained-evidence"


def _held(side: Side, field: str) -> Result[list[Evidence], ReaError]:
    """A side the tool reads as retained ids: each record parsed strictly, named by where it was given."""
    records = list(side) if isinstance(side, (list, tuple)) else [side]
    fields = [f"{field}[{i}]" for i in range(len(records))] if len(records) != 1 else [field]
    return all_of(parsed_at(record, where) for record, where in zip(records, fields))


def _options(**given: Any) -> dict[str, Any]:
    """The options the caller set; the rest take the tool's advertised defaults."""
    return {name: value for name, value in given.items() if value is not None}


def compare_artifacts(
    left: Side, right: Side, *, offset: int = 0, limit: int | None = None
) -> Result[Evidence, ReaError]:
    """compare_artifacts: two artifact inventories (each one record, or every page of one inventory)."""
    args = _options(left=wire(left), right=wire(right), offset=offset, limit=limit)
    return derive("compare_artifacts", args)


def compare_functions(left: Side, right: Side, *, offset: int = 0, limit: int = 100) -> Result[Evidence, ReaError]:
    """compare_functions: two analyze_function dossiers (or several per side, as the tool's *_evidence_ids)."""
    sides = all_of(_function_side(name, side) for name, side in (("left", left), ("right", right)))
    return sides.bind(
        lambda given: derive(
            "compare_functions",
            {"offset": offset, "limit": limit, **given[0].args, **given[1].args},
            [*given[0].retained, *given[1].retained],
        )
    )


@attrs.frozen(kw_only=True)
class _FunctionSide:
    """One side of compare_functions: its arguments, and the records they retain."""

    args: dict[str, Any]
    retained: list[Evidence]


def _function_side(name: str, side: Side) -> Result[_FunctionSide, ReaError]:
    """One dossier inline, or several as retained ids (`{name}_evidence_ids`)."""
    if not isinstance(side, (list, tuple)):
        return Success(_FunctionSide(args={name: wire(side)}, retained=[]))
    return _held(side, name).map(
        lambda held: _FunctionSide(args={f"{name}_evidence_ids": [e.evidence_id for e in held]}, retained=held)
    )


def compare_application_versions(
    left: EvidenceInput,
    right: EvidenceInput,
    *,
    left_native_observations: Sequence[EvidenceInput] = (),
    right_native_observations: Sequence[EvidenceInput] = (),
    limits: Mapping[str, int] | None = None,
) -> Result[Evidence, ReaError]:
    """compare_application_versions: two analyze_javascript_application records, native observations linked."""
    args = _options(
        left=wire(left),
        right=wire(right),
        left_native_observations=wire(left_native_observations),
        right_native_observations=wire(right_native_observations),
        limits=limits,
    )
    return derive("compare_application_versions", args)


def compare_source_to_bundle(
    application: EvidenceInput,
    reference: EvidenceInput | None = None,
    *,
    limits: Mapping[str, int] | None = None,
) -> Result[Evidence, ReaError]:
    """compare_source_to_bundle: an application's bundles against its own source maps, a HistoricalSourceGraph
    object, or another application record."""
    args = _options(application=wire(application), reference=wire(reference), limits=limits)
    return derive("compare_source_to_bundle", args)


def compare_javascript_export_shapes(
    left: EvidenceInput,
    right: EvidenceInput,
    *,
    left_module_path: str,
    left_export_name: str,
    right_module_path: str,
    right_export_name: str,
    limits: Mapping[str, int] | None = None,
) -> Result[Evidence, ReaError]:
    """compare_javascript_export_shapes: one export of a module in each application record."""
    args = _options(
        left=wire(left),
        right=wire(right),
        left_module_path=left_module_path,
        left_export_name=left_export_name,
        right_module_path=right_module_path,
        right_export_name=right_export_name,
        limits=limits,
    )
    return derive("compare_javascript_export_shapes", args)


def compare_managed_members(
    left: EvidenceInput, right: EvidenceInput, *, limits: Mapping[str, int] | None = None
) -> Result[Evidence, ReaError]:
    """compare_managed_members: two inspect_managed_members inventories (the tool reads them as retained ids)."""
    sides = _held([left], "left").bind(lambda lefts: _held([right], "right").map(lambda rights: lefts + rights))
    return sides.bind(
        lambda held: derive(
            "compare_managed_members",
            _options(left_evidence_id=held[0].evidence_id, right_evidence_id=held[1].evidence_id, limits=limits),
            held,
        )
    )


def inspect_analysis_view(
    source: EvidenceInput,
    view: Mapping[str, Any] | None = None,
    *,
    retained: Sequence[EvidenceInput] = (),
) -> Result[Evidence, ReaError]:
    """inspect_analysis_view over inline Evidence: `source` is the record to project (or a retained reference
    into `retained`, e.g. a summary's parent), `view` the tool's view object (default: the summary)."""
    given = wire(source)
    if isinstance(given, Mapping) and given.get("kind") not in (RETAINED, "inline"):
        given = {"kind": "inline", "evidence": given}
    return derive("inspect_analysis_view", _options(source=given, view=view), retained)
