"""capture_process_scenario's checkpoints and reactive machine on real processes.

Ground truth is the captured program's own: the files it wrote (read here with os and hashlib), its exit code
(computed here from what it wrote) and what it printed; a stopped run is checked gone by pid and process group
with psutil. Refusals name the exact field of the machine or checkpoint that is wrong.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from artifact_fixtures import call
from mcp_client import connect
from process_fixtures import _gone, _group_gone
from support import clean_env, rea_command

ROOT = Path(__file__).resolve().parents[2]
PROMPTS = r"""
import getpass, hashlib, sys
name = input("Name? ")
with open("name.txt", "w") as f:
    f.write(name)
print("saved name", flush=True)
age = input("Age? ")
with open("age.txt", "w") as f:
    f.write(age)
secret = getpass.getpass("Password: ")
with open("secret.txt", "w") as f:
    f.write(hashlib.sha256(secret.encode()).hexdigest())
print(f"bye {name} {age}", flush=True)
sys.exit(int(age) % 7)
"""


def text(literal: str, since: str = "state_entry", consume: bool = True, occurrence: int = 1) -> dict:
    return {"kind": "terminal_text", "view": "decoded", "encoding": "utf8", "literal": literal, "case_sensitive": True,
            "control_sequences": "include", "occurrence": occurrence, "since": {"kind": since}, "consume": consume}  # fmt: skip


def exited(code: int) -> dict:
    return {"kind": "event", "source": "lifecycle", "exact": {"kind": "root_exit", "code": code, "signal": None},
            "ignore_fields": ["at_ms"], "since": {"kind": "scenario_start"}, "consume": False,
            "cardinality": {"min": 1, "max": 1}}  # fmt: skip


def send(data: str, sensitive: bool = False) -> dict:
    return {"type": "send_input", "data": data, "sensitive": sensitive}


def on(ident: str, when: dict, actions: list, goto: str | None = None, priority: int = 0, uses: int = 1) -> dict:
    target = {"kind": "goto", "state": goto} if goto else {"kind": "finish", "outcome": "passed"}
    return {"id": ident, "priority": priority, "max_uses": uses, "when": when, "actions": actions, "target": target}


def state(ident: str, *transitions: dict, deadline_ms: int = 10_000, visits: int = 1) -> dict:
    return {"id": ident, "max_visits": visits, "deadline_ms": deadline_ms, "on": list(transitions)}


def machine(*states: dict, deadline_ms: int = 20_000) -> dict:
    return {"version": 1, "initial_state": states[0]["id"], "deadline_ms": deadline_ms, "states": list(states)}


PROMPT_MACHINE = machine(
    state("ask_name", on("name", text("Name? "), [send("Ada\n")], "ask_age")),
    state("ask_age", on("age", text("Age? "), [send("36\n")], "ask_password")),
    state(
        "ask_password",
        on(
            "password",
            text("Password: "),
            [{"type": "checkpoint", "name": "aged"}, send("s3cret\n", sensitive=True)],
            "wait",
        ),
    ),  # fmt: skip
    state("wait", on("exit", exited(36 % 7), [])),
)
CHECKPOINTS = [
    {"name": "named", "trigger": {"type": "terminal_literal", "value": "saved name"}},
    {"name": "at_exit", "trigger": {"type": "root_exit"}},
    {"name": "done", "trigger": {"type": "settled"}},
    {"name": "never", "trigger": {"type": "time", "at_ms": 250_000}},
]


def _capture(**args) -> dict:
    reply, _ = call("capture_process_scenario", {"approved": True, **args})
    return reply.unwrap()["normalized_result"]


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def _files(checkpoint: dict) -> dict[str, str]:
    return {Path(e["path"]).name: e["sha256"] for e in checkpoint["files"] if e["type"] == "file"}


def _prompt_run(tmp_path: Path) -> tuple[Path, Path, dict]:
    work = tmp_path / "work"
    work.mkdir()
    script = tmp_path / "prompts.py"
    script.write_text(PROMPTS)
    return work, script, {"executable": sys.executable, "arguments": ["-I", "-u", str(script)],
                          "working_directory": str(work), "filesystem_roots": [str(work)], "reactive": PROMPT_MACHINE,
                          "checkpoints": CHECKPOINTS, "timeout_ms": 20_000}  # fmt: skip


def _check_prompt_result(work: Path, result: dict) -> None:
    # the program's own record of what it was told
    assert (work / "name.txt").read_text() == "Ada" and (work / "age.txt").read_text() == "36"
    assert (work / "secret.txt").read_text() == hashlib.sha256(b"s3cret").hexdigest()
    assert result["exit"] == {"code": int((work / "age.txt").read_text()) % 7, "signal": None, "reason": "exited"}
    run = result["reactive_run"]
    assert (run["status"], run["outcome"], run["active_state"], run["controls"]) == ("finished", "passed", "wait", [])
    assert [t["transition_id"] for t in run["transitions"]] == ["name", "age", "password", "exit"]
    assert [t["state_after"] for t in run["transitions"]] == ["ask_age", "ask_password", "wait", None]
    assert run["transitions"][2]["action_types"] == ["checkpoint", "send_input"]
    terminal = "".join(f["data"] for f in result["frames"])
    assert "bye Ada 36" in terminal and "s3cret" not in terminal  # getpass turns the echo off
    sent = [(e["type"], e["data"]) for e in result["interaction_events"]]
    assert sent == [("input", "Ada\n"), ("input", "36\n"), ("input", "<sensitive>")]
    for t in run["transitions"][:3]:  # each answered the frame that asked
        assert all(i.startswith("frame.") for i in t["trigger_event_ids"])
        assert t["action_event_ids"][-1].startswith("interaction.")
    assert run["transitions"][3]["trigger_event_ids"] == ["lifecycle.0"]


def _check_prompt_checkpoints(work: Path, result: dict) -> None:
    final = _digests(work)
    names = [c["name"] for c in result["filesystem_checkpoints"]]
    assert names == ["before", "named", "aged", "at_exit", "done", "after_settlement"]
    by = {c["name"]: c for c in result["filesystem_checkpoints"]}
    # each checkpoint holds what the program had written by then, with the digests of the files it left
    assert _files(by["before"]) == {}
    assert _files(by["named"]) == {"name.txt": final["name.txt"]}
    assert _files(by["aged"]) == {k: final[k] for k in ("name.txt", "age.txt")}
    assert _files(by["at_exit"]) == _files(by["done"]) == _files(by["after_settlement"]) == final
    # and its effects against the one before it
    created = {n: [(Path(e["path"]).name, e["status"]) for e in by[n]["effects"]] for n in names}
    assert created == {"before": [], "named": [("name.txt", "created")], "aged": [("age.txt", "created")],
                       "at_exit": [("secret.txt", "created")], "done": [], "after_settlement": []}  # fmt: skip
    ats = [c["at_ms"] for c in result["filesystem_checkpoints"]]
    assert ats == sorted(ats)
    assert {"scope": "filesystem", "reason": "checkpoint never was not reached"} in result["residual_unknowns"]


def test_a_machine_answers_the_prompts_and_checkpoints_see_the_files_between_them(tmp_path):
    work, _, args = _prompt_run(tmp_path)
    reply, _ = call("capture_process_scenario", {"approved": True, **args})
    evidence = reply.unwrap()
    result = evidence["normalized_result"]
    assert "s3cret" not in json.dumps(evidence)  # sensitive input: not in the parameters, the manifest or a frame
    _check_prompt_result(work, result)
    _check_prompt_checkpoints(work, result)


def _stopped(result: dict, started: float) -> dict:
    assert time.monotonic() - started < 500  # stopped by the machine, not by the sleeper's 1000 s
    assert result["exit"]["reason"] == "reactive_stopped" and result["exit"]["signal"] == 15
    samples = result["process_samples"]
    assert samples and all(_gone(s["pid"]) and _group_gone(s["process_group_id"]) for s in samples)
    return result["reactive_run"]


WAITS = {"executable": "/bin/sh", "arguments": ["-c", "sleep 0.1; printf 'Ready> '; exec sleep 1000"]}


def test_a_machine_that_never_matches_ends_at_its_state_deadline_and_the_run_is_killed(tmp_path):
    started = time.monotonic()
    never = machine(state("login", on("pw", text("Password:"), [send("x\n")], "login"), deadline_ms=300, visits=2))
    run = _stopped(_capture(**WAITS, working_directory=str(tmp_path), reactive=never), started)
    assert (run["outcome"], run["active_state"], run["transitions"]) == ("predicate_timeout", "login", [])
    assert [c["kind"] for c in run["controls"]] == ["state_deadline"]


def test_the_machine_deadline_and_an_ambiguous_match_stop_the_run(tmp_path):
    started = time.monotonic()
    slow = machine(state("login", on("pw", text("Password:"), [])), deadline_ms=300)
    run = _stopped(_capture(**WAITS, working_directory=str(tmp_path), reactive=slow), started)
    assert run["outcome"] == "scenario_deadline" and [c["kind"] for c in run["controls"]] == ["scenario_deadline"]
    started = time.monotonic()
    both = machine(state("s", on("a", text("Ready> "), []), on("b", text("Ready"), [])))
    run = _stopped(_capture(**WAITS, working_directory=str(tmp_path), reactive=both), started)
    assert run["outcome"] == "ambiguous_match" and run["transitions"] == []


def test_priority_chooses_and_a_self_loop_consumes_each_prompt_once(tmp_path):
    script = (
        "i=0; while [ $i -lt 3 ]; do printf 'More? '; read a; echo \"got $a\" >> log.txt; i=$((i+1)); done; echo Done"
    )
    looping = machine(
        state(
            "loop",
            on("more", text("More? ", since="scenario_start"), [send("y\n")], "loop", priority=1, uses=3),
            on("done", text("Done", since="scenario_start"), [], priority=5),
            visits=4,
        ),  # fmt: skip
    )
    result = _capture(executable="/bin/sh", arguments=["-c", script], working_directory=str(tmp_path), reactive=looping)
    assert (tmp_path / "log.txt").read_text() == "got y\n" * 3
    run = result["reactive_run"]
    assert [t["transition_id"] for t in run["transitions"]] == ["more", "more", "more", "done"]
    assert run["outcome"] == "passed" and result["exit"] == {"code": 0, "signal": None, "reason": "exited"}


def test_a_root_that_exits_before_the_machine_finishes_is_target_lost(tmp_path):
    waiting = machine(state("s", on("never", text("Password:"), [])))
    result = _capture(executable="/bin/sh", arguments=["-c", "echo bye; exit 2"], working_directory=str(tmp_path),
                      reactive=waiting)  # fmt: skip
    assert result["exit"] == {"code": 2, "signal": None, "reason": "exited"}
    run = result["reactive_run"]
    assert run["outcome"] == "target_lost" and [c["kind"] for c in run["controls"]] == ["target_lost"]
    assert run["controls"][0]["after_capture_order"] >= 0


def _bad(**changes) -> dict:
    return {**PROMPT_MACHINE, **changes}


def _bad_state(**changes) -> dict:
    first = PROMPT_MACHINE["states"][0]
    return _bad(states=[{**first, **changes}, *PROMPT_MACHINE["states"][1:]])


def _bad_when(when: dict) -> dict:
    return _bad_state(on=[{**PROMPT_MACHINE["states"][0]["on"][0], "when": when}])


def _nested(depth: int) -> dict:
    when = text("x")
    for _ in range(depth):
        when = {"kind": "repeat", "trigger": when, "min": 1, "max": 64}
    return when


REFUSALS = [
    ({"reactive": _bad(initial_state="nowhere")}, "reactive.initial_state"),
    ({"reactive": _bad(version=2)}, "reactive.version"),
    ({"reactive": _bad_state(id="ask_age")}, "reactive.states[1].id"),
    ({"reactive": _bad_state(on=[on("name", text("Name? "), [], "nowhere")])}, "reactive.states[0].on[0].target.state"),
    ({"reactive": _bad_state(deadline_ms=0)}, "reactive.states[0].deadline_ms"),
    (
        {"reactive": _bad_state(on=[on("a", text("x"), [], "ask_age"), on("a", text("y"), [], "ask_age")])},
        "reactive.states[0].on[1].id",
    ),  # fmt: skip
    ({"reactive": _bad_when(_nested(2))}, "reactive.states[0].on[0].when"),  # 64 x 64 evaluations: past the bound
    ({"reactive": _bad_when({**text("x"), "view": "rendered"})}, "reactive.states[0].on[0].when.view"),
    (
        {"reactive": _bad_when({"kind": "all", "triggers": [text("x"), {**text("y"), "literal": ""}]})},
        "reactive.states[0].on[0].when.triggers[1].literal",
    ),  # fmt: skip
    ({"reactive": _bad_when({**exited(0), "source": "http"})}, "reactive.states[0].on[0].when"),
    ({"reactive": _bad_when({**exited(0), "cardinality": {"min": 3, "max": 2}})}, "reactive.states[0].on[0].when"),
    (
        {"reactive": _bad_when({**text("x"), "since": {"kind": "checkpoint", "name": "unknown"}})},
        "reactive.states[0].on[0].when",
    ),  # fmt: skip
    (
        {
            "reactive": _bad_state(
                on=[
                    on(
                        "a",
                        text("x"),
                        [
                            {
                                "type": "send_signal",
                                "signal": "SIGINT",
                                "target": {"kind": "subject_id", "subject_id": "db"},
                            }
                        ],
                    )
                ]
            )
        },
        "reactive.states[0].on[0].actions[0].target",
    ),  # fmt: skip
    (
        {"reactive": _bad_state(on=[on("a", text("x"), [{"type": "send_input", "data": "x"}])])},
        "reactive.states[0].on[0].actions[0]",
    ),  # fmt: skip
    ({"checkpoints": [{"name": "before", "trigger": {"type": "root_exit"}}]}, "checkpoints[0].name"),
    ({"checkpoints": [CHECKPOINTS[1], CHECKPOINTS[1]]}, "checkpoints[1].name"),
    ({"checkpoints": [{"name": "t", "trigger": {"type": "time"}}]}, "checkpoints[0].trigger"),
    ({"replay": {"http": ["x"]}}, "replay.http"),
]


@pytest.mark.parametrize(("bad", "field"), REFUSALS, ids=[f for _, f in REFUSALS])
def test_bad_machines_and_checkpoints_are_refused_naming_the_field(tmp_path, bad, field):
    reply, _ = call("capture_process_scenario", {"approved": True, "executable": "/bin/true",
                                                 "working_directory": str(tmp_path), **bad})  # fmt: skip
    error = reply.failure()
    assert error.code == "invalid_request" and error.details["field"] == field, error


@pytest.mark.slow
def test_the_machine_over_mcp_and_the_cli(tmp_path):
    env = {"REA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    work, _, args = _prompt_run(tmp_path)

    async def main():
        async with connect(**env) as s:
            return (await s.call_tool("capture_process_scenario", {"approved": True, **args})).structured_content

    result = anyio.run(main)["normalized_result"]
    _check_prompt_result(work, result)
    _check_prompt_checkpoints(work, result)
    for made in work.iterdir():
        made.unlink()
    done = subprocess.run([*rea_command(), "call", "capture_process_scenario", "--json-args",
                           json.dumps({"approved": True, **args}), "--format", "json"],
                          capture_output=True, text=True, env=clean_env(**env), timeout=120)  # fmt: skip
    result = json.loads(done.stdout)["normalized_result"]
    _check_prompt_result(work, result)
    _check_prompt_checkpoints(work, result)


def _ended(code: int | None, signal: int | None) -> dict:
    return {**exited(0), "exact": {"kind": "root_exit", "code": code, "signal": signal}}


def test_resize_close_stdin_and_a_signal_to_the_root_reach_the_program(tmp_path):
    script = "printf 'Ready> '; cat > got.txt; stty size > size.txt; echo end"
    actions = [send("abc\n"), {"type": "resize", "columns": 100, "rows": 30}, {"type": "close_stdin"}]
    feed = machine(
        state("s", on("feed", text("Ready> "), actions, "wait")), state("wait", on("exit", _ended(0, None), []))
    )
    result = _capture(executable="/bin/sh", arguments=["-c", script], working_directory=str(tmp_path), reactive=feed)
    # the program's own record: what cat read until EOF, and the size stty read from its terminal
    assert (tmp_path / "got.txt").read_text() == "abc\n" and (tmp_path / "size.txt").read_text() == "30 100\n"
    assert result["reactive_run"]["outcome"] == "passed"
    assert [e["type"] for e in result["interaction_events"]] == ["input", "resize", "stdin_close"]
    stop = machine(
        state("s", on("stop", text("Ready> "), [{"type": "send_signal", "signal": "SIGTERM", "target": {"kind": "root"}}],
                      "wait")),
        state("wait", on("exit", _ended(None, 15), [])),
    )  # fmt: skip
    result = _capture(**WAITS, working_directory=str(tmp_path), reactive=stop)
    assert result["exit"] == {"code": None, "signal": 15, "reason": "exited"}
    assert result["reactive_run"]["outcome"] == "passed"


def test_a_time_checkpoint_sees_the_files_written_before_it(tmp_path):
    script = "echo 1 > early.txt; sleep 2; echo 2 > late.txt"
    timed = [{"name": "t600", "trigger": {"type": "time", "at_ms": 600}}]
    result = _capture(executable="/bin/sh", arguments=["-c", script], working_directory=str(tmp_path),
                      filesystem_roots=[str(tmp_path)], checkpoints=timed)  # fmt: skip
    final = _digests(tmp_path)
    by = {c["name"]: c for c in result["filesystem_checkpoints"]}
    assert by["t600"]["at_ms"] >= 600 and _files(by["t600"]) == {"early.txt": final["early.txt"]}
    assert [(Path(e["path"]).name, e["status"]) for e in by["after_settlement"]["effects"]] == [("late.txt", "created")]
    assert result["reactive_run"] is None
