"""Contracts of the Android family (static APK tools; androguard in an owned worker)."""

from __future__ import annotations

from typing import Any

from rea.android import text
from rea.android.application_records import ProjectionArgs, ProjectionResult
from rea.android.records import (
    AdbClientResult,
    ApktoolClientResult,
    ClassArgs,
    ClassResult,
    DecodeArgs,
    DecodeResult,
    MethodArgs,
    MethodResult,
    NoArgs,
    PackageArgs,
    PackageResult,
    ReferenceArgs,
    ReferenceResult,
    SearchArgs,
    SearchResult,
)
from rea.catalog.cli import Alias, Command, Positional, declared
from rea.wire.tool import evidence_tool

_APK = "/tmp/Example.apk"
_COMMON: dict[str, Any] = {
    "surface": "android-provider",
    "effects": {"mutatesSession", "idempotent", "launchesProcess"},
}
_ENGINE = "Parsed by androguard in an owned worker; the APK is never executed."

INSPECT_ANDROID_PACKAGE = evidence_tool(
    "inspect_android_package",
    "Inspect Android Package",
    (
        "Inspect a local APK: package, version, SDK levels, permissions, decoded manifest, components with "
        "exported state, intent filters and deep links, application flags (debuggable, allowBackup, cleartext "
        "traffic, network security config), native libraries per ABI, DEX files with counts and checksums, and "
        f"v1 to v4 signatures, each verified, with signer certificates. {_ENGINE}"
    ),
    args=PackageArgs,
    result=PackageResult,
    examples=[{"path": _APK}],
    **_COMMON,
)

SEARCH_ANDROID_CLASSES = evidence_tool(
    "search_android_classes",
    "Search Android Classes",
    (
        "Search the class names of every DEX of a local APK by case-sensitive substring (an empty query lists "
        "all); names are fully qualified, inner classes keep $; offset/limit page the matches. The parse is "
        f"cached per APK digest. {_ENGINE}"
    ),
    args=SearchArgs,
    result=SearchResult,
    examples=[{"path": _APK, "query": "Activity"}],
    **_COMMON,
)

INSPECT_ANDROID_CLASS = evidence_tool(
    "inspect_android_class",
    "Inspect Android Class",
    (
        "Inspect one exact Android class: methods (display signature, overload index, exact DEX descriptor), "
        f"fields, inner classes, superclass and interfaces. {_ENGINE}"
    ),
    args=ClassArgs,
    result=ClassResult,
    examples=[{"path": _APK, "class_name": "example.MainActivity"}],
    **_COMMON,
)

INSPECT_ANDROID_METHOD = evidence_tool(
    "inspect_android_method",
    "Inspect Android Method",
    (
        "Decompile one Android method (androguard DAD) with smali fallback; overload_index is required when "
        "several methods share the name. Reports representation, fallback markers and truncation, and always "
        f"the smali. {_ENGINE}"
    ),
    args=MethodArgs,
    result=MethodResult,
    examples=[{"path": _APK, "class_name": "example.MainActivity", "method_name": "onCreate"}],
    **_COMMON,
)

TRACE_ANDROID_REFERENCES = evidence_tool(
    "trace_android_references",
    "Trace Android References",
    (
        "Trace incoming static references to an exact Android class, or one method (overload_index picks among "
        "same-name methods), through the cross-reference graph of every DEX. Source lines and DEX offsets stay "
        f"unknown; no runtime call is inferred. {_ENGINE}"
    ),
    args=ReferenceArgs,
    result=ReferenceResult,
    examples=[{"path": _APK, "class_name": "example.MainActivity"}],
    **_COMMON,
)

_CLIENT: dict[str, Any] = {
    "effects": {"mutatesSession", "idempotent", "launchesProcess"},
}

INSPECT_APKTOOL_CLIENT = evidence_tool(
    "inspect_apktool_client",
    "Inspect Apktool Client",
    (
        "Inspect the apktool launcher REA would run: resolved command, selection source (REA_APKTOOL_COMMAND, "
        "absolute, else apktool on PATH) and version. Decodes nothing; a missing client answers "
        "capability_unavailable with how to install it (Debian apktool)."
    ),
    args=NoArgs,
    result=ApktoolClientResult,
    examples=[{}],
    surface="apktool-provider",
    **_CLIENT,
)

DECODE_ANDROID_RESOURCES = evidence_tool(
    "decode_android_resources",
    "Decode Android Resources",
    (
        "Decode one local APK's resources with `apktool d --no-src` in an owned workspace removed "
        "afterwards: AndroidManifest.xml, apktool.yml version and SDK facts, string resources (default "
        "table or one locale, up to 2000), the locales and the decoded file count. Smali is skipped (see "
        "inspect_android_method)."
    ),
    args=DecodeArgs,
    result=DecodeResult,
    examples=[{"path": "/targets/Example.apk"}, {"path": "/targets/Example.apk", "locale": "de"}],
    surface="apktool-provider",
    **_CLIENT,
)

INSPECT_ADB_CLIENT = evidence_tool(
    "inspect_adb_client",
    "Inspect ADB Client",
    (
        "Inspect the adb client REA would run: binary, version and install path (REA_ADB_PATH, else adb "
        "on PATH). Contacts no device and starts no server; without adb: capability_unavailable with how "
        "to install it."
    ),
    args=NoArgs,
    result=AdbClientResult,
    examples=[{}],
    surface="adb-provider",
    **_CLIENT,
)

PROJECT_ANDROID_APPLICATION_GRAPH = evidence_tool(
    "project_android_application_graph",
    "Project Android Application Graph",
    (
        "Project one Android application from every page of its APK inventory Evidence "
        "(inventory_artifact or inspect_artifact, inline or retained): manifests, resources, DEX, "
        "classes, native libraries, JavaScript and signing entries with paths and hashes, runtime "
        "families and embedded web assets; from the DEX bytecode, System.loadLibrary callers with their "
        "libraries, addJavascriptInterface bridges and WebView.loadUrl targets (path-based candidates "
        "when the APK is unreadable). package_evidence (inspect_android_package Evidence of the same APK) "
        "adds components and deep links. Executes nothing."
    ),
    args=ProjectionArgs,
    result=ProjectionResult,
    examples=[{"inventory_evidence": [{"kind": "retained-evidence", "evidence_id": "ev_" + "0" * 64}]}],
    surface="android-provider",
    effects={"mutatesSession", "idempotent"},
)

# every android command is declared on its row (rea.catalog.cli)
CLI_COMMANDS: tuple[str, ...] = ()

_PACKAGE = Positional(argument="path", help="the APK")
_CLASS = Positional(argument="class_name", help="fully qualified class name")
COMMANDS = {
    "decode_android_resources": Command(
        name="decode-android-resources",
        help="decode an APK's manifest, apktool.yml facts and strings with apktool",
        positionals=(_PACKAGE,),
        aliases=(Alias(option="--no-strings", argument="include_strings", switch=False),),
        render=text.decoded_resources,
    ),
    "inspect_apktool_client": Command(
        name="inspect-apktool-client", help="the apktool launcher REA runs and its version", render=text.client
    ),
    "inspect_adb_client": Command(
        name="inspect-adb-client",
        help="the adb client REA runs, its version and install path (starts no server)",
        render=text.client,
    ),
    "inspect_android_package": Command(
        name="inspect-android-package",
        help="manifest, components, permissions, DEX counts and verified signatures of an APK",
        positionals=(_PACKAGE,),
        render=text.package,
    ),
    "search_android_classes": Command(
        name="search-android-classes",
        help="class names of every DEX of an APK containing QUERY",
        positionals=(
            _PACKAGE,
            Positional(argument="query", optional=True, help="case-sensitive substring (default: every class)"),
        ),
        defaults={"query": ""},
        render=text.search,
    ),
    "inspect_android_class": Command(
        name="inspect-android-class",
        help="methods, fields and inner classes of one class of an APK",
        positionals=(_PACKAGE, _CLASS),
        render=text.class_,
    ),
    "inspect_android_method": Command(
        name="inspect-android-method",
        help="decompiled source (smali fallback) of one method of an APK",
        positionals=(_PACKAGE, _CLASS, Positional(argument="method_name", help="method name")),
        render=text.method,
    ),
    "trace_android_references": Command(
        name="trace-android-references",
        help="incoming references to a class or method of an APK",
        positionals=(
            _PACKAGE,
            _CLASS,
            Positional(argument="method_name", optional=True, help="method name (omit: the class)"),
        ),
        render=text.references,
    ),
}

TOOLS = declared(
    (
        INSPECT_ANDROID_PACKAGE,
        SEARCH_ANDROID_CLASSES,
        INSPECT_ANDROID_CLASS,
        INSPECT_ANDROID_METHOD,
        TRACE_ANDROID_REFERENCES,
        INSPECT_APKTOOL_CLIENT,
        DECODE_ANDROID_RESOURCES,
        INSPECT_ADB_CLIENT,
        PROJECT_ANDROID_APPLICATION_GRAPH,
    ),
    COMMANDS,
)
