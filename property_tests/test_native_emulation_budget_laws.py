"""The budget laws of emulate_native_function's pure side (rea.native.emulation.verdict), which the worker
asks before every step: checked on arbitrary budgets and run positions, without angr."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rea.native import emulation as plan

budgets = st.builds(
    plan.Budget,
    steps=st.integers(1, 1_000_000),
    time_ms=st.integers(1, 120_000),
    memory_bytes=st.integers(plan.PAGE, 1 << 30),
)
positions = st.fixed_dictionaries(
    {
        "returned": st.booleans(),
        "reached": st.booleans(),
        "steps": st.integers(0, 2_000_000),
        "elapsed_ms": st.floats(0, 300_000, allow_nan=False),
        "pages": st.integers(0, 1 << 19),
        "cancelled": st.booleans(),
    }
)


@given(budgets, positions)
def test_a_run_never_steps_past_its_budget_and_ends_for_exactly_one_reason(limits, at):
    said = plan.verdict(limits, **at)
    if said is None:  # the next step may run: nothing forbids it
        assert at["steps"] < limits.steps and at["pages"] * plan.PAGE <= limits.memory_bytes
        assert at["elapsed_ms"] < limits.time_ms and not (at["returned"] or at["reached"] or at["cancelled"])
    elif at["returned"]:
        assert said == "returned"  # a return wins over a budget the same block spent
    elif at["reached"]:
        assert said == "stopped_at"
    elif at["steps"] >= limits.steps:
        assert said == "step_limit"  # the deterministic budgets first: steps, then memory, then time
    elif at["pages"] * plan.PAGE > limits.memory_bytes:
        assert said == "memory_limit"
    elif at["elapsed_ms"] >= limits.time_ms:
        assert said == "time_limit"
    else:
        assert said == "cancelled" and at["cancelled"]


@given(budgets, positions)
def test_a_cancel_never_hides_a_budget_and_always_stops_a_run_that_could_go_on(limits, at):
    """A cancel names the run's end only when nothing else did: the same position without the cancel either
    ends the same way or may go on (and then the cancel stops it)."""
    with_cancel = plan.verdict(limits, **{**at, "cancelled": True})
    without = plan.verdict(limits, **{**at, "cancelled": False})
    assert with_cancel == (without if without is not None else "cancelled")


@given(budgets, positions)
def test_every_ending_has_a_canonical_reason(limits, at):
    said = plan.verdict(limits, **at)
    if said is not None:
        reason = plan.reason({"status": said, "stop_address": "0x401000"})
        assert reason and ("0x401000" in reason) == (said not in ("returned", "stopped_at"))
