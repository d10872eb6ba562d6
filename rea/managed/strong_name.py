"""Strong-name signature verification (ECMA-335 II.6.2.1.3): RSA PKCS#1 v1.5 over the image hash.

The effect layer hashes the image (it holds the bytes); this module parses the Assembly row's public key
blob (PublicKeyBlob header, then a CAPI PUBLICKEYBLOB) and checks the signature against the digest."""

from __future__ import annotations

import struct
from typing import Literal

from rea.managed.facts import CliFacts

Verification = Literal["verified", "failed", "not-signed", "unverifiable"]

# CAPI hash algorithm id -> (digest name, DER DigestInfo prefix of PKCS#1 v1.5)
HASH_ALGORITHMS = {
    0x8004: ("sha1", bytes.fromhex("3021300906052b0e03021a05000414")),
    0x800C: ("sha256", bytes.fromhex("3031300d060960864801650304020105000420")),
    0x800D: ("sha384", bytes.fromhex("3041300d060960864801650304020205000430")),
    0x800E: ("sha512", bytes.fromhex("3051300d060960864801650304020305000440")),
}


def _rsa_key(blob: bytes) -> tuple[int, int, int, int] | str:
    """(hash algorithm id, exponent, modulus, modulus bytes) or why the key cannot be used."""
    if len(blob) < 32:
        return f"the public key blob is {len(blob)} bytes, shorter than a CAPI RSA public key"
    _sig_alg, hash_alg, _size = struct.unpack_from("<III", blob, 0)
    if blob[12] != 0x06 or blob[20:24] != b"RSA1":
        return "the public key blob is not a CAPI PUBLICKEYBLOB with an RSA1 key"
    bits, exponent = struct.unpack_from("<II", blob, 24)
    width = bits // 8
    if bits % 8 or not width or len(blob) < 32 + width:
        return f"the RSA modulus ({bits} bits) runs past the public key blob"
    return hash_alg, exponent, int.from_bytes(blob[32 : 32 + width], "little"), width


def verify(cli: CliFacts | None, public_key: bytes | None) -> tuple[Verification, str]:
    """The verification state and a sentence saying why."""
    if cli is None or not cli.flags & 0x8:
        return "not-signed", "COMIMAGE_FLAGS_STRONGNAMESIGNED is not set"
    if not public_key:
        return "unverifiable", "the assembly is flagged signed but declares no public key"
    key = _rsa_key(public_key)
    if isinstance(key, str):
        return "unverifiable", key
    hash_alg, exponent, modulus, width = key
    if hash_alg not in HASH_ALGORITHMS:
        return "unverifiable", f"hash algorithm 0x{hash_alg:04x} is not one strong names use"
    name, prefix = HASH_ALGORITHMS[hash_alg]
    digest = dict(cli.strong_name_digests).get(name)
    signature = cli.strong_name_signature
    if digest is None or not signature:
        return "unverifiable", "the signature blob or the image could not be read"
    if len(signature) != width:
        return "failed", f"the signature blob is {len(signature)} bytes, the {width * 8}-bit key needs {width}"
    value = int.from_bytes(signature, "little")
    if value >= modulus:
        return "failed", "the signature value is not below the key's modulus"
    decoded = pow(value, exponent, modulus).to_bytes(width, "big")
    tail = b"\x00" + prefix + digest
    padding = decoded[2 : width - len(tail)]
    if decoded[:2] == b"\x00\x01" and decoded.endswith(tail) and padding and set(padding) == {0xFF}:
        return "verified", f"RSA PKCS#1 v1.5 signature over the {name} image hash verifies with the declared key"
    return "failed", f"the signature does not match the {name} image hash under the declared key (image altered)"
