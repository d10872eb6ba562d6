"""The Android worker's replies as records: structured once where they enter the pure core.

The worker (effects/android/worker.py) answers in JSON: what the manifest, zip, DEX headers
and signing blocks say, raw (attribute strings as written, counts as the header claims).
Each reply is read here into frozen records, so package.py and code.py decide what those
facts mean over typed values, and nothing past this module indexes a reply by key.
Values are taken as the worker sent them (no coercion): the results carry them unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar

import attrs

from rea.android.records import (
    Certificate,
    DeclaredPermission,
    IntentData,
    IntentFilter,
    SchemeVerdict,
    Signer,
    UsedPermission,
)

_DATA_KEYS = {
    "scheme": "scheme",
    "host": "host",
    "port": "port",
    "path": "path",
    "pathPrefix": "path_prefix",
    "pathPattern": "path_pattern",
    "mimeType": "mime_type",
}
R = TypeVar("R")


@attrs.frozen(kw_only=True)
class RawComponent:
    """One activity/service/receiver/provider element, its attributes as written."""

    kind: Literal["activity", "activity-alias", "service", "receiver", "provider"]  # the worker's COMPONENT_TAGS
    name: str
    target_activity: str | None
    exported_attribute: str | None
    enabled_attribute: str | None
    permission: str | None
    authorities: str | None
    intent_filters: tuple[IntentFilter, ...]


@attrs.frozen(kw_only=True)
class RawApplication:
    """The <application> element's attributes as written (None: absent)."""

    name: str | None
    debuggable: str | None
    allow_backup: str | None
    uses_cleartext_traffic: str | None
    network_security_config: str | None


@attrs.frozen(kw_only=True)
class ZipEntry:
    name: str
    bytes: int


@attrs.frozen(kw_only=True)
class DexHeader:
    """What one DEX header claims; an invalid header carries only name, size and digest."""

    name: str
    bytes: int
    sha256: str
    valid_header: bool = False
    version: str | None = None
    declared_checksum: int | None = None
    computed_checksum: int | None = None
    declared_file_size: int | None = None
    class_defs: int = 0
    method_ids: int = 0
    field_ids: int = 0
    string_ids: int = 0
    type_ids: int = 0


@attrs.frozen(kw_only=True)
class PackageFacts:
    """The worker's `package` reply."""

    package_name: str | None
    version_code: str | None
    version_name: str | None
    min_sdk: str | None
    target_sdk: str | None
    max_sdk: str | None
    compile_sdk: str | None
    manifest_text: str
    uses_permissions: tuple[UsedPermission, ...]
    declared_permissions: tuple[DeclaredPermission, ...]
    application: RawApplication
    components: tuple[RawComponent, ...]
    entries: tuple[ZipEntry, ...]
    duplicate_entries: tuple[str, ...]
    dex: tuple[DexHeader, ...]
    resource_count: int | None
    signatures: tuple[tuple[str, SchemeVerdict], ...]


def take(cls: type[R], raw: Mapping[str, Any]) -> R:
    """A record of the same-named keys of one reply object (a key the record does not name is left; one the
    reply left out takes the record's default)."""
    return cls(**{a.name: raw[a.name] for a in attrs.fields(cls) if a.name in raw})  # type: ignore[arg-type]


def _component(raw: Mapping[str, Any]) -> RawComponent:
    filters = tuple(
        IntentFilter(
            actions=tuple(f["actions"]),
            categories=tuple(f["categories"]),
            data=tuple(IntentData(**{ours: d.get(theirs) for theirs, ours in _DATA_KEYS.items()}) for d in f["data"]),
        )
        for f in raw["intent_filters"]
    )
    return attrs.evolve(take(RawComponent, {**raw, "intent_filters": ()}), intent_filters=filters)


def scheme_verdict(raw: Mapping[str, Any]) -> SchemeVerdict:
    """One scheme's check; a signer without its own verdict takes the scheme's."""
    signers = tuple(
        Signer(
            certificates=tuple(
                Certificate(**{a.name: c[a.name] for a in attrs.fields(Certificate)}) for c in s.get("certificates", [])
            ),
            verified=s.get("verified", raw["verified"]),
            failure=s.get("failure"),
        )
        for s in raw.get("signers", [])
    )
    return SchemeVerdict(present=raw["present"], verified=raw["verified"], failure=raw["failure"], signers=signers)


def package_facts(raw: Mapping[str, Any], schemes: tuple[str, ...]) -> PackageFacts:
    """The `package` reply read once (`schemes`: the signing schemes, in the result's order)."""
    return PackageFacts(
        **{k: raw[k] for k in ("package_name", "version_code", "version_name", "min_sdk", "target_sdk", "max_sdk")},
        compile_sdk=raw["compile_sdk"],
        manifest_text=raw["manifest_text"],
        uses_permissions=tuple(take(UsedPermission, p) for p in raw["uses_permissions"]),
        declared_permissions=tuple(take(DeclaredPermission, p) for p in raw["declared_permissions"]),
        application=take(RawApplication, raw["application"]),
        components=tuple(_component(c) for c in raw["components"]),
        entries=tuple(take(ZipEntry, e) for e in raw["entries"]),
        duplicate_entries=tuple(raw["duplicate_entries"]),
        dex=tuple(take(DexHeader, d) for d in raw["dex"]),
        resource_count=raw["resource_count"],
        signatures=tuple((name, scheme_verdict(raw["signatures"][name])) for name in schemes),
    )


@attrs.frozen(kw_only=True)
class MethodFacts:
    name: str
    descriptor: str
    access_flags: int
    has_code: bool


@attrs.frozen(kw_only=True)
class FieldFacts:
    name: str
    descriptor: str
    access_flags: int


@attrs.frozen(kw_only=True)
class ClassFacts:
    """The worker's `class` reply: one class as its DEX defines it (methods in DEX order)."""

    descriptor: str
    superclass: str | None
    interfaces: tuple[str, ...]
    access_flags: int
    methods: tuple[MethodFacts, ...]
    fields: tuple[FieldFacts, ...]
    inner_classes: tuple[str, ...]


@attrs.frozen(kw_only=True)
class MethodCode:
    """The worker's `method` reply: smali always, java when the decompiler answered."""

    has_code: bool
    smali: str
    java: str | None
    decompile_failure: str | None


@attrs.frozen(kw_only=True)
class ReferenceFact:
    """One incoming reference as the worker reports it (`owner`: the caller's class descriptor)."""

    kind: str
    owner: str
    method: str
    descriptor: str


def class_facts(raw: Mapping[str, Any]) -> ClassFacts:
    return ClassFacts(
        descriptor=raw["descriptor"],
        superclass=raw["superclass"],
        interfaces=tuple(raw["interfaces"]),
        access_flags=raw["access_flags"],
        methods=tuple(
            MethodFacts(
                name=m["name"], descriptor=m["descriptor"], access_flags=m["access_flags"], has_code=m["has_code"]
            )
            for m in raw["methods"]
        ),
        fields=tuple(
            FieldFacts(name=f["name"], descriptor=f["descriptor"], access_flags=f["access_flags"])
            for f in raw["fields"]
        ),
        inner_classes=tuple(raw["inner_classes"]),
    )


def reference_facts(raw: Mapping[str, Any]) -> tuple[ReferenceFact, ...]:
    """The `references` reply's rows."""
    return tuple(
        ReferenceFact(kind=r["kind"], owner=r["class"], method=r["method"], descriptor=r["descriptor"])
        for r in raw["references"]
    )
