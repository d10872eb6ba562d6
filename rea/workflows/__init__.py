"""Workflow programs, named by each family (rea.families); PROGRAMS maps every catalog tool to its program.

Every program is gated by the availability rule (rea.catalog.availability) before it runs, so a
call is refused for its target exactly when binary_session reports the tool unavailable, with the
same reason and remediation.
"""

import importlib
from typing import Any
from collections.abc import Callable, Mapping

from returns.pipeline import is_successful

from rea.catalog import BY_NAME
from rea.catalog.availability import refusal, target_state, verdict
from rea.catalog.contract import ToolContract
from rea.families import FAMILIES
from rea.program import Context, Outcome, failed, reads_record
from rea.wire.convert import restructure
from rea.session import Session
from rea.workflows.derived import checkpointed

# every family's program modules, in the order of the one list (rea.families)
_FAMILIES = tuple(importlib.import_module(module) for family in FAMILIES for module in family.programs)


# the only tools that may change the provider binding: it is immutable for the rest of a target's life
REBINDING = frozenset({"open_binary", "close_binary"})


class BindingChanged(AssertionError):
    """A program other than open_binary/close_binary tried to replace the selected provider."""


def _kept(contract: ToolContract, before: Session, outcome: Any) -> Any:
    if (
        isinstance(outcome, Outcome)
        and contract.name not in REBINDING
        and outcome.session.provider_binding != before.provider_binding
    ):
        raise BindingChanged(f"{contract.name} may not replace the selected provider binding")
    return outcome


def _watched(contract: ToolContract, before: Session, produced: Any) -> Any:
    outcome = yield from produced
    return _kept(contract, before, outcome)


def gated(contract: ToolContract, program: Callable[..., Any]) -> Callable[..., Any]:
    """The program, refused first when the rule says the tool cannot work on this target, and
    held to the binding: no tool but open_binary and close_binary may replace the selected
    provider (not after a runtime failure either; the interpreter turns the violation into an
    execution_failure with the session unchanged)."""

    def run(session: Session, args: Mapping[str, Any], ctx: Context) -> Any:
        state = target_state(session)
        found = verdict(contract, state, ctx.server.client_features)
        if not found.available:
            return failed(session, refusal(contract, found, state))
        produced = program(session, args, ctx)
        if isinstance(produced, Outcome):
            return _kept(contract, session, produced)
        return _watched(contract, session, produced)

    run.__name__ = getattr(program, "__name__", contract.name)
    return run


def typed_entry(contract: ToolContract, program: Callable[..., Any]) -> Callable[..., Any]:
    """A @typed program called with the JSON arguments: they are structured into its argument record once
    (innermost, so a derived program still takes its first checkpoint before anything can refuse)."""
    if not reads_record(program):
        return program

    def run(session: Session, args: Mapping[str, Any], ctx: Context) -> Any:
        built = restructure(args, contract.args_type)
        if not is_successful(built):
            return failed(session, built.failure())
        return program(session, built.unwrap(), ctx)

    run.__name__ = getattr(program, "__name__", contract.name)
    return run


# derived comparisons and views: a checkpoint before computing and before publication (the spec's
# "cannot race with successful Evidence")
_PLAIN: Mapping[str, Callable[..., Any]] = {name: fn for f in _FAMILIES for name, fn in f.PROGRAMS.items()}
DERIVED = tuple(
    sorted(n for n in _PLAIN if n.startswith("compare_") or n in ("inspect_analysis_view", "build_call_path"))
)
PROGRAMS: Mapping[str, Callable[..., Any]] = {
    name: gated(BY_NAME[name], checkpointed(name, entry) if name in DERIVED else entry)
    for name, entry in ((name, typed_entry(BY_NAME[name], fn)) for name, fn in _PLAIN.items())
}
assert set(PROGRAMS) == set(BY_NAME), f"tools without exactly one program: {set(PROGRAMS) ^ set(BY_NAME)}"
