"""Programs of the Android family: identify the APK, ask the worker, build the result purely.

Every tool takes the APK's `path` (as the reference does), hashes it (the subject's
identity and the worker's cache key), asks one AndroidQuery and returns Evidence whose
parameters leave the path out: a moved APK keeps its Evidence ids.
"""

from __future__ import annotations

import posixpath
from typing import Any
from collections.abc import Generator, Mapping

import attrs
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from rea.android.code import field_rows, method_rows, reference_rows, search, select_overload, text
from rea import __version__
from rea.android.application import project
from rea.artifacts.graph import parse_inventory
from rea.android.clients import adb_client, apktool_client, decode_result
from rea.android.effects import AndroidQuery, DecodeResources, Operation, ProbeClient
from rea.android.names import access_names, class_descriptor, class_name
from rea.android.package import inventory_links, package_result
from rea.artifacts.model import ZIP_FORMATS
from rea.effect_types import AnyEffect, Program, ToolProgram
from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence, Provider, Subject, create_evidence
from rea.program import recorded, Context, IdentifyTarget, Outcome, TargetFacts, failed
from rea.session import Session, resolve
from rea.android.records import (
    AdbClientResult,
    AndroidLimitArgs,
    ApktoolClientResult,
    ClassResult,
    DecodeTarget,
    Engine,
    MethodResult,
    ReferenceResult,
    SearchResult,
)
from rea.wire.convert import to_wire

LIMIT_KEYS = tuple(a.name for a in attrs.fields(AndroidLimitArgs))
Facts = Generator[AnyEffect, Any, Result[tuple[TargetFacts, Engine, Any], ReaError]]


def _limits(args: Mapping[str, Any]) -> dict[str, Any]:
    return {name: args[name] for name in LIMIT_KEYS}


def _ask(args: Mapping[str, Any], operation: Operation, params: Mapping[str, Any] | None = None) -> Facts:
    """Identify the APK (digest, format), then ask the worker one question about it."""
    identified = yield IdentifyTarget(path=args["path"])
    if not is_successful(identified):
        return Failure(identified.failure())
    target: TargetFacts = identified.unwrap()
    if target.kind != "file" or target.format not in ZIP_FORMATS:
        return Failure(
            invalid_request(
                f"{args['path']} is not an APK (detected {target.kind} {target.format})",
                field="path",
                accepted="a local .apk file (a zip holding AndroidManifest.xml)",
            )
        )
    answer = yield AndroidQuery(
        path=target.path, sha256=target.sha256, operation=operation, params=dict(params or {}), limits=_limits(args)
    )
    if not is_successful(answer):
        return Failure(answer.failure())
    reply = answer.unwrap()
    return Success((target, Engine(**reply["engine"]), reply["facts"]))


def _androguard(engine: Engine) -> Provider:
    return Provider(id="androguard", name="androguard", version=engine.version)


def _evidence(
    session: Session,
    operation: str,
    args: Mapping[str, Any],
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
        parameters={k: v for k, v in args.items() if k != "path"},
        normalized_result=to_wire(result),
        subject=subject,
        limitations=list(limitations),
        evidence_links=list(links),
    )
    return recorded(session, built)


def inspect_android_package(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    asked = yield from _ask(args, "package")
    if not is_successful(asked):
        return failed(session, asked.failure())
    target, engine, facts = asked.unwrap()
    links = inventory_links(session.ledger, target.sha256)
    result, limitations = package_result(facts, engine, args["max_manifest_chars"], links)
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


def search_android_classes(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    asked = yield from _ask(args, "classes")
    if not is_successful(asked):
        return failed(session, asked.failure())
    target, engine, facts = asked.unwrap()
    page, total, next_offset = search(facts["classes"], args["query"], args["offset"], args.get("limit"))
    result = SearchResult(
        engine=engine,
        query=args["query"],
        total_classes=len(facts["classes"]),
        matches=tuple(page),
        coverage="complete",
        total_matches=total,
        next_offset=next_offset,
    )
    return _evidence(session, "search_android_classes", args, target, _androguard(engine), result)


def _class(args: Mapping[str, Any]) -> Facts:
    return (yield from _ask(args, "class", {"descriptor": class_descriptor(args["class_name"])}))


def inspect_android_class(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    asked = yield from _class(args)
    if not is_successful(asked):
        return failed(session, asked.failure())
    target, engine, facts = asked.unwrap()
    result = ClassResult(
        engine=engine,
        class_name=class_name(facts["descriptor"]),
        methods=tuple(method_rows(facts["descriptor"], facts["methods"])),
        fields=tuple(field_rows(facts["fields"])),
        inner_classes=tuple(class_name(c) for c in facts["inner_classes"]),
        dex_descriptor=facts["descriptor"],
        superclass=class_name(facts["superclass"]) if facts["superclass"] else None,
        interfaces=tuple(class_name(i) for i in facts["interfaces"]),
        access_flags=access_names(facts["access_flags"]),
    )
    return _evidence(session, "inspect_android_class", args, target, _androguard(engine), result)


def inspect_android_method(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    asked = yield from _class(args)
    if not is_successful(asked):
        return failed(session, asked.failure())
    target, engine, facts = asked.unwrap()
    rows = method_rows(facts["descriptor"], facts["methods"])
    chosen = select_overload(rows, facts["descriptor"], args["method_name"], args.get("overload_index"))
    if not is_successful(chosen):
        return failed(session, chosen.failure())
    row, count = chosen.unwrap()
    body = yield AndroidQuery(
        path=target.path,
        sha256=target.sha256,
        operation="method",
        params={
            "descriptor": facts["descriptor"],
            "method_name": row.name,
            "method_descriptor": row.dex_descriptor,
            "decompile": True,
        },
        limits=_limits(args),
    )
    if not is_successful(body):
        return failed(session, body.failure())
    code = body.unwrap()["facts"]
    result = method_result(engine, facts["descriptor"], row, count, code, args["max_source_chars"])
    return _evidence(session, "inspect_android_method", args, target, _androguard(engine), result)


def method_result(
    engine: Engine, owner: str, row: Any, count: int, code: Mapping[str, Any], limit: int
) -> MethodResult:
    """java when the decompiler answered, smali when it failed, not_available for abstract/native."""
    if not code["has_code"]:
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
    java = code["java"]
    fell_back = java is None
    markers = (f"decompiler-failed: {code['decompile_failure']}",) if fell_back else ("decompiler: androguard DAD",)
    return MethodResult(
        engine=engine,
        class_name=class_name(owner),
        method=row,
        overload_count=count,
        representation="smali" if fell_back else "java",
        body_status="available",
        fell_back=fell_back,
        markers=markers,
        source=text(code["smali"] if fell_back else java, limit),
        smali=text(code["smali"], limit),
    )


def trace_android_references(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    asked = yield from _class(args)
    if not is_successful(asked):
        return failed(session, asked.failure())
    target, engine, facts = asked.unwrap()
    params: dict[str, Any] = {"descriptor": facts["descriptor"], "method_name": None}
    if args.get("method_name") is not None:
        rows = method_rows(facts["descriptor"], facts["methods"])
        chosen = select_overload(rows, facts["descriptor"], args["method_name"], args.get("overload_index"))
        if not is_successful(chosen):
            return failed(session, chosen.failure())
        row = chosen.unwrap()[0]
        params = {**params, "method_name": row.name, "method_descriptor": row.dex_descriptor}
    refs = yield AndroidQuery(
        path=target.path, sha256=target.sha256, operation="references", params=params, limits=_limits(args)
    )
    if not is_successful(refs):
        return failed(session, refs.failure())
    rows_out = reference_rows(refs.unwrap()["facts"]["references"])
    result = ReferenceResult(
        engine=engine,
        class_name=class_name(facts["descriptor"]),
        method_name=args.get("method_name"),
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


def inspect_apktool_client(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    probe = yield ProbeClient(tool="apktool")
    if not is_successful(probe):
        return failed(session, probe.failure())
    client = apktool_client(probe.unwrap())
    provider = Provider(id="apktool", name="Apktool", version=client.apktool_version)
    return _client_evidence(session, "inspect_apktool_client", provider, ApktoolClientResult(client=client))


def inspect_adb_client(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    probe = yield ProbeClient(tool="adb")
    if not is_successful(probe):
        return failed(session, probe.failure())
    client = adb_client(probe.unwrap())
    provider = Provider(id="adb", name="Android Debug Bridge", version=client.version)
    return _client_evidence(
        session, "inspect_adb_client", provider, AdbClientResult(client=client, contacted_adb_server=False)
    )


def decode_android_resources(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    probe = yield ProbeClient(tool="apktool")
    if not is_successful(probe):
        return failed(session, probe.failure())
    client = apktool_client(probe.unwrap())
    identified = yield IdentifyTarget(path=args["path"])
    if not is_successful(identified):
        return failed(session, identified.failure())
    target: TargetFacts = identified.unwrap()
    if target.kind != "file":
        return failed(
            session, invalid_request(f"{args['path']} is a directory", field="path", accepted="a local APK file")
        )
    decoded = yield DecodeResources(
        command=client.command,
        path=target.path,
        locale=args.get("locale"),
        include_strings=args["include_strings"],
        max_manifest_bytes=args["max_manifest_bytes"],
        deadline_ms=args["deadline_ms"],
    )
    if not is_successful(decoded):
        return failed(session, decoded.failure())
    where = DecodeTarget(path=target.path, bytes=target.size, sha256=target.sha256)
    result, limitations = decode_result(
        client, where, decoded.unwrap(), locale=args.get("locale"), max_strings=args["max_strings"]
    )
    provider = Provider(id="apktool", name="Apktool", version=client.apktool_version)
    return _evidence(session, "decode_android_resources", args, target, provider, result, limitations)


PROJECTION_PROVIDER = Provider(
    id="rea-android-projection", name="REA Android application projection", version=__version__
)


def _inventory_of(session: Session, value: Any, field: str) -> Result[tuple[Evidence, dict[str, Any]], ReaError]:
    """An inventory page: inventory_artifact Evidence, or the complete inventory inside inspect_artifact's."""
    found = resolve(session, value, field)
    if not is_successful(found):
        return Failure(found.failure())
    evidence: Evidence = found.unwrap()
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
    found = resolve(session, value, "package_evidence")
    if not is_successful(found):
        return Failure(found.failure())
    evidence: Evidence = found.unwrap()
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


def _scan(subject: Subject | None, root_sha256: str, args: Mapping[str, Any]) -> Scan:
    """The bridge calls of every DEX, from the APK the inventory was made of (same digest), or why not."""
    if subject is None or subject.local_path is None:
        return None, "the inventory names no local APK path"
    identified = yield IdentifyTarget(path=subject.local_path)
    if not is_successful(identified):
        return None, f"{subject.local_path} is not readable now ({identified.failure().code})"
    target: TargetFacts = identified.unwrap()
    if target.sha256 != root_sha256:
        return None, f"{subject.local_path} changed since the inventory (its SHA-256 differs)"
    answer = yield AndroidQuery(
        path=target.path,
        sha256=target.sha256,
        operation="bridges",
        params={"max_calls": args["max_bridge_calls"]},
        limits=_limits(args),
    )
    if not is_successful(answer):
        return None, f"the DEX scan failed: {answer.failure().message}"
    return answer.unwrap()["facts"], None


def project_android_application_graph(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    pages = []
    for i, value in enumerate(args["inventory_evidence"]):
        page = _inventory_of(session, value, f"inventory_evidence[{i}]")
        if not is_successful(page):
            return failed(session, page.failure())
        pages.append(page.unwrap())
    manifests = {inv["manifest"]["manifest_id"] for _, inv in pages}
    if len(manifests) != 1:
        return failed(session, invalid_request("the pages come from different inventories", field="inventory_evidence"))
    first = pages[0][1]["manifest"]
    if first["root_format"] != "apk":
        return failed(
            session,
            invalid_request(
                f"the inventory's root is {first['root_format']}",
                field="inventory_evidence",
                accepted="an APK's inventory",
            ),
        )
    package = _package_of(session, args.get("package_evidence"), first["root_sha256"])
    if not is_successful(package):
        return failed(session, package.failure())
    package_evidence = package.unwrap()
    ids = [e.evidence_id for e, _ in pages]
    scan, reason = yield from _scan(pages[0][0].subject, first["root_sha256"], args)
    result = project(
        [inv for _, inv in pages],
        ids,
        None if package_evidence is None else package_evidence.normalized_result,
        None if package_evidence is None else package_evidence.evidence_id,
        args["max_bridge_candidates"],
        scan=scan,
        scan_reason=reason,
    )
    links = sorted({*ids, *([package_evidence.evidence_id] if package_evidence else [])})
    built = create_evidence(
        provider=PROJECTION_PROVIDER,
        operation="project_android_application_graph",
        parameters={
            "max_bridge_candidates": args["max_bridge_candidates"],
            "max_bridge_calls": args["max_bridge_calls"],
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
