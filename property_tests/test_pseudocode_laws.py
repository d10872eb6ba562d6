"""Laws of the pseudocode post-processor (rea.native.pseudocode) over C-like text built from tokens:
only number literals change and each keeps its value, the pass is idempotent, packed text and
magic reciprocals decode back to what made them, and stack operands add back to angr's offsets."""

from __future__ import annotations

import re

from hypothesis import assume, given
from hypothesis import strategies as st

from rea.native import pseudocode as pc

IDENT = st.from_regex(r"[a-z_][a-z0-9_]{0,5}", fullmatch=True).filter(lambda s: s not in ("return",))
DECIMAL = st.integers(0, 2**64 - 1).map(str)
HEX = st.integers(0, 2**64 - 1).map(hex)
STRING = st.text(alphabet='ab09 xy\\"*/', max_size=8).map(
    lambda t: '"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"'
)
COMMENT = st.text(alphabet="ab09 x", max_size=8).map(lambda t: f"/* {t} */")
OPERATOR = st.sampled_from(
    ["&", "|", "^", "*", "+", "-", "<<", ">>", "==", "&&", "=", "(", ")", ",", ";", "\n", "[", "]"]
)
TOKEN = st.one_of(IDENT, DECIMAL, HEX, STRING, COMMENT, OPERATOR)
C_TEXT = st.lists(TOKEN, max_size=30).map(" ".join)

# an independent tokenizer for the laws: the same token classes, written separately
_LEX = re.compile(r'/\*.*?\*/|"(?:\\.|[^"\\])*"|[A-Za-z_]\w*|0x[0-9a-f]+|\d+|\S', re.DOTALL)
_ADDED = re.compile(r' /\* (?:"(?:\\.|[^"\\])*"|magic reciprocal: x / \d+) \*/')


def lex(text: str) -> list[str]:
    return _LEX.findall(text)


def number(token: str) -> int | None:
    return int(token, 0) if token[0].isdigit() and (token.startswith("0x") or token == "0" or token[0] != "0") else None


@given(C_TEXT)
def test_only_number_literals_change_and_each_keeps_its_value(text):
    out, _ = pc.constants(text)
    before, after = lex(text), lex(_ADDED.sub("", out))
    assert len(before) == len(after)
    for old, new in zip(before, after):
        if old != new:
            assert number(old) is not None and number(old) == number(new), (old, new)


@given(st.one_of(C_TEXT, st.text(max_size=200)))
def test_readable_is_idempotent(text):
    once = pc.readable(text).text
    assert pc.readable(once).text == once


@given(st.integers(0, 2**64 - 1))
def test_a_lone_literal_round_trips_its_value(v):
    out, counts = pc.constants(f"x = {v};")
    literal = re.search(r"= (0x[0-9a-f]+|\d+)", out).group(1)
    assert int(literal, 0) == v
    assert (literal.startswith("0x")) == (counts.hexed == 1)
    assert v <= 0xFFFF or literal.startswith("0x")  # every large constant is hex


@given(st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=4, max_size=8))
def test_packed_bytes_spell_their_text(word):
    assume(any(c.isalnum() for c in word))
    v = int.from_bytes(word.encode(), "little")
    assert pc.packed_text(v) == word
    out, counts = pc.constants(f"v = {v};")
    assert counts.packed == 1 and hex(v) in out


@given(st.integers(3, 0xFFFF), st.sampled_from([32, 64]))
def test_a_compiler_reciprocal_names_its_divisor(d, n):
    assume(d & (d - 1))
    s = (d - 1).bit_length()  # the post-shift compilers use: the reciprocal has its top bit set
    m = -(-(1 << (n + s - 1)) // d)
    assume(1 << (n - 1) <= m < 1 << n)
    found = pc.magic_divisor(m)
    assert found is not None and d % found == 0 and (d // found) & (d // found - 1) == 0  # d up to a power of two


@given(st.integers(0, 3), st.integers(0, 0x400), st.lists(st.integers(-0x800, -1), min_size=1, max_size=6))
def test_stack_operands_add_back_to_angrs_entry_offsets(pushes, frame, offsets):
    instructions = (("push", "rbp"), ("mov", "rbp, rsp"), *(("push", "rbx"),) * pushes, ("sub", f"rsp, {frame:#x}"))
    text = "".join(f"    int v{k};  // [bp{o:+#x}]\n" for k, o in enumerate(offsets))
    out, found = pc.stack_locals(text, pc.Facts(instructions=instructions))
    assert [s.entry_offset for s in found] == offsets and "[bp" not in out
    for slot in found:
        m = re.fullmatch(r"\[rbp(?: ([+-]) (0x[0-9a-f]+|\d))?\]", slot.operand)
        delta = 0 if m.group(1) is None else int(m.group(2), 0) * (1 if m.group(1) == "+" else -1)
        assert -8 + delta == slot.entry_offset  # rbp is the entry sp less the pushed rbp


@given(IDENT, st.integers(0, 4))
def test_identity_inserts_go_and_nothing_else_does(name, pad):
    body = f"    {name} = _INSERT({name}, 0, {name});\n    w = _INSERT({name}, 1, {name});\n"
    out, removed = pc.identities(body + " " * pad)
    assert removed == 1 and f"_INSERT({name}, 0, {name})" not in out and f"_INSERT({name}, 1, {name})" in out


@given(
    st.lists(
        st.sampled_from(["    return v0;", "    return;", "    v0 = 1;", "", "        return 1;", "LABEL_1:"]),
        min_size=1,
        max_size=12,
    )
)
def test_no_return_follows_a_return_and_only_returns_go(lines):
    text = "\n".join(lines)
    out, removed = pc.returns(text)
    kept = out.splitlines()
    assert len(kept) + removed == len(text.splitlines())
    assert [x for x in kept if "return" not in x] == [x for x in text.splitlines() if "return" not in x]
    significant = [x for x in kept if x.strip()]
    for a, b in zip(significant, significant[1:]):
        same = len(a) - len(a.lstrip()) == len(b) - len(b.lstrip())
        assert not (a.strip().startswith("return") and b.strip().startswith("return") and same)


def angr_literal(text: str) -> str:
    """A C string as angr's CConstant.str_to_c_str writes it: Python's repr body, double-quoted."""
    body = repr(text)[1:-1]
    if repr(text)[0] == "'" and '"' in body:
        body = body.replace('"', '\\"')
    return f'"{body}"'


@given(st.binary(min_size=1, max_size=16).filter(lambda b: any(not 0x20 <= c < 0x7F for c in b)))
def test_an_inline_copy_lists_exactly_the_bytes_it_stores(raw):
    line = f"    strncpy(&v3, {angr_literal(raw.decode('latin-1'))}, {len(raw)});\n"
    out, count = pc.inline_copies(line, frozenset())
    listed = re.search(r"inline stores, not a call: \d+ bytes: ([0-9a-f ]+) \*/", out).group(1)
    assert count == 1 and bytes.fromhex(listed) == raw
    assert pc.inline_copies(out, frozenset()) == (out, 0)  # marked once
    assert pc.inline_copies(line, frozenset({"strncpy"})) == (line, 0)  # a real call stays as it is


@given(st.integers(0, 0xFFFF), st.integers(0x1000, 0xF000))
def test_small_values_are_hex_only_inside_the_image_and_above_page_zero(v, base):
    image = ((base, base + 0x800),)
    out, _ = pc.constants(f"x = {v} + y;", image)
    assert (hex(v) in out) == (v >= 0x1000 and base <= v < base + 0x800 or pc._is_mask(v))
