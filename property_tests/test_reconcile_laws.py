"""Laws of reconcile_javascript_runtime's pure core (rea.javascript.reconcile*).

- mapping normalization is idempotent and ignores the order a caller wrote the mappings in;
- a runtime path inside a root maps to a relative path that joins back to it, and nothing outside maps;
- any JSON as a capture's result is read or refused with Refused, never another exception;
- the result is a function of the set of inputs: permuting layers or captures changes nothing;
- every retained runtime entity has exactly one reconciliation; a matched one names a node of the graph
  and an observed_as edge; counts add up to the limits and their omissions.
"""

from __future__ import annotations

import hashlib
import posixpath
from typing import Any

import attrs
from hypothesis import given
from hypothesis import strategies as st

from prop_support import json_values
from rea.evidence import Provider, create_evidence
from rea.javascript import reconcile_inputs as ri
from rea.javascript import reconcile_nodes as rn
from rea.javascript.reconcile import reconcile
from rea.javascript.records.reconciliation import FileRootMapping, ReconciliationLimits, UrlPrefixMapping

segment = st.text("abcxyz.-_", min_size=1, max_size=6).filter(lambda s: s not in (".", ".."))
rel_path = st.lists(segment, min_size=1, max_size=4).map("/".join)
LIMITS = ReconciliationLimits(
    max_runtime_entities=10_000, max_reconciliation_items=20_000, max_static_load_states=20_000
)


file_mapping = st.builds(
    lambda root, prefix: FileRootMapping(kind="file-root", root="/" + root, artifact_prefix=prefix),
    rel_path,
    st.one_of(st.just(""), rel_path),
)
url_mapping = st.builds(
    lambda path, prefix: UrlPrefixMapping(
        kind="url-prefix", prefix=f"https://example.test/{path}", artifact_prefix=prefix
    ),
    rel_path,
    st.one_of(st.just(""), rel_path),
)


@given(st.lists(st.one_of(file_mapping, url_mapping), max_size=6), st.randoms())
def test_mapping_normalization_is_idempotent_and_order_free(maps, rnd):
    once = ri.mappings(maps, "m")
    shuffled = list(maps)
    rnd.shuffle(shuffled)
    assert ri.mappings(shuffled, "m") == once
    assert ri.mappings(list(once), "m") == once
    assert all(not isinstance(m, UrlPrefixMapping) or m.prefix.endswith("/") for m in once)


@given(rel_path, st.lists(segment | st.just(".."), min_size=1, max_size=5).map("/".join))
def test_a_path_maps_below_its_root_or_not_at_all(root, rest):
    base = "/" + root
    value = posixpath.normpath(posixpath.join(base, rest))
    got = rn.below_root(base, value)
    if got is None:
        assert value == base or not value.startswith(base + "/")
    else:
        assert not got.startswith("../") and got != ".."
        assert posixpath.normpath(posixpath.join(base, got)) == value


def _evidence(operation: str, provider: str, result: Any, **parameters: Any) -> Any:
    return create_evidence(
        provider=Provider(id=provider, name="p", version="1"),
        operation=operation,
        parameters=parameters,
        normalized_result=result,
        authority="external-service",
    ).unwrap()


@given(st.sampled_from(sorted(ri.READERS)), json_values(max_leaves=20))
def test_any_capture_result_is_read_or_refused(operation, result):
    provider = sorted(ri.READERS[operation][0])[0]
    try:
        evidence = _evidence(operation, provider, result, target_id="t")
    except Exception:  # not canonical JSON (a float Evidence would not hold): not a capture at all
        return
    try:
        capture = ri.capture(evidence, "c")
    except ri.Refused as exc:
        assert exc.path.startswith("c")
        return
    assert capture.target.key


# ------------------------------------------------------------------ synthetic layers and captures

ROOT = "/app"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _node(path: str, body: str) -> dict[str, Any]:
    node_id = "jag_node_" + _sha("module:" + path)
    observation = {
        "label": path,
        "properties": {"path": path, "sha256": _sha(body)},
        "observation_id": "jag_observation_" + _sha(path),
    }
    return {"node_id": node_id, "kind": "javascript-module", "subkind": "module",
            "identity": {"strategy": "canonical-path", "path": path}, "observations": [observation]}  # fmt: skip


def _layer(files: dict[str, str], role: str = "application") -> ri.Layer:
    graph = {"graph_id": "jag_" + _sha(str(sorted(files))), "nodes": [_node(p, b) for p, b in sorted(files.items())],
             "edges": [], "root_node_ids": [], "coverage": {"status": "complete"}, "limitations": []}  # fmt: skip
    result = {"graph": graph, "input_path": ROOT, "format": "directory", "root_artifact_sha256": "0" * 64}
    evidence = create_evidence(
        provider=Provider(id="javascript", name="j", version="1"),
        operation="analyze_javascript_application",
        parameters={"role": role, "files": sorted(files)},
        normalized_result=result,
    ).unwrap()
    return ri.layer(role, evidence, result, ())


def _capture(target: str, scripts: list[tuple[str, str | None]]) -> ri.Capture:
    items = [
        {"script_key": "electron_script_" + _sha(target + p), "frame_id": None, "file_path": f"{ROOT}/{p}",
         "source": {"included": True, "artifact": {"sha256": _sha(body)}} if body is not None else {"included": False}}
        for p, body in scripts
    ]  # fmt: skip
    complete = {"status": "complete_within_window", "conditions": ["complete_within_window"],
                "truncated_sections": [], "unavailable_sections": [], "dropped_events": {"scripts": 0}}  # fmt: skip
    result = {"target": {"target_id": target, "type": "page", "title": target, "file_path": f"{ROOT}/index.html"},
              "frames": [], "workers": [], "scripts": {"items": items}, "completeness": complete}  # fmt: skip
    sources = any(b is not None for _, b in scripts)
    evidence = _evidence("inspect_electron_page", "rea-cdp-electron", result, target_id=target,
                         include_script_sources=sources)  # fmt: skip
    return ri.capture(evidence, "c")


files = st.dictionaries(rel_path.map(lambda p: p + ".js"), st.sampled_from(["a", "b", "c"]), min_size=1, max_size=6)


@st.composite
def scenario(draw: Any) -> tuple[list[ri.Layer], list[ri.Capture]]:
    app = draw(files)
    layers = [_layer(app)]
    if draw(st.booleans()):
        layers.append(_layer(draw(files), "cache"))
    known = sorted(app)
    captures = []
    for n in range(draw(st.integers(1, 3))):
        chosen = draw(st.lists(st.sampled_from(known + ["missing.js"]), max_size=5, unique=True))
        bodies = [(p, draw(st.sampled_from([None, "a", "b", "z"]))) for p in chosen]
        captures.append(_capture(f"t{n}", bodies))
    return layers, captures


@given(scenario(), st.randoms())
def test_the_result_does_not_depend_on_input_order(case, rnd):
    layers, captures = case
    first = reconcile(layers, captures, LIMITS)
    rnd.shuffle(layers)
    rnd.shuffle(captures)
    assert reconcile(layers, captures, LIMITS) == first


@given(scenario())
def test_every_entity_is_reconciled_once_and_matches_are_edges(case):
    layers, captures = case
    result = reconcile(layers, captures, LIMITS)
    entities = sum(1 + len(c.scripts) for c in captures)
    assert len(result["reconciliations"]) == entities
    assert len({i["runtime_node_id"] for i in result["reconciliations"]}) == entities
    nodes = {n["node_id"] for n in result["graph"]["nodes"]}
    observed = {
        (e["source_node_id"], e["target_node_id"]) for e in result["graph"]["edges"] if e["relation"] == "observed_as"
    }
    for i in result["reconciliations"]:
        assert (i["status"] == "matched") == (i["static_node_id"] is not None)
        if i["status"] == "matched":
            assert i["static_node_id"] in nodes and (i["static_node_id"], i["runtime_node_id"]) in observed
        if i["status"] == "ambiguous":
            assert i["candidate_static_count"] >= 2
    s = result["summary"]
    assert s["matched"] + s["ambiguous"] + s["unmatched"] + s["unknown"] == entities


@given(scenario(), st.integers(1, 6), st.integers(1, 6))
def test_limits_bound_the_output_and_count_what_they_cut(case, items, states):
    layers, captures = case
    limits = attrs.evolve(LIMITS, max_reconciliation_items=items, max_static_load_states=states)
    full, cut = reconcile(layers, captures, LIMITS), reconcile(layers, captures, limits)
    c = cut["coverage"]
    assert len(cut["reconciliations"]) == min(items, len(full["reconciliations"]))
    assert len(cut["reconciliations"]) + c["omitted_reconciliation_items"] == len(full["reconciliations"])
    assert len(cut["static_load_states"]) + c["omitted_static_load_states"] == len(full["static_load_states"])
    assert c["truncated"] == any(c[k] for k in c if k.startswith("omitted_"))


def _paths(value: Any, at: tuple = ()) -> list[tuple]:
    found = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            found += _paths(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += _paths(v, (*at, i))
    return found


def _replaced(value: Any, at: tuple, new: Any) -> Any:
    if not at:
        return new
    head, *rest = at
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = _replaced(value[head], tuple(rest), new)
    return copy


@given(st.data(), json_values(max_leaves=6))
def test_a_near_valid_capture_with_one_value_replaced_is_read_or_refused(data, junk):
    good = _capture("t", [("a.js", "a"), ("b.js", None)]).evidence
    where = data.draw(st.sampled_from(_paths(good.normalized_result)))
    result = _replaced(good.normalized_result, where, junk)
    try:
        evidence = _evidence("inspect_electron_page", "rea-cdp-electron", result, target_id="t",
                             include_script_sources=True)  # fmt: skip
    except Exception:
        return
    try:
        capture = ri.capture(evidence, "c")
    except ri.Refused:
        return
    reconcile([_layer({"a.js": "a"})], [capture], LIMITS)  # a capture that reads also reconciles
