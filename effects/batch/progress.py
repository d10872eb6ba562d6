"""The batch's progress bar on stderr: items done of the total, failures, rate and ETA (rich)."""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class RateColumn(ProgressColumn):
    """Items per second over the task so far."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-- items/s" if speed is None else f"{speed:.2f} items/s")


class BatchProgress:
    """Two phases on one bar: identifying (hashing) the inputs, then analysing unique digests."""

    def __init__(self, enabled: bool) -> None:
        self.console = Console(file=sys.stderr, stderr=True)
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[failed]} failed"),
            RateColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
            disable=not enabled,
            transient=False,
        )
        self.task: Any = None
        self.failed = 0

    def __enter__(self) -> BatchProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def phase(self, description: str, total: int) -> None:
        if self.task is not None:
            self.progress.update(self.task, visible=True)
        self.failed = 0
        self.task = self.progress.add_task(description, total=total, failed=0)

    def advance(self, failed: bool) -> None:
        self.failed += int(failed)
        self.progress.update(self.task, advance=1, failed=self.failed)
