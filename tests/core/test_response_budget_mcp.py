"""The 10 MiB response budget on a real stdio pipe, measured in the bytes the server writes.

A retained bundle full of whole floats is the case a canonical-size model gets wrong:
`5.0` is `5` canonically but the SDK writes `5.0` in structuredContent. Replies a
couple of KiB either side of 10,485,760 bytes: the one below is delivered and is at
most the limit on the pipe; the one above is refused with the canonical budget error,
whose reply_bytes is the exact size the server would have written.
"""

from __future__ import annotations

import json

import pytest

from rea.evidence import create_evidence
from rea.session import Session, record
from support import PROVIDER, RawMcp, write_bundle

pytestmark = pytest.mark.slow
LIMIT = 10_485_760
FLOATS = 200_000  # 400 KB more on the wire than a canonical-size model counts
SIDE = 2_048


def bundle_with(path, pad: int):
    """A bundle as a Python producer writes it: its whole floats spelled `5.0` (JCS spells them `5`)."""
    evidence = create_evidence(
        provider=PROVIDER,
        operation="analyze_function",
        parameters={},
        normalized_result={"samples": [5.0] * FLOATS, "pad": "x" * pad},
    ).unwrap()
    write_bundle(path, record(Session(), (evidence,)))
    canonical = "[" + ",".join(["5"] * FLOATS) + "]"
    text = path.read_text()
    assert text.count(canonical) == 1
    path.write_text(text.replace(canonical, "[" + ",".join(["5.0"] * FLOATS) + "]"))
    return path


def bundle_reply(server: RawMcp, bundle) -> bytes:
    imported = json.loads(server.call("import_evidence_bundle", {"path": str(bundle)}))["result"]
    assert imported["isError"] is False, imported
    line = server.call("get_evidence_bundle", {})
    closed = json.loads(server.call("close_binary", {}))["result"]  # clears the ledger for the next import
    assert closed["isError"] is False
    return line


def test_replies_at_the_limit_are_measured_in_wire_bytes(tmp_path):
    pad0 = 4_000_000
    with RawMcp(REA_MCP_MAX_RESPONSE_BYTES=str(4 * LIMIT)) as roomy:
        first = bundle_reply(roomy, bundle_with(tmp_path / "probe.json", pad0))
        # each pad character is one byte in the text copy and one in the structured copy
        under, over = (pad0 + (LIMIT + side - len(first)) // 2 for side in (-SIDE, SIDE))
        over_line = bundle_reply(roomy, bundle_with(tmp_path / "over.json", over))
    assert LIMIT < len(over_line) <= LIMIT + SIDE + 1
    structured = json.loads(over_line)["result"]["structuredContent"]
    text = json.loads(over_line)["result"]["content"][0]["text"].encode()
    assert 2 * len(text) + text.count(b'"') < LIMIT - 1_024  # a model of canonical bytes would have admitted it
    assert structured["result"]["records"][0]["normalized_result"]["samples"][0] == 5.0
    assert b"[5.0,5.0," in over_line and b"[5,5," in over_line  # structured and text copies

    with RawMcp() as default:
        admitted = bundle_reply(default, bundle_with(tmp_path / "under.json", under))
        refused = bundle_reply(default, bundle_with(tmp_path / "over.json", over))
    assert LIMIT - SIDE - 2 <= len(admitted) <= LIMIT  # the bytes read from the pipe
    reply = json.loads(admitted)["result"]
    assert reply["isError"] is False and reply["structuredContent"]["result"]["records"][0]["normalized_result"]["pad"]
    body = json.loads(refused)["result"]
    assert body["isError"] is True and "structuredContent" not in body
    error = json.loads(body["content"][0]["text"])["error"]
    assert error["code"] == "resource_constraint" and error["details"]["resource"] == "transport"
    limits = error["details"]["reported_limits"]
    assert limits["reply_bytes"] == len(over_line)  # the exact size, measured before anything was built
    assert limits["max_response_bytes"] == LIMIT and len(refused) < 4_096
