"""The one error style of programs (rea.program): `need` and `must` give a value or end the program.

Driven with scripted answers, as the interpreter would send them: no IO."""

import pytest
from returns.result import Failure, Success

from rea.errors import ReaError
from rea.program import Outcome, ProgramCancelled, ReportProgress, must, need, refusable, refuse
from rea.session import Session

ASK = ReportProgress(phase="ask", message="an effect")
WRONG = ReaError(code="invalid_request", message="not this one")


def _drive(steps, answers):
    """Run a generator program, sending each scripted answer; its Outcome."""
    sent, asked = None, []
    try:
        while True:
            asked.append(steps.send(sent))
            sent = answers[len(asked) - 1]
    except StopIteration as stop:
        return stop.value, asked


@refusable
def _two_asks(session, args, ctx):
    first = yield from need(ASK)
    second = must(args["pure"])
    third = yield from need(ASK)
    return Outcome(session=session, reply=Success((first, second, third)))


def test_answers_flow_through_in_order():
    outcome, asked = _drive(_two_asks(Session(), {"pure": Success(2)}, None), [Success(1), Success(3)])
    assert outcome.reply.unwrap() == (1, 2, 3) and asked == [ASK, ASK]


@pytest.mark.parametrize(
    ("pure", "answers", "asked"),
    [
        (Success(2), [Failure(WRONG)], 1),
        (Failure(WRONG), [Success(1)], 1),
        (Success(2), [Success(1), Failure(WRONG)], 2),
    ],
)
def test_the_first_failure_ends_the_program_with_the_session_it_was_given(pure, answers, asked):
    session = Session()
    outcome, seen = _drive(_two_asks(session, {"pure": pure}, None), answers)
    assert outcome.session is session and outcome.reply.failure() == WRONG
    assert len(seen) == asked  # nothing after the refusal is asked for


def test_a_plain_function_program_and_a_helper_refusal():
    @refusable
    def plain(session, args, ctx):
        if args["refuse"]:
            refuse(WRONG)
        return Outcome(session=session, reply=Success("fine"))

    session = Session()
    assert plain(session, {"refuse": False}, None).reply.unwrap() == "fine"
    assert plain(session, {"refuse": True}, None) == Outcome(session=session, reply=Failure(WRONG))


def test_cancellation_still_reaches_the_program():
    steps = _two_asks(Session(), {"pure": Success(2)}, None)
    next(steps)
    with pytest.raises(ProgramCancelled):
        steps.throw(ProgramCancelled("ask"))
