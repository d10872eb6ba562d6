"""The fast CIL loop (effects/managed/cil.py) decodes exactly what dncil's reader decodes."""

from __future__ import annotations

import dnfile
import pytest
from dncil.cil.body import reader as dncil_reader

from effects.managed import cil
from managed_fixtures import library, needs_mono

pytestmark = needs_mono


def _dncil(window: bytes) -> list[tuple[int, str, object]]:
    body = dncil_reader.read_method_body_from_bytes(window)
    out = []
    for i in body.instructions:
        operand = i.operand
        value = getattr(operand, "value", getattr(operand, "index", operand))
        if isinstance(operand, list):
            value = tuple(t - body.header_size for t in operand)
        elif i.opcode.operand_type.name.endswith("BrTarget"):
            value = operand - body.header_size
        out.append((i.offset - body.header_size, i.opcode.name, value))
    return out


def test_every_body_matches_dncil(tmp_path):
    path = library(tmp_path)
    data = path.read_bytes()
    pe = dnfile.dnPE(str(path))
    seen = 0
    for row in pe.net.mdtables.MethodDef.rows:
        if not row.Rva:
            continue
        window = data[pe.get_offset_from_rva(row.Rva) :][:4096]
        ours = cil.decode(window, 100_000)
        assert [(i.offset, i.opcode, i.operand) for i in ours.instructions] == _dncil(window), row.Name
        assert ours.instruction_total == len(ours.instructions)
        seen += 1
    assert seen >= 8


@pytest.mark.parametrize("window", [b"", b"\x03", b"\x13\x30\x02\x00\xff\xff\x00\x00", bytes([0x0A, 0x28, 1])])
def test_bodies_that_end_or_lie_are_refused(window):
    with pytest.raises(cil.BodyError):
        cil.decode(window, 10)
