"""The session tools' reply: `{"result": ...}` with the session as given (the reference's session tool shape)."""

from __future__ import annotations

from typing import Any

from returns.result import Success

from rea.program import Outcome
from rea.session import Session


def done(session: Session, result: Any) -> Outcome:
    return Outcome(session=session, reply=Success({"result": result}))
