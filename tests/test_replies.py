"""Reply construction for MCP: admission and the oversized-error replacement."""

import json

from effects.calls import Connection
from effects.server import _error_result, _success_result
from rea.errors import ReaError
from scripted import CTX


def test_oversized_error_is_retained_and_replaced_by_a_bounded_diagnostic():
    conn = Connection(ctx=CTX)
    huge = ReaError(code="execution_failure", message="x" * 11_000_000, details={"log": "y" * 100})
    result = _error_result(conn, "binary_session", huge)
    body = json.loads(result.content[0].text)["error"]
    assert result.is_error and result.structured_content is None
    assert len(result.content[0].text) < 10_000
    reference = body["details"]["reported_limits"]["evidence_reference"]
    retained = conn.session.evidence[reference["evidence_id"]]
    assert retained.normalized_result["error"]["message"] == huge.message
    assert body["details"]["retention"] == "retained" and body["code"] == "execution_failure"


def test_success_that_does_not_fit_names_the_budget():
    conn = Connection(ctx=CTX)
    result = _success_result(conn, "get_evidence_bundle", {"result": {"blob": "\"" * 4_000_000}})
    body = json.loads(result.content[0].text)["error"]
    assert body["code"] == "resource_constraint" and body["details"]["resource"] == "transport"
    # 4 M quotes become 8 MB of escaped text plus 4 MB of structured copy: over 10 MiB
    assert body["details"]["reported_limits"]["reply_bytes"] > 12_000_000
    fits = _success_result(conn, "get_evidence_bundle", {"result": {"blob": "a" * 4_000_000}})
    assert fits.is_error is False and fits.structured_content["result"]["blob"] == "a" * 4_000_000
