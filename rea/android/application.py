"""One Android application from its APK inventory (and optionally its package Evidence): pure.

Every component is an exact inventory path with its artifact id and hash; runtime families
are path-based hypotheses (each basis named). Bridge candidates come from the worker's scan of
the DEX bytecode (the class calling System.loadLibrary with a const-string name, paired with
the shipped lib<name>.so), path-based only when the APK cannot be read; never observed calls. Package Evidence, when given, adds what the
manifest says: components, deep links, and which native libraries the package declares.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from rea.android.application_records import (
    ApplicationComponents,
    BridgeCandidate,
    BridgeCoverage,
    BytecodeScan,
    CallSite,
    JavascriptBridge,
    NativeLoader,
    ProjectionComponent,
    ProjectionCoverage,
    ProjectionResult,
    WebAsset,
    WebViewLoad,
)
from rea.android.names import class_name
from rea.canonical_json import canonical_sha256
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


def path_bridges(comps: ApplicationComponents) -> list[BridgeCandidate]:
    """Every managed x native pair, when the bytecode cannot be scanned."""
    managed = [*comps.dex, *comps.jvm_classes]
    return [
        BridgeCandidate(managed_path=m.path, native_path=n.path, basis=_basis(n.path))  # type: ignore[arg-type]
        for m in managed
        for n in comps.native_libraries
    ]


PATH_BASED = "Bridge candidates are path-based hypotheses, not decoded JNI declarations or observed runtime calls."
SCANNED = (
    "Bridge candidates come from a linear scan of every method's bytecode: a library name or URL is known when a "
    "const-string reaches the call in the same method; values computed or passed in stay null. Calls are static "
    "sites, not observed runtime calls."
)
ASSET_URL = "file:///android_asset/"
CALLS = {"load_library": "System.loadLibrary", "load": "System.load"}


@attrs.frozen(kw_only=True)
class Scanned:
    """The bytecode scan's rows, read into the projection's records."""

    candidates: list[BridgeCandidate]
    loaders: tuple[NativeLoader, ...]
    javascript: tuple[JavascriptBridge, ...]
    loads: tuple[WebViewLoad, ...]


def _site(call: Mapping[str, Any]) -> CallSite:
    return CallSite(class_name=class_name(call["class"]), method=call["method"], dex_path=call["dex"])


def _shipped(library: str | None, comps: ApplicationComponents) -> tuple[str, ...]:
    if library is None:
        return ()
    return tuple(n.path for n in comps.native_libraries if n.path.rsplit("/", 1)[-1] == f"lib{library}.so")


def _asset(url: str | None, all_: Sequence[ProjectionComponent]) -> str | None:
    if url is None or not url.startswith(ASSET_URL):
        return None
    wanted = "assets/" + url[len(ASSET_URL) :].split("?", 1)[0].split("#", 1)[0]
    return wanted if any(c.path == wanted for c in all_) else None


def scanned(
    calls: Sequence[Mapping[str, Any]], comps: ApplicationComponents, all_: Sequence[ProjectionComponent]
) -> Scanned:
    loaders, javascript, loads, candidates = [], [], [], []
    for call in calls:
        site, argument = _site(call), call["argument"]
        if call["kind"] in CALLS:
            paths = _shipped(argument, comps) if call["kind"] == "load_library" else ()
            loaders.append(
                NativeLoader(site=site, call=CALLS[call["kind"]], library_name=argument, native_paths=paths)  # type: ignore[arg-type]
            )
            candidates += [
                BridgeCandidate(
                    managed_path=site.dex_path,
                    native_path=p,
                    basis="load-library-call",
                    managed_class=site.class_name,
                    library_name=argument,
                )
                for p in paths
            ]
        elif call["kind"] == "javascript_interface":
            bridge = call.get("bridge_class")
            javascript.append(
                JavascriptBridge(
                    site=site, bridge_class=None if bridge is None else class_name(bridge), interface_name=argument
                )
            )
        else:
            loads.append(WebViewLoad(site=site, url=argument, asset_path=_asset(argument, all_)))
    unique = list({(c.managed_path, c.native_path, c.managed_class): c for c in candidates}.values())
    return Scanned(candidates=unique, loaders=tuple(loaders), javascript=tuple(javascript), loads=tuple(loads))


def _bounded(out: list[BridgeCandidate], limit: int) -> tuple[tuple[BridgeCandidate, ...], BridgeCoverage]:
    kept = out[:limit]
    return tuple(kept), BridgeCoverage(
        status="complete" if len(kept) == len(out) else "partial",
        total_candidates=len(out),
        emitted_candidates=len(kept),
        omitted_candidates=len(out) - len(kept),
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
    scan: Mapping[str, Any] | None = None,
    scan_reason: str | None = None,
) -> ProjectionResult:
    """`scan`: the worker's bridge calls ({calls, total_calls}); None (with `scan_reason`) falls back to paths."""
    nodes, occurrences, complete = merge_pages(results)
    all_ = components(nodes, occurrences)
    comps = classify(all_)
    found = scanned(scan["calls"] if scan else (), comps, all_)
    candidates, coverage = _bounded(found.candidates if scan else path_bridges(comps), max_candidates)
    limitations = [
        *([] if complete else ["Source inventory pages are incomplete; absence is unknown."]),
        *FIXED_LIMITATIONS,
        SCANNED if scan else f"{PATH_BASED} The bytecode was not scanned: {scan_reason}",
    ]
    if scan and len(scan["calls"]) < scan["total_calls"]:
        limitations.append(f"{scan['total_calls'] - len(scan['calls'])} call sites omitted past max_bridge_calls")
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
        "bytecode_scan": BytecodeScan(
            status="scanned" if scan else "unavailable",
            total_calls=scan["total_calls"] if scan else 0,
            reason=None if scan else scan_reason,
        ),
        "native_loaders": found.loaders,
        "javascript_bridges": found.javascript,
        "webview_loads": found.loads,
    }
    draft = ProjectionResult(projection_id="adp_" + "0" * 64, **fields)
    body = to_wire(draft)
    body.pop("projection_id")
    return ProjectionResult(projection_id="adp_" + canonical_sha256(body), **fields)
