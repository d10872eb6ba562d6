"""Laws of the reconstruction family's pure derivations (rea.reconstruction), on generated comparisons,
unknowns, coverage reasons and ledgers:

- closure is monotone: another reason never improves a status; an unknown never yields ready or pass;
  a failure always yields failed (coverage) / fail (verification) / failed (ledger, when required);
- a pass is never widened: verification passes only when every declared claim's comparison is unchanged;
- static comparisons never make behaviour observed;
- pages concatenate to the whole;
- the ledger's identity and closure digest do not depend on the order of its inputs;
- a malformed comparison is refused with invalid_request, never read as a verdict, never a crash;
- RFC 3339 parsing agrees with the standard library's datetime.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import attrs
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Success

from prop_support import json_values
from rea.evidence import Provider, create_evidence
from rea.reconstruction import comparisons as cmp
from rea.reconstruction.changed import find_changed
from rea.reconstruction.closure import FAILED, RANK, UNRESOLVED, coverage_status
from rea.reconstruction.correlate import observed_pattern
from rea.reconstruction.ledger import build
from rea.reconstruction.records.claims import Claim, Specification
from rea.reconstruction.records.ledger import LedgerRequest
from rea.reconstruction.rfc3339 import epoch_ms
from rea.reconstruction.verify import verify
from rea.wire.convert import structure

STATUSES = st.sampled_from(cmp.STATUSES)
CODES = st.sampled_from(sorted(FAILED | UNRESOLVED | {"surface-missing", "claim-missing", "owner-missing"}))
SOURCE = ["ev_" + "1" * 64, "ev_" + "2" * 64]


def artifact_comparison(status: str, salt: int) -> Any:
    """A compare_artifacts record with the overall verdict `status` (the family reads only what it needs)."""
    result = {"status": status, "changes": [], "changes_page": {"offset": 0, "limit": None, "total": 0,
              "next_offset": None}, "limitations": [f"salt {salt}"]}  # fmt: skip
    made = create_evidence(
        provider=Provider(id="rea-artifacts", name="REA artifacts", version="1"),
        operation="compare_artifacts",
        parameters={"left": SOURCE[:1], "right": SOURCE[1:]},
        normalized_result=result,
        confidence="derived",
        authority="analyst-inference",
        evidence_links=SOURCE,
    )
    return made.unwrap()


def sources() -> dict[str, Any]:
    return {
        e: create_evidence(
            provider=Provider(id="p", name="p", version="1"), operation="inspect_artifact", parameters={"n": e},
            normalized_result={}, confidence="observed",
        ).unwrap()
        for e in SOURCE
    }  # fmt: skip


def records_for(statuses: list[str]) -> tuple[dict[str, Any], list[Claim]]:
    comparisons = [artifact_comparison(s, i) for i, s in enumerate(statuses)]
    # the source records are keyed by the ids the comparisons cite
    found = {e: r for e, r in zip(SOURCE, sources().values(), strict=True)}
    records = {**found, **{c.evidence_id: c for c in comparisons}}
    claims = [Claim(claim_id=f"c{i}", title="t", comparison_evidence_id=c.evidence_id, kind="structural-artifact",
                    dimension="overall") for i, c in enumerate(comparisons)]  # fmt: skip
    return records, claims


def spec(claims: list[Claim]) -> Specification:
    return Specification(schema_version=1, name="s", claims=tuple(claims))


# ------------------------------------------------------------------ closure


@given(st.lists(CODES, max_size=8), CODES)
def test_another_reason_never_improves_coverage(codes, extra):
    assert RANK[coverage_status([*codes, extra])] >= RANK[coverage_status(codes)]
    assert coverage_status([*codes, extra]) != "ready"


@given(st.lists(CODES, max_size=8), st.sampled_from(sorted(UNRESOLVED)), st.sampled_from(sorted(FAILED)))
def test_an_unknown_is_never_ready_and_a_failure_is_failed(codes, unknown, failure):
    assert coverage_status([*codes, unknown]) in ("unknown", "failed")
    assert coverage_status([*codes, failure]) == "failed"
    assert coverage_status([]) == "ready"


# ------------------------------------------------------------------ verification


@given(st.lists(STATUSES, min_size=1, max_size=6))
def test_a_pass_is_exactly_every_declared_claim_unchanged(statuses):
    records, claims = records_for(statuses)
    result = verify(spec(claims), records, (), 0, 100).unwrap()
    changed = any(s in cmp.CHANGES or s == "contradiction" for s in statuses)
    assert result["status"] == ("fail" if changed else "pass" if set(statuses) == {"unchanged"} else "unknown")
    assert any("equivalent" in n for n in result["limitations"])


@given(st.lists(STATUSES, min_size=1, max_size=6), st.integers(0, 5))
def test_an_active_unknown_never_raises_verification_to_pass(statuses, cited):
    records, claims = records_for(statuses)
    before = verify(spec(claims), records, (), 0, 100).unwrap()["status"]
    target = claims[cited % len(claims)].comparison_evidence_id
    unknown = {"unknown_id": "unk_" + "9" * 64, "revision": 1, "status": "open", "question": "q",
               "supporting_evidence_ids": [target], "contradicting_evidence_ids": []}  # fmt: skip
    after = verify(spec(claims), records, (unknown,), 0, 100).unwrap()["status"]
    assert after != "pass" and (before != "fail" or after == "fail")


@given(st.lists(STATUSES, min_size=1, max_size=9), st.integers(1, 4))
def test_verification_pages_concatenate_to_the_whole(statuses, limit):
    records, claims = records_for(statuses)
    whole = verify(spec(claims), records, (), 0, 100).unwrap()["claims"]["items"]
    pages = [
        verify(spec(claims), records, (), o, limit).unwrap()["claims"]["items"] for o in range(0, len(whole), limit)
    ]
    assert [c for page in pages for c in page] == whole


@given(st.lists(STATUSES, min_size=1, max_size=6))
def test_missing_comparison_evidence_is_unknown_never_pass(statuses):
    records, claims = records_for(statuses)
    kept = {k: v for k, v in records.items() if k != claims[0].comparison_evidence_id}
    result = verify(spec(claims), kept, (), 0, 100).unwrap()
    first = next(c for c in result["claims"]["items"] if c["claim_id"] == "c0")
    assert first["status"] == "unknown" and result["status"] != "pass"


# ------------------------------------------------------------------ changed behaviour and correlation


@given(st.lists(STATUSES, min_size=1, max_size=6), st.integers(1, 3))
def test_static_comparisons_never_observe_behaviour_and_pages_concatenate(statuses, limit):
    found = [cmp.read(artifact_comparison(s, i)).unwrap() for i, s in enumerate(statuses)]
    whole = find_changed(found, 0, 100).unwrap()
    assert whole.behavior_status == "unknown" and whole.summary.observed_changes == 0
    assert sum(attrs.astuple(whole.summary)) == whole.findings.total
    total = whole.findings.total
    pages = [find_changed(found, o, limit).unwrap().findings.items for o in range(0, total, limit)]
    assert [f for page in pages for f in page] == list(whole.findings.items)


@given(STATUSES, STATUSES)
def test_the_observed_pattern_is_read_from_both_verdicts(static, runtime):
    pattern = observed_pattern(static, runtime)
    if "truncated" in (static, runtime):
        assert pattern == "truncated"
    elif {static, runtime} & {"unknown", "contradiction"}:
        assert pattern == "unknown"
    else:
        assert (pattern in ("cochanged", "static_only")) == (static in cmp.CHANGES)
        assert (pattern in ("cochanged", "runtime_only")) == (runtime in cmp.CHANGES)


@given(st.sampled_from(cmp.OPERATIONS), json_values())
def test_a_malformed_comparison_is_refused_never_read(operation, result):
    made = create_evidence(provider=Provider(id="p", name="p", version="1"), operation=operation, parameters={},
                           normalized_result=result, confidence="derived").unwrap()  # fmt: skip
    read = cmp.read(made)
    if not isinstance(read, Success):
        assert read.failure().code == "invalid_request" and read.failure().details["accepted"]
    else:
        assert read.unwrap().status in cmp.STATUSES


# ------------------------------------------------------------------ ledger

OBLIGATION_IDS = st.lists(st.sampled_from(["a.x", "b.y", "c.z", "d.w"]), min_size=1, max_size=4, unique=True)


def obligation(oid: str, deps: list[str], required: bool) -> dict[str, Any]:
    return {"obligation_id": oid, "obligation_version": 1, "title": oid, "application_layer": "cli", "family": "f",
            "target": {"artifact_sha256": None, "application_node_id": None, "semantic_node_id": None, "location": "l"},
            "required": required, "required_case_kinds": ["positive"], "required_original_authority": "static",
            "required_fixture_authority": "unit", "required_verifier_authority": "unit",
            "requires_parser_type": False, "dependency_obligation_ids": deps, "residual_unknown_ids": [],
            "unavailable_authority": [], "required_next_evidence": [], "disposition": "active",
            "review_evidence_ids": [SOURCE[0]]}  # fmt: skip


def binding(oid: str, status: str) -> dict[str, Any]:
    return {"obligation_id": oid, "owner": {"module_path": "m", "symbol": "s", "owner_sha256": "c" * 64},
            "parser_type": None, "original_cases": [{"kind": "positive", "evidence_id": SOURCE[0], "location": "l"}],
            "fixtures": [{"fixture_id": f"{oid}.f", "case_kind": "positive", "authority": "unit",
                          "evidence_ids": [SOURCE[1]]}],
            "verifier": {"verifier_id": f"{oid}.v", "claim_id": f"{oid}.c", "command": "t", "authority": "unit",
                         "status": status, "result_evidence_id": SOURCE[1], "enumerated_obligation_ids": [oid],
                         "nondeterminism": {"mode": "total-order", "specification": "s"}}}  # fmt: skip


@st.composite
def ledgers(draw: Any) -> dict[str, Any]:
    ids = draw(OBLIGATION_IDS)
    obligations = [obligation(i, draw(st.lists(st.sampled_from(ids), max_size=2, unique=True)), draw(st.booleans()))
                   for i in ids]  # fmt: skip
    bound = draw(st.lists(st.sampled_from(ids), unique=True))
    bindings = [binding(i, draw(st.sampled_from(["pass", "pass", "fail", "unknown"]))) for i in bound]
    return {"evidence_bundle": {}, "reviewed_obligations": obligations, "limits": {"max_obligations": 100},
            "manifest": {"schema_version": 1, "bindings": bindings, "contradictions": []},
            "page": {"offset": 0, "limit": 100}}  # fmt: skip


def ledger(request: dict[str, Any]) -> dict[str, Any]:
    return build(structure(request, LedgerRequest).unwrap(), sources()).unwrap()


@given(ledgers(), st.randoms(use_true_random=False))
def test_the_ledger_does_not_depend_on_input_order(request, rnd):
    shuffled = {**request, "reviewed_obligations": rnd.sample(request["reviewed_obligations"], len(request["reviewed_obligations"])),
                "manifest": {**request["manifest"], "bindings": rnd.sample(request["manifest"]["bindings"],
                                                                            len(request["manifest"]["bindings"]))}}  # fmt: skip
    one, two = ledger(request), ledger(shuffled)
    assert (one["ledger_id"], one["closure_digest"], one["obligations"]) == (
        two["ledger_id"], two["closure_digest"], two["obligations"])  # fmt: skip


@given(ledgers(), st.integers(1, 3))
def test_ledger_pages_concatenate_and_keep_identity(request, limit):
    whole = ledger(request)
    pages = [
        ledger({**request, "page": {"offset": o, "limit": limit}}) for o in range(0, whole["page"]["total"], limit)
    ]
    assert [o for p in pages for o in p["obligations"]] == whole["obligations"]
    assert {p["ledger_id"] for p in pages} <= {whole["ledger_id"]}
    assert {p["closure_digest"] for p in pages} <= {whole["closure_digest"]}


@given(ledgers())
def test_verified_needs_every_dependency_verified_and_a_contradiction_never_helps(request):
    result = ledger(request)
    rows = {o["obligation_id"]: o for o in result["obligations"]}
    for row in rows.values():
        if row["status"] == "verified":
            assert row["diagnostics"] == [] and all(
                rows[d]["status"] == "verified" for d in row["dependency_obligation_ids"]
            )
    first = request["reviewed_obligations"][0]["obligation_id"]
    contradicted = {**request, "manifest": {**request["manifest"],
                    "contradictions": [{"obligation_id": first, "evidence_ids": SOURCE}]}}  # fmt: skip
    after = ledger(contradicted)
    assert after["status"] != "ready" or not request["reviewed_obligations"][0]["required"]
    assert RANK_LEDGER[after["status"]] >= RANK_LEDGER[result["status"]]


RANK_LEDGER = {"ready": 0, "open": 1, "unknown": 2, "failed": 3}


# ------------------------------------------------------------------ timestamps


@given(
    st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1)),
    st.integers(-14 * 60, 14 * 60),
    st.booleans(),
)
def test_rfc3339_agrees_with_datetime(moment, offset_minutes, zulu):
    tz = UTC if zulu else timezone(timedelta(minutes=offset_minutes))
    aware = moment.replace(tzinfo=tz, microsecond=moment.microsecond // 1000 * 1000)
    text = aware.isoformat(timespec="milliseconds")
    text = text.replace("+00:00", "Z") if zulu else text
    assert epoch_ms(text) == (aware - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(milliseconds=1)


@given(st.text(max_size=40))
def test_rfc3339_refuses_what_is_not_a_timestamp_with_an_offset(text):
    parsed = epoch_ms(text)
    if parsed is not None:
        datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
