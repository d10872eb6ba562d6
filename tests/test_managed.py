"""The managed (.NET) family end to end: assemblies built by mcs, facts checked against monodis."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess

import anyio
import pytest

from managed_fixtures import RESOURCE_TEXT, library, monodis, monodis_rows, needs_mono, signed
from rea.canonical_json import canonicalize
from support import clean_env, rea_command
from test_mcp_e2e import connect

pytestmark = [pytest.mark.slow, needs_mono]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("managed")
    return {"library": library(out), "signed": signed(out), "dir": out}


def evidence(result):
    assert result.is_error is False, result.content[0].text
    assert result.content[0].text.encode() == canonicalize(result.structured_content)
    return result.structured_content


def error(result, code):
    assert result.is_error is True
    body = json.loads(result.content[0].text)["error"]
    assert body["code"] == code, body
    return body


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


def test_inspect_managed_artifact_over_mcp_matches_monodis(built):
    lib, sig = built["library"], built["signed"]
    bad = built["dir"] / "not-pe.dll"
    bad.write_bytes(b"\x7fELF" + b"\0" * 100)
    replies = _calls(
        [
            ("inspect_managed_artifact", {}),
            ("inspect_managed_artifact", {"path": str(lib)}),
            ("inspect_managed_artifact", {"path": str(sig)}),
            ("inspect_managed_artifact", {"path": str(bad)}),
            ("open_binary", {"path": str(lib)}),
            ("inspect_managed_artifact", {"reference_limit": 1, "attribute_offset": 1}),
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
    assert any("not verified" in text for text in strong["limitations"])

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
