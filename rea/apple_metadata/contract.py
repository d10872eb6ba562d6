"""Contracts of the Apple metadata tools: Objective-C and Swift metadata read from the open Mach-O file."""

from __future__ import annotations

from rea.apple_metadata import text
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
from rea.catalog.cli import Command, Opens
from rea.wire.tool import evidence_tool

# the commands open the Mach-O, then run the tool
_MACHO = Opens(help="Mach-O file (thin or universal)")
_READ = "Read from the file on any host; a record whose pointers leave the image is reported invalid."

GET_OBJC_CLASSES = evidence_tool(
    "get_objc_classes",
    "Get Objective-C Classes",
    (
        "After open_binary on a Mach-O file, list the Objective-C classes __objc_classlist names: address, class "
        "name, superclass, metaclass, instance size and method count. pattern filters names (case-sensitive "
        "literal). " + _READ
    ),
    args=ObjcClassesArgs,
    result=ObjcClasses,
    examples=[{}, {"pattern": "View"}],
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent"},
    needs="target",
    cli=Command(
        name="get-objc-classes",
        help="Objective-C classes of a Mach-O from __objc_classlist (get_objc_classes)",
        opens=_MACHO,
        render=text.classes,
    ),
)

GET_OBJC_PROTOCOLS = evidence_tool(
    "get_objc_protocols",
    "Get Objective-C Protocols",
    (
        "After open_binary on a Mach-O file, list the Objective-C protocols of __objc_protolist and the Swift "
        "protocols of __swift5_protos, deduplicated by name, with their addresses. " + _READ
    ),
    args=ObjcProtocolsArgs,
    result=ObjcProtocols,
    examples=[{}],
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent"},
    needs="target",
    cli=Command(
        name="get-objc-protocols",
        help="Objective-C and Swift protocols of a Mach-O (get_objc_protocols)",
        opens=_MACHO,
        render=text.protocols,
    ),
)

ANALYZE_SWIFT_TYPES = evidence_tool(
    "analyze_swift_types",
    "Analyze Swift Types",
    (
        "After open_binary on a Mach-O file, categorize the Swift context descriptors of __swift5_types and "
        "__swift5_protos into classes, structs, enums, protocols, extensions and other, each module-qualified from "
        "its parent chain. category and pattern filter. " + _READ
    ),
    args=SwiftTypesArgs,
    result=SwiftTypes,
    examples=[{}, {"category": "classes"}],
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent"},
    needs="target",
    cli=Command(
        name="analyze-swift-types",
        help="Swift type descriptors of a Mach-O by category (analyze_swift_types)",
        opens=_MACHO,
        render=text.swift,
    ),
)

INSPECT_NATIVE_DISPATCH_METADATA = evidence_tool(
    "inspect_native_dispatch_metadata",
    "Inspect Native Dispatch Metadata",
    (
        "After open_binary on a Mach-O file, decode its Objective-C metadata (classes with superclass chains, "
        "methods with implementation addresses, ivars, properties, protocols, categories) and Swift type and "
        "protocol descriptors. Every record carries its address, file offset and artifact; coverage says per "
        "facet what was decoded or is unsupported (Swift conformances, dispatch tables). " + _READ
    ),
    args=DispatchMetadataArgs,
    result=DispatchMetadataResult,
    examples=[{}, {"max_records": 1000}],
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent"},
    needs="target",
    cli=Command(
        name="inspect-native-dispatch-metadata",
        help="Objective-C/Swift dispatch metadata of a Mach-O (inspect_native_dispatch_metadata)",
        opens=_MACHO,
        render=text.dispatch,
    ),
)

TOOLS = (GET_OBJC_CLASSES, GET_OBJC_PROTOCOLS, ANALYZE_SWIFT_TYPES, INSPECT_NATIVE_DISPATCH_METADATA)
