"""Laws of the ELF core decoder over generated and fuzzed cores: what is written is read back,
and hostile bytes (flips, truncation, lying sizes) give an answer or a CoreRefused, never a crash."""

from __future__ import annotations

import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from rea.layout.core import REGISTERS, CoreRefused, read_core


def _note(owner: bytes, n_type: int, desc: bytes) -> bytes:
    pad = lambda b: b + b"\x00" * (-len(b) % 4)  # noqa: E731
    return struct.pack("<III", len(owner), len(desc), n_type) + pad(owner) + pad(desc)


def build_core(pid: int, signal: int, regs: list[int], fault: int, extra: bytes = b"") -> bytes:
    prstatus = bytearray(336)
    struct.pack_into("<h", prstatus, 12, signal)
    struct.pack_into("<i", prstatus, 32, pid)
    struct.pack_into(f"<{len(REGISTERS)}Q", prstatus, 112, *regs)
    siginfo = struct.pack("<iiiiQ", signal, 0, 1, 0, fault) + b"\x00" * 104
    notes = _note(b"CORE\x00", 1, bytes(prstatus)) + _note(b"CORE\x00", 0x53494749, siginfo) + extra
    phoff, phnum = 64, 2
    note_at = phoff + 56 * phnum
    load_at = note_at + len(notes)
    ehdr = b"\x7fELF" + bytes([2, 1, 1, 0]) + b"\x00" * 8
    ehdr += struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, phoff, 0, 0, 64, 56, phnum, 0, 0, 0)
    phdrs = struct.pack("<IIQQQQQQ", 4, 0, note_at, 0, 0, len(notes), 0, 4)
    phdrs += struct.pack("<IIQQQQQQ", 1, 5, load_at, 0x400000, 0, 16, 0x1000, 0x1000)
    return ehdr + phdrs + notes + b"\xcc" * 16


_U64 = st.integers(0, 2**64 - 1)


@settings(max_examples=200)
@given(st.integers(-(2**31), 2**31 - 1), st.integers(1, 64), st.lists(_U64, min_size=27, max_size=27), _U64)
def test_what_is_written_is_read_back(pid, signal, regs, fault):
    r = read_core(build_core(pid, signal, regs, fault))
    (thread,) = r.threads
    assert thread.historical_pid == pid and thread.recorded_current_signal == signal
    assert [int(x.value, 16) for x in thread.registers] == regs
    (sig,) = r.signals
    assert sig.fault_address == (hex(fault) if signal == 11 else None)
    assert [s.type for s in r.segments] == ["PT_NOTE", "PT_LOAD"] and not r.limitations


@settings(max_examples=400)
@given(st.data())
def test_hostile_bytes_never_crash_the_decoder(data):
    core = bytearray(build_core(7, 11, [1] * 27, 0x1234, extra=_note(b"CORE\x00", 0x46494C45, b"\x00" * 40)))
    for _ in range(data.draw(st.integers(0, 6))):
        at = data.draw(st.integers(0, len(core) - 1))
        core[at] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(core)))
    try:
        r = read_core(bytes(core[:cut]))
    except CoreRefused as refused:
        assert refused.reason in ("not-elf", "not-core", "unsupported", "malformed") and str(refused)
        return
    assert isinstance(r.limitations, tuple)
    for note in r.notes:  # every reported range stays inside the bytes given
        loc = note.descriptor_location
        assert int(loc.offset, 16) + int(loc.bytes, 16) <= cut
