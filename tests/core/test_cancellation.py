"""Cancellation reaches every phase: the application analysis after parsing (graph building, the
semantic graph, sealing, canonical hashing, validation, publication), and derived comparisons and views
before they compute and before they publish. Driven with the real effect handlers and the real interpreter."""

from __future__ import annotations

import itertools
from typing import Any

import anyio
import pytest
from returns.result import Success

from effects.calls import Connection, call_tool
from effects.interpreter import run
from effects.javascript.runtime import HANDLERS
from effects.progress import Progress
from javascript_fixtures import write_tree
from rea.catalog import BY_NAME
from rea.javascript.programs.analysis import analyze_javascript_application
from rea.javascript.records.arguments import AnalyzeArgs
from rea.program import ProgramCancelled, ReportProgress
from rea.session import Session
from rea.wire.convert import structure, with_defaults
from rea.workflows import PROGRAMS
from scripted import CTX

LATE_PHASES = ("linking", "semantic", "sealing", "hashing", "validating", "publishing")


def _drive_until(program, phase: str):
    """Run a program with the real handlers; throw ProgramCancelled at the first progress step of `phase`.
    Returns (outcome or None, the phases seen)."""
    reply: Any = None
    seen = []
    while True:
        try:
            effect = program.send(reply)
        except StopIteration as stop:
            return stop.value, seen
        if isinstance(effect, ReportProgress):
            seen.append(effect.phase)
            if effect.phase == phase:
                try:
                    program.throw(ProgramCancelled(phase))
                except StopIteration as stop:
                    return stop.value, seen
                raise AssertionError("the program yielded again after cancellation")
            reply = None
            continue
        reply = anyio.run(HANDLERS[type(effect)], effect, Progress(None))


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("cancel") / "app"
    return write_tree(root, {f"m{i:02}.js": f"require('./m{i + 1:02}');\n" for i in range(20)})


@pytest.mark.parametrize("detail", ["complete", "summary"])
def test_every_phase_after_parsing_is_a_checkpoint(tree, detail):
    args = structure({"input_path": str(tree), "detail": detail}, AnalyzeArgs).unwrap()
    complete, phases = _drive_until(analyze_javascript_application(Session(), args, CTX), "never")
    assert [p for p in phases if p in LATE_PHASES] == list(LATE_PHASES)
    finished = complete.reply.unwrap()
    for phase in LATE_PHASES:
        outcome, _ = _drive_until(analyze_javascript_application(Session(), args, CTX), phase)
        error = outcome.reply.failure()  # never a success once the call was cancelled
        assert error.code == "cancelled" and error.details["phase"] == phase
        assert error.details["files_done"] == error.details["files_total"] == 20
        kept = outcome.session.evidence[error.details["partial_observation"]["evidence_id"]]
        assert list(outcome.session.evidence) == [kept.evidence_id]  # the partial record and nothing else
        result = kept.normalized_result
        assert result["coverage"]["status"] == "partial" and result["coverage"]["cancelled_during"] == phase
        assert result["statistics"]["files_read"] == 20
        assert kept.evidence_id != finished["evidence_id"]  # the complete record was never published


def _analysed(conn: Connection, root) -> str:
    async def main():
        return await call_tool(conn, "analyze_javascript_application", {"input_path": str(root)}, None)

    return anyio.run(main).unwrap()["evidence_id"]


DERIVED = [
    ("compare_application_versions", lambda a, b: {"left_evidence_id": a, "right_evidence_id": b}),
    ("inspect_analysis_view", lambda a, b: {"source": {"kind": "retained-evidence", "evidence_id": a}}),
]


@pytest.mark.parametrize(("tool", "arguments"), DERIVED)
@pytest.mark.parametrize("phase", ["computing", "publishing"])
def test_derived_workflows_yield_before_computing_and_before_publication(tmp_path, tool, arguments, phase):
    """A cancel at either checkpoint leaves the session exactly as it was; uncancelled, the same call succeeds."""
    conn = Connection(ctx=CTX)
    left = _analysed(conn, write_tree(tmp_path / "v1", {"main.js": "require('./a');\n", "a.js": "1;\n"}))
    right = _analysed(conn, write_tree(tmp_path / "v2", {"main.js": "require('./b');\n", "b.js": "2;\n"}))
    before = conn.session
    held = len(before.evidence)  # each application record and its semantic graph Evidence
    args = with_defaults(arguments(left, right), BY_NAME[tool].args_type).unwrap()
    ticks = itertools.count()  # a second between observations: the rate law lets every one through

    async def cancelled_at_phase():
        with anyio.CancelScope() as scope:

            async def sink(number, message):
                if message.startswith(f"{phase}:"):
                    scope.cancel()

            await run(PROGRAMS[tool], conn.session, args, CTX, Progress(sink, clock=lambda: float(next(ticks))))
        return scope.cancelled_caught

    assert anyio.run(cancelled_at_phase) is True
    assert conn.session is before and len(conn.session.evidence) == held >= 2

    async def uncancelled():
        return await call_tool(conn, tool, args, None)

    reply = anyio.run(uncancelled)
    assert isinstance(reply, Success) and reply.unwrap()["operation"] == tool
    assert len(conn.session.evidence) > held


def test_every_derived_comparison_and_view_is_checkpointed():
    """The catalog's comparisons and views all take the two checkpoints (a new one cannot forget them)."""
    from rea.workflows import DERIVED as CHECKPOINTED

    derived = {n for n in BY_NAME if n.startswith("compare_") or n == "inspect_analysis_view"}
    assert derived <= set(CHECKPOINTED)
    for name in derived:
        steps = PROGRAMS[name](Session(), {}, CTX)
        first = next(steps)
        assert isinstance(first, ReportProgress) and first.phase == "computing"
        steps.close()
