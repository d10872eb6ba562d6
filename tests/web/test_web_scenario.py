"""capture_browser_scenario on real headless Chromium against a loopback site that logs what reached it.

Ground truth is the server's own request log (what left the browser: the submitted form fields,
the seeded cookie, nothing for blocked or replayed requests), the PNG's IHDR read by hand, and
SHA-256 of values the page is known to store. The owned browser's group and profile are checked
gone through the OwnedChromium the handler used.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import struct
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from returns.result import Failure, Success

from artifact_fixtures import call
from chromium_fixtures import CHROMIUM, _gone, needs_chromium
from mcp_client import connect, error, evidence
from support import clean_env, rea_command
from web_fixtures import close_page, open_page, targets

pytestmark = [needs_chromium, pytest.mark.slow]

FORM = """<!doctype html><title>form</title>
<form action="result.html" method="get">
<input data-testid="q" name="q"><label>Agree <input type="checkbox" name="ok" id="ok"></label>
<select name="color" id="color"><option value="r">Red</option><option value="g">Green</option></select>
<button type="submit">Send</button></form>
<a id="out" href="{outside}/landing.html">outside</a>
<p id="data"></p>
<script>
console.log('hello', 42);
localStorage.setItem('theme', 'dark');
document.getElementById('color').addEventListener('change', () => console.log('color changed'));
fetch('/api/data.json').then(r => r.text()).then(t => {{ document.getElementById('data').textContent = t; }});
</script>"""
RESULT = """<!doctype html><title>result</title><p id="result">done</p><script>console.log(location.search)</script>"""
SECRET = "hunter2-Zq9"


class _Logged(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a: Any, log: list[dict[str, Any]], **k: Any) -> None:
        self._log = log
        super().__init__(*a, **k)

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        self._log.append({"path": self.path, "cookie": self.headers.get("Cookie")})
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass


class LoggedSite:
    def __init__(self, root: Path) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.root, self.log = root, []
        handler = functools.partial(_Logged, directory=str(root), log=self.log)
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def write(self, path: str, text: str) -> str:
        (self.root / path).write_text(text)
        return f"{self.origin}/{path}"

    def paths(self) -> list[str]:
        return [entry["path"] for entry in self.log]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def sites(tmp_path: Path) -> Iterator[tuple[LoggedSite, LoggedSite]]:
    app, outside = LoggedSite(tmp_path / "app"), LoggedSite(tmp_path / "outside")
    app.write("form.html", FORM.format(outside=outside.origin))
    app.write("result.html", RESULT)
    (app.root / "api").mkdir()
    (app.root / "api" / "data.json").write_text('{"from": "server"}')
    outside.write("landing.html", "<title>landing</title>")
    try:
        yield app, outside
    finally:
        app.close()
        outside.close()


def launch(start_url: str, actions: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    assert CHROMIUM is not None
    return {
        "browser": {"mode": "launch", "executable_path": CHROMIUM},
        "start_url": {"url": start_url},
        "actions": actions,
        **extra,
    }


FORM_ACTIONS = [
    {
        "step_id": "type",
        "action": "fill",
        "locator": {"kind": "test_id", "value": "q"},
        "value": {"source": "secret", "secret_id": "pw"},
    },
    {"step_id": "agree", "action": "check", "locator": {"kind": "css", "selector": "#ok"}},
    {
        "step_id": "pick",
        "action": "select_option",
        "locator": {"kind": "css", "selector": "#color"},
        "value": {"source": "literal", "value": "Green"},
    },
    {"step_id": "send", "action": "click", "locator": {"kind": "role", "role": "button", "name": "Send"}},
    {"step_id": "see", "action": "wait_for", "locator": {"kind": "css", "selector": "#result"}, "state": "visible"},
]


def _ok(args: dict[str, Any]) -> dict[str, Any]:
    reply, _ = call("capture_browser_scenario", args)
    assert isinstance(reply, Success), reply
    return dict(reply.unwrap())


def _err(args: dict[str, Any]) -> dict[str, Any]:
    reply, _ = call("capture_browser_scenario", args)
    assert isinstance(reply, Failure), reply
    return dict(reply.failure().record())


def test_form_scenario_submits_what_was_typed_and_redacts_the_secret(sites, owned, monkeypatch) -> None:
    app, _ = sites
    monkeypatch.setenv("REA_TEST_SCENARIO_SECRET", SECRET)
    args = launch(
        app.origin + "/form.html",
        FORM_ACTIONS,
        secrets=[{"secret_id": "pw", "environment_variable": "REA_TEST_SCENARIO_SECRET"}],
        storage={
            "cookies": [
                {
                    "name": "session",
                    "value": {"source": "literal", "value": "c00kie"},
                    "destination": {"url": app.origin + "/"},
                    "http_only": True,
                    "secure": False,
                    "same_site": "Lax",
                }
            ]
        },
        capture={
            "after_each_step": ["url"],
            "at_end": ["url", "dom", "accessibility", "history", "storage", "screenshot"],
            "events": ["console", "network", "page-errors"],
        },
    )
    value = _ok(args)
    assert SECRET not in json.dumps(value)  # nowhere: result, parameters, limitations
    r = value["normalized_result"]
    # what reached the server (an independent witness): the form fields as typed and selected
    submitted = next(p for p in app.paths() if p.startswith("/result.html"))
    assert submitted == f"/result.html?q={SECRET}&ok=on&color=g"
    assert all(e["cookie"] == "session=c00kie" for e in app.log)
    assert [s["step_id"] for s in r["steps"]] == ["start", "type", "agree", "pick", "send", "see"]
    assert all(s["status"] == "completed" for s in r["steps"]) and [s["step_index"] for s in r["steps"]] == list(
        range(6)
    )
    last = r["steps"][-1]
    assert last["after_url"] == f"{app.origin}/result.html?q=[redacted:pw]&ok=on&color=g"
    assert r["steps"][0]["artifacts"]["url"] == {"state": "captured", "value": app.origin + "/form.html"}
    dom = last["artifacts"]["dom"]["value"]
    assert '<p id="result">done</p>' in dom["text"]
    assert dom["sha256"] == hashlib.sha256(dom["text"].encode()).hexdigest() and dom["bytes"] == len(
        dom["text"].encode()
    )
    history = last["artifacts"]["history"]["value"]
    assert [e["name"] for e in history["navigation_entries"]][-2:] == [app.origin + "/form.html", last["after_url"]]
    storage = last["artifacts"]["storage"]["value"]
    assert storage["cookies"][0]["name"] == "session" and storage["cookies"][0]["http_only"] is True
    assert storage["cookies"][0]["value_sha256"] == hashlib.sha256(b"c00kie").hexdigest()
    assert storage["local_storage"] == [
        {"name": "theme", "value_state": "hashed", "value_sha256": hashlib.sha256(b"dark").hexdigest()}
    ]
    # pixels cannot be redacted: after a secret was typed the screenshot is withheld, and said so
    assert last["artifacts"]["screenshot"]["state"] == "missing"
    assert r["completeness"] == {
        "status": "incomplete",
        "equality_eligible": False,
        "missing_sections": ["screenshot"],
        "truncated_sections": [],
    }
    console = [e for e in r["events"]["items"] if e["kind"] == "console"]
    assert [e["text"] for e in console] == ["hello 42", "color changed", "?q=[redacted:pw]&ok=on&color=g"]
    assert console[1]["step_index"] == 3  # the select_option step fired the change listener
    sequences = [e["sequence"] for e in r["events"]["items"]]
    assert sequences == list(range(1, len(sequences) + 1)) and r["events"]["retained"] == len(sequences)
    for step in r["steps"]:
        inside = [e for e in r["events"]["items"] if e["step_index"] == step["step_index"]]
        assert [e["sequence"] for e in inside] == list(
            range(step["event_sequence_start"], step["event_sequence_end"] + 1)
        )
    assert r["browser"]["mode"] == "launch" and r["browser"]["process_ownership"] == "provider-owned"
    assert r["scenario"] == {
        "start_origin": app.origin,
        "allowed_origins": [app.origin],
        "action_count": 5,
        "secret_references": ["pw"],
    }
    assert len(owned) == 1
    _gone(owned[0])


def test_navigation_outside_the_origins_is_refused_by_the_browser(sites, owned) -> None:
    app, outside = sites
    args = launch(
        app.origin + "/form.html",
        [
            {"step_id": "leave", "action": "click", "locator": {"kind": "css", "selector": "#out"}},
            # the refused navigation shows Chromium's error page: the link is gone once it committed
            {
                "step_id": "gone",
                "action": "wait_for",
                "locator": {"kind": "css", "selector": "#out"},
                "state": "detached",
            },
            {"step_id": "after", "action": "wait_for_timeout", "duration_ms": 10},
        ],
        capture={"at_end": ["url", "screenshot"], "events": ["network"]},
    )
    r = _ok(args)["normalized_result"]
    assert outside.log == []  # nothing reached the other origin
    failed_steps = [s for s in r["steps"] if s["status"] == "failed"]  # the click, or the wait its navigation ended
    assert len(failed_steps) == 1 and "refused: outside allowed_origins" in str(failed_steps[0]["error"])
    after = r["steps"][-1]
    assert after["status"] == "cancelled" and after["artifacts"]["url"]["state"] == "missing"
    assert "action" in r["completeness"]["missing_sections"]
    failed = [e for e in r["events"]["items"] if e["kind"] == "request-failed"]
    assert [e["url"] for e in failed] == [outside.origin + "/landing.html"]
    _gone(owned[0])


def test_request_replay_answers_without_the_network(sites, owned) -> None:
    app, _ = sites
    args = launch(
        app.origin + "/form.html",
        [
            {
                "step_id": "loaded",
                "action": "wait_for",
                "locator": {"kind": "css", "selector": "#data:not(:empty)"},
                "state": "attached",
            }
        ],
        request_replay={
            "mode": "exact",
            "unmatched": "passthrough-declared-origins",
            "routes": [
                {
                    "route_id": "data",
                    "method": "GET",
                    "request": {"url": app.origin + "/api/data.json"},
                    "response": {
                        "kind": "response",
                        "status": 200,
                        "headers": [
                            {"name": "content-type", "value": {"source": "literal", "value": "application/json"}}
                        ],
                        "body": {"source": "literal", "value": '{"from": "replay"}'},
                    },
                }
            ],
        },
        capture={"at_end": ["dom", "screenshot"]},
    )
    r = _ok(args)["normalized_result"]
    assert "/api/data.json" not in app.paths() and "/form.html" in app.paths()
    assert '<p id="data">{"from": "replay"}</p>' in r["steps"][-1]["artifacts"]["dom"]["value"]["text"]
    shot = r["steps"][-1]["artifacts"]["screenshot"]["value"]
    import base64

    png = base64.b64decode(shot["data_base64"])
    assert png[12:16] == b"IHDR" and struct.unpack(">II", png[16:24]) == (1280, 720)  # the emulated viewport
    assert shot["sha256"] == hashlib.sha256(png).hexdigest()
    assert r["completeness"]["status"] == "complete" and r["completeness"]["equality_eligible"] is True
    _gone(owned[0])


def test_a_step_past_its_deadline_fails_and_the_rest_do_not_run(sites, owned) -> None:
    app, _ = sites
    args = launch(
        app.origin + "/form.html",
        [
            {
                "step_id": "never",
                "action": "wait_for",
                "locator": {"kind": "css", "selector": "#absent"},
                "state": "attached",
                "timeout_ms": 300,
            },
            {"step_id": "later", "action": "click", "locator": {"kind": "css", "selector": "#ok"}},
        ],
    )
    r = _ok(args)["normalized_result"]
    assert [s["status"] for s in r["steps"]] == ["completed", "failed", "cancelled"]
    assert r["steps"][1]["error"] == "wait_for did not complete within 300 ms"
    _gone(owned[0])


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (
            {
                "actions": [
                    {
                        "step_id": "x",
                        "action": "goto",
                        "destination": {"url": "http://127.0.0.2:1/"},
                        "wait_until": "load",
                    }
                ]
            },
            "actions[0].destination",
        ),
        (
            {
                "actions": [
                    {
                        "step_id": "x",
                        "action": "fill",
                        "locator": {"kind": "css", "selector": "#q"},
                        "value": {"source": "secret", "secret_id": "nope"},
                    }
                ]
            },
            "secrets",
        ),
        ({"actions": [{"step_id": "x", "action": "wait_for_timeout", "duration_ms": 1}] * 2}, "actions"),
        ({"start_url": {"url": "http://user:pw@127.0.0.1:1/"}}, "start_url"),
        (
            {"secrets": [{"secret_id": "s", "environment_variable": "REA_TEST_UNSET_VARIABLE_FOR_SCENARIO"}]},
            "secrets[0].environment_variable",
        ),
        (
            {"browser": {"mode": "connect", "cdp_endpoint": "http://192.0.2.1:9222", "target_id": "t"}},
            "browser.cdp_endpoint",
        ),
        ({"browser": {"mode": "launch", "executable_path": "/nonexistent/chromium"}}, "browser.executable_path"),
    ],
)
def test_bad_scenarios_are_refused_before_a_browser_starts(change, field, owned) -> None:
    args = {
        **launch("http://127.0.0.1:1/", [{"step_id": "x", "action": "wait_for_timeout", "duration_ms": 1}]),
        **change,
    }
    e = _err(args)
    assert e["code"] == "invalid_request" and e["details"]["field"] == field, e
    assert owned == []


def test_connect_mode_drives_the_callers_target_and_leaves_it_open(browser, sites) -> None:  # noqa: F811
    app, _ = sites
    tid = open_page(browser.endpoint, app.origin + "/result.html", "result")
    try:
        args = {
            "browser": {"mode": "connect", "cdp_endpoint": browser.endpoint, "target_id": tid},
            "start_url": {"url": app.origin + "/form.html"},
            "actions": [
                {
                    "step_id": "agree",
                    "action": "check",
                    "locator": {"kind": "role", "role": "checkbox", "name": "Agree"},
                }
            ],
            "capture": {"at_end": ["url"]},
        }
        r = _ok(args)["normalized_result"]
        assert tid in {t["id"] for t in targets(browser.endpoint)}
    finally:
        close_page(browser.endpoint, tid)
    assert r["browser"]["mode"] == "connect" and r["browser"]["cleanup"] == "disconnected-external"
    assert r["steps"][1]["status"] == "completed" and r["steps"][1]["after_url"] == app.origin + "/form.html"


def test_over_mcp_and_cli(sites, tmp_path) -> None:
    app, _ = sites
    args = launch(
        app.origin + "/form.html",
        [
            {
                "step_id": "type",
                "action": "fill",
                "locator": {"kind": "test_id", "value": "q"},
                "value": {"source": "secret", "secret_id": "pw"},
            },
            {"step_id": "send", "action": "press", "locator": {"kind": "test_id", "value": "q"}, "key": "Enter"},
            {
                "step_id": "see",
                "action": "wait_for",
                "locator": {"kind": "css", "selector": "#result"},
                "state": "attached",
            },
        ],
        secrets=[{"secret_id": "pw", "environment_variable": "REA_TEST_SCENARIO_SECRET"}],
        capture={"at_end": ["url", "dom"]},
    )

    async def main() -> tuple[Any, Any]:
        async with connect(REA_TEST_SCENARIO_SECRET=SECRET) as s:
            good = await s.call_tool("capture_browser_scenario", args)
            bad = await s.call_tool(
                "capture_browser_scenario", {**args, "allowed_origins": ["http://127.0.0.1:1/path"]}
            )
            return good, bad

    good, bad = anyio.run(main)
    value = evidence(good)
    assert SECRET not in json.dumps(value)
    assert value["normalized_result"]["steps"][-1]["after_url"] == app.origin + "/result.html?q=[redacted:pw]&color=r"
    assert f"/result.html?q={SECRET}&color=r" in app.paths()
    error(bad, "invalid_request")
    spec = tmp_path / "scenario.json"
    spec.write_text(json.dumps(args))
    env = clean_env(REA_TEST_SCENARIO_SECRET=SECRET)
    text = subprocess.run(
        [*rea_command(), "capture-browser-scenario", str(spec)], capture_output=True, text=True, env=env
    )
    assert text.returncode == 0, text.stderr[-2000:]
    assert "see              wait_for         completed" in text.stdout and SECRET not in text.stdout
    as_json = subprocess.run(
        [*rea_command(), "capture-browser-scenario", json.dumps(args), "--json"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert as_json.returncode == 0, as_json.stderr[-2000:]
    assert json.loads(as_json.stdout)["normalized_result"]["scenario"]["action_count"] == 3
    broken = subprocess.run(
        [*rea_command(), "capture-browser-scenario", "{not json"], capture_output=True, text=True, env=env
    )
    assert broken.returncode != 0 and "not JSON" in broken.stdout + broken.stderr


# ------------------------------------------------------------------ compare_web_captures

STEADY = [
    {"step_id": "see", "action": "wait_for", "locator": {"kind": "css", "selector": "#result"}, "state": "visible"}
]
STEADY_CAPTURE = {"at_end": ["url", "dom", "history"], "events": ["console"]}


def _scenario(app: LoggedSite, **capture: Any) -> dict[str, Any]:
    args = launch(app.origin + "/result.html", STEADY, capture={**STEADY_CAPTURE, **capture})
    return _ok(args)["normalized_result"]


def _compare(args: dict[str, Any]) -> dict[str, Any]:
    reply, _ = call("compare_web_captures", args)
    assert isinstance(reply, Success), reply
    return dict(reply.unwrap()["normalized_result"])


def test_scenario_comparison_is_unchanged_changed_or_unknown_from_the_evidence(sites, tmp_path) -> None:
    app, _ = sites
    first, second = _scenario(app), _scenario(app)
    same = _compare({"before_scenario": first, "after_scenario": second})
    assert same["overall_status"] == "unchanged" and same["alignment"]["status"] == "aligned"
    assert same["normalization"]["built_in_rules"][0] == "ignore_step_elapsed_ms"
    app.write("result.html", RESULT.replace("done", "done again"))
    changed = _compare({"before_scenario": first, "after_scenario": _scenario(app)})
    assert changed["overall_status"] == "changed"
    last = changed["steps"][-1]
    assert [(d["artifact"], d["status"]) for d in last["artifact_diffs"]] == [("dom", "changed")]
    # a rule that maps the new text back makes them equal again, and is committed in the result
    rule = {"rule_id": "r1", "artifacts": ["dom"], "match": "done again", "replacement": "done"}
    app.write("result.html", RESULT.replace("done", "done again"))
    normalized = _compare(
        {"before_scenario": first, "after_scenario": _scenario(app), "normalization": {"rules": [rule]}}
    )
    assert normalized["overall_status"] == "unchanged" and normalized["normalization"]["rules"] == [rule]
    # an event family the provider cannot observe leaves the capture incomplete: never unchanged
    app.write("result.html", RESULT)
    partial = _scenario(app, events=["console", "websockets"])
    assert partial["completeness"]["equality_eligible"] is False
    unknown = _compare({"before_scenario": first, "after_scenario": partial})
    assert unknown["overall_status"] == "unknown"
    # a step that is not on both sides is an alignment failure
    shortened = {**second, "steps": [second["steps"][0], {**second["steps"][1], "step_id": "other"}]}
    misaligned = _compare({"before_scenario": first, "after_scenario": shortened})
    assert misaligned["overall_status"] == "unknown"
    assert {f["code"] for f in misaligned["alignment"]["failures"]} == {"missing_before_step", "missing_after_step"}

    # a capture that lost part of itself is refused, never compared (retained events without their items)
    cut = {**first, "events": {**first["events"], "items": first["events"]["items"][1:]}}
    reply, _ = call("compare_web_captures", {"before_scenario": cut, "after_scenario": second})
    assert isinstance(reply, Failure) and reply.failure().details["field"] == "before_scenario"
    lying = {**first, "steps": first["steps"][:1]}
    reply, _ = call("compare_web_captures", {"before_scenario": first, "after_scenario": lying})
    assert isinstance(reply, Failure) and "one entry per action" in reply.failure().message

    async def main() -> tuple[Any, Any, Any]:
        async with connect() as s:
            ok = await s.call_tool("compare_web_captures", {"before_scenario": first, "after_scenario": second})
            both = await s.call_tool(
                "compare_web_captures",
                {"before_scenario": first, "after_scenario": second, "before": {"inspection": {}}},
            )
            half = await s.call_tool("compare_web_captures", {"before_scenario": first})
            return ok, both, half

    ok, both, half = anyio.run(main)
    assert evidence(ok)["normalized_result"]["overall_status"] == "unchanged"
    assert error(both, "invalid_request")
    assert error(half, "invalid_request")["details"]["field"] == "after_scenario"
    (tmp_path / "a.json").write_text(json.dumps(first))
    (tmp_path / "b.json").write_text(json.dumps(partial))
    cli = subprocess.run(
        [*rea_command(), "compare-web-captures", str(tmp_path / "a.json"), str(tmp_path / "b.json")],
        capture_output=True,
        text=True,
        env=clean_env(),
    )
    assert cli.returncode == 0, cli.stderr[-2000:]
    assert "overall unknown" in cli.stdout


def test_passive_comparison_by_dimension(browser, sites, tmp_path) -> None:  # noqa: F811
    app, _ = sites
    a = open_page(browser.endpoint, app.origin + "/result.html", "result")
    b = open_page(browser.endpoint, app.origin + "/form.html", "form")
    try:
        inspect = {"cdp_endpoint": browser.endpoint, "observation_ms": 0}
        one = _ok_tool("inspect_web_page", {**inspect, "target_id": a})
        again = _ok_tool("inspect_web_page", {**inspect, "target_id": a})
        other = _ok_tool("inspect_web_page", {**inspect, "target_id": b})
    finally:
        close_page(browser.endpoint, a)
        close_page(browser.endpoint, b)
    same = _compare({"before": {"inspection": one}, "after": {"inspection": again}})
    assert same["dimensions"]["dom_structure"]["status"] == "unchanged"
    assert same["dimensions"]["webmcp"]["status"] == "unknown"  # recorded on neither side: not equal by default
    assert same["overall_status"] == "unknown"
    differ = _compare({"before": {"inspection": one}, "after": {"inspection": other}})
    dom = differ["dimensions"]["dom_structure"]
    assert differ["overall_status"] == "changed" and dom["status"] == "changed"
    assert dom["total_changes"] == len(dom["changes"]) + dom["omitted_changes"] > 0
    assert any(c["change"] == "added" for c in dom["changes"])  # the form page has more nodes
    capped = _compare({"before": {"inspection": one}, "after": {"inspection": other}, "max_changes": 1})
    kept = sum(len(d["changes"]) for d in capped["dimensions"].values())
    assert kept == 1 and capped["dimensions"]["dom_structure"]["omitted_changes"] >= dom["total_changes"] - 1
    (tmp_path / "one.json").write_text(json.dumps(one))
    (tmp_path / "other.json").write_text(json.dumps(other))
    cli = subprocess.run(
        [*rea_command(), "compare-web-captures", str(tmp_path / "one.json"), str(tmp_path / "other.json"), "--json"],
        capture_output=True,
        text=True,
        env=clean_env(),
    )
    assert cli.returncode == 0, cli.stderr[-2000:]
    assert json.loads(cli.stdout)["normalized_result"]["dimensions"]["dom_structure"]["status"] == "changed"


def _ok_tool(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    reply, _ = call(tool, args)
    assert isinstance(reply, Success), reply
    return dict(reply.unwrap()["normalized_result"])
