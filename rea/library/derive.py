"""A derived tool (a comparison or a view) run as a plain function.

The library answers with the very program the MCP server runs for the tool,
gated and checkpointed the same way, over a session that holds only the records
the caller handed in. So a library answer and a tool answer cannot drift: they
are one computation. The program never asks for IO (a derived tool only yields
progress), and the driver refuses any other effect rather than perform it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs
from returns.result import Failure, Result

from rea import __version__
from rea.budget import DEFAULT_MAX_RESPONSE_BYTES
from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence, parse_evidence
from rea.program import Context, Outcome, ReportProgress, ServerFacts, crashed
from rea.results import all_of
from rea.session import Session

# what a program may read of its caller; a derived tool reads none of it, the availability gate its features
LIBRARY_CONTEXT = Context(
    server=ServerFacts(
        package="rea-py", version=__version__, sdk_version="", server_path="", started_at="", transport="library"
    ),
    max_response_bytes=DEFAULT_MAX_RESPONSE_BYTES,
)
EvidenceInput = Evidence | Mapping[str, Any]


def wire(value: Any) -> Any:
    """Evidence records in an argument (at the top, in a list, or one level into an object) as their wire JSON."""
    if isinstance(value, Evidence):
        return value.to_json()
    if isinstance(value, (list, tuple)):
        return [wire(v) for v in value]
    if isinstance(value, Mapping) and "normalized_result" not in value:
        return {k: v.to_json() if isinstance(v, Evidence) else v for k, v in value.items()}
    return value


def retained_session(records: Iterable[EvidenceInput], field: str = "retained") -> Result[Session, ReaError]:
    """A session holding exactly these records, each parsed strictly (its id recomputed)."""
    parsed = all_of(parsed_at(record, f"{field}[{index}]") for index, record in enumerate(records))
    return parsed.map(_ledger)


def parsed_at(record: Any, where: str) -> Result[Evidence, ReaError]:
    """One record parsed strictly; its error names where it was given (`field`)."""
    return parse_evidence(wire(record)).alt(lambda error: error.with_details(field=where))


def _ledger(records: list[Evidence]) -> Session:
    """A session of these records, in order; a record given twice is held once."""
    held: dict[str, Evidence] = {}
    for evidence in records:
        held.setdefault(evidence.evidence_id, evidence)
    return Session(evidence=held)


def _needs_io(effect: Any, tool: str) -> ReaError:
    return ReaError(
        code="capability_unavailable",
        message=f"{tool} asked for {type(effect).__name__}, which the pure library does not perform.",
        details={"tool": tool, "effect": type(effect).__name__},
        action="Call the tool through the MCP server or the rea CLI.",
    )


def _drive(tool: str, program: Callable[..., Any], session: Session, args: Mapping[str, Any]) -> Result[Any, ReaError]:
    """Run the program to its reply, answering progress with nothing; a raise becomes the server's
    execution_failure, any other effect a refusal."""
    phase = "starting"
    try:
        steps = program(session, args, LIBRARY_CONTEXT)
        if isinstance(steps, Outcome):  # refused before it started, or a plain function
            return steps.reply
        effect = next(steps)
        while isinstance(effect, ReportProgress):
            phase = effect.phase
            effect = steps.send(None)
    except StopIteration as stop:
        outcome: Outcome = stop.value
        return outcome.reply
    except Exception as exc:  # as the interpreter does: a program bug is an answer, not a crash
        return Failure(crashed(phase, exc))
    steps.close()
    return Failure(_needs_io(effect, tool))


def derive(tool: str, arguments: Any, retained: Iterable[EvidenceInput] = ()) -> Result[Evidence, ReaError]:
    """The Evidence `tool` answers to `arguments` (its JSON argument object or its typed *Args record, validated
    and defaulted exactly as the server does) in a session retaining `retained`; or the error it answers with."""
    from rea.catalog import BY_NAME
    from rea.validation import validate_arguments
    from rea.wire.convert import to_wire, with_defaults
    from rea.workflows.table import DERIVED, PROGRAMS

    if tool not in DERIVED:
        return Failure(
            invalid_request(f"{tool} is not a derived tool the library runs", field="tool", accepted=", ".join(DERIVED))
        )
    contract = BY_NAME[tool]
    session = retained_session(retained)
    given = to_wire(arguments) if attrs.has(type(arguments)) else arguments
    checked = validate_arguments(tool, contract.input_schema, wire(given) if isinstance(given, Mapping) else given)
    filled = checked.bind(lambda args: with_defaults(args, contract.args_type))
    reply = session.bind(lambda held: filled.bind(lambda args: _drive(tool, PROGRAMS[tool], held, args)))
    return reply.bind(parse_evidence)
