"""Residual unknowns: revisioned questions the analysis could not settle.

Identity comes from the question, domain and scope, so recording the same
question twice is a conflict rather than a duplicate. Every revision is
immutable, chained to its predecessor by digest, and made by a mutation
Evidence record so the ledger says who changed what.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from returns.result import Failure, Result, Success

from rea.canonical_json import canonical_sha256
from rea.errors import ReaError

UNKNOWN_ID = re.compile(r"^unk_[0-9a-f]{64}$")
STATUSES = ("open", "investigating", "blocked", "contradicted", "resolved")
SEVERITIES = ("low", "medium", "high", "critical")
MUTATION_PREDICATE = "rea.residual-unknown-mutation/v1"

RECORD_FIELDS = (
    "registry_version",
    "unknown_id",
    "revision",
    "previous_revision_digest",
    "revision_digest",
    "scope_digest",
    "question",
    "status",
    "severity",
    "domain",
    "supporting_evidence_ids",
    "contradicting_evidence_ids",
    "required_authority",
    "required_confidence",
    "required_environment",
    "recommended_probes",
    "relationships",
    "resolution",
    "mutation_evidence_ids",
)
MUTABLE_FIELDS = (
    "severity",
    "supporting_evidence_ids",
    "contradicting_evidence_ids",
    "required_authority",
    "required_confidence",
    "required_environment",
    "recommended_probes",
    "relationships",
)
LIST_DEFAULTS: dict[str, list[Any]] = {
    name: []
    for name in ("supporting_evidence_ids", "contradicting_evidence_ids", "recommended_probes", "relationships")
}


def _invalid(message: str, field: str) -> ReaError:
    return ReaError(code="invalid_request", message=message, details={"field": field})


def unknown_identity(question: str, domain: str, scope_digest: str | None) -> str:
    return "unk_" + canonical_sha256({"domain": domain, "question": question, "scope_digest": scope_digest})


def seal(revision: Mapping[str, Any]) -> dict[str, Any]:
    """Adds `revision_digest` over everything else in the revision."""
    body = {k: v for k, v in revision.items() if k != "revision_digest"}
    return {**body, "revision_digest": canonical_sha256(body)}


def check_invariants(value: Mapping[str, Any]) -> Result[None, ReaError]:
    """The cross-field rules a revision must satisfy, whoever produced it (the first it breaks)."""
    if (value["revision"] == 1) != (value["previous_revision_digest"] is None):
        return Failure(
            _invalid(
                "only the first revision of an unknown has no previous_revision_digest", "previous_revision_digest"
            )
        )
    if (value["status"] == "resolved") != (value["resolution"] is not None):
        return Failure(_invalid('a resolution is required exactly when status is "resolved"', "resolution"))
    if value["status"] == "contradicted" and not value["contradicting_evidence_ids"]:
        return Failure(
            _invalid(
                'status "contradicted" needs at least one contradicting_evidence_ids entry',
                "contradicting_evidence_ids",
            )
        )
    if any(r["unknown_id"] == value["unknown_id"] for r in value["relationships"]):
        return Failure(_invalid("an unknown cannot have a relationship to itself", "relationships"))
    for name in ("supporting_evidence_ids", "contradicting_evidence_ids", "mutation_evidence_ids"):
        if len(set(value[name])) != len(value[name]):
            return Failure(_invalid(f"{name} lists an Evidence id more than once", name))
    if set(value["supporting_evidence_ids"]) & set(value["contradicting_evidence_ids"]):
        return Failure(
            _invalid("one Evidence id cannot both support and contradict an unknown", "contradicting_evidence_ids")
        )
    pairs = [(r["type"], r["unknown_id"]) for r in value["relationships"]]
    if len(set(pairs)) != len(pairs):
        return Failure(_invalid("relationships lists the same relationship more than once", "relationships"))
    resolution = value["resolution"]
    if resolution is not None and resolution.get("disposition") == "verified" and not resolution.get("evidence_ids"):
        return Failure(
            _invalid("a verified resolution needs at least one evidence_ids entry", "resolution.evidence_ids")
        )
    return Success(None)


def first_revision(request: Mapping[str, Any], scope_digest: str | None) -> dict[str, Any]:
    """The draft of revision 1 (without mutation ids or digest) for a record_unknown request."""
    question = " ".join(request["question"].split())
    draft = {
        "registry_version": 1,
        "unknown_id": unknown_identity(question, request["domain"], scope_digest),
        "revision": 1,
        "previous_revision_digest": None,
        "scope_digest": scope_digest,
        "question": question,
        "status": "contradicted" if request.get("contradicting_evidence_ids") else "open",
        "domain": request["domain"],
        "resolution": None,
    }
    for name in MUTABLE_FIELDS:
        draft[name] = request.get(name, LIST_DEFAULTS.get(name))
    return draft


def next_revision(head: Mapping[str, Any], request: Mapping[str, Any]) -> Result[dict[str, Any], ReaError]:
    """The draft of the revision after `head`, or revision_conflict for a stale writer."""
    if request["expected_revision"] != head["revision"]:
        return Failure(
            ReaError(
                code="revision_conflict",
                message=(
                    f"Unknown {head['unknown_id']} is at revision {head['revision']}, not the expected "
                    f"revision {request['expected_revision']}; another update landed first."
                ),
                details={
                    "unknown_id": head["unknown_id"],
                    "expected_revision": request["expected_revision"],
                    "current_revision": head["revision"],
                },
            )
        )
    draft = {k: v for k, v in head.items() if k not in ("revision_digest", "mutation_evidence_ids")}
    draft.update({name: request[name] for name in MUTABLE_FIELDS})
    draft.update(
        revision=head["revision"] + 1,
        previous_revision_digest=head["revision_digest"],
        status=request["status"],
        resolution=request["resolution"],
    )
    return Success(draft)


def heads(revisions: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Latest revision of each unknown, in unknown-id order."""
    latest: dict[str, Mapping[str, Any]] = {}
    for rev in revisions:
        current = latest.get(rev["unknown_id"])
        if current is None or rev["revision"] > current["revision"]:
            latest[rev["unknown_id"]] = rev
    return [latest[k] for k in sorted(latest)]


def verify_revision(value: Any, path: str) -> Result[None, ReaError]:
    """Import-time check of one stored revision: exact fields, digest, invariants."""
    if not isinstance(value, dict):
        return Failure(_integrity(f"{path} is not an object", path))
    unknown = sorted(set(value) - set(RECORD_FIELDS))
    if unknown:
        return Failure(_integrity(f"{path} has unsupported field {unknown[0]!r}", f"{path}.{unknown[0]}"))
    missing = [f for f in RECORD_FIELDS if f not in value]
    if missing:
        return Failure(_integrity(f"{path} is missing field {missing[0]!r}", f"{path}.{missing[0]}"))
    if not isinstance(value["unknown_id"], str) or not UNKNOWN_ID.match(value["unknown_id"]):
        return Failure(_integrity(f"{path}.unknown_id is not unk_<64 hex>", f"{path}.unknown_id"))
    if type(value["revision"]) is not int or value["revision"] < 1:
        return Failure(_integrity(f"{path}.revision must be an integer >= 1", f"{path}.revision"))
    if value["status"] not in STATUSES or value["severity"] not in SEVERITIES:
        return Failure(_integrity(f"{path} has an unknown status or severity", f"{path}.status"))
    for name in (
        "supporting_evidence_ids",
        "contradicting_evidence_ids",
        "mutation_evidence_ids",
        "relationships",
        "recommended_probes",
    ):
        if not isinstance(value[name], list):
            return Failure(_integrity(f"{path}.{name} must be an array", f"{path}.{name}"))
    if not value["mutation_evidence_ids"]:
        return Failure(
            _integrity(f"{path}.mutation_evidence_ids must name the mutation Evidence", f"{path}.mutation_evidence_ids")
        )
    if value["unknown_id"] != unknown_identity(value["question"], value["domain"], value["scope_digest"]):
        return Failure(
            _integrity(f"{path}.unknown_id does not match its question, domain and scope", f"{path}.unknown_id")
        )
    if seal(value)["revision_digest"] != value["revision_digest"]:
        return Failure(_integrity(f"{path}.revision_digest does not match the revision", f"{path}.revision_digest"))
    return check_invariants(value).alt(
        lambda problem: _integrity(f"{path}: {problem.message}", f"{path}.{(problem.details or {})['field']}")
    )


def _integrity(message: str, path: str) -> ReaError:
    return ReaError(code="evidence_integrity_mismatch", message=message, details={"path": path})
