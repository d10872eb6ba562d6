"""observe_native_calls's record from whatever the bridge reported: any mix of lines (missing ends, extra
events, unknown kinds) gives a record whose events stay within max_events and whose outcome is in the enum."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rea.native_runtime.observation import observation_result
from rea.native_runtime.records import ObserveNativeCallsArgs
from rea.wire.convert import structure

LOCATION = {"load_address": "0x10", "file_address": None, "module": None, "module_path": None, "symbol": None}
EVENT = {
    "type": "event",
    "sequence": 0,
    "elapsed_ms": 1.0,
    "thread_id": 1,
    "breakpoint_index": 0,
    "registers": [],
    "backtrace": [],
    **LOCATION,
}
LINES = st.sampled_from(
    [
        EVENT,
        {"type": "started", "pid": 7},
        {"type": "finished", "outcome": "exited", "exit_status": 0, "exit_description": None, "elapsed_ms": 3.0},
        {
            "type": "finished",
            "outcome": "event-limit",
            "exit_status": None,
            "exit_description": None,
            "elapsed_ms": 3.0,
        },
        {
            "type": "breakpoints",
            "rows": [{"index": 0, "location_count": 2, "locations": [LOCATION]}],
            "other_stops": [],
        },
        {"type": "debugger", "version": "lldb version 14.0.6"},
        {"type": "mystery"},
    ]
)
OUTPUT = {"text": "", "bytes": 0, "truncated": False, "complete": True}


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(LINES, max_size=40), max_events=st.integers(1, 10), limit=st.booleans(), count=st.integers(1, 3))
def test_any_bridge_report_gives_a_bounded_record(lines, max_events, limit, count):
    facts = {
        "lines": lines,
        "pid": 7,
        "resource_limit": limit,
        "terminated": True,
        "elapsed_ms": 5.0,
        "stdout": OUTPUT,
        "stderr": OUTPUT,
        "debugger": {"path": "/usr/bin/lldb", "sha256": "0" * 64, "version": None},
        "target": {
            "path": "/x",
            "sha256": "1" * 64,
            "architecture": "x86_64",
            "file_device": None,
            "file_inode": None,
            "stable": True,
        },
        "notes": [],
    }
    args = {
        "breakpoints": [{"kind": "function", "name": f"f{i}"} for i in range(count)],
        "arguments": [],
        "environment": {},
        "max_events": max_events,
    }
    got = observation_result(structure(args, ObserveNativeCallsArgs).unwrap(), facts)
    assert len(got["events"]) <= max_events
    assert got["process"]["outcome"] in {"exited", "duration-elapsed", "event-limit", "stop-limit", "resource-limit"}
    assert (got["coverage"]["status"] == "complete") == (got["process"]["outcome"] == "exited")
    assert set(got["coverage"]["unresolved_breakpoints"]) <= set(range(count))
    assert got["coverage"]["breakpoint_locations_truncated"] == any(
        b["location_count"] > len(b["locations"]) for b in got["breakpoints"]
    )
