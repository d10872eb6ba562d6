"""Laws of rea.bundle and rea.session: streamed export, strict import, atomic merge."""

from __future__ import annotations

import orjson
from hypothesis import event, example, given
from hypothesis import strategies as st
from returns.result import Failure, Success

from prop_support import (
    CTX,
    SEVERITIES,
    drive,
    get_path,
    json_program,
    json_value,
    paths,
    record_unknown,
    sessions,
    update_unknown,
    with_change,
)
from rea.bundle import bundle_chunks, bundle_json, parse_bundle
from rea.canonical_json import canonicalize
from rea.session import Session, merge, record
from rea.session_tools.programs import bundles
from rea.unknowns import seal

import_evidence_bundle = json_program(bundles.import_evidence_bundle)  # the programs read their tool's record


def _wire(session: Session) -> dict:
    return orjson.loads(b"".join(bundle_chunks(session)))


def _ids(session: Session) -> set[str]:
    return set(session.evidence)


def _revision_keys(session: Session) -> set[tuple]:
    return {(r["unknown_id"], r["revision"], r["revision_digest"]) for r in session.unknown_revisions}


@given(sessions())
def test_streamed_chunks_equal_canonical_bundle(session):
    assert b"".join(bundle_chunks(session)) == canonicalize(bundle_json(session))


@given(sessions())
def test_export_import_round_trip(session):
    parsed = parse_bundle(_wire(session)).unwrap()
    merged = merge(Session(), parsed.records, parsed.unknowns).unwrap()
    assert _ids(merged) == _ids(session)
    assert _revision_keys(merged) == _revision_keys(session)
    assert canonicalize(bundle_json(merged)) == canonicalize(bundle_json(session))


@given(sessions())
def test_import_is_idempotent(session):
    tree = _wire(session)
    first = drive(import_evidence_bundle(Session(), {"path": "/b.json"}, CTX), tree)
    second = drive(import_evidence_bundle(first.session, {"path": "/b.json"}, CTX), tree)
    assert first.reply.unwrap()["result"]["total"] == len(session.evidence)
    assert second.reply.unwrap()["result"]["imported"] == 0
    assert second.reply.unwrap()["result"]["unknowns_added"] == 0
    assert canonicalize(bundle_json(second.session)) == canonicalize(bundle_json(session))


# ------------------------------------------------------------------ single mutations

UNKNOWN_KEY = st.text(max_size=6).map(lambda s: "zz_extra_" + s)


@st.composite
def mutated(draw: st.DrawFn) -> tuple[dict, dict, str]:
    """(original tree, tree with one mutation, description)."""
    session = draw(sessions())
    tree = _wire(session)
    kind = draw(st.sampled_from(["change", "add-field", "drop"]))
    all_paths = list(paths(tree))
    if kind == "change":
        path = draw(st.sampled_from([p for p in all_paths if p]))
        old = get_path(tree, path)
        same_kind = {str: st.text(max_size=8), int: st.integers(-3, 2**53 - 1), bool: st.booleans()}.get(
            type(old), json_value
        )
        new = draw((same_kind | json_value).filter(lambda v: canonicalize(v) != canonicalize(old)))
        return tree, with_change(tree, path, lambda _: new), f"change {path} to {new!r}"
    if kind == "add-field":
        path = draw(st.sampled_from([p for p in all_paths if isinstance(get_path(tree, p), dict)]))
        key = draw(UNKNOWN_KEY)
        value = draw(json_value)
        return tree, with_change(tree, path, lambda d: {**d, key: value}), f"add {key!r} at {path}"
    lists = [p for p in all_paths if isinstance(get_path(tree, p), list) and get_path(tree, p)]
    if not lists:
        return tree, tree, "nothing to drop"
    path = draw(st.sampled_from(lists))
    index = draw(st.integers(0, len(get_path(tree, path)) - 1))
    return tree, with_change(tree, path, lambda xs: xs[:index] + xs[index + 1 :]), f"drop {path}[{index}]"


@given(mutated(), sessions(max_records=2, max_unknowns=1))
def test_single_mutation_is_rejected_or_faithfully_imported(case, other):
    original, tree, what = case
    result = parse_bundle(tree)  # never raises
    outcome = drive(import_evidence_bundle(other, {"path": "/b.json"}, CTX), tree)
    event(("rejected " if isinstance(result, Failure) else "accepted ") + what.split()[0])
    if isinstance(result, Failure):
        assert result.failure().code == "evidence_integrity_mismatch", what
        assert outcome.session is other, what
        assert isinstance(outcome.reply, Failure)
        return
    bundle = result.unwrap()
    merged = merge(Session(), bundle.records, bundle.unknowns).unwrap()
    # the imported session is exactly what the mutated tree says: re-exporting reproduces it
    assert canonicalize(bundle_json(merged)) == canonicalize(tree), what
    if isinstance(outcome.reply, Failure):  # only a revision conflict with `other` may stop the merge
        assert outcome.reply.failure().code == "revision_conflict"
        assert outcome.session is other
    else:
        assert outcome.session == merge(other, bundle.records, bundle.unknowns).unwrap()


@given(sessions(), sessions(max_records=2, max_unknowns=1), st.data())
def test_rejected_import_returns_session_unchanged(session, other, data):
    tree = _wire(session)
    target = data.draw(st.sampled_from(["$", "records", "unknowns", "artifacts", "providers"]))
    if target == "$":
        broken = {**tree, "bundle_version": 3}
    elif target == "records" and tree["records"]:
        broken = {**tree, "records": tree["records"] + [tree["records"][0]]}  # duplicate record
    elif target == "unknowns" and tree["unknowns"]:
        first = dict(tree["unknowns"][0])
        first["question"] += "?"
        broken = {**tree, "unknowns": [first] + tree["unknowns"][1:]}
    else:
        broken = {
            **tree,
            "artifacts": tree["artifacts"] + [{"digest": {"sha256": "0" * 64}, "format": "elf", "architecture": None}],
        }
    outcome = drive(import_evidence_bundle(other, {"path": "/b.json"}, CTX), broken)
    assert isinstance(outcome.reply, Failure)
    assert outcome.session is other


@given(sessions(max_unknowns=2))
def test_conflicting_revision_rejects_whole_import(session):
    """A revision that exists locally with other content rejects the import atomically."""
    if not session.unknown_revisions:
        return
    tree = _wire(session)
    # forge a chain head, so the bundle stays internally consistent and only the merge conflicts
    head = max(
        range(len(tree["unknowns"])), key=lambda i: (tree["unknowns"][i]["unknown_id"], tree["unknowns"][i]["revision"])
    )
    rev = dict(tree["unknowns"][head])
    rev["severity"] = "critical" if rev["severity"] != "critical" else "low"
    forged = seal(rev)
    tree2 = {**tree, "unknowns": [forged if i == head else r for i, r in enumerate(tree["unknowns"])]}
    outcome = drive(import_evidence_bundle(session, {"path": "/b.json"}, CTX), tree2)
    assert isinstance(outcome.reply, Failure)
    assert outcome.reply.failure().code == "revision_conflict"
    assert outcome.session is session


# ------------------------------------------------------------------ robustness (known bug)


@example(kind=[])
@given(kind=json_value)
def test_parse_bundle_never_raises_on_location_kind(kind):
    from rea.evidence import Provider, create_evidence

    ev = create_evidence(
        provider=Provider(id="p", name="P", version="1"),
        operation="op",
        parameters={},
        normalized_result=None,
        locations=[{"kind": "address", "address": "0x1"}],
    ).unwrap()
    tree = _wire(record(Session(), [ev]))
    tree["records"][0]["locations"][0]["kind"] = kind
    assert isinstance(parse_bundle(tree), (Success, Failure))


@given(sessions(), st.data())
def test_subject_name_and_path_edits_import_faithfully(session, data):
    """name and local_path are outside the id: an edited bundle imports with exactly that edit."""
    tree = _wire(session)
    with_subject = [i for i, r in enumerate(tree["records"]) if r["subject"] is not None]
    if not with_subject:
        return
    i = data.draw(st.sampled_from(with_subject))
    field = data.draw(st.sampled_from(["name", "local_path"]))
    value = data.draw(st.text(min_size=1, max_size=8))
    edited = with_change(tree, ("records", i, "subject", field), lambda _: value)
    outcome = drive(import_evidence_bundle(Session(), {"path": "/b.json"}, CTX), edited)
    assert isinstance(outcome.reply, Success)
    assert canonicalize(bundle_json(outcome.session)) == canonicalize(edited)
    assert _ids(outcome.session) == _ids(session)


REVISION_LIST_FIELDS = (
    "relationships",
    "supporting_evidence_ids",
    "contradicting_evidence_ids",
    "recommended_probes",
    "mutation_evidence_ids",
)


@example(field="relationships", items=["x"])
@given(field=st.sampled_from(REVISION_LIST_FIELDS), items=st.lists(json_value, min_size=1, max_size=3))
def test_parse_bundle_never_raises_on_resealed_revision(field, items):
    outcome = drive(record_unknown(Session(), {"question": "q", "domain": "d", "severity": "low"}, CTX))
    tree = _wire(outcome.session)
    tree["unknowns"][0] = seal({**tree["unknowns"][0], field: items})  # anyone can recompute a digest
    assert isinstance(parse_bundle(tree), (Success, Failure))


@given(st.integers(1, 3), st.data())
def test_import_keeps_revision_chains_linked(updates, data):
    outcome = drive(record_unknown(Session(), {"question": "q", "domain": "d", "severity": "low"}, CTX))
    session, head = outcome.session, outcome.reply.unwrap()["result"]
    for _ in range(updates):
        outcome = drive(
            update_unknown(
                session,
                {
                    "unknown_id": head["unknown_id"],
                    "expected_revision": head["revision"],
                    "severity": data.draw(st.sampled_from(SEVERITIES)),
                },
                CTX,
            )
        )
        session, head = outcome.session, outcome.reply.unwrap()["result"]
    tree = _wire(session)
    dropped = data.draw(st.integers(0, len(tree["unknowns"]) - 2))  # never the head
    del tree["unknowns"][dropped]
    outcome = drive(import_evidence_bundle(Session(), {"path": "/b.json"}, CTX), tree)
    if isinstance(outcome.reply, Failure):
        return  # rejecting the gap is the correct behaviour
    chain = sorted(outcome.session.unknown_revisions, key=lambda r: r["revision"])
    assert chain[0]["revision"] == 1 and chain[0]["previous_revision_digest"] is None
    for prior, later in zip(chain, chain[1:]):
        assert later["revision"] == prior["revision"] + 1
        assert later["previous_revision_digest"] == prior["revision_digest"]
