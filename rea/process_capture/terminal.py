"""The screen a terminal shows after the captured output, rendered by pyte (a VT100/xterm emulator).

A rendered frame is taken at the end of each burst of output (the next raw frame arrives at
least `gap_ms` later, or none does) and once at the end, so the number of rendered frames
follows the program's pauses, not how the kernel happened to split its writes. Resize events
are applied at their dispatch time, between bursts. pyte keeps no alternate screen buffer:
`active_buffer` is always normal (a limitation the capture states).
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import pyte

from rea.process_capture.results import RenderedFrame


@attrs.frozen(kw_only=True)
class Chunk:
    at_ms: int
    data: bytes


@attrs.frozen(kw_only=True)
class Resize:
    at_ms: int
    columns: int
    rows: int


def _text(line: object, columns: int) -> str:
    return "".join(line[x].data for x in range(columns)).rstrip()  # type: ignore[index]


def _frame(screen: pyte.HistoryScreen, sequence: int, at_ms: int) -> RenderedFrame:
    lines = tuple(line.rstrip() for line in screen.display)
    history = tuple(_text(line, screen.columns) for line in screen.history.top)
    return RenderedFrame(
        sequence=sequence,
        at_ms=at_ms,
        columns=screen.columns,
        rows=screen.lines,
        cursor_x=min(screen.cursor.x, screen.columns - 1),
        cursor_y=screen.cursor.y,
        active_buffer="normal",
        lines=lines,
        serialized_state="\n".join((*history, *lines)).rstrip("\n"),
    )


def render(
    chunks: Sequence[Chunk], resizes: Sequence[Resize], columns: int, rows: int, scrollback: int, gap_ms: int
) -> tuple[RenderedFrame, ...]:
    """Rendered frames at the end of each burst, and at the end (at least one frame, the empty screen)."""
    screen = pyte.HistoryScreen(columns, rows, history=max(scrollback, 1), ratio=0.5)
    stream = pyte.ByteStream(screen)
    pending = sorted(resizes, key=lambda r: r.at_ms)
    frames: list[RenderedFrame] = []
    for i, chunk in enumerate(chunks):
        while pending and pending[0].at_ms <= chunk.at_ms:
            r = pending.pop(0)
            screen.resize(r.rows, r.columns)
        stream.feed(chunk.data)
        following = chunks[i + 1].at_ms if i + 1 < len(chunks) else None
        if following is None or following - chunk.at_ms >= gap_ms:
            frames.append(_frame(screen, len(frames), chunk.at_ms))
    if not frames:
        frames.append(_frame(screen, 0, 0))
    return tuple(frames)
