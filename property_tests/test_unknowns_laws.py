"""Laws of the unknowns registry, driven through the record/update/list programs."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st
from returns.result import Failure, Success

from prop_support import CTX, drive, json_program
from rea.session import Session
from rea.session_tools.programs import unknowns
from rea.unknowns import SEVERITIES, seal, verify_revision

list_unknowns = json_program(unknowns.list_unknowns)  # the programs read their tool's record
record_unknown = json_program(unknowns.record_unknown)
update_unknown = json_program(unknowns.update_unknown)

STATUSES_OK = ("open", "investigating", "blocked")
DOMAINS = ("net", "fs", "ui")


def _ok(outcome) -> dict:
    assert isinstance(outcome.reply, Success), outcome.reply
    return outcome.reply.unwrap()["result"]


update_steps = st.lists(
    st.fixed_dictionaries(
        {
            "status": st.sampled_from(STATUSES_OK + ("resolved",)),
            "severity": st.sampled_from(SEVERITIES),
            "which": st.integers(0, 10),
        }
    ),
    max_size=6,
)


@st.composite
def registries(draw: st.DrawFn, max_unknowns: int = 6) -> tuple[Session, list[str]]:
    """A session with unknowns recorded and revised by the real programs."""
    session, ids = Session(), []
    for i in range(draw(st.integers(0, max_unknowns))):
        args = {
            "question": f"question {i}",
            "domain": draw(st.sampled_from(DOMAINS)),
            "severity": draw(st.sampled_from(SEVERITIES)),
        }
        outcome = drive(record_unknown(session, args, CTX))
        ids.append(_ok(outcome)["unknown_id"])
        session = outcome.session
    for step in draw(update_steps) if ids else []:
        uid = ids[step["which"] % len(ids)]
        head = max((r for r in session.unknown_revisions if r["unknown_id"] == uid), key=lambda r: r["revision"])
        resolution = (
            {"disposition": "withdrawn", "rationale": "not needed", "evidence_ids": []}
            if step["status"] == "resolved"
            else None
        )
        outcome = drive(
            update_unknown(
                session,
                {
                    "unknown_id": uid,
                    "expected_revision": head["revision"],
                    "status": step["status"],
                    "severity": step["severity"],
                    "resolution": resolution,
                },
                CTX,
            )
        )
        _ok(outcome)
        session = outcome.session
    return session, ids


def _heads(session: Session) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for r in session.unknown_revisions:
        if r["unknown_id"] not in out or r["revision"] > out[r["unknown_id"]]["revision"]:
            out[r["unknown_id"]] = r
    return out


@given(registries(), st.data())
def test_stale_expected_revision_conflicts_and_changes_nothing(registry, data):
    session, ids = registry
    assume(ids)
    uid = data.draw(st.sampled_from(ids))
    current = _heads(session)[uid]["revision"]
    stale = data.draw(st.integers(1, current + 5).filter(lambda n: n != current))
    outcome = drive(
        update_unknown(
            session,
            {"unknown_id": uid, "expected_revision": stale, "severity": data.draw(st.sampled_from(SEVERITIES))},
            CTX,
        )
    )
    assert isinstance(outcome.reply, Failure)
    error = outcome.reply.failure()
    assert error.code == "revision_conflict"
    assert error.details["current_revision"] == current and error.details["expected_revision"] == stale
    assert outcome.session is session


@given(registries())
def test_recording_the_same_question_again_conflicts(registry):
    session, ids = registry
    assume(ids)
    first = next(r for r in session.unknown_revisions if r["revision"] == 1)
    args = {
        "question": "  " + first["question"].replace(" ", "   ") + " ",
        "domain": first["domain"],
        "severity": "low",
    }
    outcome = drive(record_unknown(session, args, CTX))
    assert isinstance(outcome.reply, Failure) and outcome.reply.failure().code == "revision_conflict"
    assert outcome.session is session


@given(registries())
def test_revision_chains_link(registry):
    session, ids = registry
    for uid in ids:
        chain = sorted((r for r in session.unknown_revisions if r["unknown_id"] == uid), key=lambda r: r["revision"])
        assert [r["revision"] for r in chain] == list(range(1, len(chain) + 1))
        assert chain[0]["previous_revision_digest"] is None
        for prior, later in zip(chain, chain[1:]):
            assert later["previous_revision_digest"] == prior["revision_digest"]
            assert later["mutation_evidence_ids"][:-1] == prior["mutation_evidence_ids"]
        for rev in chain:
            assert seal(rev)["revision_digest"] == rev["revision_digest"]
            assert verify_revision(rev, "$") == Success(None)
            assert all(e in session.evidence for e in rev["mutation_evidence_ids"])
            assert len(rev["mutation_evidence_ids"]) == rev["revision"]


filters = st.fixed_dictionaries(
    {},
    optional={
        "status": st.sampled_from(STATUSES_OK + ("resolved", "contradicted")),
        "severity": st.sampled_from(SEVERITIES),
        "domain": st.sampled_from(DOMAINS),
    },
)


@given(registries(), filters, st.integers(1, 8))
def test_list_pages_partition_filtered_heads(registry, wanted, limit):
    session, _ = registry
    expected = [h for uid, h in sorted(_heads(session).items()) if all(h[k] == v for k, v in wanted.items())]
    items, offset, totals = [], 0, set()
    while True:
        page = _ok(drive(list_unknowns(session, {**wanted, "offset": offset, "limit": limit}, CTX)))
        totals.add(page["total"])
        assert len(page["items"]) <= limit
        items.extend(page["items"])
        if page["next_offset"] is None:
            break
        assert page["next_offset"] == offset + len(page["items"])
        offset = page["next_offset"]
    assert totals == {len(expected)}
    assert items == expected
    assert [i["unknown_id"] for i in items] == sorted(i["unknown_id"] for i in items)
    everything = _ok(drive(list_unknowns(session, dict(wanted), CTX)))
    assert everything["items"] == expected and everything["next_offset"] is None
