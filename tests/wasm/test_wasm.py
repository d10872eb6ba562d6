"""inspect_wasm_artifact on modules compiled here by wat2wasm from hand-written .wat, with custom sections appended.

Ground truth: the .wat itself (what it imports and exports), section offsets
decoded by this test from the module bytes, wasm-objdump's own report for WABT
facts, and wasm2wat run here for the WAT digest. In process through validation,
the program and the real handler (every reply checked against the output schema),
then over MCP and the CLI.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path

import anyio
import pytest
from returns.result import Failure, Success

from artifact_fixtures import call, run_tools
from layout_fixtures import need
from mcp_client import connect, error, evidence
from rea.evidence import create_evidence, parse_evidence
from support import clean_env, rea_command

WAT = """(module
  (import "env" "log" (func $log (param i32)))
  (import "env" "mem" (memory 1))
  (import "wasi.snapshot.preview1" "fd_write" (func $w (param i32 i32 i32 i32) (result i32)))
  (func $add (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add)
  (func (export "hello") i32.const 42 call $log)
  (global (export "g") i32 (i32.const 7))
  (data (i32.const 0) "hello")
)
"""


def uleb(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def name(s: str) -> bytes:
    raw = s.encode()
    return uleb(len(raw)) + raw


def custom(section: str, payload: bytes) -> bytes:
    body = name(section) + payload
    return b"\0" + uleb(len(body)) + body


def module(tmp: Path, wat: str = WAT, extra: bytes = b"", filename: str = "m.wasm") -> Path:
    need("wat2wasm")
    src = tmp / "m.wat"
    src.write_text(wat)
    out = tmp / filename
    subprocess.run(["wat2wasm", "--debug-names", str(src), "-o", str(out)], check=True, capture_output=True)
    out.write_bytes(out.read_bytes() + extra)
    return out


CUSTOMS = (
    custom("producers", uleb(1) + name("language") + uleb(1) + name("Rust") + name("1.70.0"))
    + custom("target_features", uleb(2) + b"+" + name("mutable-globals") + b"+" + name("sign-ext"))
    + custom("sourceMappingURL", name("m.wasm.map"))
    + custom("dylink.0", b"\x01" + uleb(4) + uleb(16) + uleb(2) + uleb(0) + uleb(0))
)


def section_spans(data: bytes) -> list[tuple[int, int, int]]:
    """(id, payload start, payload end) of every section, decoded here from the bytes."""
    at, spans = 8, []
    while at < len(data):
        sid = data[at]
        at += 1
        size = shift = 0
        while True:
            b = data[at]
            at += 1
            size |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        spans.append((sid, at, at + size))
        at += size
    return spans


def inspect(path: Path, **args):
    reply, _ = call("inspect_wasm_artifact", {"path": str(path), **args})
    assert isinstance(reply, Success), reply.failure()
    return reply.unwrap()


def test_module_facts_match_its_source_and_bytes(tmp_path):
    wasm = module(tmp_path, extra=CUSTOMS)
    ev = inspect(wasm)
    nr = ev["normalized_result"]
    data = wasm.read_bytes()
    assert nr["artifact"] == {"path": str(wasm), "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    assert nr["candidates"] == [nr["artifact"]] and nr["validation"] == "valid"
    assert [(s["start"], s["end"]) for s in nr["sections"]] == [(a, b) for _id, a, b in section_spans(data)]
    assert all(s["bytes"] == s["end"] - s["start"] for s in nr["sections"])
    kinds = [s["kind"] for s in nr["sections"]]
    assert kinds[:7] == ["Type", "Import", "Function", "Global", "Export", "Code", "Data"]
    assert [r["name"] for r in nr["export_records"]] == ["add", "hello", "g"]
    assert [(r["module"], r["name"]) for r in nr["import_records"]] == [
        ("env", "log"),
        ("env", "mem"),
        ("wasi.snapshot.preview1", "fd_write"),  # WABT prints a.b.c; the bytes say where the module ends
    ]
    assert [r["line"] for r in nr["import_records"]] == nr["imports"]
    objdump = subprocess.run(["wasm-objdump", "-x", str(wasm)], capture_output=True, text=True, check=True).stdout
    assert all(line in objdump for line in nr["imports"] + nr["exports"]) and len(nr["exports"]) == 3
    c = nr["custom_sections"]
    assert c["names"] == ["name", "producers", "target_features", "sourceMappingURL", "dylink.0"]
    assert c["producers"] == [{"field_name": "language", "name": "Rust", "version": "1.70.0"}]
    assert c["target_features"] == ["+mutable-globals", "+sign-ext"] and c["source_mapping_url"] == "m.wasm.map"
    assert c["dylink"] == "mem_size=16 mem_align=2 table_size=0 table_align=0"
    assert c["producer_fields"] == [{"name": "language", "values": [{"name": "Rust", "version": "1.70.0"}]}]
    assert c["target_feature_records"] == [
        {"name": "mutable-globals", "prefix": "+", "policy": "used"},
        {"name": "sign-ext", "prefix": "+", "policy": "used"},
    ]
    wat = subprocess.run(["wasm2wat", "--enable-all", str(wasm)], capture_output=True, check=True).stdout
    assert nr["wat"]["sha256"] == hashlib.sha256(wat).hexdigest() and nr["wat"]["text"] == wat.decode()
    assert nr["wat"]["utf16_length"] == len(wat.decode().encode("utf-16-le")) // 2 and nr["wat"]["complete"]
    profile = nr["tool_profile"]
    version = subprocess.run(["wasm-objdump", "--version"], capture_output=True, text=True).stdout.strip()
    assert [c["tool"] for c in profile["commands"]] == ["wasm-validate", "wasm-objdump", "wasm2wat"]
    assert profile["release"] == version and profile["commands"][1]["arguments"] == ["-h", "-x", "module.wasm"]
    assert nr["runtime_execution"] == nr["network_fetch"] == "not-performed"
    assert ev["provider"] == {"id": "wabt", "name": "WABT", "version": version}


def test_glue_literals_are_associated_with_candidates(tmp_path):
    wasm = module(tmp_path)
    other = tmp_path / "vendor" / "m.wasm"
    other.parent.mkdir()
    other.write_bytes(wasm.read_bytes())
    glue = tmp_path / "glue.js"
    glue.write_text(
        'import init from "./m.wasm?url";\n'
        "const u = new URL('m.wasm', import.meta.url);\n"
        "  fetch(`https://cdn.example/x/m.wasm`); const none = 'absent.wasm'; const s = 'plain';\n"
    )
    nr = inspect(wasm, glue_paths=[str(glue)], candidate_paths=[str(other)])["normalized_result"]
    assert nr["candidates"][1]["path"] == str(other)
    (g,) = nr["glue"]
    assert g["parse_status"] == "complete" and g["artifact"]["path"] == str(glue)
    rows = [(r["value"], r["line"], r["column"], r["association"], r["candidate_paths"]) for r in g["references"]]
    assert rows == [
        ("./m.wasm?url", 1, 17, "basename-candidates", [str(other)]),
        ("m.wasm", 2, 18, "basename-candidates", [str(other)]),
        ("https://cdn.example/x/m.wasm", 3, 8, "basename-candidates", [str(other)]),
        ("absent.wasm", 3, glue.read_text().splitlines()[2].index("'absent.wasm'"), "unresolved", []),
    ]
    exact = inspect(wasm, glue_paths=[str(glue)], candidate_paths=[str(wasm)])["normalized_result"]
    assert exact["glue"][0]["references"][0]["association"] == "local-path-candidate"


def test_invalid_modules_and_missing_wabt(tmp_path, monkeypatch):
    wasm = module(tmp_path)
    data = bytearray(wasm.read_bytes())
    data[9] = 0x7F  # the first section's length now runs past the end
    bad = tmp_path / "bad.wasm"
    bad.write_bytes(bytes(data))
    reply, _ = call("inspect_wasm_artifact", {"path": str(bad)})
    assert isinstance(reply, Failure) and reply.failure().code == "invalid_request"
    assert reply.failure().details["reason"] == "invalid_module" and reply.failure().details["wabt_stderr"]
    text = tmp_path / "x.wasm"
    text.write_text("not wasm")
    assert call("inspect_wasm_artifact", {"path": str(text)})[0].failure().code == "invalid_request"
    assert call("inspect_wasm_artifact", {"path": str(tmp_path / "gone.wasm")})[0].failure().code == (
        "target_unavailable"
    )
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    missing = call("inspect_wasm_artifact", {"path": str(wasm)})[0].failure()
    assert missing.code == "capability_unavailable" and "apt-get install wabt" in missing.action


def _view(conn, source, view):
    reply, _ = call("inspect_analysis_view", {"source": source, "view": view}, conn)
    return reply


def test_summary_detail_and_every_facet(tmp_path):
    wasm = module(tmp_path, extra=CUSTOMS)
    replies, conn = run_tools([("inspect_wasm_artifact", {"path": str(wasm), "detail": "summary"})])
    summary = replies[0].unwrap()["normalized_result"]
    complete = inspect(wasm)
    nr = complete["normalized_result"]
    assert summary["parent_evidence_id"] == complete["evidence_id"] and summary["kind"] == "summary"
    assert summary["summary"]["counts"]["exports"] == 3 and summary["summary"]["wat"]["sha256"] == nr["wat"]["sha256"]
    counts = summary["summary"]["module_counts"]
    assert (counts["imported_functions"], counts["defined_functions"], counts["functions"]) == (2, 2, 4)
    assert summary["summary"]["producers"] == nr["custom_sections"]["producer_fields"]
    assert summary["summary"]["target_features"] == nr["custom_sections"]["target_feature_records"]
    ref = {"kind": "retained-evidence", "evidence_id": summary["parent_evidence_id"]}
    customs = _view(conn, ref, {"kind": "wasm", "facet": "custom_sections"}).unwrap()["normalized_result"]
    assert customs["item"] == nr["custom_sections"] and customs["item"]["producers"]
    for facet in (
        "sections",
        "imports",
        "exports",
        "candidates",
        "glue",
        "import_records",
        "export_records",
        "functions",
    ):
        rows, offset = [], 0
        while offset is not None:
            page = _view(conn, ref, {"kind": "wasm", "facet": facet, "offset": offset, "limit": 2})
            body = page.unwrap()["normalized_result"]
            rows += body["item"]
            offset = body["coverage"]["next_offset"]
        assert rows == nr[facet], facet
    for facet in ("wat", "headers", "details"):
        text, offset = "", 0
        while offset is not None:
            body = _view(conn, ref, {"kind": "wasm", "facet": facet, "offset": offset, "limit": 100}).unwrap()
            text += body["normalized_result"]["item"]["text"]
            offset = body["normalized_result"]["coverage"]["next_offset"]
        assert text == (nr["wat"]["text"] if facet == "wat" else nr[facet]), facet
    profile = _view(conn, ref, {"kind": "wasm", "facet": "tool_profile"}).unwrap()["normalized_result"]
    assert profile["item"] == nr["tool_profile"]
    wrong = _view(conn, ref, {"kind": "macho", "facet": "exports"})
    assert wrong.failure().details["required_operation"] == "inspect_macho"


def _inline_with_wat(source: dict, text: str, digest: str | None = None) -> dict:
    nr = dict(source["normalized_result"])
    units = len(text.encode("utf-16-le")) // 2
    nr["wat"] = {
        **nr["wat"],
        "text": text,
        "utf16_length": units,
        "utf8_bytes": len(text.encode()),
        "sha256": digest or hashlib.sha256(text.encode()).hexdigest(),
    }
    parsed = parse_evidence(source).unwrap()
    rebuilt = create_evidence(
        provider=parsed.provider,
        operation=parsed.operation,
        parameters=parsed.parameters,
        normalized_result=nr,
        subject=parsed.subject,
        limitations=parsed.limitations,
    )
    return {"kind": "inline", "evidence": rebuilt.unwrap().to_json()}


def test_wat_pages_never_split_a_character_and_the_digest_is_checked(tmp_path):
    source = inspect(module(tmp_path))
    text = "(module ;; 😀 é 😀😀\n)" * 5
    inline = _inline_with_wat(source, text)
    pages, offset = [], 0
    while offset is not None:
        body = _view(None, inline, {"kind": "wasm", "facet": "wat", "offset": offset, "limit": 3}).unwrap()
        page = body["normalized_result"]
        pages.append(page["item"]["text"])
        offset = page["coverage"]["next_offset"]
    assert "".join(pages) == text and all(p.encode("utf-16-le").decode("utf-16-le") == p for p in pages)
    inside = text.encode("utf-16-le").find("😀".encode("utf-16-le")) // 2 + 1
    split = _view(None, inline, {"kind": "wasm", "facet": "wat", "offset": inside, "limit": 4})
    assert split.failure().code == "invalid_request"
    tampered = _inline_with_wat(source, text, digest="0" * 64)
    refused = _view(None, tampered, {"kind": "wasm", "facet": "wat"})
    assert refused.failure().code == "evidence_integrity_mismatch"


def test_wat_beyond_the_inline_budget_is_digested_not_carried(tmp_path):
    wasm = module(tmp_path)
    nr = inspect(wasm, max_wat_inline_units=40)["normalized_result"]
    wat = subprocess.run(["wasm2wat", "--enable-all", str(wasm)], capture_output=True, check=True).stdout
    assert nr["wat"]["complete"] is False and nr["wat"]["text"] == wat.decode()[:40]
    assert nr["wat"]["sha256"] == hashlib.sha256(wat).hexdigest() and nr["wat"]["utf8_bytes"] == len(wat)
    assert any("max_wat_inline_units" in text for text in nr["limitations"])


@pytest.mark.slow
def test_wasm_over_mcp_and_cli(tmp_path):
    wasm = module(tmp_path, extra=CUSTOMS)

    async def main():
        async with connect(TMPDIR=str(tmp_path)) as s:
            out = {"complete": await s.call_tool("inspect_wasm_artifact", {"path": str(wasm)})}
            out["summary"] = await s.call_tool("inspect_wasm_artifact", {"path": str(wasm), "detail": "summary"})
            ref = {"kind": "retained-evidence", "evidence_id": out["complete"].structured_content["evidence_id"]}
            out["exports"] = await s.call_tool(
                "inspect_analysis_view", {"source": ref, "view": {"kind": "wasm", "facet": "exports", "limit": 2}}
            )
            out["wat"] = await s.call_tool(
                "inspect_analysis_view", {"source": ref, "view": {"kind": "wasm", "facet": "wat", "limit": 64}}
            )
            out["bad"] = await s.call_tool("inspect_wasm_artifact", {"path": str(tmp_path / "m.wat")})
            return out

    out = anyio.run(main)
    complete = evidence(out["complete"])["normalized_result"]
    assert evidence(out["summary"])["normalized_result"]["summary"]["counts"]["sections"] == len(complete["sections"])
    assert evidence(out["exports"])["normalized_result"]["item"] == complete["exports"][:2]
    assert evidence(out["wat"])["normalized_result"]["item"]["text"] == complete["wat"]["text"][:64]
    error(out["bad"], "invalid_request")
    env = clean_env()
    as_json = subprocess.run(
        [*rea_command(), "inspect-wasm-artifact", str(wasm), "--json"], capture_output=True, text=True, env=env
    )
    assert as_json.returncode == 0 and json.loads(as_json.stdout)["normalized_result"]["wat"] == complete["wat"]
    as_text = subprocess.run(
        [*rea_command(), "inspect-wasm-artifact", str(wasm)], capture_output=True, text=True, env=env
    )
    assert as_text.returncode == 0 and '<add> -> "add"' in as_text.stdout
    assert "section Custom" in as_text.stdout
    assert (
        "functions 4 (2 imported, 2 defined)" in as_text.stdout and "producers language: Rust 1.70.0" in as_text.stdout
    )


def big_module(tmp: Path) -> Path:
    """A module whose WAT spans several page-cache blocks: 300 KB of data, which wasm2wat prints escaped."""
    blob = "".join(f"\\{b:02x}" for b in bytes(range(256)) * 1200)
    return module(
        tmp, wat=f'(module (memory 8) (data (i32.const 0) "{blob}") (func (export "f") nop))\n', filename="big.wasm"
    )


def test_later_wat_pages_come_from_the_page_cache_without_wabt(tmp_path, monkeypatch):
    from effects.wasm.wat_cache import BLOCK_UNITS

    monkeypatch.setenv("REA_CACHE_DIR", str(tmp_path / "cache"))
    wasm = big_module(tmp_path)
    truth = subprocess.run(["wasm2wat", "--enable-all", str(wasm)], capture_output=True, check=True).stdout.decode()
    replies, conn = run_tools([("inspect_wasm_artifact", {"path": str(wasm), "max_wat_inline_units": 1000})])
    source = replies[0].unwrap()
    wat = source["normalized_result"]["wat"]
    assert wat["complete"] is False and wat["text"] == truth[:1000] and wat["utf16_length"] == len(truth)
    assert wat["page_index"]["blocks"] == -(-len(truth) // BLOCK_UNITS) >= 3
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no WABT from here on
    ref = {"kind": "retained-evidence", "evidence_id": source["evidence_id"]}
    for offset in (1000, BLOCK_UNITS - 100, 2 * BLOCK_UNITS - 5, len(truth) - 300):
        body = _view(conn, ref, {"kind": "wasm", "facet": "wat", "offset": offset, "limit": 65536}).unwrap()
        page = body["normalized_result"]
        assert page["item"]["text"] == truth[offset : offset + 65536], offset
        assert page["item"]["source"] == "page-cache" and page["coverage"]["total"] == len(truth)
    blocks = tmp_path / "cache/wasm-wat" / f"{wat['sha256']}.blocks"
    data = bytearray(blocks.read_bytes())
    data[len(data) // 2] ^= 0xFF  # a byte inside a middle block
    blocks.write_bytes(bytes(data))
    middle = {"kind": "wasm", "facet": "wat", "offset": len(truth) // 2, "limit": 100}
    assert _view(conn, ref, middle).failure().code == "evidence_integrity_mismatch"
    blocks.unlink()
    assert _view(conn, ref, middle).failure().details["reason"] == "wat_cache_missing"
    inline = _view(conn, ref, {"kind": "wasm", "facet": "wat", "offset": 10, "limit": 20}).unwrap()
    assert inline["normalized_result"]["item"]["text"] == truth[10:30]  # the carried text needs no cache


def test_unit_cuts_never_split_a_pair():
    from effects.wasm.wat_cache import first_units, units_of

    text = "a😀b😀"
    assert [first_units(text, n) for n in range(7)] == ["", "a", "a", "a😀", "a😀b", "a😀b", "a😀b😀"]
    assert units_of(text) == 6 and units_of("plain") == 5


@pytest.mark.slow
def test_cached_wat_page_over_mcp_and_cli_without_wabt(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("REA_CACHE_DIR", str(cache))
    wasm = big_module(tmp_path)
    truth = subprocess.run(["wasm2wat", "--enable-all", str(wasm)], capture_output=True, check=True).stdout.decode()
    source = inspect(wasm, max_wat_inline_units=1000)
    inline = {"kind": "inline", "evidence": source}
    view = {"kind": "wasm", "facet": "wat", "offset": 500_000, "limit": 65536}
    empty = str(tmp_path / "empty")

    async def main():
        async with connect(REA_CACHE_DIR=str(cache), PATH=empty) as s:
            return await s.call_tool("inspect_analysis_view", {"source": inline, "view": view})

    got = evidence(anyio.run(main))["normalized_result"]
    assert got["item"]["text"] == truth[500_000:565_536]
    saved = tmp_path / "wasm.json"
    saved.write_text(json.dumps(source))
    out = subprocess.run(
        [*rea_command(), "inspect-analysis-view", str(saved), "--view", json.dumps(view), "--json"],
        capture_output=True,
        text=True,
        env=clean_env(REA_CACHE_DIR=str(cache), PATH=empty),
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["normalized_result"]["item"]["text"] == truth[500_000:565_536]


RICH = """(module
  (import "env" "log" (func $log (param i32)))
  (import "env" "mem" (memory 1 4))
  (import "env" "tbl" (table 2 funcref))
  (import "env" "gg" (global $gg (mut i64)))
  (import "wasi.snapshot.preview1" "fd_write" (func $w (param i32 i32 i32 i32) (result i32)))
  (func $add (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add)
  (func (export "hello") i32.const 42 call $log)
  (func $multi (result i32 f64) i32.const 1 f64.const 2)
  (func $start)
  (start $start)
  (global (export "g") i32 (i32.const 7))
  (export "log2" (func $log))
  (export "table" (table 0))
  (elem (i32.const 0) $add $multi)
  (data (i32.const 0) "hello")
  (data (i32.const 8) "again")
)
"""
_OBJDUMP_ENTRY = re.compile(r"^ - (\w+)\[(\d+)\](?: sig=(\d+))?(.*)$")


def _objdump_tables(path: Path) -> dict:
    """wasm-objdump -h -x parsed here: the independent reader of counts, types, imports, functions, exports."""
    out = subprocess.run(["wasm-objdump", "-h", "-x", str(path)], capture_output=True, text=True, check=True).stdout
    counts = {m.group(1): int(m.group(2)) for m in re.finditer(r"^\s*(\w+) start=.* count: (\d+)$", out, re.M)}
    blocks: dict[str, list[str]] = {}
    current = None
    for line in out.split("Section Details:")[1].splitlines():
        head = re.match(r"^(\w+)\[\d+\]:$", line)
        if head:
            current = blocks.setdefault(head.group(1), [])
        elif line.endswith(":") and not line.startswith(" "):
            current = None  # a block without a count (Start:, Custom:)
        elif current is not None and line.startswith(" - "):
            current.append(line)
    types = [line.split("] ", 1)[1] for line in blocks["Type"]]
    imports = []
    for line in blocks["Import"]:
        kind, index, sig, rest = _OBJDUMP_ENTRY.match(line).groups()
        imports.append((kind, int(index), rest.rsplit(" <- ", 1)[1], types[int(sig)] if sig else None))
    functions = [
        (int(i), types[int(sig)]) for _k, i, sig, _r in (_OBJDUMP_ENTRY.match(x).groups() for x in blocks["Function"])
    ]
    exports = [
        (kind, int(index), rest.rsplit(" -> ", 1)[1].strip('"'))
        for kind, index, _sig, rest in (_OBJDUMP_ENTRY.match(x).groups() for x in blocks["Export"])
    ]
    return {"counts": counts, "imports": imports, "functions": functions, "exports": exports}


def test_records_and_counts_agree_with_wasm_objdump(tmp_path):
    wasm = module(tmp_path, wat=RICH, extra=CUSTOMS)
    nr = inspect(wasm)["normalized_result"]
    truth = _objdump_tables(wasm)
    imports = [(r["kind"], r["index"], f"{r['module']}.{r['name']}", r["signature"]) for r in nr["import_records"]]
    assert imports == truth["imports"]
    defined = [(f["index"], f["signature"]) for f in nr["functions"] if not f["imported"]]
    assert defined == truth["functions"]
    assert [(r["kind"], r["index"], r["name"]) for r in nr["export_records"]] == truth["exports"]
    assert [r["line"] for r in nr["export_records"]] == nr["exports"]
    counts = nr["module_counts"]
    sections = counts["sections"]
    assert counts["imported_functions"] == sum(1 for i in truth["imports"] if i[0] == "func") == 2
    assert counts["defined_functions"] == truth["counts"]["Function"] == len(truth["functions"]) == 4
    assert counts["functions"] == 6 and counts["imported_memories"] == counts["imported_tables"] == 1
    named = {
        "Type": "types",
        "Import": "imports",
        "Function": "defined_functions",
        "Global": "globals",
        "Export": "exports",
        "Elem": "elements",
        "Code": "code",
        "Data": "data_segments",
    }
    assert {label: sections[key] for label, key in named.items()} == {k: truth["counts"][k] for k in named}
    assert sections["start"] == 1 and counts["custom_sections"] == 5
    memory = next(r for r in nr["import_records"] if r["kind"] == "memory")
    assert memory["description"] == "pages: initial=1 max=4" and memory["description"] in memory["line"]
    names = {f["index"]: f["name"] for f in nr["functions"]}
    assert names[0] == "log" and names[2] == "add" and nr["functions"][1]["import_name"] == "fd_write"
