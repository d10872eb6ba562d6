"""Workflow programs, one module per tool family; PROGRAMS maps every catalog tool to its program."""

from typing import Any
from collections.abc import Callable, Mapping

from rea.catalog import BY_NAME
from rea.workflows import artifacts as _artifacts
from rea.workflows import javascript as _javascript
from rea.workflows import native as _native
from rea.workflows import session_tools as _session
from rea.workflows import views as _views
from rea.workflows.derived import checkpointed

_FAMILIES = (_session, _native, _artifacts, _javascript, _views)

# derived comparisons and views: a checkpoint before computing and before publication (the spec's
# "cannot race with successful Evidence")
DERIVED = (
    "compare_functions",
    "compare_application_versions",
    "compare_source_to_bundle",
    "compare_javascript_export_shapes",
    "compare_artifacts",
    "inspect_analysis_view",
)
_PLAIN: Mapping[str, Callable[..., Any]] = {name: fn for f in _FAMILIES for name, fn in f.PROGRAMS.items()}
PROGRAMS: Mapping[str, Callable[..., Any]] = {
    name: checkpointed(name, fn) if name in DERIVED else fn for name, fn in _PLAIN.items()
}
assert set(PROGRAMS) == set(BY_NAME), f"tools without exactly one program: {set(PROGRAMS) ^ set(BY_NAME)}"
