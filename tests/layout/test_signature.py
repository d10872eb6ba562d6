"""inspect_signature: a signed dylib from PyPI, unsigned Go test binaries, and signature blobs built here.

Built blobs: a SuperBlob assembled by the test around a CodeDirectory (team id,
CS_RUNTIME), XML entitlements and a real CMS SignedData made by `cryptography`
with a self-signed certificate. Expected cdhashes are computed by the test from
the CodeDirectory bytes it located itself (load commands walked here, not by lief).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import plistlib
import struct
import subprocess
from pathlib import Path

import pytest
from returns.result import Success

from artifact_fixtures import run_tools
from effects.layout.codesign_read import cms_facts
from layout_fixtures import go_macho
from rea.layout.codesign import parse_superblob, signature_result
from rea.wire.convert import to_wire
from support import clean_env, rea_command

Z3 = Path("/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/z3/lib/libz3.dylib")


def signature_of(path: Path):
    replies, _ = run_tools([("open_binary", {"path": str(path)}), ("inspect_signature", {})])
    assert isinstance(replies[1], Success), replies[1].failure()
    return replies[1].unwrap()["normalized_result"]


def code_directory_bytes(path: Path) -> bytes:
    """The primary CodeDirectory, found by walking the load commands and the SuperBlob index here."""
    data = path.read_bytes()
    ncmds = struct.unpack_from("<I", data, 16)[0]
    at = 32
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, at)
        if cmd == 0x1D:
            off, _sz = struct.unpack_from("<II", data, at + 8)
            count = struct.unpack_from(">I", data, off + 8)[0]
            for i in range(count):
                slot, blob = struct.unpack_from(">II", data, off + 12 + 8 * i)
                if slot == 0:
                    length = struct.unpack_from(">I", data, off + blob + 4)[0]
                    return data[off + blob : off + blob + length]
        at += size
    raise AssertionError("no code signature")


@pytest.mark.skipif(not Z3.exists(), reason="z3-solver 4.13.0.0's libz3.dylib is not installed")
def test_adhoc_signed_dylib_from_pypi():
    """libz3.dylib as the PyPI z3-solver 4.13.0.0 wheel on this machine ships it."""
    nr = signature_of(Z3)
    cd = code_directory_bytes(Z3)
    assert nr["signed"] is True and nr["format"] == "Mach-O thin (arm64)"
    assert nr["cdhashes"][0] == hashlib.sha256(cd).hexdigest()[:40] and nr["hash_algorithms"][0] == "sha256"
    ident_off = struct.unpack_from(">I", cd, 20)[0]
    assert nr["identifier"] == cd[ident_off:].split(b"\0")[0].decode()
    flags = struct.unpack_from(">I", cd, 12)[0]
    assert nr["hardened_runtime"] is bool(flags & 0x10000) and nr["authorities"] == []
    assert any("ad-hoc" in text for text in nr["limitations"])


def test_unsigned_images_say_so(tmp_path):
    nr = signature_of(go_macho("gcc-amd64-darwin-exec", tmp_path))
    assert nr["signed"] is False and nr["cdhashes"] == [] and nr["hardened_runtime"] is None
    assert "unsigned" in nr["limitations"][0]


def _blob(magic: int, body: bytes) -> bytes:
    return struct.pack(">II", magic, 8 + len(body)) + body


def _code_directory(identifier: str, team: str, flags: int) -> bytes:
    header_size = 52 + 8 + 8 + 4 + 4  # through execSegFlags (version 0x20400)
    ident_off = header_size
    team_off = ident_off + len(identifier) + 1
    fields = struct.pack(">IIIIIIIBBBBI", 0x20400, flags, 0, ident_off, 0, 0, 0, 32, 2, 0, 12, 0)
    fields += struct.pack(">II", 0, team_off) + bytes(24)
    body = fields[: header_size - 8].ljust(header_size - 8, b"\0") + identifier.encode() + b"\0" + team.encode() + b"\0"
    return _blob(0xFADE0C02, body)


def _cms() -> bytes:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import pkcs7
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Developer ID Application: Test (ABCDE12345)")])
    now = datetime.datetime(2026, 1, 2, tzinfo=datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(7)
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    return (
        pkcs7.PKCS7SignatureBuilder()
        .set_data(b"cd")
        .add_signer(cert, key, hashes.SHA256())
        .sign(serialization.Encoding.DER, [pkcs7.PKCS7Options.DetachedSignature])
    )


def _superblob(blobs: list[tuple[int, bytes]]) -> bytes:
    header = 12 + 8 * len(blobs)
    index, body = b"", b""
    for slot, blob in blobs:
        index += struct.pack(">II", slot, header + len(body))
        body += blob
    return struct.pack(">III", 0xFADE0CC0, header + len(body), len(blobs)) + index + body


def test_a_built_signature_decodes_completely():
    cd = _code_directory("com.example.tool", "ABCDE12345", 0x10000)
    ents = plistlib.dumps({"com.apple.security.app-sandbox": True, "keychain-access-groups": ["ABCDE12345.x"]})
    der = _cms()
    parsed = parse_superblob(
        _superblob(
            [(0, cd), (2, _blob(0xFADE0C01, bytes(4))), (5, _blob(0xFADE7171, ents)), (0x10000, _blob(0xFADE0B01, der))]
        )
    )
    cms = cms_facts(parsed.pop("cms"))
    nr = to_wire(signature_result(parsed, cms, "Mach-O thin (arm64)"))
    assert nr["signed"] and nr["identifier"] == "com.example.tool" and nr["team_identifier"] == "ABCDE12345"
    assert nr["hardened_runtime"] is True and nr["cdhashes"] == [hashlib.sha256(cd).hexdigest()[:40]]
    assert nr["entitlements"] == {"com.apple.security.app-sandbox": True, "keychain-access-groups": ["ABCDE12345.x"]}
    assert nr["authorities"] == ["Developer ID Application: Test (ABCDE12345)"]
    assert nr["timestamp"] is not None and nr["designated_requirement"] is None
    assert any("not decompiled" in text for text in nr["limitations"])


def test_lying_lengths_end_the_reading_with_a_limitation():
    cd = _code_directory("a", "B", 0)
    good = _superblob([(0, cd)])
    long = bytearray(good)
    struct.pack_into(">I", long, 4, len(good) * 10)  # SuperBlob length past the data
    assert parse_superblob(bytes(long))["code_directories"] == []
    inner = bytearray(good)
    struct.pack_into(">I", inner, 20 + 4, 1 << 30)  # the CodeDirectory claims a gigabyte
    parsed = parse_superblob(bytes(inner))
    assert parsed["code_directories"] == [] and "past the SuperBlob" in parsed["limitations"][0]
    count = bytearray(good)
    struct.pack_into(">I", count, 8, 1 << 20)
    assert "lies" in parse_superblob(bytes(count))["limitations"][0]


@pytest.mark.slow
@pytest.mark.skipif(not Z3.exists(), reason="z3-solver 4.13.0.0's libz3.dylib is not installed")
def test_signature_cli():
    out = subprocess.run(
        [*rea_command(), "inspect-signature", str(Z3), "--json"], capture_output=True, text=True, env=clean_env()
    )
    assert out.returncode == 0 and json.loads(out.stdout)["normalized_result"]["signed"] is True
    text = subprocess.run(
        [*rea_command(), "inspect-signature", str(Z3)], capture_output=True, text=True, env=clean_env()
    )
    assert "cdhash" in text.stdout and "signed=True" in text.stdout
