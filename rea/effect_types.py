"""Every effect a program may yield, as one closed union, and the program type over it.

mypy needs the union spelled statically, so it is the core effects (rea.program) and each
family's own union (EFFECTS in rea/<family>/family.py), one line per family with effects;
tests/core/test_interpreter.py checks it against the one list of families (rea.families), and
that the interpreter has exactly one handler per member. A family that adds an effect adds it
to its own union only, and mypy sees every `yield` of every workflow against the same vocabulary.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, TypeAlias

from rea.adb.family import EFFECTS as AdbEffect
from rea.android.family import EFFECTS as AndroidEffect
from rea.apple_artifacts.family import EFFECTS as AppleArtifactsEffect
from rea.apple_metadata.family import EFFECTS as AppleMetadataEffect
from rea.artifacts.family import EFFECTS as ArtifactsEffect
from rea.evm.family import EFFECTS as EvmEffect
from rea.families import FAMILIES
from rea.family import members
from rea.firmware.family import EFFECTS as FirmwareEffect
from rea.javascript.family import EFFECTS as JavascriptEffect
from rea.layout.family import EFFECTS as LayoutEffect
from rea.managed.family import EFFECTS as ManagedEffect
from rea.native.family import EFFECTS as NativeEffect
from rea.native_runtime.family import EFFECTS as NativeRuntimeEffect
from rea.process_capture.family import EFFECTS as ProcessCaptureEffect
from rea.program import (
    Context,
    IdentifyTarget,
    NewRunId,
    Outcome,
    PublishAtomically,
    ReadJsonFile,
    ReportProgress,
    ResolveCommandPath,
    StampTarget,
)
from rea.reconstruction.family import EFFECTS as ReconstructionEffect
from rea.session import Session
from rea.wasm.family import EFFECTS as WasmEffect
from rea.web.family import EFFECTS as WebEffect
from rea.web_network.family import EFFECTS as WebNetworkEffect

# the effects every family may yield, handled by the interpreter itself
CoreEffect: TypeAlias = (
    ReportProgress | IdentifyTarget | StampTarget | ReadJsonFile | PublishAtomically | ResolveCommandPath | NewRunId
)
AnyEffect: TypeAlias = (
    CoreEffect
    | NativeEffect
    | ArtifactsEffect
    | AppleArtifactsEffect
    | JavascriptEffect
    | ManagedEffect
    | AndroidEffect
    | AdbEffect
    | LayoutEffect
    | AppleMetadataEffect
    | NativeRuntimeEffect
    | WasmEffect
    | EvmEffect
    | FirmwareEffect
    | ProcessCaptureEffect
    | WebNetworkEffect
    | WebEffect
    | ReconstructionEffect
)
Program: TypeAlias = Generator[AnyEffect, Any, Outcome]
# a tool's program: a generator over the effects, or a plain function when it needs none; it reads its
# arguments as the JSON mapping, or as its argument record when declared @typed (rea.program.typed)
ToolProgram: TypeAlias = Callable[[Session, Any, Context], Program | Outcome]

# every effect, derived from the one list: the core's, then each family's in the list's order
MEMBERS: tuple[type, ...] = members(CoreEffect) + tuple(kind for family in FAMILIES for kind in family.effects)
