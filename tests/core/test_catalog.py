from effects.catalog_export import DEFAULT, render
from rea.catalog import CATALOG
from rea.catalog.projection import PROVENANCE
from rea.catalog.schemas import advertisement_problems, bind_id
from rea.replies import meta_for
from rea.validation import validate_arguments


def test_generated_catalog_is_current():
    assert DEFAULT.read_bytes() == render(), "run `just catalog` and commit docs/public/product-catalog.json"


def test_schemas_follow_advertisement_rules_and_examples_validate():
    for contract in CATALOG:
        assert advertisement_problems(contract.input_schema) == []
        assert advertisement_problems(contract.output_schema) == []
        assert bind_id(contract.output_schema) == contract.output_schema
        for example in contract.input_schema.get("examples", []):
            assert validate_arguments(contract.name, contract.input_schema, example).unwrap() == example


def test_only_audited_tools_drop_the_untrusted_marker():
    unmarked = {c.name for c in CATALOG if meta_for(c) is None}
    assert unmarked == {"export_evidence_bundle", "record_unknown"}
    assert meta_for(None) == PROVENANCE


def test_recursive_or_root_ref_schemas_are_caught():
    recursive = {
        "type": "object",
        "$defs": {"n": {"type": "object", "properties": {"next": {"$ref": "#/$defs/n"}}}},
        "properties": {"root": {"$ref": "#/$defs/n"}},
    }
    assert any("recursive" in p for p in advertisement_problems(recursive))
    assert "root carries $ref" in advertisement_problems({"type": "object", "$ref": "#/$defs/x", "$defs": {"x": {}}})


def test_what_a_client_puts_in_context_stays_small():
    """Descriptions and input schemas (what a client shows the model) average under 2 KB a tool; output
    schemas may be larger (typed results), and every reference inside a schema resolves within it."""
    import orjson

    from rea.catalog import CATALOG
    from rea.catalog.projection import tool_definition
    from rea.catalog.schemas import advertisement_problems

    defs = [tool_definition(c) for c in CATALOG]
    context = [len(orjson.dumps(d["inputSchema"])) + len(d["description"].encode()) for d in defs]
    assert sum(context) / len(context) < 2048, sorted(zip(context, (d["name"] for d in defs)))[-5:]
    for d in defs:
        assert advertisement_problems(d["outputSchema"]) == [], d["name"]
        assert "$ref" not in orjson.dumps(d["outputSchema"]).decode(), d["name"]
