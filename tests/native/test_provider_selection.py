"""Provider selection: one parser and precedence for MCP, the environment and the CLI; ambiguity
typed; a binding no tool but open_binary/close_binary can replace, runtime failures included."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import anyio
import attrs
import pytest
from returns.result import Success

from rea.catalog import BY_NAME
from rea.native.providers import binding, select_provider
from rea.native.selector import ACCEPTED, Choice, choose
from rea.program import Outcome
from rea.session import Session, Target, open_target
from rea.workflows import BindingChanged, gated
from scripted import CTX, HOST_PROVIDERS, drive
from support import clean_env, rea_command

ANGR = binding(HOST_PROVIDERS[0], "request")


def test_precedence_is_request_then_environment_then_auto():
    assert choose("ghidra", "angr") == Choice(provider_id="ghidra", source="request")
    assert choose(None, "angr") == choose("auto", "angr") == Choice(provider_id="angr", source="environment")
    assert choose(None, None) == choose("auto", "auto") == Choice(provider_id=None, source="auto")


def test_ambiguity_is_typed_with_every_candidate():
    facts = [
        {"id": "angr", "available": False, "version": None, "code": "runtime_missing", "reason": "no angr"},
        {"id": "ghidra", "available": True, "version": "11.3", "bindable": True},
        {"id": "ida", "available": True, "version": "9.0", "bindable": True},
    ]
    error = select_provider(facts, None, None, "elf").failure()
    assert error.code == "capability_unavailable" and error.details["selection_reason"] == "ambiguous"
    assert error.details["candidate_ids"] == ["angr", "ghidra", "ida"]
    assert error.details["selection"]["usable"] == ["ghidra", "ida"]
    assert [r["provider_id"] for r in error.details["rejections"]] == ["angr"]
    chosen = select_provider(facts, "ida", None, "elf").unwrap()  # a request settles it
    assert chosen["provider"]["id"] == "ida" and chosen["selection_source"] == "request"


def test_no_tool_but_open_and_close_can_replace_the_binding():
    target = Target(path="/t/a", name="a", sha256="a" * 64, size=1, format="elf", kind="file")
    session = open_target(Session(), target, "run", ANGR)
    other = {**ANGR, "provider": {"id": "ghidra", "name": "Ghidra", "version": "11"}}

    def swaps(s, args, ctx):
        return Outcome(session=attrs.evolve(s, provider_binding=other), reply=Success({"result": None}))

    def swaps_later(s, args, ctx):
        yield from ()
        return swaps(s, args, ctx)

    for program in (swaps, swaps_later):
        with pytest.raises(BindingChanged):
            drive(gated(BY_NAME["list_unknowns"], program), session, {})
    reopened = drive(gated(BY_NAME["open_binary"], swaps), session, {})[0]  # open_binary may rebind
    assert reopened.session.provider_binding == other
    # through the interpreter the violation is an execution_failure and the session is unchanged
    from effects.interpreter import run
    from effects.progress import Progress

    outcome = anyio.run(lambda: run(gated(BY_NAME["list_unknowns"], swaps), session, {}, CTX, Progress(None)))
    assert outcome.reply.failure().code == "execution_failure" and outcome.session is session


# ------------------------------------------------------------------ real boundaries


@pytest.fixture(scope="module")
def elf(tmp_path_factory):
    root = tmp_path_factory.mktemp("select")
    (root / "main.c").write_text("int helper(int x){return x*3;}\nint main(void){return helper(2);}\n")
    subprocess.run(["gcc", "-O0", "-o", str(root / "a.out"), str(root / "main.c")], check=True)
    return root / "a.out"


def _cli(*argv: str, **env: str) -> tuple[int, dict]:
    done = subprocess.run([*rea_command(), *argv], capture_output=True, text=True, env=clean_env(**env))
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else {"stderr": done.stderr}


@pytest.mark.slow
def test_environment_and_request_select_through_mcp(elf, tmp_path):
    from mcp_client import connect

    async def opened(provider_id=None, **env):
        async with connect(REA_CACHE_DIR=str(tmp_path), **env) as s:
            args = {"path": str(elf)} | ({} if provider_id is None else {"provider_id": provider_id})
            reply = await s.call_tool("open_binary", args)
            return json.loads(reply.content[0].text)

    by_env = anyio.run(lambda: opened(REA_ANALYSIS_PROVIDER="angr"))
    assert by_env["result"]["analysis_provider_binding"]["selection_source"] == "environment"
    by_request = anyio.run(lambda: opened("angr", REA_ANALYSIS_PROVIDER="ghidra"))
    assert by_request["result"]["analysis_provider_binding"]["selection_source"] == "request"
    unknown = anyio.run(lambda: opened(REA_ANALYSIS_PROVIDER="radare"))["error"]
    assert unknown["code"] == "capability_unavailable" and unknown["details"]["selection_reason"] == "unknown_provider"
    assert unknown["details"]["selection"]["source"] == "environment"
    bad = anyio.run(lambda: opened("Angr!"))["error"]
    assert bad["code"] == "invalid_request"


@pytest.mark.slow
def test_bad_selectors_are_refused_alike_by_the_cli_and_the_server(elf):
    for argv in (
        ("call", "list_procedures", "--target", str(elf), "--provider", "Angr!", "--json"),
        ("analyze", str(elf), "--provider", "Angr!", "--format", "json"),
    ):
        code, body = _cli(*argv)
        assert code == 2 and body["error"]["code"] == "invalid_request", argv
        assert body["error"]["details"] == {"field": "provider", "accepted": ACCEPTED}
    code, body = _cli("call", "list_procedures", "--target", str(elf), "--provider", "radare", "--json")
    assert code == 1 and body["error"]["details"]["selection_reason"] == "unknown_provider"
    code, body = _cli("capabilities", "--format", "json", REA_ANALYSIS_PROVIDER="Ghidra")
    assert code == 2 and body["error"]["code"] == "configuration_invalid"
    assert body["error"]["details"]["accepted"] == ACCEPTED and body["error"]["details"]["value"] == "Ghidra"
    server = subprocess.run(
        [*rea_command(), "mcp"], input="", capture_output=True, text=True, env=clean_env(REA_ANALYSIS_PROVIDER="Ghidra")
    )
    assert server.returncode == 2 and ACCEPTED in server.stderr


@pytest.mark.slow
def test_a_runtime_failure_never_replaces_the_selected_provider(elf, tmp_path):
    from mcp_client import connect

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path)) as s:
            await s.call_tool("open_binary", {"path": str(elf), "provider_id": "angr"})
            first = await s.call_tool("list_procedures", {})
            name = first.structured_content["normalized_result"][0]["address"]
            await s.call_tool("procedure_pseudo_code", {"procedure": name})  # the listing needs no engine: start it
            before = (await s.call_tool("binary_session", {})).structured_content["result"]
            snapshots = before["analysis_run"]["process_lineage"]["snapshots"]
            worker = next(x for x in snapshots if x["provider"]["id"] == "angr")["observation"]["launcher_pid"]
            os.kill(worker, signal.SIGKILL)  # the engine dies under the session
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                try:
                    os.kill(worker, 0)
                except ProcessLookupError:
                    break
                await anyio.sleep(0.05)
            after_failure = await s.call_tool("list_procedures", {})
            after = (await s.call_tool("binary_session", {})).structured_content["result"]
            again = await s.call_tool("list_procedures", {})
            return first, before, after_failure, after, again

    first, before, after_failure, after, again = anyio.run(main)
    assert not first.is_error
    assert after["analysis_provider_binding"] == before["analysis_provider_binding"]  # same provider, source, profile
    assert after["provider"] == before["provider"] and after["providers"] == before["providers"]
    for reply in (after_failure, again):
        if not reply.is_error:  # a restarted engine is the same provider, with the same profile
            record = reply.structured_content
            assert record["provider"] == before["analysis_provider_binding"]["provider"]
            assert record["analysis_profile"] == before["analysis_provider_binding"]["analysis_profile"]
