"""Laws of the Ghidra translation over hostile answers: it never raises; every procedure has one
entry in loaded memory (or the extern space); no two bodies share a byte; every block lies in its
own procedure's body; every call and reference names addresses the translation reported; and the
installation parsers read any text."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure, Success

from rea.native import ghidra as g
from rea.native import ghidra_cfg
from rea.native import ghidra_queries as gq
from rea.native.ghidra_install import decide, java_major, parse_properties

HELLO = json.loads((Path(__file__).parents[1] / "tests" / "fixtures" / "ghidra" / "hello.program.json").read_text())

json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-(2**64), 2**64), st.text(max_size=12))
json_tree = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
# addresses near the fixture's memory, in Ghidra's spellings, plus junk
offsets = st.integers(0x100000, 0x105100)
address = st.one_of(
    offsets.map(lambda o: f"{o:08x}"),
    offsets.map(lambda o: f"ram:{o:08x}"),
    st.integers(0, 8).map(lambda o: f"EXTERNAL:{o:08x}"),
    st.sampled_from(["", "zz", "OTHER:00000000", "0x", None, 7]),
)
ranges = st.lists(st.fixed_dictionaries({"min": address, "max": address}), max_size=3)
function = st.fixed_dictionaries(
    {"entry": address, "body": ranges},
    optional={
        "name": st.one_of(st.text(max_size=6), st.none()),
        "thunk": st.booleans(),
        "external": st.booleans(),
        "thunked": address,
        "no_return": json_leaf,
        "blocks": st.lists(
            st.fixed_dictionaries(
                {"min": address, "max": address},
                optional={"destinations": st.lists(st.fixed_dictionaries({"to": address, "flow_type": st.text()}))},
            ),
            max_size=3,
        ),
    },
)
types = st.sampled_from(["UNCONDITIONAL_CALL", "COMPUTED_CALL", "DATA", "READ", "WRITE", "THUNK", "FALL_THROUGH", "X"])
reference = st.fixed_dictionaries({"from": address, "to": address, "type": types})


def _damaged(functions, references, extra):
    return {**HELLO, "functions": functions, "references": references, **extra}


def _loaded_or_extern(space: g.Space, addr: str) -> bool:
    return addr.startswith("extern:") or space.loaded(addr)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(function, max_size=8),
    st.lists(reference, max_size=10),
    st.dictionaries(st.sampled_from(["strings", "symbols", "memory_blocks", "file", "externals"]), json_tree),
)
def test_the_translation_of_any_answer_keeps_its_laws(functions, references, extra):
    raw = _damaged(functions, references, extra)
    loader, cfg = g.loader_facts(raw), ghidra_cfg.cfg_snapshot(raw)
    assert isinstance(loader, (Success, Failure)) and isinstance(cfg, (Success, Failure))
    if not isinstance(cfg, Success):
        return
    space = g.space_of(raw).unwrap()
    snapshot = cfg.unwrap()
    procs = snapshot["procedures"]
    addresses = [p["address"] for p in procs]
    assert len(set(addresses)) == len(addresses)
    assert all(_loaded_or_extern(space, a) for a in addresses)
    spans = sorted(
        (int(b["start"], 16), int(b["start"], 16) + b["size"], p["address"]) for p in procs for b in p["blocks"]
    )
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))  # no byte in two blocks, so in two bodies
    assert all(p["size"] == sum(b["size"] for b in p["blocks"]) or p["kind"] == "external" for p in procs)
    known = set(addresses)
    for p in procs:
        assert set(p["callees"]) <= known and set(p["callers"]) <= known
        assert all(s["target"] in known for s in p["call_sites"])
    for ref in snapshot["data_references"]:
        assert _loaded_or_extern(space, ref["from"]) and _loaded_or_extern(space, ref["to"])
    json.dumps(snapshot)  # plain data all the way down


@given(json_tree)
def test_any_json_answer_is_a_result(tree):
    for translate in (g.loader_facts, ghidra_cfg.cfg_snapshot, g.space_of):
        assert isinstance(translate(tree) if isinstance(tree, dict) else g.loader_facts(tree), (Success, Failure))
    procedure = {"address": "0x1", "name": "f", "kind": "function", "blocks": []}
    space = g.Space(delta=0, spans=((0, 0x10),))
    for query in (
        lambda: gq.disassembly(tree, space, procedure),
        lambda: gq.pseudocode(tree, procedure),
        lambda: gq.boundary(tree, procedure),
    ):
        assert isinstance(query(), (Success, Failure))


@given(st.text(max_size=200))
def test_installation_parsers_read_any_text(text):
    major = java_major(text)
    assert major is None or 1 <= major < 1000
    for key, value in parse_properties(text).items():
        assert key == key.strip() and value == value.strip() and "\n" not in key + value and "=" not in key
    assert g.parse_address(text) is None or isinstance(g.parse_address(text)[1], int)
    fact = decide(
        {"install_dir": "/g", "is_dir": True, "property_files": ["x"], "java": "/j", "java_version_text": text}
    )
    assert fact["available"] is False or fact["bindable"] is True
