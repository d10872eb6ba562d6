"""Laws of the EVM reader over hostile bytecode: total, bounded, and faithful to instruction boundaries."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rea.evm.bytecode import decode_carrier, disassemble
from rea.evm.interface import interface_of


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600))
def test_disassembly_tiles_the_code_exactly(code):
    ins = disassemble(code)
    assert [i.offset for i in ins] == sorted({i.offset for i in ins})
    end = 0
    for i in ins:
        assert i.offset == end
        end += i.size
    assert end >= len(code) and (end == len(code) or ins[-1].truncated)
    assert all(not i.truncated for i in ins[:-1])


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600))
def test_interface_is_total_and_offsets_are_inside_or_named(code):
    found = interface_of(code)
    for f in found.functions:
        assert f.selector.startswith("0x") and len(f.selector) == 10
        assert f.bytecode_offset < len(code) or f.unknowns


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from([0x63, 0x14, 0x61, 0x57, 0x5B, 0x56, 0x35, 0x16, 0x80, 0x90, 0x34, 0x15]), max_size=400)
)
def test_dispatcher_shaped_noise_stays_bounded(ops):
    interface_of(bytes(ops))  # loops and computed jumps end within the step budget


@given(st.binary(max_size=200))
def test_hex_round_trip_with_prefix_and_outer_space(code):
    carrier = b" \n0x" + code.hex().encode() + b"\t\n"
    assert decode_carrier(carrier, "hex").unwrap() == code
    assert decode_carrier(code, "raw").unwrap() == code


@given(st.binary(min_size=1, max_size=64).map(lambda b: b.hex()[:-1].encode()))
def test_odd_hex_is_refused(text):
    assert decode_carrier(text, "hex").failure().code == "invalid_request"
