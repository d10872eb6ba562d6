"""Managed programs over retained Evidence: native-boundary verification, the application graph (no IO)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from returns.result import Failure, Result, Success

from rea.effect_types import ToolProgram
from rea.errors import ReaError, invalid_request
from rea.evidence import create_evidence
from rea.managed import retained_results
from rea.managed.graph import Source, inventory_row, project
from rea.managed.native_symbols import extract
from rea.managed.programs import MANAGED_PROVIDER, by_parent, derived_evidence, reply, retained
from rea.managed.reconstruction import reconstruction
from rea.managed.records.graph import GraphArgs
from rea.managed.records.reconstruction import ReconstructionArgs
from rea.managed.records.verification import VerifyArgs
from rea.managed.verify import verify
from rea.program import Context, Outcome, failed, must, refusable, refuse, typed
from rea.session import Session
from rea.wire.convert import to_wire


def _distinct(managed_id: str, native_ids: Sequence[str]) -> Result[None, ReaError]:
    """No native id repeats another or the managed one (a repeat would count one observation twice)."""
    seen = {managed_id}
    for index, evidence_id in enumerate(native_ids):
        if evidence_id in seen:
            what = "the managed boundary Evidence" if evidence_id == managed_id else "an earlier native observation"
            return Failure(
                invalid_request(
                    f"native_observation_evidence_ids[{index}] repeats {what}",
                    field=f"native_observation_evidence_ids[{index}]",
                    accepted="distinct native Evidence ids, none of them the managed boundaries Evidence",
                )
            )
        seen.add(evidence_id)
    return Success(None)


@typed
@refusable
def verify_managed_native_boundaries(session: Session, args: VerifyArgs, ctx: Context) -> Outcome:
    args = by_parent(session, args)
    managed_id, native_ids = args.managed_boundaries_evidence_id, list(args.native_observation_evidence_ids)
    must(_distinct(managed_id, native_ids))
    managed = must(
        retained(session, managed_id, "managed_boundaries_evidence_id", ["inspect_managed_native_boundaries"])
    )
    read = native_ids[: args.limits.max_native_observations]
    records = [must(retained(session, evidence_id, "native_observation_evidence_ids")) for evidence_id in read]
    result = verify(managed_id, retained_results.boundaries(managed.normalized_result),
                    [(r, extract(r)) for r in records], len(native_ids), args.limits)  # fmt: skip
    return reply(session, derived_evidence("verify_managed_native_boundaries", args, result, result.evidence_links))


_GRAPH_SOURCES = {
    "artifact": ("managed_artifact_evidence_id", "inspect_managed_artifact"),
    "members": ("managed_members_evidence_id", "inspect_managed_members"),
    "boundaries": ("managed_native_boundaries_evidence_id", "inspect_managed_native_boundaries"),
}
_INVENTORIES = ["inventory_artifact", "inspect_artifact"]


def _graph_sources(session: Session, args: GraphArgs) -> dict[str, Source | None]:
    """The retained records the graph is projected from, by role (a program step: a missing or wrong
    record ends the program)."""
    named = {k: getattr(args, f) for k, (f, _) in _GRAPH_SOURCES.items()}
    if not any(named.values()):
        refuse(invalid_request(
            "project_managed_application_graph needs at least one managed Evidence id",
            field="managed_artifact_evidence_id",
            accepted="managed_artifact_evidence_id, managed_members_evidence_id or managed_native_boundaries_evidence_id",
        ))  # fmt: skip
    wanted = {k: (f, [op]) for k, (f, op) in _GRAPH_SOURCES.items()} | {
        "inventory": ("inventory_evidence_id", _INVENTORIES)
    }
    out: dict[str, Source | None] = {}
    for key, (field, operations) in wanted.items():
        evidence_id = getattr(args, field)
        if evidence_id is None:
            out[key] = None
            continue
        e = must(retained(session, evidence_id, field, operations))
        out[key] = Source(evidence_id=e.evidence_id, operation=e.operation, result=e.normalized_result)
    return out


def _same_artifact(sources: Mapping[str, Source | None]) -> Result[None, ReaError]:
    """The managed records describe one assembly (a graph of two files would join unrelated members)."""
    digests = {k: s.result["artifact"]["sha256"] for k, s in sources.items() if s is not None and k != "inventory"}
    if len(set(digests.values())) > 1:
        return Failure(
            invalid_request(
                "the managed Evidence ids describe different files: "
                + ", ".join(f"{k} {d}" for k, d in digests.items()),
                field=_GRAPH_SOURCES[sorted(digests)[-1]][0],
                accepted="Evidence of one assembly (the same artifact SHA-256)",
            )
        )
    return Success(None)


@typed
@refusable
def project_managed_application_graph(session: Session, args: GraphArgs, ctx: Context) -> Outcome:
    args = by_parent(session, args)
    sources = _graph_sources(session, args)
    must(_same_artifact(sources))
    sha256 = next(s for k, s in sources.items() if s is not None and k != "inventory").result["artifact"]["sha256"]
    inventory, row = sources["inventory"], None
    if inventory is not None:
        row = inventory_row(inventory.result, sha256)
        if row is None:
            return failed(session, invalid_request(
                f"inventory_evidence_id lists no file with SHA-256 {sha256}", field="inventory_evidence_id",
                accepted="inventory_artifact Evidence of the assembly or of a container holding it",
            ))  # fmt: skip
    result = project(sources, row, args.limits)
    return reply(session, derived_evidence("project_managed_application_graph", args, result,
                                           result.evidence_links))  # fmt: skip


@typed
@refusable
def import_managed_reconstruction(session: Session, args: ReconstructionArgs, ctx: Context) -> Outcome:
    args = by_parent(session, args)
    members = must(retained(session, args.static_members_evidence_id, "static_members_evidence_id",
                            ["inspect_managed_members"]))  # fmt: skip
    parameters = to_wire(args)
    result = must(reconstruction(members.evidence_id, retained_results.members(members.normalized_result), args))
    wire = to_wire(result)
    made = create_evidence(
        provider=MANAGED_PROVIDER,
        operation="import_managed_reconstruction",
        parameters=parameters,
        normalized_result=wire,
        subject=members.subject,
        predicate_type="rea.managed-reconstruction-import",
        confidence="inferred",
        authority="analyst-inference",
        limitations=list(wire["limitations"]),
        locations=[{"kind": "artifact-path", "path": result.static_observation.artifact_path}],
        evidence_links=[members.evidence_id],
    )
    return reply(session, made)


PROGRAMS: Mapping[str, ToolProgram] = {
    "verify_managed_native_boundaries": verify_managed_native_boundaries,
    "project_managed_application_graph": project_managed_application_graph,
    "import_managed_reconstruction": import_managed_reconstruction,
}
