"""Laws of the tool catalog: valid, advertisable, content-bound schemas whose examples validate."""

from __future__ import annotations

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from prop_support import json_keys, json_value
from rea.canonical_json import canonical_sha256
from rea.catalog import CATALOG
from rea.catalog.schemas import CONTENT_ID_PREFIX, DIALECT, advertisement_problems, bind_id, depends_on_base
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


# tools every accepted input of which carries complete producer Evidence inline
INLINE_ONLY = frozenset({"compare_web_captures"})


@pytest.mark.parametrize("name", sorted(TOOLS))
def test_examples_validate(name):
    contract = TOOLS[name]
    examples = contract.input_schema.get("examples", [])
    if name in INLINE_ONLY:  # the contract: an example that can only carry inline Evidence is not advertised
        assert not examples, f"{name} advertises an example although every input it accepts is inline Evidence"
        return
    assert examples, f"{name} advertises no examples"
    for example in examples:
        assert validate_arguments(name, contract.input_schema, example) == Success(example)


@given(contracts, st.data())
def test_unknown_argument_is_named(contract, data):
    example = data.draw(st.sampled_from(contract.input_schema.get("examples") or [{}]))
    key = data.draw(st.text(min_size=1, max_size=8).filter(lambda k: k not in contract.input_schema["properties"]))
    result = validate_arguments(contract.name, contract.input_schema, {**example, key: data.draw(json_value)})
    assert isinstance(result, Failure)
    error = result.failure()
    assert error.code == "invalid_request" and error.details["field"] == key


@given(contracts, json_value.filter(lambda v: not isinstance(v, dict) and v is not None))
def test_non_object_arguments_rejected(contract, value):
    result = validate_arguments(contract.name, contract.input_schema, value)
    assert isinstance(result, Failure) and result.failure().details["field"] == "arguments"


self_contained = st.dictionaries(
    json_keys.filter(lambda k: k not in ("$id", "$ref", "$schema")), json_value, max_size=4
).filter(lambda schema: not depends_on_base(schema))
explicit_ids = st.sampled_from(["https://example.test/schemas/tool.json", "tool.json", "urn:example:tool", ""])
external_refs = st.sampled_from(["item.json", "../common/defs.json#/$defs/x", "https://example.test/x.json", "x#y"])


@given(self_contained, st.none() | st.text(max_size=10).map(lambda h: CONTENT_ID_PREFIX + h))
def test_self_contained_schemas_get_a_content_bound_id(schema, stale_id):
    if stale_id is not None:
        schema = {**schema, "$id": stale_id}  # a stale id of our own is replaced
    bound = bind_id(schema)
    assert bind_id(bound) == bound
    assert bound["$schema"] == DIALECT
    body = {k: v for k, v in bound.items() if k != "$id"}
    assert bound["$id"] == f"{CONTENT_ID_PREFIX}{canonical_sha256(body)}"


@given(self_contained, explicit_ids)
def test_an_explicit_id_is_preserved(schema, explicit):
    """C50: an explicit schema $id is the producer's identity; binding never replaces it."""
    given_schema = {**schema, "$id": explicit}
    bound = bind_id(given_schema)
    assert bound["$id"] == explicit
    assert {k: v for k, v in bound.items() if k != "$schema"} == given_schema
    assert bind_id(bound) == bound


@given(self_contained, external_refs, st.sampled_from(["ref", "nested-id"]))
def test_relative_reference_bases_are_preserved(schema, target, where):
    """A schema that resolves anything against its base URI gets no new root $id: that would re-base it."""
    inner = {"$ref": target} if where == "ref" else {"$id": target, "type": "object"}
    given_schema = {**schema, "properties": {"item": inner, "$id": {"type": "string"}}}
    bound = bind_id(given_schema)
    assert "$id" not in bound and bound["properties"] == given_schema["properties"]
    assert {k: v for k, v in bound.items() if k != "$schema"} == given_schema


def test_a_relative_reference_resolves_the_same_after_binding():
    """Resolution checked by a real validator: the explicit base and its relative $ref still meet."""
    from referencing import Registry, Resource

    item = {"$schema": DIALECT, "$id": "https://example.test/s/item.json", "type": "integer"}
    root = {"$id": "https://example.test/s/root.json", "type": "object", "properties": {"n": {"$ref": "item.json"}}}
    registry = Registry().with_resource(item["$id"], Resource.from_contents(item))
    validator = jsonschema.Draft202012Validator(bind_id(root), registry=registry)
    assert validator.is_valid({"n": 1}) and not validator.is_valid({"n": "one"})


def test_names_and_data_are_not_identifiers():
    """A property named `$id`, or `$ref` inside an example, is not a base-changing keyword."""
    schema = {"type": "object", "properties": {"$id": {"type": "string"}}, "examples": [{"$ref": "x.json"}]}
    assert bind_id(schema)["$id"].startswith(CONTENT_ID_PREFIX)
