"""REA: reverse engineer anything, as a pure library.

The public names below are the curated API (docs/library.md): parse and verify
Evidence and bundles, canonical JSON, every comparison the tools expose, the
analysis views, the typed argument and result records and the canonical error.
None of them touches files, clocks or the environment. Each is imported on first
use (PEP 562 `__getattr__`), so `import rea` loads no engine, parser or server;
docs/public/library-api.txt is the stability snapshot of their signatures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# public name -> the group module that holds it (rea/library/*): the one list of the API
_PUBLIC: dict[str, str] = {
    # Evidence, the id rule, canonical JSON, the canonical error
    **dict.fromkeys(
        ("Evidence", "Subject", "Provider", "AnalysisProfile", "parse_evidence", "compute_evidence_id"), "records"
    ),
    **dict.fromkeys(("canonical_bytes", "canonical_digest", "ReaError"), "records"),
    # bundles
    **dict.fromkeys(("ParsedBundle", "parse_bundle"), "bundles"),
    # comparisons and views, each the tool's own answer
    **dict.fromkeys(
        (
            "compare_artifacts",
            "compare_inventories",
            "compare_functions",
            "compare_application_versions",
            "compare_source_to_bundle",
            "compare_javascript_export_shapes",
            "compare_managed_members",
            "inspect_analysis_view",
            "derive",
            "typed_result",
        ),
        "comparisons",
    ),
    # the tools' typed argument and result records
    **dict.fromkeys(
        (
            "ArtifactComparisonArgs",
            "ArtifactComparison",
            "FunctionComparisonArgs",
            "FunctionComparison",
            "ApplicationVersionsArgs",
            "ApplicationVersionsComparison",
            "SourceToBundleArgs",
            "SourceToBundleComparison",
            "ExportShapesArgs",
            "ExportShapesComparison",
            "ManagedMembersComparisonArgs",
            "ManagedMembersComparison",
            "AnalysisViewArgs",
            "AnalysisViewResult",
        ),
        "wire_records",
    ),
}

__all__ = [
    "AnalysisProfile",
    "AnalysisViewArgs",
    "AnalysisViewResult",
    "ApplicationVersionsArgs",
    "ApplicationVersionsComparison",
    "ArtifactComparison",
    "ArtifactComparisonArgs",
    "Evidence",
    "ExportShapesArgs",
    "ExportShapesComparison",
    "FunctionComparison",
    "FunctionComparisonArgs",
    "ManagedMembersComparison",
    "ManagedMembersComparisonArgs",
    "ParsedBundle",
    "Provider",
    "ReaError",
    "SourceToBundleArgs",
    "SourceToBundleComparison",
    "Subject",
    "canonical_bytes",
    "canonical_digest",
    "compare_application_versions",
    "compare_artifacts",
    "compare_functions",
    "compare_inventories",
    "compare_javascript_export_shapes",
    "compare_managed_members",
    "compare_source_to_bundle",
    "compute_evidence_id",
    "derive",
    "inspect_analysis_view",
    "parse_bundle",
    "parse_evidence",
    "typed_result",
]
assert set(__all__) == set(_PUBLIC), "__all__ and the import table name the same API"

if TYPE_CHECKING:  # what a type checker sees; at run time each name loads on first use
    from rea.library.bundles import ParsedBundle as ParsedBundle
    from rea.library.bundles import parse_bundle as parse_bundle
    from rea.library.comparisons import (
        compare_application_versions as compare_application_versions,
    )
    from rea.library.comparisons import (
        compare_artifacts as compare_artifacts,
    )
    from rea.library.comparisons import (
        compare_functions as compare_functions,
    )
    from rea.library.comparisons import (
        compare_inventories as compare_inventories,
    )
    from rea.library.comparisons import (
        compare_javascript_export_shapes as compare_javascript_export_shapes,
    )
    from rea.library.comparisons import (
        compare_managed_members as compare_managed_members,
    )
    from rea.library.comparisons import (
        compare_source_to_bundle as compare_source_to_bundle,
    )
    from rea.library.comparisons import (
        derive as derive,
    )
    from rea.library.comparisons import (
        inspect_analysis_view as inspect_analysis_view,
    )
    from rea.library.comparisons import (
        typed_result as typed_result,
    )
    from rea.library.records import (
        AnalysisProfile as AnalysisProfile,
    )
    from rea.library.records import (
        Evidence as Evidence,
    )
    from rea.library.records import (
        Provider as Provider,
    )
    from rea.library.records import (
        ReaError as ReaError,
    )
    from rea.library.records import (
        Subject as Subject,
    )
    from rea.library.records import (
        canonical_bytes as canonical_bytes,
    )
    from rea.library.records import (
        canonical_digest as canonical_digest,
    )
    from rea.library.records import (
        compute_evidence_id as compute_evidence_id,
    )
    from rea.library.records import (
        parse_evidence as parse_evidence,
    )
    from rea.library.wire_records import (
        AnalysisViewArgs as AnalysisViewArgs,
    )
    from rea.library.wire_records import (
        AnalysisViewResult as AnalysisViewResult,
    )
    from rea.library.wire_records import (
        ApplicationVersionsArgs as ApplicationVersionsArgs,
    )
    from rea.library.wire_records import (
        ApplicationVersionsComparison as ApplicationVersionsComparison,
    )
    from rea.library.wire_records import (
        ArtifactComparison as ArtifactComparison,
    )
    from rea.library.wire_records import (
        ArtifactComparisonArgs as ArtifactComparisonArgs,
    )
    from rea.library.wire_records import (
        ExportShapesArgs as ExportShapesArgs,
    )
    from rea.library.wire_records import (
        ExportShapesComparison as ExportShapesComparison,
    )
    from rea.library.wire_records import (
        FunctionComparison as FunctionComparison,
    )
    from rea.library.wire_records import (
        FunctionComparisonArgs as FunctionComparisonArgs,
    )
    from rea.library.wire_records import (
        ManagedMembersComparison as ManagedMembersComparison,
    )
    from rea.library.wire_records import (
        ManagedMembersComparisonArgs as ManagedMembersComparisonArgs,
    )
    from rea.library.wire_records import (
        SourceToBundleArgs as SourceToBundleArgs,
    )
    from rea.library.wire_records import (
        SourceToBundleComparison as SourceToBundleComparison,
    )


def _group(name: str) -> Any:
    """One group module of the API, imported by name without dynamic imports (the core allows none)."""
    if name == "records":
        from rea.library import records

        return records
    if name == "bundles":
        from rea.library import bundles

        return bundles
    if name == "comparisons":
        from rea.library import comparisons

        return comparisons
    from rea.library import wire_records

    return wire_records


if not TYPE_CHECKING:  # hidden from type checkers, so a misspelt name is an error there

    def __getattr__(name: str) -> Any:
        """A public name, imported on first use and then kept as a module attribute."""
        group = _PUBLIC.get(name)
        if group is None:
            raise AttributeError(f"module 'rea' has no attribute {name!r}")
        value = getattr(_group(group), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
