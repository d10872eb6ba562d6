"""Public group: the derived tools' typed argument and result records, under names that say which tool."""

from rea.managed.records import compare as managed
from rea.artifacts import records as artifacts, report_records as artifact_reports
from rea.views.records import requests as views, results as view_results
from rea.wire import javascript, native

ArtifactComparisonArgs = artifacts.CompareArgs
ArtifactComparison = artifact_reports.ComparisonResult
FunctionComparisonArgs = native.CompareArgs
FunctionComparison = native.FunctionComparison
ApplicationVersionsArgs = javascript.CompareVersionsArgs
ApplicationVersionsComparison = javascript.VersionsResult
SourceToBundleArgs = javascript.SourceToBundleArgs
SourceToBundleComparison = javascript.SourceToBundleResult
ExportShapesArgs = javascript.ExportShapesArgs
ExportShapesComparison = javascript.ExportShapesResult
ManagedMembersComparisonArgs = managed.CompareArgs
ManagedMembersComparison = managed.ComparisonResult
AnalysisViewArgs = views.AnalysisViewArgs
AnalysisViewResult = view_results.AnalysisViewResult
