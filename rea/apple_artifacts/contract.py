"""Contract of the Apple artifacts family (toolset artifacts): keyed archives, compiled nibs, asset catalogs,
application graphs."""

from __future__ import annotations

from typing import Any

from rea.apple_artifacts.records import (
    ApplicationGraphArgs,
    ApplicationGraphResult,
    AssetCatalogArgs,
    AssetCatalogResult,
    InterfaceBuilderArgs,
    InterfaceBuilderResult,
    KeyedArchiveArgs,
    KeyedArchiveResult,
)
from rea.wire.tool import evidence_tool

_READ: dict[str, Any] = {"surface": "artifact-provider", "effects": {"mutatesSession", "idempotent"}, "needs": "target"}

INSPECT_KEYED_ARCHIVE = evidence_tool(
    "inspect_keyed_archive",
    "Inspect Keyed Archive",
    (
        "Read one NSKeyedArchiver plist (XML or binary; the open file, or path inside the open bundle) "
        "without instantiating classes: objects by original $objects index with class, class descriptors, "
        "$top roots and UID links {source, path, target, status}; cycles stay links. Paged by offset/limit."
    ),
    args=KeyedArchiveArgs,
    result=KeyedArchiveResult,
    examples=[{}, {"path": "Contents/Resources/Model.plist", "root": "root", "offset": 0, "limit": 100}],
    **_READ,
)
DECODE_INTERFACE_BUILDER = evidence_tool(
    "decode_interface_builder",
    "Decode Interface Builder",
    (
        "Decode the compiled nibs and storyboard scenes (NIBArchive or keyed-archive) of the open .app or "
        "nib: documents, objects, hierarchy, outlet and action connections and unknown classes as one "
        "bounded graph. Runs nothing."
    ),
    args=InterfaceBuilderArgs,
    result=InterfaceBuilderResult,
    examples=[{}, {"max_documents": 8, "max_objects": 500, "max_connections": 500}],
    **_READ,
)
INSPECT_ASSET_CATALOG = evidence_tool(
    "inspect_asset_catalog",
    "Inspect Asset Catalog",
    (
        "Read the compiled asset catalogs (.car) of the open .app or file on any host: catalogs with "
        "SHA-256 and record counts, then paged catalog and rendition records (asset and rendition names, "
        "key attributes, size, scale, pixel format). Undecoded parts are named, never guessed."
    ),
    args=AssetCatalogArgs,
    result=AssetCatalogResult,
    examples=[{}, {"offset": 0, "limit": 100}],
    **_READ,
)
PROJECT_APPLE_APPLICATION_GRAPH = evidence_tool(
    "project_apple_application_graph",
    "Project Apple Application Graph",
    (
        "Project an .app, IPA or archive inventory (inventory_artifact or inspect_artifact Evidence, every "
        "page) as one application: app roots, nested bundles with roles (appex, XPC, login item, helper, "
        "framework), launchd plists, component paths and hashes, runtime-family hints. Executes nothing."
    ),
    args=ApplicationGraphArgs,
    result=ApplicationGraphResult,
    examples=[{"inventory_evidence": [{"kind": "retained-evidence", "evidence_id": "ev_" + "0" * 64}]}],
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent"},
)

CLI_COMMANDS: tuple[str, ...] = ()
TOOLS = (INSPECT_KEYED_ARCHIVE, DECODE_INTERFACE_BUILDER, INSPECT_ASSET_CATALOG, PROJECT_APPLE_APPLICATION_GRAPH)
