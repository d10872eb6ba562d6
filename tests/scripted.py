"""Drive a program with scripted effect results: no IO, no mocks of libraries."""

from __future__ import annotations

from typing import Any, Callable

from rea.program import Context, Outcome, ReportProgress, ServerFacts
from rea.session import Session

CTX = Context(
    server=ServerFacts(package="rea-py", version="0.1.0", sdk_version="2.3.0", server_path="/usr/bin/rea",
                       started_at="2026-11-30T00:00:00Z"),
    max_response_bytes=10_485_760,
)


def drive(program_fn: Callable[..., Any], session: Session, args: dict, answer: Callable[[Any], Any] = lambda e: None,
          ctx: Context = CTX) -> tuple[Outcome, list[Any]]:
    produced = program_fn(session, args, ctx)
    effects: list[Any] = []
    if isinstance(produced, Outcome):
        return produced, effects
    reply = None
    while True:
        try:
            effect = produced.send(reply)
        except StopIteration as stop:
            return stop.value, effects
        effects.append(effect)
        reply = None if isinstance(effect, ReportProgress) else answer(effect)
