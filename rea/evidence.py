"""Evidence v2: content-addressed records of one observation.

`evidence_id` commits to the semantic projection: the record without its id and
with the subject reduced to digest, format and architecture, so renaming or
moving the analysed file never changes identity. Parsing is strict and always
recomputes the id: a record is either exactly what its producer made or it is
rejected.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, ParamSpec, get_args

import attrs
from returns.result import Failure, Result, Success

from rea import json_schema as schema
from rea.canonical_json import CanonicalJsonError, canonical_sha256, canonicalize
from rea.errors import ReaError
from rea.strict_json import (
    Reject,
    read_enum,
    read_int,
    read_object,
    read_open_object,
    read_string,
    read_strings,
)

P = ParamSpec("P")

SCHEMA_VERSION = 2
PROFILE_SCHEMA_VERSION = 1
DEFAULT_PREDICATE = "rea.analysis/v2"
NO_SUBJECT_LIMITATION = "No artifact identity was bound to this observation; it is not tied to a specific file."

_DIGEST = re.compile(r"^[0-9a-f]{64}$")
EVIDENCE_ID = re.compile(r"^ev_[0-9a-f]{64}$")
# the same identities as the advertised schemas spell them (the parser's spelling is in its messages)
EVIDENCE_ID_PATTERN = "^ev_[a-f0-9]{64}$"
SHA256_PATTERN = "^[a-f0-9]{64}$"

SubjectFormat = Literal[
    "hopper",
    "analysis-database",
    "mach-o",
    "elf",
    "pe",
    "dos-mz",
    "dos-com",
    "zip",
    "ipa",
    "apk",
    "msix",
    "appx",
    "asar",
    "dmg",
    "pkg",
    "plist",
    "javascript",
    "source-map",
    "directory",
    "file",
    "unknown",
    "mach-o-universal",
    "javascript-bundle",
    "entitlements",
    "wasm",
    "tar",
    "jar",
    "ar",
    "aab",
    "aar",
    "whl",
    "crx",
]
SUBJECT_FORMATS: tuple[str, ...] = get_args(SubjectFormat)
ARCHITECTURES = ("x86", "x86_64", "arm", "arm64")
CONFIDENCE = ("observed", "derived", "inferred")
AUTHORITY = ("shipped-artifact", "controlled-replay", "historical-reference", "external-service", "analyst-inference")
ISOLATION = ("none", "process", "container", "virtual-machine")
# Nested fixed metadata: its advertised properties (where a tool's schema spells them out) and its closed
# field set, which the parser and bundle import (before any id is computed) both check.
SUBJECT_PROPERTIES: Mapping[str, Any] = {
    "name": schema.string("Name"),
    "digest": schema.obj({"sha256": schema.string("Digest", pattern=SHA256_PATTERN)}, ("sha256",)),
    "format": {"type": "string", "enum": list(SUBJECT_FORMATS)},
    "architecture": schema.nullable(schema.string("Architecture")),
    "local_path": schema.string("Path"),
}
PROVIDER_PROPERTIES: Mapping[str, Any] = {
    "id": schema.string("Id"),
    "name": schema.string("Name"),
    "version": schema.nullable(schema.string("Version")),
}
SUBJECT_FIELDS = tuple(SUBJECT_PROPERTIES)
PROVIDER_FIELDS = tuple(PROVIDER_PROPERTIES)
PROFILE_FIELDS = ("schema_version", "provider", "provider_profile_schema_version", "parameters", "digest")
ENVIRONMENT_FIELDS = ("id", "platform", "architecture", "isolation")
LOCATION_FIELDS: Mapping[str, Mapping[str, type]] = {
    "address": {"address": str},
    "address-range": {"start": str, "end": str},
    "artifact-path": {"path": str},
    "file-offset": {"offset": int},
    "file-offset-range": {"start": int, "end": int},
}


@attrs.frozen(kw_only=True)
class Provider:
    id: str
    name: str
    version: str | None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "version": self.version}


@attrs.frozen(kw_only=True)
class Subject:
    name: str
    sha256: str
    format: str
    architecture: str | None
    local_path: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "digest": {"sha256": self.sha256},
            "format": self.format,
            "architecture": self.architecture,
            "local_path": self.local_path,
        }

    def identity(self) -> dict[str, Any]:
        return {"digest": {"sha256": self.sha256}, "format": self.format, "architecture": self.architecture}


@attrs.frozen(kw_only=True)
class AnalysisProfile:
    """A provider's commitment to the settings that shape its analysis."""

    provider: Provider
    provider_profile_schema_version: int
    parameters: Mapping[str, Any]
    digest: str

    def unsigned(self) -> dict[str, Any]:
        return {
            "schema_version": PROFILE_SCHEMA_VERSION,
            "provider": self.provider.to_json(),
            "provider_profile_schema_version": self.provider_profile_schema_version,
            "parameters": self.parameters,
        }

    def to_json(self) -> dict[str, Any]:
        return {**self.unsigned(), "digest": self.digest}


def create_profile(provider: Provider, schema_version: int, parameters: Mapping[str, Any]) -> AnalysisProfile:
    draft = AnalysisProfile(
        provider=provider, provider_profile_schema_version=schema_version, parameters=dict(parameters), digest=""
    )
    return attrs.evolve(draft, digest=canonical_sha256(draft.unsigned()))


@attrs.frozen(kw_only=True)
class Evidence:
    evidence_id: str
    subject: Subject | None
    provider: Provider
    analysis_profile: AnalysisProfile | None
    predicate_type: str
    operation: str
    parameters: Mapping[str, Any]
    raw_result: Any
    normalized_result: Any
    confidence: str
    authority: str
    environment: Mapping[str, Any] | None
    limitations: tuple[str, ...]
    locations: tuple[Mapping[str, Any], ...]
    evidence_links: tuple[str, ...]

    def semantic_projection(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "subject": None if self.subject is None else self.subject.identity(),
            "provider": self.provider.to_json(),
            "analysis_profile": None if self.analysis_profile is None else self.analysis_profile.to_json(),
            "predicate_type": self.predicate_type,
            "operation": self.operation,
            "parameters": self.parameters,
            "raw_result": self.raw_result,
            "normalized_result": self.normalized_result,
            "confidence": self.confidence,
            "authority": self.authority,
            "environment": self.environment,
            "limitations": list(self.limitations),
            "locations": list(self.locations),
            "evidence_links": list(self.evidence_links),
        }

    def to_json(self) -> dict[str, Any]:
        record = self.semantic_projection()
        record["subject"] = None if self.subject is None else self.subject.to_json()
        record["evidence_id"] = self.evidence_id
        return record


def compute_evidence_id(evidence: Evidence) -> str:
    return "ev_" + canonical_sha256(evidence.semantic_projection())


def draft_evidence(
    *,
    provider: Provider,
    operation: str,
    parameters: Mapping[str, Any],
    normalized_result: Any,
    subject: Subject | None = None,
    analysis_profile: AnalysisProfile | None = None,
    predicate_type: str = DEFAULT_PREDICATE,
    raw_result: Any = None,
    confidence: str = "observed",
    authority: str = "shipped-artifact",
    environment: Mapping[str, Any] | None = None,
    limitations: Sequence[str] = (),
    locations: Sequence[Mapping[str, Any]] = (),
    evidence_links: Sequence[str] = (),
) -> Evidence:
    """A record without its id yet: identify() hashes it, validate() checks it as parsing would."""
    return Evidence(
        evidence_id="",
        subject=subject,
        provider=provider,
        analysis_profile=analysis_profile,
        predicate_type=predicate_type,
        operation=operation,
        parameters=dict(parameters),
        raw_result=raw_result,
        normalized_result=normalized_result,
        confidence=confidence,
        authority=authority,
        environment=environment,
        limitations=(() if subject is not None else (NO_SUBJECT_LIMITATION,)) + tuple(limitations),
        locations=tuple(locations),
        evidence_links=tuple(evidence_links),
    )


def identify(draft: Evidence) -> Result[Evidence, ReaError]:
    """The draft with its content address (canonical hashing of its semantic projection)."""
    try:
        return Success(attrs.evolve(draft, evidence_id=compute_evidence_id(draft)))
    except CanonicalJsonError as exc:
        return Failure(_integrity(f"the Evidence is not canonical JSON: {exc}", "$"))


def validate(evidence: Evidence) -> Result[Evidence, ReaError]:
    """The record as a strict parse of its wire form accepts it (id recomputed)."""
    return parse_evidence(evidence.to_json())


def _sealed(draft: Callable[P, Evidence]) -> Callable[P, Result[Evidence, ReaError]]:
    @functools.wraps(draft)
    def create(*args: P.args, **kwargs: P.kwargs) -> Result[Evidence, ReaError]:
        return identify(draft(*args, **kwargs)).bind(_reparsed)

    return create


def _reparsed(identified: Evidence) -> Result[Evidence, ReaError]:
    """validate() for a record whose id identify() has just computed: the same strict parse of its wire form,
    and the same id, without hashing the results a second time (a large result, such as a semantic graph,
    costs a second canonical serialization otherwise). The parse hands the results through as the very same
    objects, so the parsed record's id is the identified one exactly when its other projected fields
    canonicalize the same."""
    try:
        return Success(_parse(identified.to_json(), identified=identified))
    except Reject as exc:
        return Failure(_integrity(exc.message, exc.path))
    except CanonicalJsonError as exc:
        return Failure(_integrity(f"not canonical JSON: {exc}", "$"))


def _same_identity(parsed: Evidence, identified: Evidence) -> bool:
    """Whether the parsed record's id would equal `identified`'s (computed from identified's projection):
    both results are the same objects, and the rest of the projection canonicalizes to the same bytes."""
    ours, theirs = parsed.semantic_projection(), identified.semantic_projection()
    for name in ("normalized_result", "raw_result"):
        if ours.pop(name) is not theirs.pop(name):
            return False
    return canonicalize(ours) == canonicalize(theirs)


create_evidence = _sealed(draft_evidence)
create_evidence.__doc__ = "Build a record and give it its id; the draft goes through the same checks as parsing."


# ---------------------------------------------------------------- strict parse


def _integrity(message: str, path: str, **details: Any) -> ReaError:
    return ReaError(
        code="evidence_integrity_mismatch",
        message=f"Evidence rejected at {path}: {message}",
        details={"path": path, **details},
    )


def _provider(value: Any, path: str, *, version_required: bool = False) -> Provider:
    obj = read_object(value, path, set(PROVIDER_FIELDS), PROVIDER_FIELDS)
    version = obj["version"]
    if version is not None or version_required:
        read_string(version, f"{path}.version")
    return Provider(
        id=read_string(obj["id"], f"{path}.id"), name=read_string(obj["name"], f"{path}.name"), version=version
    )


def _subject(value: Any, path: str) -> Subject | None:
    if value is None:
        return None
    obj = read_object(value, path, set(SUBJECT_FIELDS), SUBJECT_FIELDS)
    digest = read_object(obj["digest"], f"{path}.digest", {"sha256"}, ("sha256",))
    arch = obj["architecture"]
    return Subject(
        name=read_string(obj["name"], f"{path}.name"),
        sha256=read_string(digest["sha256"], f"{path}.digest.sha256", pattern=_DIGEST),
        format=read_enum(obj["format"], f"{path}.format", SUBJECT_FORMATS),
        architecture=None if arch is None else read_enum(arch, f"{path}.architecture", ARCHITECTURES),
        local_path=read_string(obj["local_path"], f"{path}.local_path", nonempty=False),
    )


def parse_profile(value: Any, path: str = "analysis_profile") -> AnalysisProfile:
    obj = read_object(value, path, set(PROFILE_FIELDS), PROFILE_FIELDS)
    if obj["schema_version"] != PROFILE_SCHEMA_VERSION or type(obj["schema_version"]) is not int:
        raise Reject(
            f"{path}.schema_version", f"analysis profile schema_version must be 1, got {obj['schema_version']!r}"
        )
    if not isinstance(obj["parameters"], dict):
        raise Reject(f"{path}.parameters", "expected an object")
    profile = AnalysisProfile(
        provider=_provider(obj["provider"], f"{path}.provider", version_required=True),
        provider_profile_schema_version=read_int(
            obj["provider_profile_schema_version"], f"{path}.provider_profile_schema_version", 1
        ),
        parameters=obj["parameters"],
        digest=read_string(obj["digest"], f"{path}.digest", pattern=_DIGEST),
    )
    if canonical_sha256(profile.unsigned()) != profile.digest:
        raise Reject(f"{path}.digest", "the analysis profile digest does not match its content")
    return profile


def _location(value: Any, path: str) -> Mapping[str, Any]:
    if not isinstance(value, dict) or not isinstance(value.get("kind"), str) or value["kind"] not in LOCATION_FIELDS:
        raise Reject(f"{path}.kind", f"location kind must be one of {', '.join(LOCATION_FIELDS)}")
    fields = LOCATION_FIELDS[value["kind"]]
    read_object(value, path, {"kind", *fields}, ("kind", *fields))
    for name, kind in fields.items():
        if kind is int:
            read_int(value[name], f"{path}.{name}")
        else:
            read_string(value[name], f"{path}.{name}")
    return value


def _environment(value: Any, path: str) -> Mapping[str, Any] | None:
    if value is None:
        return None
    obj = read_object(value, path, set(ENVIRONMENT_FIELDS), ENVIRONMENT_FIELDS)
    for name in ENVIRONMENT_FIELDS[:3]:
        read_string(obj[name], f"{path}.{name}")
    read_enum(obj["isolation"], f"{path}.isolation", ISOLATION)
    return obj


def _schema_version(value: Any, path: str) -> int:
    # its value was checked first (a record of another version is refused before its shape); here its type
    if type(value) is not int:
        raise Reject(path, "schema_version must be the integer 2")
    return value


def _open(value: Any, path: str) -> Any:
    return value


def _profile(value: Any, path: str) -> AnalysisProfile | None:
    return None if value is None else parse_profile(value, path)


def _locations(value: Any, path: str) -> tuple[Mapping[str, Any], ...]:
    if not isinstance(value, list):
        raise Reject(path, "expected an array")
    return tuple(_location(v, f"{path}[{i}]") for i, v in enumerate(value))


# ---------------------------------------------------------------- the envelope, once


@attrs.frozen
class EnvelopeField:
    """One top-level field of the wire record. The table below is the envelope's one description: the
    strict parser reads each field with `read`, tools advertise `schema`, and `fixed` is the closed field
    set of a nested metadata object (bundle import rejects unknown fields there before any id)."""

    name: str
    read: Callable[[Any, str], Any]
    schema: Mapping[str, Any]
    fixed: tuple[str, ...] = ()


_ANY_OBJECT: Mapping[str, Any] = {"type": "object"}

ENVELOPE: tuple[EnvelopeField, ...] = (
    EnvelopeField("schema_version", _schema_version, {"const": SCHEMA_VERSION}),
    EnvelopeField(
        "evidence_id",
        lambda v, p: read_string(v, p, pattern=EVIDENCE_ID),
        schema.string("Evidence id", pattern=EVIDENCE_ID_PATTERN),
    ),
    EnvelopeField("subject", _subject, schema.nullable(schema.obj(SUBJECT_PROPERTIES, SUBJECT_FIELDS)), SUBJECT_FIELDS),
    EnvelopeField("provider", _provider, schema.obj(PROVIDER_PROPERTIES, PROVIDER_FIELDS), PROVIDER_FIELDS),
    EnvelopeField("analysis_profile", _profile, schema.nullable(_ANY_OBJECT), PROFILE_FIELDS),
    EnvelopeField("predicate_type", read_string, schema.string("Predicate")),
    EnvelopeField("operation", read_string, schema.string("Operation")),
    EnvelopeField("parameters", read_open_object, _ANY_OBJECT),
    EnvelopeField("raw_result", _open, {}),
    EnvelopeField("normalized_result", _open, {}),
    EnvelopeField("confidence", lambda v, p: read_enum(v, p, CONFIDENCE), {"type": "string", "enum": list(CONFIDENCE)}),
    EnvelopeField("authority", lambda v, p: read_enum(v, p, AUTHORITY), {"type": "string", "enum": list(AUTHORITY)}),
    EnvelopeField("environment", _environment, schema.nullable(_ANY_OBJECT), ENVIRONMENT_FIELDS),
    EnvelopeField("limitations", read_strings, schema.array({"type": "string"})),
    EnvelopeField("locations", _locations, schema.array(_ANY_OBJECT)),
    EnvelopeField(
        "evidence_links",
        lambda v, p: read_strings(v, p, EVIDENCE_ID),
        schema.array(schema.string("Linked Evidence", pattern=EVIDENCE_ID_PATTERN)),
    ),
)
ENVELOPE_FIELDS = frozenset(f.name for f in ENVELOPE)
# the fixed metadata nested in a record, by field
NESTED_FIXED: Mapping[str, frozenset[str]] = {f.name: frozenset(f.fixed) for f in ENVELOPE if f.fixed}


def parse_evidence(value: Any) -> Result[Evidence, ReaError]:
    """Strictly parse a wire record and verify its id; never repairs anything."""
    try:
        return Success(_parse(value))
    except Reject as exc:
        return Failure(_integrity(exc.message, exc.path))
    except CanonicalJsonError as exc:
        return Failure(_integrity(f"not canonical JSON: {exc}", "$"))


def _parse(value: Any, identified: Evidence | None = None) -> Evidence:
    """Each field read as the table declares, in wire order; then what no one field can check alone (with
    `identified`, the fresh record this wire form was written from: its id is checked without a rehash)."""
    if isinstance(value, dict) and "schema_version" in value and value["schema_version"] != SCHEMA_VERSION:
        raise Reject("schema_version", f"only Evidence schema_version 2 is accepted, got {value['schema_version']!r}")
    obj = read_object(value, "$", ENVELOPE_FIELDS, sorted(ENVELOPE_FIELDS))
    read = {f.name: f.read(obj[f.name], f.name) for f in ENVELOPE}
    del read["schema_version"]  # the record is always version 2; its projection writes the constant
    evidence = Evidence(**read)
    if evidence.analysis_profile is not None and evidence.analysis_profile.provider != evidence.provider:
        raise Reject("analysis_profile.provider", "the analysis profile's provider differs from the Evidence provider")
    same = (
        evidence.evidence_id == identified.evidence_id and _same_identity(evidence, identified)
        if identified is not None
        else compute_evidence_id(evidence) == evidence.evidence_id
    )
    if not same:
        raise Reject(
            "evidence_id",
            "the evidence_id does not match the record's content (the record was changed after it was made)",
        )
    return evidence
