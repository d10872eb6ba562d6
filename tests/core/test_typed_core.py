"""Pure helpers that mypy strict made explicit: each gives exactly what the untyped code gave."""

from __future__ import annotations

import pytest

from rea.errors import ReaError
from rea.native import answers, queries
from rea.wire.convert import to_wire


@pytest.mark.parametrize(
    "error",
    [
        ReaError(code="execution_failure", message="the decompiler returned no text"),
        ReaError(code="invalid_request", message="no such procedure", details={"field": "addresses"}),
        ReaError(code="invalid_request", message="empty details stay present", details={}),
        ReaError(code="provider_unavailable", message="gone", action="Reopen the target.", restart_required=True),
    ],
)
def test_error_record_is_the_canonical_error_body(error):
    """batch_decompile rows carry the typed ErrorRecord; on the wire it is ReaError.record(), key for key."""
    assert to_wire(answers.error_record(error)) == error.record()


def test_identity_and_brief_keep_null_for_no_procedure():
    proc = {
        "address": "0x401000",
        "name": "main",
        "kind": "function",
        "returning": True,
        "blocks": [{"start": "0x401000", "size": 4}, {"start": "0x401004", "size": 8}],
    }
    assert answers.identity(None) is None and queries.brief(None) is None
    wire = to_wire(answers.identity(proc))
    assert (wire["address"], wire["name"]) == ("0x401000", "main")
    assert wire["classification"]["external"] is False and wire["classification"]["provenance"]
    assert wire["body"] == {"available": True, "ranges": [{"start": "0x401000", "end": "0x40100c"}]}  # merged
    assert queries.brief(proc) == {"address": "0x401000", "name": "main", "kind": "function"}
