"""Public group: the derived tools' typed argument and result records, under names that say which tool."""

from rea.wire.artifacts import CompareArgs as ArtifactComparisonArgs, ComparisonResult as ArtifactComparison
from rea.wire.javascript import (
    CompareVersionsArgs as ApplicationVersionsArgs,
    ExportShapesArgs as ExportShapesArgs,
    ExportShapesResult as ExportShapesComparison,
    SourceToBundleArgs as SourceToBundleArgs,
    SourceToBundleResult as SourceToBundleComparison,
    VersionsResult as ApplicationVersionsComparison,
)
from rea.wire.managed import CompareArgs as ManagedMembersComparisonArgs, ComparisonResult as ManagedMembersComparison
from rea.wire.native import CompareArgs as FunctionComparisonArgs, FunctionComparison as FunctionComparison
from rea.wire.views import AnalysisViewArgs as AnalysisViewArgs, AnalysisViewResult as AnalysisViewResult

__all__ = [
    "AnalysisViewArgs",
    "AnalysisViewResult",
    "ApplicationVersionsArgs",
    "ApplicationVersionsComparison",
    "ArtifactComparison",
    "ArtifactComparisonArgs",
    "ExportShapesArgs",
    "ExportShapesComparison",
    "FunctionComparison",
    "FunctionComparisonArgs",
    "ManagedMembersComparison",
    "ManagedMembersComparisonArgs",
    "SourceToBundleArgs",
    "SourceToBundleComparison",
]
