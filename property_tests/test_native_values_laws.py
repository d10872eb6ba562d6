"""Laws of trace_native_values (rea.native.values): hostile engine facts come back as a reason, never an
exception; a trace never spends more than any budget and names each budget that stopped it; every edge
joins nodes of the graph (a call edge: a node and a procedure address); pages partition the nodes in one
stable order and each edge is listed exactly on the page holding its source."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rea.native import values
from rea.native.records import values as w

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=5),
    max_leaves=25,
)
FIELDS = ("available", "operations", "def_use", "parameters", "parameter_uses", "reason")


@given(json_values | st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=6))
def test_hostile_facts_are_a_reason_never_an_exception(facts):
    made = values.flow(facts)
    assert isinstance(made, (w.ValueFlow, w.NoValueFlow))
    if isinstance(made, w.NoValueFlow):
        assert made.reason


def _varnode(location: str | None, kind: str = "register") -> dict[str, Any]:
    return {"kind": kind, "size_bytes": 8, "location": location, "constant_hex": None}


@st.composite
def programs(draw: Any) -> dict[str, dict[str, Any]]:
    """Procedures 0x10, 0x20, ...: straight-line operations, some calls to other procedures (or an unknown
    address), def-use between operations and uses of parameters."""
    count = draw(st.integers(1, 5))
    addresses = [f"0x{16 * (i + 1):x}" for i in range(count)]
    out = {}
    for address in addresses:
        size = draw(st.integers(1, 6))
        base = int(address, 16)
        ops = []
        for i in range(size):
            op_id = f"0x{base + i:x}"
            callee = draw(st.none() | st.sampled_from([*addresses, "0x999"]))
            kind = "CALL" if callee else draw(st.sampled_from(["MOV", "ADD", "RETURN"]))
            inputs = [_varnode(callee, "address")] if callee else []
            inputs += [_varnode("rdi")] * draw(st.integers(0, 2))
            ops.append(
                {
                    "id": op_id,
                    "address": op_id,
                    "sequence": i,
                    "opcode": kind,
                    "is_dead": False,
                    "block_membership": "member",
                    "inputs": inputs,
                    "output": _varnode("rax") if draw(st.booleans()) else None,
                }
            )
        ids = [o["id"] for o in ops]
        params = [
            {"ordinal": k, "name": f"arg_{k}", "data_type": "int", "storage": "rdi"}
            for k in range(draw(st.integers(0, 2)))
        ]
        pairs = st.tuples(st.sampled_from(ids), st.sampled_from(ids), st.integers(0, 2))
        out[address] = {
            "available": True,
            "operations": ops,
            "def_use": [{"definition": d, "use": u, "input_index": k} for d, u, k in draw(st.lists(pairs, max_size=6))],
            "parameters": params,
            "parameter_uses": [
                {"ordinal": p["ordinal"], "use": draw(st.sampled_from(ids)), "input_index": 0} for p in params
            ],
        }
    return out


budgets = st.fixed_dictionaries(
    {
        "max_depth": st.integers(0, 4),
        "max_functions": st.integers(1, 6),
        "max_call_sites": st.integers(1, 8),
        "max_nodes": st.integers(1, 40),
        "max_edges": st.integers(1, 60),
    }
)


def _trace(program: dict[str, dict[str, Any]], args: dict[str, Any]) -> values.Tracer:
    """What the workflow does, without the engine: analyse what next() asks for, in its order."""
    find = {a: {"kind": "function", "name": f"f{a}", "address": a} for a in program}.get
    tracer = values.Tracer(args, "0x10", find)
    while (step := tracer.next()) is not None:
        address, depth = step
        tracer.add(address, depth, "ev_" + address[2:].rjust(64, "0"), values.flow(program[address]), "angr", None)
    return tracer


@settings(max_examples=150)
@given(programs(), budgets)
def test_budgets_bound_the_trace_and_stops_are_named(program, limits):
    args = {**limits, "offset": 0, "limit": 5000}
    tracer = _trace(program, args)
    result = tracer.answer("0x10", "0" * 64)
    assert result.total_nodes <= limits["max_nodes"] and result.total_edges <= limits["max_edges"]
    assert result.decompilations <= limits["max_functions"]
    assert all(p.depth <= limits["max_depth"] for p in result.procedures)
    assert result.budgets.call_sites.used <= limits["max_call_sites"]
    stopped = {name for name in ("depth", "functions", "call_sites", "nodes", "edges") if tracer.exhausted >= {name}}
    for name in stopped:
        assert any(f"max_{name}" in u.reason for u in result.unknowns)
    assert result.truncated == bool(stopped)
    ids = {n.id for n in result.nodes}
    for e in result.edges:
        assert e.source in ids
        assert e.target in ids if e.kind != "call" else e.target in (*program, "0x999")


@settings(max_examples=100)
@given(programs(), budgets, st.integers(1, 7))
def test_pages_partition_nodes_and_list_each_edge_with_its_source(program, limits, size):
    whole = _trace(program, {**limits, "offset": 0, "limit": 5000}).answer("0x10", "0" * 64)
    seen, edges, offset = [], [], 0
    while offset is not None:
        page = _trace(program, {**limits, "offset": offset, "limit": size}).answer("0x10", "0" * 64)
        assert page.total_nodes == whole.total_nodes and len(page.nodes) <= size
        seen += list(page.nodes)
        edges += list(page.edges)
        offset = page.next_offset
    assert seen == list(whole.nodes)
    assert sorted(edges, key=repr) == sorted(whole.edges, key=repr)
