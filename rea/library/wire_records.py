"""Public group: the derived tools' typed argument and result records, under names that say which tool."""

from rea.artifacts import records as artifacts
from rea.artifacts import report_records as artifact_reports
from rea.javascript.records import arguments as javascript
from rea.javascript.records import comparison as javascript_results
from rea.managed.records import compare as managed
from rea.native.records import compare as native
from rea.views.records import requests as views
from rea.views.records import results as view_results

ArtifactComparisonArgs = artifacts.CompareArgs
ArtifactComparison = artifact_reports.ComparisonResult
FunctionComparisonArgs = native.CompareArgs
FunctionComparison = native.FunctionComparison
ApplicationVersionsArgs = javascript.CompareVersionsArgs
ApplicationVersionsComparison = javascript_results.VersionsResult
SourceToBundleArgs = javascript.SourceToBundleArgs
SourceToBundleComparison = javascript_results.SourceToBundleResult
ExportShapesArgs = javascript.ExportShapesArgs
ExportShapesComparison = javascript_results.ExportShapesResult
ManagedMembersComparisonArgs = managed.CompareArgs
ManagedMembersComparison = managed.ComparisonResult
AnalysisViewArgs = views.AnalysisViewArgs
AnalysisViewResult = view_results.AnalysisViewResult
