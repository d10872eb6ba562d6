"""Programs of the Apple metadata tools: one reading of the open Mach-O, four projections.

Each program reads its argument record (@typed) and one error style (need/refuse): the reading is one
effect, the projection of it pure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rea.apple_metadata.dispatch import dispatch_result
from rea.apple_metadata.effects import ReadAppleMetadata
from rea.apple_metadata.image import image_of
from rea.apple_metadata.records import DispatchMetadataArgs, ObjcClassesArgs, ObjcProtocolsArgs, SwiftTypesArgs
from rea.apple_metadata.results import PROVIDER, Reading, objc_classes, objc_protocols, swift_types
from rea.effect_types import Program, ToolProgram
from rea.errors import no_target
from rea.evidence import Provider, Subject, create_evidence
from rea.native.fat_slice import opened_slice
from rea.program import Context, ReportProgress, need, recorded, refusable, refuse, typed
from rea.session import Session
from rea.wire.convert import to_wire

AppleArgs = ObjcClassesArgs | ObjcProtocolsArgs | SwiftTypesArgs | DispatchMetadataArgs
# the tool's result from the reading, the artifact facts (its path the target's) and the arguments
Project = Callable[[Reading, Mapping[str, Any], Any], dict[str, Any]]
# records decoded per metadata list
Limit = Callable[[Any], int]


def _program(operation: str, project: Project, limit: Limit) -> ToolProgram:
    @typed
    @refusable
    def program(session: Session, args: AppleArgs, ctx: Context) -> Program:
        target = session.target
        if target is None:
            refuse(no_target(operation))
        yield ReportProgress(phase="reading Apple metadata", message=target.path)
        got = yield from need(
            ReadAppleMetadata(
                path=target.path, architecture=args.architecture or opened_slice(session.provider_binding)
            )
        )
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
            parameters=to_wire(args),
            normalized_result=result,
            subject=subject,
            limitations=result["limitations"],
        )
        return recorded(session, built)

    program.__name__ = operation
    return program


def _all(args: Any) -> int:
    return 20_000


def _classes(reading: Reading, artifact: Mapping[str, Any], args: ObjcClassesArgs) -> dict[str, Any]:
    return objc_classes(reading, args.pattern)


def _protocols(reading: Reading, artifact: Mapping[str, Any], args: ObjcProtocolsArgs) -> dict[str, Any]:
    return objc_protocols(reading)


def _swift(reading: Reading, artifact: Mapping[str, Any], args: SwiftTypesArgs) -> dict[str, Any]:
    return swift_types(reading, args.category, args.pattern)


def _dispatch(reading: Reading, artifact: Mapping[str, Any], args: DispatchMetadataArgs) -> dict[str, Any]:
    return dispatch_result(reading, artifact, args.max_records)


def _dispatch_limit(args: DispatchMetadataArgs) -> int:
    return args.max_records


PROGRAMS: Mapping[str, ToolProgram] = {
    "get_objc_classes": _program("get_objc_classes", _classes, _all),
    "get_objc_protocols": _program("get_objc_protocols", _protocols, _all),
    "analyze_swift_types": _program("analyze_swift_types", _swift, _all),
    "inspect_native_dispatch_metadata": _program("inspect_native_dispatch_metadata", _dispatch, _dispatch_limit),
}
