"""PROGRAMS maps every catalog tool to its program, each family's programs imported when one of its tools is
first looked up (the families in rea.families name their program modules).

Why by family: importing every family's programs was most of a cold server's first call (a fifth of a
second of CPU, before any work) although a call needs one family; a native question imports the native
programs only. The table still answers for every catalog tool (iterating it loads them all), and a family
whose programs do not answer exactly its own tools fails its first lookup (tests/core/test_families.py loads them
all). Kept out of the package's __init__ so that a family's program module can be imported first: the shared
helpers some import live in this package (rea.workflows.derived), which must not build the table.

Every program is gated by the availability rule (rea.catalog.availability) before it runs, so a
call is refused for its target exactly when binary_session reports the tool unavailable, with the
same reason and remediation.
"""

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from rea.catalog import BY_NAME
from rea.catalog.availability import refusal, target_state, verdict
from rea.catalog.contract import ToolContract
from rea.families import FAMILIES
from rea.family import Family
from rea.program import Context, Outcome, failed, reads_record
from rea.results import either
from rea.session import Session
from rea.wire.convert import restructure
from rea.workflows.derived import checkpointed

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
        return either(built, lambda record: program(session, record, ctx), lambda error: failed(session, error))

    run.__name__ = getattr(program, "__name__", contract.name)
    return run


# derived comparisons and views: a checkpoint before computing and before publication (the spec's
# "cannot race with successful Evidence")
DERIVED = tuple(
    sorted(n for n in BY_NAME if n.startswith("compare_") or n in ("inspect_analysis_view", "build_call_path"))
)
# tool name -> the family whose programs answer it (its contract modules list it; the catalog imported them)
OWNER: Mapping[str, Family] = {
    c.name: family for family in FAMILIES for module in family.contracts for c in importlib.import_module(module).TOOLS
}


def family_programs(family: Family) -> dict[str, Callable[..., Any]]:
    """A family's tools, each to its program as the interpreter runs it (typed, checkpointed, gated); an
    AssertionError when its program modules do not answer exactly the tools its contracts declare."""
    plain = {name: fn for module in family.programs for name, fn in importlib.import_module(module).PROGRAMS.items()}
    declared = {name for name, owner in OWNER.items() if owner is family}
    assert set(plain) == declared, f"{family.name}: tools without exactly one program: {set(plain) ^ declared}"
    built = {}
    for name, fn in plain.items():
        entry = typed_entry(BY_NAME[name], fn)
        built[name] = gated(BY_NAME[name], checkpointed(name, entry) if name in DERIVED else entry)
    return built


class _Programs(Mapping[str, Callable[..., Any]]):
    """Every catalog tool's program; a family's are built on the first lookup of one of its tools."""

    def __init__(self) -> None:
        self._built: dict[str, Callable[..., Any]] = {}

    def __getitem__(self, name: str) -> Callable[..., Any]:
        found = self._built.get(name)
        if found is None:
            self._built.update(family_programs(OWNER[name]))  # KeyError for a name outside the catalog
            found = self._built[name]
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(BY_NAME)

    def __len__(self) -> int:
        return len(BY_NAME)


PROGRAMS: Mapping[str, Callable[..., Any]] = _Programs()
