"""Programs of the Android family: identify the APK, ask the worker, build the result purely.

Every tool takes the APK's `path` (as the reference does), hashes it (the subject's
identity and the worker's cache key), asks one AndroidQuery and returns Evidence whose
parameters leave the path out: a moved APK keeps its Evidence ids.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Generator, Mapping
from typing import Any

import attrs
from returns.result import Failure, Result, Success

from rea import __version__
from rea.android.application import project
from rea.android.application_records import ProjectionArgs
from rea.android.clients import adb_client, apktool_client, decode_result
from rea.android.code import field_rows, method_rows, reference_rows, search, select_overload, text
from rea.android.effects import AndroidQuery, DecodeResources, Operation, ProbeClient
from rea.android.names import access_names, class_descriptor, class_name
from rea.android.package import SCHEMES, inventory_links, package_result
from rea.android.records import (
    AdbClientResult,
    AndroidLimitArgs,
    ApktoolClientResult,
    ClassArgs,
    ClassResult,
    DecodeArgs,
    DecodeTarget,
    Engine,
    MethodArgs,
    MethodResult,
    MethodRow,
    NoArgs,
    PackageArgs,
    ReferenceArgs,
    ReferenceResult,
    SearchArgs,
    SearchResult,
)
from rea.android.worker_facts import ClassFacts, MethodCode, class_facts, package_facts, reference_facts, take
from rea.artifacts.inventory_parsing import parse_inventory
from rea.artifacts.model import ZIP_FORMATS
from rea.effect_types import AnyEffect, Program, ToolProgram
from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence, Provider, Subject, create_evidence
from rea.program import Context, IdentifyTarget, Outcome, TargetFacts, must, need, recorded, refusable, refuse, typed
from rea.session import Session, resolve
from rea.wire.convert import to_wire

LIMIT_KEYS = tuple(a.name for a in attrs.fields(AndroidLimitArgs))
Facts = Generator[AnyEffect, Any, tuple[TargetFacts, Engine, Any]]


def _limits(args: AndroidLimitArgs) -> dict[str, Any]:
    return {name: getattr(args, name) for name in LIMIT_KEYS}


def _ask(
    args: PackageArgs | SearchArgs | ClassArgs, operation: Operation, params: Mapping[str, Any] | None = None
) -> Facts:
    """Identify the APK (digest, format), then ask the worker one question about it (a program step: an APK
    that cannot be read ends the program)."""
    target: TargetFacts = yield from need(IdentifyTarget(path=args.path))
    if target.kind != "file" or target.format not in ZIP_FORMATS:
        refuse(
            invalid_request(
                f"{args.path} is not an APK (detected {target.kind} {target.format})",
                field="path",
                accepted="a local .apk file (a zip holding AndroidManifest.xml)",
            )
        )
    reply = yield from need(
        AndroidQuery(
            path=target.path, sha256=target.sha256, operation=operation, params=dict(params or {}), limits=_limits(args)
        )
    )
    return target, Engine(**reply["engine"]), reply["facts"]


def _androguard(engine: Engine) -> Provider:
    return Provider(id="androguard", name="androguard", version=engine.version)


def _evidence(
    session: Session,
    operation: str,
    args: Any,
    target: TargetFacts,
    provider: Provider,
    result: Any,
    limitations: list[str] | tuple[str, ...] = (),
    links: list[str] | tuple[str, ...] = (),
) -> Outcome:
    """APK Evidence: the subject is the APK by digest; the path stays out of the parameters."""
    subject = Subject(
        name=posixpath.basename(target.path),
        sha256=target.sha256,
        format="apk",
        architecture=None,
        local_path=target.path,
    )
    built = create_evidence(
        provider=provider,
        operation=operation,
        parameters={k: v for k, v in to_wire(args).items() if k != "path"},
        normalized_result=to_wire(result),
        subject=subject,
        limitations=list(limitations),
        evidence_links=list(links),
    )
    return recorded(session, built)


@typed
@refusable
def inspect_android_package(session: Session, args: PackageArgs, ctx: Context) -> Program:
    target, engine, facts = yield from _ask(args, "package")
    links = inventory_links(session.ledger, target.sha256)
    result, limitations = package_result(package_facts(facts, SCHEMES), engine, args.max_manifest_chars, links)
    return _evidence(
        session,
        "inspect_android_package",
        args,
        target,
        _androguard(engine),
        result,
        limitations,
        [link.evidence_id for link in links],
    )


@typed
@refusable
def search_android_classes(session: Session, args: SearchArgs, ctx: Context) -> Program:
    target, engine, facts = yield from _ask(args, "classes")
    page, total, next_offset = search(facts["classes"], args.query, args.offset, args.limit)
    result = SearchResult(
        engine=engine,
        query=args.query,
        total_classes=len(facts["classes"]),
        matches=tuple(page),
        coverage="complete",
        total_matches=total,
        next_offset=next_offset,
    )
    return _evidence(session, "search_android_classes", args, target, _androguard(engine), result)


ClassFactsOf = Generator[AnyEffect, Any, tuple[TargetFacts, Engine, ClassFacts]]


def _class(args: ClassArgs) -> ClassFactsOf:
    target, engine, facts = yield from _ask(args, "class", {"descriptor": class_descriptor(args.class_name)})
    return target, engine, class_facts(facts)


@typed
@refusable
def inspect_android_class(session: Session, args: ClassArgs, ctx: Context) -> Program:
    target, engine, facts = yield from _class(args)
    result = ClassResult(
        engine=engine,
        class_name=class_name(facts.descriptor),
        methods=tuple(method_rows(facts.descriptor, facts.methods)),
        fields=tuple(field_rows(facts.fields)),
        inner_classes=tuple(class_name(c) for c in facts.inner_classes),
        dex_descriptor=facts.descriptor,
        superclass=class_name(facts.superclass) if facts.superclass else None,
        interfaces=tuple(class_name(i) for i in facts.interfaces),
        access_flags=access_names(facts.access_flags),
    )
    return _evidence(session, "inspect_android_class", args, target, _androguard(engine), result)


@typed
@refusable
def inspect_android_method(session: Session, args: MethodArgs, ctx: Context) -> Program:
    target, engine, facts = yield from _class(args)
    rows = method_rows(facts.descriptor, facts.methods)
    row, count = must(select_overload(rows, facts.descriptor, args.method_name, args.overload_index))
    body = yield from need(
        AndroidQuery(
            path=target.path,
            sha256=target.sha256,
            operation="method",
            params={
                "descriptor": facts.descriptor,
                "method_name": row.name,
                "method_descriptor": row.dex_descriptor,
                "decompile": True,
            },
            limits=_limits(args),
        )
    )
    code = take(MethodCode, body["facts"])
    result = method_result(engine, facts.descriptor, row, count, code, args.max_source_chars)
    return _evidence(session, "inspect_android_method", args, target, _androguard(engine), result)


def method_result(engine: Engine, owner: str, row: MethodRow, count: int, code: MethodCode, limit: int) -> MethodResult:
    """java when the decompiler answered, smali when it failed, not_available for abstract/native."""
    if not code.has_code:
        markers: tuple[str, ...] = ("no-code: abstract or native method",)
        return MethodResult(
            engine=engine,
            class_name=class_name(owner),
            method=row,
            overload_count=count,
            representation="smali",
            body_status="not_available",
            fell_back=False,
            markers=markers,
            source=text("", limit),
            smali=text("", limit),
        )
    java = code.java
    fell_back = java is None
    markers = (f"decompiler-failed: {code.decompile_failure}",) if fell_back else ("decompiler: androguard DAD",)
    return MethodResult(
        engine=engine,
        class_name=class_name(owner),
        method=row,
        overload_count=count,
        representation="smali" if fell_back else "java",
        body_status="available",
        fell_back=fell_back,
        markers=markers,
        source=text(code.smali if java is None else java, limit),
        smali=text(code.smali, limit),
    )


@typed
@refusable
def trace_android_references(session: Session, args: ReferenceArgs, ctx: Context) -> Program:
    target, engine, facts = yield from _class(args)
    params: dict[str, Any] = {"descriptor": facts.descriptor, "method_name": None}
    if args.method_name is not None:
        rows = method_rows(facts.descriptor, facts.methods)
        row = must(select_overload(rows, facts.descriptor, args.method_name, args.overload_index))[0]
        params = {**params, "method_name": row.name, "method_descriptor": row.dex_descriptor}
    refs = yield from need(
        AndroidQuery(
            path=target.path, sha256=target.sha256, operation="references", params=params, limits=_limits(args)
        )
    )
    rows_out = reference_rows(reference_facts(refs["facts"]))
    result = ReferenceResult(
        engine=engine,
        class_name=class_name(facts.descriptor),
        method_name=args.method_name,
        total=len(rows_out),
        references=tuple(rows_out),
        coverage="complete",
    )
    return _evidence(session, "trace_android_references", args, target, _androguard(engine), result)


def _client_evidence(session: Session, operation: str, provider: Provider, result: Any) -> Outcome:
    return recorded(
        session,
        create_evidence(provider=provider, operation=operation, parameters={}, normalized_result=to_wire(result)),
    )


@typed
@refusable
def inspect_apktool_client(session: Session, args: NoArgs, ctx: Context) -> Program:
    client = apktool_client((yield from need(ProbeClient(tool="apktool"))))
    provider = Provider(id="apktool", name="Apktool", version=client.apktool_version)
    return _client_evidence(session, "inspect_apktool_client", provider, ApktoolClientResult(client=client))


@typed
@refusable
def inspect_adb_client(session: Session, args: NoArgs, ctx: Context) -> Program:
    client = adb_client((yield from need(ProbeClient(tool="adb"))))
    provider = Provider(id="adb", name="Android Debug Bridge", version=client.version)
    return _client_evidence(
        session, "inspect_adb_client", provider, AdbClientResult(client=client, contacted_adb_server=False)
    )


@typed
@refusable
def decode_android_resources(session: Session, args: DecodeArgs, ctx: Context) -> Program:
    client = apktool_client((yield from need(ProbeClient(tool="apktool"))))
    target: TargetFacts = yield from need(IdentifyTarget(path=args.path))
    if target.kind != "file":
        refuse(invalid_request(f"{args.path} is a directory", field="path", accepted="a local APK file"))
    decoded = yield from need(
        DecodeResources(
            command=client.command,
            path=target.path,
            locale=args.locale,
            include_strings=args.include_strings,
            max_manifest_bytes=args.max_manifest_bytes,
            deadline_ms=args.deadline_ms,
        )
    )
    where = DecodeTarget(path=target.path, bytes=target.size, sha256=target.sha256)
    result, limitations = decode_result(client, where, decoded, locale=args.locale, max_strings=args.max_strings)
    provider = Provider(id="apktool", name="Apktool", version=client.apktool_version)
    return _evidence(session, "decode_android_resources", args, target, provider, result, limitations)


PROJECTION_PROVIDER = Provider(
    id="rea-android-projection", name="REA Android application projection", version=__version__
)


def _inventory_of(session: Session, value: Any, field: str) -> Result[tuple[Evidence, dict[str, Any]], ReaError]:
    """An inventory page: inventory_artifact Evidence, or the complete inventory inside inspect_artifact's."""
    return resolve(session, value, field).bind(lambda evidence: _inventory_in(session, evidence, field))


def _inventory_in(
    session: Session, evidence: Evidence, field: str
) -> Result[tuple[Evidence, dict[str, Any]], ReaError]:
    if evidence.operation == "inspect_artifact":
        return _inventory_of(session, evidence.normalized_result["substeps"][0]["evidence"], f"{field}.substeps[0]")
    if evidence.operation != "inventory_artifact":
        return Failure(
            invalid_request(
                f"{field} is {evidence.operation} Evidence",
                field=field,
                accepted="inventory_artifact or inspect_artifact Evidence",
            )
        )
    return parse_inventory(evidence.normalized_result).map(lambda inv: (evidence, inv))


def _package_of(session: Session, value: Any, root_sha256: str) -> Result[Evidence | None, ReaError]:
    if value is None:
        return Success(None)
    return resolve(session, value, "package_evidence").bind(lambda evidence: _same_apk(evidence, root_sha256))


def _same_apk(evidence: Evidence, root_sha256: str) -> Result[Evidence | None, ReaError]:
    if evidence.operation != "inspect_android_package" or evidence.subject is None:
        return Failure(
            invalid_request("package_evidence is not inspect_android_package Evidence", field="package_evidence")
        )
    if evidence.subject.sha256 != root_sha256:
        return Failure(
            invalid_request("package_evidence describes another APK than the inventory", field="package_evidence")
        )
    return Success(evidence)


Scan = Generator[AnyEffect, Any, tuple[dict[str, Any] | None, str | None]]


def _why_not(answer: Result[Any, ReaError], say: Callable[[ReaError], str]) -> str | None:
    """Why an effect's answer cannot be used (its error, said for a limitation), or None when it can."""
    reason: str | None = answer.swap().map(say).value_or(None)
    return reason


def _scan(subject: Subject | None, root_sha256: str, args: ProjectionArgs) -> Scan:
    """The bridge calls of every DEX, from the APK the inventory was made of (same digest), or why not."""
    if subject is None or subject.local_path is None:
        return None, "the inventory names no local APK path"
    path = subject.local_path
    identified = yield IdentifyTarget(path=path)
    unreadable = _why_not(identified, lambda error: f"{path} is not readable now ({error.code})")
    if unreadable is not None:
        return None, unreadable
    target: TargetFacts = identified.unwrap()
    if target.sha256 != root_sha256:
        return None, f"{path} changed since the inventory (its SHA-256 differs)"
    answer = yield AndroidQuery(
        path=target.path,
        sha256=target.sha256,
        operation="bridges",
        params={"max_calls": args.max_bridge_calls},
        limits=_limits(args),
    )
    failed_scan = _why_not(answer, lambda error: f"the DEX scan failed: {error.message}")
    if failed_scan is not None:
        return None, failed_scan
    return answer.unwrap()["facts"], None


def _pages(session: Session, args: ProjectionArgs) -> list[tuple[Evidence, dict[str, Any]]]:
    """Every inventory page, of one inventory of an APK (a program step: anything else ends the program)."""
    pages = [
        must(_inventory_of(session, value, f"inventory_evidence[{i}]"))
        for i, value in enumerate(args.inventory_evidence)
    ]
    manifests = {inv["manifest"]["manifest_id"] for _, inv in pages}
    if len(manifests) != 1:
        refuse(invalid_request("the pages come from different inventories", field="inventory_evidence"))
    first = pages[0][1]["manifest"]
    if first["root_format"] != "apk":
        refuse(
            invalid_request(
                f"the inventory's root is {first['root_format']}",
                field="inventory_evidence",
                accepted="an APK's inventory",
            )
        )
    return pages


@typed
@refusable
def project_android_application_graph(session: Session, args: ProjectionArgs, ctx: Context) -> Program:
    pages = _pages(session, args)
    first = pages[0][1]["manifest"]
    package_evidence = must(_package_of(session, args.package_evidence, first["root_sha256"]))
    ids = [e.evidence_id for e, _ in pages]
    scan, reason = yield from _scan(pages[0][0].subject, first["root_sha256"], args)
    result = project(
        [inv for _, inv in pages],
        ids,
        None if package_evidence is None else package_evidence.normalized_result,
        None if package_evidence is None else package_evidence.evidence_id,
        args.max_bridge_candidates,
        scan=scan,
        scan_reason=reason,
    )
    links = sorted({*ids, *([package_evidence.evidence_id] if package_evidence else [])})
    built = create_evidence(
        provider=PROJECTION_PROVIDER,
        operation="project_android_application_graph",
        parameters={
            "max_bridge_candidates": args.max_bridge_candidates,
            "max_bridge_calls": args.max_bridge_calls,
            "source_evidence_ids": links,
        },
        normalized_result=to_wire(result),
        subject=pages[0][0].subject,
        confidence="derived",
        limitations=list(result.limitations),
        evidence_links=links,
    )
    return recorded(session, built)


PROGRAMS: Mapping[str, ToolProgram] = {
    "project_android_application_graph": project_android_application_graph,
    "inspect_apktool_client": inspect_apktool_client,
    "inspect_adb_client": inspect_adb_client,
    "decode_android_resources": decode_android_resources,
    "inspect_android_package": inspect_android_package,
    "search_android_classes": search_android_classes,
    "inspect_android_class": inspect_android_class,
    "inspect_android_method": inspect_android_method,
    "trace_android_references": trace_android_references,
}
