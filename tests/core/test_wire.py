"""Typed wire records: schemas derived from them, defaults written once, no untyped result."""

from __future__ import annotations

from typing import Literal

import attrs
import jsonschema
import pytest

from rea.catalog import CATALOG
from rea.wire.convert import to_wire, with_defaults
from rea.wire.schema import Open, Role, field, record_schema, schema_of, untyped_nodes


@attrs.frozen(kw_only=True)
class _Inner:
    name: str = field("A name")
    note: str | None = field("Absent when None", omit_none=True)


@attrs.frozen(kw_only=True)
class _Args:
    pattern: str = field("Required: no default", minLength=1)
    mode: Literal["literal", "regex"] = field("Enum with a default", default="literal")
    limit: int | None = field("Optional extra", omit_none=True, minimum=1)
    tags: tuple[str, ...] = field("Defaults to empty", factory=tuple)


def test_input_schema_required_defaults_and_constraints_come_from_the_record():
    schema = record_schema(_Args, Role.INPUT)
    assert schema["required"] == ["pattern"] and schema["additionalProperties"] is False
    assert schema["properties"]["mode"] == {
        "type": "string",
        "enum": ["literal", "regex"],
        "description": "Enum with a default",
        "default": "literal",
    }
    assert schema["properties"]["limit"]["minimum"] == 1 and "default" not in schema["properties"]["limit"]
    assert schema["properties"]["tags"]["default"] == []
    validator = jsonschema.Draft202012Validator(schema)
    assert not list(validator.iter_errors({"pattern": "x", "limit": 2}))
    assert list(validator.iter_errors({"pattern": "x", "mode": "glob"}))
    assert list(validator.iter_errors({"pattern": "x", "other": 1}))


def test_defaults_fill_from_the_record_and_unknown_keys_are_refused():
    assert with_defaults({"pattern": "x"}, _Args).unwrap() == {"pattern": "x", "mode": "literal", "tags": []}
    refused = with_defaults({"pattern": "x", "bogus": 1}, _Args)
    assert refused.failure().code == "invalid_request"


def test_absent_inputs_keep_omission_apart_from_null():
    @attrs.frozen(kw_only=True)
    class Update:
        authority: str | None = field("null clears it; omitted keeps it", absent=True)
        status: Literal["open", "closed"] = field("Omitted keeps it", absent=True)

    schema = record_schema(Update, Role.INPUT)
    assert "required" not in schema and all("default" not in p for p in schema["properties"].values())
    assert schema["properties"]["authority"]["anyOf"][1] == {"type": "null"}
    assert "anyOf" not in schema["properties"]["status"]  # null is not a status
    assert with_defaults({}, Update).unwrap() == {}
    assert with_defaults({"authority": None}, Update).unwrap() == {"authority": None}
    assert with_defaults({"status": "open"}, Update).unwrap() == {"status": "open"}


def test_output_schema_omit_none_fields_are_optional_and_absent():
    schema = schema_of(tuple[_Inner, ...])
    item = schema["items"]
    assert item["required"] == ["name"] and item["properties"]["note"]["type"] == "string"
    assert to_wire((_Inner(name="a"), _Inner(name="b", note="n"))) == [{"name": "a"}, {"name": "b", "note": "n"}]
    jsonschema.validate(to_wire((_Inner(name="a"),)), schema)


def test_untyped_nodes_are_found_and_a_described_open_field_is_not_one():
    @attrs.frozen(kw_only=True)
    class Loose:
        value: Open = field("Any JSON the target held")

    assert list(untyped_nodes(schema_of(Loose))) == []
    assert list(untyped_nodes({"type": "object", "properties": {"x": {}}})) == ["/x"]
    assert list(untyped_nodes({"type": "object"})) == ["/"]


# Tools whose result record has not been written yet. The REA 6.x wire issue empties this tuple;
# a tool leaves it the moment its result is typed, and a new tool never joins it.
NOT_YET_TYPED = frozenset({})


def _result_schema(contract):
    props = contract.output_schema["properties"]
    return props["normalized_result"] if contract.result_kind == "evidence" else props["result"]


@pytest.mark.parametrize("contract", [c for c in CATALOG if c.name not in NOT_YET_TYPED], ids=lambda c: c.name)
def test_every_typed_tool_advertises_a_fully_typed_result(contract):
    assert contract.args_type is not None and contract.result_type is not None, "declare it with rea.wire.tool"
    assert list(untyped_nodes(_result_schema(contract))) == []


def test_the_untyped_list_only_shrinks():
    typed = {c.name for c in CATALOG if c.result_type is not None}
    assert not typed & NOT_YET_TYPED, f"typed now, remove from NOT_YET_TYPED: {sorted(typed & NOT_YET_TYPED)}"
    assert {c.name for c in CATALOG} - typed <= NOT_YET_TYPED, "a new tool must be declared with rea.wire.tool"


def test_a_record_sent_in_an_older_key_order_sends_every_field_once():
    """`sent_in` (rea.wire.key_order) keeps a reply's older key order: it must name each field exactly once,
    or the reply would drop or repeat one."""
    import sys

    import attrs

    from rea.workflows.table import PROGRAMS

    assert len(list(PROGRAMS.values())) > 100  # every family's programs (and so their records) imported
    ordered = [
        value
        for module in list(sys.modules.values())
        if (module.__name__ or "").startswith("rea.")
        for value in vars(module).values()
        if isinstance(value, type) and attrs.has(value) and hasattr(value.__dict__.get("__wire__"), "order")
    ]
    assert ordered, "no record declares sent_in"
    for record in ordered:
        order = record.__dict__["__wire__"].order
        assert sorted(order) == sorted(f.name for f in attrs.fields(record)), record
