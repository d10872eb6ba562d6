"""Pure compare_functions laws on dossiers built in the test (no engine)."""

from rea.evidence import Provider, create_evidence
from rea.native.compare import compare

ANGR = Provider(id="angr", name="angr", version="9.2.213")


def dossier(callees, *, facets=True, pseudocode="int f() { return 1; }"):
    result = {
        "procedure": {"address": "0x10", "name": "f", "kind": "function", "size": 8},
        "pseudocode": pseudocode,
        "callees": [{"address": a, "name": a, "kind": "function"} for a in callees],
        "callers": [],
        "references": {"incoming": [], "outgoing": []},
        "strings": [],
        "basic_blocks": [{"start": "0x10", "size": 8}],
    }
    if facets:
        result["facet_availability"] = {
            k: {"available": True}
            for k in ("pseudocode", "assembly", "callers", "callees", "references", "strings_names", "cfg")
        }
        result["facet_availability"]["comments"] = {"available": False, "reason": "angr keeps no comments"}
    return create_evidence(
        provider=ANGR, operation="analyze_function", parameters={}, normalized_result=result
    ).unwrap()


def test_observed_empty_facets_compare_but_undeclared_ones_stay_unknown():
    assert compare([dossier([])], [dossier([])])["dimensions"]["calls"]["status"] == "equal"
    legacy = compare([dossier([])], [dossier([], facets=False)])["dimensions"]["calls"]
    assert legacy["status"] == "unknown" and legacy["counts"] is None


def test_comparison_is_symmetric_up_to_sides():
    a, b = dossier(["g", "h"]), dossier(["h", "k"], pseudocode="int f() { return 2; }")
    ab, ba = compare([a], [b]), compare([b], [a])
    assert ab["verdict"] == ba["verdict"] == "changed"
    assert ab["dimensions"]["calls"]["added"] == ba["dimensions"]["calls"]["removed"] == ["k"]
    assert ab["limitations"] and "runtime" in ab["limitations"][0]
