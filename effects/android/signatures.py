"""APK signature verification: v1 (JAR), v2, v3/v3.1 and v4, each checked, not only detected.

androguard locates and parses the signature blocks; the checks themselves are ours, with
`cryptography`: a v1 signer's PKCS#7 over its .SF (androguard), the .SF digests of
MANIFEST.MF and of its sections, and MANIFEST.MF's digest of every entry; a v2/v3 signer's
signature over its signed data and that data's content digest against the chunked digest
of the APK's three zip sections; a v4 .idsig beside the APK parsed, its signature checked
its APK digest matched against the v2/v3 digest it names, and its Merkle tree root
recomputed from the APK's bytes.
"""

from __future__ import annotations

import base64
import hashlib
import io
import struct
import zipfile
import zlib
from typing import Any

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import dsa, ec, padding, rsa

from rea.android.verity import SHA256_ID, verity_root

CHUNK = 1 << 20
BLOCK_MAGIC = b"APK Sig Block 42"
V2_ID, V3_ID, V31_ID = 0x7109871A, 0xF05368C0, 0x1B93AD61

# signature algorithm id -> (digest, key scheme); the verity ids (0x0421-0x0423) digest differently
ALGORITHMS: dict[int, tuple[str, str]] = {
    0x0101: ("sha256", "rsa-pss"),
    0x0102: ("sha512", "rsa-pss"),
    0x0103: ("sha256", "rsa-pkcs1"),
    0x0104: ("sha512", "rsa-pkcs1"),
    0x0201: ("sha256", "ecdsa"),
    0x0202: ("sha512", "ecdsa"),
    0x0301: ("sha256", "dsa"),
}
_HASH = {"sha256": hashes.SHA256, "sha512": hashes.SHA512}
_V1_DIGESTS = {"SHA-256-Digest": "sha256", "SHA-1-Digest": "sha1", "SHA-512-Digest": "sha512"}


def scheme(present: bool, verified: bool | None, reason: str | None, **extra: Any) -> dict[str, Any]:
    return {"present": present, "verified": verified, "failure": reason, **extra}


def certificate_facts(der: bytes) -> dict[str, Any]:
    cert = x509.load_der_x509_certificate(der)
    public = cert.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return {
        "subject": cert.subject.rfc4514_string(),
        "issuer": cert.issuer.rfc4514_string(),
        "serial_number": format(cert.serial_number, "x"),
        "not_before": cert.not_valid_before_utc.isoformat(),
        "not_after": cert.not_valid_after_utc.isoformat(),
        "sha256": hashlib.sha256(der).hexdigest(),
        "sha1": hashlib.sha1(der).hexdigest(),  # noqa: S324 - a fingerprint, as apksigner prints it
        "public_key_sha256": hashlib.sha256(public).hexdigest(),
        "key_algorithm": type(cert.public_key()).__name__.removeprefix("_").replace("PublicKey", "").upper(),
    }


# ------------------------------------------------------------------ v2 / v3


def _eocd(data: bytes) -> int:
    at = data.rfind(b"PK\x05\x06", max(0, len(data) - 65557))
    if at < 0:
        raise ValueError("no end of central directory record")
    return at


def signing_block(data: bytes) -> tuple[int, int, dict[int, bytes]] | None:
    """(block start, central directory start, id -> value) of the APK Signing Block, or None."""
    eocd = _eocd(data)
    cd_start = struct.unpack_from("<I", data, eocd + 16)[0]
    if cd_start < 32 or cd_start > eocd or data[cd_start - 16 : cd_start] != BLOCK_MAGIC:
        return None
    size = struct.unpack_from("<Q", data, cd_start - 24)[0]
    start = cd_start - size - 8
    if start < 0 or struct.unpack_from("<Q", data, start)[0] != size:
        raise ValueError("APK Signing Block sizes disagree")
    pairs: dict[int, bytes] = {}
    at, end = start + 8, cd_start - 24
    while at < end:
        length = struct.unpack_from("<Q", data, at)[0]
        if length < 4 or at + 8 + length > end:
            raise ValueError("APK Signing Block pair overruns the block")
        pairs[struct.unpack_from("<I", data, at + 8)[0]] = data[at + 12 : at + 8 + length]
        at += 8 + length
    return start, cd_start, pairs


def content_digest(data: bytes, block_start: int, cd_start: int, algorithm: str) -> bytes:
    """The chunked digest over entries, central directory and EOCD (its CD offset pointing at the block)."""
    eocd_at = _eocd(data)
    eocd = bytearray(data[eocd_at:])
    struct.pack_into("<I", eocd, 16, block_start)
    sections = (memoryview(data)[:block_start], memoryview(data)[cd_start:eocd_at], memoryview(bytes(eocd)))
    chunks = []
    for section in sections:
        for at in range(0, len(section), CHUNK):
            piece = section[at : at + CHUNK]
            chunks.append(hashlib.new(algorithm, b"\xa5" + struct.pack("<I", len(piece)) + piece).digest())
    return hashlib.new(algorithm, b"\x5a" + struct.pack("<I", len(chunks)) + b"".join(chunks)).digest()


def _verify(public_der: bytes, algorithm_id: int, signature: bytes, message: bytes) -> bool:
    digest, kind = ALGORITHMS[algorithm_id]
    key = serialization.load_der_public_key(public_der)
    h = _HASH[digest]()
    try:
        if kind == "rsa-pkcs1" and isinstance(key, rsa.RSAPublicKey):
            key.verify(signature, message, padding.PKCS1v15(), h)
        elif kind == "rsa-pss" and isinstance(key, rsa.RSAPublicKey):
            key.verify(signature, message, padding.PSS(mgf=padding.MGF1(h), salt_length=h.digest_size), h)
        elif kind == "ecdsa" and isinstance(key, ec.EllipticCurvePublicKey):
            key.verify(signature, message, ec.ECDSA(h))
        elif kind == "dsa" and isinstance(key, dsa.DSAPublicKey):
            key.verify(signature, message, h)
        else:
            return False
    except InvalidSignature:
        return False
    return True


class _Reader:
    """Length-prefixed (uint32) sequences of the signing block values."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def u32(self) -> int:
        if self.at + 4 > len(self.data):
            raise ValueError("signature block value truncated")
        value: int = struct.unpack_from("<I", self.data, self.at)[0]
        self.at += 4
        return value

    def prefixed(self) -> bytes:
        n = self.u32()
        if self.at + n > len(self.data):
            raise ValueError("signature block value overruns its sequence")
        out = self.data[self.at : self.at + n]
        self.at += n
        return out

    def sequence(self) -> list[bytes]:
        inner = _Reader(self.prefixed())
        out = []
        while inner.at < len(inner.data):
            out.append(inner.prefixed())
        return out

    def done(self) -> bool:
        return self.at >= len(self.data)


def _signer(raw: bytes, data: bytes, block: tuple[int, int], v3: bool, digests: dict[int, bytes]) -> dict[str, Any]:
    """One v2/v3 signer: its signature over signed data, then that data's digest against the APK."""
    reader = _Reader(raw)
    signed = reader.prefixed()
    if v3:
        reader.u32(), reader.u32()  # min/max SDK outside the signed data
    signatures = [(struct.unpack_from("<I", s)[0], _Reader(s[4:]).prefixed()) for s in reader.sequence()]
    public = reader.prefixed()
    inner = _Reader(signed)
    listed = [(struct.unpack_from("<I", d)[0], _Reader(d[4:]).prefixed()) for d in inner.sequence()]
    certs = inner.sequence()
    supported = [(a, s) for a, s in signatures if a in ALGORITHMS]
    failure = None
    if not supported:
        failure = "no supported signature algorithm (verity-only or unknown ids)"
    elif not all(_verify(public, a, s, signed) for a, s in supported):
        failure = "signature over signed data does not verify with the signer's public key"
    elif not certs:
        failure = "signer lists no certificate"
    else:
        leaf = x509.load_der_x509_certificate(certs[0]).public_key()
        leaf_der = leaf.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        if leaf_der != public:
            failure = "the first certificate's public key differs from the signer's public key"
    for algorithm_id, declared in listed:
        if algorithm_id not in ALGORITHMS:
            continue
        computed = digests.get(algorithm_id)
        if computed is None:
            computed = content_digest(data, block[0], block[1], ALGORITHMS[algorithm_id][0])
            digests[algorithm_id] = computed
        if failure is None and computed != declared:
            failure = "content digest does not match the APK's entries, central directory and EOCD"
    return {
        "verified": failure is None,
        "failure": failure,
        "algorithms": sorted(a for a, _ in signatures),
        "certificates": [certificate_facts(c) for c in certs],
        "declared_digests": {str(a): d.hex() for a, d in listed},
    }


def block_scheme(data: bytes, block: tuple[int, int, dict[int, bytes]] | None, block_id: int) -> dict[str, Any]:
    if block is None or block_id not in block[2]:
        return scheme(False, None, None, signers=[])
    digests: dict[int, bytes] = {}
    try:
        signers = [
            _signer(raw, data, block[:2], block_id != V2_ID, digests) for raw in _Reader(block[2][block_id]).sequence()
        ]
    except (ValueError, struct.error, TypeError) as exc:
        return scheme(True, False, f"malformed signer block: {exc}", signers=[])
    if not signers:
        return scheme(True, False, "the scheme block lists no signer", signers=[])
    failure = next((s["failure"] for s in signers if s["failure"]), None)
    return scheme(
        True, failure is None, failure, signers=signers, content_digests={str(k): v.hex() for k, v in digests.items()}
    )


# ------------------------------------------------------------------ v1


def _sections(text: bytes) -> list[tuple[bytes, dict[str, str]]]:
    """MANIFEST.MF / .SF sections: (raw bytes including the blank line, attributes)."""
    out: list[tuple[bytes, dict[str, str]]] = []
    raw_lines: list[bytes] = []
    attrs_: dict[str, str] = {}
    last: str | None = None
    for line in text.replace(b"\r\n", b"\n").split(b"\n"):
        raw_lines.append(line)
        if not line:
            if attrs_:
                out.append((b"\r\n".join(raw_lines), attrs_))
            raw_lines, attrs_, last = [], {}, None
            continue
        if line.startswith(b" ") and last is not None:
            attrs_[last] += line[1:].decode("utf-8", "replace")
            continue
        key, _, value = line.decode("utf-8", "replace").partition(": ")
        attrs_[key], last = value, key
    if attrs_:
        out.append((b"\r\n".join(raw_lines), attrs_))
    return out


def _raw_sections(text: bytes) -> list[bytes]:
    """Each section's exact bytes as written (the .SF digests them verbatim)."""
    parts, at = [], 0
    sep = b"\r\n\r\n" if b"\r\n" in text else b"\n\n"
    while at < len(text):
        end = text.find(sep, at)
        end = len(text) if end < 0 else end + len(sep)
        parts.append(text[at:end])
        at = end
    return parts


def _digest_ok(attrs_: dict[str, str], data: bytes, suffix: str = "") -> bool | None:
    for key, algorithm in _V1_DIGESTS.items():
        name = key.replace("-Digest", f"-Digest{suffix}")
        if name in attrs_:
            return base64.b64decode(attrs_[name]) == hashlib.new(algorithm, data).digest()
    return None


def _v1_entries(zf: zipfile.ZipFile, manifest: bytes, max_bytes: int) -> str | None:
    entries = {a.get("Name"): a for _, a in _sections(manifest)[1:]}
    names = [i.filename for i in zf.infolist() if not i.is_dir()]
    for name in names:
        if name.upper().startswith("META-INF/") and name.count("/") == 1:
            continue
        if name not in entries:
            return f"{name} is not listed in META-INF/MANIFEST.MF"
        info = zf.getinfo(name)
        if info.file_size > max_bytes:
            return f"{name} exceeds the {max_bytes}-byte member limit; its digest was not checked"
        try:
            data = zf.read(name)
        except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as exc:  # a CRC mismatch is a changed member
            return f"{name} cannot be read as stored ({exc}): it was changed after signing"
        if _digest_ok(entries[name], data) is not True:
            return f"{name} does not match its META-INF/MANIFEST.MF digest"
    missing = sorted(n for n in set(entries) - set(names) if n is not None)
    return f"MANIFEST.MF lists {missing[0]}, which the APK does not hold" if missing else None


def v1_scheme(apk: Any, data: bytes, max_bytes: int) -> dict[str, Any]:
    names = list(apk.get_signature_names())
    if not names:
        return scheme(False, None, None, signers=[])
    zf = zipfile.ZipFile(io.BytesIO(data))
    try:
        manifest = zf.read("META-INF/MANIFEST.MF")
    except KeyError:
        return scheme(True, False, "META-INF/MANIFEST.MF is missing", signers=[])
    signers = [_v1_signer(apk, zf, name, manifest) for name in names]
    failure = next((s["failure"] for s in signers if s["failure"]), None) or _v1_entries(zf, manifest, max_bytes)
    return scheme(True, failure is None, failure, signers=signers)


def _v1_signer(apk: Any, zf: zipfile.ZipFile, block_name: str, manifest: bytes) -> dict[str, Any]:
    sf_name = block_name.rsplit(".", 1)[0] + ".SF"
    certificates: list[dict[str, Any]] = []
    try:
        der = apk.get_certificate_der(block_name)  # verifies the PKCS#7 signature over the .SF
    except Exception as exc:  # androguard raises what it meets: the block does not verify
        return {"block": block_name, "verified": False, "failure": f"{block_name}: {exc}", "certificates": []}
    if der is None:
        return {"block": block_name, "verified": False, "failure": f"{block_name} does not verify", "certificates": []}
    certificates.append(certificate_facts(der))
    try:
        sf = zf.read(sf_name)
    except KeyError:
        return {
            "block": block_name,
            "verified": False,
            "failure": f"{sf_name} is missing",
            "certificates": certificates,
        }
    failure = _sf_failure(sf, manifest)
    return {"block": block_name, "verified": failure is None, "failure": failure, "certificates": certificates}


def _sf_failure(sf: bytes, manifest: bytes) -> str | None:
    sf_sections = _sections(sf)
    head = sf_sections[0][1] if sf_sections else {}
    whole = _digest_ok(head, manifest, "-Manifest")
    if whole is True:
        return None
    raw = _raw_sections(manifest)
    main_ok = _digest_ok(head, raw[0] if raw else b"", "-Manifest-Main-Attributes")
    if main_ok is False:
        return "the .SF digest of MANIFEST.MF's main attributes does not match"
    by_name = {a.get("Name"): r for r, (_, a) in zip(raw[1:], _sections(manifest)[1:], strict=False)}
    for _, attrs_ in sf_sections[1:]:
        section = by_name.get(attrs_.get("Name"))
        if section is None or _digest_ok(attrs_, section) is not True:
            return f"the .SF digest of MANIFEST.MF section {attrs_.get('Name')} does not match"
    if len(sf_sections) < 2:
        return "the .SF digest of MANIFEST.MF does not match"
    return None


# ------------------------------------------------------------------ v4


def v4_scheme(idsig: bytes | None, data: bytes, v2: dict[str, Any], v3: dict[str, Any]) -> dict[str, Any]:
    """A v4 signature lives in `<apk>.idsig` beside the APK; its signed APK digest names a v2/v3 digest.

    It signs the file's Merkle tree root, so the root is recomputed from the APK: a byte changed
    where v2/v3 do not look (inside the APK Signing Block) fails v4 alone."""
    if idsig is None:
        return scheme(False, None, None, signers=[])
    try:
        reader = _Reader(idsig)
        version = reader.u32()
        hashing = _Reader(reader.prefixed())
        signing = _Reader(reader.prefixed())
        hash_algorithm = hashing.u32()
        log2_block = hashing.data[hashing.at] if hashing.at < len(hashing.data) else 0
        hashing.at += 1
        salt, root = hashing.prefixed(), hashing.prefixed()
        apk_digest, cert, additional, public = (signing.prefixed() for _ in range(4))
        algorithm_id = signing.u32()
        signature = signing.prefixed()
    except ValueError as exc:
        return scheme(True, False, f"malformed .idsig: {exc}", signers=[])
    known = {bytes.fromhex(d) for s in (v2, v3) for d in s.get("content_digests", {}).values()}
    failure = None
    if algorithm_id not in ALGORITHMS:
        failure = f"unsupported v4 signature algorithm {algorithm_id:#x}"
    elif apk_digest not in known:
        failure = "the .idsig APK digest matches no v2/v3 content digest of this APK"
    else:
        message = _v4_signed(len(data), hash_algorithm, log2_block, salt, root, apk_digest, cert, additional)
        if not _verify(public, algorithm_id, signature, message):
            failure = "the .idsig signature does not verify with its public key"
        else:
            failure = _merkle_failure(data, hash_algorithm, log2_block, salt, root)
    certs = [certificate_facts(cert)] if cert else []
    return scheme(True, failure is None, failure, version=version, signers=[{"certificates": certs}])


def _merkle_failure(data: bytes, algorithm: int, log2: int, salt: bytes, root: bytes) -> str | None:
    if algorithm != SHA256_ID:
        return f"unsupported v4 hash algorithm {algorithm} (only 1, SHA-256, is defined)"
    try:
        computed = verity_root(data, log2, salt)
    except ValueError as exc:
        return f"the .idsig hashing facts are unusable: {exc}"
    if computed != root:
        return (
            f"the APK's Merkle tree root {computed.hex()} is not the .idsig's {root.hex()}:"
            " the file changed after it was v4-signed"
        )
    return None


def _v4_signed(size: int, algorithm: int, log2: int, salt: bytes, root: bytes, *rest: bytes) -> bytes:
    """What a v4 signature signs: its total size, the file size, the hashing tree facts, then the signing facts."""
    body = struct.pack("<QIB", size, algorithm, log2) + b"".join(
        struct.pack("<I", len(p)) + p for p in (salt, root, *rest)
    )
    return struct.pack("<I", 4 + len(body)) + body


def verify_all(apk: Any, data: bytes, idsig: bytes | None, max_bytes: int) -> dict[str, Any]:
    """Every scheme's verdict; a malformed signing block fails v2 and v3 instead of hiding them."""
    try:
        block = signing_block(data)
        block_failure = None
    except (ValueError, struct.error) as exc:
        block, block_failure = None, f"malformed APK Signing Block: {exc}"
    schemes = {"v1": v1_scheme(apk, data, max_bytes)}
    for name, block_id in (("v2", V2_ID), ("v3", V3_ID), ("v31", V31_ID)):
        if block_failure is not None:
            schemes[name] = scheme(True, False, block_failure, signers=[])
        else:
            schemes[name] = block_scheme(data, block, block_id)
    schemes["v4"] = v4_scheme(idsig, data, schemes["v2"], schemes["v3"])
    return schemes
