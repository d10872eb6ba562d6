"""Wide string tables found exactly, and strings that never start inside one another.

Two fixtures: a gcc build of tests/fixtures/wide_tables.c (UTF-16 and UTF-32 tables packed without
terminators, entries shorter than 4 characters, a terminated table, big-endian arrays), and markupsafe
2.1.5's `_speedups` extension (from its CPython 3.11 manylinux wheel, which `scripts/setup test`
downloads into tests/data/wheels), whose escape tables are UTF-16 and UTF-32 vector constants angr
misreads as one-character UTF-8 strings "&". Ground truth: the C constants, `nm -S` for where they
are, `readelf -x` for the section bytes (decoded by Python's own codecs in the test), and `objdump -d`
for the code references into the markupsafe tables.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import anyio
import pytest

from mcp_client import connect, ok
from native_fixtures import ok_evidence, result
from rea.native import strings as native_strings
from rea.native.strings import MIN_CHARS, decoded, runs, with_scanned

SOURCE = Path(__file__).parents[1] / "fixtures" / "wide_tables.c"
WHEEL = (
    Path(__file__).parents[1]
    / "data"
    / "wheels"
    / "MarkupSafe-2.1.5-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
)
MEMBER = "markupsafe/_speedups.cpython-311-x86_64-linux-gnu.so"
CODECS = {
    "utf-8": "utf-8",
    "utf-16le": "utf-16-le",
    "utf-16be": "utf-16-be",
    "utf-32le": "utf-32-le",
    "utf-32be": "utf-32-be",
}
WIDTH = {"utf-8": 1, "utf-16le": 2, "utf-16be": 2, "utf-32le": 4, "utf-32be": 4}
# the C constants of wide_tables.c: symbol -> (text, encoding)
TABLES = {
    "t16": ("&#34&#39&amp&lt;&gt;", "utf-16le"),
    "t32": ("&#34&#39&amp&lt;&gt;", "utf-32le"),
    "short32": ("&lt&gt", "utf-32le"),
    "t16z": ("&#34;&#39;&amp;", "utf-16le"),
    "be16": ("BE-16", "utf-16be"),
    "be32": ("BE-32", "utf-32be"),
}
# markupsafe's escape entities, as its C source spells them out one character at a time
ENTITIES = ("&#34", "&#39", "&amp", "&lt;", "&gt;")

needs_markupsafe = pytest.mark.skipif(not WHEEL.exists(), reason="markupsafe's wheel is absent (scripts/setup test)")


@pytest.fixture(scope="module")
def tables(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("tables") / "tables"
    subprocess.run(["gcc", "-O0", "-o", str(out), str(SOURCE)], check=True, capture_output=True)
    return out


@pytest.fixture(scope="module")
def speedups(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("markupsafe") / "_speedups.so"
    with zipfile.ZipFile(WHEEL) as wheel:
        out.write_bytes(wheel.read(MEMBER))
    return out


def section(path: Path, name: str) -> tuple[int, bytes]:
    """(address, bytes) of a section as `readelf -x` dumps it."""
    out = subprocess.run(["readelf", "-x", name, str(path)], capture_output=True, text=True, check=True).stdout
    start, data = None, bytearray()
    for line in out.splitlines():
        row = re.match(r"\s+0x([0-9a-f]+) ((?:[0-9a-f]{2,8} ){1,4})", line)
        if row:
            start = int(row.group(1), 16) if start is None else start
            data += bytes.fromhex(row.group(2).replace(" ", ""))
    assert start is not None, out
    return start, bytes(data)


def loaded(path: Path) -> list[tuple[int, bytes]]:
    """(address, bytes) of every PT_LOAD segment's file-backed part, from `readelf -l` offsets and the file."""
    out = subprocess.run(["readelf", "-l", "-W", str(path)], capture_output=True, text=True, check=True).stdout
    data = path.read_bytes()
    rows = re.findall(r"LOAD\s+0x([0-9a-f]+) 0x([0-9a-f]+) 0x[0-9a-f]+ 0x([0-9a-f]+)", out)
    return [(int(vaddr, 16), data[int(off, 16) : int(off, 16) + int(size, 16)]) for off, vaddr, size in rows]


def symbols(path: Path) -> dict[str, tuple[int, int]]:
    out = subprocess.run(["nm", "-S", str(path)], capture_output=True, text=True, check=True).stdout
    return {f[3]: (int(f[0], 16), int(f[1], 16)) for f in (line.split() for line in out.splitlines()) if len(f) == 4}


def holding(found, offset: int):
    return [r for r in found if r.offset <= offset < r.offset + r.length]


def check_exact(found, data: bytes) -> None:
    """The laws every run keeps, against the bytes readelf dumped."""
    last_end = 0
    for r in found:
        assert r.offset >= last_end, "a run starts inside another"
        assert r.offset % WIDTH[r.encoding] == 0 and len(r.value) >= MIN_CHARS
        text = data[r.offset : r.offset + r.length - r.terminator]
        assert r.value == text.decode(CODECS[r.encoding])
        assert data[r.offset + r.length - r.terminator : r.offset + r.length] == b"\0" * r.terminator
        last_end = r.offset + r.length


def test_gcc_tables_are_runs_in_their_encoding(tables):
    base, data = section(tables, ".rodata")
    found = list(runs(data))
    check_exact(found, data)
    syms = symbols(tables)
    for name, (text, encoding) in TABLES.items():
        address, size = syms[name]
        at = address - base
        encoded = text.encode(CODECS[encoding])
        assert data[at : at + len(encoded)] == encoded  # nm and the C constant agree about the bytes
        held = holding(found, at)
        assert len(held) == 1 and held[0].encoding == encoding, name
        run = held[0]
        assert run.offset + run.length >= at + len(encoded)
        width = WIDTH[encoding]
        assert run.value[(at - run.offset) // width :].startswith(text)
    # a packed table without terminators is one run from its first entry; t32 and short32 are adjacent
    # text, so they are one table, and the entries of 3 characters are inside it
    t32, short32 = syms["t32"], syms["short32"]
    assert short32[0] == t32[0] + t32[1]
    run = holding(found, t32[0] - base)[0]
    assert run.offset == t32[0] - base and run.value.startswith(TABLES["t32"][0] + TABLES["short32"][0])
    assert run.length == t32[1] + short32[1] + run.terminator
    t16 = holding(found, syms["t16"][0] - base)[0]
    assert (t16.offset, t16.value) == (syms["t16"][0] - base, TABLES["t16"][0])
    assert t16.length == syms["t16"][1] + t16.terminator
    assert t16.terminator == (2 if data[t16.offset + 40 : t16.offset + 42] == b"\0\0" else 0)


def table_span(data: bytes, codec: str) -> tuple[int, int]:
    """Where markupsafe's entities lie in one encoding: the first entry's offset and the end of the last."""
    spots = sorted(data.find(e.encode(codec)) for e in ENTITIES)
    assert -1 not in spots
    return spots[0], spots[-1] + len(ENTITIES[0].encode(codec))


@needs_markupsafe
def test_markupsafe_escape_tables_are_found_with_their_encoding_and_length(speedups):
    base, data = section(speedups, ".rodata")
    found = list(runs(data))
    check_exact(found, data)
    for encoding, codec, unit in (("utf-16le", "utf-16-le", 2), ("utf-32le", "utf-32-le", 4)):
        start, end = table_span(data, codec)
        terminated = data[end : end + unit] == b"\0" * unit
        (run,) = holding(found, start)
        assert (run.offset, run.encoding, run.length) == (start, encoding, end - start + unit * terminated)
        assert run.value == "".join(ENTITIES)
    # the UTF-32 table ends the section: nothing terminates it, and it is still found
    assert table_span(data, "utf-32-le")[1] == len(data)


def objdump_targets(path: Path) -> set[int]:
    out = subprocess.run(["objdump", "-d", str(path)], capture_output=True, text=True, check=True).stdout
    return {int(m.group(1), 16) for m in re.finditer(r"# ([0-9a-f]+) <", out)}


async def _strings(path: Path, cache: Path, pattern: str) -> tuple[list[dict], list[dict]]:
    async with connect(REA_CACHE_DIR=str(cache)) as s:
        ok(await s.call_tool("open_binary", {"path": str(path)}))
        hits = ok_evidence(await s.call_tool("search_strings", {"pattern": pattern}))["normalized_result"]
        rows = result(await s.call_tool("list_strings", {"limit": 5000}))
        return rows, hits


def check_rows(path: Path, rows: list[dict]) -> None:
    """Every listed string against the file's bytes: at least MIN_CHARS characters, its value exactly its
    bytes less the terminator, and none starting inside another."""
    spans = sorted((int(r["address"], 16), int(r["address"], 16) + r["string"]["byte_length"]) for r in rows)
    for (_, end), (start, _) in zip(spans, spans[1:]):
        assert start >= end, "a string starts inside another"
    regions = loaded(path)
    for r in rows:
        facts, address = r["string"], int(r["address"], 16)
        assert len(r["value"]) >= MIN_CHARS
        terminator = 0 if facts["termination"] == "missing" else WIDTH[facts["encoding"]]
        base, data = next((b, d) for b, d in regions if b <= address < b + len(d))
        raw = data[address - base : address - base + facts["byte_length"]]
        assert raw[len(raw) - terminator :] == b"\0" * terminator
        text = raw[: len(raw) - terminator].decode(CODECS[facts["encoding"]])
        assert r["value"] == text if not r["truncated"] else text.startswith(r["value"])


@needs_markupsafe
@pytest.mark.slow
def test_markupsafe_strings_after_the_cfg_are_exact_and_keep_the_table_references(speedups, tmp_path):
    rows, hits = anyio.run(_strings, speedups, tmp_path, "&lt;")
    check_rows(speedups, rows)
    assert not any(r["value"] == "&" for r in rows)
    base, data = section(speedups, ".rodata")
    targets = objdump_targets(speedups)
    for encoding, codec in (("utf-16le", "utf-16-le"), ("utf-32le", "utf-32-le")):
        start, end = table_span(data, codec)
        (row,) = [r for r in rows if int(r["address"], 16) == base + start]
        assert row["string"]["encoding"] == encoding and row["value"] == "".join(ENTITIES)
        inside = {t for t in targets if base + start <= t < base + end}
        assert len(inside) == len(ENTITIES)  # objdump: one load per entry
        assert row["referenced_by"], "the references to the entries stay on the table"
    tables = {(h["string"]["encoding"], h["value"]) for h in hits}  # the UTF-8 docstring shows "&lt;User 1&gt;"
    assert {("utf-16le", "".join(ENTITIES)), ("utf-32le", "".join(ENTITIES))} <= tables


@pytest.mark.slow
def test_fixture_strings_after_the_cfg_are_exact(tables, tmp_path):
    rows, hits = anyio.run(_strings, tables, tmp_path, "BE-")
    check_rows(tables, rows)
    by_value = {r["value"]: r["string"] for r in rows}
    assert by_value["BE-16"]["encoding"] == "utf-16be" and by_value["BE-32"]["encoding"] == "utf-32be"
    assert by_value["plain narrow text"] == {
        "encoding": "utf-8",
        "termination": "present_or_not_required",
        "byte_length": 18,
    }
    assert sorted(h["value"] for h in hits) == ["BE-16", "BE-32"]


GO_SOURCE = """package main

import "os"

//go:noinline
func say(s string) { os.Stdout.WriteString(s) }

func main() {
	if len(os.Args) > 3 {
		say("applet not found\\n")
	}
	say("hello from go")
	say("another string here")
}
"""
GO_STRINGS = ("applet not found\n", "hello from go", "another string here")


@pytest.fixture(scope="module")
def go_binary(tmp_path_factory) -> Path:
    if shutil.which("go") is None:
        pytest.skip("go is not installed (scripts/setup test)")
    root = tmp_path_factory.mktemp("gostrings")
    (root / "main.go").write_text(GO_SOURCE)
    (root / "go.mod").write_text("module hello\n\ngo 1.19\n")
    env = {**os.environ, "GOCACHE": str(root / "cache"), "CGO_ENABLED": "0", "GOFLAGS": "-mod=mod"}
    out = root / "hello"
    subprocess.run(
        ["go", "build", "-o", str(out), "."], cwd=root, env=env, check=True, capture_output=True, timeout=600
    )
    return out


def go_references(path: Path) -> dict[int, int]:
    """Address -> length of every string main.main passes: `lea X(%rip),%rax` then `mov $N,%ebx` (objdump)."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(path)], capture_output=True, text=True).stdout
    body = out.split("<main.main>:", 1)[1].split("\n\n", 1)[0]
    pairs = re.findall(r"lea\s+0x[0-9a-f]+\(%rip\),%rax\s+# ([0-9a-f]+) .*\n.*mov\s+\$0x([0-9a-f]+),%ebx", body)
    return {int(address, 16): int(length, 16) for address, length in pairs}


def test_go_strings_split_the_blob_they_are_stored_in(go_binary):
    """Go's strings have no terminators: the scan sees one long run, and the referenced strings (angr's
    rows, as the worker builds them from the bytes at each referenced address) split it exactly."""
    base, data = section(go_binary, ".rodata")
    references = go_references(go_binary)
    assert sorted(data[a - base : a - base + n].decode() for a, n in references.items()) == sorted(GO_STRINGS)
    scanned = [native_strings.row(f"0x{base + r.offset:x}", r, section=".rodata") for r in runs(data)]
    blob = [
        s for s in scanned if any(int(s["address"], 16) < a < int(s["address"], 16) + s["length"] for a in references)
    ]
    assert blob, "the referenced strings lie inside a longer scanned run"
    recovered = []
    for address, length in references.items():  # angr's extent reaches the next referenced address or further
        run = decoded(data[address - base : address - base + length], "utf-8")
        assert run is not None
        recovered.append(native_strings.row(f"0x{address:x}", run, referenced_by=["0x4619a0"]))
    joined = with_scanned(recovered, scanned, length_addressed=True)
    rows = {int(r["address"], 16): r for r in joined}
    for address, length in references.items():
        row = rows[address]
        assert (row["length"], row["terminator"], row["referenced_by"]) == (length, 0, ["0x4619a0"])
        assert row["value"] == data[address - base : address - base + length].decode()
    last_end = 0
    for address in sorted(rows):
        assert address >= last_end
        row = rows[address]
        text = data[address - base : address - base + row["length"] - row["terminator"]]
        assert row["value"] == text.decode(CODECS[row["encoding"]])
        last_end = address + row["length"]
    folded = with_scanned(recovered, scanned)  # read as C strings instead, they fold into the blob
    assert not set(references) & {int(r["address"], 16) for r in folded}
