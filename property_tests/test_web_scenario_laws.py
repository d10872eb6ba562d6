"""Laws of capture_browser_scenario's pure core over hostile requests and page text.

A caller controls every URL, id and value of a scenario; a page controls every text the runner
retains. Policy never raises (a refusal is invalid_request naming a field), only declared
origins pass, and no secret survives redaction in any of its encoded forms.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from rea.errors import ReaError
from rea.loopback import origin_of
from rea.web.records.scenario import CaptureBrowserScenarioArgs
from rea.web.scenario import completeness, redact, scenario_origins, secret_forms, with_query
from rea.wire.convert import with_defaults

urls = st.one_of(
    st.sampled_from(
        [
            "http://127.0.0.1:8000/",
            "https://app.test/x?y=1#f",
            "http://user:pw@a.test/",
            "ftp://a/",
            "http://[::1",
            "",
            "http://a.test:99999/",
        ]
    ),
    st.text(max_size=30),
)
ids = st.one_of(st.sampled_from(["a", "b", "s1"]), st.text(min_size=1, max_size=5))
values = st.one_of(
    st.builds(lambda v: {"source": "literal", "value": v}, st.text(max_size=8)),
    st.builds(lambda i: {"source": "secret", "secret_id": i}, ids),
)


def _action(step_id: str, url: str, value: dict) -> list[dict]:
    return [
        {"step_id": step_id, "action": "goto", "destination": {"url": url}, "wait_until": "load"},
        {"step_id": step_id + "f", "action": "fill", "locator": {"kind": "css", "selector": "#q"}, "value": value},
    ]


@given(start=urls, goto=urls, origins=st.lists(urls, max_size=3), step=ids, value=values, secret=ids)
def test_policy_refuses_by_field_and_admits_only_declared_origins(start, goto, origins, step, value, secret) -> None:
    raw = {
        "browser": {"mode": "launch", "executable_path": "/usr/bin/chromium"},
        "start_url": {"url": start or "x"},
        "allowed_origins": origins,
        "actions": _action(step, goto or "x", value),
        "secrets": [{"secret_id": secret, "environment_variable": "V"}],
    }
    args = with_defaults(raw, CaptureBrowserScenarioArgs)
    if not hasattr(args, "unwrap") or not isinstance(args.value_or(None), dict):
        return
    got = scenario_origins(args.unwrap())
    outcome = got.value_or(None)
    if outcome is None:
        error = got.failure()
        assert isinstance(error, ReaError) and error.code == "invalid_request" and error.details.get("field")
        return
    assert origin_of(start) in outcome and origin_of(goto) in outcome


@given(secret=st.text(min_size=1, max_size=12), before=st.text(max_size=20), after=st.text(max_size=20))
def test_no_form_of_a_secret_survives_redaction(secret, before, after) -> None:
    forms = secret_forms({"s": secret})
    url = with_query(
        {"url": "http://a.test/p", "query": [{"name": "k", "value": {"source": "secret", "secret_id": "s"}}]},
        {"s": secret},
    )
    for text in (before + secret + after, url):
        pieces = redact(text, forms).split("[redacted:s]")  # what is left of the page's own text
        assert all(form not in piece for piece in pieces for form, _ in forms)


@given(
    missing=st.lists(st.sampled_from(["dom", "url", "action"])), truncated=st.lists(st.sampled_from(["events", "dom"]))
)
def test_only_a_complete_capture_is_equality_eligible(missing, truncated) -> None:
    c = completeness(missing, truncated)
    assert c["equality_eligible"] == (not missing and not truncated)
    assert c["status"] == ("truncated" if truncated else "incomplete" if missing else "complete")


STATES = st.sampled_from(["captured", "not_requested", "missing", "truncated"])


def _state(kind: str, state: str, text: str) -> dict:
    if state == "captured":
        return {"state": "captured", "value": text if kind == "url" else {"text": text}}
    if state == "missing":
        return {"state": "missing", "reason": "r"}
    if state == "truncated":
        return {"state": "truncated", "observed": 2, "retained": 1, "reason": "r"}
    return {"state": "not_requested"}


def _capture(states: list[str], text: str, eligible: bool) -> dict:
    kinds = ("url", "dom", "accessibility")
    artifacts = {k: _state(k, s, text) for k, s in zip(kinds, states, strict=False)}
    artifacts |= {
        k: {"state": "not_requested"} for k in ("screenshot", "history", "storage", *kinds) if k not in artifacts
    }
    step = {
        "step_index": 0,
        "step_id": "start",
        "action": "start",
        "status": "completed",
        "error": None,
        "artifacts": artifacts,
    }
    missing = [] if eligible else ["dom"]
    return {
        "browser": {"product": "Chrome", "version": "1"},
        "scenario": {"start_origin": "http://a.test", "allowed_origins": ["http://a.test"]},
        "steps": [step],
        "events": {"items": []},
        "completeness": {"equality_eligible": eligible, "missing_sections": missing, "truncated_sections": []},
    }


@given(
    before=st.lists(STATES, min_size=3, max_size=3),
    after=st.lists(STATES, min_size=3, max_size=3),
    texts=st.tuples(st.text(max_size=4), st.text(max_size=4)),
    eligible=st.tuples(st.booleans(), st.booleans()),
)
def test_missing_or_truncated_evidence_never_proves_equality(before, after, texts, eligible) -> None:
    from rea.web.capture_diff import compare_scenarios
    from rea.wire.convert import to_wire

    result = to_wire(
        compare_scenarios(_capture(before, texts[0], eligible[0]), _capture(after, texts[1], eligible[1]), [], 10)
    )
    if result["overall_status"] == "unchanged":
        assert all(eligible) and texts[0] == texts[1] or before == after == ["not_requested"] * 3
        assert all(b == a for b, a in zip(before, after, strict=True) if "captured" in (b, a))
        assert all(s in ("captured", "not_requested") for s in before + after)
    if all(eligible) and before == after and all(s in ("captured", "not_requested") for s in before):
        assert result["overall_status"] == (
            "unchanged" if texts[0] == texts[1] or "captured" not in before else "changed"
        )
