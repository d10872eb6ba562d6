"""Laws of the response budget, against the SDK's own serializer.

The ground truth is the line the MCP SDK (2.3.0) really writes: the SDK runner's own
result shaping (`ServerRunner._serialize`) and the stdio writer's dump. The
prediction (`rea.replies` on a frame from `effects.wire_frame`) must equal its length
byte for byte, for JSON trees with floats, big integers, unicode and nesting, and
admission must follow the real length.
"""

from __future__ import annotations

import attrs
import mcp_types as types
from hypothesis import example, given
from hypothesis import strategies as st
from mcp.server.runner import ServerRunner
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS
from returns.result import Failure, Success

from effects.calls import Connection
from effects.server import _error_result, _success_result, build_server
from effects.wire_frame import measure
from prop_support import CTX, SAFE, json_values
from rea.budget import ENVELOPE_RESERVE_BYTES, ResponseBudget
from rea.canonical_json import canonical_measure, canonicalize, scalar_census
from rea.catalog import CATALOG
from rea.errors import ReaError
from rea.replies import (
    admit_success,
    charged,
    error_bytes,
    measured_bytes,
    meta_for,
    success_bytes,
    success_ceiling,
    success_floor,
)

VERSIONS = KNOWN_PROTOCOL_VERSIONS
WHOLE_FLOATS = st.integers(-(2**60), 2**60).map(float)
floats = st.floats(allow_nan=False, allow_infinity=False) | WHOLE_FLOATS | st.sampled_from([5.0, -0.0, 1e21, 1e-7])
big_ints = st.integers(SAFE + 1, 2**200) | st.integers(-(2**200), -SAFE - 1)
text = st.text(
    st.sampled_from(['"', "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "\u2028", "é", "\U0001f600", "/", "<", "a"])
) | st.text(max_size=12)
scalars = st.none() | st.booleans() | st.integers(-SAFE, SAFE) | big_ints | floats | text
values = json_values(scalars=scalars, keys=text, max_leaves=30)
payloads = values.map(lambda v: {"result": v})
request_ids = st.integers(0, 2**53) | st.text(max_size=40)
tools = st.sampled_from(["not_a_tool", *(c.name for c in CATALOG)])

SERVER = build_server(Connection(ctx=CTX), "1.0")
RUNNER = object.__new__(ServerRunner)  # only its result shaping is used: the SDK's own code path
RUNNER.server = SERVER


def sdk_line(request_id: types.RequestId, version: str, result: types.CallToolResult) -> bytes:
    """What the SDK's stdio transport writes for this result (runner shaping, then the stdout writer)."""
    shaped = RUNNER._serialize("tools/call", version, result)
    response = types.JSONRPCResponse(jsonrpc="2.0", id=request_id, result=shaped)
    return (response.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode()


def conn_with(max_bytes: int) -> Connection:
    return Connection(ctx=attrs.evolve(CTX, max_response_bytes=max_bytes))


def framer_for(request_id, version):
    def framer(meta, is_error):
        return measure(request_id, version, meta, is_error=is_error, server_info=SERVER.server_info_stamp)

    return framer


@example({"result": [5.0] * 1000}, 1, "2025-11-25", "list_unknowns")
@given(payloads, request_ids, st.sampled_from(VERSIONS), tools)
def test_predicted_success_bytes_are_the_bytes_the_sdk_writes(payload, request_id, version, tool):
    framer = framer_for(request_id, version)
    result = _success_result(conn_with(2**40), tool, payload, framer)
    assert result.is_error is False
    actual = sdk_line(request_id, version, result)
    contract = next((c for c in CATALOG if c.name == tool), None)
    frame = framer(meta_for(contract), False)
    assert success_bytes(canonicalize(payload), payload, frame) == len(actual)
    census = scalar_census(payload)
    assert success_floor(census, frame) <= len(actual) <= success_ceiling(census, frame)  # the bounds hold
    assert measured_bytes(canonical_measure(payload), census, frame) == len(actual)  # measured before building


@given(text, request_ids, st.sampled_from(VERSIONS), tools)
def test_predicted_error_bytes_are_the_bytes_the_sdk_writes(message, request_id, version, tool):
    framer = framer_for(request_id, version)
    error = ReaError(code="invalid_request", message=message or "m", details={"echo": message})
    result = _error_result(conn_with(2**40), tool, error, framer)
    actual = sdk_line(request_id, version, result)
    contract = next((c for c in CATALOG if c.name == tool), None)
    text_bytes = result.content[0].text.encode()
    assert error_bytes(text_bytes, framer(meta_for(contract), True)) == len(actual)


@given(payloads, request_ids, st.sampled_from(VERSIONS), st.integers(-40, 40))
def test_admission_follows_the_real_line_length(payload, request_id, version, slack):
    """A reply is admitted exactly when its payload plus max(frame, reserve) fits the limit."""
    framer = framer_for(request_id, version)
    full = _success_result(conn_with(2**40), "get_evidence_bundle", payload, framer)
    real = len(sdk_line(request_id, version, full))
    frame = framer(meta_for(None), False).frame_bytes
    cost = real - frame + max(frame, ENVELOPE_RESERVE_BYTES)
    budget = max(cost + slack, 1)
    answer = _success_result(conn_with(budget), "get_evidence_bundle", payload, framer)
    assert (answer.is_error is False) == (cost <= budget)
    if answer.is_error is False:
        assert real <= budget  # what is admitted never exceeds the limit on the wire


@given(payloads, st.none() | st.text("0123456789abcdef", min_size=64, max_size=64).map(lambda h: "ev_" + h))
def test_refusal_names_the_real_size_and_the_retained_record(payload, evidence_id):
    frame = measure(7, "2025-11-25", None, is_error=False)
    canonical = canonicalize(payload)
    size = success_bytes(canonical, payload, frame)
    budget = ResponseBudget(max_response_bytes=charged(size, frame) - 1)
    result = admit_success("tool", payload, budget, evidence_id, frame)
    assert isinstance(result, Failure)
    error = result.failure()
    assert error.code == "resource_constraint" and error.details["resource"] == "transport"
    limits = error.details["reported_limits"]
    assert limits["reply_bytes_exact"] is True
    assert limits["reply_bytes"] == size and limits["charged_bytes"] == charged(size, frame)
    assert ("evidence_reference" in limits) == (evidence_id is not None)
    if evidence_id is not None:
        assert limits["evidence_reference"] == {"kind": "retained-evidence", "evidence_id": evidence_id}
    assert admit_success(
        "tool", payload, attrs.evolve(budget, max_response_bytes=budget.max_response_bytes + 1), evidence_id, frame
    ) == Success(canonical)


def test_whole_floats_are_counted_as_the_sdk_prints_them():
    """The issue's case: 1,000 floats of 5.0 are `5` canonically but `5.0` on the wire."""
    payload = {"result": [5.0] * 1000}
    framer = framer_for(1, "2025-11-25")
    result = _success_result(conn_with(2**40), "list_unknowns", payload, framer)
    real = len(sdk_line(1, "2025-11-25", result))
    canonical = canonicalize(payload)
    assert success_bytes(canonical, payload, framer(meta_for(None), False)) == real
    assert real - framer(meta_for(None), False).frame_bytes > 2 * len(canonical)  # the structured copy is longer
