"""The program steps every adb tool body shares: one AdbExchange on the device's transport, its shell output
as text, and the errors the bodies end with. A step that fails ends the program (rea.program.need); the
`_answer` forms keep the answer's Result for a body that records a failure instead of ending."""

from __future__ import annotations

import shlex
from collections.abc import Generator
from typing import Any

from returns.result import Result

from rea.adb import records as w
from rea.adb.effects import AdbExchange, AdbStep
from rea.effect_types import AnyEffect
from rea.errors import ReaError, invalid_request
from rea.program import must

Built = tuple[Any, list[str]]  # the result record and its limitations
Body = Generator[AnyEffect, Any, Built]
Outputs = Generator[AnyEffect, Any, list[Any]]
Answer = Generator[AnyEffect, Any, Result[list[Any], ReaError]]


def exchange_answer(args: w.SerialArgs, *steps: AdbStep) -> Answer:
    """The device's outputs of the steps, or the exchange's error (kept, for a body that records it)."""
    answer: Result[Any, ReaError] = yield AdbExchange(serial=args.serial, steps=steps, deadline_ms=args.deadline_ms)
    return answer.map(lambda reply: list(reply["outputs"]))


def exchange(args: w.SerialArgs, *steps: AdbStep) -> Outputs:
    """The device's outputs of the steps (a program step: a failed exchange ends the program)."""
    return must((yield from exchange_answer(args, *steps)))


def _texts(outputs: list[Any]) -> list[str]:
    return [o["data"].decode("utf-8", "replace") for o in outputs]


def shell_answer(args: w.SerialArgs, *commands: str) -> Generator[AnyEffect, Any, Result[list[str], ReaError]]:
    """Each command's output as text (a `shell:` service per command), or the exchange's error."""
    answer = yield from exchange_answer(args, *(AdbStep(service=f"shell:{c}") for c in commands))
    return answer.map(_texts)


def shell(args: w.SerialArgs, *commands: str) -> Generator[AnyEffect, Any, list[str]]:
    """Each command's output as text (a program step)."""
    return must((yield from shell_answer(args, *commands)))


def q(value: str) -> str:
    return shlex.quote(value)


def coverage(unparsed: tuple[str, ...]) -> str:
    return "partial" if unparsed else "complete"


def unread(unparsed: tuple[str, ...]) -> list[str]:
    return [f"{len(unparsed)} output line(s) were not in the expected form (unparsed_lines)"] if unparsed else []


def unreadable(what: str, text: str) -> ReaError:
    return ReaError(
        code="unreadable_output",
        message=f"The device's {what} output was not in the expected form: {text.strip()[:300]!r}",
        details={"provider": "adb"},
    )


def not_installed(args: w.PackageArgs) -> ReaError:
    return invalid_request(
        f"{args.package} is not installed on {args.serial}",
        field="package",
        accepted="an installed package (resolve_adb_packages finds one by part of its name)",
    )


def device_refused(args: w.SerialArgs, what: str, said: str) -> ReaError:
    return ReaError(
        code="execution_failure",
        message=f"{what} on {args.serial} was refused by the device: {said}",
        details={"provider": "adb", "device_verdict": said},
    )
