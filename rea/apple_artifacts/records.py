"""Wire records of the Apple artifacts family: the REA 6.x shapes (domain/apple/*), read by our own parsers.

Extras beyond the reference are marked "our extra" in their descriptions.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.wire.schema import Open, field

SHA256 = "^[a-f0-9]{64}$"


# ------------------------------------------------------------------ arguments


@attrs.frozen(kw_only=True)
class KeyedArchiveArgs:
    path: str = field(
        "The archive inside the open bundle (relative); '.' is the open file itself", default=".", minLength=1
    )
    root: str | None = field("One named $top root (default: all)", default=None, omit_none=True)
    offset: int = field("First $objects index of the page", default=0, minimum=0)
    limit: int = field("Objects per page", default=20_000, minimum=1, maximum=20_000)


@attrs.frozen(kw_only=True)
class InterfaceBuilderArgs:
    max_documents: int = field("Compiled nibs and storyboard scenes decoded", default=64, minimum=1, maximum=64)
    max_objects: int = field("Graph objects kept", default=20_000, minimum=1, maximum=20_000)
    max_connections: int = field("Connections kept per document", default=40_000, minimum=1, maximum=40_000)


@attrs.frozen(kw_only=True)
class AssetCatalogArgs:
    offset: int = field("First record", default=0, minimum=0)
    limit: int = field("Records per page", default=1_000, minimum=1, maximum=10_000)


@attrs.frozen(kw_only=True)
class ApplicationLimits:
    max_components: int = field("Components kept", default=1_000, minimum=1, maximum=10_000)


@attrs.frozen(kw_only=True)
class ApplicationGraphArgs:
    inventory_evidence: tuple[Open, ...] = field(
        "Every page of one inventory_artifact (or inspect_artifact) Evidence of an .app, IPA or archive, "
        "inline or retained",
        minItems=1,
        maxItems=100,
    )
    limits: ApplicationLimits = field("Projection limits", factory=ApplicationLimits)


# ------------------------------------------------------------ inspect_keyed_archive


@attrs.frozen(kw_only=True)
class ArchiveObject:
    id: int = field("Original $objects index", minimum=0)
    kind: Literal["nil", "scalar", "array", "dictionary", "class-descriptor", "archived-object"] = field("")
    class_id: int | None = field("$objects index of its class descriptor")
    class_name: str | None = field("The descriptor's $classname")
    status: Literal["observed", "unknown-class", "unresolved-class", "nil"] = field("")
    value: Open = field("The serialized value; UIDs stay {UID: n} or {CF$UID: n}")


@attrs.frozen(kw_only=True)
class ArchiveLink:
    source: int | None = field("Object holding the UID (null: the roots)")
    path: tuple[str | int, ...] = field("Keys and indices from the source to the UID")
    target: int | None = field("Index named (null: malformed)")
    status: Literal["resolved", "nil", "unresolved", "malformed"] = field("")
    raw: Open = field("The UID as serialized")


@attrs.frozen(kw_only=True)
class KeyedArchiveResult:
    target_sha256: str = field("The open target", pattern=SHA256)
    archive_path: str = field("The archive read, relative to the target ('.' for the target itself)")
    archive_sha256: str = field("", pattern=SHA256)
    archive_format: Literal["binary-plist", "xml-plist"] = field("")
    roots: Open = field("The $top roots selected")
    objects: tuple[ArchiveObject, ...] = field("The page of the object table")
    references: tuple[ArchiveLink, ...] = field("Links from the roots and the page's objects")
    total_objects: int = field("", minimum=0)
    total_references: int = field("", minimum=0)
    offset: int = field("", minimum=0)
    next_offset: int | None = field("Next page (null: last)")
    truncated: bool = field("Some objects are on other pages")
    limitations: tuple[str, ...] = field("")


# -------------------------------------------------------- decode_interface_builder


@attrs.frozen(kw_only=True)
class IbDocument:
    relative_path: str = field("", minLength=1)
    archive_sha256: str = field("", pattern=SHA256)
    document_kind: Literal["nib", "storyboard_scene"] = field("")
    object_count: int = field("", minimum=0)
    connection_count: int = field("", minimum=0)
    hierarchy_complete: bool = field("")


@attrs.frozen(kw_only=True)
class IbProvider:
    id: str = field("")
    version: str | None = field("")
    tool_version: str = field("")


@attrs.frozen(kw_only=True)
class IbNode:
    id: str = field("", minLength=1)
    kind: str = field("storyboard, scene, view_controller, view, control, outlet, action, placeholder, unknown, ...")
    name: str = field("", minLength=1)
    location: Open = field("null: archives have no addresses")
    attributes: Open = field("class_name, custom_class, interface_builder_object_id, label")
    evidence: tuple[Open, ...] = field("The document and object it was read from")


@attrs.frozen(kw_only=True)
class IbEdge:
    id: str = field("", minLength=1)
    from_: str = field("", key="from")
    to: str | None = field("null: unresolved")
    relation: Literal["contains", "outlet_to", "target_action", "segue_to"] = field("")
    resolution: Literal["observed", "unresolved"] = field("")
    reason: str | None = field("Why unresolved", default=None, omit_none=True)
    evidence: tuple[Open, ...] = field("")
    limitations: tuple[str, ...] = field("")


@attrs.frozen(kw_only=True)
class IbCoverage:
    facet: str = field("objects:, connections:, hierarchy: per document; documents; graph_nodes")
    status: Literal["complete", "partial", "unsupported", "not_requested"] = field("")
    reason: str | None = field("")
    examined: int = field("", minimum=0)
    omitted: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class IbGraph:
    target_sha256: str = field("", pattern=SHA256)
    provider: IbProvider = field("")
    nodes: tuple[IbNode, ...] = field("")
    edges: tuple[IbEdge, ...] = field("")
    coverage: tuple[IbCoverage, ...] = field("")
    truncated: bool = field("")


@attrs.frozen(kw_only=True)
class InterfaceBuilderResult:
    target_sha256: str = field("", pattern=SHA256)
    documents: tuple[IbDocument, ...] = field("", maxItems=64)
    graph: IbGraph = field("Objects, hierarchy and connections")
    unknown_classes: tuple[str, ...] = field("Our extra: classes kept as kind unknown")
    limitations: tuple[str, ...] = field("")


# ----------------------------------------------------------- inspect_asset_catalog


@attrs.frozen(kw_only=True)
class CatalogFile:
    path: str = field("Relative to the target", minLength=1)
    sha256: str = field("", pattern=SHA256)
    record_count: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class CatalogRecord:
    catalog_path: str = field("", minLength=1)
    catalog_sha256: str = field("", pattern=SHA256)
    index: int = field("Within its catalog", minimum=0)
    kind: Literal["catalog", "rendition"] = field("")
    asset_name: str | None = field("")
    rendition_name: str | None = field("")
    metadata: Open = field("Decoded fields; undecoded lists what was not read")


@attrs.frozen(kw_only=True)
class AssetCatalogResult:
    target_sha256: str = field("", pattern=SHA256)
    catalogs: tuple[CatalogFile, ...] = field("")
    total_records: int = field("", minimum=0)
    offset: int = field("", minimum=0)
    limit: int = field("", minimum=1)
    records: tuple[CatalogRecord, ...] = field("")
    resource_key_matches: tuple[Open, ...] = field("Always empty here (see limitations)")
    next_offset: int | None = field("")
    truncated: bool = field("")
    limitations: tuple[str, ...] = field("")


# ------------------------------------------------- project_apple_application_graph


@attrs.frozen(kw_only=True)
class AppComponent:
    path: str = field("", minLength=1)
    artifact_id: str = field("", pattern="^art_[a-f0-9]{64}$")
    sha256: str = field("", pattern=SHA256)
    format: str = field("Inventory format")


@attrs.frozen(kw_only=True)
class NestedBundle:
    path: str = field("", minLength=1)
    role: Literal["appex", "xpc", "login-item", "helper", "framework", "system-extension", "bundle"] = field("")
    parent: str | None = field("The enclosing bundle")
    info_plist: str | None = field("Its Info.plist path, when listed")


@attrs.frozen(kw_only=True)
class LaunchdPlist:
    path: str = field("", minLength=1)
    sha256: str = field("", pattern=SHA256)


@attrs.frozen(kw_only=True)
class AppComponents:
    bundle_metadata: tuple[AppComponent, ...] = field("Info.plist files")
    executables: tuple[AppComponent, ...] = field("Mach-O files inside an app root")
    frameworks: tuple[AppComponent, ...] = field("")
    native_libraries: tuple[AppComponent, ...] = field("dylib and so files")
    javascript: tuple[AppComponent, ...] = field("")
    signing: tuple[AppComponent, ...] = field("Provisioning profiles and CodeResources")


@attrs.frozen(kw_only=True)
class BridgeCandidate:
    source_path: str = field("A JavaScript component")
    native_path: str = field("A native component beside it")
    basis: Literal[
        "javascript-and-native-content", "react-native-convention", "flutter-convention", "unity-convention"
    ] = field("Path hypothesis, never an observed call")


@attrs.frozen(kw_only=True)
class AppCoverage:
    status: Literal["complete-within-inventory", "partial", "truncated"] = field("")
    inventory_complete: bool = field("")
    omitted_components: int = field("", minimum=0)
    omitted_bridge_candidates: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class ApplicationGraphResult:
    schema_version: Literal[1] = field("")
    projection_id: str = field("", pattern="^aap_[a-f0-9]{64}$")
    root_sha256: str = field("", pattern=SHA256)
    root_format: str = field("ipa, directory, zip, ...")
    source_evidence_ids: tuple[str, ...] = field("")
    application_roots: tuple[str, ...] = field("Top-level .app paths")
    components: AppComponents = field("Paths and hashes by group")
    runtime_families: tuple[str, ...] = field("native, swift-objective-c, javascript, react-native, flutter, unity")
    bridge_candidates: tuple[BridgeCandidate, ...] = field("")
    bundles: tuple[NestedBundle, ...] = field("Our extra: nested bundles with roles")
    launchd_plists: tuple[LaunchdPlist, ...] = field("Our extra")
    coverage: AppCoverage = field("")
    limitations: tuple[str, ...] = field("")
