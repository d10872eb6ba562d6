"""Programs of the managed (.NET) family: one reader effect, then pure derivation of each result."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any, TypeVar

import attrs
from returns.result import Failure, Result, Success

from rea import __version__
from rea.effect_types import AnyEffect, Program, ToolProgram
from rea.errors import ReaError, invalid_request, missing_evidence
from rea.evidence import Evidence, Provider, Subject, create_evidence, create_profile
from rea.managed import retained_results
from rea.managed.artifact import PE_ARCHITECTURES, artifact_result, managed_architecture
from rea.managed.boundaries import boundaries_result
from rea.managed.compare import compare
from rea.managed.facts import AssemblyFacts, ManagedLimits, ReadManagedAssembly
from rea.managed.members import members_result
from rea.managed.records import artifact as w
from rea.managed.records.compare import CompareArgs, ComparisonResult
from rea.managed.records.graph import GraphResult
from rea.managed.records.verification import VerificationResult
from rea.program import Context, Outcome, must, need, refusable, refuse, typed
from rea.session import Session, record, summary_parent
from rea.views.programs import deliver
from rea.wire.convert import to_wire

MANAGED_PROVIDER = Provider(id="rea-managed", name="REA managed metadata (dnfile, dncil)", version=__version__)
PROFILE_SCHEMA = 1


def _no_target() -> ReaError:
    return ReaError(
        code="target_unavailable",
        message="No managed target: pass path, or call open_binary with a .NET assembly first.",
        details={"reason": "no_active_target"},
        action="Call this tool with an absolute path to a .dll or .exe, or open_binary it first.",
    )


def limits_from(args: w.TargetArgs) -> ManagedLimits:
    """The reader's limits: those of the tool's arguments (members reads two more than the others)."""
    return ManagedLimits(**{name: getattr(args, name) for name in w.LIMIT_BOUNDS if hasattr(args, name)})


def _unsupported_machine(facts: AssemblyFacts) -> ReaError:
    machine = facts.pe.machine if facts.pe else 0
    return ReaError(
        code="invalid_request",
        message=f"{facts.path} is a PE image for machine 0x{machine:04x}, which no managed runtime targets.",
        details={"field": "path", "machine": f"0x{machine:04x}", "accepted": "x86, x86_64, arm or arm64 PE images"},
    )


def read_facts(
    session: Session, args: w.TargetArgs, bodies: bool = False
) -> Generator[AnyEffect, Any, tuple[AssemblyFacts, w.PeArchitecture]]:
    """The explicit path or the open target, read once by the reader effect (a program step: a target
    that cannot be read ends the program)."""
    path = args.path or (session.target.path if session.target is not None else None)
    if path is None:
        refuse(_no_target())
    found: AssemblyFacts = yield from need(ReadManagedAssembly(path=path, limits=limits_from(args), bodies=bodies))
    architecture = PE_ARCHITECTURES.get(found.pe.machine) if found.pe else None
    if architecture is None:
        refuse(_unsupported_machine(found))
    return found, architecture


def subject_architecture(facts: AssemblyFacts, architecture: w.PeArchitecture) -> str | None:
    """The architecture the code runs as: none for AnyCPU (IL-only, 32 bits not required), which runs as the
    host process's architecture; the COFF machine (pe.architecture) stays what the header says."""
    if managed_architecture(facts.cli, architecture) in ("anycpu", "anycpu-prefer-32"):
        return None
    return architecture


def evidence(
    operation: str, args: w.TargetArgs, facts: AssemblyFacts, architecture: w.PeArchitecture, result: Any
) -> Result[Evidence, ReaError]:
    subject = Subject(
        name=posixpath.basename(facts.path) or facts.path,
        sha256=facts.sha256,
        format="pe",
        architecture=subject_architecture(facts, architecture),
        local_path=facts.path,
    )
    profile = create_profile(MANAGED_PROVIDER, PROFILE_SCHEMA, {"limits": limits_from(args).to_json()})
    wire = to_wire(result)
    return create_evidence(
        provider=MANAGED_PROVIDER,
        operation=operation,
        # delivery detail never reaches the reader, so the Evidence id is the same either way
        parameters={k: v for k, v in to_wire(args).items() if k != "detail"},
        normalized_result=wire,
        subject=subject,
        analysis_profile=profile,
        limitations=list(wire["limitations"]),
    )


def reply(session: Session, made: Result[Evidence, ReaError]) -> Outcome:
    """Retain the record and answer with it (a program step: a record that could not be made ends it)."""
    evidence = must(made)
    return Outcome(session=record(session, [evidence]), reply=Success(evidence.to_json()))


def _tool(operation: str, build: Callable[[AssemblyFacts, Any, Any], Any], bodies: bool) -> ToolProgram:
    @typed
    @refusable
    def read_then_build(session: Session, args: w.TargetArgs, ctx: Context) -> Program:
        facts, architecture = yield from read_facts(session, args, bodies)
        made = must(evidence(operation, args, facts, architecture, build(facts, architecture, args)))
        return deliver(session, made, getattr(args, "detail", "complete"))

    read_then_build.__name__ = operation
    return read_then_build


Args = TypeVar("Args")


def by_parent(session: Session, args: Args) -> Args:
    """The argument record with every retained summary view id replaced by the id of the record it summarizes,
    so a `detail: summary` id stands for its parent and either spelling records the same call."""

    def parent(value: Any) -> Any:
        if isinstance(value, str) and value in session.evidence:
            return summary_parent(session.evidence[value]) or value
        if isinstance(value, tuple) and all(isinstance(v, str) for v in value):
            return tuple(parent(v) for v in value)
        return value

    fields = attrs.fields(type(args))  # type: ignore[arg-type]
    return attrs.evolve(args, **{f.alias: parent(getattr(args, f.name)) for f in fields})  # type: ignore[misc]


def retained(
    session: Session, evidence_id: str, field: str, operations: Sequence[str] | None = None
) -> Result[Evidence, ReaError]:
    """A retained Evidence record, of one of `operations` when given (else invalid_request naming the field)."""
    found = session.evidence.get(evidence_id)
    if found is None:
        return Failure(missing_evidence(evidence_id))
    if operations is not None and found.operation not in operations:
        names = " or ".join(operations)
        return Failure(
            invalid_request(
                f"{field} names {found.operation} Evidence; this tool reads {names} Evidence",
                field=field,
                accepted=f"the evidence_id of retained {names} Evidence",
            )
        )
    return Success(found)


def derived_evidence(
    operation: str, args: Any, result: ComparisonResult | GraphResult | VerificationResult, links: Sequence[str]
) -> Result[Evidence, ReaError]:
    """Evidence derived from retained Evidence only (its parameters the argument record's JSON): no subject,
    `derived`, linked to its inputs; the result record becomes JSON here, at the edge."""
    return create_evidence(
        provider=MANAGED_PROVIDER,
        operation=operation,
        parameters=to_wire(args),
        normalized_result=to_wire(result),
        subject=None,
        confidence="derived",
        limitations=list(result.limitations),
        evidence_links=list(links),
    )


@typed
@refusable
def compare_managed_members(session: Session, args: CompareArgs, ctx: Context) -> Outcome:
    args = by_parent(session, args)
    left = must(retained(session, args.left_evidence_id, "left_evidence_id", ["inspect_managed_members"]))
    right = must(retained(session, args.right_evidence_id, "right_evidence_id", ["inspect_managed_members"]))
    result = compare(left.evidence_id, retained_results.compared(left.normalized_result),
                     right.evidence_id, retained_results.compared(right.normalized_result), args.limits)  # fmt: skip
    made = derived_evidence("compare_managed_members", args, result, [left.evidence_id, right.evidence_id])
    return reply(session, made)


PROGRAMS: Mapping[str, ToolProgram] = {
    "inspect_managed_artifact": _tool("inspect_managed_artifact", artifact_result, bodies=False),
    "inspect_managed_members": _tool("inspect_managed_members", members_result, bodies=True),
    "inspect_managed_native_boundaries": _tool("inspect_managed_native_boundaries", boundaries_result, bodies=False),
    "compare_managed_members": compare_managed_members,
}
