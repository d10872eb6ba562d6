"""inspect_analysis_view's wire records: cattrs structures the view union by kind, the schema says the reference's names."""

import pytest
from returns.result import Success

from rea.catalog import BY_NAME
from rea.validation import validate_arguments
from rea.views.records.requests import (
    AnalysisViewArgs,
    InlineSource,
    InventoryView,
    ItemView,
    MachoView,
    NativeView,
    NodeSelector,
    PageView,
    PathSelector,
    RetainedSource,
    SummaryView,
    WasmView,
)
from rea.wire.convert import structure, with_defaults

REF = {"kind": "retained-evidence", "evidence_id": "ev_" + "a" * 64}
CONTRACT = BY_NAME["inspect_analysis_view"]


@pytest.mark.parametrize(
    ("view", "record"),
    [
        ({"kind": "summary"}, SummaryView),
        ({"kind": "native", "facet": "incoming_references"}, NativeView),
        ({"kind": "inventory", "facet": "occurrences", "logical_paths": []}, InventoryView),
        ({"kind": "item", "collection": "modules", "selector": {"node_id": "module:a.js"}}, ItemView),
        ({"kind": "page", "collection": "modules", "offset": 3, "limit": 2}, PageView),
        ({"kind": "wasm", "facet": "exports"}, WasmView),
        ({"kind": "macho", "facet": "imports"}, MachoView),
    ],
)
def test_cattrs_structures_each_view_kind_into_its_record(view, record):
    assert validate_arguments(CONTRACT.name, CONTRACT.input_schema, {"source": REF, "view": view}).unwrap()
    args = structure({"source": REF, "view": view}, AnalysisViewArgs).unwrap()
    assert type(args.view) is record and isinstance(args.source, RetainedSource)


def test_defaults_are_filled_once_from_the_records():
    filled = with_defaults({"source": REF}, AnalysisViewArgs).unwrap()
    assert filled == {"source": REF, "view": {"kind": "summary"}}
    native = with_defaults({"source": REF, "view": {"kind": "native", "facet": "pseudocode"}}, AnalysisViewArgs)
    assert native.unwrap()["view"] == {"kind": "native", "facet": "pseudocode", "offset": 0, "limit": 64}
    omitted = with_defaults({"source": REF, "view": {"kind": "inventory", "facet": "nodes"}}, AnalysisViewArgs)
    assert "logical_paths" not in omitted.unwrap()["view"]  # omitted selects all; [] selects none


def test_selectors_and_sources_are_told_apart_by_their_fields():
    path = structure(
        {"source": REF, "view": {"kind": "item", "collection": "modules", "selector": {"path": ""}}}, AnalysisViewArgs
    )
    assert isinstance(path.unwrap().view.selector, PathSelector)
    node = structure(
        {"source": REF, "view": {"kind": "item", "collection": "modules", "selector": {"node_id": "n"}}},
        AnalysisViewArgs,
    )
    assert isinstance(node.unwrap().view.selector, NodeSelector)
    inline = structure({"source": {"kind": "inline", "evidence": {"schema_version": 2}}}, AnalysisViewArgs)
    assert isinstance(inline.unwrap().source, InlineSource)


@pytest.mark.parametrize(
    ("arguments", "path"),
    [
        ({"source": REF, "view": "summary"}, ["view"]),  # the 3.x string form is gone: the reference sends objects
        ({"source": REF, "view": {"kind": "native", "facet": "refs"}}, ["view", "facet"]),
        ({"source": REF, "view": {"kind": "native", "facet": "callers", "limit": 0}}, ["view", "limit"]),
        ({"source": {"kind": "retained-evidence", "evidence_id": "ev_1"}}, ["source"]),
        ({"source": REF, "view": {"kind": "summary"}, "facet": "callers"}, []),
    ],
)
def test_refusals_name_the_offending_path(arguments, path):
    refused = validate_arguments(CONTRACT.name, CONTRACT.input_schema, arguments)
    assert not isinstance(refused, Success)
    issues = refused.failure().details["issues"]
    assert issues[0]["path"][: len(path)] == path and {"path", "reason", "message"} <= set(issues[0])


def test_the_advertised_result_has_the_reference_fields_and_types():
    result = CONTRACT.output_schema["properties"]["normalized_result"]
    by_kind = {branch["properties"]["kind"]["const"]: branch for branch in result["anyOf"]}
    kinds = {
        "summary",
        "facet",
        "item",
        "page",
        "native",
        "inventory",
        "android",
        "wasm",
        "macho",
        "api-surface",
        "managed",
        "comparison",
    }
    assert set(by_kind) == kinds
    for kind, branch in by_kind.items():
        assert {
            "kind",
            "view",
            "parent_evidence_id",
            "parent_operation",
            "parent_digest",
            "view_digest",
            "artifact",
            "coverage",
            "limitations",
            "unknowns",
        } <= set(branch["required"]), kind
        coverage = branch["properties"]["coverage"]["properties"]
        assert coverage["status"]["enum"] == ["complete-within-view", "page", "empty"]
        assert coverage["next_offset"]["anyOf"][1] == {"type": "null"}
        assert branch["properties"]["artifact"]["required"] == ["path", "sha256"]
    assert by_kind["native"]["properties"]["procedure_address"]["anyOf"][1] == {"type": "null"}
    assert by_kind["page"]["properties"]["items"]["type"] == "array"
    assert "summary" in by_kind["summary"]["required"] and "item" in by_kind["item"]["required"]
