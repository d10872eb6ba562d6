"""Programs of the artifact graph family. Readers are effects; graph, comparison and views are pure."""

from __future__ import annotations

from typing import Any
from collections.abc import Generator, Mapping

import orjson
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from rea import __version__
from rea.artifacts.compare import compare_artifacts as compare_pure
from rea.artifacts.extraction import extraction_result, select
from rea.artifacts.graph import build_inventory, inventory_result
from rea.artifacts.inspection import inspection_result
from rea.artifacts.model import SECTIONS, ExtractArtifact, InventoryArtifact, Limits, limits_from
from rea.errors import ReaError
from rea.evidence import SUBJECT_FORMATS, AnalysisProfile, Evidence, Provider, Subject, create_evidence, create_profile
from rea.effect_types import AnyEffect, Program, ToolProgram
from rea.program import Context, IdentifyTarget, Outcome, ReportProgress, StampTarget, TargetStamp, failed
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
from rea.workflows.views import view_evidence

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


def _settings(args: Mapping[str, Any]) -> tuple[Limits, str]:
    return limits_from(args), args["integrity_policy"]


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


def _mismatch_cap(complete: Mapping[str, Any], cap: int | None) -> ReaError | None:
    """3.1's max_integrity_mismatches: more contradictions than the caller allowed is a limit hit."""
    found = len(complete["integrity_contradictions"])
    if cap is None or found <= cap:
        return None
    return ReaError(
        code="truncated",
        message=f"{found} integrity contradictions were recorded, more than max_integrity_mismatches={cap}.",
        details={"limit": "max_integrity_mismatches", "value": cap, "observed": found},
        action="Raise max_integrity_mismatches (or omit it) and retry.",
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


def _verified(session: Session) -> Generator[AnyEffect, Any, Result[tuple[Session, str | None], ReaError]]:
    """The session with its target proven to hold the digest open_binary took, and the `.unpacked` companion's
    stamp. An unmoved stamp proves it without a read; a moved one costs one re-hash, and a touched file that
    kept its digest keeps its retained inventories."""
    target = session.target
    assert target is not None
    stamp = _stamp((yield StampTarget(path=target.path)))
    if stamp.own is not None and stamp.own == target.stamp:
        return Success((session, stamp.companion))
    yield ReportProgress(phase="identifying target", message=f"{target.path} may have changed; hashing it again")
    facts = yield IdentifyTarget(path=target.path)
    if not is_successful(facts):
        return Failure(facts.failure())
    if facts.unwrap().sha256 != target.sha256:
        return Failure(_target_changed(target, facts.unwrap().sha256))
    return Success((restamp(session, facts.unwrap().stamp), stamp.companion))


def _inventory_key(target: Target, limits: Limits, policy: str, companion: str | None) -> InventoryKey:
    settings = orjson.dumps({"limits": limits.to_json(), "integrity_policy": policy}, option=orjson.OPT_SORT_KEYS)
    return (target.path, target.sha256, settings.decode(), companion)


def _inventory(
    session: Session, args: Mapping[str, Any]
) -> Generator[AnyEffect, Any, Result[tuple[Session, Mapping[str, Any]], ReaError]]:
    """Shared: the complete graph of the active target, and the session retaining it.

    The first call under a key walks the archive; later pages, summaries and extractions under the same key
    read the retained graph, once the target is verified unchanged."""
    limits, policy = _settings(args)
    if session.target is None:
        return Failure(_no_target())
    verified = yield from _verified(session)
    if not is_successful(verified):
        return Failure(verified.failure())
    session, companion = verified.unwrap()
    target = session.target
    assert target is not None
    key = _inventory_key(target, limits, policy, companion)
    complete = retained_inventory(session, key)
    if complete is None:
        yield ReportProgress(phase="inventorying artifact", message=f"reading {target.path}")
        facts = yield InventoryArtifact(
            path=target.path, limits=limits, integrity_policy=policy, known_sha256=target.sha256, known_size=target.size
        )
        if not is_successful(facts):
            return Failure(facts.failure())
        complete = build_inventory(facts.unwrap(), limits)
        after = _stamp((yield StampTarget(path=target.path)))
        if after.own == target.stamp and after.companion == companion:  # not retained if it moved during the walk
            session = retain_inventory(session, key, complete)
    capped = _mismatch_cap(complete, args.get("max_integrity_mismatches"))
    return Failure(capped) if capped is not None else Success((session, complete))


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


def _reply(session: Session, evidence: Result[Evidence, ReaError], *also: Evidence) -> Outcome:
    if not is_successful(evidence):
        return failed(session, evidence.failure())
    return Outcome(session=record(session, [*also, evidence.unwrap()]), reply=Success(evidence.unwrap().to_json()))


def inventory_artifact(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    built = yield from _inventory(session, args)
    if not is_successful(built):
        return failed(session, built.failure())
    session, complete = built.unwrap()
    windows = {
        "nodes": (args["node_offset"], args["node_limit"]),
        "occurrences": (args["occurrence_offset"], args["occurrence_limit"]),
        "edges": (args["edge_offset"], args["edge_limit"]),
    }
    contradictions = (args["contradiction_offset"], args.get("contradiction_limit"))
    result = inventory_result(complete, windows, contradictions)
    return _reply(session, _inventory_evidence(session, args, result, _profile(*_settings(args))))


def inspect_artifact(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    built = yield from _inventory(session, args)
    if not is_successful(built):
        return failed(session, built.failure())
    session, complete = built.unwrap()
    profile = _profile(*_settings(args))
    # delivery detail and the report caps never reach the inventory, so its Evidence id is the same either way
    settings = {k: v for k, v in args.items() if k != "detail" and k not in INSPECTION_CAPS}
    built_inv = _inventory_evidence(session, settings, inventory_result(complete, {}), profile)
    if not is_successful(built_inv):
        return failed(session, built_inv.failure())
    inv_ev = built_inv.unwrap()
    result = inspection_result(inv_ev, {k: args.get(k) for k in INSPECTION_CAPS})
    built_inspection = _evidence(
        "inspect_artifact",
        {k: v for k, v in args.items() if k != "detail"},
        result,
        subject=_subject(session),
        profile=profile,
        limitations=result["limitations"],
        links=[inv_ev.evidence_id],
    )
    if not is_successful(built_inspection):
        return failed(session, built_inspection.failure())
    inspection = built_inspection.unwrap()
    retained = record(session, [inv_ev, inspection])
    if args["detail"] == "complete":
        return Outcome(session=retained, reply=Success(inspection.to_json()))
    view = view_evidence(inspection, {"kind": "summary"})
    if not is_successful(view):
        return failed(session, view.failure())
    return Outcome(session=record(retained, [view.unwrap()]), reply=Success(view.unwrap().to_json()))


def extract_artifact(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    built = yield from _inventory(session, args)
    if not is_successful(built):
        return failed(session, built.failure())
    session, complete = built.unwrap()
    selected = select(complete, args.get("occurrence_ids"))
    if not is_successful(selected):
        return failed(session, selected.failure())
    chosen = selected.unwrap()
    limits, policy = _settings(args)
    target = session.target
    assert target is not None
    yield ReportProgress(phase="extracting artifact", message=f"{len(chosen)} file(s)")
    produced = yield ExtractArtifact(
        path=target.path,
        chains=tuple(s.chain for s in chosen),
        limits=limits,
        integrity_policy=policy,
        known_sha256=target.sha256,
        known_size=target.size,
    )
    if not is_successful(produced):
        return failed(session, produced.failure())
    result = extraction_result(complete, chosen, produced.unwrap()[1], limits.to_json())
    evidence = _evidence(
        "extract_artifact",
        dict(args),
        result,
        subject=_subject(session),
        profile=_profile(limits, policy),
        limitations=result["limitations"],
    )
    return _reply(session, evidence)


def _resolve_side(session: Session, value: Any, field: str) -> Result[list[Evidence], ReaError]:
    values = value if isinstance(value, list) else [value]
    out: list[Evidence] = []
    for i, item in enumerate(values):
        got = resolve_analysis(session, item, field if not isinstance(value, list) else f"{field}[{i}]")
        if not is_successful(got):
            return Failure(got.failure())
        out.append(got.unwrap())
    return Success(out)


def compare_artifacts(session: Session, args: Mapping[str, Any], ctx: Context) -> Outcome:
    sides: list[list[Evidence]] = []
    for field in ("left", "right"):
        got = _resolve_side(session, args[field], field)
        if not is_successful(got):
            return failed(session, got.failure())
        sides.append(got.unwrap())
    compared = compare_pure(sides[0], sides[1], args["offset"], args.get("limit"))
    if not is_successful(compared):
        return failed(session, compared.failure())
    result = compared.unwrap()
    links = list(dict.fromkeys(e.evidence_id for side in sides for e in side))
    params = {
        "left": [e.evidence_id for e in sides[0]],
        "right": [e.evidence_id for e in sides[1]],
        "offset": args["offset"],
        **({"limit": args["limit"]} if args.get("limit") is not None else {}),
    }
    evidence = _evidence(
        "compare_artifacts",
        params,
        result,
        subject=None,
        confidence="derived",
        limitations=result["limitations"],
        links=links,
    )
    return _reply(session, evidence, *sides[0], *sides[1])


PROGRAMS: Mapping[str, ToolProgram] = {
    "inspect_artifact": inspect_artifact,
    "inventory_artifact": inventory_artifact,
    "extract_artifact": extract_artifact,
    "compare_artifacts": compare_artifacts,
}
assert set(SECTIONS) == {"nodes", "occurrences", "edges", "integrity_contradictions"}
