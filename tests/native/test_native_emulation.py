"""emulate_native_function against ground truth it does not share: a static gcc -O0 sample whose decoders,
keys and plaintexts are this file's constants (the C source is written from them; the plaintexts never
appear in the binary), whose addresses come from nm and objdump and whose system call numbers come from
the kernel's own header; over MCP and through the CLI."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

import anyio
import pytest

from emulation_fixtures import HOST, SECRETS, SHELL, XOR_KEY, data_symbol, xored
from mcp_client import connect, err, ok
from native_fixtures import nm_functions, objdump_function
from support import clean_env, rea_command

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("rea-cache"))


def value(reply) -> dict:
    assert reply.is_error is False, reply.content[0].text
    return reply.structured_content["normalized_result"]


def syscall_number(name: str) -> int:
    """The x86-64 number of a system call from the kernel's header, not from angr's table."""
    for header in ("/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "/usr/include/asm/unistd_64.h"):
        if Path(header).exists():
            found = re.search(rf"#define __NR_{name}\s+(\d+)", Path(header).read_text())
            if found:
                return int(found.group(1))
    pytest.skip("no unistd_64.h to read system call numbers from")


async def emulate(s, procedure: str, arguments: list, **budget) -> dict:
    return await s.call_tool("emulate_native_function", {"procedure": procedure, "arguments": arguments, **budget})


def test_decoders_give_the_source_plaintexts(sample, cache):
    fn = nm_functions(sample)
    blob = data_symbol(sample, "blob")
    secret_call = next(r for r in objdump_function(sample, "main") if "decrypt_string" in r["text"])

    async def main():
        async with connect(REA_CACHE_DIR=cache) as s:
            ok(await s.call_tool("open_binary", {"path": str(sample)}))
            # (a) the stack string's bytes, decoded by the routine main calls on them
            reply = await emulate(s, "xor_decode", [{"kind": "buffer", "hex": xored(HOST).hex()}, len(HOST), XOR_KEY])
            r = value(reply)
            assert r["status"] == "returned" and r["coverage"]["status"] == "complete"
            assert r["procedure"] == {"address": fn["xor_decode"], "name": "xor_decode"}
            (buffer,) = r["buffers"]
            assert bytes.fromhex(buffer["after"]["hex"]) == HOST and buffer["changed"] is True
            assert buffer["after"]["c_string"] == HOST.decode() and r["image_writes"] == []
            assert r["budgets"]["steps"]["exhausted"] is False and r["instructions"] > 0
            # the global blob decoded in place: the image write at nm's address of blob
            inplace = value(
                await emulate(s, "xor_decode", [{"kind": "pointer", "address": hex(blob)}, len(SHELL), XOR_KEY])
            )
            (written,) = inplace["image_writes"]
            assert (int(written["start"], 16), written["size"]) == (blob, len(SHELL)) and written["section"] == ".data"
            assert bytes.fromhex(written["after"]["hex"]) == SHELL and inplace["image_writes_total"] == len(SHELL)
            # (b) RC4 with a masked key: decrypt_string unmasks the key and runs RC4 over the table entry
            for index in (1,):
                zeroed = {"kind": "buffer", "hex": "", "size": 64}
                got = value(await emulate(s, "decrypt_string", [index, zeroed], max_time_ms=120_000))
                assert got["status"] == "returned", got["coverage"]
                plain = bytes.fromhex(got["buffers"][0]["after"]["hex"])
                assert plain[: len(SECRETS[index])] == SECRETS[index]
                assert int(got["return_value"]["value"], 16) == len(SECRETS[index])
                assert [c["name"] for c in got["calls"]] == ["unmask", "rc4"]
                assert [c["target"] for c in got["calls"]] == [fn["unmask"], fn["rc4"]]
            # stop_at: main run up to its call of decrypt_string
            stopped = value(await emulate(s, "main", [1, 0], stop_at=hex(secret_call["address"])))
            assert stopped["status"] == "stopped_at" and stopped["stop_address"] == hex(secret_call["address"])
            assert [c["name"] for c in stopped["calls"]] == ["xor_decode", "xor_decode"]
            assert bytes.fromhex(stopped["image_writes"][0]["after"]["hex"]).rstrip(b"\0") == SHELL
            # (f) the same inputs give the same Evidence; other inputs another
            again = await emulate(s, "xor_decode", [{"kind": "buffer", "hex": xored(HOST).hex()}, len(HOST), XOR_KEY])
            assert again.structured_content["evidence_id"] == reply.structured_content["evidence_id"]
            other = await emulate(s, "xor_decode", [{"kind": "buffer", "hex": xored(HOST).hex()}, len(HOST), 1])
            assert other.structured_content["evidence_id"] != reply.structured_content["evidence_id"]

    anyio.run(main)


def test_budgets_faults_and_syscalls_stop_the_run_with_what_was_seen(sample, cache):
    async def main():
        async with connect(REA_CACHE_DIR=cache) as s:
            ok(await s.call_tool("open_binary", {"path": str(sample)}))
            # (c) a loop that never ends: stopped by the step budget, then by the time budget
            steps = value(await emulate(s, "spin", [3], max_steps=40))
            assert steps["status"] == "step_limit" and steps["budgets"]["steps"] == {
                "limit": 40,
                "used": 40,
                "exhausted": True,
            }
            assert steps["coverage"]["status"] == "partial" and steps["instructions"] >= 40
            assert steps["return_value"] is None and steps["stop_address"] is not None
            timed = value(await emulate(s, "spin", [3], max_time_ms=200, max_steps=1_000_000))
            assert timed["status"] == "time_limit" and timed["budgets"]["time_exhausted"] is True
            assert 0 < timed["budgets"]["steps"]["used"] < 1_000_000
            # (d) a system call: write(), named with the kernel's number, after the call into libc's write
            said = value(await emulate(s, "say", [{"kind": "buffer", "hex": HOST.hex()}, len(HOST)]))
            assert said["status"] == "unsupported"
            assert said["unsupported"] == {"kind": "syscall", "name": "write", "number": syscall_number("write")}
            assert [int(c["target"], 16) for c in said["calls"]] == [data_symbol(sample, "write")]
            assert "write" in said["coverage"]["reason"]
            # (e) an unmapped read, and a write to a read-only buffer
            fault = value(await emulate(s, "peek", [0x10]))
            assert fault["status"] == "memory_fault" and fault["fault_address"] == "0x0"
            assert int(fault["stop_address"], 16) in {r["address"] for r in objdump_function(sample, "peek")}
            locked = value(
                await emulate(s, "xor_decode", [{"kind": "buffer", "hex": "00ff", "writable": False}, 2, XOR_KEY])
            )
            assert locked["status"] == "memory_fault" and locked["buffers"][0]["changed"] is False
            assert locked["fault_address"] == locked["buffers"][0]["address"]
            # the memory budget: one page may not be enough for the stack and a buffer
            tight = value(
                await emulate(s, "xor_decode", [{"kind": "buffer", "hex": "00"}, 1, 1], max_memory_bytes=4096)
            )
            assert tight["status"] == "memory_limit" and tight["budgets"]["memory"]["exhausted"] is True

    anyio.run(main)


def test_bad_input_gets_canonical_errors(sample, cache):
    fn, blob = nm_functions(sample), data_symbol(sample, "blob")

    async def main():
        async with connect(REA_CACHE_DIR=cache) as s:
            ok(await s.call_tool("open_binary", {"path": str(sample)}))
            odd = err(await emulate(s, "xor_decode", [{"kind": "buffer", "hex": "abc"}]), "invalid_request")
            assert "hex" in json.dumps(odd)
            small = err(
                await emulate(s, "xor_decode", [{"kind": "buffer", "hex": "00112233", "size": 2}]), "invalid_request"
            )
            assert "arguments[0]" in json.dumps(small) and "size" in small["message"]
            by_sub = value(await emulate(s, f"sub_{fn['peek'][2:]}", [{"kind": "pointer", "address": hex(blob)}]))
            assert by_sub["procedure"] == {"address": fn["peek"], "name": "peek"} and by_sub["status"] == "returned"
            assert int(by_sub["return_value"]["value"], 16) == int.from_bytes(xored(SHELL)[:4], "little")
            missing = err(await emulate(s, "no_such_routine", []), "invalid_request")
            assert "no_such_routine" in missing["message"]
            for field, bad in (("max_steps", 0), ("max_time_ms", 120_001), ("max_memory_bytes", 1)):
                body = err(await emulate(s, "spin", [1], **{field: bad}), "invalid_request")
                assert field in json.dumps(body)

    anyio.run(main)


def test_cli_emulates(sample, tmp_path):
    env = clean_env(REA_CACHE_DIR=str(tmp_path / "cache"))

    def rea(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*rea_command(), *args], capture_output=True, text=True, env=env, timeout=600)

    done = rea("emulate-native-function", str(sample), "xor_decode", f"buf:{xored(HOST).hex()}", str(len(HOST)), "0x5a")
    assert done.returncode == 0, done.stderr
    assert "the routine returned" in done.stdout and f"(changed): {HOST.decode()}" in done.stdout
    called = rea(
        "call",
        "emulate_native_function",
        "--target",
        str(sample),
        "--procedure",
        "spin",
        "--arguments",
        "[1]",
        "--max-steps",
        "5",
        "--json",
    )
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["normalized_result"]["status"] == "step_limit"


def _workers() -> list[int]:
    """This test's angr workers (the server's children), by pid."""
    import psutil

    return [
        p.pid
        for p in psutil.Process().children(recursive=True)
        if "effects.native.worker" in " ".join(p.cmdline() if p.is_running() else [])
    ]


def test_a_client_cancel_stops_the_run_between_blocks_and_keeps_the_worker(sample, cache):
    """A routine that never ends, cancelled through the MCP SDK once the worker reports blocks emulated: the
    direct engine ends the run between blocks (status cancelled, what it saw retained as partial Evidence)
    and the worker stays alive with what it loaded, so the next question is answered by the same process.
    Deterministic under load: churn's million blocks (32 hooked stores each) take tens of CPU seconds, so the
    cancel sent on the first progress note always lands mid-run, and the run must end long before its budget."""
    seen: list[list[int]] = []

    async def main():
        async with connect(REA_CACHE_DIR=cache) as s:
            ok(await s.call_tool("open_binary", {"path": str(sample)}))
            with anyio.CancelScope() as scope:

                async def on_progress(progress, total, message):
                    if "emulated" in (message or "") and not seen:  # blocks ran: the loop is in the emulator
                        seen.append(_workers())
                        scope.cancel()

                args = {"procedure": "churn", "arguments": [3], "max_steps": 1_000_000, "max_time_ms": 120_000}
                started = time.monotonic()
                await s.call_tool("emulate_native_function", args, progress_callback=on_progress)
            cancelled_after = time.monotonic() - started
            kept = None
            for _ in range(200):  # the server unwinds the cancelled call asynchronously
                found = await s.call_tool(
                    "get_evidence_bundle", {"detail": "summary", "filters": {"operation": "emulate_native_function"}}
                )
                records = found.structured_content["result"]["records"]
                if records:
                    bundle = json.loads((await s.call_tool("get_evidence_bundle", {})).content[0].text)
                    kept = next(r for r in bundle["result"]["records"] if r["evidence_id"] == records[0]["evidence_id"])
                    break
                await anyio.sleep(0.05)
            after = value(await emulate(s, "xor_decode", [{"kind": "buffer", "hex": xored(HOST).hex()}, len(HOST), 90]))
            return scope.cancelled_caught, kept, _workers(), after, cancelled_after

    cancelled, kept, workers, after, cancelled_after = anyio.run(main)
    assert cancelled and seen and seen[0]
    assert cancelled_after < 60, cancelled_after  # far from the 120 s budget and the tens of seconds churn needs
    # the worker that was emulating is alive and answered the next question (other tests sharing this
    # pytest process may own workers of their own, so the set is compared, not its size)
    assert set(seen[0]) <= set(workers)
    assert bytes.fromhex(after["buffers"][0]["after"]["hex"]) == HOST
    result = kept["normalized_result"]
    assert result["status"] == "cancelled" and result["coverage"]["status"] == "partial"
    assert "cancelled" in result["coverage"]["reason"] and result["return_value"] is None
    assert 0 < result["budgets"]["steps"]["used"] < 1_000_000 and result["instructions"] > 0
    assert result["stop_address"] is not None and result["budgets"]["steps"]["exhausted"] is False
    assert result["engine"] == "unicorn" and result["budgets"]["time_exhausted"] is False


def _indexers() -> set[int]:
    import psutil

    return {
        p.pid
        for p in psutil.Process().children(recursive=True)
        if "effects.native.indexer" in " ".join(p.cmdline() if p.is_running() else [])
    }


def test_the_index_started_at_open_is_owned_and_answers_as_the_cli_does(sample, tmp_path):
    """open_binary starts the fast index in the background (the server's first question then reads it): a
    close_binary right after the open leaves no index process, and the emulation answered on the index built
    ahead has the Evidence id of the CLI's, which builds it in the call (no connection, nothing ahead)."""
    args = {"procedure": "xor_decode", "arguments": [{"kind": "buffer", "hex": xored(HOST).hex()}, len(HOST), 90]}

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path / "closed")) as s:
            ok(await s.call_tool("open_binary", {"path": str(sample)}))
            ok(await s.call_tool("close_binary", {}))
            left = _indexers()
        async with connect(REA_CACHE_DIR=str(tmp_path / "served")) as s:
            ok(await s.call_tool("open_binary", {"path": str(sample)}))
            served = await s.call_tool("emulate_native_function", args)
        return left, served.structured_content

    left, served = anyio.run(main)
    assert left == set() and _indexers() == set()
    env = clean_env(REA_CACHE_DIR=str(tmp_path / "cli"))
    called = subprocess.run(
        [*rea_command(), "call", "emulate_native_function", "--target", str(sample), "--json"]
        + ["--procedure", "xor_decode", "--arguments", json.dumps(args["arguments"])],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert called.returncode == 0, called.stderr
    alone = json.loads(called.stdout)
    assert bytes.fromhex(served["normalized_result"]["buffers"][0]["after"]["hex"]) == HOST
    assert served["evidence_id"] == alone["evidence_id"] and served["normalized_result"] == alone["normalized_result"]
