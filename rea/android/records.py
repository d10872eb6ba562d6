"""Wire records of the Android family: REA 6.x argument and result shapes, plus our extras.

Names, types and enums follow the reference (androidAnalysis.ts: `path`, `query`,
`class_name`, `method_name`, `overload_index`; engine, text coverage, method rows). Where
the reference declares a value it cannot observe (`signature_verification:
"not_performed"`, `dex_descriptor: null`) we answer what we observed instead: the
verdict of each signature scheme, the exact DEX descriptor (docs/android.md lists these
kept differences). Everything else we add is an extra field or an optional argument.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.wire.schema import field, local_path

_SHA = "^[a-f0-9]{64}$"
_MAX = 2**53 - 1

# ------------------------------------------------------------------ arguments


def _apk() -> str:
    return local_path("Local APK path; the target is never executed")  # type: ignore[no-any-return]


@attrs.frozen(kw_only=True)
class AndroidLimitArgs:
    """Bounds every Android reader applies (reported in limitations when they bite)."""

    max_apk_bytes: int = field("Refuse an APK larger than this", default=1 << 30, minimum=1, maximum=_MAX)
    max_member_bytes: int = field(
        "Largest manifest, resource table or DEX inflated (v1 digests past it stay unchecked)",
        default=256 << 20,
        minimum=1,
        maximum=_MAX,
    )
    max_compression_ratio: float = field(
        "Largest expansion ratio of a manifest, resource table or DEX (bomb guard)",
        default=1000.0,
        minimum=1,
        maximum=1_000_000,
    )
    deadline_ms: int = field("Stop the parse worker after this long", default=120_000, minimum=100, maximum=3_600_000)


@attrs.frozen(kw_only=True)
class PackageArgs(AndroidLimitArgs):
    path: str = _apk()
    max_manifest_chars: int = field(
        "Longest decoded manifest text returned (longer: manifest.status partial)",
        default=1 << 20,
        minimum=1,
        maximum=_MAX,
    )


@attrs.frozen(kw_only=True)
class SearchArgs(AndroidLimitArgs):
    path: str = _apk()
    query: str = field("Case-sensitive class-name substring; empty lists all classes", maxLength=4096)
    offset: int = field("First match returned (paging extra)", default=0, minimum=0, maximum=_MAX)
    limit: int | None = field("Matches returned from offset (default: all)", omit_none=True, minimum=1, maximum=_MAX)


@attrs.frozen(kw_only=True)
class ClassArgs(AndroidLimitArgs):
    path: str = _apk()
    class_name: str = field("Exact fully qualified class name", minLength=1, maxLength=4096)


@attrs.frozen(kw_only=True)
class MethodArgs(ClassArgs):
    method_name: str = field("Method name (<init> for a constructor)", minLength=1, maxLength=4096)
    overload_index: int | None = field(
        "Explicit index among same-name methods; required when ambiguous", omit_none=True, minimum=0, maximum=_MAX
    )
    max_source_chars: int = field(
        "Longest source text returned (longer: source.status partial)", default=200_000, minimum=1, maximum=_MAX
    )


@attrs.frozen(kw_only=True)
class ReferenceArgs(ClassArgs):
    method_name: str | None = field(
        "Omit for class references; an overloaded name needs overload_index",
        omit_none=True,
        minLength=1,
        maxLength=4096,
    )
    overload_index: int | None = field(
        "Selects one of same-name methods for method references", omit_none=True, minimum=0, maximum=_MAX
    )


# ------------------------------------------------------------------ results


@attrs.frozen(kw_only=True)
class Engine:
    name: str = field("The engine that parsed the APK", minLength=1)
    version: str | None = field("Its version")
    artifact_sha256: str = field("SHA-256 of the installed engine's file record (its identity)", pattern=_SHA)
    source_revision: str | None = field("Engine source revision, when known")
    worker_count: int = field("Worker processes used", minimum=1)
    heap_limit_mib: int | None = field("The worker's address-space ceiling in MiB")


@attrs.frozen(kw_only=True)
class TextCoverage:
    status: Literal["complete", "partial"] = field("partial: text was cut at the stated limit")
    text: str = field("The text, possibly cut")
    reported_total_bytes: int | None = field("UTF-8 size of the whole text", minimum=0)


@attrs.frozen(kw_only=True)
class Flag:
    value: bool | None = field("The effective value (null: the platform decides at runtime)")
    source: Literal["declared", "platform-default"] = field("Whether the manifest states it")


@attrs.frozen(kw_only=True)
class Application:
    name: str | None = field("android:name of <application>")
    debuggable: Flag = field("android:debuggable")
    allow_backup: Flag = field("android:allowBackup (platform default true)")
    uses_cleartext_traffic: Flag = field("android:usesCleartextTraffic (default true below target SDK 28)")
    network_security_config: str | None = field("android:networkSecurityConfig, named by its resource")


@attrs.frozen(kw_only=True)
class IntentData:
    scheme: str | None = field("")
    host: str | None = field("")
    port: str | None = field("")
    path: str | None = field("")
    path_prefix: str | None = field("")
    path_pattern: str | None = field("")
    mime_type: str | None = field("")


@attrs.frozen(kw_only=True)
class IntentFilter:
    actions: tuple[str, ...] = field("")
    categories: tuple[str, ...] = field("")
    data: tuple[IntentData, ...] = field("")


@attrs.frozen(kw_only=True)
class Component:
    kind: Literal["activity", "activity-alias", "service", "receiver", "provider"] = field("Manifest tag")
    name: str = field("Fully qualified class name")
    exported: bool = field("Whether other apps can start or bind it")
    exported_basis: Literal["declared", "intent-filter-default", "platform-default"] = field(
        "declared: android:exported; otherwise the platform rule for the target SDK"
    )
    enabled: bool = field("android:enabled (default true)")
    permission: str | None = field("android:permission guarding it")
    authorities: tuple[str, ...] = field("A provider's authorities")
    target_activity: str | None = field("An alias's target activity")
    intent_filters: tuple[IntentFilter, ...] = field("Its intent filters")
    launcher: bool = field("MAIN + LAUNCHER")


@attrs.frozen(kw_only=True)
class DeepLink:
    component: str = field("The activity that receives it")
    uri: str = field("scheme://host[:port]path as declared (a prefix or pattern is marked)")
    scheme: str = field("")
    host: str | None = field("")
    path: str | None = field("path, pathPrefix* or pathPattern~")
    browsable: bool = field("BROWSABLE category: reachable from a browser link")


@attrs.frozen(kw_only=True)
class UsedPermission:
    name: str = field("")
    max_sdk: str | None = field("android:maxSdkVersion")


@attrs.frozen(kw_only=True)
class DeclaredPermission:
    name: str = field("")
    protection_level: str | None = field("As encoded in the binary manifest")


@attrs.frozen(kw_only=True)
class NativeLibrary:
    abi: str = field("lib/<abi>/")
    name: str = field("File name")
    path: str = field("Entry path in the APK")
    bytes: int = field("Uncompressed size", minimum=0)


@attrs.frozen(kw_only=True)
class DexFile:
    name: str = field("classesN.dex; multidex is one program")
    bytes: int = field("", minimum=0)
    sha256: str = field("", pattern=_SHA)
    version: str | None = field("DEX format version")
    class_count: int = field("class_defs_size", minimum=0)
    method_count: int = field("method_ids_size (methods referenced)", minimum=0)
    field_count: int = field("field_ids_size", minimum=0)
    string_count: int = field("string_ids_size", minimum=0)
    checksum_valid: bool = field("Adler-32 of the file after the checksum equals the header's")
    consistent: bool = field("Header file size and counts fit the file")


@attrs.frozen(kw_only=True)
class Certificate:
    subject: str = field("RFC 4514")
    issuer: str = field("RFC 4514")
    serial_number: str = field("hex")
    not_before: str = field("")
    not_after: str = field("")
    sha256: str = field("Certificate fingerprint", pattern=_SHA)
    sha1: str = field("Certificate fingerprint")
    public_key_sha256: str = field("", pattern=_SHA)
    key_algorithm: str = field("")


@attrs.frozen(kw_only=True)
class Signer:
    certificates: tuple[Certificate, ...] = field("Signer chain as stored, leaf first")
    verified: bool | None = field("This signer verified (null: not checked)")
    failure: str | None = field("Why it did not verify")


@attrs.frozen(kw_only=True)
class SchemeVerdict:
    present: bool = field("The scheme's signature is present")
    verified: bool | None = field("Verified (null: absent)")
    failure: str | None = field("Why verification failed")
    signers: tuple[Signer, ...] = field("")


@attrs.frozen(kw_only=True)
class Signatures:
    v1: SchemeVerdict = field("JAR signing (META-INF)")
    v2: SchemeVerdict = field("APK Signature Scheme v2")
    v3: SchemeVerdict = field("APK Signature Scheme v3")
    v31: SchemeVerdict = field("APK Signature Scheme v3.1")
    v4: SchemeVerdict = field("APK Signature Scheme v4 (<apk>.idsig beside the APK)")
    certificates: tuple[Certificate, ...] = field("Every distinct signer certificate")


Verification = Literal["verified", "failed", "unsigned"]


@attrs.frozen(kw_only=True)
class InventoryLink:
    evidence_id: str = field(
        "Retained inventory_artifact / inspect_artifact Evidence of this APK", pattern="^ev_[a-f0-9]{64}$"
    )
    operation: str = field("")
    root_artifact_id: str | None = field("The APK's artifact id in that inventory")


@attrs.frozen(kw_only=True)
class PackageResult:
    engine: Engine = field("Engine identity")
    package_name: str | None = field("")
    version_name: str | None = field("")
    version_code: str | None = field("")
    min_sdk: str | None = field("")
    target_sdk: str | None = field("")
    permissions: tuple[str, ...] = field("Requested (uses-permission) names")
    manifest: TextCoverage = field("The decoded manifest XML")
    class_count: int = field("Classes defined across every DEX", minimum=0)
    resource_count: int = field("Entries of resources.arsc", minimum=0)
    signature_verification: Verification = field(
        "verified: every present scheme verified; failed: one did not; unsigned: none present (the reference: not_performed)"
    )
    max_sdk: str | None = field("")
    compile_sdk: str | None = field("compileSdkVersion or platformBuildVersionCode")
    used_permissions: tuple[UsedPermission, ...] = field("")
    declared_permissions: tuple[DeclaredPermission, ...] = field("")
    application: Application = field("")
    components: tuple[Component, ...] = field("")
    deep_links: tuple[DeepLink, ...] = field("VIEW intent filters with a data scheme")
    native_libraries: tuple[NativeLibrary, ...] = field("")
    native_abis: tuple[str, ...] = field("")
    dex: tuple[DexFile, ...] = field("")
    dex_count: int = field("", minimum=0)
    method_count: int = field("Method references across every DEX", minimum=0)
    signatures: Signatures = field("Each scheme's verdict")
    duplicate_entries: tuple[str, ...] = field("Entry names stored more than once (readers disagree which wins)")
    inventory_links: tuple[InventoryLink, ...] = field("Artifact inventories of this APK retained in the session")


@attrs.frozen(kw_only=True)
class SearchResult:
    engine: Engine = field("")
    query: str = field("")
    total_classes: int = field("", minimum=0)
    matches: tuple[str, ...] = field("Fully qualified names (inner classes keep $)")
    coverage: Literal["complete"] = field("Every class of every DEX was searched")
    total_matches: int = field("Matches before paging", minimum=0)
    next_offset: int | None = field("Offset of the next page (null: last page)")


@attrs.frozen(kw_only=True)
class MethodRow:
    name: str = field("")
    reported_signature: str = field("Display signature (Java types)")
    overload_index: int = field("Index among same-name methods, in DEX order", minimum=0)
    is_constructor: bool = field("")
    dex_descriptor: str | None = field("Exact DEX descriptor (the reference: null)")
    access_flags: tuple[str, ...] = field("")
    has_code: bool = field("")


@attrs.frozen(kw_only=True)
class FieldRow:
    name: str = field("")
    reported_type: str = field("Java type")
    dex_descriptor: str = field("")
    access_flags: tuple[str, ...] = field("")


@attrs.frozen(kw_only=True)
class ClassResult:
    engine: Engine = field("")
    class_name: str = field("")
    methods: tuple[MethodRow, ...] = field("")
    fields: tuple[FieldRow, ...] = field("")
    inner_classes: tuple[str, ...] = field("")
    dex_descriptor: str = field("")
    superclass: str | None = field("")
    interfaces: tuple[str, ...] = field("")
    access_flags: tuple[str, ...] = field("")


@attrs.frozen(kw_only=True)
class MethodResult:
    engine: Engine = field("")
    class_name: str = field("")
    method: MethodRow = field("")
    overload_count: int = field("", minimum=1)
    representation: Literal["java", "smali"] = field("")
    body_status: Literal["available", "not_available"] = field("not_available: abstract or native")
    fell_back: bool = field("The decompiler failed and smali is returned")
    markers: tuple[str, ...] = field("Why the representation is what it is")
    source: TextCoverage = field("")
    smali: TextCoverage = field("The method's instructions, always")


@attrs.frozen(kw_only=True)
class Reference:
    kind: str = field("call or class reference")
    name: str = field("Calling method name")
    reported_full_name: str = field("class.method(descriptor)")
    containing_class: str = field("")
    top_class: str = field("Outermost class")
    source_line: None = field("Unknown")
    dex_offset: None = field("Unknown")
    dex_descriptor: str = field("The calling method's descriptor")


@attrs.frozen(kw_only=True)
class ReferenceResult:
    engine: Engine = field("")
    class_name: str = field("")
    method_name: str | None = field("")
    total: int = field("", minimum=0)
    references: tuple[Reference, ...] = field("")
    coverage: Literal["complete"] = field("Every DEX was indexed")


# ------------------------------------------------------------------ clients (apktool, adb)


@attrs.frozen(kw_only=True)
class NoArgs:
    """The client tools take no arguments."""


@attrs.frozen(kw_only=True)
class ApktoolClient:
    command: str = field("The launcher REA runs", minLength=1)
    command_source: Literal["environment", "path"] = field("REA_APKTOOL_COMMAND, or apktool on PATH")
    apktool_version: str | None = field("What `apktool --version` printed", minLength=1)


@attrs.frozen(kw_only=True)
class ApktoolClientResult:
    client: ApktoolClient = field("")


@attrs.frozen(kw_only=True)
class AdbClient:
    binary_path: str = field("The adb REA runs (symlinks resolved)")
    path_source: Literal["environment", "path"] = field("REA_ADB_PATH, or adb on PATH")
    version: str | None = field("The platform-tools version `adb version` printed")
    installed_path: str | None = field("`Installed as` from `adb version`")
    protocol_version: str | None = field("Android Debug Bridge (protocol) version")


@attrs.frozen(kw_only=True)
class AdbClientResult:
    client: AdbClient = field("")
    contacted_adb_server: Literal[False] = field("adb version never contacts the server; nothing was started")


@attrs.frozen(kw_only=True)
class DecodeArgs:
    path: str = local_path("Local APK file to decode")
    include_strings: bool = field("Project res/values/strings.xml entries (bounded to 2000 entries)", default=True)
    locale: str | None = field(
        "Read strings from res/values-<locale>/strings.xml instead of the default table",
        omit_none=True,
        minLength=2,
        maxLength=16,
        pattern="^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$",
    )
    max_strings: int = field(
        "String entries returned (more: coverage partial)", default=2000, minimum=1, maximum=100_000
    )
    max_manifest_bytes: int = field(
        "Longest manifest returned (longer: coverage partial)", default=512 * 1024, minimum=1
    )
    deadline_ms: int = field("Stop apktool after this long", default=300_000, minimum=1000, maximum=3_600_000)


@attrs.frozen(kw_only=True)
class DecodeTarget:
    path: str = field("The APK decoded")
    bytes: int = field("", minimum=0)
    sha256: str = field("Digest taken before decoding", pattern=_SHA)


@attrs.frozen(kw_only=True)
class DecodeMetadata:
    version_name: str | None = field("apktool.yml versionInfo.versionName")
    version_code: str | None = field("Version code exactly as apktool.yml prints it")
    min_sdk_version: str | None = field("")
    target_sdk_version: str | None = field("")
    package_name: str | None = field("The decoded manifest's package")


@attrs.frozen(kw_only=True)
class StringEntry:
    name: str = field("", minLength=1)
    value: str = field("")


@attrs.frozen(kw_only=True)
class DecodeResult:
    client: ApktoolClient = field("")
    target: DecodeTarget = field("")
    metadata: DecodeMetadata = field("")
    manifest: str | None = field("The readable AndroidManifest.xml apktool wrote")
    strings: tuple[StringEntry, ...] = field("")
    locale: str | None = field("The locale projected (null: the default table)")
    locales: tuple[str, ...] = field("Locales with a strings table")
    decoded_file_count: int = field("Files apktool wrote", minimum=0)
    coverage: Literal["complete", "partial"] = field("partial: strings or manifest were cut at their bound")
    total_strings: int = field("String entries in the table before the bound", minimum=0)
    apktool_yml_version: str | None = field("The apktool version apktool.yml records")
