"""From the worker's manifest, zip and signature facts to the package result: the platform's rules, here.

The worker reports what the bytes say (raw attribute strings, entry lists, each scheme's
check); this module decides what they mean: a component's exported state under its
target SDK, a flag's platform default, which intent filters are deep links, the overall
signature verdict, and what a reader could not see (limitations).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rea.android.code import text
from rea.android.records import (
    Application,
    Certificate,
    Component,
    DeepLink,
    DexFile,
    Engine,
    Flag,
    IntentData,
    InventoryLink,
    NativeLibrary,
    PackageResult,
    SchemeVerdict,
    Signatures,
    Verification,
)
from rea.android.worker_facts import DexHeader, PackageFacts, RawApplication, RawComponent, ZipEntry

SCHEMES = ("v1", "v2", "v3", "v31", "v4")
LAUNCHER = ("android.intent.action.MAIN", "android.intent.category.LAUNCHER")
VIEW = "android.intent.action.VIEW"
BROWSABLE = "android.intent.category.BROWSABLE"


def _int(value: str | None) -> int | None:
    try:
        return int(value, 0) if value is not None else None
    except ValueError:
        return None


def _bool(value: str | None) -> bool | None:
    return {"true": True, "false": False}.get((value or "").lower())


def flag(raw: str | None, default: bool | None) -> Flag:
    parsed = _bool(raw)
    return (
        Flag(value=parsed, source="declared") if parsed is not None else Flag(value=default, source="platform-default")
    )


def qualified(package: str | None, name: str) -> str:
    """A manifest class name as the platform resolves it against the package."""
    if name.startswith("."):
        return (package or "") + name
    if "." not in name and package:
        return f"{package}.{name}"
    return name


def exported(kind: str, raw: str | None, filters: int, target_sdk: int | None) -> tuple[bool, str]:
    """(exported, basis): the declared value, else the platform default for this component."""
    declared = _bool(raw)
    if declared is not None:
        return declared, "declared"
    if kind == "provider":
        return (target_sdk is not None and target_sdk <= 16), "platform-default"
    if filters:
        return True, "intent-filter-default"
    return False, "platform-default"


def component(raw: RawComponent, package: str | None, target_sdk: int | None) -> Component:
    filters = raw.intent_filters
    is_exported, basis = exported(raw.kind, raw.exported_attribute, len(filters), target_sdk)
    target = raw.target_activity
    return Component(
        kind=raw.kind,
        name=qualified(package, raw.name),
        exported=is_exported,
        exported_basis=basis,  # type: ignore[arg-type]
        enabled=_bool(raw.enabled_attribute) is not False,
        permission=raw.permission,
        authorities=tuple(a for a in (raw.authorities or "").split(";") if a),
        target_activity=qualified(package, target) if target else None,
        intent_filters=filters,
        launcher=any(LAUNCHER[0] in f.actions and LAUNCHER[1] in f.categories for f in filters),
    )


def _path_of(d: IntentData) -> str | None:
    if d.path is not None:
        return d.path
    if d.path_prefix is not None:
        return d.path_prefix + "*"
    if d.path_pattern is not None:
        return d.path_pattern + "~"
    return None


def deep_links(components: Sequence[Component]) -> tuple[DeepLink, ...]:
    """Every scheme x host x path a VIEW filter accepts (data elements of one filter combine)."""
    out = []
    for c in components:
        for f in c.intent_filters:
            if VIEW not in f.actions:
                continue
            schemes = [d.scheme for d in f.data if d.scheme]
            hosts: list[str | None] = [d.host for d in f.data if d.host] or [None]
            paths: list[str | None] = [p for d in f.data if (p := _path_of(d)) is not None] or [None]
            for scheme in schemes:
                for host in hosts:
                    for path in paths:
                        uri = f"{scheme}://{host or ''}{path or ''}"
                        out.append(
                            DeepLink(
                                component=c.name,
                                uri=uri,
                                scheme=scheme,
                                host=host,
                                path=path,
                                browsable=BROWSABLE in f.categories,
                            )
                        )
    return tuple(out)


def native_libraries(entries: Sequence[ZipEntry]) -> tuple[NativeLibrary, ...]:
    out = []
    for e in entries:
        parts = e.name.split("/")
        if len(parts) == 3 and parts[0] == "lib" and parts[2].endswith(".so"):
            out.append(NativeLibrary(abi=parts[1], name=parts[2], path=e.name, bytes=e.bytes))
    return tuple(sorted(out, key=lambda n: (n.abi, n.name)))


def dex_file(raw: DexHeader) -> DexFile:
    valid = raw.valid_header
    size = raw.bytes
    # each id is at least 4 bytes (class_defs 32): counts past what the file can hold are impossible
    plausible = valid and raw.class_defs * 32 + (raw.string_ids + raw.type_ids) * 4 <= size
    plausible = plausible and (raw.method_ids + raw.field_ids) * 8 <= size
    return DexFile(
        name=raw.name,
        bytes=size,
        sha256=raw.sha256,
        version=raw.version,
        class_count=raw.class_defs,
        method_count=raw.method_ids,
        field_count=raw.field_ids,
        string_count=raw.string_ids,
        checksum_valid=valid and raw.declared_checksum == raw.computed_checksum,
        consistent=plausible and raw.declared_file_size == size,
    )


def signatures(schemes: Sequence[tuple[str, SchemeVerdict]]) -> tuple[Signatures, Verification]:
    verdicts = dict(schemes)
    seen: dict[str, Certificate] = {}
    for v in verdicts.values():
        for s in v.signers:
            for c in s.certificates[:1]:
                seen.setdefault(c.sha256, c)
    present = [v for v in verdicts.values() if v.present]
    overall: Verification = "unsigned" if not present else "verified" if all(v.verified for v in present) else "failed"
    return Signatures(**verdicts, certificates=tuple(seen.values())), overall


def _application(raw: RawApplication, target_sdk: int | None) -> Application:
    cleartext_default = None if target_sdk is None else target_sdk < 28
    return Application(
        name=raw.name,
        debuggable=flag(raw.debuggable, False),
        allow_backup=flag(raw.allow_backup, True),
        uses_cleartext_traffic=flag(raw.uses_cleartext_traffic, cleartext_default),
        network_security_config=raw.network_security_config,
    )


def limitations(facts: PackageFacts, result: PackageResult) -> list[str]:
    out = []
    if result.manifest.status == "partial":
        out.append(
            f"manifest text cut at {len(result.manifest.text)} characters of {result.manifest.reported_total_bytes} bytes"
        )
    for name in result.duplicate_entries:
        out.append(f"{name} is stored more than once; the parsed copy is the last one, other readers may differ")
    for d in result.dex:
        if not d.checksum_valid:
            out.append(f"{d.name}: the header checksum does not match its bytes (modified or corrupt)")
        if not d.consistent:
            out.append(f"{d.name}: header size or counts do not fit the file; its counts are what the header claims")
    if facts.resource_count is None:
        out.append("no resources.arsc: resource_count is 0")
    for name in SCHEMES:
        failure = getattr(result.signatures, name).failure
        if failure:
            out.append(f"signature {name}: {failure}")
    return out


def inventory_links(ledger: Sequence[Any], sha256: str) -> tuple[InventoryLink, ...]:
    """Retained artifact inventories of the same APK (by digest): the package record names them."""
    out = []
    for e in ledger:
        if (
            e.operation not in ("inventory_artifact", "inspect_artifact")
            or e.subject is None
            or e.subject.sha256 != sha256
        ):
            continue
        result = e.normalized_result
        if e.operation == "inspect_artifact":
            result = result["substeps"][0]["evidence"]["normalized_result"]
        root = result.get("manifest", {}).get("root_artifact_id") if isinstance(result, dict) else None
        out.append(InventoryLink(evidence_id=e.evidence_id, operation=e.operation, root_artifact_id=root))
    return tuple(sorted(out, key=lambda link: link.evidence_id))


def package_result(
    facts: PackageFacts, engine: Engine, max_manifest_chars: int, links: tuple[InventoryLink, ...] = ()
) -> tuple[PackageResult, list[str]]:
    package = facts.package_name
    target_sdk = _int(facts.target_sdk) or _int(facts.min_sdk)
    components = tuple(component(c, package, target_sdk) for c in facts.components)
    dex = tuple(dex_file(d) for d in facts.dex)
    sigs, overall = signatures(facts.signatures)
    libraries = native_libraries(facts.entries)
    result = PackageResult(
        engine=engine,
        package_name=package,
        version_name=facts.version_name,
        version_code=facts.version_code,
        min_sdk=facts.min_sdk,
        target_sdk=facts.target_sdk,
        permissions=tuple(p.name for p in facts.uses_permissions),
        manifest=text(facts.manifest_text, max_manifest_chars),
        class_count=sum(d.class_count for d in dex),
        resource_count=facts.resource_count or 0,
        signature_verification=overall,
        max_sdk=facts.max_sdk,
        compile_sdk=facts.compile_sdk,
        used_permissions=facts.uses_permissions,
        declared_permissions=facts.declared_permissions,
        application=_application(facts.application, target_sdk),
        components=components,
        deep_links=deep_links(components),
        native_libraries=libraries,
        native_abis=tuple(sorted({n.abi for n in libraries})),
        dex=dex,
        dex_count=len(dex),
        method_count=sum(d.method_count for d in dex),
        signatures=sigs,
        duplicate_entries=facts.duplicate_entries,
        inventory_links=links,
    )
    return result, limitations(facts, result)
