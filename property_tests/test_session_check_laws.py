"""Laws of compare_bundles and verify_unknown_resolution (rea.session_checks), on sessions made by the real
session programs (test_bundle_laws.sessions) and bundles damaged by hypothesis."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import event, given
from hypothesis import strategies as st
from returns.result import Failure, Success

from prop_support import CTX, get_path, json_program, paths, sessions, small_evidences, with_change
from prop_support import drive as drive_one
from rea.bundle import bundle_chunks, parse_bundle
from rea.canonical_json import canonical_sha256
from rea.errors import CATEGORY_BY_CODE, ReaError
from rea.session import Session, record
from rea.session_checks.comparison import Side, compare, entity_bound
from rea.session_checks.programs import compare_bundles, verify_unknown_resolution
from rea.session_checks.records import CompareBundlesArgs, RecordPair, VerifyUnknownResolutionArgs
from rea.session_checks.resolution import verdict
from rea.session_tools.programs import unknowns
from rea.session_tools.records.results import ResidualUnknown
from rea.unknowns import heads, seal
from rea.wire.convert import structure, to_wire

update_unknown = json_program(unknowns.update_unknown)  # the programs read their tool's record

SWAP = {"added": "removed", "removed": "added"}


def _tree(session: Session) -> dict[str, Any]:
    return orjson.loads(b"".join(bundle_chunks(session)))


def _side(session: Session) -> Side:
    tree = _tree(session)
    return Side(bundle=parse_bundle(tree).unwrap(), sha256=canonical_sha256(tree))


def _all(left: Side, right: Side, pairs: tuple[RecordPair, ...] = ()) -> Any:
    return compare(left, right, pairs, 0, 500).unwrap()


@given(sessions())
def test_a_bundle_compared_with_itself_has_no_changes(session):
    side = _side(session)
    result = _all(side, side)
    assert result.status == "unchanged" and result.changes.items == () and result.changes.total == 0
    assert result.summary.records_unchanged == len(session.evidence)
    assert result.summary.unknowns_unchanged == len(heads(session.unknown_revisions))
    assert result.left_bundle_sha256 == result.right_bundle_sha256 and result.limitations == ()


@given(sessions(), sessions())
def test_swapping_sides_swaps_added_and_removed(a, b):
    ab, ba = _all(_side(a), _side(b)), _all(_side(b), _side(a))
    assert {(c.entity, c.key, SWAP.get(c.classification, c.classification)) for c in ab.changes.items} == {
        (c.entity, c.key, c.classification) for c in ba.changes.items
    }
    assert (ab.summary.records_added, ab.summary.unknowns_added) == (
        ba.summary.records_removed,
        ba.summary.unknowns_removed,
    )
    assert ab.status == ba.status and ab.summary.unresolved == ba.summary.unresolved
    # one-sided records are exactly the set differences of the two ledgers
    assert {c.key for c in ab.changes.items if c.classification == "added" and c.entity == "evidence"} == set(
        b.evidence
    ) - set(a.evidence)


@given(sessions(), sessions(), st.integers(1, 7))
def test_pages_concatenate_to_the_whole(a, b, limit):
    left, right = _side(a), _side(b)
    whole = _all(left, right).changes
    items, offset = [], 0
    while True:
        page = compare(left, right, (), offset, limit).unwrap().changes
        assert len(page.items) <= limit and page.total == whole.total
        items += page.items
        if page.next_offset is None:
            break
        assert page.next_offset == offset + len(page.items)
        offset = page.next_offset
    assert tuple(items) == whole.items
    assert compare(left, right, (), whole.total + 3, limit).unwrap().changes.items == ()


@given(sessions(max_unknowns=0), st.data())
def test_pinned_pairs_are_changes_and_bad_pins_are_refused(session, data):
    extra = data.draw(st.lists(small_evidences, min_size=1, max_size=2))
    if set(e.evidence_id for e in extra) <= set(session.evidence):
        return
    left, right = _side(session), _side(record(Session(), extra))
    pair = RecordPair(left_evidence_id="ev_" + "1" * 64, right_evidence_id=extra[0].evidence_id)
    refused = compare(left, right, (pair,), 0, 500)
    if pair.left_evidence_id not in session.evidence:
        assert refused.failure().code == "invalid_request"
        assert refused.failure().details["field"] == "record_pairs[0].left_evidence_id"
    if not session.evidence:
        return
    pinned = RecordPair(left_evidence_id=next(iter(session.evidence)), right_evidence_id=extra[0].evidence_id)
    result = _all(left, right, (pinned,))
    changed = [c for c in result.changes.items if c.classification == "changed"]
    assert len(changed) == (pinned.left_evidence_id != pinned.right_evidence_id) == result.summary.records_changed
    assert pinned.left_evidence_id not in {c.key for c in result.changes.items if c.classification == "removed"}
    twice = compare(left, right, (pinned, pinned), 0, 500)
    assert twice.failure().code == "invalid_request" and twice.failure().details["field"] == "record_pairs[1]"


def _branch(session: Session, status: str) -> Session:
    head = heads(session.unknown_revisions)[0]
    args = {"unknown_id": head["unknown_id"], "expected_revision": head["revision"], "status": status}
    return drive_one(update_unknown(session, args, CTX)).session


@given(sessions(max_records=2, max_unknowns=1))
def test_forked_histories_are_contradictions_and_extended_ones_progress(session):
    if not session.unknown_revisions:
        return
    one, other = _branch(session, "blocked"), _branch(session, "open")
    forked = _all(_side(one), _side(other))
    diverged = [c for c in forked.changes.items if c.entity == "residual_unknown"]
    assert [c.classification for c in diverged] == ["history_diverged"]
    assert diverged[0].conclusion_kind == "contradiction" and forked.status == "unknown"
    extended = _all(_side(session), _side(one))
    advanced = [c for c in extended.changes.items if c.entity == "residual_unknown"]
    assert [(c.classification, c.conclusion_kind) for c in advanced] == [("history_advanced", "observed_change")]
    assert extended.summary.unknowns_advanced == 1 and extended.status == "changed"


@given(st.tuples(st.integers(0, 50), st.integers(0, 50)), st.tuples(st.integers(0, 50), st.integers(0, 50)))
def test_the_entity_bound_refuses_exactly_past_it(left, right):
    bound = entity_bound(left, right, 100)
    if sum(left) + sum(right) <= 100:
        assert bound.unwrap() == sum(left) + sum(right)
    else:
        problem = bound.failure()
        assert problem.code == "truncated" and problem.details["entities"] == sum(left) + sum(right)


# ----------------------------------------------------------------- the program on hostile bundles


@st.composite
def damaged(draw: st.DrawFn) -> tuple[Any, str]:
    """A real bundle's bytes or tree damaged once: cut short, a node replaced, a list item dropped."""
    tree = _tree(draw(sessions(max_records=3, max_unknowns=2)))
    kind = draw(st.sampled_from(["cut", "change", "drop"]))
    if kind == "cut":
        raw = orjson.dumps(tree)
        cut = draw(st.integers(0, len(raw) - 1))
        try:
            return Success(orjson.loads(raw[:cut])), "cut"
        except orjson.JSONDecodeError:
            return Failure(ReaError(code="evidence_integrity_mismatch", message="not JSON")), "cut"
    all_paths = [p for p in paths(tree) if p]
    if kind == "change":
        path = draw(st.sampled_from(all_paths))
        new = draw(st.none() | st.integers(-2, 2**60) | st.text(max_size=4) | st.just([]) | st.just({}))
        return Success(with_change(tree, path, lambda _: new)), f"change {path[:2]}"
    lists = [p for p in all_paths if isinstance(get_path(tree, p), list) and get_path(tree, p)]
    if not lists:
        return Success(tree), "untouched"
    path = draw(st.sampled_from(lists))
    return Success(with_change(tree, path, lambda xs: xs[1:])), f"drop {path[:2]}"


@given(damaged(), sessions(max_records=2, max_unknowns=1), st.booleans())
def test_a_damaged_bundle_is_refused_canonically_or_compared_faithfully(case, good, left_damaged):
    answer, what = case
    trees = {"/good.json": Success(_tree(good)), "/damaged.json": answer}
    sides = ("/damaged.json", "/good.json") if left_damaged else ("/good.json", "/damaged.json")
    args = structure({"left_bundle_path": sides[0], "right_bundle_path": sides[1]}, CompareBundlesArgs).unwrap()
    outcome = drive_one(compare_bundles(Session(), args, CTX), by_path=trees)
    if isinstance(outcome.reply, Failure):
        error = outcome.reply.failure()
        event(f"refused {what.split()[0]}: {error.code}")
        assert error.code in CATEGORY_BY_CODE and error.details["side"] in ("left", "right")
        assert outcome.session == Session()  # nothing retained
        return
    event(f"compared {what.split()[0]}")
    damaged_tree = answer.unwrap()
    assert parse_bundle(damaged_tree).unwrap() is not None  # only a bundle that verifies is compared
    result = outcome.reply.unwrap()["normalized_result"]
    digests = (result["left_bundle_sha256"], result["right_bundle_sha256"])
    assert canonical_sha256(damaged_tree) == digests[0 if left_damaged else 1]
    assert len(outcome.session.evidence) == 1  # the comparison itself


# ----------------------------------------------------------------- resolutions


@given(sessions(max_records=3, max_unknowns=2), st.data())
def test_a_verdict_is_valid_exactly_when_it_has_no_reasons(session, data):
    if not session.unknown_revisions:
        return
    head = data.draw(st.sampled_from(heads(session.unknown_revisions)))
    ids = list(session.evidence)
    cited = data.draw(st.lists(st.sampled_from(ids + ["ev_" + "e" * 64]), min_size=1, max_size=3, unique=True))
    disposition = data.draw(st.sampled_from(["verified", "withdrawn", "out-of-scope"]))
    retained = set(cited) - {"ev_" + "e" * 64}
    supporting = sorted(retained if data.draw(st.booleans()) else data.draw(st.sets(st.sampled_from(cited))) & retained)
    resolved = {**head, "status": "resolved", "contradicting_evidence_ids": [], "supporting_evidence_ids": supporting,
                "required_confidence": data.draw(st.sampled_from(["observed", "derived", "inferred"])),
                "resolution": {"disposition": disposition, "rationale": "r", "evidence_ids": cited}}  # fmt: skip
    sealed = seal(resolved)
    found = verdict(sealed, structure(sealed, ResidualUnknown).unwrap(), session.evidence)
    assert found.valid == (not found.reasons)
    assert found.truthVerified == (found.valid and disposition == "verified")
    for check in found.evidence:
        assert check.qualifies == (not check.reasons)
        assert check.retained == (check.evidence_id in session.evidence)
    if "ev_" + "e" * 64 in cited:  # an id the session does not hold never qualifies, and a pure claim fails
        assert not next(c for c in found.evidence if c.evidence_id == "ev_" + "e" * 64).qualifies
        if disposition != "verified":
            assert not found.valid
    event(f"{disposition} valid={found.valid}")


@given(sessions(max_records=2, max_unknowns=2))
def test_an_unresolved_unknown_is_never_valid_and_the_program_changes_nothing(session):
    for head in heads(session.unknown_revisions):
        outcome = verify_unknown_resolution(
            session, structure({"unknown_id": head["unknown_id"]}, VerifyUnknownResolutionArgs).unwrap(), CTX
        )
        result = outcome.reply.unwrap()["result"]
        assert outcome.session is session
        assert result["unknown"] == to_wire(structure(head, ResidualUnknown).unwrap())
        if head["status"] != "resolved":
            assert result["valid"] is False and result["reasons"]
