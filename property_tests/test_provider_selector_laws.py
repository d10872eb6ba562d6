"""Laws of the one provider parser: MCP's provider_id, REA_ANALYSIS_PROVIDER and the CLI's
--provider accept exactly the same spellings, and refuse the rest canonically."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from returns.pipeline import is_successful

from effects import call_command
from rea.catalog import BY_NAME
from rea.config import analysis_provider
from rea.native.selector import ACCEPTED, parse_selector
from rea.validation import validate_arguments

spellings = st.one_of(
    st.text(max_size=70),
    st.from_regex(r"[a-z][a-z0-9-]{0,70}", fullmatch=True),
    st.sampled_from(["auto", "angr", "ghidra", "Auto", "auto ", "-x", "1x", "a" * 64, "a" * 65, "an_gr"]),
)


def _mcp_accepts(raw: str) -> bool:
    args = {"path": "/bin/true", "provider_id": raw}
    return is_successful(validate_arguments("open_binary", BY_NAME["open_binary"].input_schema, args))


def _cli_accepts(raw: str) -> bool:
    plan = call_command.plan(["list_procedures", "--target", "/bin/true", "--provider", raw])
    return is_successful(plan.command)


@given(spellings)
def test_every_boundary_accepts_the_same_spellings(raw):
    parsed = parse_selector(raw, "request")
    accepted = is_successful(parsed)
    assert _mcp_accepts(raw) is accepted
    assert "\x00" in raw or raw.startswith("-") or _cli_accepts(raw) is accepted  # argparse owns "-x"
    env = analysis_provider({"REA_ANALYSIS_PROVIDER": raw})
    assert is_successful(env) is (accepted or raw == "")
    if accepted:
        assert parsed.unwrap() == (None if raw == "auto" else raw) == env.unwrap()
    elif raw:
        refusal = env.failure()
        assert refusal.code == "configuration_invalid" and refusal.details["accepted"] == ACCEPTED
        assert refusal.details["value"] == raw and refusal.restart_required
        for boundary, field in (("request", "provider_id"), ("cli", "provider")):
            error = parse_selector(raw, boundary).failure()
            assert error.code == "invalid_request" and error.details == {"field": field, "accepted": ACCEPTED}
