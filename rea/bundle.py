"""Evidence bundles: the portable, canonical form of a session's ledger.

A bundle is canonical JSON whose manifests (artifacts, providers, environments,
scenarios, captures) are derived from its records. Export streams it record by
record, so a large ledger is never held twice in memory; import checks every
fixed field before any digest or id, then merges atomically.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Mapping, Sequence
from typing import Any

import attrs
from returns.result import Failure, Result, Success

import rea.catalog  # noqa: F401  (first: the session family's records import rea.catalog.contract, which builds it)
from rea.canonical_json import canonicalize
from rea.errors import ReaError
from rea.evidence import (
    ENVELOPE_FIELDS,
    ENVIRONMENT_FIELDS,
    NESTED_FIXED,
    PROVIDER_FIELDS,
    Evidence,
    parse_evidence,
)
from rea.program import ReportProgress
from rea.session import Session
from rea.session_tools.contract import UNKNOWN_RECORD
from rea.unknowns import verify_revision
from rea.validation import first_schema_error

BUNDLE_VERSION = 2
BUNDLE_FIELDS = (
    "artifacts",
    "bundle_version",
    "captures",
    "environments",
    "providers",
    "records",
    "scenarios",
    "unknowns",
)
MANIFEST_FIELDS: Mapping[str, frozenset[str]] = {
    "artifacts": frozenset({"digest", "format", "architecture"}),
    "providers": frozenset(PROVIDER_FIELDS),
    "environments": frozenset(ENVIRONMENT_FIELDS),
    "scenarios": frozenset({"evidence_id", "operation", "authority"}),
    "captures": frozenset({"evidence_id", "predicate_type"}),
}
CAPTURE_PREFIX = "rea.process-capture/"
VERIFY_BATCH = 500
SUMMARY_FILTERS = ("evidence_id", "operation", "target_sha256", "analysis_profile_digest", "procedure_address")


def _unique_sorted(values: Iterable[Any]) -> list[Any]:
    seen = {canonicalize(v): v for v in values}
    return [seen[k] for k in sorted(seen)]


def manifest_rows(evidence: Evidence) -> dict[str, list[Any]]:
    """What one record adds to each manifest (a streaming writer keeps only these, never the record)."""
    return {
        "artifacts": [] if evidence.subject is None else [evidence.subject.identity()],
        "providers": [evidence.provider.to_json()],
        "environments": [] if evidence.environment is None else [evidence.environment],
        "scenarios": (
            [{"evidence_id": evidence.evidence_id, "operation": evidence.operation, "authority": evidence.authority}]
            if evidence.authority == "controlled-replay"
            else []
        ),
        "captures": (
            [{"evidence_id": evidence.evidence_id, "predicate_type": evidence.predicate_type}]
            if evidence.predicate_type.startswith(CAPTURE_PREFIX)
            else []
        ),
    }


def merged_manifests(rows: Iterable[Mapping[str, list[Any]]]) -> dict[str, list[Any]]:
    """The manifests of records whose `manifest_rows` come in id order: the identity manifests
    unique and sorted, the per-record ones (scenarios, captures) in record order."""
    gathered: dict[str, list[Any]] = {name: [] for name in MANIFEST_FIELDS}
    for row in rows:
        for name in MANIFEST_FIELDS:
            gathered[name].extend(row[name])
    return {
        name: gathered[name] if name in ("scenarios", "captures") else _unique_sorted(gathered[name])
        for name in MANIFEST_FIELDS
    }


def manifests(records: Sequence[Evidence]) -> dict[str, list[Any]]:
    """The manifests a bundle of these records (sorted by id) must carry."""
    return merged_manifests(manifest_rows(e) for e in records)


def _sorted_records(session: Session) -> list[Evidence]:
    return [session.evidence[k] for k in sorted(session.evidence)]


def _sorted_unknowns(session: Session) -> list[Mapping[str, Any]]:
    return sorted(session.unknown_revisions, key=lambda r: (r["unknown_id"], r["revision"]))


def bundle_json(session: Session) -> dict[str, Any]:
    """The whole bundle as one JSON tree (for inline get_evidence_bundle)."""
    records = _sorted_records(session)
    return {
        **manifests(records),
        "bundle_version": BUNDLE_VERSION,
        "records": [e.to_json() for e in records],
        "unknowns": _sorted_unknowns(session),
    }


def bundle_chunks(session: Session) -> Iterator[bytes]:
    """The canonical bytes of `bundle_json(session)`, one record at a time."""
    records = _sorted_records(session)
    return stream_chunks(manifests(records), (canonicalize(e.to_json()) for e in records), _sorted_unknowns(session))


def stream_chunks(
    manifest: Mapping[str, list[Any]], records: Iterable[bytes], unknowns: Sequence[Mapping[str, Any]] = ()
) -> Iterator[bytes]:
    """A bundle's canonical bytes from its manifests and its records' canonical bytes in id order.

    Keys are emitted in JCS order (the BUNDLE_FIELDS tuple is already sorted), so the
    concatenation equals the canonical form of the whole tree; records are pulled one at
    a time, so a writer that spools them never holds the ledger in memory."""
    parts = {**manifest, "bundle_version": BUNDLE_VERSION, "unknowns": list(unknowns)}
    for index, name in enumerate(BUNDLE_FIELDS):
        yield (b"{" if index == 0 else b",") + canonicalize(name) + b":"
        if name != "records":
            yield canonicalize(parts[name])
            continue
        yield b"["
        for position, record_bytes in enumerate(records):
            yield (b"," if position else b"") + record_bytes
        yield b"]"
    yield b"}"


@attrs.frozen(kw_only=True)
class ParsedBundle:
    records: tuple[Evidence, ...]
    unknowns: tuple[Mapping[str, Any], ...]


def _reject(message: str, path: str) -> ReaError:
    return ReaError(
        code="evidence_integrity_mismatch",
        message=f"Bundle rejected at {path}: {message}. Nothing was imported.",
        details={"path": path},
        action="Import an unmodified bundle written by export_evidence_bundle.",
    )


def _field_problems(value: Any, allowed: frozenset[str] | set[str], path: str) -> Iterator[ReaError]:
    """Why `value` is not an object of the allowed fields (nothing when it is)."""
    if not isinstance(value, dict):
        yield _reject("expected an object", path)
        return
    extra = sorted(set(value) - set(allowed))
    if extra:
        yield _reject(f"unsupported field {extra[0]!r} (accepted: {', '.join(sorted(allowed))})", f"{path}.{extra[0]}")


def _structure_problems(value: Any) -> Iterator[ReaError]:
    """Pass 1: unsupported or missing fixed fields anywhere, before any digest is computed. The problems in
    order, read lazily: the first rejects the bundle, and what follows it is never looked at."""
    yield from _field_problems(value, set(BUNDLE_FIELDS), "$")
    for name in BUNDLE_FIELDS:
        if name not in value:
            yield _reject(f"required field {name!r} is missing", f"$.{name}")
    if value["bundle_version"] != BUNDLE_VERSION or type(value["bundle_version"]) is not int:
        yield _reject(f"bundle_version must be {BUNDLE_VERSION}, got {value['bundle_version']!r}", "$.bundle_version")
    for name in ("records", "unknowns", *MANIFEST_FIELDS):
        if not isinstance(value[name], list):
            yield _reject("expected an array", f"$.{name}")
    for name, allowed in MANIFEST_FIELDS.items():
        for i, entry in enumerate(value[name]):
            yield from _field_problems(entry, allowed, f"$.{name}[{i}]")
    for i, rec in enumerate(value["records"]):
        path = f"$.records[{i}]"
        yield from _field_problems(rec, ENVELOPE_FIELDS, path)
        for name, allowed in NESTED_FIXED.items():
            nested = rec.get(name)
            if nested is not None:
                yield from _field_problems(nested, allowed, f"{path}.{name}")
        subject = rec.get("subject")
        if isinstance(subject, dict) and isinstance(subject.get("digest"), dict):
            yield from _field_problems(subject["digest"], {"sha256"}, f"{path}.subject.digest")
        profile = rec.get("analysis_profile")
        if isinstance(profile, dict) and profile.get("provider") is not None:
            yield from _field_problems(
                profile["provider"], NESTED_FIXED["provider"], f"{path}.analysis_profile.provider"
            )
    for i, rev in enumerate(value["unknowns"]):
        if shape := first_schema_error(UNKNOWN_RECORD, rev):
            where, message = shape
            yield _reject(message, f"$.unknowns[{i}]" + ("" if where == "arguments" else f".{where}"))


def _history_problems(revisions: Sequence[Mapping[str, Any]], record_ids: set[str]) -> Iterator[ReaError]:
    """Every unknown's revisions form one chain from 1, and everything they cite is in the bundle: the problems in
    order, read lazily (the first rejects the bundle)."""
    chains: dict[str, list[Mapping[str, Any]]] = {}
    for rev in revisions:
        chains.setdefault(rev["unknown_id"], []).append(rev)
    for unknown_id, chain in chains.items():
        chain.sort(key=lambda r: r["revision"])
        previous = None
        for expected, rev in enumerate(chain, 1):
            if rev["revision"] != expected:
                yield _reject(
                    f"unknown {unknown_id} lacks revision {expected} (revisions must run 1, 2, ... without gaps)",
                    "$.unknowns",
                )
            if previous is not None and rev["previous_revision_digest"] != previous["revision_digest"]:
                yield _reject(
                    f"unknown {unknown_id} revision {expected} does not follow revision {expected - 1}", "$.unknowns"
                )
            previous = rev
            cited = [
                *rev["supporting_evidence_ids"],
                *rev["contradicting_evidence_ids"],
                *rev["mutation_evidence_ids"],
                *((rev["resolution"] or {}).get("evidence_ids", [])),
            ]
            missing = [e for e in cited if e not in record_ids]
            if missing:
                yield _reject(
                    f"unknown {unknown_id} revision {expected} cites {missing[0]}, which the bundle does not hold",
                    "$.unknowns",
                )
            for rel in rev["relationships"]:
                if rel["unknown_id"] not in chains:
                    yield _reject(
                        f"unknown {unknown_id} relates to {rel['unknown_id']}, which the bundle does not hold",
                        "$.unknowns",
                    )


def verify_bundle(value: Any) -> Generator[ReportProgress, None, Result[ParsedBundle, ReaError]]:
    """Strict bundle parse as a program step: structure first, then every record id,
    unknown digest and manifest, yielding between batches so a caller can cancel."""
    rejected = next(_structure_problems(value), None)  # the first problem: what follows is never looked at
    if rejected is not None:
        return Failure(rejected)
    records: list[Evidence] = []
    seen: set[str] = set()
    for i, raw in enumerate(value["records"]):
        if i and i % VERIFY_BATCH == 0:
            yield ReportProgress(phase="verifying bundle", message=f"{i} of {len(value['records'])} records verified")
        match parse_evidence(raw):
            case Failure(err):
                return Failure(_reject(err.message, f"$.records[{i}]"))
            case Success(evidence) if evidence.evidence_id in seen:
                return Failure(_reject(f"duplicate record {evidence.evidence_id}", f"$.records[{i}]"))
            case Success(evidence):
                seen.add(evidence.evidence_id)
                records.append(evidence)
    for i, rev in enumerate(value["unknowns"]):
        match verify_revision(rev, f"$.unknowns[{i}]"):
            case Failure(problem):
                return Failure(_reject(problem.message, (problem.details or {}).get("path", f"$.unknowns[{i}]")))
    broken = next(_history_problems(value["unknowns"], seen), None)
    if broken is not None:
        return Failure(broken)
    expected = manifests(sorted(records, key=lambda e: e.evidence_id))
    for name in MANIFEST_FIELDS:
        if canonicalize(expected[name]) != canonicalize(value[name]):
            return Failure(_reject(f"the {name} manifest does not match the records it describes", f"$.{name}"))
    return Success(ParsedBundle(records=tuple(records), unknowns=tuple(value["unknowns"])))


def parse_bundle(value: Any) -> Result[ParsedBundle, ReaError]:
    """`verify_bundle` run to completion, for library callers that need no progress."""
    steps = verify_bundle(value)
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            parsed: Result[ParsedBundle, ReaError] = stop.value
            return parsed


# ------------------------------------------------------------- summary view

DOSSIER_OPERATION = "analyze_function"
_COUNTS = ("omitted_operations_lower_bound", "known_omitted_inputs", "known_omitted_edges")


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _value_flow(flow: Any) -> dict[str, Any]:
    """native_dossier.value_flow: what the dossier recorded about value flow, independent of retention."""
    if flow is None:
        return {"status": "not-recorded"}
    if isinstance(flow, dict) and flow.get("available") is True and isinstance(flow.get("truncated"), bool):
        if all(name not in flow or _count(flow[name]) for name in _COUNTS):
            return {"status": "observed", "truncated": flow["truncated"], **{n: flow.get(n) for n in _COUNTS}}
    if isinstance(flow, dict) and flow.get("available") is False and isinstance(flow.get("reason"), str):
        return {"status": "unavailable", "reason": flow["reason"]}
    return {"status": "unknown", "reason": "Value-flow metadata has an incompatible representation."}


def native_dossier(evidence: Evidence) -> dict[str, Any]:
    """Procedure metadata of an analyze_function record, read without parsing the whole dossier."""
    if evidence.operation != DOSSIER_OPERATION:
        return {"available": False, "reason": "different-operation"}
    result = evidence.normalized_result
    proc = result.get("procedure") if isinstance(result, dict) else None
    name = proc.get("name") if isinstance(proc, dict) else None
    if (
        not isinstance(proc, dict)
        or not isinstance(proc.get("address"), str)
        or not isinstance(name, (str, type(None)))
    ):
        return {"available": False, "reason": "not-recorded-or-incompatible"}
    return {
        "available": True,
        "procedure_address": proc["address"],
        "procedure_name": name,
        "value_flow": _value_flow(result.get("native_value_flow")),
    }


def summary_row(evidence: Evidence) -> dict[str, Any]:
    """Discovery metadata of one record (the reference's summary row, plus predicate_type and
    evidence_links): ids and identities, never its payload."""
    return {
        "evidence_id": evidence.evidence_id,
        "subject": None if evidence.subject is None else evidence.subject.to_json(),
        "provider": evidence.provider.to_json(),
        "operation": evidence.operation,
        "confidence": evidence.confidence,
        "authority": evidence.authority,
        "analysis_profile_digest": None if evidence.analysis_profile is None else evidence.analysis_profile.digest,
        "retention": "complete-record",
        "limitation_count": len(evidence.limitations),
        "native_dossier": native_dossier(evidence),
        "predicate_type": evidence.predicate_type,
        "evidence_links": list(evidence.evidence_links),
    }


def matches(row: Mapping[str, Any], filters: Mapping[str, str]) -> bool:
    """Exact filters; procedure_address selects analyze_function records with that procedure only."""
    for name, wanted in filters.items():
        if name == "target_sha256":
            actual = None if row["subject"] is None else row["subject"]["digest"]["sha256"]
        elif name == "procedure_address":
            dossier = row["native_dossier"]
            actual = dossier["procedure_address"] if dossier["available"] else None
        else:
            actual = row[name]
        if actual != wanted:
            return False
    return True


def summary(records: Iterable[Evidence], unknown_revisions: int, filters: Mapping[str, str]) -> dict[str, Any]:
    """The evidence-bundle-summary of retained records (get_evidence_bundle and inspect-evidence-bundle)."""
    retained = 0
    rows = []
    for evidence in records:
        retained += 1
        row = summary_row(evidence)
        if matches(row, filters):
            rows.append(row)
    return {
        "kind": "evidence-bundle-summary",
        "filters": dict(filters),
        "total_retained_records": retained,
        "matching_records": len(rows),
        "unknown_revisions": unknown_revisions,
        "records": rows,
    }
