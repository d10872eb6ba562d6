"""The laws of compare_process_captures (rea.process_capture.compare), on generated captures:
a capture compared with itself has no divergence; a dimension either side could not observe completely is
unknown, never unchanged; the first divergence does not depend on which capture is left; and added/removed
swap with the sides. Plus the terminal renderer (pyte) on a carriage return and a clear-screen."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rea.process_capture.compare import DIMENSIONS
from rea.process_capture.compare import compare_captures as compare_stored
from rea.process_capture.stored import read_capture
from rea.process_capture.terminal import Chunk, render
from rea.wire.convert import to_wire

SCOPES = ["terminal", "interaction", "exit", "process", "filesystem", "protocol", "shim"]
NORMALIZATION = {"paths": True, "patterns": [], "pids": True, "ports": True, "time_bucket_ms": 10}
text = st.text(alphabet="ab\n\r 12", max_size=12)
MANIFEST = {"host_paths": {"$SCRATCH": "/tmp/s"}, "comparison_contract": {}, "completed_at": "2026-01-01T00:00:00Z"}


def compare_captures(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    """The comparison of two captures as JSON, read as compare_process_captures reads retained ones."""
    return to_wire(compare_stored(read_capture(left), read_capture(right), "ev_left", "ev_right"))


@st.composite
def captures(draw: Any) -> dict[str, Any]:
    frames = draw(st.lists(text, max_size=4))
    times = sorted(draw(st.lists(st.integers(0, 500), min_size=len(frames), max_size=len(frames))))
    files = draw(st.lists(st.sampled_from(["a", "b", "c"]), unique=True, max_size=3))
    commands = draw(st.lists(st.sampled_from(["sh x", "sleep 1", "cat"]), max_size=3))
    shims = draw(st.lists(st.sampled_from(["git", "curl"]), max_size=2))
    return {
        "normalization": NORMALIZATION,
        "manifest": MANIFEST,
        "frames": [{"sequence": i, "at_ms": t, "data": d} for i, (d, t) in enumerate(zip(frames, times))],
        "rendered_frames": [],
        "interaction_events": [],
        "exit": {"code": draw(st.sampled_from([0, 1, None])), "signal": None, "reason": "exited"},
        "settlement": {"state": "quiesced", "elapsed_ms": 0, "cleanup_outcome": "not_required"},
        "filesystem_effects": [
            {
                "path": f"/tmp/s/{f}",
                "status": "created",
                "before": None,
                "after": {"type": "file", "size": 1, "mode": 33188, "sha256": None, "symlink_target": None},
            }
            for f in files
        ],  # fmt: skip
        "process_samples": [
            {"at_ms": 10 * i, "pid": 100 + i, "parent_pid": 1, "process_group_id": 100, "session_id": 100, "command": c}
            for i, c in enumerate(commands)
        ],  # fmt: skip
        "protocol_events": [],
        "shim_events": [
            {
                "sequence": i,
                "at_ms": 5 * i,
                "command": c,
                "arguments": [],
                "working_directory": "/tmp/s",
                "route_index": None,
                "outcome": "unmatched",
            }
            for i, c in enumerate(shims)
        ],  # fmt: skip
        "residual_unknowns": [{"scope": s, "reason": "r"} for s in draw(st.lists(st.sampled_from(SCOPES), max_size=2))],
        "truncated": draw(st.booleans()),
    }


def _fixed() -> dict[str, Any]:
    """One plain capture: a line of output, a created file, a process, a shim call."""
    return {
        "normalization": NORMALIZATION,
        "manifest": MANIFEST,
        "frames": [{"sequence": 0, "at_ms": 1, "data": "out\n"}],
        "rendered_frames": [],
        "interaction_events": [],
        "exit": {"code": 0, "signal": None, "reason": "exited"},
        "settlement": {"state": "quiesced", "elapsed_ms": 0, "cleanup_outcome": "not_required"},
        "filesystem_effects": [
            {
                "path": "/tmp/s/a",
                "status": "created",
                "before": None,
                "after": {"type": "file", "size": 1, "mode": 33188, "sha256": None, "symlink_target": None},
            }
        ],  # fmt: skip
        "process_samples": [
            {
                "at_ms": 0,
                "pid": 100,
                "parent_pid": 1,
                "process_group_id": 100,
                "session_id": 100,
                "command": "sh /tmp/s/x",
            }
        ],  # fmt: skip
        "protocol_events": [],
        "shim_events": [
            {
                "sequence": 0,
                "at_ms": 5,
                "command": "git",
                "arguments": [],
                "working_directory": "/tmp/s",
                "route_index": None,
                "outcome": "unmatched",
            }
        ],  # fmt: skip
        "residual_unknowns": [],
        "truncated": False,
    }


@settings(max_examples=300, deadline=None)
@given(captures())
def test_a_capture_compared_with_itself_has_no_divergence(capture):
    result = compare_captures(capture, capture)
    assert result["first_divergence"]["status"] != "found"
    assert not {result[d] for d in DIMENSIONS} & {"changed", "added", "removed"}
    assert result["status"] in ("unchanged", "unknown", "truncated")


@settings(max_examples=300, deadline=None)
@given(captures(), captures())
def test_a_dimension_either_side_did_not_observe_fully_is_unknown(left, right):
    result = compare_captures(left, right)
    for scope in {u["scope"] for u in left["residual_unknowns"] + right["residual_unknowns"]}:
        assert result[scope] == "unknown"
    if any(result[d] == "unknown" for d in DIMENSIONS) or left["truncated"] or right["truncated"]:
        assert result["status"] != "unchanged" and result["first_divergence"]["status"] != "none"


@settings(max_examples=300, deadline=None)
@given(captures(), captures())
def test_the_first_divergence_does_not_depend_on_which_side_is_left(left, right):
    ab, ba = compare_captures(left, right), compare_captures(right, left)
    swap = {"added": "removed", "removed": "added"}
    assert ab["status"] == ba["status"]
    assert all(ab[d] == swap.get(ba[d], ba[d]) for d in DIMENSIONS)
    fa, fb = ab["first_divergence"], ba["first_divergence"]
    assert fa["status"] == fb["status"]
    if fa["status"] == "found":
        assert (fa["dimension"], fa["index"]) == (fb["dimension"], fb["index"])
        assert (fa["left"], fa["right"], fa["left_at_ms"]) == (fb["right"], fb["left"], fb["right_at_ms"])


def test_differing_normalizations_leave_every_dimension_unknown():
    base = _fixed()
    other = {**base, "normalization": {**NORMALIZATION, "pids": False}, "truncated": False}
    result = compare_captures({**base, "truncated": False}, other)
    assert {result[d] for d in DIMENSIONS} == {"unknown"}


def test_host_paths_and_pids_are_normalized_before_comparing():
    left = _fixed()
    left = {**left, "truncated": False, "residual_unknowns": [], "frames": [{"sequence": 0, "at_ms": 1,
            "data": "/tmp/s/out pid 100\n"}], "process_samples": [{"at_ms": 0, "pid": 100, "parent_pid": 1,
            "process_group_id": 100, "session_id": 100, "command": "sh /tmp/s/x"}]}  # fmt: skip
    right = {**left, "manifest": {**MANIFEST, "host_paths": {"$SCRATCH": "/var/t"}},
             "frames": [{"sequence": 0, "at_ms": 7, "data": "/var/t/out pid 200\n"}],
             "process_samples": [{**left["process_samples"][0], "pid": 200, "command": "sh /var/t/x"}],
             "filesystem_effects": [{**e, "path": e["path"].replace("/tmp/s", "/var/t")} for e in left["filesystem_effects"]],
             "shim_events": [{**e, "working_directory": "/var/t"} for e in left["shim_events"]]}  # fmt: skip
    result = compare_captures(left, right)
    assert result["terminal"] == result["process"] == result["filesystem"] == "unchanged", result


def test_the_renderer_applies_carriage_returns_and_clears():
    frames = render([Chunk(at_ms=0, data=b"hello\rj"), Chunk(at_ms=500, data=b"\x1b[2J\x1b[Hbye")], [], 20, 3, 10, 100)
    assert [f.lines[0] for f in frames] == ["jello", "bye"]
    assert (frames[-1].cursor_x, frames[-1].cursor_y, frames[-1].rows, frames[-1].columns) == (3, 0, 3, 20)


@settings(max_examples=100, deadline=None)
@given(st.permutations(["close-received", "close-sent", "reset-sent"]), st.integers(1, 3))
def test_which_side_closes_first_at_the_end_is_scheduling_but_a_half_close_is_not(order, ending):
    """Both sides of a connection closing at its end race each other (seen under load in
    tests/process_capture/test_process_capture_protocol.py): any order of the final close and reset events compares unchanged.
    A close followed by more data keeps its place."""

    def event(i: int, kind: str, direction: str, data: str = "") -> dict[str, Any]:
        return {"sequence": i, "at_ms": i, "protocol": "tcp", "direction": direction, "method": None, "path": None,
                "data": data, "outcome": "observed", "kind": kind, "connection": 0, "client": "127.0.0.1:1",
                "server": "127.0.0.1:2", "status": None, "bytes": len(data), "sha256": None,
                "data_truncated": False}  # fmt: skip

    def capture(tail: list[str]) -> dict[str, Any]:
        head = [event(0, "connect", "received"), event(1, "data", "received", "ping")]
        ends = [event(2 + i, *name.split("-")) for i, name in enumerate(tail)]
        return {**_fixed(), "protocol_events": head + ends}

    tail = list(order)[:ending]
    assert compare_captures(capture(tail), capture(sorted(tail)))["protocol"] == "unchanged"
    half = {**_fixed(), "protocol_events": [event(0, "close", "sent"), event(1, "data", "received", "late")]}
    swapped = {**half, "protocol_events": list(reversed(half["protocol_events"]))}
    assert compare_captures(half, swapped)["protocol"] == "changed"


def test_a_sampled_process_difference_is_the_first_divergence_only_when_nothing_else_differs():
    """Seen on busybox httpd + wget: the two runs sampled different short processes (sleep in one, wget in the
    other) earlier than the changed response, and the first divergence sent the agent to the sampling."""
    left, right = _fixed(), _fixed()
    right["process_samples"] = [{**left["process_samples"][0], "command": "sleep 0.3"}]
    assert compare_captures(left, right)["first_divergence"]["dimension"] == "process"
    right["frames"] = [{"sequence": 0, "at_ms": 900, "data": "other\n"}]  # later than the process sample at 0
    found = compare_captures(left, right)
    assert (found["process"], found["terminal"]) == ("changed", "changed")
    assert found["first_divergence"]["dimension"] == "terminal"
