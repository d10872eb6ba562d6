"""Every effect a program may yield, as one closed union, and the program type over it.

The interpreter has exactly one handler per member (tests/test_interpreter.py checks
both directions), so a family that adds an effect adds it here, and mypy sees every
`yield` of every workflow against the same vocabulary.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from typing import Any, TypeAlias

from rea.adb.effects import AdbExchange
from rea.android.effects import AndroidQuery, DecodeResources, ProbeClient
from rea.artifacts.model import ExtractArtifact, InventoryArtifact
from rea.javascript.effects import ExtractFiles, ScanApplication
from rea.javascript.recovery_effects import PublishRecovery, ReadRecoveryInput
from rea.javascript.devtools_effects import DiscoverDevtools, ObserveTarget
from rea.managed.facts import ReadManagedAssembly
from rea.apple_metadata.effects import ReadAppleMetadata
from rea.native_runtime.effects import ObserveNativeCalls
from rea.layout.model import (
    DemangleSwift,
    ReadArchitectures,
    ReadBinaryLayout,
    ReadDylibTree,
    ReadMacho,
    ReadPlist,
    ReadRecordedCrash,
    ReadSignature,
)
from rea.wasm.model import InspectWasm, ReadWatPage
from rea.web_network.model import ReadCapture, ReadPng
from rea.web.effects import ObserveBrowser
from rea.web.scenario_effects import RunScenario
from rea.web.script_effects import FetchSourceMaps, ParseWebScripts, PublishWebScripts, ReadLocalFile
from rea.native.effects import (
    DiscoverProviders,
    EditAnnotations,
    NativeActivity,
    NativeFacts,
    NativeLineage,
    NativeQuery,
    ReadAnnotations,
    ReadDosFile,
    ReadDwarfType,
    ReadImage,
    ReleaseNative,
)
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
from rea.session import Session

AnyEffect: TypeAlias = (
    ReportProgress
    | IdentifyTarget
    | StampTarget
    | ReadJsonFile
    | PublishAtomically
    | ResolveCommandPath
    | NewRunId
    | DiscoverProviders
    | NativeFacts
    | NativeQuery
    | ReadAnnotations
    | EditAnnotations
    | ReadImage
    | ReadDwarfType
    | ReadDosFile
    | ReleaseNative
    | NativeLineage
    | NativeActivity
    | InventoryArtifact
    | ExtractArtifact
    | ScanApplication
    | ExtractFiles
    | ReadRecoveryInput
    | PublishRecovery
    | DiscoverDevtools
    | ObserveTarget
    | ReadManagedAssembly
    | AndroidQuery
    | ProbeClient
    | DecodeResources
    | AdbExchange
    | ReadBinaryLayout
    | ReadArchitectures
    | ReadMacho
    | DemangleSwift
    | ReadSignature
    | ReadAppleMetadata
    | ObserveNativeCalls
    | ReadRecordedCrash
    | ReadPlist
    | ReadDylibTree
    | InspectWasm
    | ReadWatPage
    | ReadCapture
    | ReadPng
    | ObserveBrowser
    | RunScenario
    | ParseWebScripts
    | FetchSourceMaps
    | ReadLocalFile
    | PublishWebScripts
)
Program: TypeAlias = Generator[AnyEffect, Any, Outcome]
# a tool's program: a generator over the effects, or a plain function when it needs none
ToolProgram: TypeAlias = Callable[[Session, Mapping[str, Any], Context], Program | Outcome]

MEMBERS: tuple[type, ...] = (
    ReportProgress,
    IdentifyTarget,
    StampTarget,
    ReadJsonFile,
    PublishAtomically,
    ResolveCommandPath,
    NewRunId,
    DiscoverProviders,
    NativeFacts,
    NativeQuery,
    ReadAnnotations,
    EditAnnotations,
    ReadImage,
    ReadDwarfType,
    ReadDosFile,
    ReleaseNative,
    NativeLineage,
    NativeActivity,
    InventoryArtifact,
    ExtractArtifact,
    ScanApplication,
    ExtractFiles,
    ReadRecoveryInput,
    PublishRecovery,
    DiscoverDevtools,
    ObserveTarget,
    ReadManagedAssembly,
    AndroidQuery,
    ProbeClient,
    DecodeResources,
    AdbExchange,
    ReadBinaryLayout,
    ReadArchitectures,
    ReadMacho,
    DemangleSwift,
    ReadSignature,
    ReadAppleMetadata,
    ObserveNativeCalls,
    ReadRecordedCrash,
    ReadPlist,
    ReadDylibTree,
    InspectWasm,
    ReadWatPage,
    ReadCapture,
    ReadPng,
    ObserveBrowser,
    RunScenario,
    ParseWebScripts,
    FetchSourceMaps,
    ReadLocalFile,
    PublishWebScripts,
)
