"""Laws of rea.evidence: content-addressed ids and strict parsing."""

from __future__ import annotations

import attrs
import orjson
from hypothesis import assume, example, given
from hypothesis import strategies as st
from returns.result import Failure, Success

from prop_support import (
    environments,
    evidence_ids,
    evidence_kwargs,
    evidences,
    hex64,
    json_object,
    json_value,
    locations,
    nonempty,
    providers,
    reorder_keys,
    subjects,
    versioned_providers,
)
from rea.canonical_json import canonicalize
from rea.evidence import (
    ARCHITECTURES,
    AUTHORITY,
    CONFIDENCE,
    ENVELOPE_FIELDS,
    SUBJECT_FORMATS,
    Evidence,
    Provider,
    compute_evidence_id,
    create_evidence,
    create_profile,
    parse_evidence,
)


def _rejected(result) -> dict:
    assert isinstance(result, Failure), result
    error = result.failure()
    assert error.code == "evidence_integrity_mismatch"
    return error.details


@given(evidences)
def test_create_then_parse_round_trips(evidence: Evidence):
    assert parse_evidence(evidence.to_json()).unwrap() == evidence
    wire = orjson.loads(canonicalize(evidence.to_json()))
    reparsed = parse_evidence(wire).unwrap()
    assert reparsed.evidence_id == evidence.evidence_id
    assert canonicalize(reparsed.to_json()) == canonicalize(evidence.to_json())
    assert evidence.evidence_id == compute_evidence_id(evidence)


@given(evidence_kwargs())
def test_id_independent_of_payload_key_order(kw):
    original = create_evidence(**kw).unwrap()
    shuffled = {**kw, **{k: reorder_keys(kw[k]) for k in ("parameters", "normalized_result", "raw_result")}}
    if kw["analysis_profile"] is not None:
        p = kw["analysis_profile"]
        shuffled["analysis_profile"] = create_profile(
            p.provider, p.provider_profile_schema_version, reorder_keys(dict(p.parameters))
        )
    assert create_evidence(**shuffled).unwrap().evidence_id == original.evidence_id
    # and a wire record whose keys were reordered still parses to the same id
    assert parse_evidence(reorder_keys(original.to_json())).unwrap().evidence_id == original.evidence_id


@given(evidence_kwargs(), subjects, nonempty, st.text(max_size=10))
def test_id_independent_of_subject_name_and_path(kw, subject, name, local_path):
    kw = {**kw, "subject": subject}
    original = create_evidence(**kw).unwrap()
    moved = create_evidence(**{**kw, "subject": attrs.evolve(subject, name=name, local_path=local_path)}).unwrap()
    assert moved.evidence_id == original.evidence_id
    assert moved.subject.name == name and moved.subject.local_path == local_path


def _differs(a, b) -> bool:
    return canonicalize(a) != canonicalize(b)


SEMANTIC_FIELDS = (
    "operation",
    "parameters",
    "normalized_result",
    "raw_result",
    "confidence",
    "authority",
    "limitations",
    "locations",
    "evidence_links",
    "subject.sha256",
    "subject.format",
    "subject.architecture",
    "provider",
    "analysis_profile",
    "predicate_type",
    "environment",
)


@given(evidence_kwargs(), st.sampled_from(SEMANTIC_FIELDS), st.data())
def test_id_changes_with_any_semantic_field(kw, field, data):
    before = create_evidence(**kw).unwrap()
    kw = dict(kw)
    if field == "operation":
        kw["operation"] = data.draw(nonempty.filter(lambda s: s != before.operation))
    elif field == "predicate_type":
        kw["predicate_type"] = data.draw(nonempty.filter(lambda s: s != before.predicate_type))
    elif field == "parameters":
        kw["parameters"] = data.draw(json_object.filter(lambda v: _differs(v, kw["parameters"])))
    elif field in ("normalized_result", "raw_result"):
        kw[field] = data.draw(json_value.filter(lambda v: _differs(v, kw[field])))
    elif field == "confidence":
        kw[field] = data.draw(st.sampled_from([c for c in CONFIDENCE if c != kw[field]]))
    elif field == "authority":
        kw[field] = data.draw(st.sampled_from([c for c in AUTHORITY if c != kw[field]]))
    elif field == "limitations":
        kw[field] = data.draw(st.lists(st.text(max_size=8), max_size=3).filter(lambda v: v != list(kw[field])))
    elif field == "locations":
        kw[field] = data.draw(st.lists(locations, max_size=3).filter(lambda v: _differs(v, list(kw[field]))))
    elif field == "evidence_links":
        kw[field] = data.draw(st.lists(evidence_ids, max_size=3).filter(lambda v: v != list(kw[field])))
    elif field == "environment":
        kw[field] = data.draw(environments.filter(lambda v: _differs(v, kw["environment"])))
    elif field.startswith("subject."):
        subject = kw["subject"] or data.draw(subjects)
        kw["subject"] = subject  # make sure both sides carry a subject
        before = create_evidence(**kw).unwrap()
        attr = field.split(".")[1]
        choices = {
            "sha256": hex64,
            "format": st.sampled_from(SUBJECT_FORMATS),
            "architecture": st.none() | st.sampled_from(ARCHITECTURES),
        }[attr]
        new = data.draw(choices.filter(lambda v: v != getattr(subject, attr)))
        kw["subject"] = attrs.evolve(subject, **{attr: new})
    elif field == "provider":
        new = data.draw(
            (versioned_providers if kw["analysis_profile"] else providers).filter(lambda p: p != kw["provider"])
        )
        kw["provider"] = new
        if kw["analysis_profile"] is not None:  # the profile must name the Evidence provider
            old = kw["analysis_profile"]
            kw["analysis_profile"] = create_profile(new, old.provider_profile_schema_version, old.parameters)
    elif field == "analysis_profile":
        provider = kw["provider"]
        if provider.version is None:
            provider = attrs.evolve(provider, version="1")
            kw["provider"] = provider
            before = create_evidence(**{**kw, "analysis_profile": None}).unwrap()
            kw["analysis_profile"] = None
        old = kw["analysis_profile"]
        new = data.draw(st.none() | st.builds(create_profile, st.just(provider), st.integers(1, 5), json_object))
        assume(new != old and (new is None or old is None or new.digest != old.digest))
        kw["analysis_profile"] = new
    after = create_evidence(**kw).unwrap()
    assert after.evidence_id != before.evidence_id


@given(evidences, st.data())
def test_parse_rejects_tampered_id(evidence, data):
    wire = evidence.to_json()
    hex_part = wire["evidence_id"][3:]
    tampered = data.draw(hex64.filter(lambda h: h != hex_part))
    _rejected(parse_evidence({**wire, "evidence_id": "ev_" + tampered}))
    # any string that is not the exact id is rejected too
    other = data.draw(st.text(max_size=70).filter(lambda s: s != wire["evidence_id"]))
    _rejected(parse_evidence({**wire, "evidence_id": other}))


@given(evidences, st.sampled_from(sorted(ENVELOPE_FIELDS)))
def test_parse_rejects_missing_field(evidence, field):
    wire = evidence.to_json()
    del wire[field]
    details = _rejected(parse_evidence(wire))
    assert details["path"].endswith(field)


@given(evidences)
def test_parse_rejects_missing_analysis_profile(evidence):
    wire = evidence.to_json()
    del wire["analysis_profile"]
    assert _rejected(parse_evidence(wire))["path"] == "$.analysis_profile"


@given(evidences, st.text(max_size=10).filter(lambda k: k not in ENVELOPE_FIELDS), json_value)
def test_parse_rejects_unknown_envelope_field(evidence, key, value):
    wire = {**evidence.to_json(), key: value}
    assert _rejected(parse_evidence(wire))["path"] == f"$.{key}"


@given(evidences, json_value.filter(lambda v: not (type(v) is int and v == 2)))
def test_parse_rejects_other_schema_versions(evidence, version):
    _rejected(parse_evidence({**evidence.to_json(), "schema_version": version}))


@given(evidence_kwargs(), versioned_providers, versioned_providers)
def test_parse_rejects_profile_of_another_provider(kw, provider, other):
    assume(provider != other)
    profile = create_profile(other, 1, {})
    base = create_evidence(**{**kw, "provider": provider, "analysis_profile": None}).unwrap()
    # a record whose id is correct for its content, but whose profile names another provider
    forged = attrs.evolve(base, analysis_profile=profile)
    forged = attrs.evolve(forged, evidence_id=compute_evidence_id(forged))
    assert _rejected(parse_evidence(forged.to_json()))["path"] == "analysis_profile.provider"
    assert isinstance(create_evidence(**{**kw, "provider": provider, "analysis_profile": profile}), Failure)


# ---------------------------------------------------------------- robustness

_PROVIDER = Provider(id="p", name="P", version="1")


@example(kind=[])
@given(kind=json_value)
def test_parse_never_raises_on_any_location_kind(kind):
    evidence = create_evidence(provider=_PROVIDER, operation="op", parameters={}, normalized_result=None).unwrap()
    wire = {**evidence.to_json(), "locations": [{"kind": kind}]}
    result = parse_evidence(wire)  # must be a Result, whatever the value
    assert isinstance(result, (Success, Failure))
