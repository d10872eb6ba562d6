"""gdb's core-only view, parsed from its batch output: mapping candidates, frames, the recorded pid.

gdb reads the core alone (no executable), so its maps come from NT_FILE and carry no
permissions on Debian's gdb 13: a missing or unfamiliar flag column gives unknown
permissions, never "none". Pure text in, records out.
"""

from __future__ import annotations

import re

import attrs

from rea.layout.crash_records import DebuggerMap, MapPermissions

_MAP = re.compile(
    r"^\s*(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)(?:\s+([r-][w-][x-][ps-]))?\s*(.*)$"
)
_LWP = re.compile(r"^\[New (?:LWP|process|Thread [^ ]+ \(LWP) (\d+)\)?\]")
_FLAGS = {"r": 4, "w": 2, "x": 1}
MAX_FRAMES = 64
MAPS_MARK, FRAMES_MARK = "@@rea-maps", "@@rea-frames"
# the batch commands, each section behind its mark so the load-time frame gdb prints is not taken for `bt`
COMMANDS = (f"echo {MAPS_MARK}\\n", "info proc mappings", f"echo {FRAMES_MARK}\\n", f"bt {MAX_FRAMES}")


def _hex(text: str) -> str:
    return f"0x{int(text, 16):x}"


def _map(match: re.Match[str]) -> DebuggerMap:
    start, end, _size, offset, perms, path = match.groups()
    flags = sum(bit for ch, bit in _FLAGS.items() if perms and ch in perms)
    return DebuggerMap(
        start=_hex(start),
        end=_hex(end),
        offset=_hex(offset),
        reported_flags=flags,
        permissions=(
            MapPermissions(read=bool(flags & 4), write=bool(flags & 2), execute=bool(flags & 1))
            if 0 < flags <= 7
            else None
        ),
        pathname_display=path.strip(),
        current_file_identity="unknown",
    )


@attrs.frozen(kw_only=True)
class CoreView:
    """What gdb printed about the core: mapping candidates, frames and the pid it names (None: none named)."""

    maps: tuple[DebuggerMap, ...]
    frames: tuple[str, ...]
    historical_pid: int | None


def parse_core_view(stdout: str) -> CoreView:
    """{maps, frames, historical_pid} from gdb's batch run of COMMANDS over the core."""
    maps: list[DebuggerMap] = []
    frames: list[str] = []
    pid: int | None = None
    section: str | None = None
    for line in stdout.splitlines():
        if line.strip() in (MAPS_MARK, FRAMES_MARK):
            section = line.strip()
        elif pid is None and (lwp := _LWP.match(line)):
            pid = int(lwp.group(1))
        elif section == MAPS_MARK and (found := _MAP.match(line)) and int(found[2], 16) >= int(found[1], 16):
            maps.append(_map(found))
        elif section == FRAMES_MARK and line.startswith("#") and len(frames) < MAX_FRAMES:
            frames.append(line.strip())
    return CoreView(maps=tuple(maps), frames=tuple(frames), historical_pid=pid)
