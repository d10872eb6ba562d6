"""Laws of the script tools over hostile input: a page controls its script text and the source maps it
declares, so fuzzed scripts and maps never raise, every analysis fits the advertised output schema, and a
decoded map's mappings always name a listed source."""

from __future__ import annotations

import json

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.pipeline import is_successful

from effects.web.scripts import parse_scripts
from rea.javascript.sourcemap import encode_vlq, segments
from rea.web.bundle import analysis
from rea.web.completeness import DROPPED_KINDS
from rea.web.module_imports import import_map, resolve
from rea.web.records.scripts import WebBundleAnalysis
from rea.web.redaction import text_artifact
from rea.web.script_effects import ParseWebScripts
from rea.web.script_export import capture_record, plan
from rea.web.source_location import lookup
from rea.web.source_maps import source_maps
from rea.wire.convert import to_wire
from rea.wire.schema import Role, schema_of

ANALYSIS = jsonschema.Draft202012Validator(schema_of(WebBundleAnalysis, Role.OUTPUT))
LIMITS = {
    "max_findings": 50,
    "max_ast_nodes": 5_000,
    "max_source_maps": 4,
    "max_source_map_bytes": 1 << 16,
    "max_total_source_map_bytes": 1 << 17,
    "max_source_map_mappings": 100,
    "max_original_sources": 20,
}
FRAGMENTS = st.sampled_from(
    [
        "import a from './a.js';",
        "export * from '../b.js';",
        "import(x);",
        "import('./c.js');",
        "fetch('/api/v1?x=1');",
        "require('fs');",
        "{path: '/u/:id'}",
        "navigator.modelContext.registerTool({name: 't', inputSchema: {properties: {a: 1}}});",
        "new Worker('w.js');",
        "\u2028",
        "𝄞",
        "((((",
        "`${",
        "/*",
        "\n",
    ]
)
scripts = st.lists(st.one_of(FRAGMENTS, st.text(max_size=20)), max_size=12).map("".join)
COMPLETENESS = {
    "status": "complete_within_window",
    "conditions": ["complete_within_window"],
    "policy_filtered_sections": [],
    "attach_limited_sections": [],
    "truncated_sections": [],
    "unavailable_sections": [],
    "excluded": [],
    "dropped_events": dict.fromkeys((*DROPPED_KINDS, "total"), 0),
}


def _page(texts: list[str]) -> dict:
    items = [
        {
            "script_key": f"scr_{i:064x}",
            "url": f"http://127.0.0.1:8000/{i}.js",
            "source_map_url": f"{i}.js.map",
            "source": {"included": True, "artifact": to_wire(text_artifact(t, "text/javascript"))},
        }
        for i, t in enumerate(texts)
    ]
    return {
        "target": {"url": "http://127.0.0.1:8000/"},
        "scripts": {"total": len(items), "items": items},
        "completeness": COMPLETENESS,
    }


@settings(max_examples=60, deadline=None)
@given(
    st.lists(scripts, min_size=1, max_size=3),
    st.lists(st.one_of(st.text(max_size=60), st.binary(max_size=60)), max_size=3),
)
def test_fuzzed_scripts_and_maps_analyze_within_the_schema(texts: list[str], bodies: list) -> None:
    page = _page(texts)
    facts = parse_scripts(
        ParseWebScripts(
            scripts=[{"script_key": s["script_key"], "text": t} for s, t in zip(page["scripts"]["items"], texts)],
            max_ast_nodes=LIMITS["max_ast_nodes"],
        )
    )
    wanted = [
        {"script_key": s["script_key"], "declared_url": s["source_map_url"], "fetch_url": s["url"] + ".map"}
        for s in page["scripts"]["items"]
    ]
    fetched = [
        {**w, "status": "fetched", "bytes_read": len(b), "body": b if isinstance(b, bytes) else b.encode()}
        for w, b in zip(wanted, bodies)
    ]
    result = analysis(page, facts, source_maps(wanted, fetched, LIMITS), LIMITS)
    ANALYSIS.validate(json.loads(json.dumps(result)))
    kept = sum(len(result["observations"][k]) for k in ("routes", "endpoints", "webmcp_declarations"))
    assert kept + len(result["observations"]["chunks"]["edges"]) + len(result["inferences"]) <= LIMITS["max_findings"]


segment_fields = st.lists(st.integers(-40, 40), min_size=1, max_size=6)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(segment_fields, max_size=4), max_size=5), st.integers(0, 4))
def test_decoded_maps_name_only_listed_sources(lines: list, count: int) -> None:
    mappings = ";".join(",".join(encode_vlq(f) for f in line) for line in lines)
    text = json.dumps(
        {"version": 3, "sources": [f"s{i}.js" for i in range(count)], "names": ["n"], "mappings": mappings}
    )
    request = {"script_key": "k", "declared_url": "a.map", "fetch_url": "http://h/a.map"}
    maps = source_maps(
        [request], [{**request, "status": "fetched", "bytes_read": len(text), "body": text.encode()}], LIMITS
    )
    (item,) = to_wire(maps)["items"]
    assert item["status"] in ("included", "truncated", "invalid")
    listed = {s["source"] for s in item["original_sources"]}
    assert all(m["source"] in listed for m in item["mappings"])
    if item["status"] != "invalid":
        assert len(item["mappings"]) == min(
            LIMITS["max_source_map_mappings"], sum(1 for s in segments(mappings) if s.source is not None)
        )


map_docs = st.fixed_dictionaries(
    {
        "version": st.sampled_from([3, 3, 2, "3"]),
        "sources": st.lists(st.one_of(st.text(max_size=8), st.none()), max_size=3),
        "sourcesContent": st.lists(st.one_of(st.text(max_size=20), st.none()), max_size=3),
        "names": st.lists(st.text(max_size=4), max_size=2),
        "mappings": st.lists(st.lists(segment_fields, max_size=3), max_size=3).map(
            lambda ls: ";".join(",".join(encode_vlq(f) for f in line) for line in ls)
        ),
    }
)
indexed = st.builds(
    lambda maps, offsets: {
        "version": 3,
        "sections": [{"offset": {"line": o[0], "column": o[1]}, "map": m} for m, o in zip(maps, offsets)],
    },
    st.lists(map_docs, max_size=3),
    st.lists(st.tuples(st.integers(-1, 3), st.integers(0, 5)), max_size=3),
)


@settings(max_examples=150, deadline=None)
@given(
    st.one_of(map_docs, indexed, st.text(max_size=40).map(lambda t: {"raw": t})), st.integers(1, 4), st.integers(0, 30)
)
def test_source_location_lookup_answers_or_refuses(doc: dict, line: int, column: int) -> None:
    text = doc["raw"] if "raw" in doc else json.dumps(doc)
    answered = lookup(text, "https://example.test/app.js.map", line, column)
    if not is_successful(answered):
        refused = answered.failure()
        assert refused.code == "invalid_request" and refused.details["field"] == "source_map.path"
        return
    got = answered.unwrap()
    found = got["lookup"]["matched_generated_position"]
    for match in got["matches"]:
        assert found is not None and (found["line"], found["column"]) <= (line, column)
        if match["state"] == "mapped" and match["content"]["state"] == "embedded":
            assert match["content"]["utf8_bytes"] == len(match["content"]["text"].encode("utf-8", "surrogatepass"))


@settings(max_examples=200, deadline=None)
@given(
    st.text(max_size=30),
    st.one_of(st.none(), st.dictionaries(st.text(max_size=10), st.one_of(st.text(max_size=10), st.none()), max_size=4)),
)
def test_module_resolution_answers_for_any_specifier(specifier: str, imports: dict | None) -> None:
    imap = (
        None if imports is None else import_map(json.dumps({"imports": imports}), "https://example.test/app/").unwrap()
    )
    got = resolve(specifier, "https://example.test/app/main.js", imap)
    assert got["state"] in ("resolved", "rejected")


@settings(max_examples=100, deadline=None)
@given(
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.text(max_size=6), st.integers()),
        lambda c: st.one_of(
            st.lists(c, max_size=3),
            st.dictionaries(
                st.sampled_from(
                    [
                        "scripts",
                        "items",
                        "completeness",
                        "source",
                        "normalized_result",
                        "url",
                        "included",
                        "artifact",
                        "text",
                    ]
                ),
                c,
                max_size=4,
            ),
        ),
        max_leaves=20,
    )
)
def test_hostile_captures_are_refused_or_planned(doc) -> None:
    answered = capture_record(json.dumps(doc).encode(), "/c.json")
    if not is_successful(answered):
        assert answered.failure().code == "invalid_request"
        return
    for row in plan(answered.unwrap()[0]):
        assert row["content"]["state"] in ("exported", "unavailable")
