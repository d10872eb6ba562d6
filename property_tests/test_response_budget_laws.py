"""Laws of rea.replies: wire sizes are predicted exactly, admission follows the prediction."""

from __future__ import annotations

import json

from hypothesis import example, given, strategies as st
from returns.result import Failure, Success

from prop_support import json_scalars, json_values
from rea.budget import ENVELOPE_RESERVE_BYTES, ResponseBudget
from rea.canonical_json import canonicalize
from rea.catalog import CATALOG
from rea.replies import admit_success, meta_for, success_bytes, text_wire_bytes

escape_heavy = st.text(
    st.sampled_from(
        ['"', "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "\u2028", "\u2029", "é", "\U0001f600", "/", "<", "a"]
    ),
    max_size=12,
)
control = st.text(st.characters(max_codepoint=0x9F), max_size=12)
values = json_values(scalars=json_scalars | escape_heavy | control, keys=escape_heavy | st.text(max_size=6))


def wire_text_bytes(canonical: bytes) -> int:
    """Bytes of the canonical text once embedded as a JSON string, minus its two quotes."""
    return len(json.dumps(canonical.decode("utf-8"), ensure_ascii=False).encode("utf-8")) - 2


@example('"\\\n\x00\x7f\u2028')
@given(values)
def test_text_wire_bytes_is_exact(value):
    canonical = canonicalize(value)
    assert text_wire_bytes(canonical) == wire_text_bytes(canonical)


@given(values, st.sampled_from((None,) + CATALOG))
def test_success_bytes_counts_both_copies_and_meta(value, contract):
    canonical = canonicalize(value)
    meta = meta_for(contract)
    expected = wire_text_bytes(canonical) + len(canonical) + (len(canonicalize(meta)) if meta else 0)
    assert success_bytes(canonical, meta) == expected


@given(
    values,
    st.sampled_from((None,) + CATALOG),
    st.integers(ENVELOPE_RESERVE_BYTES, 4096),
    st.none() | st.text("0123456789abcdef", min_size=64, max_size=64).map(lambda h: "ev_" + h),
)
def test_admission_follows_predicted_size(value, contract, max_bytes, evidence_id):
    budget = ResponseBudget(max_response_bytes=max_bytes)
    canonical = canonicalize(value)
    size = success_bytes(canonical, meta_for(contract))
    result = admit_success("tool", value, contract, budget, evidence_id)
    if size <= budget.payload_limit:
        assert result == Success(canonical)
    else:
        assert isinstance(result, Failure)
        error = result.failure()
        assert error.code == "resource_constraint"
        limits = error.details["reported_limits"]
        assert limits["reply_bytes"] == size + ENVELOPE_RESERVE_BYTES > max_bytes
        assert ("evidence_reference" in limits) == (evidence_id is not None)
        if evidence_id is not None:
            assert limits["evidence_reference"] == {"kind": "retained-evidence", "evidence_id": evidence_id}


@given(st.integers(0, 3000), st.integers(ENVELOPE_RESERVE_BYTES + 1, 4096))
def test_admission_boundary_is_exact(length, max_bytes):
    """A string payload whose reply is exactly at the limit is admitted, one byte more is not."""
    budget = ResponseBudget(max_response_bytes=max_bytes)
    value = "a" * length
    admitted = isinstance(admit_success("t", value, None, budget, None), Success)
    size = success_bytes(canonicalize(value), meta_for(None))  # an unknown tool carries the provenance meta
    assert admitted == (size <= max_bytes - ENVELOPE_RESERVE_BYTES)
