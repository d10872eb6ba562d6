"""Type-checked by mypy --strict in tests/core/test_library_api.py (not a test module): every public name, used as
a caller would, with the types the package's py.typed promises."""

from __future__ import annotations

from typing import Any

from returns.result import Result

import rea


def verified(record: dict[str, Any], bundle: dict[str, Any]) -> tuple[str, int]:
    parsed: Result[rea.Evidence, rea.ReaError] = rea.parse_evidence(record)
    evidence: rea.Evidence = parsed.unwrap()
    subject: rea.Subject | None = evidence.subject
    provider: rea.Provider = evidence.provider
    profile: rea.AnalysisProfile | None = evidence.analysis_profile
    assert subject is None or profile is None or provider.id
    ledger: rea.ParsedBundle = rea.parse_bundle(bundle).unwrap()
    identity: str = rea.compute_evidence_id(evidence)
    return identity, len(ledger.records)


def canonical(value: object) -> tuple[bytes, str]:
    return rea.canonical_bytes(value).unwrap(), rea.canonical_digest(value).unwrap()


def compared(left: rea.Evidence, right: dict[str, Any]) -> list[Result[rea.Evidence, rea.ReaError]]:
    return [
        rea.compare_artifacts(left, [right], offset=0, limit=None),
        rea.compare_functions(left, right, limit=10),
        rea.compare_application_versions(left, right, left_native_observations=[right], limits=None),
        rea.compare_source_to_bundle(left, None, limits={"max_source_files": 10}),
        rea.compare_javascript_export_shapes(
            left, right, left_module_path="a", left_export_name="b", right_module_path="a", right_export_name="b"
        ),
        rea.compare_managed_members(left, right),
        rea.inspect_analysis_view(left, {"kind": "summary"}, retained=[right]),
        rea.derive("compare_functions", rea.FunctionComparisonArgs(left=left.to_json(), right=right)),
    ]


def typed(evidence: rea.Evidence) -> str:
    functions: rea.FunctionComparison = rea.typed_result(evidence, rea.FunctionComparison).unwrap()
    artifacts: rea.ArtifactComparison = rea.typed_result(evidence, rea.ArtifactComparison).unwrap()
    versions: rea.ApplicationVersionsComparison = rea.typed_result(evidence, rea.ApplicationVersionsComparison).unwrap()
    sources: rea.SourceToBundleComparison = rea.typed_result(evidence, rea.SourceToBundleComparison).unwrap()
    shapes: rea.ExportShapesComparison = rea.typed_result(evidence, rea.ExportShapesComparison).unwrap()
    members: rea.ManagedMembersComparison = rea.typed_result(evidence, rea.ManagedMembersComparison).unwrap()
    return " ".join(
        [
            functions.status,
            artifacts.status,
            versions.comparison_id,
            sources.comparison_id,
            shapes.status,
            members.comparison_id,
        ]
    )


def arguments() -> list[object]:
    view: rea.AnalysisViewResult | None = None
    return [
        rea.ArtifactComparisonArgs(left={}, right={}),
        rea.ApplicationVersionsArgs(),
        rea.SourceToBundleArgs(),
        rea.ExportShapesArgs(left_module_path="a", left_export_name="b", right_module_path="a", right_export_name="b"),
        rea.ManagedMembersComparisonArgs(left_evidence_id="ev_", right_evidence_id="ev_"),
        rea.AnalysisViewArgs,
        view,
    ]


def errors(error: rea.ReaError, inventories: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, Any]:
    body: dict[str, Any] = error.to_json()
    inventory_diff: dict[str, Any] = rea.compare_inventories(*inventories)
    return {**body, **inventory_diff}
