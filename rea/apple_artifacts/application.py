"""One Apple application from the inventory of its .app directory, IPA or archive: pure, from paths and hashes.

Why paths suffice, and where they stop: Apple's bundle layout names a nested bundle's
role by where it sits and how it is named (PlugIns/*.appex app extensions, XPCServices/*.xpc,
Contents/Library/LoginItems/*.app, Contents/Library/LaunchServices and Helpers, *.framework),
and launchd jobs by their directory (LaunchAgents, LaunchDaemons). Nothing is executed or
decoded here: a role is the layout's claim, runtime families are path hints with their
basis, and bundle identifiers or signing claims need inspect_plist and inspect_signature.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from rea.android.application import merge_pages
from rea.canonical_json import canonical_sha256

BUNDLE_SUFFIXES = (".app", ".appex", ".xpc", ".framework", ".bundle", ".plugin", ".kext", ".systemextension")
_ROLES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\.appex$"), "appex"),
    (re.compile(r"\.xpc$"), "xpc"),
    (re.compile(r"/Library/LoginItems/[^/]+\.app$"), "login-item"),
    (re.compile(r"/(?:Library/LaunchServices|Helpers|MacOS)/[^/]+$|\.app/[^/]+\.app$"), "helper"),
    (re.compile(r"\.framework$"), "framework"),
    (re.compile(r"\.systemextension$|\.kext$"), "system-extension"),
    (re.compile(r"\.(?:bundle|plugin)$"), "bundle"),
    (re.compile(r"\.app$"), "helper"),
)
_RUNTIME: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"flutter\.framework|/app\.framework/"), "flutter"),
    (re.compile(r"react\.framework|reactnative|hermes\.framework|main\.jsbundle"), "react-native"),
    (re.compile(r"unityframework\.framework"), "unity"),
    (re.compile(r"electron framework\.framework|/app\.asar$"), "electron"),
    (re.compile(r"libswift[^/]*\.dylib$|\.swiftmodule"), "swift"),
    (re.compile(r"\.(?:js|jsbundle)$"), "javascript"),
)
LAUNCHD = re.compile(r"/Launch(?:Agents|Daemons)/[^/]+\.plist$")
LIMITATIONS = [
    "Roles and runtime families come from Apple's bundle layout and path conventions, not from executing or "
    "decoding the components.",
    "Bundle identifiers, entitlements and signing claims need inspect_plist and inspect_signature; this projection "
    "reports exact paths and hashes only.",
]


def _paths(manifest: Mapping[str, Any], occurrences: Sequence[Mapping[str, Any]]) -> list[tuple[str, Any]]:
    """Every occurrence with its path from the application's point of view (a directory root keeps its name)."""
    root = next((o for o in occurrences if o.get("parent_occurrence_id") is None), None)
    prefix = root["logical_path"] if root is not None and manifest["root_format"] == "directory" else None
    out = []
    for o in occurrences:
        if o.get("parent_occurrence_id") is None:
            if prefix is not None:
                out.append((prefix, o))
            continue
        out.append((f"{prefix}/{o['logical_path']}" if prefix else o["logical_path"], o))
    return out


def role_of(path: str) -> str:
    for pattern, role in _ROLES:
        if pattern.search(path):
            return role
    return "bundle"


def _bundles(paths: Sequence[tuple[str, Any]], files: set[str]) -> tuple[list[str], list[dict[str, Any]]]:
    # an archive may list no directory entries: every parent of a listed path is a directory too
    directories = {p for p, o in paths if o.get("entry_kind") == "directory"}
    directories |= {"/".join(p.split("/")[:i]) for p, _ in paths for i in range(1, p.count("/") + 1)}
    bundles = sorted(p for p in directories if p.endswith(BUNDLE_SUFFIXES))
    roots = [p for p in bundles if p.endswith(".app") and not any(p.startswith(b + "/") for b in bundles)]
    out = []
    for path in bundles:
        if path in roots:
            continue
        parent = max((b for b in bundles if path.startswith(b + "/")), key=len, default=None)
        info = next((c for c in (f"{path}/Info.plist", f"{path}/Contents/Info.plist",
                                 f"{path}/Resources/Info.plist") if c in files), None)  # fmt: skip
        out.append({"path": path, "role": role_of(path), "parent": parent, "info_plist": info})
    return roots, out


def project(results: Sequence[Mapping[str, Any]], source_ids: Sequence[str], max_components: int) -> dict[str, Any]:
    """The application graph of every page of one inventory (already parsed and checked to be one manifest)."""
    nodes, occurrences, complete = merge_pages(results)
    manifest = results[0]["manifest"]
    paths = _paths(manifest, occurrences)
    full = [
        {"path": path, "artifact_id": node["artifact_id"], "sha256": node["sha256"], "format": node["format"]}
        for path, o in paths
        if o.get("parent_occurrence_id") is not None and (node := nodes.get(o.get("artifact_id") or "")) is not None
    ]
    roots, bundles = _bundles(paths, {c["path"] for c in full})
    launchd = [{"path": c["path"], "sha256": c["sha256"]} for c in full if LAUNCHD.search(c["path"])]
    kept = sorted(full, key=lambda c: c["path"])[:max_components]
    omitted = len(full) - len(kept)
    families = sorted({f for c in full for p, f in _RUNTIME if p.search(c["path"].lower())}
                      | ({"native"} if any(c["format"].startswith("mach-o") for c in full) else set()))  # fmt: skip
    limitations = list(LIMITATIONS)
    if not complete:
        limitations.insert(0, "The inventory pages are incomplete: what they do not list is unknown, not absent.")
    if not roots:
        limitations.insert(0, "No .app bundle directory is in the inventory.")
    if omitted:
        limitations.append(f"{omitted} components were left out by limits.max_components.")
    body = {
        "schema_version": 1,
        "root_sha256": manifest["root_sha256"],
        "root_format": manifest["root_format"],
        "source_evidence_ids": sorted(source_ids),
        "application_roots": roots,
        "bundles": bundles,
        "launchd_plists": launchd,
        "components": kept,
        "runtime_families": families,
        "coverage": {"status": "truncated" if omitted else "complete-within-inventory" if complete else "partial",
                     "inventory_complete": complete, "omitted_components": omitted},
        "limitations": limitations,
    }  # fmt: skip
    return {**body, "projection_id": "aap_" + canonical_sha256(body)}
