"""Programs of the session checks: compare_bundles (two files read, the rest pure) and
verify_unknown_resolution (pure over the session's ledger)."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any

import attrs
from returns.result import Success

from rea.bundle import verify_bundle
from rea.canonical_json import canonical_sha256
from rea.effect_types import Program, ToolProgram
from rea.errors import ReaError, invalid_request
from rea.evidence import Provider, create_evidence
from rea.program import Context, Effect, Outcome, ReadJsonFile, ReportProgress, failed, must, recorded, refusable, typed
from rea.session import Session
from rea.session_checks.comparison import MAX_ENTITIES, Side, compare, entity_bound
from rea.session_checks.records import CompareBundlesArgs, VerifyUnknownResolutionArgs
from rea.session_checks.resolution import verdict
from rea.session_tools.records.results import ResidualUnknown
from rea.unknowns import heads
from rea.wire.convert import structure, to_wire

# the rule's version, not the package's: the same two bundles compared by a later REA keep their Evidence id
PROVIDER = Provider(id="rea-bundle-comparison", name="REA Evidence bundle comparison", version="1")
PREDICATE = "rea.bundle-comparison/v1"


def _refused(side: str, path: str, error: ReaError) -> ReaError:
    """A side's read or verification failure, naming the side (the bundle checks word it for import)."""
    reason = error.message.replace(" Nothing was imported.", "")
    return attrs.evolve(
        error,
        message=f"The {side} bundle {path!r} cannot be compared (nothing was compared): {reason}",
        details={**(error.details or {}), "side": side, "bundle_path": path},
    )


def _read(side: str, path: str, ctx: Context) -> Generator[Effect, Any, Any]:
    yield ReportProgress(phase=f"reading the {side} bundle", message=path)
    loaded = yield ReadJsonFile(path=path, max_bytes=ctx.max_import_bytes)
    return must(loaded.alt(lambda e: _refused(side, path, e)))


def _length(value: Any, key: str) -> int:
    """How many entries a raw bundle claims under `key` (0 when it is not an object holding a list there)."""
    found = value.get(key) if isinstance(value, dict) else None
    return len(found) if isinstance(found, list) else 0


def _counts(value: Any) -> tuple[int, int]:
    """(records, unknown revisions) a raw bundle claims, before anything in it is verified."""
    return _length(value, "records"), _length(value, "unknowns")


def _verified(side: str, path: str, value: Any) -> Generator[Effect, Any, Side]:
    yield ReportProgress(phase=f"verifying the {side} bundle", message=path)
    parsed = yield from verify_bundle(value)
    bundle = must(parsed.alt(lambda e: _refused(side, path, e)))
    return Side(bundle=bundle, sha256=canonical_sha256(value))


@typed
@refusable
def compare_bundles(session: Session, args: CompareBundlesArgs, ctx: Context) -> Program:
    left_raw = yield from _read("left", args.left_bundle_path, ctx)
    right_raw = yield from _read("right", args.right_bundle_path, ctx)
    must(entity_bound(_counts(left_raw), _counts(right_raw), MAX_ENTITIES))
    left = yield from _verified("left", args.left_bundle_path, left_raw)
    right = yield from _verified("right", args.right_bundle_path, right_raw)
    yield ReportProgress(phase="comparing bundles", message=f"{left.sha256[:12]} -> {right.sha256[:12]}")
    comparison = must(compare(left, right, args.record_pairs, args.offset, args.limit))
    wire = to_wire(args)
    return recorded(
        session,
        create_evidence(
            provider=PROVIDER,
            operation="compare_bundles",
            # the bundles' digests, not their paths: moving a file does not change what was compared
            parameters={
                "left_bundle_sha256": left.sha256,
                "right_bundle_sha256": right.sha256,
                "record_pairs": wire["record_pairs"],
                "offset": args.offset,
                "limit": args.limit,
            },
            normalized_result=to_wire(comparison),
            predicate_type=PREDICATE,
            confidence="derived",
            authority="analyst-inference",
            limitations=comparison.limitations,
        ),
    )


def _missing(unknown_id: str) -> ReaError:
    return invalid_request(
        f"Unknown {unknown_id} is not recorded in this session",
        field="unknown_id",
        accepted="an unknown_id returned by record_unknown or list_unknowns",
        reason="missing",
        unknown_id=unknown_id,
    )


@typed
@refusable
def verify_unknown_resolution(session: Session, args: VerifyUnknownResolutionArgs, ctx: Context) -> Outcome:
    head = {h["unknown_id"]: h for h in heads(session.unknown_revisions)}.get(args.unknown_id)
    if head is None:
        return failed(session, _missing(args.unknown_id))
    record = must(structure(head, ResidualUnknown))
    return Outcome(session=session, reply=Success({"result": to_wire(verdict(head, record, session.evidence))}))


PROGRAMS: Mapping[str, ToolProgram] = {
    "compare_bundles": compare_bundles,
    "verify_unknown_resolution": verify_unknown_resolution,
}
