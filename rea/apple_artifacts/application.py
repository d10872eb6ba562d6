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
    (re.compile(r"\.dylib$|\.framework/[^/]+$"), "swift-objective-c"),
    (re.compile(r"flutter\.framework|(?:^|/)app\.framework/"), "flutter"),
    (re.compile(r"react\.framework|reactnative|hermes"), "react-native"),
    (re.compile(r"unityframework\.framework"), "unity"),
)
_GROUPS: tuple[tuple[str, Any], ...] = (
    ("bundle_metadata", lambda c, app: c["path"].endswith("/Info.plist") or c["path"] == "Info.plist"),
    ("executables", lambda c, app: app(c["path"]) and c["format"] in ("mach-o", "mach-o-universal")),
    ("frameworks", lambda c, app: ".framework/" in c["path"]),
    ("native_libraries", lambda c, app: c["path"].lower().endswith((".dylib", ".so"))),
    ("javascript", lambda c, app: c["format"] == "javascript-bundle" or c["path"].endswith((".jsbundle", ".js"))),
    ("signing", lambda c, app: c["path"].endswith(("embedded.mobileprovision", "_CodeSignature/CodeResources"))),
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


def _retain(full: list[dict[str, Any]], roots: list[str], limit: int) -> tuple[dict[str, list[Any]], int]:
    """Components by group, in path order, at most `limit` over all groups; and how many were left out."""

    def inside(path: str) -> bool:
        return any(path.startswith(root + "/") for root in roots)

    groups, left, total = {}, limit, 0
    for name, test in _GROUPS:
        members = sorted((c for c in full if test(c, inside)), key=lambda c: c["path"])
        total += len(members)
        groups[name] = members[: max(left, 0)]
        left -= len(groups[name])
    return groups, total - sum(len(g) for g in groups.values())


def _bridges(groups: Mapping[str, list[Any]], limit: int) -> tuple[list[dict[str, str]], int]:
    """Path-based hypotheses: each JavaScript component beside each native one (never observed calls)."""
    native = sorted({c["path"] for c in groups["executables"] + groups["native_libraries"]})
    pairs = [(js["path"], n) for js in groups["javascript"] for n in native]
    kept = [{"source_path": js, "native_path": n, "basis": _basis(n)} for js, n in pairs[:limit]]
    return kept, len(pairs) - len(kept)


def _basis(path: str) -> str:
    lower = path.lower()
    if "react" in lower:
        return "react-native-convention"
    if "flutter" in lower or "app.framework" in lower:
        return "flutter-convention"
    return "unity-convention" if "unity" in lower else "javascript-and-native-content"


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
    groups, omitted = _retain(full, roots, max_components)
    families = sorted({f for c in full for p, f in _RUNTIME if p.search(c["path"].lower())}
                      | ({"native"} if any(c["format"].startswith("mach-o") for c in full) else set())
                      | ({"javascript"} if groups["javascript"] else set()))  # fmt: skip
    bridges, omitted_bridges = _bridges(groups, max_components)
    limitations = list(LIMITATIONS)
    if not complete:
        limitations.insert(0, "The inventory pages are incomplete: what they do not list is unknown, not absent.")
    if not roots:
        limitations.insert(0, "No .app bundle directory is in the inventory.")
    if omitted or omitted_bridges:
        limitations.append(f"{omitted} components and {omitted_bridges} bridge hypotheses were left out by "
                           "limits.max_components.")  # fmt: skip
    body = {
        "schema_version": 1,
        "root_sha256": manifest["root_sha256"],
        "root_format": manifest["root_format"],
        "source_evidence_ids": sorted(source_ids),
        "application_roots": roots,
        "components": groups,
        "runtime_families": families,
        "bridge_candidates": bridges,
        "bundles": bundles,
        "launchd_plists": launchd,
        "coverage": {"status": "truncated" if omitted or omitted_bridges
                     else "complete-within-inventory" if complete else "partial",
                     "inventory_complete": complete, "omitted_components": omitted,
                     "omitted_bridge_candidates": omitted_bridges},
        "limitations": limitations,
    }  # fmt: skip
    return {**body, "projection_id": "aap_" + canonical_sha256(body)}
