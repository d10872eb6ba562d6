"""import_managed_reconstruction end to end: monodis's IL of an mcs-built method imported, every lock checked."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess

import anyio
import pytest

from managed_fixtures import library, needs_mono
from mcp_client import connect, error, evidence
from support import clean_env, rea_command

pytestmark = [pytest.mark.slow, needs_mono]

DECOMPILER = {"name": "monodis", "version": None, "family": "other", "executable_sha256": None, "options": []}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("reconstruction")
    lib = library(out)
    listing = subprocess.run(["monodis", "--method", str(lib)], check=True, capture_output=True, text=True).stdout
    row = int(re.search(r"^(\d+): default int32 Main \(string\[\] args\)", listing, re.M).group(1))
    il = subprocess.run(["monodis", str(lib)], check=True, capture_output=True, text=True).stdout
    main_il = re.search(r"(\.method public static hidebysig\s+default int32 Main .*?// end of method Program::Main)",
                        il, re.S).group(1)  # fmt: skip
    return {"library": lib, "main_token": f"0x{0x06000000 + row:08x}", "main_il": main_il, "dir": out}


def _lock(method, text, **changes):
    lock = {"token": method["token"], "signature_sha256": method["signature"]["raw_sha256"],
            "normalized_il_sha256": method["body"]["normalized_il_sha256"],
            "reconstruction": {"kind": "decompiled-il", "language": "il", "text": text}}  # fmt: skip
    return {**lock, **changes}


def _run(built, build_calls):
    async def main():
        async with connect() as s:
            members = evidence(await s.call_tool("inspect_managed_members", {"path": str(built["library"])}))
            artifact = evidence(await s.call_tool("inspect_managed_artifact", {"path": str(built["library"])}))
            methods = {m["token"]: m for m in members["normalized_result"]["methods"]}
            calls = build_calls(members["evidence_id"], artifact["evidence_id"], methods)
            return members, methods, [await s.call_tool("import_managed_reconstruction", c) for c in calls]

    return anyio.run(main)


def test_import_locks_the_method_monodis_names(built):
    text = built["main_il"]

    def calls(members_id, _, methods):
        main = methods[built["main_token"]]
        return [{"static_members_evidence_id": members_id, "decompiler": DECOMPILER, "notes": ["monodis IL"],
                 "methods": [_lock(main, text, reconstruction={"kind": "decompiled-il", "language": "il", "text": text,
                                                                "text_sha256": hashlib.sha256(text.encode()).hexdigest(),
                                                                "source_path": "/tmp/Library.il", "start_line": 3})]}]  # fmt: skip

    members, methods, (reply,) = _run(built, calls)
    record = evidence(reply)
    assert (record["confidence"], record["authority"]) == ("inferred", "analyst-inference")
    assert record["evidence_links"] == [members["evidence_id"]] and record["subject"] == members["subject"]
    r = record["normalized_result"]
    (m,) = r["methods"]
    main = methods[built["main_token"]]
    assert (m["token"], m["declaring_type"], m["name"]) == (built["main_token"], "Fixture.Program", "Main")
    assert m["body_sha256"] == main["body"]["il_sha256"] and m["il_size"] == main["body"]["il_size"]
    assert m["reconstruction"]["text_sha256"] == hashlib.sha256(text.encode()).hexdigest()
    assert m["reconstruction"]["line_count"] == len(text.splitlines())
    assert m["validation"] == {"matched_static_member": True, "exact_build_required": True,
                               "canonical_observation": False, "confidence_floor": "inference"}  # fmt: skip
    assert r["summary"] == {"imported_methods": 1, "decompiled_csharp_methods": 0, "decompiled_il_methods": 1,
                            "pseudocode_methods": 0, "total_text_bytes": len(text)}  # fmt: skip
    assert r["executed"] is False and r["static_observation"]["mvid"] == members["normalized_result"]["module"]["mvid"]
    assert r["decompiler"]["options_sha256"] and r["notes"] == ["monodis IL"]


def test_mismatched_identities_are_refused(built):
    def calls(members_id, artifact_id, methods):
        main = methods[built["main_token"]]
        pinvoke = next(m for m in methods.values() if m["name"] == "GetPid")
        other = next(m for m in methods.values() if m["name"] == "Area" and m["body"]["normalized_il_sha256"])
        base = {"static_members_evidence_id": members_id, "decompiler": DECOMPILER}
        return [
            {**base, "methods": [_lock(main, "x", signature_sha256=other["signature"]["raw_sha256"])]},
            {**base, "methods": [_lock(main, "x", normalized_il_sha256=other["body"]["normalized_il_sha256"])]},
            {**base, "methods": [_lock(main, "x", token="0x06000fff")]},
            {**base, "methods": [_lock(pinvoke, "extern")]},  # no CIL body: nothing to lock to
            {**base, "methods": [_lock(main, "x", normalized_il_sha256=None)]},
            {**base, "methods": [_lock(main, "x", reconstruction={"kind": "decompiled-il", "language": "il",
                                                                  "text": "x", "text_sha256": "0" * 64})]},
            {**base, "static_members_evidence_id": artifact_id, "methods": [_lock(main, "x")]},
            {**base, "methods": [_lock(main, "x")], "decompiler": {"name": "x", "family": "jetbrains"}},
        ]  # fmt: skip

    _, _, replies = _run(built, calls)
    fields = [error(reply, "invalid_request")["details"].get("field") for reply in replies[:7]]
    assert fields == ["methods[0].signature_sha256", "methods[0].normalized_il_sha256", "methods[0].token",
                      "methods[0].token", "methods[0].normalized_il_sha256", "methods[0].reconstruction.text_sha256",
                      "static_members_evidence_id"]  # fmt: skip
    assert error(replies[3], "invalid_request")["details"]["observed"] == "absent"
    error(replies[7], "invalid_request")  # an unknown decompiler family, refused by the schema


def test_import_cli(built, tmp_path):
    listing = subprocess.run([*rea_command(), "inspect-managed-members", str(built["library"]), "--format", "json"],
                             capture_output=True, text=True, env=clean_env(), check=True).stdout  # fmt: skip
    main = next(m for m in json.loads(listing)["normalized_result"]["methods"] if m["token"] == built["main_token"])
    body = tmp_path / "main.json"
    body.write_text(json.dumps({"decompiler": DECOMPILER, "methods": [_lock(main, built["main_il"])]}))
    out = subprocess.run([*rea_command(), "import-managed-reconstruction", str(built["library"]), str(body)],
                         capture_output=True, text=True, env=clean_env(), check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert f"{built['main_token']} Fixture.Program::Main decompiled-il" in out.stdout and "(inferred)" in out.stdout
    bad = subprocess.run([*rea_command(), "import-managed-reconstruction", str(built["library"]), str(tmp_path / "no")],
                         capture_output=True, text=True, env=clean_env(), check=False)  # fmt: skip
    assert bad.returncode == 2 and "reconstruction" in bad.stdout + bad.stderr
