"""inspect_native_load_image: the open DOS MZ or COM target loaded by REA itself (no engine loads DOS
images here), with checks that recompute the image from the file. One file read, the rest is pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rea.effect_types import Program, ToolProgram
from rea.errors import ReaError
from rea.evidence import Provider, Subject, create_evidence
from rea.native.effects import ReadDosFile
from rea.native.load_image import hashlib_sha256, load_image, mismatches
from rea.native.records.load_image import LoadImage, LoadImageArgs
from rea.program import Context, Outcome, ReportProgress, must, need, recorded, refusable, refuse, typed
from rea.session import Session, Target
from rea.wire.convert import to_wire

PROVIDER = Provider(id="rea-dos-loader", name="REA DOS MZ/COM loader", version="1")
MAX_FILE_BYTES = 64 * 1024 * 1024  # a DOS image is at most 32 MiB (65,535 pages); room for overlays
LOCATED = 64  # file-offset locations kept for failed checks


def _changed(target: Target, observed: str) -> ReaError:
    return ReaError(
        code="target_unavailable",
        message=f"{target.path} changed since open_binary identified it: it had sha256 {target.sha256}, its bytes "
        f"now hash to {observed}. Nothing was loaded from the new bytes.",
        details={
            "path": target.path,
            "reason": "target_changed",
            "expected_sha256": target.sha256,
            "observed_sha256": observed,
        },
        action="Call open_binary with the path again, then call inspect_native_load_image again.",
    )


def _locations(result: LoadImage) -> list[dict[str, Any]]:
    """Where each failed check points in the file (deduplicated, in check order)."""
    offsets = dict.fromkeys(c.file_offset for c in mismatches(result) if c.file_offset is not None)
    return [{"kind": "file-offset", "offset": at} for at in list(offsets)[:LOCATED]]


def _evidence(session: Session, target: Target, args: LoadImageArgs, result: LoadImage) -> Outcome:
    failing = [c.name for c in mismatches(result)]
    noted = (f"{len(failing)} checks did not match: {', '.join(failing[:8])}{' …' if len(failing) > 8 else ''}.",)
    built = create_evidence(
        provider=PROVIDER,
        operation="inspect_native_load_image",
        parameters=to_wire(args),
        normalized_result=to_wire(result),
        subject=Subject(
            name=target.name, sha256=target.sha256, format=target.format, architecture="x86", local_path=target.path
        ),
        confidence="derived",
        limitations=(*result.limitations, *(noted if failing else ())),
        locations=_locations(result),
    )
    return recorded(session, built)


@typed
@refusable
def inspect_native_load_image(session: Session, args: LoadImageArgs, ctx: Context) -> Program:
    target = session.target
    assert target is not None  # the availability gate admits only an open DOS MZ or COM target
    yield ReportProgress(phase="loading DOS image", message=target.path)
    data: bytes = yield from need(ReadDosFile(path=target.path, max_bytes=MAX_FILE_BYTES))
    digest = hashlib_sha256(data)
    if digest != target.sha256:
        refuse(_changed(target, digest))
    loaded = must(load_image(data, target.format, target.name, target.sha256))
    return _evidence(session, target, args, loaded)


PROGRAMS: Mapping[str, ToolProgram] = {"inspect_native_load_image": inspect_native_load_image}
