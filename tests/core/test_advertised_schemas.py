"""The full profile's advertised input schemas (rea.catalog.advertised) are the canonical ones with only
repetition left out: every reference inlined again gives back the canonical schema (less `$schema` and
the object defaults its properties' defaults make), a client renders each within Pi's 32 reference
expansions, and each accepts or refuses every reference example input, and its variants, exactly as the
canonical schema does. The witnesses are jsonschema's own 2020-12 validator and the plain JSON trees."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema

from rea.catalog import CATALOG
from rea.catalog.advertised import REFERENCE_EXPANSIONS, advertised_input, expansions, shared_input
from rea.catalog.projection import advertised_schema, tool_definition
from rea.catalog.schemas import advertisement_problems, inline_refs
from reference_shapes import same_verdicts  # the reference examples and their mutations

UNBOUNDED = 10**9


def _without_defaults(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _without_defaults(v) for k, v in node.items() if k != "default"}
    if isinstance(node, list):
        return [_without_defaults(v) for v in node]
    return node


def _without_implied_types(node: Any) -> Any:
    """`type` dropped where every `const`/`enum` value beside it is of that JSON type (checked by jsonschema)."""
    if isinstance(node, list):
        return [_without_implied_types(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {
        k: (v if k in ("const", "enum", "default", "examples") else _without_implied_types(v)) for k, v in node.items()
    }
    if isinstance(out.get("type"), str) and ("const" in out or out.get("enum")):
        values = [out["const"]] if "const" in out else out["enum"]
        checker = jsonschema.Draft202012Validator.TYPE_CHECKER
        if all(checker.is_type(v, out["type"]) for v in values):
            out.pop("type")
    return out


def _dropped_defaults(canonical: Any, served: Any, path: str = "") -> list[str]:
    """Paths where the canonical schema has a default the served one lacks; asserts every default the
    served one keeps is the canonical one."""
    dropped = []
    if isinstance(canonical, dict) and isinstance(served, dict):
        if "default" in canonical:
            if "default" in served:
                assert served["default"] == canonical["default"], path
            else:
                made = {n: p["default"] for n, p in canonical.get("properties", {}).items() if "default" in p}
                assert canonical["default"] == made, f"{path}: only a default its properties make is dropped"
                dropped.append(path)
        for key, value in canonical.items():
            if key not in ("default", "examples", "const", "enum") and key in served:
                dropped += _dropped_defaults(value, served[key], f"{path}/{key}")
    elif isinstance(canonical, list) and isinstance(served, list):
        for i, (a, b) in enumerate(zip(canonical, served, strict=True)):
            dropped += _dropped_defaults(a, b, f"{path}/{i}")
    return dropped


def _implied_left(node: Any) -> list[Any]:
    """Nodes of the served schema that still carry a type their const/enum implies (none should)."""
    if isinstance(node, list):
        return [n for v in node for n in _implied_left(v)]
    if not isinstance(node, dict):
        return []
    keyed = {k: v for k, v in node.items() if k in ("type", "const", "enum")}
    here = [node] if "type" in keyed and "type" not in _without_implied_types(keyed) else []
    return here + [
        n for k, v in node.items() if k not in ("const", "enum", "default", "examples") for n in _implied_left(v)
    ]


def test_inlining_the_advertised_schema_gives_back_the_canonical_one():
    shared = 0
    for contract in CATALOG:
        canonical = copy.deepcopy(dict(contract.input_schema))
        assert advertised_input(contract.input_schema) == advertised_schema(contract)
        assert contract.input_schema == canonical  # the projection never edits the catalog row
        served = advertised_schema(contract)
        assert "$schema" not in served and canonical.pop("$schema") == "https://json-schema.org/draft/2020-12/schema"
        inlined = inline_refs(served, UNBOUNDED)
        assert _implied_left(served) == [], contract.name
        expected = _without_implied_types(_without_defaults(canonical))
        assert _without_defaults(inlined) == expected, contract.name
        _dropped_defaults(canonical, inlined)
        assert expansions(served) <= REFERENCE_EXPANSIONS, contract.name
        assert advertisement_problems(served) == [], contract.name
        jsonschema.Draft202012Validator.check_schema(served)
        shared += "$defs" in served
    assert shared >= 10  # the projection does share: capture_browser_scenario, inspect_analysis_view, ...


def test_the_advertised_schema_accepts_exactly_what_the_canonical_one_accepts():
    assert same_verdicts(lambda contract: tool_definition(contract)["inputSchema"]) > 300


def test_a_repeated_subschema_is_shared_with_its_own_annotations_beside_the_reference():
    locator = {"type": "object", "properties": {"css": {"type": "string", "minLength": 1}}, "required": ["css"]}
    schema = {
        "type": "object",
        "properties": {
            "first": {**locator, "description": "Where to click"},
            "second": {**locator, "description": "Where to type"},
            "third": dict(locator),
        },
    }
    served = shared_input(schema)
    assert served["$defs"] == {"first": locator}
    assert served["properties"] == {
        "first": {"$ref": "#/$defs/first", "description": "Where to click"},
        "second": {"$ref": "#/$defs/first", "description": "Where to type"},
        "third": {"$ref": "#/$defs/first"},
    }
    assert inline_refs(served, UNBOUNDED) == schema


def test_sharing_stops_short_of_the_reference_expansion_budget():
    item = {"type": "object", "properties": {"v": {"type": "string", "pattern": "^[a-z]{1,64}$"}}, "required": ["v"]}
    schema = {"type": "object", "properties": {f"p{i}": dict(item) for i in range(REFERENCE_EXPANSIONS + 1)}}
    assert "$defs" not in shared_input(schema)  # 33 references would pass Pi's 32
    fits = {"type": "object", "properties": {f"p{i}": dict(item) for i in range(REFERENCE_EXPANSIONS)}}
    assert expansions(shared_input(fits)) == REFERENCE_EXPANSIONS


def test_an_object_default_its_properties_make_is_served_once():
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "viewport": {
                "type": "object",
                "properties": {"width": {"type": "integer", "default": 1280}, "height": {"type": "integer"}},
                "default": {"width": 1280},
            },
            "other": {
                "type": "object",
                "properties": {"width": {"type": "integer", "default": 1280}},
                "default": {"width": 800},  # not what its property makes: kept
            },
        },
    }
    served = advertised_input(schema)
    assert "$schema" not in served and "default" not in served["properties"]["viewport"]
    assert served["properties"]["other"]["default"] == {"width": 800}
