"""The compact input profile keeps validation unchanged: for every tool, the compact schema is a
valid 2020-12 schema within the budget and accepts or refuses each reference example input, and
each example with one top-level field removed or mistyped, exactly as the full schema does."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from rea.catalog import BY_NAME, CATALOG
from rea.catalog.schemas import COMPACT_INPUT_BUDGET, compact_input

EXAMPLES = json.loads((Path(__file__).parent / "reference" / "input-examples.json").read_text())["examples"]


def _variants(example: dict) -> list[dict]:
    out = [example]
    for key in example:
        out.append({k: v for k, v in example.items() if k != key})
        out.append({**example, key: [example[key]] if not isinstance(example[key], list) else "x"})
    return out


def test_compact_schemas_fit_the_budget_and_validate_as_the_full_ones():
    for contract in CATALOG:
        full, compact = contract.input_schema, compact_input(contract.input_schema)
        assert len(json.dumps(compact, separators=(",", ":"))) <= COMPACT_INPUT_BUDGET, contract.name
        jsonschema.Draft202012Validator.check_schema(compact)
    checked = 0
    for example in EXAMPLES:
        contract = BY_NAME.get(example["tool"])
        if contract is None or not isinstance(example["input"], dict):
            continue
        full = jsonschema.Draft202012Validator(contract.input_schema)
        compact = jsonschema.Draft202012Validator(compact_input(contract.input_schema))
        for value in _variants(example["input"]):
            assert full.is_valid(value) == compact.is_valid(value), (contract.name, value)
            checked += 1
    assert checked > 300


def test_a_repeated_subschema_is_written_once():
    scenario = compact_input(BY_NAME["capture_browser_scenario"].input_schema)
    assert scenario.get("$defs") and '"$ref":"#/$defs/compact_' in json.dumps(scenario, separators=(",", ":"))
