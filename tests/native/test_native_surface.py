"""The native surface REA keeps itself, against ground truth it does not share: gcc-built binaries read
by nm, readelf and objdump; annotations through MCP across restarts, bundles and concurrent writers."""

from __future__ import annotations

import json
import multiprocessing
import re
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest

from mcp_client import connect, err, ok
from native_fixtures import SOURCE, load_segments, nm_functions, objdump_function, readelf_offset
from support import clean_env, rea_command

pytestmark = pytest.mark.slow

FP_SOURCE = """
int triple(int x) { return x * 3; }
int (*volatile chosen)(int) = triple;
int zeros[4096];
int main(int argc, char **argv) { return chosen(argc) + triple(argc) + zeros[argc]; }
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    out = tmp_path_factory.mktemp("surface")
    sample, pointer = out / "sample", out / "pointer"
    subprocess.run(["gcc", "-O0", "-g", "-o", str(sample), str(SOURCE)], check=True, capture_output=True)
    (out / "pointer.c").write_text(FP_SOURCE)
    subprocess.run(["gcc", "-O0", "-o", str(pointer), str(out / "pointer.c")], check=True, capture_output=True)
    return {"sample": sample, "pointer": pointer}


def evidence(reply) -> dict:
    assert reply.is_error is False, reply.content[0].text
    return reply.structured_content


def value(reply):
    return evidence(reply)["normalized_result"]


# ------------------------------------------------------------------ ground truth


def bss(path: Path) -> tuple[int, int]:
    out = subprocess.run(["readelf", "-SW", str(path)], capture_output=True, text=True, check=True).stdout
    line = next(line for line in out.splitlines() if " .bss " in line)
    parts = line.split("]", 1)[1].split()
    return int(parts[2], 16), int(parts[4], 16)


# ------------------------------------------------------------------ annotations


def test_annotations_persist_across_restarts_and_appear_everywhere(built, tmp_path):
    path, cache = built["sample"], str(tmp_path / "cache")
    fn = nm_functions(path)
    compute, helper, main = fn["compute"], fn["helper"], fn["main"]
    inside = hex(int(main, 16) + 4)

    async def first():
        async with connect(REA_CACHE_DIR=cache) as s:
            ok(await s.call_tool("open_binary", {"path": str(path)}))
            assert value(await s.call_tool("comment", {"address": compute})) is None
            assert value(await s.call_tool("set_comment", {"address": compute, "comment": "sums xor\nof helper"}))
            assert value(await s.call_tool("set_inline_comment", {"address": inside, "comment": "frame"}))
            assert value(await s.call_tool("set_address_name", {"address": compute, "name": "sum_xor"}))
            both = value(await s.call_tool("set_addresses_names", {"names": {helper: "mix", "0x7fff0000": "far"}}))
            assert both == {helper: True, "0x7fff0000": False}
            assert value(await s.call_tool("set_bookmark", {"address": main, "name": "start here"}))
            assert value(await s.call_tool("set_bookmark", {"address": helper}))
            bad = [
                await s.call_tool("set_address_name", {"address": main, "name": "evil\x1b[31m"}),
                await s.call_tool("set_comment", {"address": main, "comment": "x" * 1_000_000}),
                await s.call_tool("set_comment", {"address": "0x7fff0000", "comment": "far away"}),
                await s.call_tool("set_comment", {"address": "nowhere", "comment": "x"}),
                await s.call_tool("set_bookmark", {"address": main, "name": "two\nlines"}),
                await s.call_tool("annotate_native_function", {"procedure": "main"}),
            ]
            return [err(r, "invalid_request") for r in bad]

    async def second():
        async with connect(REA_CACHE_DIR=cache) as s:  # a new server process: only the store remembers
            ok(await s.call_tool("open_binary", {"path": str(path)}))
            got = {
                "comment": value(await s.call_tool("comment", {"address": compute})),
                "inline": value(await s.call_tool("inline_comment", {"address": inside})),
                "marks": value(await s.call_tool("list_bookmarks", {})),
                "name": value(await s.call_tool("address_name", {"address": compute})),
                "procs": value(await s.call_tool("list_procedures", {})),
                "names": value(await s.call_tool("list_names", {})),
                "search": value(await s.call_tool("search_procedures", {"pattern": "sum_"})),
                "dossier": value(await s.call_tool("analyze_function", {"procedure": "sum_xor"})),
                "pseudo": value(await s.call_tool("procedure_pseudo_code", {"procedure": compute})),
                "context": ok(await s.call_tool("inspect_address_context", {"address": main})),
                "unset": value(await s.call_tool("unset_bookmark", {"address": main})),
                "again": value(await s.call_tool("unset_bookmark", {"address": main})),
                "clear": value(await s.call_tool("set_comment", {"address": compute, "comment": ""})),
                "cleared": value(await s.call_tool("comment", {"address": compute})),
            }
            annotated = await s.call_tool(
                "annotate_native_function",
                {
                    "procedure": "mix",
                    "name": "mix3",
                    "comment": "x*3+1",
                    "signature": "int mix3(int x)",
                    "calling_convention": "sysv",
                    "variables": [{"name": "a0", "new_name": "x", "data_type": "int"}],
                },
            )
            got["annotated"] = evidence(annotated)
            got["after"] = value(await s.call_tool("procedure_callers", {"procedure": "mix3"}))
            return got

    errors = anyio.run(first)
    assert [e["details"].get("field") for e in errors] == ["name", "comment", "address", "address", "name", "procedure"]
    assert "U+001B" in errors[0]["message"] and "outside every loaded segment" in errors[2]["message"]
    got = anyio.run(second)
    assert got["comment"] == "sums xor\nof helper" and got["inline"] == "frame" and got["name"] == "sum_xor"
    assert got["marks"] == [{"address": helper, "name": ""}, {"address": main, "name": "start here"}]
    assert {"address": compute, "value": "sum_xor"} in [{k: p[k] for k in ("address", "value")} for p in got["procs"]]
    named = {n["address"]: n for n in got["names"]}
    assert named[compute]["value"] == "sum_xor" and named[compute]["symbol"]["source"] == "user_defined"
    assert [r["address"] for r in got["search"]] == [compute]
    dossier = got["dossier"]
    assert dossier["procedure"]["name"] == "sum_xor" and dossier["facet_availability"]["comments"]["available"]
    assert dossier["comments"] == [{"address": compute, "kind": "comment", "text": "sums xor\nof helper"}]
    assert dossier["pseudocode"].startswith("// sums xor\n// of helper\n") and "sum_xor(" in dossier["pseudocode"]
    assert "compute" not in got["pseudo"] and "sum_xor" in got["pseudo"]
    context = got["context"]
    assert context["bookmarks"]["value"] == [{"address": main, "name": "start here"}]
    assert context["comment"] == {"state": "available", "value": None}
    assert got["unset"] is True and got["again"] is False and got["clear"] is True and got["cleared"] is None
    record = got["annotated"]
    result = record["normalized_result"]
    assert result["annotations"] == {
        "address": helper,
        "name": "mix3",
        "comment": "x*3+1",
        "inline_comment": None,
        "signature": "int mix3(int x)",
        "calling_convention": "sysv",
        "variables": [{"name": "a0", "new_name": "x", "data_type": "int"}],
    }
    assert result["effects"] == {
        "scope": "persistent-analysis-database",
        "source_bytes_modified": False,
        "persists_after_close": True,
    }
    assert result["dossier"]["procedure"] == {**result["dossier"]["procedure"], "address": helper, "name": "mix3"}
    assert record["raw_result"]["annotation_store"]["names"][helper] == "mix3"
    assert got["after"] == sorted([compute, fn["dispatch"]])  # the renamed helper is found, its callers kept


def test_the_hints_say_edits_are_destructive(built):
    async def main():
        async with connect() as s:
            return {t.name: t.annotations.model_dump(by_alias=True) for t in (await s.list_tools()).tools}

    hints = anyio.run(main)
    for name in ("set_comment", "set_address_name", "unset_bookmark", "annotate_native_function"):
        assert hints[name]["destructiveHint"] is True and hints[name]["readOnlyHint"] is False, name
    for name in ("comment", "list_bookmarks", "read_bytes", "inspect_native_instruction"):
        assert hints[name]["destructiveHint"] is False, name


def test_a_corrupted_store_is_refused_and_left_alone(built, tmp_path):
    path, cache = built["sample"], tmp_path / "cache"
    main = nm_functions(path)["main"]

    async def run(*calls):
        async with connect(REA_CACHE_DIR=str(cache)) as s:
            ok(await s.call_tool("open_binary", {"path": str(path)}))
            return [await s.call_tool(name, args) for name, args in calls]

    anyio.run(run, ("set_comment", {"address": main, "comment": "kept"}))
    (store,) = (cache / "annotations").glob("*.json")
    damaged = store.read_bytes().replace(b'"revision"', b'"revisionX"')
    store.write_bytes(damaged)
    replies = anyio.run(run, ("comment", {"address": main}), ("set_comment", {"address": main, "comment": "new"}))
    for reply in replies:
        body = err(reply, "artifact_integrity_mismatch")
        assert body["details"]["reason"] == "annotation_store_corrupted" and str(store) in body["message"]
    assert store.read_bytes() == damaged  # never reset, never rewritten
    store.write_bytes(b"\x00not json")
    (reply,) = anyio.run(run, ("list_bookmarks", {}))
    assert "not JSON" in err(reply, "artifact_integrity_mismatch")["details"]["problem"]


def _writer(args: tuple[str, str, int]) -> int:
    """One process applying one edit through the real store handler (lock, read, apply, write)."""
    from effects.native.annotations import _locked_edit, store_path
    from rea.native.annotations import Edit
    from rea.native.effects import EditAnnotations

    root, sha, index = args
    effect = EditAnnotations(
        sha256=sha, profile_digest="d" * 64, edit=Edit(changes=(("comments", f"0x{0x1000 + index:x}", f"c{index}"),))
    )
    state = _locked_edit(store_path(Path(root), sha, "d" * 64), effect).unwrap()
    return state.revision


def test_concurrent_writers_never_lose_an_update(tmp_path):
    sha, count = "a" * 64, 48
    with multiprocessing.get_context("spawn").Pool(6) as pool:
        revisions = pool.map(_writer, [(str(tmp_path), sha, i) for i in range(count)])
    assert sorted(revisions) == list(range(1, count + 1))  # every writer saw every earlier one
    (store,) = (tmp_path / "annotations").glob("*.json")
    stored = json.loads(store.read_text())
    assert stored["revision"] == count and len(stored["comments"]) == count


def test_a_bundle_carries_annotations_to_another_machine(built, tmp_path):
    path = built["sample"]
    compute = nm_functions(path)["compute"]
    bundle = tmp_path / "bundle.json"

    async def export():
        async with connect(REA_CACHE_DIR=str(tmp_path / "one")) as s:
            ok(await s.call_tool("open_binary", {"path": str(path)}))
            value(await s.call_tool("set_comment", {"address": compute, "comment": "first"}))
            value(await s.call_tool("set_comment", {"address": compute, "comment": "second"}))
            value(await s.call_tool("set_bookmark", {"address": compute, "name": "hot"}))
            ok(await s.call_tool("export_evidence_bundle", {"path": str(bundle)}))

    async def restore():
        async with connect(REA_CACHE_DIR=str(tmp_path / "two")) as s:  # an empty store elsewhere
            ok(await s.call_tool("open_binary", {"path": str(path)}))
            before = value(await s.call_tool("comment", {"address": compute}))
            ok(await s.call_tool("import_evidence_bundle", {"path": str(bundle)}))
            after = value(await s.call_tool("comment", {"address": compute}))
            marks = value(await s.call_tool("list_bookmarks", {}))
            return before, after, marks

    anyio.run(export)
    assert anyio.run(restore) == (None, "second", [{"address": compute, "name": "hot"}])


# ------------------------------------------------------------ bytes and memory


def test_bytes_and_file_offsets_match_readelf(built):
    path = built["pointer"]
    fn = nm_functions(path)
    data = path.read_bytes()
    bss_start, bss_size = bss(path)
    last_vaddr, last_memsz, *_ = max(load_segments(path))
    end = last_vaddr + last_memsz

    async def main():
        async with connect() as s:
            ok(await s.call_tool("open_binary", {"path": str(path)}))
            reads = {
                name: value(await s.call_tool("read_bytes", {"address": a, "length": 32})) for name, a in fn.items()
            }
            offsets = {
                name: value(await s.call_tool("address_to_file_offset", {"address": a})) for name, a in fn.items()
            }
            zero = value(await s.call_tool("read_bytes", {"address": hex(bss_start + 16), "length": 64}))
            bad = [
                await s.call_tool("read_bytes", {"address": fn["main"], "length": 5000}),
                await s.call_tool("read_bytes", {"address": hex(end + 0x100000)}),
                await s.call_tool("address_to_file_offset", {"address": hex(bss_start + 16)}),
                await s.call_tool("address_to_file_offset", {"address": hex(end + 0x100000)}),
                await s.call_tool("goto_address", {"address": hex(end + 0x100000)}),
            ]
            went = value(await s.call_tool("goto_address", {"address": fn["main"].upper().replace("0X", "0x")}))
            return reads, offsets, zero, [err(r, "invalid_request") for r in bad], went

    reads, offsets, zero, errors, went = anyio.run(main)
    for name, address in fn.items():
        offset = readelf_offset(path, int(address, 16))
        assert offsets[name]["file_offset"] == offset, name
        read = reads[name]
        assert read["bytes_hex"] == data[offset : offset + read["returned_bytes"]].hex(), name
        vaddr, _, _, filesz = next(g for g in load_segments(path) if g[0] <= int(address, 16) < g[0] + g[1])
        expected = min(32, vaddr + filesz - int(address, 16))  # a read stops at its segment's last file byte
        assert read["returned_bytes"] == expected and read["complete"] is (expected == 32), name
        assert read["file_offset"] == offset and (expected == 32 or "end of" in read["stop_reason"])
    assert bss_size >= 4096 * 4
    assert zero["returned_bytes"] == 0 and zero["complete"] is False and "zero-filled" in zero["stop_reason"]
    assert errors[0]["details"]["field"] == "length"
    assert [e["details"].get("reason") for e in errors[1:]] == [
        "outside_segments",
        "not_file_backed",
        "outside_segments",
        "outside_segments",
    ]
    assert went == fn["main"]


def test_instructions_and_navigation_match_objdump(built):
    path = built["sample"]
    fn = nm_functions(path)
    rows = objdump_function(path, "main")
    starts = [r["address"] for r in rows]
    wide = next(r for r in rows if len(r["bytes"]) >= 8)

    async def main():
        async with connect() as s:
            ok(await s.call_tool("open_binary", {"path": str(path)}))
            decoded = [value(await s.call_tool("inspect_native_instruction", {"address": hex(a)})) for a in starts]
            middle = value(await s.call_tool("inspect_native_instruction", {"address": hex(wide["address"] + 1)}))
            data = value(await s.call_tool("inspect_native_instruction", {"address": fn["main"].replace("0x", "0x0")}))
            strings = value(await s.call_tool("list_strings", {}))
            in_data = value(await s.call_tool("inspect_native_instruction", {"address": strings[0]["address"]}))
            outside = value(await s.call_tool("inspect_native_instruction", {"address": "0x7fff0000"}))
            nxt = [value(await s.call_tool("next_address", {"address": hex(a)})) for a in starts[:-1]]
            prv = [value(await s.call_tool("prev_address", {"address": hex(a)})) for a in starts[1:]]
            return decoded, middle, data, in_data, outside, nxt, prv

    decoded, middle, data, in_data, outside, nxt, prv = anyio.run(main)
    for row, got in zip(rows, decoded, strict=True):
        assert got["status"] == "decoded" and got["procedure"] == fn["main"]
        assert got["bytes"] == row["bytes"] and got["length"] == len(row["bytes"]) // 2, row
        assert got["mnemonic"] == row["mnemonic"].replace("endbr64", "endbr64"), row
        if row["mnemonic"] == "call":
            target = int(row["text"].split()[0], 16)
            assert got["flow"]["kind"] == "call" and got["flow"]["direct_destinations"] == [hex(target)]
            assert any(r["call"] and r["target_address"] == hex(target) for r in got["references"])
        if row["mnemonic"] == "ret":
            assert got["flow"]["kind"] == "return"
        if row["mnemonic"].startswith("j") and row["mnemonic"] != "jmp":
            assert got["flow"]["kind"] == "jump" and got["flow"]["conditional"] is True
    assert middle["status"] == "not-instruction-boundary" and middle["bytes"] is None
    assert data["status"] == "decoded"  # 0x0... is the same address, normalized
    assert in_data["status"] == "data" and outside["status"] == "outside-memory"
    assert nxt == [hex(a) for a in starts[1:]] and prv == [hex(a) for a in starts[:-1]]


def test_call_targets_direct_indirect_and_not_calls(built):
    path = built["pointer"]
    fn = nm_functions(path)
    rows = objdump_function(path, "main")
    direct = next(r for r in rows if r["mnemonic"] == "call" and "triple" in r["text"])
    indirect = next(r for r in rows if r["mnemonic"] == "call" and "<" not in r["text"])
    plain = rows[0]

    async def main():
        async with connect() as s:
            ok(await s.call_tool("open_binary", {"path": str(path)}))
            return [
                value(await s.call_tool("resolve_native_call_targets", {"address": hex(r["address"])}))
                for r in (direct, indirect, plain)
            ] + [value(await s.call_tool("resolve_native_call_targets", {"address": hex(direct["address"] + 1)}))]

    d, i, p, m = anyio.run(main)
    assert d["status"] == "direct" and d["mechanism"] == "direct"
    assert [(t["address"], t["procedure"], t["status"]) for t in d["targets"]] == [(fn["triple"], "triple", "direct")]
    assert i["mechanism"] in ("computed", "indirect") and i["status"] == "resolved-indirect", i
    assert [t["address"] for t in i["targets"]] == [fn["triple"]] and i["limitations"]
    assert any(r["provenance"] == "angr CFGFast" for r in i["targets"][0]["references"])
    assert p["status"] == "not-call" and p["targets"] == []
    assert m["status"] == "unavailable" and "not-instruction-boundary" in m["limitations"][0]


# ------------------------------------------------------------------------ CLI


def test_cli_annotations_bytes_and_instructions(built, tmp_path):
    path = built["pointer"]
    fn = nm_functions(path)
    env = clean_env(REA_CACHE_DIR=str(tmp_path / "cache"))

    def rea(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*rea_command(), "call", *args, "--target", str(path)], capture_output=True, text=True, env=env, timeout=300
        )

    assert rea("set_comment", "--address", fn["triple"], "--comment", "times three", "--json").returncode == 0
    said = rea("comment", "--address", fn["triple"], "--json")  # a second process: the store remembers
    assert said.returncode == 0 and json.loads(said.stdout)["normalized_result"] == "times three"
    raw = rea("read_bytes", "--address", fn["main"], "--length", "8", "--json")
    offset = readelf_offset(path, int(fn["main"], 16))
    assert json.loads(raw.stdout)["normalized_result"]["bytes_hex"] == path.read_bytes()[offset : offset + 8].hex()
    text = rea("inspect_native_instruction", "--address", fn["main"])
    assert text.returncode == 0 and '"status": "decoded"' in text.stdout
    bad = rea("set_address_name", "--address", fn["main"], "--name", "a\tb")
    assert bad.returncode == 2 and "control character" in bad.stdout + bad.stderr


def test_cli_subcommands(built, tmp_path):
    path = built["pointer"]
    fn = nm_functions(path)
    env = clean_env(REA_CACHE_DIR=str(tmp_path / "cache"))
    offset = readelf_offset(path, int(fn["main"], 16))
    indirect = next(r for r in objdump_function(path, "main") if r["mnemonic"] == "call" and "<" not in r["text"])

    def rea(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*rea_command(), *args], capture_output=True, text=True, env=env, timeout=300)

    raw = rea("read-bytes", str(path), fn["main"], "--length", "6")
    assert raw.returncode == 0 and path.read_bytes()[offset : offset + 6].hex() in raw.stdout
    assert f"file offset {offset}" in raw.stdout
    mapped = rea("address-to-file-offset", str(path), fn["main"], "--format", "json")
    assert json.loads(mapped.stdout)["normalized_result"]["file_offset"] == offset
    decoded = rea("inspect-native-instruction", str(path), hex(indirect["address"]))
    assert decoded.returncode == 0 and "decoded" in decoded.stdout and "[call]" in decoded.stdout
    targets = rea("resolve-native-call-targets", str(path), hex(indirect["address"]))
    assert f"{fn['triple']} triple (resolved-indirect)" in targets.stdout
    assert rea("set-comment", str(path), fn["triple"], "times three").returncode == 0
    assert rea("comment", str(path), fn["triple"]).stdout.strip() == "times three"
    named = rea("annotate-native-function", str(path), "triple", "--name", "times3")
    assert named.returncode == 0 and "name: times3" in named.stdout
    assert rea("list-bookmarks", str(path)).stdout.strip() == "(none)"
    outside = rea("read-bytes", str(path), "0x7fff0000")
    assert outside.returncode == 2 and "outside every load segment" in outside.stdout + outside.stderr


def test_macos_ui_tools_are_advertised_and_typed_unavailable():
    async def main():
        async with connect() as s:
            listed = {t.name for t in (await s.list_tools()).tools}
            replies = [
                await s.call_tool("observe_native_ui", {"pid": 1, "window_id": 2}),
                await s.call_tool(
                    "capture_native_ui_scenario", {"pid": 1, "window_id": 2, "steps": [{"kind": "wait"}]}
                ),
                await s.call_tool("trace_native_ui_action", {"action": "buttonPressed:"}),
            ]
            return listed, replies

    listed, replies = anyio.run(main)
    assert {"observe_native_ui", "capture_native_ui_scenario", "trace_native_ui_action"} <= listed
    for reply in replies:
        body = err(reply, "capability_unavailable")
        assert body["details"]["reason"] == "host_unsupported" and "macOS" in body["remediation"]["action"]


TYPES_SOURCE = """
struct point { int x; short y; unsigned flag:3; unsigned mode:5; };
enum color { RED, GREEN = 5 };
typedef struct point point_t;
point_t origin; enum color paint;
int main(void) { return origin.x + paint; }
"""


def gdb_layout(path: Path, name: str) -> tuple[int, dict[str, tuple[int, int]]]:
    """(total size, member -> (byte offset, bit offset in that byte)) as gdb's `ptype /o` prints them."""
    out = subprocess.run(
        ["gdb", "-batch", "-ex", f"ptype /o {name}", str(path)], capture_output=True, text=True, check=True
    ).stdout
    members = {}
    for line in out.splitlines():
        m = re.match(r"^/\*\s+(\d+)(?::\s*(\d+))?\s+\|\s+\d+ \*/\s+.*?(\w+)(?:\s*:\s*\d+)?;$", line)
        if m:
            members[m[3]] = (int(m[1]), int(m[2] or 0))
    return int(re.search(r"total size \(bytes\):\s+(\d+)", out)[1]), members


@pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb is the independent DWARF reader")
def test_data_types_from_dwarf_match_gdb(tmp_path):
    source, path, bare = tmp_path / "types.c", tmp_path / "types", tmp_path / "bare"
    source.write_text(TYPES_SOURCE)
    subprocess.run(["gcc", "-g", "-O0", "-o", str(path), str(source)], check=True, capture_output=True)
    subprocess.run(["gcc", "-O0", "-s", "-o", str(bare), str(source)], check=True, capture_output=True)
    origin = nm_functions(path)  # functions only; the variable comes from nm below
    out = subprocess.run(["nm", str(path)], capture_output=True, text=True, check=True).stdout
    variable = next(f"0x{int(p[0], 16):x}" for p in (line.split() for line in out.splitlines()) if p[-1] == "origin")

    async def main():
        async with connect() as s:
            ok(await s.call_tool("open_binary", {"path": str(path)}))
            got = [
                value(await s.call_tool("inspect_native_data_type", {"type": t}))
                for t in ("point", "color", "point_t", "missing_t")
            ]
            got.append(value(await s.call_tool("inspect_native_data_type", {"address": variable})))
            both = err(
                await s.call_tool("inspect_native_data_type", {"type": "a", "address": "0x1"}), "invalid_request"
            )
            ok(await s.call_tool("open_binary", {"path": str(bare)}))
            got.append(value(await s.call_tool("inspect_native_data_type", {"type": "point"})))
            return got, both

    (point, color, alias, missing, at, stripped), both = anyio.run(main)
    size, members = gdb_layout(path, "struct point")
    assert point["status"] == "found" and point["kind"] == "struct" and point["size"] == size
    assert {f["name"]: (f["offset"], 0) for f in point["fields"]} == {k: members[k] for k in ("x", "y")}
    for bit in point["bitfields"]:
        assert divmod(bit["bit_offset"], 8) == members[bit["name"]], bit
    assert [b["bit_size"] for b in point["bitfields"]] == [3, 5]
    assert color["kind"] == "enum" and color["enum_values"] == [
        {"name": "RED", "value": 0},
        {"name": "GREEN", "value": 5},
    ]
    assert alias["kind"] == "typedef" and alias["child_type_ids"] == [point["id"]]
    assert missing["status"] == "not-found" and "missing_t" in missing["reason"]
    assert at["variable"] == "origin" and at["name"] == "point_t"
    assert stripped["status"] == "unavailable" and "DWARF" in stripped["reason"]
    assert both["details"]["field"] == "type" and "main" in origin


def test_segment_ends_printed_in_the_extern_space_still_bound_the_segment(built):
    """A PIE's last segment ends at the image's last byte, which angr prints as `extern:`
    (absolute, not rebased): the segment test measures start + size, so the bytes just past
    it are outside every segment (readelf's program headers are the ground truth)."""
    path = built["pointer"]
    last_vaddr, last_memsz, *_ = max(load_segments(path))
    end = last_vaddr + last_memsz
    assert "DYN" in subprocess.run(["readelf", "-h", str(path)], capture_output=True, text=True).stdout

    async def main():
        async with connect() as s:
            ok(await s.call_tool("open_binary", {"path": str(path)}))
            segments = value(await s.call_tool("list_segments", {}))
            asked = [hex(last_vaddr), hex(end - 1), hex(end), hex(end + 0x10), hex(end + 0x3000)]
            found = [value(await s.call_tool("resolve_containing_procedure", {"address": a})) for a in asked]
            named = await s.call_tool("set_comment", {"address": hex(end + 0x10), "comment": "past the end"})
            return segments, found, err(named, "invalid_request")

    segments, found, named = anyio.run(main)
    assert any(str(s["end"]).startswith("extern:") for s in segments)  # the case this test is about
    assert [f["reason"] for f in found] == ["not_in_procedure"] * 2 + ["outside_segments"] * 3
    assert named["details"]["reason"] == "outside_segments"
