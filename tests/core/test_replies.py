"""Reply construction for MCP: admission and the oversized-error replacement."""

import json

import attrs

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
    result = _success_result(conn, "get_evidence_bundle", {"result": {"blob": '"' * 4_000_000}})
    body = json.loads(result.content[0].text)["error"]
    assert body["code"] == "resource_constraint" and body["details"]["resource"] == "transport"
    # 4 M quotes become 8 MB of escaped text plus 4 MB of structured copy: over 10 MiB
    assert body["details"]["reported_limits"]["reply_bytes"] > 12_000_000
    fits = _success_result(conn, "get_evidence_bundle", {"result": {"blob": "a" * 4_000_000}})
    assert fits.is_error is False and fits.structured_content["result"]["blob"] == "a" * 4_000_000


def test_oversized_analyze_function_offers_a_ready_continuation_that_runs():
    import anyio

    from effects.calls import call_tool
    from rea.evidence import Provider, Subject, create_evidence
    from rea.session import record

    conn = Connection(ctx=CTX)
    text = "x = y;\n" * 1_600_000
    # a constructed dossier whose pseudocode alone exceeds the 10 MiB budget
    evidence = create_evidence(
        provider=Provider(id="angr", name="angr", version="9.2.213"),
        operation="analyze_function",
        parameters={"procedure": "big"},
        normalized_result={"procedure": {"address": "0x10", "name": "big"}, "pseudocode": text},
        subject=Subject(name="big", sha256="b" * 64, format="elf", architecture="x86_64", local_path="/t/big"),
    ).unwrap()
    conn.session = record(conn.session, (evidence,))
    reply = _success_result(conn, "analyze_function", evidence.to_json())
    body = json.loads(reply.content[0].text)["error"]
    limits = body["details"]["reported_limits"]
    assert body["code"] == "resource_constraint"
    assert limits["evidence_reference"] == {"kind": "retained-evidence", "evidence_id": evidence.evidence_id}
    continuation = limits["continuation"]
    assert continuation["name"] == "inspect_analysis_view"
    assert continuation["arguments"] == {
        "source": {"kind": "retained-evidence", "evidence_id": evidence.evidence_id},
        "view": {"kind": "native", "facet": "pseudocode", "offset": 0, "limit": 64},
    }
    assert evidence.evidence_id in conn.session.evidence
    # the continuation is a valid call: it passes our validator and returns the first page
    page = anyio.run(call_tool, conn, continuation["name"], continuation["arguments"], None).unwrap()
    result = page["normalized_result"]
    assert result["item"] == {"text": text[:64], "unit": "utf16-code-units"}
    assert result["coverage"]["next_offset"] == 64 and result["parent_evidence_id"] == evidence.evidence_id


def test_every_continuation_is_a_call_our_validator_accepts():
    from rea.catalog import BY_NAME
    from rea.validation import validate_arguments
    from rea.views.records.requests import FIRST_VIEW, view_call

    contract = BY_NAME["inspect_analysis_view"]
    kinds = {}
    for tool, first in FIRST_VIEW.items():
        call = view_call("ev_" + "e" * 64, first)
        assert call["name"] == "inspect_analysis_view" and tool in BY_NAME
        assert validate_arguments(call["name"], contract.input_schema, call["arguments"]).unwrap() == call["arguments"]
        kinds[tool] = call["arguments"]["view"]
    assert kinds["inspect_artifact"] == kinds["analyze_javascript_application"] == {"kind": "summary"}
    assert kinds["inventory_artifact"] == {"kind": "inventory", "facet": "occurrences", "offset": 0, "limit": 64}


def test_a_reply_far_over_the_budget_is_refused_before_anything_is_serialized(monkeypatch):
    """Over the budget: the exact size is measured from the value and no canonical text (document-sized) is built."""
    import rea.replies

    built = []
    real = rea.replies.canonicalize
    monkeypatch.setattr(rea.replies, "canonicalize", lambda value: built.append(1) or real(value))
    conn = Connection(ctx=CTX)
    payload = {"result": {"pages": ["p" * 1_000_000] * 12}}  # 12 MB of string values
    reply = _success_result(conn, "get_evidence_bundle", payload)
    body = json.loads(reply.content[0].text)["error"]
    limits = body["details"]["reported_limits"]
    assert body["code"] == "resource_constraint" and limits["reply_bytes_exact"] is True
    framed = _success_result(
        Connection(ctx=attrs.evolve(CTX, max_response_bytes=2**40)), "get_evidence_bundle", payload
    )
    sent = len(framed.content[0].text.encode()) + len(json.dumps(framed.structured_content, separators=(",", ":")))
    assert 24_000_000 < sent < limits["reply_bytes"] < sent + 2_048  # both copies, plus the frame
    assert len(built) == 2  # the small error text, and the payload only for the unlimited reply above
    near = _success_result(conn, "get_evidence_bundle", {"result": {"pages": ["p" * 1_000_000] * 5}})
    assert near.is_error is False  # under the budget: built, measured exactly, sent
