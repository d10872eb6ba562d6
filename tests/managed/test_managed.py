"""The managed (.NET) family end to end: assemblies built by mcs, facts checked against monodis."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess

import anyio
import pytest

from managed_fixtures import RESOURCE_TEXT, library, monodis, monodis_rows, needs_mono, signed
from mcp_client import connect, error, evidence
from support import clean_env, rea_command

pytestmark = [pytest.mark.slow, needs_mono]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("managed")
    return {"library": library(out), "signed": signed(out), "dir": out}


def _calls(calls):
    async def main():
        async with connect() as s:
            out = []
            for name, args in calls:
                out.append(await s.call_tool(name, args))
            return out

    return anyio.run(main)


def _monodis_public_key(path) -> bytes:
    dump = monodis(path, "assembly").split("Dump:", 1)[1].split("Culture:", 1)[0]
    return bytes.fromhex("".join(re.findall(r"^0x[0-9A-F]+: ((?:[0-9A-F]{2} )+)", dump, re.M)).replace(" ", ""))


def _tampered(signed_path, out):
    """The signed assembly with one byte of its last section's padding changed: metadata intact, hash not."""
    import pefile

    data = bytearray(signed_path.read_bytes())
    last = pefile.PE(data=bytes(data)).sections[-1]
    data[last.PointerToRawData + last.SizeOfRawData - 1] ^= 0x5A
    out.write_bytes(bytes(data))
    return out


def test_inspect_managed_artifact_over_mcp_matches_monodis(built):
    lib, sig = built["library"], built["signed"]
    bad = built["dir"] / "not-pe.dll"
    bad.write_bytes(b"\x7fELF" + b"\0" * 100)
    tampered = _tampered(sig, built["dir"] / "Tampered.dll")
    replies = _calls(
        [
            ("inspect_managed_artifact", {}),
            ("inspect_managed_artifact", {"path": str(lib)}),
            ("inspect_managed_artifact", {"path": str(sig)}),
            ("inspect_managed_artifact", {"path": str(bad)}),
            ("open_binary", {"path": str(lib)}),
            ("inspect_managed_artifact", {"reference_limit": 1, "attribute_offset": 1}),
            ("inspect_managed_artifact", {"path": str(tampered)}),
        ]
    )
    error(replies[0], "target_unavailable")
    record = evidence(replies[1])
    r = record["normalized_result"]
    assert record["operation"] == "inspect_managed_artifact" and record["subject"]["format"] == "pe"
    assert r["assembly"]["name"] == re.search(r"Name:\s+(\S+)", monodis(lib, "assembly")).group(1)
    assert r["assembly"]["version"] == re.search(r"Version:\s+(\S+)", monodis(lib, "assembly")).group(1)
    mvid = re.search(r"\{([0-9A-F-]+)\}", monodis(lib, "module")).group(1)
    assert r["module"]["mvid"].upper() == mvid
    refs = re.findall(r"Version=(\S+)\s+Name=(\S+)", monodis(lib, "assemblyref"))
    assert [(x["version"], x["name"]) for x in r["references"]] == refs
    assert r["references"][0]["public_key_or_token"]["token"] == "b77a5c561934e089"
    manifest = re.findall(r"^\d+: (\w+) '([^']+)'", monodis(lib, "manifest"), re.M)
    assert [(x["visibility"], x["name"]) for x in r["resources"]] == manifest
    assert r["resources"][0]["data_sha256"] == hashlib.sha256(RESOURCE_TEXT).hexdigest()
    assert r["metadata"]["table_row_counts"]["TypeDef"] == len(monodis_rows(lib, "typedef"))
    assert r["metadata"]["table_row_counts"]["MethodDef"] == len(re.findall(r"^\d+: ", monodis(lib, "method"), re.M))
    assert r["target_frameworks"] == [".NETFramework,Version=v4.5"]
    titles = [a["decoded_fixed_string"] for a in r["attributes"] if a["type_name"].endswith("AssemblyTitleAttribute")]
    assert titles == ["Fixture Library"]
    assert r["classification"] == {**r["classification"], "status": "managed", "implementation": "cil"}
    assert r["pe"]["cli"]["flag_names"] == ["il-only"] and r["pe"]["cli"]["entry_point"]["kind"] == "metadata-token"
    assert r["coverage"] == {"state": "complete", "issues": []}

    strong = evidence(replies[2])["normalized_result"]
    key = _monodis_public_key(sig)
    assert strong["assembly"]["public_key"]["sha256"] == hashlib.sha256(key).hexdigest()
    assert strong["assembly"]["public_key"]["token"] == hashlib.sha1(key).digest()[-8:][::-1].hex()
    assert "strong-name-signed" in strong["pe"]["cli"]["flag_names"]
    assert strong["pe"]["cli"]["strong_name_verification"]["state"] == "verified"
    assert r["pe"]["cli"]["strong_name_verification"]["state"] == "not-signed"
    altered = evidence(replies[6])["normalized_result"]
    assert altered["assembly"]["public_key"]["token"] == strong["assembly"]["public_key"]["token"]
    assert altered["pe"]["cli"]["strong_name_verification"]["state"] == "failed"

    assert error(replies[3], "invalid_request")["details"]["path"] == str(bad)
    paged = evidence(replies[5])["normalized_result"]
    assert len(paged["references"]) == 1 and len(paged["attributes"]) == len(r["attributes"]) - 1
    assert any("attribute: " in text for text in paged["limitations"])


def test_inspect_managed_artifact_cli(built):
    lib = built["library"]
    cmd = rea_command()
    out = subprocess.run([*cmd, "inspect-managed-artifact", str(lib), "--json"], capture_output=True, text=True,
                         env=clean_env(), check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["normalized_result"]["assembly"]["name"] == "Library"
    text = subprocess.run([*cmd, "inspect-managed-artifact", str(lib), "--max-table-rows", "2"],
                          capture_output=True, text=True, env=clean_env(), check=False)  # fmt: skip
    assert text.returncode == 0, text.stderr
    assert "assembly Library 1.2.3.4" in text.stdout and "coverage partial" in text.stdout
    assert "issue resource-limit #~/TypeDef" in text.stdout
    missing = subprocess.run([*cmd, "inspect-managed-artifact", str(lib) + ".missing"], capture_output=True,
                             text=True, env=clean_env(), check=False)  # fmt: skip
    assert missing.returncode == 1 and "target_unavailable" in missing.stdout


def _parameter_count(signature: str) -> int:
    """Top-level parameters in monodis's `name (T a, U<V, W> b)`."""
    inner = signature.strip()[signature.strip().rindex("(") + 1 : -1]
    depth, count = 0, 1 if inner.strip() else 0
    for ch in inner:
        depth += {"<": 1, ">": -1}.get(ch, 0)
        count += ch == "," and depth == 0
    return count


def _plain(name: str) -> str:
    """A call target without its assembly scope or quotes, with monodis's `object` spelled out."""
    name = name.split("]")[-1].replace("'", "")
    return "System.Object" + name[6:] if name.startswith("object::") else name


def _method_key(method):
    owner = (method["declaring_type"] or "").split("/")[-1].split(".")[-1]
    return owner, method["name"]


def test_inspect_managed_members_over_mcp_matches_monodis(built):
    from collections import Counter

    from managed_fixtures import monodis_bodies

    lib = built["library"]
    replies = _calls(
        [
            ("open_binary", {"path": str(lib)}),
            ("inspect_managed_members", {}),
            ("inspect_managed_members", {"method_limit": 2, "method_offset": 1, "max_method_instructions": 3}),
        ]
    )
    r = evidence(replies[1])["normalized_result"]
    typedefs = [re.match(r"\d+: (\S+)", line).group(1) for line in monodis_rows(lib, "typedef")]
    assert [t["full_name"] for t in r["types"]][1:] == typedefs[1:]  # monodis prints <Module> as (null)
    box = next(t for t in r["types"] if t["name"] == "Box`1")
    assert box["generic_parameters"] == ["T"] and box["interfaces"] == ["Fixture.IShape"]
    deeper = next(t for t in r["types"] if t["name"] == "Deeper")
    assert deeper["full_name"] == "Fixture.Box`1/Inner/Deeper" and deeper["enclosing_type_token"]
    listed = re.findall(r"^\d+: (.*?) \(param:", monodis(lib, "method"), re.M)
    assert len(listed) == len(r["methods"])
    for ours, theirs in zip(r["methods"], listed, strict=True):
        name = re.search(r"([^ ]+?)(?:<[^ ]*>)? \(", theirs.replace("'", "")).group(1)
        assert ours["name"] == name
        assert ours["signature"]["parameter_count"] == _parameter_count(theirs)
    truth = monodis_bodies(lib)
    with_body = [m for m in r["methods"] if m["body"]["status"] == "present"]
    assert len(with_body) == len([b for b in truth.values() if b["code_size"] is not None])
    for method in with_body:
        body, expected = method["body"], truth[_method_key(method)]
        assert body["il_size"] == expected["code_size"], method["name"]
        assert body["instruction_count"] == len(expected["instructions"])
        assert body["opcode_counts"] == dict(Counter(op for _o, op in expected["instructions"]))
        assert {(a["il_offset"], a["opcode"]) for a in body["anchors"]} <= set(expected["instructions"])
        assert re.fullmatch(r"[a-f0-9]{64}", body["il_sha256"]) and body["normalized_il_sha256"]
        calls = [
            (e["il_offset"], _plain(e["target_name"])) for e in r["call_edges"] if e["caller_token"] == method["token"]
        ]
        if method["name"] not in ("Many", "Convert", "Main"):  # generic instantiations: monodis prints them bound
            assert calls == [(o, _plain(n)) for o, n in expected["calls"]]
    main = next(m for m in r["methods"] if m["name"] == "Main")
    assert main["body"]["exception_regions"][0]["try_offset"] == 0x19
    pinvoke = next(m for m in r["methods"] if m["name"] == "GetPid")
    assert pinvoke["body"]["status"] == "absent" and "P/Invoke" in pinvoke["body"]["issue"]
    edges = {(e["caller"], e["target_name"]) for e in r["call_edges"]}
    assert ("Fixture.Program::Main", "Fixture.Native::GetPid") in edges
    assert ("Fixture.Program::Main", "[mscorlib]System.Console::WriteLine") in edges
    accesses = {(e["method"], e["opcode"], e["field_name"]) for e in r["field_accesses"]}
    assert ("Fixture.Program::Main", "stsfld", "Fixture.Program::Counter") in accesses
    assert r["identity_scope"]["requires_artifact_sha256"] == evidence(replies[1])["subject"]["digest"]["sha256"]
    assert r["coverage"]["state"] == "complete"

    paged = evidence(replies[2])["normalized_result"]
    assert [m["token"] for m in paged["methods"]] == [m["token"] for m in r["methods"][1:3]]
    cut = [m for m in paged["methods"] if m["body"]["truncated_instructions"]]
    assert all(m["body"]["status"] == "partial" and m["body"]["normalized_il_sha256"] is None for m in cut)
    assert any("methods: 2 of" in text for text in paged["limitations"])


def test_inspect_managed_members_cli(built):
    out = subprocess.run([*rea_command(), "inspect-managed-members", str(built["library"]), "--method-limit", "1"],
                         capture_output=True, text=True, env=clean_env(), check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "methods 1," in out.stdout and "call_edges" in out.stdout


def test_inspect_managed_native_boundaries_over_mcp_matches_monodis(built):
    lib = built["library"]
    replies = _calls(
        [
            ("inspect_managed_native_boundaries", {"path": str(lib)}),
            ("inspect_managed_native_boundaries", {"path": str(lib), "import_offset": 2}),
        ]
    )
    r = evidence(replies[0])["normalized_result"]
    assert [m["name"] for m in r["module_refs"]] == [line.split(": ", 1)[1] for line in monodis_rows(lib, "moduleref")]
    implmap = re.findall(r"^\d+: .*? class (\S+?)\(.*\) (\d+) \((\S+) (\S+)\)$", monodis(lib, "implmap"), re.M)
    ours = [
        (p["member_name"], p["mapping_flags"], p["import_name"], p["import_scope_name"]) for p in r["pinvoke_imports"]
    ]
    assert ours == [(member, int(flags), entry, module) for member, flags, entry, module in implmap]
    # monodis's disassembly spells each declaration out: pinvokeimpl ("module" as "entry" charset convention lasterr)
    declared = dict(re.findall(r'pinvokeimpl \("[^"]+" as "([^"]+)" ([^)]*)\)', _disassembly_text(lib)))
    for p in r["pinvoke_imports"]:
        words = declared[p["import_name"]].split()
        assert ({"cdecl": "cdecl", "winapi": "winapi", "stdcall": "stdcall"}.keys() & set(words)) == {
            p["call_convention"]
        }
        assert ("unicode" in words) == (p["char_set"] == "unicode")
        assert ("lasterr" in words) == p["supports_last_error"]
    assert {n["boundary_kind"] for n in r["native_implementations"]} == {"pinvoke"}
    assert r["summary"] == {"module_ref_count": 3, "pinvoke_import_count": 3, "native_implementation_count": 3,
                            "ready_to_run": False, "mixed_mode_or_native_header": False}  # fmt: skip
    assert r["cli_native"]["il_only"] is True and r["native_exports"] == []
    paged = evidence(replies[1])["normalized_result"]
    assert [p["import_name"] for p in paged["pinvoke_imports"]] == ["MessageBoxW"]


def _disassembly_text(path) -> str:
    return subprocess.run(["monodis", str(path)], check=True, capture_output=True, text=True).stdout


def test_inspect_managed_native_boundaries_cli(built):
    out = subprocess.run([*rea_command(), "inspect-managed-native-boundaries", str(built["library"])],
                         capture_output=True, text=True, env=clean_env(), check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "pinvoke_imports 3" in out.stdout and "module_refs 3" in out.stdout


def test_compare_managed_members_over_mcp(built):
    from managed_fixtures import library_v2

    v1, v2 = built["library"], library_v2(built["dir"])

    async def main():
        async with connect() as s:
            left = evidence(await s.call_tool("inspect_managed_members", {"path": str(v1)}))["evidence_id"]
            right = evidence(await s.call_tool("inspect_managed_members", {"path": str(v2)}))["evidence_id"]
            artifact = evidence(await s.call_tool("inspect_managed_artifact", {"path": str(v1)}))["evidence_id"]
            return [
                await s.call_tool("compare_managed_members", {"left_evidence_id": left, "right_evidence_id": right}),
                await s.call_tool("compare_managed_members", {"left_evidence_id": left, "right_evidence_id": left}),
                await s.call_tool("compare_managed_members", {"left_evidence_id": artifact, "right_evidence_id": right}),
                await s.call_tool("compare_managed_members", {"left_evidence_id": "ev_" + "0" * 64, "right_evidence_id": right}),
                await s.call_tool("compare_managed_members", {"left_evidence_id": left, "right_evidence_id": right,
                                                              "limits": {"max_method_matches": 1}}),
            ]  # fmt: skip

    replies = anyio.run(main)
    record = evidence(replies[0])
    r = record["normalized_result"]
    assert record["evidence_links"] == r["evidence_links"] and record["confidence"] == "derived"
    by_name = {((i["right"] or i["left"] or {}).get("name")): i for i in r["methods"] if i["left"] or i["right"]}
    assert by_name["Area"]["status"] == "changed" and "cil" in by_name["Area"]["dimensions"]
    assert by_name["Area"]["match"]["basis"] == "exact-signature"
    assert by_name["Main"]["status"] == "changed"
    assert by_name["Added"]["status"] == "added" and by_name["Added"]["left"] is None
    assert by_name["Many"]["status"] == "unchanged" and by_name["Many"]["match"]["basis"] == "exact-il-signature"
    ambiguous = [i for i in r["methods"] if i["match"]["status"] == "ambiguous"]
    assert ambiguous and all(len(i["match"]["candidate_left_tokens"]) > 1 for i in ambiguous)  # the identical .ctors
    assert r["summary"]["added"] == 1 and r["summary"]["removed"] == 0
    assert r["coverage"]["status"] == "complete-within-inputs"
    same = evidence(replies[1])["normalized_result"]
    assert same["summary"]["changed"] == same["summary"]["added"] == same["summary"]["removed"] == 0
    assert error(replies[2], "invalid_request")["details"]["field"] == "left_evidence_id"
    error(replies[3], "evidence_integrity_mismatch")
    capped = evidence(replies[4])["normalized_result"]
    assert len(capped["methods"]) == 1 and capped["coverage"]["status"] == "truncated"


def test_compare_managed_members_cli(built):
    from managed_fixtures import library_v2

    v2 = library_v2(built["dir"])
    out = subprocess.run([*rea_command(), "compare-managed-members", str(built["library"]), str(v2)],
                         capture_output=True, text=True, env=clean_env(), check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "changed   Fixture.Box`1::Area" in out.stdout and "added     Fixture.Program::Added" in out.stdout


def test_open_binary_and_overview_say_a_pe_is_managed(built, tmp_path):
    import shutil

    from rea.session import MANAGED_HINT

    calls = [
        ("open_binary", {"path": str(built["library"])}),
        ("binary_overview", {}),
        ("inspect_managed_artifact", {}),
    ]
    mingw = shutil.which("x86_64-w64-mingw32-gcc")
    if mingw:
        native = tmp_path / "native.exe"
        (tmp_path / "n.c").write_text("int main(void) { return 0; }\n")
        subprocess.run([mingw, "-o", str(native), str(tmp_path / "n.c")], check=True, capture_output=True)
        calls.append(("open_binary", {"path": str(native)}))
    replies = _calls(calls)
    opened = replies[0].structured_content["result"]
    assert opened["format"] == "pe" and MANAGED_HINT in opened["limitations"]
    overview = evidence(replies[1])
    assert MANAGED_HINT in overview["limitations"]  # the native view is kept, with the managed next steps
    assert evidence(replies[2])["normalized_result"]["classification"]["status"] == "managed"
    if mingw:
        assert MANAGED_HINT not in replies[3].structured_content["result"]["limitations"]


MONO_CORLIB = "/usr/lib/mono/4.5/mscorlib.dll"
PAGED = ("type", "method", "field", "member_ref", "edge")


@pytest.mark.skipif(not __import__("os").path.exists(MONO_CORLIB), reason="Debian mono's mscorlib.dll")
def test_a_real_corlib_reads_completely():
    """Debian mono's mscorlib (4.8 MB, ~3,000 types, ~27,000 methods): every body and signature decodes."""
    replies = _calls(
        [
            ("inspect_managed_artifact", {"path": MONO_CORLIB}),
            ("inspect_managed_members", {"path": MONO_CORLIB, **{f"{k}_limit": 1 for k in PAGED}}),
            ("inspect_managed_members", {"path": MONO_CORLIB}),
        ]
    )
    a = evidence(replies[0])["normalized_result"]
    assert a["assembly"]["name"] == "mscorlib" and a["assembly"]["public_key"]["token"] == "b77a5c561934e089"
    assert a["classification"]["runtime_family"] == "dotnet-framework" and a["coverage"]["state"] == "complete"
    m = evidence(replies[1])["normalized_result"]
    assert m["coverage"]["state"] == "complete"
    assert m["metadata"]["table_row_counts"]["MethodDef"] == len(
        re.findall(r"^\d+: ", monodis(MONO_CORLIB, "method"), re.M)
    )
