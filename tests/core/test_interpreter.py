import anyio
from returns.result import Success

from effects.interpreter import run
from effects.progress import Progress
from rea.program import Outcome, ReportProgress
from rea.session import Session
from scripted import CTX


def _program(steps):
    def program(session, args, ctx):
        for i in range(steps):
            yield ReportProgress(phase="work", message=f"step {i}")
        return Outcome(session=session, reply=Success({"result": steps}))

    return program


def test_progress_is_strictly_increasing_and_rate_limited():
    sent = []
    clock = iter([0.0, 0.01, 0.02, 0.15, 0.16, 0.30, 0.31, 0.32])

    async def sink(number, message):
        sent.append((number, message))

    async def main():
        progress = Progress(sink, clock=lambda: next(clock))
        outcome = await run(_program(7), Session(), {}, CTX, progress)
        await progress.finish("done")
        return outcome

    outcome = anyio.run(main)
    assert outcome.reply.unwrap() == {"result": 7}
    numbers = [n for n, _ in sent]
    assert numbers == list(range(1, len(numbers) + 1))
    assert [m for _, m in sent] == ["work: step 0", "work: step 3", "work: step 5", "finished: done"]


def test_no_sink_means_no_progress():
    async def main():
        return await run(_program(3), Session(), {}, CTX, Progress(None))

    assert anyio.run(main).reply.unwrap() == {"result": 3}


def test_cancellation_is_checked_between_steps():
    reached = []

    def program(session, args, ctx):
        for i in range(1000):
            reached.append(i)
            yield ReportProgress(phase="loop", message=str(i))
        return Outcome(session=session, reply=Success({}))

    async def main():
        with anyio.CancelScope() as scope:
            scope.cancel()
            await run(program, Session(), {}, CTX, Progress(None))
        return scope.cancelled_caught

    assert anyio.run(main) is True and len(reached) <= 1


def test_a_crashing_program_becomes_an_error_and_keeps_the_session():
    def program(session, args, ctx):
        yield ReportProgress(phase="parsing", message="x")
        raise KeyError("boom")

    session = Session()
    outcome = anyio.run(run, program, session, {}, CTX, Progress(None))
    err = outcome.reply.failure()
    assert outcome.session is session and err.code == "execution_failure" and "parsing" in err.message


def test_an_unknown_effect_becomes_an_error_not_a_crash():
    def program(session, args, ctx):
        reply = yield object()
        return Outcome(session=session, reply=reply)

    err = anyio.run(run, program, Session(), {}, CTX, Progress(None)).reply.failure()
    assert err.code == "execution_failure" and "object" in err.message


def test_the_effect_union_and_the_handlers_are_the_same_vocabulary():
    """Every effect a program may yield has exactly one handler, and every handler handles a declared effect."""
    import importlib

    from effects.interpreter import HANDLERS, LAZY_FAMILIES
    from rea.effect_types import MEMBERS

    handled = dict(HANDLERS)
    for module in LAZY_FAMILIES:
        handled.update(importlib.import_module(module).HANDLERS)
    assert set(handled) == set(MEMBERS)


def test_the_static_effect_union_is_the_one_list_of_families():
    """mypy reads AnyEffect spelled out; it must name exactly the core's and every listed family's effects."""
    from typing import get_args

    from rea.effect_types import MEMBERS, AnyEffect

    union = get_args(AnyEffect)
    assert len(union) == len(set(union)) and set(union) == set(MEMBERS) and len(MEMBERS) == len(set(MEMBERS))


def test_each_family_handles_the_effects_it_declares():
    """A handler miss loads only the declaring family's handler modules, so they must handle all its effects."""
    import importlib

    from rea.families import FAMILIES

    for family in FAMILIES:
        handled = {kind for module in family.handlers for kind in importlib.import_module(module).HANDLERS}
        assert handled == set(family.effects), family.name


def test_a_repeated_status_is_sent_once():
    """A handler restating what its program just reported (the same phase and message) adds no notification."""
    sent = []

    async def sink(number, message):
        sent.append((number, message))

    async def main():
        progress = Progress(sink, clock=iter([0.0, 1.0, 2.0, 3.0, 4.0]).__next__)
        for phase, message in (("reading", "/a"), ("reading", "/a"), ("parsing", "/a"), ("reading", "/a")):
            await progress.report(phase, message)
        await progress.finish("done")

    anyio.run(main)
    assert sent == [(1, "reading: /a"), (2, "parsing: /a"), (3, "reading: /a"), (4, "finished: done")]


def test_a_handler_miss_loads_only_the_declaring_family():
    """An archive effect imports the artifacts handlers and no other family's (no lief, tree-sitter or numpy)."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    probe = (
        "import json, sys\n"
        "from effects import interpreter\n"
        "from rea.artifacts.model import InventoryArtifact\n"
        "before = set(sys.modules)\n"
        "assert interpreter._handler_for(InventoryArtifact) is not None\n"
        "print(json.dumps(sorted(m for m in interpreter.LAZY_FAMILIES if m in set(sys.modules) - before)))\n"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=root)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == ["effects.artifacts"]
