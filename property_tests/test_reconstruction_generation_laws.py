"""Laws of obligation generation (rea.reconstruction.candidates) and of the ledger over generated obligations,
on generated application graphs, process captures and hostile records:

- ids are deterministic: a node's obligation id is SHA-256 over {"key", "schema"} (computed here by hashlib and
  json), whatever the order of the records or the bundle they come in;
- no obligation without a source: every generated obligation cites Evidence the bundle holds;
- any JSON as a source record's result is read or named as a limitation, never a crash;
- statuses never widen: an unreadable source, a contradiction or a lost binding never improves an
  obligation or the ledger, and a ledger with an unreadable source is never ready or open.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from prop_support import json_values
from rea.evidence import Evidence, Provider, create_evidence
from rea.reconstruction.candidates import APPLICATION, generate
from rea.reconstruction.ledger import build
from rea.reconstruction.records.ledger import LedgerRequest
from rea.wire.convert import structure

KINDS = st.sampled_from(
    [*sorted(APPLICATION), "javascript-module", "browser-window", "unknown", "boundary", "child-process"]
)
HEX = st.text("0123456789abcdef", min_size=64, max_size=64)
# the ledger's own order of statuses, best first (verified closes; the rest are open in decreasing promise)
OBLIGATION_RANK = {"verified": 0, "implemented": 1, "unowned": 1, "characterized": 1, "out-of-scope": 2,
                   "blocked": 2, "unknown": 3, "contradicted": 4}  # fmt: skip
LEDGER_RANK = {"ready": 0, "open": 1, "unknown": 2, "failed": 3}


def expected_id(key: str) -> str:
    text = json.dumps({"key": key, "schema": "ReconstructionObligation"}, sort_keys=True, separators=(",", ":"))
    return "obl_" + hashlib.sha256(text.encode()).hexdigest()


def record(operation: str, result: Any, salt: int = 0) -> Evidence:
    return create_evidence(
        provider=Provider(id="p", name="p", version="1"),
        operation=operation,
        parameters={"salt": salt},
        normalized_result=result,
        confidence="derived",
    ).unwrap()


@st.composite
def graphs(draw: Any) -> dict[str, Any]:
    nodes = [{"node_id": f"jag_node_{h}", "kind": draw(KINDS),
              "observations": [{"observation_id": f"o{i}", "label": f"n{i}",
                                "evidence": {"authority": "ast-static-analysis", "state": draw(st.sampled_from(
                                    ["observed", "inferred", "unknown"])), "evidence_ids": []}}]}
             for i, h in enumerate(draw(st.lists(HEX, max_size=6, unique=True)))]  # fmt: skip
    return {"root_artifact_sha256": draw(HEX), "graph": {"graph_id": "jag_g", "nodes": nodes,
            "coverage": {"status": draw(st.sampled_from(["complete", "partial"]))}}}  # fmt: skip


def capture(code: int, scenario: str) -> dict[str, Any]:
    return {"schema_version": 4, "exit": {"code": code, "signal": None, "reason": "exited"},
            "manifest": {"executable_sha256": "a" * 64, "full_scenario_sha256": scenario},
            "residual_unknowns": [], "truncated": False}  # fmt: skip


def bundle_of(*records: Evidence) -> dict[str, Evidence]:
    return {r.evidence_id: r for r in records}


@given(st.lists(graphs(), min_size=1, max_size=3), st.randoms(use_true_random=False))
def test_ids_are_digests_of_what_they_are_about_in_any_order(results, rnd):
    records = [record("analyze_javascript_application", r, i) for i, r in enumerate(results)]
    found = generate(bundle_of(*records))
    again = generate(bundle_of(*rnd.sample(records, len(records))))
    assert found == again
    want = {expected_id(f"application:{n['node_id']}:{APPLICATION[n['kind']].family}")
            for r in results for n in r["graph"]["nodes"] if n["kind"] in APPLICATION}  # fmt: skip
    assert set(found.candidates) == want
    if any(r["graph"]["coverage"]["status"] != "complete" for r in results):
        assert any("coverage is partial" in x for x in found.limitations)


@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["b" * 64, "c" * 64])), min_size=1, max_size=4))
def test_a_capture_names_one_lifecycle_per_scenario_with_its_exit_as_a_case(runs):
    records = [
        record("capture_process_scenario", capture(code, scenario), i) for i, (code, scenario) in enumerate(runs)
    ]
    found = generate(bundle_of(*records)).candidates
    assert set(found) == {expected_id(f"process:{'a' * 64}:{s}") for _, s in runs}
    for (code, scenario), r in zip(runs, records, strict=True):
        c = found[expected_id(f"process:{'a' * 64}:{scenario}")]
        kind = "positive" if code == 0 else "negative"
        assert {"kind": kind, "evidence_id": r.evidence_id, "location": "/normalized_result/exit"} in c.fields[
            "observed_cases"
        ]
        assert c.definitions == sum(1 for _, s in runs if s == scenario)


@given(st.sampled_from(["analyze_javascript_application", "reconcile_javascript_runtime",
                        "project_managed_application_graph", "capture_process_scenario"]), json_values(max_leaves=20))  # fmt: skip
def test_any_result_is_read_or_named_never_a_crash_and_never_sourceless(operation, result):
    hostile = record(operation, result)
    found = generate(bundle_of(hostile))
    for c in found.candidates.values():
        assert c.fields["authority_references"]
        assert all(r["evidence_id"] == hostile.evidence_id for r in c.fields["authority_references"])
    if not found.candidates:
        assert found.limitations or operation != "capture_process_scenario"


def ledger(records: dict[str, Evidence], bindings: list[dict[str, Any]], contradictions: list | None = None) -> Any:
    request = {"evidence_bundle": {}, "reviewed_obligations": [], "limits": {"max_obligations": 100},
               "page": {"offset": 0, "limit": 100},
               "manifest": {"schema_version": 1, "bindings": bindings, "contradictions": contradictions or []}}  # fmt: skip
    return build(structure(request, LedgerRequest).unwrap(), records).unwrap()


def binding(oid: str, source: str) -> dict[str, Any]:
    return {"obligation_id": oid, "owner": {"module_path": "m", "symbol": "s", "owner_sha256": "c" * 64},
            "parser_type": {"parser": "p", "schema": "s", "domain_type": "d"},
            "original_cases": [{"kind": "positive", "evidence_id": source, "location": "l"}], "fixtures": [],
            "verifier": None}  # fmt: skip


@given(graphs(), st.data())
def test_statuses_never_widen(result, data):
    source = record("analyze_javascript_application", result)
    records = bundle_of(source)
    ids = sorted(generate(records).candidates)
    bound = data.draw(st.lists(st.sampled_from(ids), unique=True)) if ids else []
    base = ledger(records, [binding(i, source.evidence_id) for i in bound])
    rows = {o["obligation_id"]: o["status"] for o in base["obligations"]}
    assert set(rows) == set(ids)
    assert all(o["authority_references"] for o in base["obligations"])
    # an unreadable source: the ledger is never ready or open, and no obligation improves
    broken = record("capture_process_scenario", {"schema_version": 4})
    worse = ledger({**records, broken.evidence_id: broken}, [binding(i, source.evidence_id) for i in bound])
    assert worse["status"] in ("unknown", "failed")
    assert LEDGER_RANK[worse["status"]] >= LEDGER_RANK[base["status"]]
    assert all(OBLIGATION_RANK[o["status"]] >= OBLIGATION_RANK[rows[o["obligation_id"]]] for o in worse["obligations"])
    # a lost binding or a contradiction never improves an obligation
    unbound = ledger(records, [])
    assert all(
        OBLIGATION_RANK[o["status"]] >= OBLIGATION_RANK[rows[o["obligation_id"]]] for o in unbound["obligations"]
    )
    if ids:
        both = [source.evidence_id, broken.evidence_id]
        with_broken = {**records, broken.evidence_id: broken}
        against = ledger(with_broken, [], [{"obligation_id": ids[0], "evidence_ids": both}])
        assert against["status"] == "failed"
        assert {o["obligation_id"]: o["status"] for o in against["obligations"]}[ids[0]] == "contradicted"


KEYS = st.sampled_from(["evidence_ids", "state", "authority", "context_id", "label", "observation_id", "evidence",
                        "artifact_sha256", "coverage", "status"])  # fmt: skip


def parts(leaves: int) -> st.SearchStrategy:
    return json_values(keys=KEYS, max_leaves=leaves)


NODE_PARTS = st.fixed_dictionaries({}, optional={
    "node_id": parts(3) | HEX.map(lambda h: f"jag_node_{h}"), "kind": KINDS | parts(2),
    "observations": parts(8), "label": parts(2),
    "application_node_ids": parts(3), "identity": parts(4),
    "evidence": parts(4)})  # fmt: skip


@given(st.lists(NODE_PARTS, max_size=4), st.lists(parts(6), max_size=3) | parts(4))
@example([{"kind": "ipc-channel", "observations": [{"evidence": {"evidence_ids": 5}}]}], [])
@example([{"kind": "boundary", "evidence": {"context_id": [1]}, "application_node_ids": {"a": 1}}],
         [{"context_id": [2]}])  # fmt: skip
def test_hostile_nodes_inside_a_graph_are_read_or_named(nodes, contexts):
    """Nodes of any shape inside an application graph and a semantic graph it retains: never a crash."""
    semantic = record("javascript_semantic_graph", {"graph_id": "g", "nodes": nodes, "evidence_contexts": contexts})
    analysis = record("analyze_javascript_application", {"graph": {"graph_id": "g", "nodes": nodes},
                      "semantic_graph": {"retained": {"evidence_id": semantic.evidence_id}}})  # fmt: skip
    found = generate(bundle_of(analysis, semantic))
    for c in found.candidates.values():
        assert {r["evidence_id"] for r in c.fields["authority_references"]} <= {
            analysis.evidence_id,
            semantic.evidence_id,
        }
