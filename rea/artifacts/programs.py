"""Programs of the artifact graph family. Readers are effects; graph, comparison and views are pure.

The programs read their argument records (@typed) and one error style (need/must/refuse). A refusal after
the inventory was read keeps the session that retains it (the steps after it are @refusable with that
session), as the programs always answered.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

import orjson
from returns.result import Failure, Result, Success

from rea import __version__
from rea.artifacts.compare import compare_artifacts as compare_pure
from rea.artifacts.extraction import extraction_result, select
from rea.artifacts.graph import build_inventory, inventory_result
from rea.artifacts.inspection import inspection_result
from rea.artifacts.model import SECTIONS, ExtractArtifact, InventoryArtifact, Limits, limits_from
from rea.artifacts.records import CompareArgs, ExtractArgs, InspectArgs, InventoryArgs, TraversalArgs
from rea.effect_types import AnyEffect, Program, ToolProgram
from rea.errors import ReaError
from rea.evidence import SUBJECT_FORMATS, AnalysisProfile, Evidence, Provider, Subject, create_evidence, create_profile
from rea.program import (
    Context,
    IdentifyTarget,
    Outcome,
    ReportProgress,
    StampTarget,
    TargetStamp,
    must,
    need,
    recorded,
    refusable,
    refuse,
    typed,
)
from rea.session import (
    InventoryKey,
    Session,
    Target,
    record,
    resolve_analysis,
    restamp,
    retain_inventory,
    retained_inventory,
)
from rea.views.programs import view_evidence
from rea.wire.convert import to_wire

ARTIFACT_PROVIDER = Provider(id="rea-artifacts", name="REA artifact graph", version=__version__)
PROFILE_SCHEMA = 1
INSPECTION_CAPS = ("max_observations", "max_hypotheses", "max_unexplored_branches", "max_next_probes")


def _no_target() -> ReaError:
    return ReaError(
        code="target_unavailable",
        message="No target is open. Call open_binary with the archive, package or directory path first.",
        details={"reason": "no_active_target"},
        action="Call open_binary with a local path, then call this tool again.",
    )


def _subject(session: Session) -> Subject:
    t = session.target
    assert t is not None
    return Subject(
        name=t.name,
        sha256=t.sha256,
        format=t.format if t.format in SUBJECT_FORMATS else "unknown",
        architecture=None,
        local_path=t.path,
    )


def _settings(args: TraversalArgs) -> tuple[Limits, str]:
    return limits_from(to_wire(args)), args.integrity_policy


def _profile(limits: Limits, policy: str) -> AnalysisProfile:
    return create_profile(ARTIFACT_PROVIDER, PROFILE_SCHEMA, {"limits": limits.to_json(), "integrity_policy": policy})


def _evidence(
    operation: str,
    parameters: Mapping[str, Any],
    result: Any,
    *,
    subject: Subject | None,
    profile: AnalysisProfile | None = None,
    confidence: str = "observed",
    limitations: list[str] | tuple[str, ...] = (),
    links: list[str] | tuple[str, ...] = (),
) -> Result[Evidence, ReaError]:
    return create_evidence(
        provider=ARTIFACT_PROVIDER,
        operation=operation,
        parameters=parameters,
        normalized_result=result,
        subject=subject,
        analysis_profile=profile,
        confidence=confidence,
        limitations=list(limitations),
        evidence_links=list(links),
    )


def _within_mismatch_cap(complete: Mapping[str, Any], cap: int | None) -> Result[Mapping[str, Any], ReaError]:
    """3.1's max_integrity_mismatches: more contradictions than the caller allowed is a limit hit."""
    found = len(complete["integrity_contradictions"])
    if cap is None or found <= cap:
        return Success(complete)
    return Failure(
        ReaError(
            code="truncated",
            message=f"{found} integrity contradictions were recorded, more than max_integrity_mismatches={cap}.",
            details={"limit": "max_integrity_mismatches", "value": cap, "observed": found},
            action="Raise max_integrity_mismatches (or omit it) and retry.",
        )
    )


def _target_changed(target: Target, observed: str) -> ReaError:
    return ReaError(
        code="target_unavailable",
        message=(
            f"{target.path} changed since open_binary identified it: it had sha256 {target.sha256}, its bytes now "
            f"hash to {observed}. Nothing was read from the new bytes."
        ),
        details={
            "path": target.path,
            "reason": "target_changed",
            "expected_sha256": target.sha256,
            "observed_sha256": observed,
        },
        action="Call open_binary with the path again to analyse the new bytes, then call this tool again.",
    )


def _stamp(reply: Result[TargetStamp, ReaError]) -> TargetStamp:
    """A stamp that could not be taken proves nothing: the digest decides."""
    return reply.value_or(TargetStamp(own=None))


def _verified(session: Session) -> Generator[AnyEffect, Any, tuple[Session, str | None]]:
    """The session with its target proven to hold the digest open_binary took, and the `.unpacked` companion's
    stamp. An unmoved stamp proves it without a read; a moved one costs one re-hash, and a touched file that
    kept its digest keeps its retained inventories."""
    target = session.target
    assert target is not None
    stamp = _stamp((yield StampTarget(path=target.path)))
    if stamp.own is not None and stamp.own == target.stamp:
        return session, stamp.companion
    yield ReportProgress(phase="identifying target", message=f"{target.path} may have changed; hashing it again")
    facts = yield from need(IdentifyTarget(path=target.path))
    if facts.sha256 != target.sha256:
        refuse(_target_changed(target, facts.sha256))
    return restamp(session, facts.stamp), stamp.companion


def _inventory_key(target: Target, limits: Limits, policy: str, companion: str | None) -> InventoryKey:
    settings = orjson.dumps({"limits": limits.to_json(), "integrity_policy": policy}, option=orjson.OPT_SORT_KEYS)
    return (target.path, target.sha256, settings.decode(), companion)


def _inventory(session: Session, args: TraversalArgs) -> Generator[AnyEffect, Any, tuple[Session, Mapping[str, Any]]]:
    """Shared: the complete graph of the active target, and the session retaining it.

    The first call under a key walks the archive; later pages, summaries and extractions under the same key
    read the retained graph, once the target is verified unchanged."""
    limits, policy = _settings(args)
    if session.target is None:
        refuse(_no_target())
    session, companion = yield from _verified(session)
    target = session.target
    assert target is not None
    key = _inventory_key(target, limits, policy, companion)
    complete = retained_inventory(session, key)
    if complete is None:
        yield ReportProgress(phase="inventorying artifact", message=f"reading {target.path}")
        facts = yield from need(
            InventoryArtifact(
                path=target.path,
                limits=limits,
                integrity_policy=policy,
                known_sha256=target.sha256,
                known_size=target.size,
            )
        )
        complete = build_inventory(facts, limits)
        after = _stamp((yield StampTarget(path=target.path)))
        if after.own == target.stamp and after.companion == companion:  # not retained if it moved during the walk
            session = retain_inventory(session, key, complete)
    return session, must(_within_mismatch_cap(complete, args.max_integrity_mismatches))


def _inventory_evidence(
    session: Session, parameters: Mapping[str, Any], result: Mapping[str, Any], profile: AnalysisProfile
) -> Result[Evidence, ReaError]:
    return _evidence(
        "inventory_artifact",
        dict(parameters),
        result,
        subject=_subject(session),
        profile=profile,
        limitations=result["limitations"],
        links=package_links(session, result["manifest"]["root_sha256"]),
    )


def package_links(session: Session, root_sha256: str) -> list[str]:
    """Retained inspect_android_package Evidence of the same APK: the inventory names it (issue 14 item 5)."""
    return sorted(
        e.evidence_id
        for e in session.ledger
        if e.operation == "inspect_android_package" and e.subject is not None and e.subject.sha256 == root_sha256
    )


@typed
@refusable
def inventory_artifact(session: Session, args: InventoryArgs, ctx: Context) -> Program:
    session, complete = yield from _inventory(session, args)
    windows = {
        "nodes": (args.node_offset, args.node_limit),
        "occurrences": (args.occurrence_offset, args.occurrence_limit),
        "edges": (args.edge_offset, args.edge_limit),
    }
    contradictions = (args.contradiction_offset, args.contradiction_limit)
    result = inventory_result(complete, windows, contradictions)
    return recorded(session, _inventory_evidence(session, to_wire(args), result, _profile(*_settings(args))))


@typed
@refusable
def inspect_artifact(session: Session, args: InspectArgs, ctx: Context) -> Program:
    session, complete = yield from _inventory(session, args)
    return _inspection(session, args, complete)


@refusable
def _inspection(session: Session, args: InspectArgs, complete: Mapping[str, Any]) -> Outcome:
    """inspect_artifact after its inventory: the inventory and inspection Evidence (and the summary view)."""
    profile = _profile(*_settings(args))
    parameters = {k: v for k, v in to_wire(args).items() if k != "detail"}
    # delivery detail and the report caps never reach the inventory, so its Evidence id is the same either way
    settings = {k: v for k, v in parameters.items() if k not in INSPECTION_CAPS}
    inv_ev = must(_inventory_evidence(session, settings, inventory_result(complete, {}), profile))
    result = inspection_result(inv_ev, {k: getattr(args, k) for k in INSPECTION_CAPS})
    inspection = must(
        _evidence(
            "inspect_artifact",
            parameters,
            result,
            subject=_subject(session),
            profile=profile,
            limitations=result["limitations"],
            links=[inv_ev.evidence_id],
        )
    )
    retained = record(session, [inv_ev, inspection])
    if args.detail == "complete":
        return Outcome(session=retained, reply=Success(inspection.to_json()))
    view = must(view_evidence(inspection, {"kind": "summary"}))
    return Outcome(session=record(retained, [view]), reply=Success(view.to_json()))


@typed
@refusable
def extract_artifact(session: Session, args: ExtractArgs, ctx: Context) -> Program:
    session, complete = yield from _inventory(session, args)
    return (yield from _extraction(session, args, complete))


@refusable
def _extraction(session: Session, args: ExtractArgs, complete: Mapping[str, Any]) -> Program:
    """extract_artifact after its inventory: the selected files written, and their Evidence."""
    ids = None if args.occurrence_ids is None else list(args.occurrence_ids)
    chosen = must(select(complete, ids))
    limits, policy = _settings(args)
    target = session.target
    assert target is not None
    yield ReportProgress(phase="extracting artifact", message=f"{len(chosen)} file(s)")
    produced = yield from need(
        ExtractArtifact(
            path=target.path,
            chains=tuple(s.chain for s in chosen),
            limits=limits,
            integrity_policy=policy,
            known_sha256=target.sha256,
            known_size=target.size,
        )
    )
    result = extraction_result(complete, chosen, produced[1], limits)
    evidence = _evidence(
        "extract_artifact",
        to_wire(args),
        to_wire(result),
        subject=_subject(session),
        profile=_profile(limits, policy),
        limitations=result.limitations,
    )
    return recorded(session, evidence)


def _side(session: Session, value: Any, field: str) -> list[Evidence]:
    """One side of a comparison: its Evidence records (one, or every page of one inventory)."""
    if not isinstance(value, list):
        return [must(resolve_analysis(session, value, field))]
    return [must(resolve_analysis(session, item, f"{field}[{i}]")) for i, item in enumerate(value)]


@typed
@refusable
def compare_artifacts(session: Session, args: CompareArgs, ctx: Context) -> Outcome:
    left, right = _side(session, args.left, "left"), _side(session, args.right, "right")
    result = must(compare_pure(left, right, args.offset, args.limit))
    links = list(dict.fromkeys(e.evidence_id for side in (left, right) for e in side))
    params = {
        "left": [e.evidence_id for e in left],
        "right": [e.evidence_id for e in right],
        "offset": args.offset,
        **({"limit": args.limit} if args.limit is not None else {}),
    }
    evidence = must(
        _evidence(
            "compare_artifacts",
            params,
            result,
            subject=None,
            confidence="derived",
            limitations=result["limitations"],
            links=links,
        )
    )
    return Outcome(session=record(session, [*left, *right, evidence]), reply=Success(evidence.to_json()))


PROGRAMS: Mapping[str, ToolProgram] = {
    "inspect_artifact": inspect_artifact,
    "inventory_artifact": inventory_artifact,
    "extract_artifact": extract_artifact,
    "compare_artifacts": compare_artifacts,
}
assert set(SECTIONS) == {"nodes", "occurrences", "edges", "integrity_contradictions"}
