"""Laws of per-file fact extraction on hostile input: any bytes, any JSON shaped like a source map, any text
carrying a bundler's marks give facts (with a parse status), never an exception."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from effects.javascript.extract import file_facts, source_map_facts

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
MAPPINGS = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/,;!", max_size=80)
SOURCE_NAMES = st.one_of(
    st.none(), st.integers(), st.sampled_from(["a.js", "webpack://x/./b.ts", "../c.mjs", "", "d.css"])
)
CONTENTS = st.one_of(
    st.none(),
    st.integers(),
    st.sampled_from(["import x from './a.js';\n", "export {", "\ud800", "module.exports = require('b')"]),
)


@settings(max_examples=150)
@given(st.lists(SOURCE_NAMES, max_size=5), st.lists(CONTENTS, max_size=6), MAPPINGS, JSON)
def test_any_source_map_shape_gives_facts(sources, contents, mappings, extra):
    doc = {"version": 3, "sources": sources, "sourcesContent": contents, "mappings": mappings, "extra": extra}
    facts = source_map_facts(json.dumps(doc).encode(), max_sources=3)
    assert facts["parse"] == "ok"
    assert len(facts["sources"]) == min(len(sources), 3)  # index-aligned, nulls kept
    for run in facts.get("runs", ()):
        assert 0 <= run[2] < len(sources)


@settings(max_examples=100)
@given(st.binary(max_size=300))
def test_any_bytes_as_a_source_map_or_script_give_a_status(data):
    for kind in ("source-map", "javascript", "typescript", "package-json", "tsconfig", "html"):
        facts = file_facts(data, kind, 100_000, 10)
        assert "sha256" in facts


BUNDLE_PIECES = st.sampled_from(
    [
        "__webpack_require__",
        "webpackJsonp",
        "l:!1,exports:{}",
        '"function"==typeof require&&require',
        "MODULE_NOT_FOUND",
        "{1:[function(require,module,exports){",
        '},{"./a":2}],',
        "!function(e){",
        "}([function(e,t,n){n(0)},,",
        "])",
        "{726:(e,t,n)=>{n(1)}",
        "n.d(t,{a:()=>b})",
        'n.d(t,"x",function(){})',
        "o(o.s=0)",
        "(",
        ")",
        "{",
        "}",
        ",",
        ";",
        "function t(s){return s}(967)",
        "//# sourceMappingURL=a.js.map\n",
        "push([[1],{3:function(n,t,u){u(3)}}])",
    ]
)


@settings(max_examples=150)
@given(st.lists(BUNDLE_PIECES, max_size=25).map("".join))
def test_text_with_bundler_marks_gives_facts_and_a_consistent_table(text):
    facts = file_facts(text.encode(), "javascript", 100_000, 10)
    assert facts["parse"] in ("ok", "recovered", "omitted")
    table = facts.get("bundle_table")
    if table is not None:
        starts = [m["start"] for m in table["modules"]]
        assert starts == sorted(starts)
        assert all(a["end"] <= b["start"] for a, b in zip(table["modules"], table["modules"][1:]))  # no overlap
