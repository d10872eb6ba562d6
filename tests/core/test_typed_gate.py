"""The gate of a @typed program hands it the record of exactly the mapping an untyped program got:
`to_wire(record)` is byte for byte the filled arguments, so Evidence parameters and replies do not move."""

from __future__ import annotations

import importlib

import orjson
import pytest

from rea.catalog import BY_NAME
from rea.families import FAMILIES
from rea.program import reads_record
from rea.wire.convert import restructure, to_wire, with_defaults

# every family's plain programs (before the gate wraps them), as rea.workflows.table imports them
_PLAIN = {
    name: fn
    for family in FAMILIES
    for module in family.programs
    for name, fn in importlib.import_module(module).PROGRAMS.items()
}
TYPED = sorted(name for name, program in _PLAIN.items() if reads_record(program))
ARTIFACT_TOOLS = ("inspect_artifact", "inventory_artifact", "extract_artifact")


@pytest.mark.parametrize("tool", TYPED)
def test_the_typed_gate_keeps_every_example_byte_for_byte(tool):
    contract = BY_NAME[tool]
    for example in contract.input_schema.get("examples") or ({},):
        mapping = with_defaults(example, contract.args_type).value_or(None)
        if mapping is None:
            continue
        record = restructure(mapping, contract.args_type).unwrap()
        assert orjson.dumps(to_wire(record)) == orjson.dumps(mapping), tool


@pytest.mark.parametrize("tool", ARTIFACT_TOOLS)
@pytest.mark.parametrize("ratio", [None, 3, 2.5, 1000])
def test_a_float_limit_keeps_the_number_it_was_filled_with(tool, ratio):
    """max_compression_ratio's default is the int 1000: a second structuring must not make it 1000.0."""
    contract = BY_NAME[tool]
    given = {} if ratio is None else {"max_compression_ratio": ratio}
    mapping = with_defaults(given, contract.args_type).unwrap()
    record = restructure(mapping, contract.args_type).unwrap()
    assert orjson.dumps(to_wire(record)) == orjson.dumps(mapping)
