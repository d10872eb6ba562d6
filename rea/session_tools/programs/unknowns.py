"""The residual unknowns: record_unknown, update_unknown, list_unknowns (revisions are the session's ledger)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rea import __version__
from rea.effect_types import ToolProgram
from rea.errors import ReaError, invalid_request
from rea.evidence import Provider, create_evidence
from rea.paging import paginate
from rea.program import Context, Outcome, must, refusable, refuse, typed
from rea.session import Session, add_unknown_revision
from rea.session_tools.programs.reply import done
from rea.session_tools.records.arguments import ListUnknownsArgs, RecordUnknownArgs, UpdateUnknownArgs
from rea.unknowns import (
    MUTABLE_FIELDS,
    MUTATION_PREDICATE,
    check_invariants,
    first_revision,
    heads,
    next_revision,
    seal,
)
from rea.wire.convert import to_wire

SESSION_PROVIDER = Provider(id="rea-session", name="REA session ledger", version=__version__)


def _check_references(session: Session, revision: Mapping[str, Any]) -> None:
    """Every Evidence id and unknown the revision cites is this session's, or the program ends naming the first
    that is not."""
    for name in ("supporting_evidence_ids", "contradicting_evidence_ids"):
        for evidence_id in revision[name]:
            if evidence_id not in session.evidence:
                refuse(
                    invalid_request(
                        f"{name} names {evidence_id}, which this session does not retain",
                        field=name,
                        accepted="ids of Evidence retained in this session",
                        reason="missing",
                        evidence_id=evidence_id,
                    )
                )
    resolution = revision.get("resolution")
    for evidence_id in (resolution or {}).get("evidence_ids", []):
        if evidence_id not in session.evidence:
            refuse(
                invalid_request(
                    f"resolution.evidence_ids names {evidence_id}, which this session does not retain",
                    field="resolution.evidence_ids",
                    reason="missing",
                    evidence_id=evidence_id,
                )
            )
    known = {r["unknown_id"] for r in session.unknown_revisions}
    for rel in revision["relationships"]:
        if rel["unknown_id"] not in known:
            refuse(
                invalid_request(
                    f"relationships names {rel['unknown_id']}, which is not an unknown of this session",
                    field="relationships",
                    reason="missing",
                    unknown_id=rel["unknown_id"],
                )
            )


def _commit_revision(
    session: Session, draft: dict[str, Any], operation: str, args: Mapping[str, Any], previous_mutations: list[str]
) -> Outcome:
    """The revision sealed with the Evidence of its mutation (`args`: the request's JSON, that Evidence's
    parameters), or the program ends with the invariant or reference it breaks."""
    must(check_invariants({**draft, "mutation_evidence_ids": previous_mutations + ["ev_" + "0" * 64]}))
    _check_references(session, draft)
    evidence = must(
        create_evidence(
            provider=SESSION_PROVIDER,
            operation=operation,
            parameters=dict(args),
            normalized_result=draft,
            predicate_type=MUTATION_PREDICATE,
            confidence="inferred",
            authority="analyst-inference",
            evidence_links=[*draft["supporting_evidence_ids"], *draft["contradicting_evidence_ids"]],
        )
    )
    revision = seal({**draft, "mutation_evidence_ids": previous_mutations + [evidence.evidence_id]})
    return done(add_unknown_revision(session, revision, evidence), revision)


def _unknown_scope(session: Session, cited_ids: Iterable[str]) -> str | None:
    """The subject a question is about: the one digest every cited Evidence record's subject shares (none when
    they concern different subjects), else, with nothing cited, the open target's. A question about one target
    is not scoped to whichever target happens to be open."""
    cited = [session.evidence[i] for i in cited_ids if i in session.evidence]
    digests = {e.subject.sha256 for e in cited if e.subject is not None}
    if cited:
        return digests.pop() if len(digests) == 1 else None
    return None if session.target is None else session.target.sha256


@typed
@refusable
def record_unknown(session: Session, args: RecordUnknownArgs, ctx: Context) -> Outcome:
    wire = to_wire(args)
    cited = (*args.supporting_evidence_ids, *args.contradicting_evidence_ids)
    draft = first_revision({"required_confidence": "observed", **wire}, _unknown_scope(session, cited))
    if any(r["unknown_id"] == draft["unknown_id"] for r in session.unknown_revisions):
        refuse(
            ReaError(
                code="revision_conflict",
                message=f"This question is already recorded as {draft['unknown_id']}; update it with update_unknown.",
                details={"reason": "already-exists", "unknown_id": draft["unknown_id"]},
            )
        )
    return _commit_revision(session, draft, "record_unknown", wire, [])


@typed
@refusable
def update_unknown(session: Session, args: UpdateUnknownArgs, ctx: Context) -> Outcome:
    wire = to_wire(args)  # an omitted field is absent here: it keeps its value
    current = {h["unknown_id"]: h for h in heads(session.unknown_revisions)}.get(args.unknown_id)
    if current is None:
        refuse(
            invalid_request(
                f"Unknown {args.unknown_id} is not recorded in this session",
                field="unknown_id",
                accepted="an unknown_id returned by record_unknown or list_unknowns",
                reason="missing",
                unknown_id=args.unknown_id,
            )
        )
    request = {name: wire.get(name, current[name]) for name in (*MUTABLE_FIELDS, "status", "resolution")}
    request["expected_revision"] = args.expected_revision
    draft = must(next_revision(current, request))
    return _commit_revision(session, draft, "update_unknown", wire, list(current["mutation_evidence_ids"]))


@typed
def list_unknowns(session: Session, args: ListUnknownsArgs, ctx: Context) -> Outcome:
    wire = to_wire(args)  # a filter not given is absent here
    selected = [
        h
        for h in heads(session.unknown_revisions)
        if all(h[k] == wire[k] for k in ("status", "severity", "domain") if k in wire)
    ]
    page = paginate(selected, args.offset, args.limit)
    return done(session, {"items": list(page.items), **page.envelope()})


PROGRAMS: Mapping[str, ToolProgram] = {
    "record_unknown": record_unknown,
    "update_unknown": update_unknown,
    "list_unknowns": list_unknowns,
}
