"""Hostile input to the public library: whatever JSON or well-formed Evidence with a hostile payload is handed
to a comparison or a view, it answers a Result (never raises) whose failure is a canonical error and whose
success is Evidence that verifies."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from returns.pipeline import is_successful

import rea
from prop_support import evidence_kwargs, json_object, json_value, json_values
from rea.errors import CATEGORY_BY_CODE
from rea.evidence import create_evidence

PRODUCERS = (
    "inventory_artifact",
    "inspect_artifact",
    "analyze_function",
    "analyze_javascript_application",
    "inspect_managed_members",
)
_payload = json_values(max_leaves=8) | st.fixed_dictionaries(
    {}, optional={k: json_value for k in ("procedure", "graph", "manifest", "occurrences", "types", "coverage")}
)
hostile = st.builds(
    lambda kw, operation: create_evidence(**{**kw, "operation": operation}).unwrap(),
    evidence_kwargs(_payload, json_object),
    st.sampled_from(PRODUCERS),
)
side = hostile | json_object | json_value


def _answered(answer: Any) -> None:
    if is_successful(answer):
        evidence = answer.unwrap()
        assert rea.parse_evidence(evidence.to_json()).unwrap() == evidence
    else:
        error = answer.failure()
        assert error.code in CATEGORY_BY_CODE and error.message
        assert error.to_json()["error"]["remediation"]["action"]


CALLS = {
    "compare_artifacts": lambda a, b: rea.compare_artifacts(a, [b]),
    "compare_functions": lambda a, b: rea.compare_functions(a, b),
    "compare_application_versions": lambda a, b: rea.compare_application_versions(a, b),
    "compare_source_to_bundle": lambda a, b: rea.compare_source_to_bundle(a, b),
    "compare_javascript_export_shapes": lambda a, b: rea.compare_javascript_export_shapes(
        a, b, left_module_path="m.js", left_export_name="f", right_module_path="m.js", right_export_name="f"
    ),
    "compare_managed_members": lambda a, b: rea.compare_managed_members(a, b),
    "inspect_analysis_view": lambda a, b: rea.inspect_analysis_view(a, {"kind": "summary"}, retained=[b]),
}


@given(st.sampled_from(sorted(CALLS)), side, side)
def test_every_library_call_answers_hostile_input_with_a_result(name, left, right):
    _answered(CALLS[name](left, right))


@given(json_value)
def test_parse_evidence_and_parse_bundle_refuse_arbitrary_json_canonically(value):
    for answer in (rea.parse_evidence(value), rea.parse_bundle(value)):
        assert not is_successful(answer) and answer.failure().code == "evidence_integrity_mismatch"
