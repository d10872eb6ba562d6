"""Programs of the artifact graph family. Readers are effects; graph, comparison and views are pure."""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping

from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from rea import __version__
from rea.artifacts.compare import compare_artifacts as compare_pure
from rea.artifacts.graph import SECTIONS, build_inventory, page_inventory
from rea.artifacts.model import ExtractArtifact, InventoryArtifact, limits_from
from rea.errors import ReaError, invalid_request
from rea.evidence import SUBJECT_FORMATS, Evidence, Provider, Subject, create_evidence, create_profile
from rea.program import Context, Outcome, Program, ReportProgress
from rea.workflows.views import view_evidence
from rea.session import Session, record, resolve

ARTIFACT_PROVIDER = Provider(id="rea-artifacts", name="REA artifact graph", version=__version__)
PROFILE_SCHEMA = 1
NEXT_PROBES = {
    "apk": ("inspect_analysis_view", "page the occurrences for classes*.dex and lib/*/*.so, then analyse them"),
    "asar": ("inspect_analysis_view", "page the occurrences for package.json and the main script"),
    "ipa": ("inspect_analysis_view", "find Payload/*.app and its Mach-O executable"),
    "aab": ("inspect_analysis_view", "page the occurrences for base/dex/*.dex and base/lib/*/*.so, then analyse them"),
    "aar": ("inspect_analysis_view", "page the occurrences for classes.jar and jni/*/*.so"),
    "whl": ("inspect_analysis_view", "read *.dist-info/METADATA and RECORD, then the compiled extension modules"),
    "crx": ("inspect_analysis_view", "page the occurrences for manifest.json and its background and content scripts"),
}


def _fail(session: Session, error: ReaError) -> Outcome:
    return Outcome(session=session, reply=Failure(error))


def _no_target() -> ReaError:
    return ReaError(
        code="target_unavailable",
        message="No target is open. Call open_binary with the archive, package or directory path first.",
        details={"reason": "no_active_target"},
        action="Call open_binary with a local path, then call this tool again.",
    )


def _subject(session: Session) -> Subject:
    t = session.target
    assert t is not None
    return Subject(
        name=t.name,
        sha256=t.sha256,
        format=t.format if t.format in SUBJECT_FORMATS else "unknown",
        architecture=None,
        local_path=t.path,
    )


def _settings(args: Mapping[str, Any]) -> tuple[Any, str]:
    return limits_from(args), args.get("integrity_policy", "fail")


def _profile(limits: Any, policy: str):
    return create_profile(ARTIFACT_PROVIDER, PROFILE_SCHEMA, {"limits": limits.to_json(), "integrity_policy": policy})


def _evidence(
    operation: str,
    parameters: Mapping[str, Any],
    result: Any,
    *,
    subject: Subject | None,
    profile: Any = None,
    confidence: str = "observed",
    limitations: list[str] | tuple[str, ...] = (),
    links: list[str] | tuple[str, ...] = (),
) -> Result[Evidence, ReaError]:
    return create_evidence(
        provider=ARTIFACT_PROVIDER,
        operation=operation,
        parameters=parameters,
        normalized_result=result,
        subject=subject,
        analysis_profile=profile,
        confidence=confidence,
        limitations=list(limitations),
        evidence_links=list(links),
    )


def _inventory(session: Session, args: Mapping[str, Any]):
    """Shared: run the reader on the active target and build the complete graph."""
    limits, policy = _settings(args)
    if session.target is None:
        return Failure(_no_target())
    yield ReportProgress(phase="inventorying artifact", message=f"reading {session.target.path}")
    target = session.target
    facts = yield InventoryArtifact(
        path=target.path, limits=limits, integrity_policy=policy, known_sha256=target.sha256, known_size=target.size
    )
    if not is_successful(facts):
        return facts
    return Success(build_inventory(facts.unwrap(), limits))


def inventory_artifact(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    built = yield from _inventory(session, args)
    if not is_successful(built):
        return _fail(session, built.failure())
    complete = built.unwrap()
    windows = {
        "nodes": (args.get("node_offset", 0), args.get("node_limit", 100)),
        "occurrences": (args.get("occurrence_offset", 0), args.get("occurrence_limit", 100)),
        "edges": (args.get("edge_offset", 0), args.get("edge_limit", 100)),
        "integrity_contradictions": (args.get("contradiction_offset", 0), args.get("contradiction_limit", 100)),
    }
    result = page_inventory(complete, windows)
    limits, policy = _settings(args)
    evidence = _evidence(
        "inventory_artifact",
        dict(args),
        result,
        subject=_subject(session),
        profile=_profile(limits, policy),
        limitations=result["limitations"],
    )
    if not is_successful(evidence):
        return _fail(session, evidence.failure())
    return Outcome(session=record(session, [evidence.unwrap()]), reply=Success(evidence.unwrap().to_json()))


def _observations(complete: Mapping[str, Any]) -> dict[str, Any]:
    kinds: dict[str, int] = {}
    for o in complete["occurrences"]:
        kinds[o["entry_kind"]] = kinds.get(o["entry_kind"], 0) + 1
    categories: dict[str, int] = {}
    for n in complete["nodes"]:
        categories[n["kind"]] = categories.get(n["kind"], 0) + 1
    return {
        "entry_kinds": dict(sorted(kinds.items())),
        "artifact_kinds": dict(sorted(categories.items())),
        "executables": sum(1 for o in complete["occurrences"] if o["executable"]),
        "nested_containers": sum(1 for n in complete["nodes"][1:] if n["kind"] == "container"),
    }


def inspect_artifact(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    built = yield from _inventory(session, args)
    if not is_successful(built):
        return _fail(session, built.failure())
    complete = built.unwrap()
    limits, policy = _settings(args)
    profile = _profile(limits, policy)
    subject = _subject(session)
    inventory = page_inventory(complete, {})
    settings = {k: v for k, v in args.items() if k != "detail"}
    inv_ev = _evidence(
        "inventory_artifact",
        settings,
        inventory,
        subject=subject,
        profile=profile,
        limitations=inventory["limitations"],
    )
    if not is_successful(inv_ev):
        return _fail(session, inv_ev.failure())
    inv_ev = inv_ev.unwrap()
    manifest = complete["manifest"]
    probe = NEXT_PROBES.get(manifest["root_format"])
    result = {
        "schema_version": 1,
        "subject": {
            "manifest_id": manifest["manifest_id"],
            "root_artifact_id": manifest["root_artifact_id"],
            "root_format": manifest["root_format"],
            "root_sha256": manifest["root_sha256"],
        },
        "inventory": inventory,
        "inventory_evidence_ids": [inv_ev.evidence_id],
        "observations": _observations(complete),
        "contradictions": complete["integrity_contradictions"],
        "next_probes": [] if probe is None else [{"operation": probe[0], "rationale": probe[1]}],
        "coverage": complete["coverage"],
        "coverage_status": complete["coverage_status"],
        "limitations": complete["limitations"],
    }
    inspection = _evidence(
        "inspect_artifact",
        settings,
        result,
        subject=subject,
        profile=profile,
        limitations=complete["limitations"],
        links=[inv_ev.evidence_id],
    )
    if not is_successful(inspection):
        return _fail(session, inspection.failure())
    inspection = inspection.unwrap()
    retained = record(session, [inv_ev, inspection])
    if args.get("detail", "complete") == "complete":
        return Outcome(session=retained, reply=Success(inspection.to_json()))
    view = view_evidence(inspection, {"kind": "summary"})
    if not is_successful(view):
        return _fail(session, view.failure())
    return Outcome(session=record(retained, [view.unwrap()]), reply=Success(view.unwrap().to_json()))


def _chains(complete: Mapping[str, Any]) -> dict[str, tuple[tuple[str, ...], Mapping[str, Any]]]:
    by_id = {o["occurrence_id"]: o for o in complete["occurrences"]}
    chains: dict[str, tuple[tuple[str, ...], Mapping[str, Any]]] = {}
    for occ in complete["occurrences"]:
        parts: list[str] = []
        current = occ
        while current["parent_occurrence_id"] is not None:
            parts.append(current["logical_path"])
            current = by_id[current["parent_occurrence_id"]]
        chains[occ["occurrence_id"]] = (tuple(reversed(parts)), occ)
    return chains


def extract_artifact(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    built = yield from _inventory(session, args)
    if not is_successful(built):
        return _fail(session, built.failure())
    complete = built.unwrap()
    chains = _chains(complete)
    selected: list[tuple[str, tuple[str, ...], Mapping[str, Any]]] = []
    for occ_id in args["occurrence_ids"]:
        found = chains.get(occ_id)
        if found is None:
            return _fail(
                session,
                invalid_request(
                    f"{occ_id} is not an occurrence of the active target's inventory (manifest "
                    f"{complete['manifest']['manifest_id']})",
                    field="occurrence_ids",
                    accepted="occ_ ids from inventory_artifact or inspect_artifact on the active target",
                ),
            )
        chain, occ = found
        if occ["entry_kind"] != "file" or not chain:
            return _fail(
                session,
                invalid_request(
                    f"{'/'.join(chain) or occ['logical_path']} is a {occ['entry_kind'] if chain else 'root'} occurrence; "
                    "only regular-file members are extracted (symlinks and directories are never materialized)",
                    field="occurrence_ids",
                    accepted="occurrences with entry_kind file inside the target",
                ),
            )
        if occ["unpacked"] and occ["hash_status"] == "unavailable":
            return _fail(
                session,
                ReaError(
                    code="target_unavailable",
                    message=f"{'/'.join(chain)} is an ASAR unpacked entry whose companion file in .asar.unpacked is "
                    "absent, so it cannot be extracted.",
                    details={"logical_path": "/".join(chain), "occurrence_id": occ_id},
                    action="Restore the app.asar.unpacked directory beside the archive, then retry.",
                ),
            )
        selected.append((occ_id, chain, occ))
    limits, policy = _settings(args)
    yield ReportProgress(phase="extracting artifact", message=f"{len(selected)} file(s)")
    produced = yield ExtractArtifact(
        path=session.target.path,
        chains=tuple(c for _, c, _ in selected),
        limits=limits,
        integrity_policy=policy,
        known_sha256=session.target.sha256,
        known_size=session.target.size,
    )
    if not is_successful(produced):
        return _fail(session, produced.failure())
    _facts, extraction = produced.unwrap()
    written = {f.chain: f for f in extraction.files}
    files = []
    for occ_id, chain, occ in selected:
        f = written.get(chain)
        if f is None:
            hits = [h for h in complete["limit_hits"] if h["logical_path"] == "/".join(chain)]
            return _fail(
                session,
                ReaError(
                    code="truncated" if hits else "artifact_operation_failed",
                    message=f"{'/'.join(chain)} was not materialized"
                    + (
                        f": limit {hits[0]['limit']} ({hits[0]['message']})"
                        if hits
                        else ": its bytes could not be read (see the inventory limitations)"
                    ),
                    details={
                        "logical_path": "/".join(chain),
                        "occurrence_id": occ_id,
                        **({"limit": hits[0]["limit"], "value": hits[0]["value"]} if hits else {}),
                    },
                ),
            )
        files.append(
            {
                "occurrence_id": occ_id,
                "artifact_id": occ["artifact_id"],
                "logical_path": "!/".join(chain),
                "relative_path": f.relative_path,
                "sha256": f.sha256,
                "bytes_written": f.bytes_written,
            }
        )
    selected_ids = {s[0] for s in selected}
    contradictions = [c for c in complete["integrity_contradictions"] if c["occurrence_id"] in selected_ids]
    result = {
        "manifest_id": complete["manifest"]["manifest_id"],
        "output_root": extraction.output_root,
        "files": files,
        "containment_verified": extraction.containment_verified,
        "integrity_contradictions": contradictions,
        "limits": limits.to_json(),
        "limitations": (
            ["Files were written from observed bytes that contradict declared integrity hashes."]
            if contradictions
            else []
        ),
    }
    evidence = _evidence(
        "extract_artifact",
        dict(args),
        result,
        subject=_subject(session),
        profile=_profile(limits, policy),
        limitations=result["limitations"],
    )
    if not is_successful(evidence):
        return _fail(session, evidence.failure())
    return Outcome(session=record(session, [evidence.unwrap()]), reply=Success(evidence.unwrap().to_json()))


def _resolve_side(session: Session, value: Any, field: str) -> Result[list[Evidence], ReaError]:
    values = value if isinstance(value, list) else [value]
    out = []
    for i, item in enumerate(values):
        got = resolve(session, item, field if not isinstance(value, list) else f"{field}[{i}]")
        if not is_successful(got):
            return got
        out.append(got.unwrap())
    return Success(out)


def compare_artifacts(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    sides = []
    for field in ("left", "right"):
        got = _resolve_side(session, args[field], field)
        if not is_successful(got):
            return _fail(session, got.failure())
        sides.append(got.unwrap())
    compared = compare_pure(sides[0], sides[1], args.get("offset", 0), args.get("limit", 100))
    if not is_successful(compared):
        return _fail(session, compared.failure())
    result = compared.unwrap()
    links = list(dict.fromkeys(e.evidence_id for side in sides for e in side))
    params = {
        "left": [e.evidence_id for e in sides[0]],
        "right": [e.evidence_id for e in sides[1]],
        "offset": args.get("offset", 0),
        "limit": args.get("limit", 100),
    }
    evidence = _evidence(
        "compare_artifacts",
        params,
        result,
        subject=None,
        confidence="derived",
        limitations=result["limitations"],
        links=links,
    )
    if not is_successful(evidence):
        return _fail(session, evidence.failure())
    return Outcome(
        session=record(session, [*sides[0], *sides[1], evidence.unwrap()]), reply=Success(evidence.unwrap().to_json())
    )


PROGRAMS = {
    "inspect_artifact": inspect_artifact,
    "inventory_artifact": inventory_artifact,
    "extract_artifact": extract_artifact,
    "compare_artifacts": compare_artifacts,
}
assert set(SECTIONS) == {"nodes", "occurrences", "edges", "integrity_contradictions"}
