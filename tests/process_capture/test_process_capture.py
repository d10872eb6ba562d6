"""capture_process_scenario and compare_process_captures on real executables (/bin/sh scripts, coreutils, a
gcc-built program), through validation, the program and the real handler (artifact_fixtures.call also checks
every reply against the advertised output schema).

Ground truth is observed apart from REA: the test's own os.lstat and SHA-256 of the files a run left, the exit
status of the same program run by subprocess, /proc for the host's network interfaces, and psutil/os.killpg
for whether anything of a killed group survives."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from artifact_fixtures import call
from effects import owned
from process_fixtures import _gone, _group_gone

C_SOURCE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
int main(int argc, char **argv) {
    const char *home = getenv("HOME");
    printf("argc=%d first=%s home=%s token=%s\n", argc, argc > 1 ? argv[1] : "-", home ? home : "(unset)",
           getenv("TOKEN") ? getenv("TOKEN") : "(unset)");
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) { execl("/bin/sleep", "sleep", "0.3", (char *)0); _exit(127); }
    int status = 0;
    waitpid(child, &status, 0);
    FILE *f = fopen("made.txt", "w");
    fputs(argc > 1 ? argv[1] : "none", f);
    fclose(f);
    return argc > 1 ? atoi(argv[1]) % 256 : 0;
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> Path:
    if shutil.which("gcc") is None:
        pytest.fail("gcc is not installed: run sh scripts/setup test")
    root = tmp_path_factory.mktemp("capture-bin")
    (root / "p.c").write_text(C_SOURCE)
    subprocess.run(["gcc", "-O0", "-o", str(root / "p"), str(root / "p.c")], check=True, capture_output=True)
    return root / "p"


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


LAST: dict = {}


def _capture(**args) -> dict:
    reply, _ = call("capture_process_scenario", {"approved": True, **args})
    LAST["evidence"] = reply.unwrap()  # the whole Evidence record, parameters included
    return reply.unwrap()["normalized_result"]


def _text(result: dict) -> str:
    return "".join(f["data"] for f in result["frames"])


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_script_run_matches_the_shell_and_the_files_it_left(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "keep.txt").write_text("keep\n")
    (work / "gone.txt").write_text("x")
    (work / "link").symlink_to("keep.txt")
    script = _script(
        tmp_path / "s.sh",
        'echo "hello $1"; echo new > new.txt; rm gone.txt; echo more >> keep.txt\n'
        'read line; echo "got:$line"; exit 3\n',
    )
    before = {p.name: (p.lstat().st_size, _sha256(p)) for p in work.iterdir() if p.is_file() and not p.is_symlink()}
    result = _capture(
        executable=str(script),
        working_directory=str(work),
        arguments=["world"],
        filesystem_roots=[str(work)],
        events=[{"type": "input", "at_ms": 150, "data": "abc\n"}],
        environment={"PATH": "/usr/bin:/bin"},
    )
    # the shell's own exit status for the same script (in a copy of the directory: it mutates files)
    copy = tmp_path / "copy"
    shutil.copytree(work, copy, symlinks=True, ignore=lambda *_: ["new.txt"])
    (copy / "gone.txt").write_text("x")
    (copy / "keep.txt").write_text("keep\n")
    shell = subprocess.run([str(script), "world"], cwd=copy, input=b"abc\n", capture_output=True)
    assert result["exit"] == {"code": shell.returncode, "signal": None, "reason": "exited"} and shell.returncode == 3
    assert "hello world" in _text(result) and "got:abc" in _text(result)
    assert result["rendered_frames"][-1]["lines"][:3] == ["hello world", "abc", "got:abc"]
    assert result["interaction_events"][0]["outcome"] == "dispatched"
    effects = {Path(e["path"]).name: e for e in result["filesystem_effects"]}
    assert {k: e["status"] for k, e in effects.items()} == {
        "gone.txt": "deleted",
        "keep.txt": "modified",
        "new.txt": "created",
    }
    for name in ("keep.txt", "new.txt"):  # the test's own lstat and SHA-256 of what the run left
        after = effects[name]["after"]
        assert (after["size"], after["sha256"], after["mode"]) == (
            (work / name).lstat().st_size,
            _sha256(work / name),
            (work / name).lstat().st_mode,
        )
    assert (effects["gone.txt"]["before"]["size"], effects["gone.txt"]["before"]["sha256"]) == before["gone.txt"]
    link = next(e for e in result["files_after"] if e["path"].endswith("/link"))
    assert link["type"] == "symlink" and link["symlink_target"] == "keep.txt" and link["sha256"] is None
    assert result["cleanup"] == {"owned_process_group": "verified", "temporary_root": "removed"}
    assert result["settlement"]["state"] == "quiesced" and not result["truncated"]


def test_a_compiled_program_sees_only_its_declared_environment_and_its_child_is_sampled(program, tmp_path):
    os.environ["REA_TEST_INHERITED"] = "yes"
    result = _capture(
        executable=str(program),
        working_directory=str(tmp_path),
        arguments=["7"],
        environment={"TOKEN": "s3cret-value"},
        secret_aliases=["TOKEN"],
    )
    direct = subprocess.run([str(program), "7"], cwd=tmp_path, capture_output=True, env={"TOKEN": "x"})
    assert result["exit"]["code"] == direct.returncode == 7
    text = _text(result)
    assert "argc=2 first=7 home=(unset) token=<secret>" in text and "s3cret-value" not in str(LAST["evidence"])
    assert LAST["evidence"]["parameters"]["environment"] == {"TOKEN": "<secret>"}
    assert result["manifest"]["scenario"]["environment"] == {"TOKEN": "<secret>"}
    commands = [s["command"] for s in result["process_samples"]]
    assert f"{program} 7" in commands and "sleep 0.3" in commands
    root = next(s for s in result["process_samples"] if s["command"] == f"{program} 7")
    child = next(s for s in result["process_samples"] if s["command"] == "sleep 0.3")
    assert child["parent_pid"] == root["pid"] == root["process_group_id"] == root["session_id"]
    assert result["manifest"]["executable_sha256"] == _sha256(program)
    assert (tmp_path / "made.txt").read_text() == "7"


def test_coreutils_env_prints_exactly_the_declared_and_inherited_variables(tmp_path):
    os.environ["REA_TEST_INHERITED"] = "passed"
    result = _capture(
        executable=shutil.which("env") or "/usr/bin/env",
        working_directory=str(tmp_path),
        environment={"ONLY": "this"},
        inherit_environment=["REA_TEST_INHERITED", "REA_TEST_ABSENT_NAME"],
    )
    lines = sorted(line for line in _text(result).replace("\r", "").split("\n") if line)
    assert lines == ["ONLY=this", "REA_TEST_INHERITED=passed"]


def test_the_network_namespace_has_no_host_interface(tmp_path):
    host = {line.split(":")[0].strip() for line in Path("/proc/net/dev").read_text().splitlines()[2:]}
    none = _capture(executable="/bin/cat", arguments=["/proc/net/dev"], working_directory=str(tmp_path))
    loop = _capture(executable="/bin/sh", arguments=["-c", "cat /sys/class/net/lo/operstate /proc/net/dev"],
                    working_directory=str(tmp_path), network_access="loopback")  # fmt: skip
    seen = {line.split(":")[0].strip() for line in _text(none).replace("\r", "").split("\n")[2:] if ":" in line}
    assert seen == {"lo"} and host - {"lo"}, (seen, host)
    assert "down" in _text(none).lower() or "lo:" in _text(none)
    assert _text(loop).replace("\r", "").split("\n")[0] in ("unknown", "up")  # lo is up (virtual: 'unknown')
    assert not [u for u in none["residual_unknowns"] if u["scope"] == "protocol"]
    # the loopback observer ran and saw no traffic: the protocol dimension is complete and empty
    assert not [u for u in loop["residual_unknowns"] if u["scope"] == "protocol"] and loop["protocol_events"] == []


def test_command_shims_answer_record_and_exhaust(tmp_path):
    script = _script(
        tmp_path / "s.sh",
        "git status; echo rc=$?; git status; echo rc=$?; curl http://example.invalid; echo rc=$?; git log -1; echo rc=$?\n",
    )
    shims = [
        {"name": "git", "routes": [
            {"arguments": ["status"], "outputs": [{"at_ms": 0, "stream": "stdout", "data": "clean\n"}],
             "termination": {"type": "exit", "code": 0}},
            {"arguments": ["log", "-1"], "termination": {"type": "signal", "signal": "SIGTERM"}},
        ]},
        {"name": "curl", "routes": [{"arguments": ["x"], "termination": {"type": "exit", "code": 0}}]},
    ]  # fmt: skip
    result = _capture(executable=str(script), working_directory=str(tmp_path), command_shims=shims)
    text = _text(result).replace("\r", "")
    assert "clean\nrc=0\n" in text and "rc=127\n" in text and "rc=143" in text
    calls = [(e["command"], e["arguments"], e["route_index"], e["outcome"]) for e in result["shim_events"]]
    assert calls == [
        ("git", ["status"], 0, "matched"),
        ("git", ["status"], None, "exhausted"),
        ("curl", ["http://example.invalid"], None, "unmatched"),
        ("git", ["log", "-1"], 1, "matched"),
    ]
    assert all(e["working_directory"] == str(tmp_path) for e in result["shim_events"])


def test_a_deadline_kills_the_group_and_nothing_survives(tmp_path):
    started = time.monotonic()
    result = _capture(executable="/bin/sleep", arguments=["1000"], working_directory=str(tmp_path), timeout_ms=300)
    # the 300 ms deadline ended it, not the sleeper (1000 s): a bound far from both, so load cannot race it
    assert time.monotonic() - started < 500
    assert result["exit"] == {"code": None, "signal": 15, "reason": "timeout"}
    assert result["settlement"] == {**result["settlement"], "state": "alive_at_deadline", "cleanup_outcome": "cleaned"}
    sleeper = next(s for s in result["process_samples"] if s["command"] == "/bin/sleep 1000")
    assert _gone(sleeper["pid"]) and _group_gone(sleeper["process_group_id"])
    assert not [name for name in owned._STOPS if name == f"process-capture-{sleeper['pid']}"]


def test_a_background_child_left_by_the_root_is_killed_after_settlement(tmp_path):
    # the child ignores SIGHUP: otherwise the kernel hangs it up when the session leader exits
    script = _script(tmp_path / "bg.sh", "(trap '' HUP; exec sleep 1000) &\necho started\nsleep 0.2\n")
    result = _capture(executable=str(script), working_directory=str(tmp_path), settle_ms=100)
    assert result["exit"] == {"code": 0, "signal": None, "reason": "exited"}
    assert result["settlement"]["state"] == "alive_at_deadline" and result["settlement"]["cleanup_outcome"] == "cleaned"
    child = next(s for s in result["process_samples"] if s["command"] == "sleep 1000")
    assert _gone(child["pid"]) and _group_gone(child["process_group_id"])


def test_idle_output_and_signal_events(tmp_path):
    idle = _capture(executable="/bin/sh", arguments=["-c", "echo hi; exec sleep 1000"], working_directory=str(tmp_path),
                    idle_timeout_ms=300)  # fmt: skip
    assert idle["exit"]["reason"] == "idle_timeout"
    signalled = _capture(executable="/bin/sleep", arguments=["1000"], working_directory=str(tmp_path),
                         events=[{"type": "signal", "at_ms": 100, "signal": "SIGINT"}])  # fmt: skip
    assert signalled["exit"] == {"code": None, "signal": 2, "reason": "exited"}
    assert signalled["interaction_events"][0]["data"] == "SIGINT"


def test_limits_truncate_what_is_retained_and_say_so(tmp_path):
    (tmp_path / "a").write_bytes(b"a" * 100)
    (tmp_path / "b").write_bytes(b"b" * 100)
    result = _capture(executable="/bin/sh", arguments=["-c", "seq 1 2000"], working_directory=str(tmp_path),
                      filesystem_roots=[str(tmp_path)], limits={"output_bytes": 100, "file_bytes": 150})  # fmt: skip
    assert result["truncated"] is True
    assert sum(len(f["data"]) for f in result["frames"]) <= 100
    scopes = {u["scope"] for u in result["residual_unknowns"]}
    assert {"terminal", "filesystem"} <= scopes
    assert [e["sha256"] is None for e in result["files_before"]] == [False, True]


def test_refusals_are_canonical(tmp_path):
    args = {"executable": "/bin/true", "working_directory": str(tmp_path)}
    for bad, field in (
        ({"approved": False}, "approved"),
        ({"approved": True, "network_access": "host"}, "network_access"),
        ({"approved": True, "checkpoints": ["x"]}, "checkpoints"),
        ({"approved": True, "executable": str(tmp_path)}, "executable"),
        ({"approved": True, "working_directory": str(tmp_path / "absent")}, "working_directory"),
        ({"approved": True, "secret_aliases": ["NOPE"]}, "secret_aliases"),
        # advertised as described objects, checked in full by the program: the refusal names the item's field
        ({"approved": True, "events": [{"at_ms": -5, "type": "input", "data": "x"}]}, "events[0].at_ms"),
        (
            {
                "approved": True,
                "command_shims": [
                    {"name": "git", "routes": [{"arguments": [], "termination": {"type": "exit", "code": 300}}]}
                ],
            },
            "command_shims[0].routes[0].termination.code",
        ),
    ):
        reply, _ = call("capture_process_scenario", {**args, **bad})
        error = reply.failure()
        assert error.code == "invalid_request" and field in str(error.details), (bad, error)


def test_two_runs_compare_unchanged_and_differences_are_found_where_they_first_appear(program, tmp_path):
    scenario = {"approved": True, "executable": str(program), "working_directory": str(tmp_path),
                "filesystem_roots": [str(tmp_path)], "arguments": ["5"]}  # fmt: skip
    runs, conn = [], None
    for extra in ({}, {}, {"environment": {"TOKEN": "other"}}, {"arguments": ["6"]}):
        reply, conn = call("capture_process_scenario", {**scenario, **extra}, conn)
        runs.append(reply.unwrap()["evidence_id"])
        (tmp_path / "made.txt").unlink()

    def compare(left: str, right: str) -> dict:
        reply, _ = call("compare_process_captures", {"left_evidence_id": left, "right_evidence_id": right}, conn)
        return reply.unwrap()["normalized_result"]

    same = compare(runs[0], runs[1])
    assert same["status"] == "unchanged" and same["first_divergence"] == {"status": "none"}, same["first_divergence"]
    # only the output differs (the environment is in no command line): the terminal's first line
    token = compare(runs[0], runs[2])
    assert (token["terminal"], token["exit"], token["process"], token["filesystem"]) == ("changed", *["unchanged"] * 3)
    first = token["first_divergence"]
    assert (first["dimension"], first["index"]) == ("terminal", 0)
    assert "token=(unset)" in first["left"]["line"] and "token=other" in first["right"]["line"]
    # another argument: its command line (sampled at launch) or its first line, whichever was observed first
    argument = compare(runs[0], runs[3])
    assert (argument["status"], argument["exit"], argument["terminal"], argument["filesystem"]) == ("changed",) * 4
    first = argument["first_divergence"]
    assert first["dimension"] in ("process", "terminal")
    texts = (str(first["left"]), str(first["right"]))
    assert ("p 5" in texts[0] and "p 6" in texts[1]) or ("first=5" in texts[0] and "first=6" in texts[1])
    missing, conn = call(
        "compare_process_captures", {"left_evidence_id": runs[0], "right_evidence_id": "ev_" + "0" * 64}, conn
    )
    assert missing.failure().code == "evidence_integrity_mismatch"
    stale, conn = call("compare_process_captures", {"left_evidence_id": runs[0], "right_evidence_id": runs[1],
                                                    "max_capture_age_ms": 0}, conn)  # fmt: skip
    assert stale.failure().details["field"] == "max_capture_age_ms"


def test_captures_of_different_scenarios_are_refused(tmp_path):
    base = {"approved": True, "executable": "/bin/true", "working_directory": str(tmp_path)}
    left, conn = call("capture_process_scenario", base)
    right, conn = call("capture_process_scenario", {**base, "terminal": {"columns": 100}}, conn)
    ids = {"left_evidence_id": left.unwrap()["evidence_id"], "right_evidence_id": right.unwrap()["evidence_id"]}
    error = call("compare_process_captures", ids, conn)[0].failure()
    assert error.code == "invalid_request" and error.details["differing_fields"] == ["terminal"]


def test_a_program_that_never_stops_writing_is_still_stopped_at_its_deadline(tmp_path):
    started = time.monotonic()
    result = _capture(executable=shutil.which("yes") or "/usr/bin/yes", working_directory=str(tmp_path),
                      timeout_ms=500, limits={"output_bytes": 10_000})  # fmt: skip
    assert time.monotonic() - started < 300  # `yes` never ends: only its 500 ms deadline can have stopped it
    assert result["exit"]["reason"] == "timeout" and result["truncated"] is True
    assert sum(len(f["data"].encode()) for f in result["frames"]) <= 10_000
