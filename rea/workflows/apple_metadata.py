"""Programs of the Apple metadata tools: one reading of the open Mach-O, four projections."""

from __future__ import annotations

from typing import Any
from collections.abc import Callable, Mapping

from returns.pipeline import is_successful

from rea.apple_metadata.dispatch import dispatch_result
from rea.apple_metadata.effects import ReadAppleMetadata
from rea.apple_metadata.image import image_of
from rea.apple_metadata.results import PROVIDER, Reading, objc_classes, objc_protocols, swift_types
from rea.effect_types import Program, ToolProgram
from rea.errors import no_target
from rea.evidence import Provider, Subject, create_evidence
from rea.native.fat_slice import opened_slice
from rea.program import Context, ReportProgress, failed, recorded
from rea.session import Session

Project = Callable[[Reading, Mapping[str, Any], Mapping[str, Any]], dict[str, Any]]


def _program(operation: str, project: Project, limit: Callable[[Mapping[str, Any]], int]) -> ToolProgram:
    def program(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
        target = session.target
        if target is None:
            return failed(session, no_target(operation))
        yield ReportProgress(phase="reading Apple metadata", message=target.path)
        read = yield ReadAppleMetadata(
            path=target.path, architecture=args.get("architecture") or opened_slice(session.provider_binding)
        )
        if not is_successful(read):
            return failed(session, read.failure())
        got = read.unwrap()
        facts = got["facts"]
        reading = Reading(image_of(facts), facts, limit(args))
        result = project(reading, {**got["artifact"], "path": target.path}, args)
        subject = Subject(
            name=target.name,
            sha256=got["artifact"]["sha256"],
            format=target.format if target.format in ("mach-o", "mach-o-universal") else "mach-o",
            architecture=target.architecture,
            local_path=target.path,
        )
        built = create_evidence(
            provider=Provider(**PROVIDER),
            operation=operation,
            parameters=dict(args),
            normalized_result=result,
            subject=subject,
            limitations=result["limitations"],
        )
        return recorded(session, built)

    program.__name__ = operation
    return program


def _all(args: Mapping[str, Any]) -> int:
    return 20_000


PROGRAMS: Mapping[str, ToolProgram] = {
    "get_objc_classes": _program("get_objc_classes", lambda r, a, args: objc_classes(r, args["pattern"]), _all),
    "get_objc_protocols": _program("get_objc_protocols", lambda r, a, args: objc_protocols(r), _all),
    "analyze_swift_types": _program(
        "analyze_swift_types", lambda r, a, args: swift_types(r, args.get("category"), args.get("pattern")), _all
    ),
    "inspect_native_dispatch_metadata": _program(
        "inspect_native_dispatch_metadata",
        lambda r, a, args: dispatch_result(r, a, args["max_records"]),
        lambda args: int(args["max_records"]),
    ),
}
