import attrs
import pytest
from returns.pipeline import is_successful

from rea.artifacts.report_records import InventoryEvidence
from rea.catalog.schemas import evidence_output
from rea.evidence import (
    ENVELOPE,
    NO_SUBJECT_LIMITATION,
    Evidence,
    Provider,
    create_evidence,
    create_profile,
    parse_evidence,
)
from rea.session_tools.records.bundles import EvidenceRecord
from support import PROFILE, PROVIDER, make_evidence


def test_created_evidence_round_trips_through_strict_parse():
    evidence = make_evidence(1)
    again = parse_evidence(evidence.to_json()).unwrap()
    assert again == evidence
    assert evidence.evidence_id.startswith("ev_") and len(evidence.evidence_id) == 67


def test_subject_name_and_local_path_do_not_change_identity():
    record = make_evidence(1).to_json()
    record["subject"] = {**record["subject"], "name": "renamed", "local_path": "/elsewhere/renamed"}
    assert is_successful(parse_evidence(record))


@pytest.mark.parametrize(
    "field, value",
    [
        ("operation", "other_op"),
        ("parameters", {"address": "0x1"}),
        ("normalized_result", {}),
        ("raw_result", {"x": 1}),
        ("confidence", "inferred"),
        ("authority", "analyst-inference"),
        ("limitations", ["new"]),
        ("locations", []),
        ("predicate_type", "rea.other/v1"),
    ],
)
def test_any_semantic_change_breaks_the_id(field, value):
    record = make_evidence(1).to_json()
    record[field] = value
    failure = parse_evidence(record).failure()
    assert failure.code == "evidence_integrity_mismatch"
    assert failure.details["path"] == "evidence_id"


def test_subject_digest_is_semantic():
    record = make_evidence(1).to_json()
    record["subject"] = {**record["subject"], "digest": {"sha256": "f" * 64}}
    assert parse_evidence(record).failure().details["path"] == "evidence_id"


def test_missing_analysis_profile_is_rejected_even_when_null_would_hash():
    record = make_evidence(1).to_json()
    del record["analysis_profile"]
    failure = parse_evidence(record).failure()
    assert "analysis_profile" in failure.message and "missing" in failure.message


def test_null_analysis_profile_is_part_of_identity():
    with_null = create_evidence(provider=PROVIDER, operation="op", parameters={}, normalized_result=1).unwrap()
    with_profile = create_evidence(
        provider=PROVIDER, operation="op", parameters={}, normalized_result=1, analysis_profile=PROFILE
    ).unwrap()
    assert with_null.evidence_id != with_profile.evidence_id
    assert with_null.limitations == (NO_SUBJECT_LIMITATION,)


def test_unknown_envelope_fields_are_rejected():
    record = make_evidence(1).to_json()
    record["approved"] = True
    failure = parse_evidence(record).failure()
    assert failure.details["path"] == "$.approved"


def test_schema_version_other_than_2_is_rejected():
    record = make_evidence(1).to_json()
    record["schema_version"] = 1
    assert "schema_version 2" in parse_evidence(record).failure().message


def test_profile_provider_must_equal_evidence_provider():
    other = Provider(id="other", name="Other", version="2")
    result = create_evidence(
        provider=PROVIDER,
        operation="op",
        parameters={},
        normalized_result=1,
        analysis_profile=create_profile(other, 1, {}),
    )
    assert result.failure().details["path"] == "analysis_profile.provider"


def test_profile_digest_is_verified():
    record = make_evidence(1).to_json()
    record["analysis_profile"] = {**record["analysis_profile"], "parameters": {"cfg": "slow"}}
    assert parse_evidence(record).failure().details["path"] == "analysis_profile.digest"


def test_tampered_id_is_rejected():
    record = make_evidence(1).to_json()
    record["evidence_id"] = "ev_" + "0" * 64
    assert parse_evidence(record).failure().code == "evidence_integrity_mismatch"


@pytest.mark.parametrize(
    "mutate",
    [
        lambda r: r.update(confidence="certain"),
        lambda r: r.update(locations=[{"kind": "address"}]),
        lambda r: r.update(locations=[{"kind": "file-offset", "offset": -1}]),
        lambda r: r.update(evidence_links=["ev_bad"]),
        lambda r: r["subject"].update(format="exe"),
        lambda r: r.update(parameters=[]),
    ],
)
def test_malformed_fields_name_their_path(mutate):
    record = make_evidence(1).to_json()
    record["subject"] = dict(record["subject"])
    mutate(record)
    failure = parse_evidence(record).failure()
    assert failure.code == "evidence_integrity_mismatch" and failure.details["path"] != "evidence_id"


def test_records_are_frozen():
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        make_evidence(1).operation = "x"  # type: ignore[misc]


def test_the_envelope_table_is_the_one_description_the_others_follow():
    """The record, its wire form, the advertised schema and the typed wire records that carry a whole
    Evidence name exactly the envelope's fields, in its order; a field added in one place fails here."""
    names = [f.name for f in ENVELOPE]
    record = make_evidence(1)
    assert ["schema_version", *(a.name for a in attrs.fields(Evidence))] == names
    assert sorted(record.to_json()) == sorted(names)
    assert list(evidence_output()["properties"]) == names == evidence_output()["required"]
    for wire in (EvidenceRecord, InventoryEvidence):
        assert [a.name for a in attrs.fields(wire)] == names, wire


def test_creation_hashes_a_result_once_and_agrees_with_a_full_parse(monkeypatch):
    """create_evidence checks its fresh record as parsing does without serializing the (possibly huge) result a
    second time; the id is the one a full strict parse recomputes."""
    import rea.evidence as ev

    result = {"nodes": [{"id": i, "label": f"n{i}", "ok": i % 2 == 0} for i in range(50)]}
    hashed = []
    real = ev.canonical_sha256
    monkeypatch.setattr(ev, "canonical_sha256", lambda v: hashed.append(v) or real(v))
    created = create_evidence(
        provider=PROVIDER, operation="op", parameters={"a": 1}, normalized_result=result, analysis_profile=PROFILE
    ).unwrap()
    with_result = [v for v in hashed if isinstance(v, dict) and v.get("normalized_result") is result]
    assert len(with_result) == 1
    assert parse_evidence(created.to_json()).unwrap() == created


def test_creation_still_rejects_what_a_full_parse_rejects():
    failure = create_evidence(provider=PROVIDER, operation="op", parameters={}, normalized_result=float("nan"))
    assert failure.failure().code == "evidence_integrity_mismatch"
    bad = create_evidence(
        provider=PROVIDER, operation="op", parameters={}, normalized_result=1, locations=[{"kind": "address"}]
    )
    assert bad.failure().details["path"].startswith("locations")


def test_a_fresh_record_whose_wire_form_parses_to_another_identity_is_rejected():
    """The shortcut holds only when the parse hands the same results through and the rest of the projection is
    unchanged: a different result object, or a projected field that changes, falls back to a mismatch."""
    import rea.evidence as ev

    created = make_evidence(1)
    other = attrs.evolve(created, normalized_result=dict(created.normalized_result))
    assert not ev._same_identity(other, created)
    assert not ev._same_identity(attrs.evolve(created, confidence="inferred"), created)
    assert ev._same_identity(attrs.evolve(created), created)
