"""Programs of the Apple metadata tools: one reading of the open Mach-O, four projections.

Each program reads its argument record (@typed) and one error style (need/refuse): the reading is one
effect, the projection of it pure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rea.apple_metadata.dispatch import Artifact, dispatch_result
from rea.apple_metadata.effects import ReadAppleMetadata
from rea.apple_metadata.image import image_of
from rea.apple_metadata.records import (
    DispatchMetadataArgs,
    DispatchMetadataResult,
    ObjcClasses,
    ObjcClassesArgs,
    ObjcProtocols,
    ObjcProtocolsArgs,
    SwiftTypes,
    SwiftTypesArgs,
)
from rea.apple_metadata.results import PROVIDER, Reading, objc_classes, objc_protocols, swift_types
from rea.effect_types import Program, ToolProgram
from rea.errors import no_target
from rea.evidence import Provider, create_evidence
from rea.layout.programs import macho_subject
from rea.native.fat_slice import opened_slice
from rea.program import Context, ReportProgress, need, recorded, refusable, refuse, typed
from rea.session import Session
from rea.wire.convert import to_wire

AppleArgs = ObjcClassesArgs | ObjcProtocolsArgs | SwiftTypesArgs | DispatchMetadataArgs
AppleResult = ObjcClasses | ObjcProtocols | SwiftTypes | DispatchMetadataResult
# the tool's result from the reading, the artifact (its path the target's) and the arguments
Project = Callable[[Reading, Artifact, Any], AppleResult]
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
        reading = Reading(image_of(facts), facts.get("slice"), limit(args))
        result = project(reading, Artifact(path=target.path, sha256=got["artifact"]["sha256"]), args)
        subject = macho_subject(target, got["artifact"]["sha256"])
        built = create_evidence(
            provider=Provider(id=PROVIDER.id, name=PROVIDER.name, version=PROVIDER.version),
            operation=operation,
            parameters=to_wire(args),
            normalized_result=to_wire(result),
            subject=subject,
            limitations=list(result.limitations),
        )
        return recorded(session, built)

    program.__name__ = operation
    return program


def _all(args: Any) -> int:
    return 20_000


def _classes(reading: Reading, artifact: Artifact, args: ObjcClassesArgs) -> ObjcClasses:
    return objc_classes(reading, args.pattern)


def _protocols(reading: Reading, artifact: Artifact, args: ObjcProtocolsArgs) -> ObjcProtocols:
    return objc_protocols(reading)


def _swift(reading: Reading, artifact: Artifact, args: SwiftTypesArgs) -> SwiftTypes:
    return swift_types(reading, args.category, args.pattern)


def _dispatch(reading: Reading, artifact: Artifact, args: DispatchMetadataArgs) -> DispatchMetadataResult:
    return dispatch_result(reading, artifact, args.max_records)


def _dispatch_limit(args: DispatchMetadataArgs) -> int:
    return args.max_records


PROGRAMS: Mapping[str, ToolProgram] = {
    "get_objc_classes": _program("get_objc_classes", _classes, _all),
    "get_objc_protocols": _program("get_objc_protocols", _protocols, _all),
    "analyze_swift_types": _program("analyze_swift_types", _swift, _all),
    "inspect_native_dispatch_metadata": _program("inspect_native_dispatch_metadata", _dispatch, _dispatch_limit),
}
