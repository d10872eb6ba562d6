"""Readable pseudocode (issue 27, item 4) through the real angr worker over MCP, against the C source's
constants and objdump's disassembly of the same gcc -O0 build (the independent reader)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest

from mcp_client import connect
from native_fixtures import result

pytestmark = pytest.mark.slow
SOURCE = Path(__file__).parents[1] / "fixtures" / "pseudocode.c"
FUNCTIONS = ("stack_string", "packed_key", "mask", "xor_decode", "modulo", "junk", "main")


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    if shutil.which("gcc") is None or shutil.which("objdump") is None:
        pytest.skip("gcc and objdump are needed")
    target = tmp_path_factory.mktemp("pseudo") / "pseudo"
    subprocess.run(["gcc", "-O0", "-o", str(target), str(SOURCE)], check=True, capture_output=True)
    # the same source at -O2: no frame pointer, locals addressed from %rsp after a scheduled `sub`
    subprocess.run(["gcc", "-O2", "-o", f"{target}_O2", str(SOURCE)], check=True, capture_output=True)
    return target


def objdump(path: Path) -> dict[str, str]:
    """function name -> its AT&T disassembly text, as objdump prints it."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(path)], capture_output=True, text=True, check=True)
    bodies: dict[str, list[str]] = {}
    current = None
    for line in out.stdout.splitlines():
        header = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if header:
            current = header.group(1)
            bodies[current] = []
        elif current and line.strip():
            bodies[current].append(line)
    return {name: "\n".join(lines) for name, lines in bodies.items()}


@pytest.fixture(scope="module")
def dossiers(sample, tmp_path_factory) -> dict[str, dict]:
    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path_factory.mktemp("rea-cache"))) as s:
            assert not (await s.call_tool("open_binary", {"path": str(sample)})).is_error
            found = {fn: result(await s.call_tool("analyze_function", {"procedure": fn})) for fn in FUNCTIONS}
            for fn in ("modulo", "xor_decode"):
                found[f"pseudo:{fn}"] = result(await s.call_tool("procedure_pseudo_code", {"procedure": fn}))
            found["batch"] = result(
                await s.call_tool("batch_decompile", {"addresses": ["packed_key", "mask", "xor_decode"]})
            )
            assert not (await s.call_tool("open_binary", {"path": f"{sample}_O2"})).is_error
            for fn in ("stack_string", "xor_decode"):
                found[f"O2:{fn}"] = result(await s.call_tool("analyze_function", {"procedure": fn}))
            return found

    return anyio.run(main)


def att(operand: str) -> str:
    """capstone's `[rbp - 0x20]` as objdump writes it: `-0x20(%rbp)`."""
    m = re.fullmatch(r"\[(\w+)(?: ([+-]) (0x[0-9a-f]+|[0-9]))?\]", operand)
    assert m, operand
    offset = "" if m.group(2) is None else ("-" if m.group(2) == "-" else "") + hex(int(m.group(3), 0))
    return f"{offset}({'%' + m.group(1)})"


def test_every_stack_local_names_the_operand_objdump_shows(dossiers, sample):
    listing = objdump(sample)
    checked = 0
    for fn in FUNCTIONS:
        dossier = dossiers[fn]
        for local in dossier["procedure"]["locals"]:
            operand = re.search(r" at (\[[^\]]+\]) in the assembly", local["description"])
            assert operand, local
            if shows(listing[fn], operand.group(1)):
                assert operand.group(1) in "\n".join(dossier["assembly"])  # the dossier's own capstone listing
            else:
                assert att(operand.group(1)) == pushed_slot(listing[fn]), (fn, local)
            name = local["description"].split(" at ")[0].split()[-1].split("[")[0]
            assert re.search(
                rf"\b{re.escape(name)}\b[^\n]*// {re.escape(operand.group(1))} = entry sp - 0x", dossier["pseudocode"]
            )
            checked += 1
    assert checked >= 6  # stack_string's buffer, xor_decode's three, junk's two, main's spill
    assert "[bp-0x" not in "".join(dossiers[fn]["pseudocode"] for fn in FUNCTIONS)
    # the same text, stack operands included, from procedure_pseudo_code and batch_decompile
    batch = {row["address"]: row for row in dossiers["batch"]["items"]}
    assert dossiers["pseudo:xor_decode"] == dossiers["xor_decode"]["pseudocode"] == batch["xor_decode"]["pseudocode"]


def pushed_slot(body: str) -> str:
    """The frame slot a `push` after `mov %rsp,%rbp` writes in a leaf that never moves %rsp (junk's
    `push %rax; pop %rax`): no operand names it, objdump shows it as the push itself."""
    after = body.split("mov    %rsp,%rbp", 1)[-1]
    return "-0x8(%rbp)" if "push " in after and "%rsp" not in after else ""


def test_without_a_frame_pointer_locals_are_named_from_rsp(dossiers, sample):
    listing = objdump(Path(f"{sample}_O2"))
    checked = 0
    for fn in ("stack_string", "xor_decode"):
        assert "%rbp" not in listing[fn]
        for local in dossiers[f"O2:{fn}"]["procedure"]["locals"]:
            operand = re.search(r" at (\[rsp[^\]]*\]) in the assembly", local["description"])
            assert operand and shows(listing[fn], operand.group(1)), (fn, local, listing[fn])
            checked += 1
    assert checked >= 2


def shows(body: str, operand: str) -> bool:
    """Whether objdump's text has capstone's operand as a whole AT&T operand (`(%rsp)` is not `0x10(%rsp)`)."""
    return re.search(rf"(?<![0-9a-fx-]){re.escape(att(operand))}", body) is not None


def movabs_immediates(text: str) -> list[int]:
    return [int(v, 16) for v in re.findall(r"movabs \$0x([0-9a-f]+),", text)]


def test_constants_are_hex_and_packed_text_is_spelled(dossiers, sample):
    listing = objdump(sample)
    key = dossiers["packed_key"]["pseudocode"]
    (immediate,) = movabs_immediates(listing["packed_key"])
    assert immediate == 0x6F77206F6C6C6568  # the C source's constant
    assert '0x6f77206f6c6c6568 /* "hello wo" */' in key and str(immediate) not in key
    mask = dossiers["mask"]["pseudocode"]
    assert "0xff00ff" in mask and "0xdeadbeef" in mask and "16711935" not in mask and "3735928559" not in mask
    # the XOR-encoded stack string: every movabs immediate appears in hex, the XOR key in hex
    decode = dossiers["xor_decode"]["pseudocode"]
    for value in movabs_immediates(listing["xor_decode"]):
        assert hex(value) in decode and str(value) not in decode
    assert "^ 0x7f" in decode and "^ 127" not in decode
    assert any("integer constants shown in hex" in x for x in dossiers["mask"]["limitations"])
    batch = {row["address"]: row for row in dossiers["batch"]["items"]}
    assert "0xdeadbeef" in batch["mask"]["pseudocode"] and "hello wo" in batch["packed_key"]["pseudocode"]


def test_modulo_magic_is_named_and_stack_strings_are_not_calls(dossiers, sample):
    listing = objdump(sample)
    assert re.search(r"imul +\$0xffffffff92492493", listing["modulo"])  # gcc's reciprocal for % 7
    for text in (dossiers["modulo"]["pseudocode"], dossiers["pseudo:modulo"]):
        assert "0xffffffff92492493 /* magic reciprocal: x / 7 */" in text
    stack = dossiers["stack_string"]["pseudocode"]
    assert "strncpy" not in listing["stack_string"]  # the binary stores the bytes; it never calls strncpy
    assert re.search(r'strncpy\(&v\d+, "hello world, stack!", 19\); /\* inline stores, not a call: 19 bytes \*/', stack)


def test_identity_inserts_are_removed_and_counted(dossiers, sample):
    assert "mov    %al,%al" in objdump(sample)["junk"]  # the junk instruction angr renders as _INSERT(v, 0, v)
    junk = dossiers["junk"]
    assert "_INSERT" not in junk["pseudocode"]
    assert any("1 identity intrinsics" in x for x in junk["limitations"])
    assert "return" in junk["pseudocode"]
