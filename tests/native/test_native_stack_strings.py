"""Stack strings and decoder candidates (rea.native.stackstrings) against independent readers: gcc -O0 builds
(dynamic, -static, AArch64 cross) of a sample whose strings are built on the stack by immediate stores and whose
XOR-encoded buffer is passed to a small decode routine. The expected text comes from this file's constants (the
C source is written from them), the addresses and frame offsets from objdump, the routines' addresses from nm.
Hypothesis drives the pure replay with store sequences a dictionary model answers, and with hostile streams."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from effects.native import indexer
from mcp_client import connect
from rea.native import answers as a
from rea.native import stackframe
from rea.native import stackstrings as ss
from rea.native.sweep import Region, decode, sweep
from rea.wire.convert import to_wire
from stack_strings_fixtures import CMD, CMD_FIX, HIDDEN, HOST, KEY, PATH, WORD, _inside, disassembly, nm, search_cli

WHET = CMD[: CMD_FIX[0]] + CMD_FIX[1] + CMD[CMD_FIX[0] + 1 :]
ENCODED = bytes(ord(c) ^ KEY for c in HIDDEN) + bytes([KEY])


@pytest.fixture(scope="module")
def indexed(samples) -> dict[str, dict]:
    return {name: indexer.build(str(path), None) for name, path in samples.items()}


def in_procedure(snapshot: dict, name: str, rows: list[dict], key: str = "procedure") -> list[dict]:
    address = next(p["address"] for p in snapshot["procedures"] if p["name"] == name)
    return [r for r in rows if r[key] == address]


@pytest.mark.parametrize("name", ["dynamic", "static"])
def test_the_sample_builds_its_strings_by_immediate_stores(samples, name):
    """The premise, read by objdump: gcc -O0 writes the arrays with movabs and immediate byte/dword stores."""
    listing = disassembly(samples[name]).values()
    assert any(m == "movabs" for m, _ in listing)
    assert any(m == "mov" and re.match(r"BYTE PTR \[rbp-0x[0-9a-f]+\],0x77$", o) for m, o in listing)
    assert any(m == "mov" and re.match(r"DWORD PTR \[rbp-0x[0-9a-f]+\],0x746f6f72$", o) for m, o in listing)


@pytest.mark.parametrize("name", ["dynamic", "static"])
def test_stack_strings_match_the_source_and_objdump(samples, indexed, name):
    snapshot = indexed[name]
    found = in_procedure(snapshot, "shell", snapshot["stack_strings"])
    assert sorted(r["value"] for r in found) == sorted([PATH, HOST, WORD, WHET])
    listing = disassembly(samples[name])
    for row in found:
        assert row["origin"] == "stack" and row["terminator"] == 1 and row["length"] == len(row["value"]) + 1
        mnemonic, operands = listing[int(row["address"], 16)]  # the first store, as objdump reads it
        assert mnemonic == "mov"
        offset = row["frame_offset"].replace("rbp-0x", "")
        assert re.search(r"PTR \[rbp-0x" + offset + r"\],", operands), (row, operands)
    # the later store of cmd[1] overwrote the earlier one; the first store of "whet" is cmd[0]'s
    whet = next(r for r in found if r["value"] == WHET)
    assert listing[int(whet["address"], 16)][1].endswith(f",{ord(CMD[0]):#x}")


@pytest.mark.parametrize("name", ["dynamic", "static"])
def test_decoder_candidates_name_the_call_sites_objdump_shows(samples, indexed, name):
    snapshot = indexed[name]
    symbols = nm(samples[name])
    listing = disassembly(samples[name])
    calls = {}
    for at, (mnemonic, operands) in listing.items():
        target = re.search(r"<(decode|copy_decode)>", operands)
        if mnemonic == "call" and target is not None and _inside(at, symbols, "hidden"):
            calls[target.group(1)] = at
    found = {c["callee"]: c for c in in_procedure(snapshot, "hidden", snapshot["decoder_candidates"], "caller")}
    decode = found[f"0x{symbols['decode']:x}"]
    assert decode["call_site"] == f"0x{calls['decode']:x}"
    buffer = decode["arguments"][0]
    assert buffer["register"] == "rdi" and buffer["kind"] == "stack"
    assert bytes.fromhex(buffer["known_hex"]) == ENCODED
    assert bytes(b ^ KEY for b in ENCODED).rstrip(b"\0").decode() == HIDDEN  # what emulating it will give
    copy = found[f"0x{symbols['copy_decode']:x}"]
    assert copy["call_site"] == f"0x{calls['copy_decode']:x}"
    assert {"register": "rsi", "kind": "data", "address": f"0x{symbols['blob']:x}"} in copy["arguments"]
    assert "xor" in decode["reasons"] and "xor" in copy["reasons"]


def test_arm64_stack_strings_and_candidates(samples, indexed):
    """AArch64: `mov/movk` then `str`, and `mov w0, #imm; strb w0, [sp, #x]`; host and root are copied from
    .rodata by gcc there (loads, not immediates), so they are stored strings, not stack strings."""
    if "arm64" not in samples:
        pytest.skip("no AArch64 cross compiler")
    snapshot = indexed["arm64"]
    assert sorted(r["value"] for r in in_procedure(snapshot, "shell", snapshot["stack_strings"])) == sorted(
        [PATH, WHET]
    )
    listing = disassembly(samples["arm64"], "aarch64-linux-gnu-objdump")
    for row in snapshot["stack_strings"]:
        assert listing[int(row["address"], 16)][0].startswith("str")
    symbols = nm(samples["arm64"], "aarch64-linux-gnu-nm")
    found = in_procedure(snapshot, "hidden", snapshot["decoder_candidates"], "caller")
    assert any(
        c["callee"] == f"0x{symbols['copy_decode']:x}"
        and {"register": "x1", "kind": "data", "address": f"0x{symbols['blob']:x}"} in c["arguments"]
        for c in found
    )


POINTED, LOCAL = "/dev/pts/", "hostname"
OPTIMIZED = f"""
#include <stdio.h>
__attribute__((noinline)) void note(const char *a, unsigned long n) {{ fwrite(a, 1, n, stderr); }}
/* out is kept across the call in a callee-saved register: rbp (rbx is reserved), not a frame pointer */
__attribute__((noinline)) void fill(char *out, const char *a) {{
    note(a, 1);
    volatile char *v = out;
    {" ".join(f"v[{i}] = '{c}';" for i, c in enumerate(POINTED))} v[{len(POINTED)}] = 0;
    note(a, 3);
}}
/* a stack string of optimized code: built through rsp */
__attribute__((noinline)) int local(void) {{
    volatile char tmp[12];
    {" ".join(f"tmp[{i}] = '{c}';" for i, c in enumerate(LOCAL))} tmp[{len(LOCAL)}] = 0;
    note((const char *)tmp, {len(LOCAL)});
    return tmp[0];
}}
int main(int argc, char **argv) {{ char buf[16]; fill(buf, argv[0]); return local() + buf[1]; }}
"""


@pytest.fixture(scope="module")
def optimized(tmp_path_factory) -> Path:
    """gcc -O2 with rbx reserved, so the pointer argument fill() writes through lands in rbp (as busybox's
    optimized code writes "/dev/pts/" through `mov rbp, rsi`)."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    out = tmp_path_factory.mktemp("optimized")
    (out / "o2.c").write_text(OPTIMIZED)
    flags = ["-O2", "-ffixed-rbx", "-fno-stack-protector"]
    subprocess.run(["gcc", *flags, "-o", str(out / "o2"), str(out / "o2.c")], check=True)
    return out / "o2"


def test_bytes_stored_through_a_pointer_register_are_not_stack_strings(optimized):
    """objdump shows fill() storing the bytes of "/dev/pts/" as immediates through rbp, which it loaded from
    its argument (no `mov rbp,rsp`): a caller's buffer, not fill's frame. local()'s bytes go through rsp and
    are a stack string: its text is the source's, its first store and offset objdump's."""
    symbols, listing = nm(optimized), disassembly(optimized)
    fill = {at: row for at, row in listing.items() if _inside(at, symbols, "fill")}
    assert any(re.match(r"BYTE PTR \[rbp\+0x1\],0x" + f"{ord(POINTED[1]):x}$", o) for _, o in fill.values())
    assert ("mov", "rbp,rsp") not in fill.values()
    snapshot = indexer.build(str(optimized), None)
    assert in_procedure(snapshot, "fill", snapshot["stack_strings"]) == []
    assert all(POINTED not in r["value"] for r in snapshot["stack_strings"])
    (row,) = in_procedure(snapshot, "local", snapshot["stack_strings"])
    assert row["value"] == LOCAL and row["terminator"] == 1
    mnemonic, operands = listing[int(row["address"], 16)]
    assert (mnemonic, operands) == ("mov", f"BYTE PTR [{row['frame_offset']}],{ord(LOCAL[0]):#x}")


def _frame_rows(setup: str) -> list[ss.Kept]:
    """A procedure that sets rbp (`setup`), then stores "evil" through it byte by byte."""
    rows = [(0x1000, 3, "mov", setup)]
    rows += [(0x1003 + 4 * i, 4, "mov", f"byte ptr [rbp - {8 - i:#x}], {ord(c):#x}") for i, c in enumerate("evil")]
    return rows


@pytest.mark.parametrize(("setup", "found"), [("rbp, rsp", ["evil"]), ("rbp, rsi", []), ("rbx, rsp", [])])
def test_rbp_addresses_the_frame_only_where_the_procedure_sets_it_from_rsp(setup, found):
    kept = ss.Columns.of(_frame_rows(setup))
    strings, _ = ss.scan(kept, [(0x1000, 0x1100)], "x86_64")
    assert [s.value for s in strings] == found


def test_x29_addresses_the_frame_only_where_the_procedure_sets_it_from_sp():
    rows = []
    for i, c in enumerate("evil"):
        rows += [
            (0x1004 + 8 * i, 4, "mov", f"w8, #{ord(c):#x}"),
            (0x1008 + 8 * i, 4, "strb", f"w8, [x29, #-{8 - i:#x}]"),
        ]
    for setup, found in (("x29, sp", ["evil"]), ("x29, x0", [])):
        kept = ss.Columns.of([(0x1000, 4, "mov", setup), *rows])
        strings, _ = ss.scan(kept, [(0x1000, 0x1100)], "arm64")
        assert [s.value for s in strings] == found, setup


def test_scan_coverage_is_recorded(indexed):
    scan = indexed["dynamic"]["stack_scan"]
    assert scan["scanned"] and scan["architecture"] == "x86_64"
    assert scan["procedures"] == len([p for p in indexed["dynamic"]["procedures"] if p["kind"] != "external"])
    assert scan["stack_strings"] == len(indexed["dynamic"]["stack_strings"])


def test_the_forked_pass_answers_as_the_inline_one(samples, monkeypatch):
    """The index runs the pass in a forked child beside the origin classification where a core is spare; with
    threads running, or no core spare, it runs in the process itself. Both give the same rows."""
    monkeypatch.setattr(indexer, "_spare_core", lambda: True)
    forked = indexer.build(str(samples["static"]), None)
    monkeypatch.setattr(indexer.threading, "active_count", lambda: 2)
    inline = indexer.build(str(samples["static"]), None)
    monkeypatch.setattr(indexer.threading, "active_count", lambda: 1)
    monkeypatch.setattr(indexer, "_spare_core", lambda: False)
    busy = indexer.build(str(samples["static"]), None)
    for key in ("stack_strings", "decoder_candidates", "stack_scan"):
        assert inline[key] == forked[key] == busy[key]


@pytest.mark.parametrize("threads", [1, 2])
def test_a_pass_that_fails_is_said_not_scanned(samples, monkeypatch, threads):
    """In the forked child and in the process itself (threads running) alike."""

    def broken(*args, **kwargs):
        raise RuntimeError("a pass that breaks")

    monkeypatch.setattr(ss, "recover", broken)
    monkeypatch.setattr(indexer.threading, "active_count", lambda: threads)
    monkeypatch.setattr(indexer, "_spare_core", lambda: True)
    snapshot = indexer.build(str(samples["dynamic"]), None)
    assert snapshot["stack_strings"] == [] and snapshot["decoder_candidates"] == []
    assert snapshot["stack_scan"]["scanned"] is False
    assert a.string_coverage(snapshot)[0].startswith("Stack strings were not scanned: the stack-string pass failed")
    assert snapshot["strings"], "the rest of the index still answers"


def test_list_and_search_strings_through_mcp(samples, tmp_path):
    async def go():
        env = {"REA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(Path(__file__).parents[2])}
        async with connect(**env) as s:
            opened = await s.call_tool("open_binary", {"path": str(samples["dynamic"])})
            assert opened.is_error is False, opened.content[0].text
            replies = [
                await s.call_tool("list_strings", {"origin": "stack"}),
                await s.call_tool("list_strings", {}),
                await s.call_tool("search_strings", {"pattern": "example"}),
            ]
            assert all(r.is_error is False for r in replies), [r.content[0].text for r in replies]
            return [r.structured_content for r in replies]

    stack, every, found = anyio.run(go)
    rows = stack["normalized_result"]
    assert {r["value"] for r in rows} >= {PATH, HOST, WORD, WHET}
    assert all(r["origin"] == "stack" and r["procedure"] and r["frame_offset"] for r in rows)
    assert any(r["origin"] == "stored" for r in every["normalized_result"])
    assert {r["value"] for r in rows} <= {r["value"] for r in every["normalized_result"]}
    assert [(r["value"], r["origin"]) for r in found["normalized_result"]] == [(HOST, "stack")]
    text = " ".join(stack["limitations"])
    assert "Stack strings: all" in text and "Decoded strings" in text and "not recovered" in text
    assert "origin decoded" in text


def test_search_strings_through_the_cli(samples, tmp_path):
    rows = search_cli(samples["static"], tmp_path / "cache", "--pattern", "bin/", "--origin", "stack")
    assert [(r["value"], r["origin"]) for r in rows] == [(PATH, "stack")]


# ------------------------------------------------------------------ laws of the pure replay

_WIDTHS = {1: "byte", 2: "word", 4: "dword", 8: "qword"}
stores = st.lists(st.tuples(st.integers(1, 64), st.sampled_from([1, 2, 4, 8]), st.integers(0, 2**64 - 1)), max_size=40)


def _rows(sequence: list[tuple[int, int, int]]) -> list[ss.Kept]:
    """x86 immediate stores at contiguous addresses (immediates of 8 bytes go through movabs rax)."""
    rows, at = [], 0x1000
    for offset, width, value in sequence:
        value &= (1 << (8 * width)) - 1
        if width == 8:
            rows.append((at, 10, "movabs", f"rax, {value:#x}"))
            at += 10
            source = "rax"
        else:
            source = f"{value:#x}"
        rows.append((at, 4, "mov", f"{_WIDTHS[width]} ptr [rbp - {offset:#x}], {source}"))
        at += 4
    return rows


def _model(sequence: list[tuple[int, int, int]]) -> dict[int, int]:
    memory = {}
    for offset, width, value in sequence:
        for i in range(width):
            memory[-offset + i] = (value >> (8 * i)) & 0xFF
    return memory


def _printable(byte: int | None) -> bool:
    return byte is not None and (0x20 <= byte <= 0x7E or byte in (9, 10, 13))


@settings(max_examples=200, deadline=None)
@given(stores)
def test_later_stores_overwrite_earlier_ones(sequence):
    frame = ss.replay(_rows(sequence), "x86_64")
    assert {o: b[0] for (_, o), b in frame.bytes.items()} == _model(sequence)


@settings(max_examples=200, deadline=None)
@given(stores)
def test_strings_are_the_printable_runs_and_never_cross_a_gap(sequence):
    memory = _model(sequence)
    found = ss.strings_of(0x1000, ss.replay(_rows(sequence), "x86_64"))
    expected, run = [], []
    for offset in sorted(memory):
        if run and offset == run[-1] + 1 and _printable(memory[offset]):
            run.append(offset)
            continue
        if len(run) >= ss.MIN_CHARS:
            expected.append(run)
        run = [offset] if _printable(memory[offset]) else []
    if len(run) >= ss.MIN_CHARS:
        expected.append(run)
    assert [(s.offset, s.value) for s in found] == [(r[0], bytes(memory[o] for o in r).decode()) for r in expected]
    for s in found:
        assert all(o in memory for o in range(s.offset, s.offset + len(s.value)))
        assert s.terminated == (memory.get(s.offset + len(s.value)) == 0)


@settings(max_examples=100, deadline=None)
@given(stores, st.integers(1, 64))
def test_a_store_of_an_unknown_value_ends_a_string(sequence, offset):
    rows = _rows(sequence)
    at = rows[-1][0] + rows[-1][1] if rows else 0x1000
    rows.append((at, 4, "mov", f"byte ptr [rbp - {offset:#x}], bl"))  # bl: never set (the rows only set rax)
    found = ss.strings_of(0, ss.replay(rows, "x86_64"))
    assert all(not s.offset <= -offset < s.offset + len(s.value) for s in found)


def test_registers_are_forgotten_across_an_instruction_the_sweep_did_not_keep():
    rows = [(0x10, 10, "movabs", "rax, 0x68732f6e69622f"), (0x20, 4, "mov", "qword ptr [rbp - 8], rax")]
    assert ss.strings_of(0, ss.replay(rows, "x86_64")) == []
    rows[1] = (0x1A, 4, "mov", "qword ptr [rbp - 8], rax")
    assert [s.value for s in ss.strings_of(0, ss.replay(rows, "x86_64"))] == ["/bin/sh"]


def test_arm64_movz_movk_and_byte_stores():
    rows = [
        (0x0, 4, "mov", "x0, #0x622f"),
        (0x4, 4, "movk", "x0, #0x6e69, lsl #16"),
        (0x8, 4, "movk", "x0, #0x732f, lsl #32"),
        (0xC, 4, "movk", "x0, #0x68, lsl #48"),
        (0x10, 4, "str", "x0, [sp, #0x38]"),
        (0x14, 4, "mov", "w8, #0x74"),
        (0x18, 4, "strb", "w8, [x29, #-0x4]"),
        (0x1C, 4, "strb", "w8, [x29, #-0x3]"),
        (0x20, 4, "strb", "w8, [x29, #-0x2]"),
        (0x24, 4, "strb", "w8, [x29, #-0x1]"),
        (0x28, 4, "strb", "wzr, [x29]"),
    ]
    found = ss.strings_of(0, ss.replay(rows, "arm64"))
    assert [(s.value, s.frame_offset, s.site, s.terminated) for s in found] == [
        ("/bin/sh", "sp+0x38", 0x10, True),
        ("tttt", "x29-0x4", 0x18, True),
    ]


_MNEMONICS = sorted(stackframe.FRAME_X86 | stackframe.FRAME_ARM64 | {"jmp", ".byte"})
_TOKENS = ["rax", "eax", "al", "rdi", "x0", "w8", "sp", "x29", "rbp", "rsp", "#0x41", "0x41", "-0x10", "lsl #16"]
_OPERANDS = st.one_of(
    st.text(max_size=40),
    st.lists(
        st.one_of(
            st.sampled_from(_TOKENS),
            st.builds(
                lambda r, s, d: f"{r} ptr [{s} - {d}]",
                st.sampled_from(["byte", "qword"]),
                st.sampled_from(_TOKENS),
                st.sampled_from(_TOKENS),
            ),
            st.builds(lambda b, o: f"[{b}, #{o}]", st.sampled_from(_TOKENS), st.sampled_from(_TOKENS)),
        ),
        max_size=3,
    ).map(", ".join),
)
_HOSTILE = st.lists(
    st.tuples(st.integers(0, 0x200), st.integers(1, 12), st.sampled_from(_MNEMONICS), _OPERANDS), max_size=60
)


@settings(max_examples=300, deadline=None)
@given(_HOSTILE, st.sampled_from(["x86_64", "x86", "arm64"]))
def test_hostile_instruction_streams_never_crash(rows, architecture):
    rows = sorted(rows)
    procedures = [(0, 0x100), (0x100, 0x201)]
    kept = ss.Columns.of(rows)
    traits = ss.decoder_traits(kept, [(r[0], r[0] - 1) for r in rows[:5]], procedures)
    found, frames = ss.scan(kept, procedures, architecture, traits)
    ss.candidates(frames, traits, lambda a: a % 2 == 0, architecture)
    for s in found:
        assert len(s.value) >= ss.MIN_CHARS and all(_printable(ord(c)) for c in s.value)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["x86_64", "x86", "arm64"]), st.binary(max_size=800), st.integers(1, 400))
def test_the_pass_over_swept_arbitrary_bytes_never_raises(architecture, data, cut):
    """Arbitrary code bytes through the real sweep: the kept rows are decoded sites in address order, and
    the stack-string pass and the planner answer whatever they hold."""
    region = Region(name=".text", start=0x401000, data=data, executable=True)
    swept = sweep(architecture, [region], [(0x401000, 0x401000 + len(data)), (0x600000, 0x601000)], pic=False)
    assert swept is not None
    sites = {r.address for r in decode(architecture, data, 0x401000) if r.mnemonic != ".byte"}
    assert set(swept.kept.addresses) <= sites and swept.kept.addresses == sorted(swept.kept.addresses)
    procedures = [
        {"address": "0x401000", "size": min(cut, len(data)), "kind": "function"},
        {"address": f"{0x401000 + cut:#x}", "size": max(len(data) - cut, 0), "kind": "function"},
    ]
    jumps = [(r.site, r.target) for r in swept.references if r.kind == "jump"]
    found = ss.recover(procedures, swept.kept, jumps, architecture, lambda a: 0x600000 <= a < 0x601000)
    assert found["stack_scan"]["procedures"] == 2
    assert all(len(r["value"]) >= ss.MIN_CHARS for r in found["stack_strings"])


def test_an_architecture_the_sweep_does_not_read_is_said_unscanned():
    found = ss.recover([], ss.Columns.empty(), [], "mips", lambda a: False)
    assert found["stack_scan"]["scanned"] is False and found["stack_strings"] == []


def test_a_decoded_string_reaches_the_wire_with_its_decoder_call_site_and_inputs():
    """The shape the emulation step fills: frozen, and answered by list_strings' row beside the others."""
    decoded = ss.DecodedString(
        decoder=0x1139,
        call_site=0x1287,
        caller=0x125C,
        value=HIDDEN,
        inputs=(ss.DecodedInput(register="rdi", kind="buffer", value=ENCODED.hex()),),
    )
    with pytest.raises(AttributeError):
        decoded.value = "y"  # type: ignore[misc]
    snapshot = {"strings": [], "stack_strings": [], "decoded_strings": [ss.decoded_row(decoded)]}
    (only,) = a.strings_of_origin(snapshot, snapshot["strings"], "decoded")
    row = to_wire(a.string_row(only))
    assert row["origin"] == "decoded" and row["decoder"] == "0x1139" and row["call_site"] == "0x1287"
    assert row["inputs"] == [{"register": "rdi", "kind": "buffer", "value": ENCODED.hex()}]
    assert a.strings_of_origin(snapshot, snapshot["strings"], "stack") == []
