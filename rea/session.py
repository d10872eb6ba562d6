"""The connection's Session: one immutable value, changed only by pure transitions.

Every transition returns a new Session or an error and never half-applies, so
the transport can swap the value atomically and a rejected call leaves the
session exactly as it was.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Iterable, Mapping

import attrs
from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request, missing_evidence
from rea.evidence import EVIDENCE_ID, Evidence, parse_evidence

RETAINED_KIND = "retained-evidence"


@attrs.frozen(kw_only=True)
class Target:
    path: str
    name: str
    sha256: str
    size: int
    format: str
    kind: str  # file | directory

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "name": self.name,
            "sha256": self.sha256,
            "size": self.size,
            "format": self.format,
            "kind": self.kind,
        }


@attrs.frozen(kw_only=True)
class Session:
    evidence: Mapping[str, Evidence] = attrs.field(factory=dict)
    unknown_revisions: tuple[Mapping[str, Any], ...] = ()
    target: Target | None = None
    run_id: str | None = None
    provider_binding: Mapping[str, Any] | None = None

    @property
    def ledger(self) -> tuple[Evidence, ...]:
        return tuple(self.evidence.values())


def record(session: Session, records: Iterable[Evidence]) -> Session:
    """Retain records in insertion order; re-recording an identical record is a no-op."""
    additions = {e.evidence_id: e for e in records if e.evidence_id not in session.evidence}
    if not additions:
        return session
    return attrs.evolve(session, evidence={**session.evidence, **additions})


def open_target(session: Session, target: Target, run_id: str, binding: Mapping[str, Any] | None) -> Session:
    """A new target keeps the ledger (references stay valid) and starts a new analysis run."""
    return attrs.evolve(session, target=target, run_id=run_id, provider_binding=binding)


def close(session: Session) -> Session:
    """close_binary: drop the target and clear every retained record and unknown."""
    return Session()


def resolve(session: Session, value: Any, field: str) -> Result[Evidence, ReaError]:
    """An Evidence input: an exact retained reference, or complete inline Evidence."""
    if isinstance(value, dict) and value.get("kind") == RETAINED_KIND:
        if set(value) != {"kind", "evidence_id"}:
            return Failure(
                invalid_request(
                    f"{field} is a retained-evidence reference and takes exactly kind and evidence_id",
                    field=field,
                    accepted='{"kind": "retained-evidence", "evidence_id": "ev_<64 hex>"}',
                )
            )
        evidence_id = value["evidence_id"]
        if not isinstance(evidence_id, str) or not EVIDENCE_ID.match(evidence_id):
            return Failure(
                invalid_request(
                    f"{field}.evidence_id must be ev_ followed by 64 lowercase hex digits", field=f"{field}.evidence_id"
                )
            )
        found = session.evidence.get(evidence_id)
        return Success(found) if found is not None else Failure(missing_evidence(evidence_id))
    return parse_evidence(value).alt(lambda e: e.with_details(field=field))


def add_unknown_revision(session: Session, revision: Mapping[str, Any], mutation: Evidence) -> Session:
    with_record = record(session, (mutation,))
    return attrs.evolve(with_record, unknown_revisions=with_record.unknown_revisions + (revision,))


def merge(
    session: Session, records: Iterable[Evidence], revisions: Iterable[Mapping[str, Any]]
) -> Result[Session, ReaError]:
    """Atomic import: every record and unknown revision lands, or none does."""
    known = {(r["unknown_id"], r["revision"]): r["revision_digest"] for r in session.unknown_revisions}
    fresh: list[Mapping[str, Any]] = []
    for rev in revisions:
        key = (rev["unknown_id"], rev["revision"])
        if key in known:
            if known[key] != rev["revision_digest"]:
                return Failure(
                    ReaError(
                        code="revision_conflict",
                        message=f"Unknown {key[0]} revision {key[1]} already exists here with different content; nothing was imported.",
                        details={"unknown_id": key[0], "revision": key[1]},
                    )
                )
            continue
        known[key] = rev["revision_digest"]
        fresh.append(rev)
    merged = record(session, records)
    return Success(attrs.evolve(merged, unknown_revisions=merged.unknown_revisions + tuple(fresh)))
