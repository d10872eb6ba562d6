"""Laws of the tool catalog: valid, advertisable, content-bound schemas whose examples validate."""

from __future__ import annotations

import jsonschema
import pytest
from hypothesis import given, strategies as st
from returns.result import Failure, Success

from prop_support import json_object, json_value
from rea.canonical_json import canonical_sha256
from rea.catalog import CATALOG
from rea.catalog.schemas import DIALECT, advertisement_problems, bind_id
from rea.validation import validate_arguments

TOOLS = {c.name: c for c in CATALOG}
contracts = st.sampled_from(CATALOG)


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_schemas_are_valid_and_advertisable(name):
    contract = TOOLS[name]
    for schema in (contract.input_schema, contract.output_schema):
        jsonschema.Draft202012Validator.check_schema(schema)
        assert advertisement_problems(schema) == []
        assert schema["$schema"] == DIALECT


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_output_schema_id_is_content_bound(name):
    schema = dict(TOOLS[name].output_schema)
    body = {k: v for k, v in schema.items() if k != "$id"}
    assert schema["$id"] == f"urn:rea:schema:sha256:{canonical_sha256(body)}"
    assert bind_id(schema) == schema


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_examples_validate(name):
    contract = TOOLS[name]
    examples = contract.input_schema.get("examples", [])
    assert examples, f"{name} advertises no examples"
    for example in examples:
        assert validate_arguments(name, contract.input_schema, example) == Success(example)


@given(contracts, st.data())
def test_unknown_argument_is_named(contract, data):
    example = data.draw(st.sampled_from(contract.input_schema["examples"]))
    key = data.draw(st.text(min_size=1, max_size=8).filter(lambda k: k not in contract.input_schema["properties"]))
    result = validate_arguments(contract.name, contract.input_schema, {**example, key: data.draw(json_value)})
    assert isinstance(result, Failure)
    error = result.failure()
    assert error.code == "invalid_request" and error.details["field"] == key


@given(contracts, json_value.filter(lambda v: not isinstance(v, dict) and v is not None))
def test_non_object_arguments_rejected(contract, value):
    result = validate_arguments(contract.name, contract.input_schema, value)
    assert isinstance(result, Failure) and result.failure().details["field"] == "arguments"


@given(json_object, st.none() | st.text(max_size=10))
def test_bind_id_is_a_fixed_point(schema, stale_id):
    if stale_id is not None:
        schema = {**schema, "$id": stale_id}
    bound = bind_id(schema)
    assert bind_id(bound) == bound
    assert bound["$schema"] == DIALECT
    body = {k: v for k, v in bound.items() if k != "$id"}
    assert bound["$id"] == f"urn:rea:schema:sha256:{canonical_sha256(body)}"
    assert bind_id({**schema, "$id": "anything"}) == bound  # the old $id never matters
