"""The Android family end to end: APKs built by Debian's Android tools, checked against aapt, dexdump, apksigner.

Every fact the tools report is compared with an independent reader (never androguard):
`aapt dump badging` for the manifest, `dexdump` for classes and methods, `apksigner
verify` for each signature scheme, and tampered copies show each scheme failing.
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import zipfile
from pathlib import Path

import anyio
import pytest

import android_fixtures as fx
from mcp_client import connect
from support import clean_env, rea_command

pytestmark = [pytest.mark.slow, pytest.mark.skipif(bool(fx.missing_tools()), reason=f"needs {fx.missing_tools()}")]
MAIN = "com.example.demo.MainActivity"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    work = tmp_path_factory.mktemp("apk")
    apk = fx.signed_apk(work)
    return {"work": work, "apk": apk, "dex": work / "classes.dex"}


def calls(plan, **env):
    """Run (tool, args) pairs on one MCP connection; answer {name: (is_error, structuredContent or error)}."""

    async def main():
        out = {}
        async with connect(**env) as s:
            for name, tool, args in plan:
                r = await s.call_tool(tool, args)
                out[name] = (
                    (True, json.loads(r.content[0].text)["error"]) if r.is_error else (False, r.structured_content)
                )
        return out

    return anyio.run(main)


def result(reply):
    is_error, body = reply
    assert not is_error, body
    assert body["evidence_id"].startswith("ev_")
    return body["normalized_result"]


def error(reply, code):
    is_error, body = reply
    assert is_error, body
    assert body["code"] == code, body
    assert set(body["remediation"]) == {"action"}
    return body


def badging(apk: Path) -> dict[str, list[str]]:
    facts: dict[str, list[str]] = {}
    for line in fx.badging(apk).splitlines():
        key, _, value = line.partition(":")
        facts.setdefault(key.strip(), []).append(value.strip())
    return facts


def test_inspect_android_package_matches_aapt_and_apksigner(built):
    apk = built["apk"]
    out = calls([("pkg", "inspect_android_package", {"path": str(apk)})])
    r = result(out["pkg"])
    facts = badging(apk)
    package = dict(re.findall(r"(\w+)='([^']*)'", facts["package"][0]))
    assert (r["package_name"], r["version_code"], r["version_name"]) == (
        package["name"],
        package["versionCode"],
        package["versionName"],
    )
    assert r["compile_sdk"] == package["compileSdkVersion"]
    assert r["min_sdk"] == facts["sdkVersion"][0].strip("'") and r["target_sdk"] == facts["targetSdkVersion"][0].strip(
        "'"
    )
    assert r["permissions"] == [re.search(r"name='([^']+)'", p).group(1) for p in facts["uses-permission"]]
    assert r["native_abis"] == sorted(re.findall(r"'([^']+)'", facts["native-code"][0]))
    launcher = re.search(r"name='([^']+)'", facts["launchable-activity"][0]).group(1)
    assert [c["name"] for c in r["components"] if c["launcher"]] == [launcher]
    assert r["application"]["debuggable"] == {"value": "application-debuggable" in facts, "source": "declared"}
    assert r["application"]["allow_backup"] == {"value": False, "source": "declared"}
    assert r["application"]["network_security_config"].endswith("xml/network_security_config")
    kinds = {c["name"]: (c["kind"], c["exported"], c["exported_basis"]) for c in r["components"]}
    assert kinds["com.example.demo.BootReceiver"] == ("receiver", True, "intent-filter-default")
    assert kinds["com.example.demo.SyncService"] == ("service", False, "declared")
    assert kinds["com.example.demo.DataProvider"][0] == "provider"
    assert [d["uri"] for d in r["deep_links"]] == ["https://demo.example.com/open*"]
    assert r["declared_permissions"][0]["name"] == "com.example.demo.permission.PRIVATE"
    # DEX: counts against dexdump's own header reading
    header = subprocess.run(["dexdump", "-f", str(built["dex"])], capture_output=True, text=True).stdout
    assert r["class_count"] == int(re.search(r"class_defs_size\s*:\s*(\d+)", header).group(1))
    assert r["method_count"] == int(re.search(r"method_ids_size\s*:\s*(\d+)", header).group(1))
    assert r["dex"][0]["checksum_valid"] and r["dex"][0]["consistent"]
    # signatures: apksigner's verdicts and certificate digest
    verified = fx.verify(apk)
    for scheme in ("v1", "v2", "v3"):
        expected = re.search(rf"Verified using {scheme} scheme[^:]*: (\w+)", verified).group(1) == "true"
        assert r["signatures"][scheme]["verified"] is expected, (scheme, r["signatures"][scheme])
    assert (
        r["signatures"]["v4"]["present"] and r["signatures"]["v4"]["verified"]
    )  # apksigner verifies v4 only with its flag
    cert = re.search(r"certificate SHA-256 digest: ([0-9a-f]+)", verified).group(1)
    assert [c["sha256"] for c in r["signatures"]["certificates"]] == [cert]
    assert r["signatures"]["certificates"][0]["subject"] == "CN=REA Test Signer"
    assert r["signature_verification"] == "verified"
    assert r["manifest"]["status"] == "complete" and "<manifest" in r["manifest"]["text"]
    assert r["resource_count"] == 3  # app_name, greeting, network_security_config
    assert r["engine"]["name"] == "androguard"


def _rewrite(src: Path, dst: Path, change) -> Path:
    """Copy an APK member by member (keeping META-INF) with `change(name, data) -> data`."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            zout.writestr(info, change(info.filename, zin.read(info.filename)))
    return dst


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :]


def _verity_padding_byte(apk: Path) -> int:
    """A byte of the APK Signing Block's verity padding pair (id 0x42726577): v2/v3 digests skip it."""
    raw = apk.read_bytes()
    magic = raw.find(b"APK Sig Block 42")
    at = magic + 16 - struct.unpack_from("<Q", raw, magic - 8)[0]
    while at < magic - 8:
        length, pair_id = struct.unpack_from("<QI", raw, at)
        if pair_id == 0x42726577 and length > 8:
            return at + 12 + 4
        at += 8 + length
    raise AssertionError("apksigner wrote no verity padding pair")


def _member_data_offset(apk: Path, name: str) -> int:
    """Where a stored member's bytes start (its local header is 30 bytes plus name and extra)."""
    raw = apk.read_bytes()
    with zipfile.ZipFile(apk) as z:
        at = z.getinfo(name).header_offset
    name_len, extra_len = struct.unpack_from("<HH", raw, at + 26)
    return at + 30 + name_len + extra_len


def _v2_signature_byte(raw: bytes) -> int:
    """A byte inside the v2 signer's signature: the value ends with [signature][public key]."""
    cd = struct.unpack_from("<I", raw, raw.rfind(b"PK\x05\x06") + 16)[0]
    size = struct.unpack_from("<Q", raw, cd - 24)[0]
    at = cd - size - 8 + 8
    while at < cd - 24:
        length, pair_id = struct.unpack_from("<QI", raw, at)
        if pair_id == 0x7109871A:
            end = at + 8 + length
            public_len = 294  # an RSA-2048 SubjectPublicKeyInfo
            return end - public_len - 4 - 1
        at += 8 + length
    raise AssertionError("no v2 block")


def test_each_signature_scheme_fails_when_tampered(built, tmp_path):
    apk = built["apk"]
    raw = apk.read_bytes()
    # a member's bytes changed in place: v1 (entry digest) and v2/v3 (content digest) all fail, as apksigner says
    entry = tmp_path / "entry.apk"
    entry.write_bytes(_flip(raw, _member_data_offset(apk, "lib/x86_64/libnative-lib.so") + 20))
    # the v2 signature itself changed: only the signature check can catch it
    sig = tmp_path / "sig.apk"
    sig.write_bytes(_flip(raw, _v2_signature_byte(raw)))
    # v1 only: a v1-signed APK whose member changed
    v1_only = tmp_path / "v1only.apk"
    pk8, cert = fx.signing_key(built["work"])
    subprocess.run(
        [
            "apksigner",
            "sign",
            "--key",
            pk8,
            "--cert",
            cert,
            "--v2-signing-enabled",
            "false",
            "--v3-signing-enabled",
            "false",
            "--v4-signing-enabled",
            "false",
            "--min-sdk-version",
            "21",
            "--out",
            v1_only,
            built["work"] / "unsigned.apk",
        ],
        check=True,
        capture_output=True,
    )
    v1_bad = _rewrite(v1_only, tmp_path / "v1bad.apk", lambda n, d: b"changed" if n == "assets/www/index.html" else d)
    # v4: the root hash inside the .idsig's signed hashing facts changed
    v4_bad = tmp_path / "v4.apk"
    shutil.copy(apk, v4_bad)
    Path(str(v4_bad) + ".idsig").write_bytes(_flip(Path(str(apk) + ".idsig").read_bytes(), 30))
    # v4's Merkle tree: a padding byte inside the signing block changed, which only the tree root covers
    merkle = tmp_path / "merkle.apk"
    merkle.write_bytes(_flip(apk.read_bytes(), _verity_padding_byte(apk)))
    shutil.copy(str(apk) + ".idsig", str(merkle) + ".idsig")
    plan = (("entry", entry), ("sig", sig), ("v1", v1_bad), ("v1ok", v1_only), ("v4", v4_bad), ("merkle", merkle))
    out = calls([(n, "inspect_android_package", {"path": str(p)}) for n, p in plan])
    e = result(out["entry"])
    assert [e["signatures"][k]["verified"] for k in ("v1", "v2", "v3")] == [False, False, False]
    assert "content digest" in e["signatures"]["v2"]["failure"]
    assert "libnative-lib.so" in e["signatures"]["v1"]["failure"] and e["signature_verification"] == "failed"
    s = result(out["sig"])["signatures"]
    assert s["v2"]["verified"] is False and "signature over signed data" in s["v2"]["failure"]
    assert s["v1"]["verified"] is True and s["v3"]["verified"] is True
    for tampered in (entry, sig, v1_bad):
        assert subprocess.run(["apksigner", "verify", str(tampered)], capture_output=True).returncode != 0, tampered
    ok = result(out["v1ok"])
    assert ok["signatures"]["v1"]["verified"] is True and not ok["signatures"]["v2"]["present"]
    assert ok["signature_verification"] == "verified"
    bad = result(out["v1"])
    assert (
        bad["signatures"]["v1"]["verified"] is False and "assets/www/index.html" in bad["signatures"]["v1"]["failure"]
    )
    v4 = result(out["v4"])["signatures"]
    assert v4["v4"]["present"] and v4["v4"]["verified"] is False and v4["v2"]["verified"] is True
    m = result(out["merkle"])["signatures"]
    assert [m[k]["verified"] for k in ("v1", "v2", "v3", "v4")] == [True, True, True, False]
    assert "Merkle tree root" in m["v4"]["failure"]
    for path, v4_ok in ((apk, True), (merkle, False)):  # apksigner, the independent reader, agrees
        said = subprocess.run(
            ["apksigner", "verify", "-v", "--v4-signature-file", f"{path}.idsig", str(path)],
            capture_output=True,
            text=True,
        ).stdout
        assert f"APK Signature Scheme v4): {str(v4_ok).lower()}" in said, said


def test_code_tools_match_dexdump(built):
    apk, dex = str(built["apk"]), built["dex"]
    out = calls(
        [
            ("all", "search_android_classes", {"path": apk, "query": ""}),
            ("some", "search_android_classes", {"path": apk, "query": "Main"}),
            ("page", "search_android_classes", {"path": apk, "query": "", "offset": 1, "limit": 2}),
            ("none", "search_android_classes", {"path": apk, "query": "main"}),
            ("cls", "inspect_android_class", {"path": apk, "class_name": MAIN}),
            ("missing", "inspect_android_class", {"path": apk, "class_name": "com.example.Nope"}),
            ("m", "inspect_android_method", {"path": apk, "class_name": MAIN, "method_name": "onCreate"}),
            ("ambiguous", "inspect_android_method", {"path": apk, "class_name": MAIN, "method_name": "add"}),
            (
                "add1",
                "inspect_android_method",
                {"path": apk, "class_name": MAIN, "method_name": "add", "overload_index": 1},
            ),
            (
                "native",
                "inspect_android_method",
                {"path": apk, "class_name": "com.example.demo.Bridge", "method_name": "nativeCall"},
            ),
            (
                "cut",
                "inspect_android_method",
                {"path": apk, "class_name": MAIN, "method_name": "onCreate", "max_source_chars": 10},
            ),
            ("refs", "trace_android_references", {"path": apk, "class_name": "com.example.demo.Helper"}),
            (
                "mrefs",
                "trace_android_references",
                {"path": apk, "class_name": "com.example.demo.Helper", "method_name": "compute"},
            ),
        ]
    )
    truth = [d[1:-1].replace("/", ".") for d in fx.dexdump_classes(dex)]
    everything = result(out["all"])
    assert everything["matches"] == sorted(truth) and everything["total_classes"] == len(truth)
    assert result(out["some"])["matches"] == [n for n in sorted(truth) if "Main" in n]
    page = result(out["page"])
    assert page["matches"] == sorted(truth)[1:3] and page["next_offset"] == 3
    assert result(out["none"])["matches"] == []  # case-sensitive
    cls = result(out["cls"])
    dump = subprocess.run(["dexdump", str(dex)], capture_output=True, text=True).stdout
    section = dump.split(f"Class descriptor  : 'L{MAIN.replace('.', '/')};'")[1].split("Class #")[0]
    names = re.findall(r"name\s+: '([^']+)'", section)
    types = re.findall(r"type\s+: '([^']+)'", section)
    assert sorted((m["name"], m["dex_descriptor"]) for m in cls["methods"]) == sorted(
        (n, t) for n, t in zip(names, types) if t.startswith("(")
    )
    assert sorted(f["dex_descriptor"] for f in cls["fields"]) == sorted(t for t in types if not t.startswith("("))
    assert cls["inner_classes"] == [MAIN + "$Inner"] and cls["superclass"] == "android.app.Activity"
    assert [m["overload_index"] for m in cls["methods"] if m["name"] == "add"] == [0, 1]
    error(out["missing"], "invalid_request")
    m = result(out["m"])
    assert m["representation"] == "java" and 'System.loadLibrary("native-lib")' in m["source"]["text"]
    assert "invoke-static" in m["smali"]["text"] and m["overload_count"] == 1
    amb = error(out["ambiguous"], "invalid_request")
    assert amb["details"]["field"] == "overload_index" and "(int, int, int)" in amb["details"]["accepted"]
    assert "p4" in result(out["add1"])["source"]["text"]
    native = result(out["native"])
    assert native["body_status"] == "not_available" and native["source"]["text"] == ""
    cut = result(out["cut"])["source"]
    assert cut["status"] == "partial" and len(cut["text"]) == 10 and cut["reported_total_bytes"] > 10
    callers = sorted(x["containing_class"] for x in result(out["refs"])["references"])
    assert callers == ["com.example.demo.Bridge", "com.example.demo.MainActivity"]
    assert {x["name"] for x in result(out["mrefs"])["references"]} == {"onCreate", "abstract_like"}


def test_multidex_is_one_program(tmp_path):
    apk = fx.sign(fx.unsigned_apk(tmp_path, dexes=2), tmp_path / "multi.apk", v4=False)
    out = calls(
        [
            ("pkg", "inspect_android_package", {"path": str(apk)}),
            ("all", "search_android_classes", {"path": str(apk), "query": ""}),
        ]
    )
    pkg = result(out["pkg"])
    assert [d["name"] for d in pkg["dex"]] == ["classes.dex", "classes2.dex"]
    truth = sorted(c for p in ("classes.dex", "classes2.dex") for c in fx.dexdump_classes(tmp_path / p))
    assert result(out["all"])["matches"] == sorted(d[1:-1].replace("/", ".") for d in truth)
    assert pkg["class_count"] == len(truth)


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_hostile_apks_get_canonical_answers(built, tmp_path):
    raw = built["apk"].read_bytes()
    truncated = tmp_path / "truncated.apk"
    truncated.write_bytes(raw[: len(raw) // 2])
    plain = tmp_path / "plain.apk"
    with zipfile.ZipFile(plain, "w") as z:
        z.writestr("hello.txt", b"hi")
    twice = tmp_path / "twice.apk"
    shutil.copy(built["work"] / "unsigned.apk", twice)
    with zipfile.ZipFile(twice, "a") as z:
        z.writestr("classes.dex", (built["work"] / "classes.dex").read_bytes())
    dex = bytearray((built["work"] / "classes.dex").read_bytes())
    dex[8:12] = b"\0\0\0\0"  # checksum wrong
    dex[0x60:0x64] = struct.pack("<I", 10_000_000)  # class_defs_size: impossible
    bad_dex = tmp_path / "baddex.apk"
    with zipfile.ZipFile(built["work"] / "unsigned.apk") as zin, zipfile.ZipFile(bad_dex, "w") as zout:
        for info in zin.infolist():
            zout.writestr(info, bytes(dex) if info.filename == "classes.dex" else zin.read(info.filename))
    bomb = tmp_path / "bomb.apk"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("AndroidManifest.xml", b"\0" * (64 << 20))
    lying = tmp_path / "lying.apk"
    with zipfile.ZipFile(built["work"] / "unsigned.apk") as zin, zipfile.ZipFile(lying, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "AndroidManifest.xml":  # string pool offsets point past the chunk
                data = data[:28] + struct.pack("<I", 0x7FFFFFF0) + data[32:]
            zout.writestr(info, data)
    p = lambda f: {"path": str(f)}  # noqa: E731
    out = calls(
        [
            # first on the connection: a fresh worker cannot even import androguard in 100 ms
            ("slow", "inspect_android_package", {"path": str(built["apk"]), "deadline_ms": 100}),
            ("truncated", "inspect_android_package", p(truncated)),
            ("plain", "inspect_android_package", p(plain)),
            ("twice", "inspect_android_package", p(twice)),
            ("bad_dex", "inspect_android_package", p(bad_dex)),
            ("bomb", "inspect_android_package", p(bomb)),
            ("lying", "inspect_android_package", p(lying)),
            ("text", "inspect_android_package", p(built["work"] / "cert.pem")),
            ("missing", "inspect_android_package", p(tmp_path / "nope.apk")),
            ("relative", "inspect_android_package", {"path": "demo.apk"}),
            ("after", "search_android_classes", {"path": str(built["apk"]), "query": "Helper"}),
        ]
    )
    error(out["truncated"], "invalid_request")
    error(out["plain"], "invalid_request")
    twice_r, twice_body = out["twice"]
    assert not twice_r and twice_body["normalized_result"]["duplicate_entries"] == ["classes.dex"]
    assert any("classes.dex is stored more than once" in t for t in twice_body["limitations"])
    d = result(out["bad_dex"])["dex"][0]
    assert d["checksum_valid"] is False and d["consistent"] is False and d["class_count"] == 10_000_000
    assert error(out["bomb"], "truncated")["details"]["member"] == "AndroidManifest.xml"
    lying_error, lying_body = out["lying"]
    assert lying_error is False or lying_body["code"] in ("invalid_request", "truncated"), lying_body
    error(out["text"], "invalid_request")
    error(out["missing"], "target_unavailable")
    error(out["relative"], "invalid_request")
    error(out["slow"], "provider_timeout")
    assert result(out["after"])["matches"] == ["com.example.demo.Helper"]  # a fresh worker after the stopped one


def rea(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([*rea_command(), *args], capture_output=True, text=True, env=clean_env(**env), timeout=300)


def test_clients_and_resource_decoding(built, tmp_path):
    apk = str(built["apk"])
    out = calls(
        [
            ("apktool", "inspect_apktool_client", {}),
            ("adb", "inspect_adb_client", {}),
            ("decode", "decode_android_resources", {"path": apk}),
            ("de", "decode_android_resources", {"path": apk, "locale": "de", "max_strings": 1}),
            ("fr", "decode_android_resources", {"path": apk, "locale": "fr"}),
            ("bad_locale", "decode_android_resources", {"path": apk, "locale": "../x"}),
            ("not_apk", "decode_android_resources", {"path": str(built["work"] / "cert.pem")}),
        ]
    )
    version = subprocess.run(["apktool", "--version"], capture_output=True, text=True).stdout.strip()
    client = result(out["apktool"])["client"]
    assert client == {"command": shutil.which("apktool"), "command_source": "path", "apktool_version": version}
    adb = result(out["adb"])
    said = subprocess.run(["adb", "version"], capture_output=True, text=True).stdout
    assert adb["contacted_adb_server"] is False
    assert adb["client"]["version"] == re.search(r"^Version (\S+)", said, re.M).group(1)
    assert adb["client"]["installed_path"] == re.search(r"^Installed as (.+)$", said, re.M).group(1)
    decoded = result(out["decode"])
    facts = badging(built["apk"])
    package = dict(re.findall(r"(\w+)='([^']*)'", facts["package"][0]))
    assert decoded["metadata"] == {
        "version_name": package["versionName"],
        "version_code": package["versionCode"],
        "min_sdk_version": facts["sdkVersion"][0].strip("'"),
        "target_sdk_version": facts["targetSdkVersion"][0].strip("'"),
        "package_name": package["name"],
    }
    values = subprocess.run(["aapt", "dump", "--values", "resources", apk], capture_output=True, text=True).stdout
    assert "Demo DE" in values and {"name": "app_name", "value": "Demo"} in decoded["strings"]
    assert decoded["locales"] == ["de"] and decoded["coverage"] == "complete"
    assert (
        "<manifest" in decoded["manifest"]
        and decoded["target"]["sha256"] == out["decode"][1]["subject"]["digest"]["sha256"]
    )
    assert decoded["decoded_file_count"] > 5
    de = result(out["de"])
    assert de["strings"] == [{"name": "app_name", "value": "Demo DE"}] and de["coverage"] == "partial"
    assert de["total_strings"] == 2 and de["locale"] == "de"
    assert result(out["fr"])["strings"] == []
    error(out["bad_locale"], "invalid_request")
    error(out["not_apk"], "invalid_request")
    # a missing client is refused with how to install it, through MCP and the CLI
    empty = tmp_path / "empty-path"
    empty.mkdir()
    missing = calls(
        [("a", "inspect_apktool_client", {}), ("d", "decode_android_resources", {"path": apk})], PATH=str(empty)
    )
    for name in ("a", "d"):
        body = error(missing[name], "capability_unavailable")
        assert "apt-get install apktool" in body["remediation"]["action"]
    relative = calls([("adb", "inspect_adb_client", {})], REA_ADB_PATH="adb")
    assert "REA_ADB_PATH" in error(relative["adb"], "capability_unavailable")["message"]
    cli = rea("inspect-adb-client", PATH=str(empty))
    assert cli.returncode == 1 and "apt-get install adb" in cli.stdout + cli.stderr
    text = rea("decode-android-resources", apk, "--locale", "de")
    assert text.returncode == 0 and "string app_name = 'Demo DE'" in text.stdout
    assert (
        json.loads(rea("inspect-apktool-client", "--format", "json").stdout)["normalized_result"]["client"][
            "apktool_version"
        ]
        == version
    )


def test_cli_commands(built):
    apk = str(built["apk"])
    text = rea("inspect-android-package", apk)
    assert text.returncode == 0, text.stderr
    assert "com.example.demo 1.2.3 (code 42)" in text.stdout and "v2=ok" in text.stdout
    js = rea("inspect-android-package", apk, "--format", "json")
    assert json.loads(js.stdout)["normalized_result"]["signature_verification"] == "verified"
    search = rea("search-android-classes", apk, "Main", "--format", "json")
    assert json.loads(search.stdout)["normalized_result"]["matches"] == [MAIN, MAIN + "$Inner"]
    method = rea("inspect-android-method", apk, MAIN, "add", "--overload-index", "0")
    assert method.returncode == 0 and "return (p2 + p3)" in method.stdout
    ambiguous = rea("inspect-android-method", apk, MAIN, "add")
    assert ambiguous.returncode == 2 and "overload_index" in ambiguous.stdout + ambiguous.stderr
    assert "com.example.demo.Bridge" in rea("trace-android-references", apk, "com.example.demo.Helper").stdout
    assert "[1] public int add(int, int, int)" in rea("inspect-android-class", apk, MAIN).stdout
    assert rea("inspect-android-package", "/nonexistent/x.apk").returncode == 1


def dexdump_bridge_calls(dex: Path) -> list[tuple[str, str, str | None, str | None]]:
    """(class, call, string argument, bridge object type) per loadLibrary/load/addJavascriptInterface/loadUrl
    call, from dexdump -d: the const-string / new-instance that last set each argument register."""
    calls = {
        "Ljava/lang/System;.loadLibrary:": ("System.loadLibrary", 0),
        "Ljava/lang/System;.load:": ("System.load", 0),
        "Landroid/webkit/WebView;.addJavascriptInterface:": ("addJavascriptInterface", 2),
        "Landroid/webkit/WebView;.loadUrl:": ("loadUrl", 1),
    }
    out, held, klass = [], {}, None
    text = subprocess.run(["dexdump", "-d", str(dex)], capture_output=True, text=True, check=True).stdout
    for line in text.splitlines():
        if m := re.search(r"Class descriptor\s*:\s*'L([^;]+);'", line):
            klass = m.group(1).replace("/", ".")
        elif re.search(r"^\s+name\s+:", line):
            held = {}
        elif m := re.search(r"\|[0-9a-f]{4}: const-string(?:/jumbo)? (v\d+), \"(.*)\" //", line):
            held[m.group(1)] = ("s", m.group(2))
        elif m := re.search(r"\|[0-9a-f]{4}: new-instance (v\d+), L([^;]+);", line):
            held[m.group(1)] = ("t", m.group(2).replace("/", "."))
        elif m := re.search(r"\|[0-9a-f]{4}: invoke-\w+ \{([^}]*)\}, (\S+?:)", line):
            if m.group(2) in calls:
                kind, at = calls[m.group(2)]
                regs = [r.strip() for r in m.group(1).split(",")]
                arg = held.get(regs[at]) if at < len(regs) else None
                obj = held.get(regs[1]) if kind == "addJavascriptInterface" else None
                out.append((klass, kind, arg[1] if arg and arg[0] == "s" else None, obj[1] if obj else None))
    return out


def test_application_graph_from_inventory_pages_and_package(built):
    apk = str(built["apk"])

    async def main():
        async with connect() as s:
            await s.call_tool("open_binary", {"path": apk})
            first = await s.call_tool("inventory_artifact", {"occurrence_limit": 4, "node_limit": 4})
            rest = await s.call_tool("inventory_artifact", {"occurrence_offset": 4, "node_offset": 4})
            pkg = await s.call_tool("inspect_android_package", {"path": apk})
            inspect = await s.call_tool("inspect_artifact", {})
            again = await s.call_tool("inventory_artifact", {})
            # item 5: the package record names the inventories retained before it, a later inventory names it
            names = {r.structured_content["evidence_id"] for r in (first, rest)}
            links = pkg.structured_content["normalized_result"]["inventory_links"]
            assert {link["evidence_id"] for link in links} == names == set(pkg.structured_content["evidence_links"])
            root = first.structured_content["normalized_result"]["manifest"]["root_artifact_id"]
            assert {link["root_artifact_id"] for link in links} == {root}
            assert again.structured_content["evidence_links"] == [pkg.structured_content["evidence_id"]]
            ref = lambda r: {"kind": "retained-evidence", "evidence_id": r.structured_content["evidence_id"]}  # noqa: E731
            both = await s.call_tool(
                "project_android_application_graph",
                {"inventory_evidence": [ref(first), ref(rest)], "package_evidence": ref(pkg)},
            )
            half = await s.call_tool("project_android_application_graph", {"inventory_evidence": [ref(first)]})
            whole = await s.call_tool("project_android_application_graph", {"inventory_evidence": [ref(inspect)]})
            wrong = await s.call_tool("project_android_application_graph", {"inventory_evidence": [ref(pkg)]})
            replies = (both, half, whole, wrong)
            return [
                (r.is_error, json.loads(r.content[0].text)["error"] if r.is_error else r.structured_content)
                for r in replies
            ]

    both, half, whole, wrong = anyio.run(main)
    r = result(both)
    with zipfile.ZipFile(apk) as z:
        import hashlib

        digests = {i.filename: hashlib.sha256(z.read(i.filename)).hexdigest() for i in z.infolist()}
    assert {c["path"]: c["sha256"] for c in r["components"]["dex"]} == {"classes.dex": digests["classes.dex"]}
    libs = sorted(n for n in digests if n.startswith("lib/"))
    assert [c["path"] for c in r["components"]["native_libraries"]] == libs
    assert sorted(c["path"] for c in r["components"]["signing"]) == sorted(
        n for n in digests if n.startswith("META-INF/")
    )
    assert r["runtime_families"] == ["dalvik-art", "native"]
    # bridge candidates from the bytecode scan, checked against dexdump -d's disassembly
    truth = dexdump_bridge_calls(built["dex"])
    assert r["bytecode_scan"] == {"status": "scanned", "total_calls": len(truth), "reason": None}
    loaders = {(x["site"]["class_name"], x["call"], x["library_name"]) for x in r["native_loaders"]}
    assert loaders == {(c, k, a) for c, k, a, _ in truth if k.startswith("System.")}
    assert [
        (b["managed_path"], b["native_path"], b["basis"], b["managed_class"], b["library_name"])
        for b in r["bridge_candidates"]
    ] == [
        ("classes.dex", lib, "load-library-call", "com.example.demo.MainActivity", "native-lib") for lib in libs
    ]  # WebShell's loadLibrary("crypto") names no shipped library: a loader, not a candidate
    assert next(x for x in r["native_loaders"] if x["library_name"] == "crypto")["native_paths"] == []
    assert [(j["site"]["class_name"], j["bridge_class"], j["interface_name"]) for j in r["javascript_bridges"]] == [
        (c, b, a) for c, k, a, b in truth if k == "addJavascriptInterface"
    ]
    assert [(w["url"], w["asset_path"]) for w in r["webview_loads"]] == [
        ("file:///android_asset/www/index.html", "assets/www/index.html")
    ]
    assert r["coverage"] == {"status": "complete-within-inventory", "inventory_complete": True}
    assert r["web_assets"] == [
        {"path": "assets/www/index.html", "sha256": digests["assets/www/index.html"], "entry_point": True}
    ]
    assert r["package_name"] == "com.example.demo" and r["deep_links"][0]["uri"] == "https://demo.example.com/open*"
    assert r["root_sha256"] == hashlib.sha256(Path(apk).read_bytes()).hexdigest()
    assert set(both[1]["evidence_links"]) == {*r["source_evidence_ids"], r["package_evidence_id"]}
    assert result(half)["coverage"]["status"] == "partial"
    assert result(whole)["projection_id"] != r["projection_id"]  # no package Evidence: a different projection
    assert result(whole)["components"] == r["components"]
    error(wrong, "invalid_request")


def test_application_graph_falls_back_to_paths_when_the_apk_changed(built, tmp_path):
    copy = tmp_path / "copy.apk"
    shutil.copy(built["apk"], copy)

    async def main():
        async with connect() as s:
            await s.call_tool("open_binary", {"path": str(copy)})
            inventory = await s.call_tool("inventory_artifact", {})
            with open(copy, "ab") as handle:  # the bytes the inventory described are gone
                handle.write(b"\0")
            ref = {"kind": "retained-evidence", "evidence_id": inventory.structured_content["evidence_id"]}
            r = await s.call_tool("project_android_application_graph", {"inventory_evidence": [ref]})
            return r.is_error, r.structured_content

    r = result(anyio.run(main))
    assert (
        r["bytecode_scan"]["status"] == "unavailable" and "changed since the inventory" in r["bytecode_scan"]["reason"]
    )
    assert {b["basis"] for b in r["bridge_candidates"]} == {"jni-library-convention"}
    assert r["native_loaders"] == [] and any("path-based" in t for t in r["limitations"])


def test_analysis_views_page_classes_and_methods(built):
    apk = str(built["apk"])

    async def main():
        async with connect() as s:
            search = await s.call_tool("search_android_classes", {"path": apk, "query": ""})
            cls = await s.call_tool("inspect_android_class", {"path": apk, "class_name": MAIN})
            ref = lambda r: {"kind": "retained-evidence", "evidence_id": r.structured_content["evidence_id"]}  # noqa: E731
            pages = []
            offset = 0
            while offset is not None:
                view = {"kind": "android", "facet": "classes", "offset": offset, "limit": 3}
                r = await s.call_tool("inspect_analysis_view", {"source": ref(search), "view": view})
                pages.append(r.structured_content["normalized_result"])
                offset = pages[-1]["coverage"]["next_offset"]
            view = {"kind": "android", "facet": "methods", "offset": 1, "limit": 2}
            methods = await s.call_tool("inspect_analysis_view", {"source": ref(cls), "view": view})
            wrong = await s.call_tool(
                "inspect_analysis_view", {"source": ref(search), "view": {"kind": "android", "facet": "methods"}}
            )
            return search.structured_content, cls.structured_content, pages, methods, wrong

    search, cls, pages, methods, wrong = anyio.run(main)
    assert [c for p in pages for c in p["items"]] == search["normalized_result"]["matches"]
    assert pages[0]["parent_evidence_id"] == search["evidence_id"] and pages[-1]["coverage"]["next_offset"] is None
    page = methods.structured_content["normalized_result"]
    assert page["items"] == cls["normalized_result"]["methods"][1:3] and page["class_name"] == MAIN
    assert wrong.is_error and json.loads(wrong.content[0].text)["error"]["code"] == "invalid_request"


def test_close_binary_stops_the_android_worker(built):
    """The androguard worker is owned like the angr worker: close_binary ends it, and a later call starts a new one."""
    from native_fixtures import _workers

    apk = str(built["apk"])

    async def main():
        async with connect() as s:
            await s.call_tool("inspect_android_package", {"path": apk})
            during = _workers("effects.android.worker")
            closed = await s.call_tool("close_binary", {})
            after = _workers("effects.android.worker")
            again = await s.call_tool("search_android_classes", {"path": apk, "query": ""})
            restarted = _workers("effects.android.worker")
            return during, closed, after, again, restarted

    during, closed, after, again, restarted = anyio.run(main)
    assert len(during) == 1 and closed.is_error is False
    assert after == set()
    assert again.is_error is False and len(restarted) == 1 and restarted != during
    assert _workers("effects.android.worker") == set()  # and the server's exit ended the new one
