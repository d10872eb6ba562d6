"""The trace_dylib_resolution program: one walk of the analyzed root (effect), then the pure dyld model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rea.effect_types import Program
from rea.errors import ReaError, invalid_request
from rea.evidence import Provider, Subject, create_evidence
from rea.layout.dyld_paths import lookup
from rea.layout.dylib import default_roots, trace
from rea.layout.dylib_records import DylibArgs
from rea.layout.model import ReadDylibTree
from rea.program import Context, ReportProgress, failed, need, recorded, refusable, refuse, typed
from rea.session import Session
from rea.wire.convert import to_wire

PROVIDER = Provider(id="lief", name="LIEF (load commands) and REA's dyld model", version=None)


def _no_target() -> ReaError:
    return ReaError(
        code="target_unavailable",
        message="No target is open. Call open_binary with the Mach-O file or the .app / bundle directory first.",
        details={"reason": "no_active_target"},
        action="Call open_binary with a local path, then call trace_dylib_resolution again.",
    )


def _no_shared_cache(path: str) -> ReaError:
    return ReaError(
        code="capability_unavailable",
        message=f"Reading a dyld shared cache ({path}) is not supported by this REA.",
        details={"reason": "shared_cache_unsupported", "field": "shared_cache"},
        action="Call again without shared_cache: absolute system install names are then reported as outside-target.",
    )


def _requested_roots(tree: Mapping[str, Any], images: Mapping[str, Any], roots: Any) -> list[str]:
    """Each requested root, resolved as a dependency would be: a Mach-O file inside the analyzed root."""
    out: list[str] = []
    for root in roots:
        kind, found = lookup(tree, root)
        problem = (
            "resolves outside the analyzed root"
            if kind == "escapes"
            else "is not a regular file in the analyzed root"
            if found is None
            else "is not a Mach-O image"
            if found not in images
            else None
        )
        if problem is not None:
            refuse(
                invalid_request(
                    f"Root {root} {problem}.", field="roots", accepted="Mach-O files relative to the analyzed root"
                )
            )
        if found not in out:
            out.append(str(found))
    return out


@typed
@refusable
def trace_dylib_resolution(session: Session, args: DylibArgs, ctx: Context) -> Program:
    target = session.target
    if target is None:
        return failed(session, _no_target())
    if args.shared_cache:
        return failed(session, _no_shared_cache(args.shared_cache))
    directory = target.kind == "directory"
    root_path = target.path.rstrip("/") if directory else target.path.rsplit("/", 1)[0] or "/"
    yield ReportProgress(phase="walking the analyzed root", message=root_path)
    got = yield from need(ReadDylibTree(root=root_path, max_entries=args.max_entries))
    tree, images = got["entries"], got["images"]
    unclassified: list[str] = []
    if args.roots:
        roots = _requested_roots(tree, images, args.roots)
    elif directory:
        roots, unclassified = default_roots(images)
    else:
        roots = _requested_roots(tree, images, [target.path.rsplit("/", 1)[-1]])
    traced = trace(tree, images, roots, unclassified, args.architecture)
    if got["truncated"]:
        traced["coverage"]["status"] = "partial"
        traced["limitations"].append(
            f"The walk stopped at max_entries ({args.max_entries}): files past it were treated as absent."
        )
    if got.get("unreadable"):
        traced["coverage"]["status"] = "partial"
        shown = ", ".join(got["unreadable"][:20])
        traced["limitations"].append(f"Entries that could not be read were treated as absent: {shown}.")
    result = {"root_path": root_path, "target_sha256": target.sha256, "shared_cache": None, **traced}
    built = create_evidence(
        provider=PROVIDER,
        operation="trace_dylib_resolution",
        parameters=to_wire(args),
        normalized_result=result,
        subject=Subject(
            name=target.name,
            sha256=target.sha256,
            format=target.format,
            architecture=target.architecture,
            local_path=target.path,
        ),
        limitations=result["limitations"],
    )
    return recorded(session, built)
