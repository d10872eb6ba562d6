"""One Android application from its APK inventory (and optionally its package Evidence): pure.

Every component is an exact inventory path with its artifact id and hash; runtime families
and managed-to-native bridge candidates are path-based hypotheses (each basis named), never
decoded JNI declarations or observed calls. Package Evidence, when given, adds what the
manifest says: components, deep links, and which native libraries the package declares.
"""

from __future__ import annotations

import re
from typing import Any
from collections.abc import Mapping, Sequence

from rea.canonical_json import canonical_sha256
from rea.wire.android import (
    ApplicationComponents,
    BridgeCandidate,
    BridgeCoverage,
    ProjectionComponent,
    ProjectionCoverage,
    ProjectionResult,
    WebAsset,
)
from rea.wire.convert import to_wire

# native library name -> runtime family (the conventions of the frameworks that ship them)
RUNTIME_CONVENTIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?:^|/)lib(?:reactnativejni|hermes|jsc)\.so$"), "react-native"),
    (re.compile(r"(?:^|/)libflutter\.so$|(?:^|/)libapp\.so$"), "flutter"),
    (re.compile(r"(?:^|/)lib(?:unity|il2cpp|main)\.so$"), "unity"),
)
CLASSES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("manifests", re.compile(r"(?:^|/)AndroidManifest\.xml$")),
    ("resources", re.compile(r"(?:^|/)resources\.arsc$")),
    ("dex", re.compile(r"(?:^|/)[^/]+\.dex$", re.I)),
    ("jvm_classes", re.compile(r"(?:^|/)[^/]+\.class$", re.I)),
    ("signing", re.compile(r"^META-INF/[^/]+\.(?:MF|RSA|DSA|EC|SF)$", re.I)),
)
NATIVE = re.compile(r"(?:^|/)lib/[^/]+/[^/]+\.so$", re.I)
JNI = re.compile(r"lib/[^/]+/lib[^/]+\.so$")
WEB = re.compile(r"^assets/.+\.(?:html?|js|mjs|css)$", re.I)
FIXED_LIMITATIONS = (
    "Runtime families are inferred from inventory formats and paths; filename suffixes do not establish valid "
    "DEX or JVM class bytes.",
    "Bridge candidates are path-based hypotheses, not decoded JNI declarations or observed runtime calls.",
    "ZIP inventory cannot see the APK Signing Block, so an empty signing array does not mean the APK is unsigned "
    "(inspect_android_package verifies every scheme).",
)


def convention(path: str) -> str | None:
    for pattern, family in RUNTIME_CONVENTIONS:
        if pattern.search(path.lower()):
            return family
    return None


def merge_pages(results: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]], bool]:
    """(nodes by id, occurrences in path order, complete) over every page of one inventory."""
    nodes: dict[str, Any] = {}
    occurrences: dict[str, Any] = {}
    for r in results:
        nodes.update({n["artifact_id"]: n for n in r["nodes"]["items"]})
        occurrences.update({o["occurrence_id"]: o for o in r["occurrences"]["items"]})
    manifest = results[0]["manifest"]
    complete = (
        all(r["coverage"]["status"] == "complete" for r in results)
        and len(occurrences) == manifest["occurrence_count"]
        and len(nodes) == manifest["node_count"]
    )
    return nodes, sorted(occurrences.values(), key=lambda o: o["logical_path"]), complete


def components(nodes: Mapping[str, Any], occurrences: Sequence[Mapping[str, Any]]) -> list[ProjectionComponent]:
    out = []
    for o in occurrences:
        node = nodes.get(o.get("artifact_id") or "")
        if o.get("parent_occurrence_id") is None or node is None:
            continue
        out.append(
            ProjectionComponent(
                path=o["logical_path"], artifact_id=node["artifact_id"], sha256=node["sha256"], format=node["format"]
            )
        )
    return out


def classify(all_: Sequence[ProjectionComponent]) -> ApplicationComponents:
    sections: dict[str, list[ProjectionComponent]] = {name: [] for name, _ in CLASSES}
    for c in all_:
        for name, pattern in CLASSES:
            if pattern.search(c.path):
                sections[name].append(c)
    native = [c for c in all_ if c.format == "elf" or NATIVE.search(c.path)]
    javascript = [c for c in all_ if c.format in ("javascript", "javascript-bundle") or c.path.lower().endswith(".js")]
    return ApplicationComponents(
        **{k: tuple(v) for k, v in sections.items()}, native_libraries=tuple(native), javascript=tuple(javascript)
    )


def runtime_families(comps: ApplicationComponents, all_: Sequence[ProjectionComponent]) -> tuple[str, ...]:
    found = set()
    if comps.dex:
        found.add("dalvik-art")
    if comps.jvm_classes:
        found.add("java-kotlin")
    if comps.native_libraries:
        found.add("native")
    if comps.javascript:
        found.add("javascript")
    found.update(f for c in all_ if (f := convention(c.path)) is not None)
    return tuple(sorted(found))


def _basis(path: str) -> str:
    family = convention(path)
    if family is not None:
        return f"{family}-convention"
    return "jni-library-convention" if JNI.search(path.lower()) else "managed-and-native-content"


def bridges(comps: ApplicationComponents, limit: int) -> tuple[tuple[BridgeCandidate, ...], BridgeCoverage]:
    managed = [*comps.dex, *comps.jvm_classes]
    total = len(managed) * len(comps.native_libraries)
    out = [
        BridgeCandidate(managed_path=m.path, native_path=n.path, basis=_basis(n.path))  # type: ignore[arg-type]
        for m in managed
        for n in comps.native_libraries
    ][:limit]
    return tuple(out), BridgeCoverage(
        status="complete" if len(out) == total else "partial",
        total_candidates=total,
        emitted_candidates=len(out),
        omitted_candidates=total - len(out),
    )


def web_assets(all_: Sequence[ProjectionComponent]) -> tuple[WebAsset, ...]:
    return tuple(
        WebAsset(path=c.path, sha256=c.sha256, entry_point=c.path.lower().endswith((".html", ".htm")))
        for c in all_
        if WEB.search(c.path)
    )


def project(
    results: Sequence[Mapping[str, Any]],
    source_ids: Sequence[str],
    package: Mapping[str, Any] | None,
    package_id: str | None,
    max_candidates: int,
) -> ProjectionResult:
    nodes, occurrences, complete = merge_pages(results)
    all_ = components(nodes, occurrences)
    comps = classify(all_)
    candidates, coverage = bridges(comps, max_candidates)
    limitations = [
        *([] if complete else ["Source inventory pages are incomplete; absence is unknown."]),
        *FIXED_LIMITATIONS,
    ]
    if coverage.status == "partial":
        limitations.append(f"{coverage.omitted_candidates} bridge candidates omitted past max_bridge_candidates")
    if package is None:
        limitations.append("No package Evidence: manifest components and deep links are not projected.")
    fields: dict[str, Any] = {
        "root_sha256": results[0]["manifest"]["root_sha256"],
        "root_format": "apk",
        "source_evidence_ids": tuple(sorted(source_ids)),
        "components": comps,
        "runtime_families": runtime_families(comps, all_),
        "bridge_candidates": candidates,
        "bridge_candidate_coverage": coverage,
        "coverage": ProjectionCoverage(
            status="complete-within-inventory" if complete and coverage.status == "complete" else "partial",
            inventory_complete=complete,
        ),
        "limitations": tuple(limitations),
        "package_evidence_id": package_id,
        "package_name": None if package is None else package["package_name"],
        "application_components": () if package is None else tuple(package["components"]),
        "deep_links": () if package is None else tuple(package["deep_links"]),
        "web_assets": web_assets(all_),
    }
    draft = ProjectionResult(projection_id="adp_" + "0" * 64, **fields)
    body = to_wire(draft)
    body.pop("projection_id")
    return ProjectionResult(projection_id="adp_" + canonical_sha256(body), **fields)
