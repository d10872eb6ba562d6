"""Laws of the web family's pure core over hostile browser answers: nothing raises, every result
fits the advertised output schema, and storage values never reach a result.

A page controls its DOM, attributes, console arguments, WebMCP schemas and storage; a hostile
endpoint controls every other field. The generators keep CDP's key names and fill them with
arbitrary JSON.
"""

from __future__ import annotations

import json

import jsonschema
from hypothesis import given
from hypothesis import strategies as st

from prop_support import json_value
from rea.catalog import BY_NAME
from rea.web.inspection import inspection
from rea.web.records.browser import InspectWebPageArgs
from rea.web.records.page import WebPageInspection
from rea.web.records.webmcp import WebMcpDiscovery
from rea.web.redaction import json_shape
from rea.web.scope import allowed_origins, sanitize_url
from rea.web.webmcp import discovery, summarize_schema
from rea.wire.convert import to_wire
from rea.wire.schema import Role, schema_of

SECRET = "VALUE-NEVER-SHOWN"
INSPECTION = jsonschema.Draft202012Validator(schema_of(WebPageInspection, Role.OUTPUT))
WEBMCP = jsonschema.Draft202012Validator(schema_of(WebMcpDiscovery, Role.OUTPUT))
ARGS = InspectWebPageArgs(
    cdp_endpoint="http://127.0.0.1:9222",
    target_id="T",
    observation_ms=0,
    max_dom_nodes=50,
    include_accessibility_text=True,
    include_console_text=True,
    include_json_body_shapes=True,
    include_websocket_shapes=True,
    include_storage_keys=True,
    include_storage_fingerprints=True,
    include_script_sources=True,
)
urls = st.sampled_from(["http://127.0.0.1:8000/a.js", "https://x.test/b", "about:blank", "", "data:,x", "http://[::1"])
texts = st.text(max_size=12)


def node(children: st.SearchStrategy | None) -> st.SearchStrategy:
    kids = (
        {}
        if children is None
        else {"children": st.lists(children, max_size=3), "shadowRoots": st.lists(children, max_size=1)}
    )
    return st.fixed_dictionaries(
        {
            "nodeType": st.integers(0, 12),
            "nodeName": texts,
            "nodeValue": st.one_of(st.none(), texts),
            "attributes": st.lists(st.one_of(texts, urls), max_size=6),
        },
        optional=kids,
    )


documents = st.recursive(node(None), node, max_leaves=20)
ax = st.fixed_dictionaries(
    {"nodeId": texts, "ignored": st.booleans()},
    optional={
        "role": st.fixed_dictionaries({"value": json_value}),
        "name": st.fixed_dictionaries({"value": json_value}),
        "properties": st.lists(
            st.fixed_dictionaries({"name": texts, "value": st.fixed_dictionaries({"value": json_value})})
        ),
    },
)
scripts = st.fixed_dictionaries(
    {"scriptId": texts, "url": urls, "hash": texts, "length": st.integers(0, 10**6)},
    optional={"isModule": st.booleans(), "scriptLanguage": st.one_of(st.none(), texts), "sourceMapURL": texts},
)
requests = st.tuples(
    texts,
    st.fixed_dictionaries(
        {
            "sent": st.fixed_dictionaries(
                {
                    "request": st.fixed_dictionaries({"url": urls, "method": texts}),
                    "initiator": json_value.filter(lambda v: isinstance(v, dict) or v is None),
                }
            ),
            "response": st.none(),
            "finished": st.none(),
        },
        optional={"response_body": st.one_of(texts, st.just('{"a":[1,{"b":null}]}')), "request_body": texts},
    ),
)
console = st.fixed_dictionaries(
    {
        "type": texts,
        "timestamp": st.floats(0, 2e12, allow_nan=False),
        "args": st.lists(st.dictionaries(texts, json_value, max_size=3), max_size=3),
    }
)
entries = st.lists(st.tuples(texts, st.just(SECRET)), max_size=3)


@given(
    documents,
    st.lists(ax, max_size=5),
    st.lists(scripts, max_size=4),
    st.lists(requests, max_size=3),
    st.lists(console, max_size=3),
    entries,
    entries,
)
def test_inspection_fits_its_schema_and_never_shows_a_storage_value(doc, nodes, parsed, reqs, logs, local, session):
    raw = {
        "started_at": "2026-01-01T00:00:00.000Z",
        "ended_at": "2026-01-01T00:00:00.100Z",
        "started_ms": 0.0,
        "frame_tree": {"frame": {"id": "F", "url": "http://127.0.0.1:8000/"}},
        "document": doc,
        "ax_nodes": nodes,
        "resource_tree": None,
        "scripts": parsed,
        "sources": {s["scriptId"]: "x" for s in parsed},
        "requests": reqs,
        "websocket_frames": [],
        "console": logs,
        "storage": {"local": local, "session": session, "cookies": [["sid", SECRET]], "indexed_db": [], "caches": []},
        "main_frame_url": "http://127.0.0.1:8000/",
        "dropped": {"scripts": 1},
        "unavailable": {},
    }
    target = {"id": "T", "type": "page", "url": "http://127.0.0.1:8000/", "title": "t"}
    result = inspection({}, target, [], raw, ("http://127.0.0.1:8000",), ARGS)
    INSPECTION.validate(result)
    shown = json.dumps({k: v for k, v in result.items() if k != "storage"}) + json.dumps(result["storage"])
    assert SECRET not in shown
    assert result["completeness"]["status"] == "truncated"  # the dropped script is never hidden


def deep(levels: int) -> dict:
    schema: dict = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"n": schema}}
    return schema


LIMITS = {"max_schema_depth": 20, "max_schema_nodes": 5000, "max_schema_bytes": 262144, "max_tools": 10}


@given(
    st.lists(
        st.fixed_dictionaries(
            {"name": texts, "frameId": st.sampled_from(["F", "G"])},
            optional={
                "inputSchema": json_value,
                "annotations": json_value,
                "stackTrace": json_value,
                "backendNodeId": st.integers(),
            },
        ),
        max_size=5,
    ),
    st.integers(0, 400),
)
def test_webmcp_discovery_fits_its_schema_at_any_depth(tools, levels):
    tools = [*tools, {"name": "deep", "frameId": "F", "inputSchema": deep(levels)}]
    for tool in tools:  # a page's stack trace and annotations are any JSON; keep CDP's container types
        tool["stackTrace"] = tool["stackTrace"] if isinstance(tool.get("stackTrace"), dict) else {}
        tool["annotations"] = tool["annotations"] if isinstance(tool.get("annotations"), dict) else {}
    raw = {"frame": {"id": "F", "url": "http://127.0.0.1:8000/"}, "available": True, "tools": tools}
    result = to_wire(
        discovery({}, {"id": "T", "url": "http://127.0.0.1:8000/"}, raw, ("http://127.0.0.1:8000",), LIMITS)
    )
    WEBMCP.validate(result)
    entry = next(t for t in result["tools"]["items"] if t["name"] == "deep")
    assert (entry["input_schema"] is None) == (2 * levels + 1 > LIMITS["max_schema_depth"])  # two JSON levels each


@given(st.text(max_size=200))
def test_json_shape_and_url_helpers_take_any_text(text):
    shape = json_shape(text)
    assert shape is None or shape.node_count >= 1
    assert set(sanitize_url(text)) == {"url", "origin", "query_parameter_names", "redacted"}
    allowed_origins([text])  # a Result either way, never an exception


def test_a_schema_nested_far_past_the_recursion_limit_is_summarized():
    inline, digest, summary = summarize_schema(deep(5000), LIMITS)
    assert inline is None and digest is None and summary.exceeded == ("depth",) and summary.max_depth == 21
    assert json_shape(json.dumps(deep(300))) is not None  # iterative: no stack to exhaust
    assert BY_NAME["discover_webmcp_tools"].args_type is not None
