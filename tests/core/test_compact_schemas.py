"""The compact input profile keeps validation unchanged: for every tool, the compact schema is a
valid 2020-12 schema within the budget and accepts or refuses each reference example input, and
each example with one top-level field removed or mistyped, exactly as the full schema does."""

from __future__ import annotations

import json

import jsonschema

from rea.catalog import BY_NAME, CATALOG
from rea.catalog.schemas import COMPACT_INPUT_BUDGET, compact_input, inline_refs
from reference_shapes import same_verdicts


def test_compact_schemas_fit_the_budget_and_validate_as_the_full_ones():
    for contract in CATALOG:
        compact = compact_input(contract.input_schema)
        assert len(json.dumps(compact, separators=(",", ":"))) <= COMPACT_INPUT_BUDGET, contract.name
        jsonschema.Draft202012Validator.check_schema(compact)
    assert same_verdicts(lambda contract: compact_input(contract.input_schema)) > 300


def _refs(node) -> bool:
    text = json.dumps(node, separators=(",", ":"))
    return '"$ref"' in text or '"$defs"' in text


def test_compact_schemas_are_measured_as_a_client_that_expands_references_sends_them():
    """Kimi Code inlines references before sending: a compact schema carries none, so its size is the
    provider-facing size."""
    for contract in CATALOG:
        assert not _refs(compact_input(contract.input_schema)), contract.name


def test_a_schema_whose_structure_exceeds_the_budget_is_advertised_reduced():
    full = BY_NAME["capture_browser_scenario"].input_schema
    scenario = compact_input(full)
    assert len(json.dumps(full, separators=(",", ":"))) > COMPACT_INPUT_BUDGET  # why it is reduced
    assert set(scenario["properties"]) == set(full["properties"])
    assert scenario["required"] == full["required"]
    assert scenario["properties"]["actions"]["type"] == "array"
    assert scenario["properties"]["browser"]["description"] == full["properties"]["browser"]["description"]
    # nested detail is elided: a malformed action passes the advertisement, and the canonical schema refuses it
    malformed = {"browser": {"mode": "connect"}, "start_url": {"url": "x"}, "actions": [{"kind": "nope"}]}
    assert jsonschema.Draft202012Validator(scenario).is_valid(malformed)
    assert not jsonschema.Draft202012Validator(full).is_valid(malformed)


def test_inlining_stops_at_the_budget_before_building_an_oversized_presentation():
    leaf = {"type": "string", "description": "x" * 64}
    defs = {"d0": leaf}
    for i in range(1, 24):  # each level doubles: fully expanded it would be gigabytes
        defs[f"d{i}"] = {
            "type": "object",
            "properties": {"a": {"$ref": f"#/$defs/d{i - 1}"}, "b": {"$ref": f"#/$defs/d{i - 1}"}},
        }
    schema = {"type": "object", "properties": {"root": {"$ref": "#/$defs/d23"}}, "$defs": defs}
    assert inline_refs(schema, COMPACT_INPUT_BUDGET) is None
    compact = compact_input(schema)
    assert not _refs(compact) and len(json.dumps(compact)) <= COMPACT_INPUT_BUDGET
