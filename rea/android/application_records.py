"""Wire records of project_android_application_graph: its arguments (every inventory page, the package
Evidence, the bridge bounds) and the application graph projected from them."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.android.records import _SHA, AndroidLimitArgs, Component, DeepLink
from rea.wire.schema import Open, field

# ------------------------------------------------------------------ application graph


@attrs.frozen(kw_only=True)
class ProjectionArgs(AndroidLimitArgs):
    inventory_evidence: tuple[Open, ...] = field(
        "Every page of one APK's inventory_artifact Evidence (or inspect_artifact Evidence), inline or retained",
        minItems=1,
        maxItems=1000,
    )
    package_evidence: Open = field(
        "inspect_android_package Evidence of the same APK (inline or retained): adds components and deep links",
        default=None,
    )
    max_bridge_candidates: int = field("Bridge candidates kept (more: coverage partial)", default=10_000, minimum=0)
    max_bridge_calls: int = field(
        "Loader, JavaScript-bridge and loadUrl call sites the bytecode scan returns (more: a limitation)",
        default=10_000,
        minimum=0,
        maximum=1_000_000,
    )


@attrs.frozen(kw_only=True)
class ProjectionComponent:
    path: str = field("Inventory path", minLength=1)
    artifact_id: str = field("", pattern="^art_[a-f0-9]{64}$")
    sha256: str = field("", pattern=_SHA)
    format: str = field("Inventory format", minLength=1)


@attrs.frozen(kw_only=True)
class ApplicationComponents:
    manifests: tuple[ProjectionComponent, ...] = field("")
    resources: tuple[ProjectionComponent, ...] = field("")
    dex: tuple[ProjectionComponent, ...] = field("")
    jvm_classes: tuple[ProjectionComponent, ...] = field("")
    native_libraries: tuple[ProjectionComponent, ...] = field("")
    javascript: tuple[ProjectionComponent, ...] = field("")
    signing: tuple[ProjectionComponent, ...] = field("")


RuntimeFamily = Literal["dalvik-art", "java-kotlin", "native", "javascript", "react-native", "flutter", "unity"]


@attrs.frozen(kw_only=True)
class BridgeCandidate:
    managed_path: str = field("", minLength=1)
    native_path: str = field("", minLength=1)
    basis: Literal[
        "managed-and-native-content",
        "jni-library-convention",
        "react-native-convention",
        "flutter-convention",
        "unity-convention",
        "load-library-call",
    ] = field(
        "Why the pair is a candidate (load-library-call: the managed class calls System.loadLibrary with its name)"
    )
    managed_class: str | None = field("The class whose method loads the library (bytecode scan)", omit_none=True)
    library_name: str | None = field("The const-string passed to System.loadLibrary", omit_none=True)


@attrs.frozen(kw_only=True)
class BridgeCoverage:
    status: Literal["complete", "partial"] = field("")
    total_candidates: int = field("", minimum=0)
    emitted_candidates: int = field("", minimum=0)
    omitted_candidates: int = field("", minimum=0)


@attrs.frozen(kw_only=True)
class ProjectionCoverage:
    status: Literal["complete-within-inventory", "partial"] = field("")
    inventory_complete: bool = field("Every page of the inventory was supplied and complete")


@attrs.frozen(kw_only=True)
class WebAsset:
    path: str = field("assets/ path")
    sha256: str = field("", pattern=_SHA)
    entry_point: bool = field("An HTML page a WebView can load")


@attrs.frozen(kw_only=True)
class CallSite:
    class_name: str = field("Fully qualified class whose method makes the call")
    method: str = field("Method name and DEX descriptor")
    dex_path: str = field("The DEX member defining the class")


@attrs.frozen(kw_only=True)
class NativeLoader:
    site: CallSite = field("")
    call: Literal["System.loadLibrary", "System.load"] = field("")
    library_name: str | None = field("The const-string argument; null when computed at run time")
    native_paths: tuple[str, ...] = field("lib/<abi>/lib<name>.so entries of the APK it names (empty: not shipped)")


@attrs.frozen(kw_only=True)
class JavascriptBridge:
    site: CallSite = field("")
    bridge_class: str | None = field("The new-instance class passed as the bridge object; null when not local")
    interface_name: str | None = field("The JavaScript name it is exposed as (const-string), or null")


@attrs.frozen(kw_only=True)
class WebViewLoad:
    site: CallSite = field("")
    url: str | None = field("The const-string URL passed to WebView.loadUrl, or null")
    asset_path: str | None = field("The assets/ entry a file:///android_asset/ URL names, when the APK has it")


@attrs.frozen(kw_only=True)
class BytecodeScan:
    status: Literal["scanned", "unavailable"] = field("scanned: every method of every DEX was read")
    total_calls: int = field("Loader, bridge and loadUrl calls found", minimum=0)
    reason: str | None = field("Why the APK could not be scanned (then candidates are path-based)")


@attrs.frozen(kw_only=True)
class ProjectionResult:
    projection_id: str = field("adp_ + SHA-256 of the projection", pattern="^adp_[a-f0-9]{64}$")
    root_sha256: str = field("", pattern=_SHA)
    root_format: Literal["apk"] = field("")
    source_evidence_ids: tuple[str, ...] = field("", minItems=1)
    components: ApplicationComponents = field("")
    runtime_families: tuple[RuntimeFamily, ...] = field("")
    bridge_candidates: tuple[BridgeCandidate, ...] = field("")
    bridge_candidate_coverage: BridgeCoverage = field("")
    coverage: ProjectionCoverage = field("")
    limitations: tuple[str, ...] = field("")
    package_evidence_id: str | None = field("The package Evidence merged, if any")
    package_name: str | None = field("")
    application_components: tuple[Component, ...] = field("Manifest components (from package Evidence)")
    deep_links: tuple[DeepLink, ...] = field("")
    web_assets: tuple[WebAsset, ...] = field("Embedded web content; HTML pages are entry points")
    bytecode_scan: BytecodeScan = field("The DEX scan the loaders and bridges come from")
    native_loaders: tuple[NativeLoader, ...] = field("Every System.loadLibrary/System.load call site")
    javascript_bridges: tuple[JavascriptBridge, ...] = field("Every WebView.addJavascriptInterface call site")
    webview_loads: tuple[WebViewLoad, ...] = field("Every WebView.loadUrl call site")
