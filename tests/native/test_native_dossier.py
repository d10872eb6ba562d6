"""The analyze_function dossier when angr produces no pseudocode (issue 27, item 4): driven with scripted
engine replies, as the worker gives them, the dossier says why and carries the assembly and basic blocks;
and the worker's reason names what angr itself caught."""

from __future__ import annotations

import types

from returns.result import Failure, Success

from native_fixtures import _bound_session, proc
from rea.errors import ReaError
from rea.native import annotations
from rea.native.effects import NativeFacts, NativeQuery, ReadAnnotations
from rea.workflows import PROGRAMS
from scripted import drive

MAIN = {
    **proc("0x1000", "main"),
    "size": 6,
    "returning": True,
    "strings": [],
    "call_sites": [],
    "blocks": [{"start": "0x1000", "size": 4, "successors": ["0x1004"]}, {"start": "0x1004", "size": 2}],
}
SNAPSHOT = {
    "procedures": [MAIN],
    "references": [],
    "strings": [],
    "segments": [],
    "sections": [],
    "symbols": [],
    "format": "elf",
    "architecture": "x86_64",
    "arch_name": "AMD64",
    "bits": 64,
    "linked_base": "0x0",
}
LISTING = [
    {"address": "0x1000", "bytes": "55", "mnemonic": "push", "operands": "rbp", "block": "0x1000"},
    {"address": "0x1001", "bytes": "4889e5", "mnemonic": "mov", "operands": "rbp, rsp", "block": "0x1000"},
    {"address": "0x1004", "bytes": "c3", "mnemonic": "ret", "operands": "", "block": "0x1004"},
]
EMPTY = "angr's decompiler produced no code for main: no AIL graph was built from its 2 blocks"


def _dossier(decompiled):
    def answer(effect):
        if isinstance(effect, NativeFacts):
            return Success(SNAPSHOT)
        if isinstance(effect, ReadAnnotations):
            return Success(annotations.EMPTY)
        if effect.op == "decompile":
            return decompiled
        return Success({"address": "0x1000", "instructions": LISTING})

    outcome, _ = drive(
        PROGRAMS["analyze_function"],
        _bound_session(),
        {"procedure": "main"},
        answer,
        answers=(NativeFacts, ReadAnnotations, NativeQuery),
    )
    return outcome.reply.unwrap()["normalized_result"]


def test_an_empty_decompile_is_a_dossier_with_the_reason_assembly_and_blocks():
    failure = ReaError(code="execution_failure", message=EMPTY, details={"reason": "decompiler-empty"})
    dossier = _dossier(Failure(failure))
    assert dossier["pseudocode"] is None
    reason = dossier["facet_availability"]["pseudocode"]["reason"]
    assert reason.startswith(EMPTY) and "`assembly` (3 instructions)" in reason and "(2 blocks)" in reason
    assert f"pseudocode: {reason}" in dossier["limitations"]
    assert dossier["assembly"] == ["0x1000: push rbp", "0x1001: mov rbp, rsp", "0x1004: ret"]
    assert [b["start"] for b in dossier["basic_blocks"]] == ["0x1000", "0x1004"]
    assert dossier["facet_availability"]["assembly"] == {"available": True}


def test_pseudocode_locals_are_the_dossiers_locals():
    text = "int main()\n{\n    int v0;  // [bp-0x14]\n\n    v0 = 3735928559;\n    return v0;\n    return v0;\n}\n"
    dossier = _dossier(Success({"address": "0x1000", "name": "main", "pseudocode": text}))
    assert "v0 = 0xdeadbeef;" in dossier["pseudocode"] and dossier["pseudocode"].count("return") == 1
    assert "int v0;  // [rbp - 0xc] = entry sp - 0x14" in dossier["pseudocode"]
    (local,) = dossier["procedure"]["locals"]
    assert local["description"] == "int v0 at [rbp - 0xc] in the assembly, entry sp - 0x14"
    assert any("1 unreachable returns" in x for x in dossier["limitations"])


def test_the_worker_names_the_error_angr_caught():
    from angr.analyses.analysis import AnalysisLogEntry

    from effects.native.function_work import _empty_reason

    try:
        raise ValueError("region structuring failed")
    except ValueError:
        caught = AnalysisLogEntry("exception occurred", exc_info=True)
    function = types.SimpleNamespace(blocks=[object(), object()])
    said = _empty_reason(types.SimpleNamespace(errors=[caught], clinic=None), function)
    assert said == "1 error(s) caught inside angr, the last ValueError: region structuring failed"
    assert _empty_reason(types.SimpleNamespace(errors=[], clinic=None), function) == (
        "no AIL graph was built from its 2 blocks"
    )
