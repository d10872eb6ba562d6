"""Workflow programs, one module per tool family; PROGRAMS maps every catalog tool to its program.

Every program is gated by the availability rule (rea.catalog.availability) before it runs, so a
call is refused for its target exactly when binary_session reports the tool unavailable, with the
same reason and remediation.
"""

from typing import Any
from collections.abc import Callable, Mapping


from rea.catalog import BY_NAME
from rea.catalog.availability import refusal, target_state, verdict
from rea.catalog.contract import ToolContract
from rea.program import Context, Outcome, failed
from rea.session import Session
from rea.workflows import adb as _adb
from rea.workflows import android as _android
from rea.workflows import artifacts as _artifacts
from rea.workflows import javascript as _javascript
from rea.workflows import javascript_runtime as _javascript_runtime
from rea.workflows import layout as _layout
from rea.workflows import apple_metadata as _apple_metadata
from rea.workflows import native_runtime as _native_runtime
from rea.workflows import wasm as _wasm
from rea.workflows import web_network as _web_network
from rea.workflows import web as _web
from rea.workflows import web_scenario as _web_scenario
from rea.workflows import web_scripts as _web_scripts
from rea.workflows import managed as _managed
from rea.workflows import managed_derived as _managed_derived
from rea.workflows import native as _native
from rea.workflows import native_surface as _native_surface
from rea.workflows import native_analyses as _native_analyses
from rea.workflows import session_tools as _session
from rea.workflows import views as _views
from rea.workflows.derived import checkpointed

_FAMILIES = (
    _session,
    _native,
    _native_surface,
    _native_analyses,
    _artifacts,
    _javascript,
    _javascript_runtime,
    _managed,
    _managed_derived,
    _android,
    _adb,
    _layout,
    _apple_metadata,
    _native_runtime,
    _wasm,
    _web_network,
    _web,
    _web_scenario,
    _web_scripts,
    _views,
)


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


# derived comparisons and views: a checkpoint before computing and before publication (the spec's
# "cannot race with successful Evidence")
_PLAIN: Mapping[str, Callable[..., Any]] = {name: fn for f in _FAMILIES for name, fn in f.PROGRAMS.items()}
DERIVED = tuple(
    sorted(n for n in _PLAIN if n.startswith("compare_") or n in ("inspect_analysis_view", "build_call_path"))
)
PROGRAMS: Mapping[str, Callable[..., Any]] = {
    name: gated(BY_NAME[name], checkpointed(name, fn) if name in DERIVED else fn) for name, fn in _PLAIN.items()
}
assert set(PROGRAMS) == set(BY_NAME), f"tools without exactly one program: {set(PROGRAMS) ^ set(BY_NAME)}"
