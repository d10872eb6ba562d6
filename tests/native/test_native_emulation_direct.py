"""The direct engine (effects.native.direct: unicorn without angr) against angr's own engine on the emulation
tests' samples: every run it accepts gives angr's facts exactly (status, steps, instructions, calls, buffers,
image writes, pages, return value), the runs it must leave to angr are declined, and its layout constants
(the return address, the buffers' base, the image bounds, the hooked procedures, the stack pointer) are the
ones angr's project and call state have. The samples' ground truth (plaintexts from the source constants) is
checked by tests/native/test_native_emulation.py; this file checks that the fast path changes nothing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from effects.native import direct, emulator
from emulation_fixtures import HOST, SHELL, XOR_KEY, data_symbol, xored
from rea.native import emulation as plan

pytestmark = pytest.mark.slow

BUDGET = plan.Budget(steps=20_000, time_ms=120_000, memory_bytes=64 << 20)


@pytest.fixture(scope="module")
def bench_sample(tmp_path_factory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    from tests.benchmarks.bench_native_emulation import _build

    return _build(tmp_path_factory.mktemp("direct-bench"))


@pytest.fixture(scope="module")
def projects() -> dict[Path, Any]:
    return {}


def _project(projects: dict[Path, Any], path: Path) -> Any:
    if path not in projects:
        import angr

        projects[path] = angr.Project(str(path), auto_load_libs=False, load_debug_info=False)
    return projects[path]


def _buffer(data: bytes, **extra: Any) -> dict[str, Any]:
    return {
        "kind": "buffer",
        "hex": data.hex(),
        "size": max(len(data), extra.pop("size", 0)),
        "writable": True,
        **extra,
    }


def _int(value: int) -> dict[str, Any]:
    return {"kind": "integer", "value": hex(value)}


def _both(project: Any, path: Path, name: str, arguments: list[dict[str, Any]], limits: plan.Budget) -> tuple:
    """(angr's facts, the direct engine's facts or None when it declined)."""
    entry = data_symbol(path, name)
    angr_facts = emulator.emulate(project, entry, arguments, limits).facts
    found = direct.layout(path.read_bytes())
    assert found is not None
    into, out = direct.addresses(found)
    try:
        mine = direct.run(found, entry, arguments, limits, into=into, out=out)
    except direct.Declined:
        mine = None
    return angr_facts, mine


def _same(angr_facts: dict[str, Any], mine: dict[str, Any]) -> None:
    assert angr_facts.pop("engine") == "angr-unicorn" and mine.pop("engine") == "unicorn"
    assert mine == angr_facts


def test_the_layout_is_angrs(sample, bench_sample, projects):
    import angr

    for path in (sample, bench_sample):
        project = _project(projects, path)
        found = direct.layout(path.read_bytes())
        assert found is not None
        main = project.loader.main_object
        assert found.image == (main.min_addr, main.max_addr)
        assert found.deadend == project.simos.return_deadend
        assert found.buffer_base == emulator.buffer_base(project)
        hooked = {a for a in project._sim_procedures if main.min_addr <= a <= main.max_addr}
        assert found.hooked == hooked
        irelative = {r.rebased_addr for r in main.relocs}
        assert irelative <= {start for start, _ in found.poisoned}
        state = project.factory.call_state(
            found.image[0], 1, 2, 3, add_options={angr.options.ZERO_FILL_UNCONSTRAINED_REGISTERS}
        )
        assert state.solver.eval(state.regs.rsp) == direct.STACK_END - 8
        assert state.solver.eval(state.mem[state.regs.rsp].uint64_t.resolved) == found.deadend


def test_accepted_runs_give_angrs_facts(sample, bench_sample, projects):
    from tests.benchmarks.bench_native_emulation import PLAIN, SEED, encode

    project = _project(projects, sample)
    blob = data_symbol(sample, "blob")
    cases = [
        ("xor_decode", [_buffer(xored(HOST)), _int(len(HOST)), _int(XOR_KEY)], BUDGET),
        ("xor_decode", [{"kind": "pointer", "address": hex(blob)}, _int(len(SHELL)), _int(XOR_KEY)], BUDGET),
        ("xor_decode", [_buffer(b"\x01\x02", size=9000), _int(2), _int(1)], BUDGET),
        ("spin", [_int(3)], plan.Budget(steps=40, time_ms=120_000, memory_bytes=64 << 20)),
        ("spin", [_int(3)], plan.Budget(steps=9000, time_ms=120_000, memory_bytes=64 << 20)),
        ("peek", [{"kind": "pointer", "address": hex(blob)}], BUDGET),
        ("unmask", [_buffer(b"", size=8), {"kind": "pointer", "address": hex(blob)}, _int(6)], BUDGET),
        ("decrypt_string", [_int(1), _buffer(b"", size=64)], BUDGET),  # RC4: the calls it makes, a return value
        ("main", [_int(1), _int(0)], BUDGET),  # two decoders, RC4, an image write
    ]
    for name, arguments, limits in cases:
        angr_facts, mine = _both(project, sample, name, arguments, limits)
        assert mine is not None, name
        _same(angr_facts, mine)
    bench = _project(projects, bench_sample)
    arguments = [_buffer(encode(PLAIN, SEED)), _int(len(PLAIN)), _int(SEED)]
    angr_facts, mine = _both(bench, bench_sample, "decode", arguments, BUDGET)
    assert mine is not None and bytes.fromhex(mine["buffers"][0]["after_hex"]) == PLAIN
    _same(angr_facts, mine)


def test_runs_only_angr_models_are_declined(sample, projects):
    """A system call, a fault, a write to a read-only buffer and the memory budget's stop: the direct engine
    leaves each to angr."""
    project = _project(projects, sample)
    tight = plan.Budget(steps=20_000, time_ms=120_000, memory_bytes=4096)
    cases = [
        ("say", [_buffer(HOST), _int(len(HOST))], BUDGET),
        ("peek", [_int(0x10)], BUDGET),
        ("xor_decode", [_buffer(b"\x00\xff", writable=False), _int(2), _int(XOR_KEY)], BUDGET),
        ("xor_decode", [_buffer(b"\x00"), _int(1), _int(1)], tight),
    ]
    for name, arguments, limits in cases:
        _, mine = _both(project, sample, name, arguments, limits)
        assert mine is None, name


def test_only_static_x86_64_executables_have_a_layout(tmp_path):
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    (tmp_path / "d.c").write_text("int main(void) { return 0; }\n")
    subprocess.run(["gcc", "-O0", "-o", str(tmp_path / "d"), str(tmp_path / "d.c")], check=True)
    assert direct.layout((tmp_path / "d").read_bytes()) is None  # dynamic (an interpreter)
    assert direct.layout(b"MZ" + bytes(200)) is None and direct.layout(b"") is None


def test_through_mcp_the_engine_follows_the_run_and_angr_loads_when_a_question_needs_it(sample, tmp_path):
    """A new server: the first emulation runs without angr (engine unicorn, the worker started lazily), a
    question only angr answers (inspect_native_api) has the worker load angr first, a system call's run is
    angr's (engine angr-unicorn), and the first answer is unchanged when asked again with angr loaded (the
    same Evidence id)."""
    import anyio

    from mcp_client import connect, ok

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path / "cache")) as s:
            ok(await s.call_tool("open_binary", {"path": str(sample)}))
            args = {"procedure": "xor_decode", "arguments": [{"kind": "buffer", "hex": xored(HOST).hex()}, 8, XOR_KEY]}
            first = await s.call_tool("emulate_native_function", args)
            api = await s.call_tool("inspect_native_api", {"procedure": "xor_decode"})
            said = await s.call_tool(
                "emulate_native_function",
                {"procedure": "say", "arguments": [{"kind": "buffer", "hex": HOST.hex()}, len(HOST)]},
            )
            again = await s.call_tool("emulate_native_function", args)
            return first, said, api, again

    first, said, api, again = anyio.run(main)
    assert first.structured_content["normalized_result"]["engine"] == "unicorn"
    assert bytes.fromhex(first.structured_content["normalized_result"]["buffers"][0]["after"]["hex"]) == HOST
    assert said.structured_content["normalized_result"]["engine"] == "angr-unicorn"
    assert said.structured_content["normalized_result"]["status"] == "unsupported"
    assert api.is_error is False, api.content[0].text
    assert again.structured_content["evidence_id"] == first.structured_content["evidence_id"]


def test_the_workers_project_has_angrs_irelative_slots(sample, bench_sample, projects):
    """The worker's project resolves the static glibc's IRELATIVE slots in unicorn (direct.resolver): every
    slot, every hook and the extern object's allocations are what angr alone gives."""
    import angr

    from effects.native import worker

    for path in (sample, bench_sample):
        plain = _project(projects, path)
        found = direct.layout(path.read_bytes())
        fast = worker.project(angr, str(path), found)
        theirs, mine = plain.loader.main_object, fast.loader.main_object
        assert len(theirs.irelatives) > 0
        slots = [dest for _, dest in theirs.irelatives]
        assert [mine.memory.unpack_word(d) for d in slots] == [theirs.memory.unpack_word(d) for d in slots]
        assert sorted(fast._sim_procedures) == sorted(plain._sim_procedures)
        assert fast.simos.return_deadend == plain.simos.return_deadend
        resolve = direct.resolver(found)
        assert all(resolve(r) is not None for r, _ in theirs.irelatives)  # none left to angr on these samples
