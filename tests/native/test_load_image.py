"""inspect_native_load_image over DOS programs written byte by byte (tests/dos_fixtures.py).

Ground truth is computed independently: the relocated module with struct in the fixture, the entry
instruction and the relocated operand with objdump (i8086), digests with hashlib over those bytes.
Lying headers must give a mismatch naming the header field or record at fault, never a crash."""

from __future__ import annotations

import hashlib
import json
import shutil
import struct
import subprocess

import anyio
import jsonschema
import pytest

import dos_fixtures as dos
from mcp_client import connect, err
from rea.artifacts.model import format_for_name
from rea.native.dos import com_by_name, is_dos_mz, windows_header_offset
from rea.native.load_image import load_image
from rea.wire.convert import to_wire
from reference_shapes import shape
from support import clean_env, rea_command


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def loaded(data: bytes, fmt: str = "dos-mz") -> dict:
    return to_wire(load_image(data, fmt, "t.exe", sha(data)).unwrap())


def failed(result: dict) -> dict[str, dict]:
    return {c["name"]: c for c in result["checks"] if not c["matched"]}


# ------------------------------------------------------------------ pure: well-formed images


def test_a_well_formed_mz_loads_with_its_relocations_applied_and_every_check_matches():
    data, truth = dos.mz_program()
    r = loaded(data)
    assert r["status"] == "verified" and not failed(r)
    assert (r["header_bytes"], r["module_bytes"], r["overlay_bytes"]) == (
        truth["header_bytes"], truth["module_bytes"], truth["overlay_bytes"],
    )  # fmt: skip
    o = r["observations"]
    source = o["source_files"][0]
    assert source["original_sha256"] == sha(data) and source["modified_sha256"] == sha(truth["relocated_file"])
    header, module, allocation = o["mappings"]
    assert (header["start"], header["end"], header["sha256"]) == ("HEADER:0x0", "HEADER:0x3f", sha(data[:64]))
    assert (module["start"], module["end"], module["file_offset"]) == ("0x10000", "0x10023", 64)
    assert module["sha256"] == sha(truth["relocated_module"])
    assert allocation["initialized"] is False and allocation["length"] == 0x10 * 16 and allocation["sha256"] is None
    assert [x["address"] for x in o["relocations"]] == truth["relocation_addresses"]
    assert all(x["status"] == "APPLIED" and x["memory_bytes_hex"] == "0110" for x in o["relocations"])
    assert o["entry_points"] == [truth["entry"]] and r["entry"]["linear_address"] == truth["entry"]
    assert {g["name"]: g["value_hex"] for g in o["entry_context"][0]["registers"]} == {
        "CS": "0x1000", "IP": "0x0", "SS": "0x1002", "SP": "0x100",
    }  # fmt: skip


@pytest.mark.skipif(shutil.which("objdump") is None, reason="binutils objdump is not installed")
def test_objdump_decodes_the_relocated_operand_at_the_entry(tmp_path):
    """objdump (i8086) reads the module at the entry: `mov ax, imm16` whose operand is the first fixup."""
    data, truth = dos.mz_program()
    module = tmp_path / "module.bin"
    module.write_bytes(truth["relocated_module"])
    text = subprocess.run(
        ["objdump", "-b", "binary", "-m", "i8086", "-M", "intel", "-D", "--adjust-vma=0x10000", str(module)],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    first = next(line for line in text.splitlines() if line.strip().startswith("10000:"))
    assert "b8 01 10" in first and "mov" in first and "ax,0x1001" in first  # segment 1 relocated by 0x1000
    r = loaded(data)
    operand = int(r["observations"]["relocations"][0]["address"], 16)
    assert operand == int(r["entry"]["linear_address"], 16) + 1  # the imm16 after the b8 opcode


def test_a_com_program_loads_at_0x100_of_segment_0x1000():
    r = loaded(dos.COM, "dos-com")
    assert r["status"] == "verified" and r["format"] == "dos-com"
    (module,) = r["observations"]["mappings"]
    assert (module["start"], module["end"], module["sha256"]) == (
        "0x10100",
        hex(0x10100 + len(dos.COM) - 1),
        sha(dos.COM),
    )
    assert r["entry"] == {"relative_segment": 0, "offset": 0x100, "linear_address": "0x10100"}
    assert r["observations"]["relocations"] == [] and r["header_bytes"] == 0


# ------------------------------------------------------------------ pure: hostile headers


def _module() -> bytes:
    return dos.CODE.ljust(16, b"\x90") + dos.DATA


def test_pages_that_claim_more_than_the_file_load_what_is_there_and_say_where():
    module = _module()
    data = dos.mz_header(64 + len(module), [(1, 0)], pages=8) + module
    r = loaded(data)
    bad = failed(r)
    assert r["status"] == "mismatch" and bad["image_within_file"]["file_offset"] == 4  # e_cp
    assert bad["image_within_file"]["expected"] == {"at_most": len(data)}
    assert r["module_bytes"] == len(module)  # loaded up to the file's end


def test_a_relocation_outside_the_module_is_skipped_at_its_record():
    module = _module()
    data = dos.mz_header(64 + len(module), [(1, 0), (0xFFF0, 0x10)])
    data += module
    r = loaded(data)
    bad = failed(r)
    assert set(bad) == {"relocations_within_module", "relocation[1].target_within_module"}
    assert bad["relocation[1].target_within_module"]["file_offset"] == 0x1C + 4
    assert bad["relocations_within_module"]["observed"] == 1
    statuses = [x["status"] for x in r["observations"]["relocations"]]
    assert statuses == ["APPLIED", "SKIPPED"]


def test_a_relocation_table_past_the_end_of_the_file():
    data = dos.mz_header(64 + 4, [], header_paragraphs=4)[:64] + b"\x90" * 4
    patched = bytearray(data)
    struct.pack_into("<H", patched, 6, 500)  # e_crlc: 500 records from 0x1c
    r = loaded(bytes(patched))
    bad = failed(r)
    assert bad["relocation_table_within_file"]["file_offset"] == 0x18
    assert bad["relocation_table_within_header"]["observed"] == 0x1C + 2000


@pytest.mark.parametrize(
    "field,value,check",
    [(2, 600, "final_page_size"), (4, 0, "page_count"), (8, 1, "header_size"), (8, 0x100, "header_within_image")],
)
def test_a_lying_header_field_is_named_by_its_offset(field, value, check):
    data, _ = dos.mz_program()
    patched = bytearray(data)
    struct.pack_into("<H", patched, field, value)
    bad = failed(loaded(bytes(patched)))
    assert bad[check]["file_offset"] == field


def test_a_header_shorter_than_its_fixed_part_is_a_canonical_error():
    got = load_image(b"MZ" + b"\0" * 10, "dos-mz", "t.exe", sha(b"MZ" + b"\0" * 10)).failure()
    assert got.code == "target_unavailable"
    assert got.details["reason"] == "truncated_header" and got.details["required"] == 28


def test_sniffing_tells_dos_from_pe_and_com_by_name():
    data, _ = dos.mz_program()
    assert is_dos_mz(data) and format_for_name("hello.exe", data) == "dos-mz"
    pe = bytearray(256)
    pe[:2], pe[8:10], pe[0x3C:0x40] = b"MZ", (4).to_bytes(2, "little"), (0x80).to_bytes(4, "little")
    pe[0x80:0x84] = b"PE\0\0"
    assert windows_header_offset(bytes(pe)) == 0x80 and format_for_name("x.exe", bytes(pe)) == "pe"
    assert com_by_name("HELLO.COM", 9, "file") == "dos-com"
    assert com_by_name("big.com", 0xFF01, "file") == "file" and com_by_name("x.com", 9, "elf") == "elf"


# ------------------------------------------------------------------ MCP and CLI


@pytest.fixture
def programs(tmp_path):
    data, truth = dos.mz_program()
    broken = bytearray(data)
    struct.pack_into("<H", broken, 4, 9)  # e_cp: 9 pages in a 123-byte file
    return {
        "mz": dos.write(tmp_path, "hello.exe", data),
        "com": dos.write(tmp_path, "hi.com", dos.COM),
        "raw": dos.write(tmp_path, "hi.bin", dos.COM),
        "broken": dos.write(tmp_path, "broken.exe", bytes(broken)),
        "truth": truth,
    }


def test_over_mcp_open_binary_then_inspect_native_load_image(programs):
    async def main():
        async with connect() as s:
            out = {"before": await s.call_tool("inspect_native_load_image", {})}
            for name in ("mz", "com", "broken"):
                opened = await s.call_tool("open_binary", {"path": str(programs[name])})
                out[name + "-open"] = opened.structured_content["result"]
                out[name] = await s.call_tool("inspect_native_load_image", {})
            await s.call_tool("open_binary", {"path": str(programs["raw"]), "format": "dos-com"})
            out["raw"] = await s.call_tool("inspect_native_load_image", {})
            await s.call_tool("open_binary", {"path": "/usr/bin/true"})
            state = (await s.call_tool("binary_session", {})).structured_content["result"]
            out["elf-state"] = {n: g for g in state["tool_availability"]["groups"] for n in g["names"]}
            out["elf"] = await s.call_tool("inspect_native_load_image", {})
            return out

    r = anyio.run(main)
    assert err(r["before"], "target_unavailable")["details"]["reason"] == "target_required"
    assert (r["mz-open"]["format"], r["mz-open"]["architecture"]) == ("dos-mz", "x86")
    assert r["com-open"]["format"] == "dos-com"
    evidence = r["mz"].structured_content
    assert evidence["subject"]["format"] == "dos-mz" and evidence["provider"]["id"] == "rea-dos-loader"
    result = evidence["normalized_result"]
    jsonschema.validate(result, shape("inspect_native_load_image"))
    assert result["status"] == "verified" and result["target_sha256"] == sha(programs["mz"].read_bytes())
    module = result["observations"]["mappings"][1]
    assert module["sha256"] == sha(programs["truth"]["relocated_module"])
    assert r["com"].structured_content["normalized_result"]["entry"]["linear_address"] == "0x10100"
    assert r["raw"].structured_content["normalized_result"]["format"] == "dos-com"
    broken = r["broken"].structured_content
    assert broken["normalized_result"]["status"] == "mismatch"
    assert {"kind": "file-offset", "offset": 4} in broken["locations"]
    assert any("did not match" in note for note in broken["limitations"])
    group = r["elf-state"]["inspect_native_load_image"]
    assert group["available"] is False and group["reason"] == "target_unsupported"
    refused = err(r["elf"], "capability_unavailable")
    assert (
        refused["details"]["reason"] == "target_unsupported"
        and refused["remediation"]["action"] == group["remediation"]
    )


def _rea(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*rea_command(), *args], capture_output=True, text=True, env=clean_env(), timeout=120)


def test_the_cli_command_and_rea_call_answer_the_same_evidence(programs):
    own = _rea("inspect-native-load-image", str(programs["mz"]), "--format", "json")
    assert own.returncode == 0, own.stderr
    call = _rea("call", "inspect_native_load_image", "--target", str(programs["mz"]), "--json")
    assert call.returncode == 0, call.stderr
    assert json.loads(own.stdout)["evidence_id"] == json.loads(call.stdout)["evidence_id"]
    raw = _rea("inspect-native-load-image", str(programs["raw"]), "--target-format", "dos-com")
    assert raw.returncode == 0 and "dos-com verified" in raw.stdout and "entry 0x10100" in raw.stdout
    broken = _rea("inspect-native-load-image", str(programs["broken"]))
    assert "mismatch image_within_file at file offset 0x4" in broken.stdout
