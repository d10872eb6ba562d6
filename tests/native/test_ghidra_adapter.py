"""Ghidra's answers into REA's tool answers, on hand-made answers shaped on Ghidra's API
(tests/fixtures/ghidra/README.md: not recorded from a live Ghidra, which cannot be installed
here). The gcc build of the same program and objdump/nm/readelf are the ground truth for
addresses, sizes and bytes."""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from effects.native.ghidra_worker import file_facts
from rea.native import answers, ghidra_cfg, metadata
from rea.native import ghidra as g
from rea.native import ghidra_queries as gq
from rea.native import queries as q

FIXTURES = Path(__file__).parents[1] / "fixtures" / "ghidra"


def fixture(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


@pytest.fixture(scope="module")
def raw():
    return fixture("hello.program.json")


@pytest.fixture(scope="module")
def snapshot(raw):
    """The snapshot the native tools read, made as the runtime makes it from any provider's worker."""
    loader = g.loader_facts(raw).unwrap()
    return {**loader, **metadata.completed(ghidra_cfg.cfg_snapshot(raw).unwrap(), loader)}


def _by_name(snapshot, name, kind="function"):
    return next(p for p in snapshot["procedures"] if p["name"] == name and p["kind"] == kind)


def test_addresses_are_link_time_not_ghidras_image_base(raw, snapshot):
    assert raw["program"]["image_base"] == "00100000"  # where Ghidra put the PIE
    assert [(p["address"], p["name"], p["kind"]) for p in snapshot["procedures"]] == [
        ("0x1000", "_init", "function"),
        ("0x1030", "puts", "thunk"),
        ("0x1050", "_start", "function"),
        ("0x1139", "square", "function"),
        ("0x113f", "main", "function"),
        ("0x1158", "_fini", "function"),
        ("extern:0x1", "puts", "external"),
        ("extern:0x2", "__libc_start_main", "external"),
    ]
    assert snapshot["entry"] == "0x1050" and snapshot["linked_base"] == "0x0" and snapshot["pic"] is True
    assert (snapshot["format"], snapshot["architecture"], snapshot["bits"]) == ("elf", "x86_64", 64)
    assert snapshot["engine"] == {"name": "ghidra", "version": "11.3.1"}


def test_sizes_come_from_inclusive_body_ranges(snapshot):
    # Function.getBody() ranges end at their last byte: main is 0x10113f..0x101156, 24 bytes
    assert {n: _by_name(snapshot, n)["size"] for n in ("_start", "square", "main")} == {
        "_start": 0x22,
        "square": 6,
        "main": 0x18,
    }
    assert _by_name(snapshot, "main")["blocks"] == [{"start": "0x113f", "size": 0x18, "successors": []}]
    assert _by_name(snapshot, "puts", "external")["size"] == 0


def test_calls_callers_and_thunks_from_reference_types(snapshot):
    main, square, thunk = _by_name(snapshot, "main"), _by_name(snapshot, "square"), _by_name(snapshot, "puts", "thunk")
    assert main["callees"] == ["0x1030", "0x1139"]  # UNCONDITIONAL_CALL to the PLT thunk and to square
    assert [s["instruction"] for s in main["call_sites"]] == ["0x1149", "0x1150"]
    assert square["callers"] == ["0x113f"] and thunk["callers"] == ["0x113f"]
    assert thunk["callees"] == ["extern:0x1"]  # getThunkedFunction: the import it stands for
    assert _by_name(snapshot, "puts", "external")["callers"] == ["0x1030"]
    assert _by_name(snapshot, "_start")["callees"] == ["extern:0x2"]  # COMPUTED_CALL through the GOT
    assert _by_name(snapshot, "_start")["returning"] is False  # hasNoReturn


def test_data_references_strings_and_who_reads_them(snapshot):
    refs = {(r["from"], r["to"]): (r["kind"], r["from_procedure"]) for r in snapshot["data_references"]}
    assert refs[("0x1142", "0x2004")] == ("offset", "0x113f")  # DATA: lea of the string
    assert refs[("0x106b", "0x3fc0")] == ("read", "0x1050")  # READ of the GOT slot
    assert refs[("0x3dd0", "0x1130")] == ("offset", None)  # .init_array: no procedure holds it
    assert ("0x114e", "0x1150") not in refs  # FALL_THROUGH is flow, not a reference
    (string,) = snapshot["strings"]
    assert string == {
        "address": "0x2004",
        "value": "hello, ghidra",
        "truncated": False,
        "encoding": "utf-8",
        "length": 14,
        "referenced_by": ["0x113f"],
    }
    assert _by_name(snapshot, "main")["strings"] == ["0x2004"]
    edge = answers.edges(snapshot, q.incoming(snapshot, "0x1139")[:1])[0]
    assert edge.kind.provenance == "Ghidra call references" and edge.kind.call is True
    assert edge.source_procedure.name == "main" and edge.source_procedure.classification is None  # stated once
    assert answers.classification(_by_name(snapshot, "main")).provenance == "Ghidra auto-analysis"
    incoming = q.incoming(snapshot, "0x1139")
    assert incoming == [q.Reference(source="0x1150", procedure="0x113f", target="0x1139", kind="call")]
    assert q.containing(snapshot, "0x1150")["name"] == "main"


def test_memory_blocks_are_segments_without_external_or_unloaded_blocks(snapshot):
    names = [s["name"] for s in snapshot["segments"]]
    assert "EXTERNAL" not in names and ".comment" not in names
    text = next(s for s in snapshot["segments"] if s["name"] == ".text")
    assert (text["start"], text["end"], text["size"], text["executable"]) == ("0x1050", "0x1157", 0x107, True)
    bss = next(s for s in snapshot["segments"] if s["name"] == ".bss")
    assert bss["writable"] and not bss["executable"]
    assert [s.name for s in answers.segments(snapshot)] == names


def test_the_overview_tool_answer(snapshot):
    view = answers.overview("hello", snapshot, {"limit": 10, "detail": "detailed"})
    assert view.counts.functions == 5 and view.counts.thunks == 1 and view.counts.procedures == 8
    assert list(view.imports) == ["__libc_start_main", "puts"]
    assert view.entry_procedure is not None and view.entry_procedure.name == "_start"
    assert view.engine.name == "ghidra" and not view.stripped
    symbols = {s["name"]: s for s in snapshot["symbols"]}
    assert symbols["main"]["size"] == 0x18 and symbols["_start"]["exported"] is True  # external entry point
    assert symbols["puts"] == {
        "name": "puts",
        "address": None,
        "kind": "function",
        "source": "external",
        "size": 0,
        "exported": False,
    }


def test_the_translation_has_every_field_of_the_neutral_procedure(raw):
    neutral = set(metadata.procedure({"address": "0x1", "name": "f", "size": 1, "source": "x"})) - {"source"}
    for row in ghidra_cfg.cfg_snapshot(raw).unwrap()["procedures"]:
        assert set(row) == neutral | {"provenance"} and row["provenance"] == "Ghidra auto-analysis"


def test_listing_decompiler_and_boundary(raw, snapshot):
    space = g.space_of(raw).unwrap()
    main = _by_name(snapshot, "main")
    listing = gq.disassembly(fixture("hello.listing.main.json"), space, main).unwrap()
    assert [i["address"] for i in listing["instructions"]][:3] == ["0x113f", "0x1140", "0x1142"]
    assert listing["instructions"][3] == {
        "address": "0x1149",
        "bytes": "e8e2feffff",
        "mnemonic": "call",
        "operands": "0x00101030",
        "block": "0x113f",
    }
    assert space.ghidra("0x113f") == "10113f"  # what the worker asks Ghidra for
    code = gq.pseudocode(fixture("hello.decompile.main.json"), main).unwrap()
    assert "square(argc)" in code["pseudocode"] and code["name"] == "main" and code["elapsed_ms"] == 212
    sig = gq.boundary(fixture("hello.boundary.main.json"), main).unwrap()
    assert sig["calling_convention"] == "__stdcall"
    assert sig["parameters"][1] == {"name": "argv", "type": "char * *", "size": 8, "storage": "RSI:8"}
    assert sig["return"] == {"type": "int", "size": 4, "storage": "EAX:4"}


def test_decompiler_failures_are_typed(snapshot):
    main = _by_name(snapshot, "main")
    timed = gq.pseudocode({"completed": False, "timed_out": True, "c": None}, main).failure()
    assert timed.code == "provider_timeout" and timed.details["reason"] == "decompiler-timeout"
    empty = gq.pseudocode({"completed": False, "error_message": "Low-level Error: bad"}, main).failure()
    assert empty.code == "execution_failure" and "Low-level Error: bad" in empty.message
    stub = gq.pseudocode({}, _by_name(snapshot, "puts", "external")).failure()
    assert stub.code == "capability_unavailable" and stub.details["reason"] == "no-body"
    assert gq.disassembly({"instructions": "none"}, g.Space(delta=0, spans=()), main).failure().code == (
        "unreadable_output"
    )


# ------------------------------------------------------------- hostile answers


def test_hostile_answer_is_translated_without_raising_and_says_what_it_left_out():
    raw = fixture("hostile.program.json")
    loader, cfg = g.loader_facts(raw).unwrap(), ghidra_cfg.cfg_snapshot(raw).unwrap()
    assert [s["name"] for s in loader["segments"]] == [".text", ".data"]  # the backwards and unnamed blocks left out
    assert any("2 memory block(s)" in n for n in loader["provider_notes"])
    assert [s["name"] for s in loader["symbols"]] == ["first", "memcpy"]  # far_away is outside memory
    procs = {p["address"]: p for p in cfg["procedures"]}
    assert sorted(procs) == ["0x1000", "0x1020", "0x1080", "0x10a0", "0x10f0", "extern:0x1"]
    assert procs["0x1000"]["name"] == "first" and procs["0x1000"]["size"] == 0x40  # the duplicate entry ignored
    assert procs["0x1020"]["size"] == 0x20  # second's bytes 0x1020..0x103f stay with first
    assert procs["0x1080"]["name"] == "FUN_1080"  # no name: Ghidra's default, carrying our address
    assert procs["0x10a0"]["blocks"] == [] and procs["0x10f0"]["size"] == 0  # inverted; past the block's end
    assert cfg["data_references"] == [{"from": "0x1048", "from_procedure": "0x1020", "to": "0x4000", "kind": "write"}]
    assert [s["encoding"] for s in cfg["strings"]] == ["utf-16le"]
    notes = "\n".join(cfg["provider_notes"])
    for expected in (
        "1 duplicate function record(s)",
        "1 function body overlap(s)",
        "2 function(s) with a malformed body",
        "3 function(s) without an entry in loaded memory",
        "1 reference(s) of a type this adapter does not know",
        "5 reference(s) with a malformed end or one outside loaded memory",
    ):
        assert expected in notes, notes


def test_overlapping_bodies_keep_each_byte_once(raw):
    damaged = copy.deepcopy(raw)
    square = next(f for f in damaged["functions"] if f["name"] == "square")
    square["body"] = [{"min": "00101139", "max": "00101150"}]  # reaches 0x12 bytes into main
    procs = {p["name"]: p for p in ghidra_cfg.cfg_snapshot(damaged).unwrap()["procedures"] if p["kind"] == "function"}
    assert procs["square"]["size"] == 0x18 and procs["main"]["size"] == 0x18 - 0x12
    owned = [(int(b["start"], 16), b["size"]) for p in procs.values() for b in p["blocks"]]
    spans = sorted((a, a + n) for a, n in owned)
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))


@pytest.mark.parametrize(
    "damage",
    [
        lambda r: r.pop("program"),
        lambda r: r.update(program="x86"),
    ],
)
def test_an_answer_without_a_program_is_unreadable_output(raw, damage):
    damaged = copy.deepcopy(raw)
    damage(damaged)
    for translate in (g.loader_facts, ghidra_cfg.cfg_snapshot):
        error = translate(damaged).failure()
        assert error.code == "unreadable_output" and error.details["reason"] == "malformed-answer"
    assert g.loader_facts([]).failure().code == "unreadable_output"


def test_addresses_parse_as_ghidra_prints_them():
    assert g.parse_address("00101139") == ("", 0x101139)
    assert g.parse_address("ram:00101139") == ("ram", 0x101139)
    assert g.parse_address("EXTERNAL:00000001") == ("EXTERNAL", 1)
    assert g.parse_address("0x10") == ("", 16)
    for bad in ("", "ram:", "zz", "0x", "1" * 17, None, 5, "ram:0x1:2"):
        assert g.parse_address(bad) is None, bad
    space = g.Space(delta=0x100000, spans=((0x1000, 0x2000),))
    assert space.link("00101139") == "0x1139" and space.link("EXTERNAL:00000001") == "extern:0x1"
    assert space.link("OTHER:00000010") == "other:0x10" and space.link("00000010") is None  # below the image base
    assert space.loaded("0x1fff") and not space.loaded("0x2000") and space.loaded("extern:0x1")


# ----------------------------------------------- the gcc build as ground truth


@pytest.fixture(scope="module")
def hello(tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    out = tmp_path_factory.mktemp("ghidra") / "hello"
    subprocess.run(["gcc", "-O1", "-o", str(out), str(FIXTURES / "hello.c")], check=True)
    return out


def test_fixture_agrees_with_the_gcc_build(hello, snapshot):
    nm = subprocess.run(["nm", "-S", str(hello)], capture_output=True, text=True, check=True).stdout
    sized = {m[3]: (int(m[1], 16), int(m[2], 16)) for m in re.finditer(r"^(\w+) (\w+) T (\w+)$", nm, re.M)}
    built = {n: sized.get(n) for n in ("_start", "square", "main")}
    translated = {n: (int(_by_name(snapshot, n)["address"], 16), _by_name(snapshot, n)["size"]) for n in built}
    if built != translated:
        pytest.skip(f"this gcc lays hello.c out differently ({built}) from the fixture's ({translated})")
    dump = subprocess.run(
        ["objdump", "-d", "--disassemble=main", str(hello)], capture_output=True, text=True, check=True
    ).stdout
    objdump_bytes = "".join(
        "".join(m[1].split()) for m in re.finditer(r"^\s+[0-9a-f]+:\t((?:[0-9a-f]{2} )+)", dump, re.M)
    )
    listing = fixture("hello.listing.main.json")["instructions"]
    assert "".join(i["bytes"] for i in listing) == objdump_bytes
    assert file_facts(str(hello)) == {"linked_base": 0, "entry": 0x1050, "pic": True}  # lief, as the worker reads it
