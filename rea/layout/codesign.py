"""Apple code signatures: the embedded SuperBlob's CodeDirectories, requirements and entitlements. Pure.

Every length and offset in the blob is checked against the blob before it is
used; a lying one ends that blob's reading with a limitation, never a read past
the end. cdhashes are the digests of each CodeDirectory's exact bytes with its
own hash type, truncated to 20 bytes as codesign prints them.
"""

from __future__ import annotations

import hashlib
import plistlib
import struct
from collections.abc import Mapping
from typing import Any

from rea.layout.macho_records import CodeDirectory, Signature

SUPERBLOB, CODEDIRECTORY, REQUIREMENTS, ENTITLEMENTS, DER_ENTITLEMENTS, CMS = (
    0xFADE0CC0,
    0xFADE0C02,
    0xFADE0C01,
    0xFADE7171,
    0xFADE7172,
    0xFADE0B01,
)
HASH_TYPES = {1: "sha1", 2: "sha256", 3: "sha256", 4: "sha384"}
HASH_NAMES = {1: "sha1", 2: "sha256", 3: "sha256-truncated", 4: "sha384"}
CS_RUNTIME = 0x10000
MAX_BLOBS = 64
MAX_ENTITLEMENTS = 1 << 20
MAX_DEPTH = 64


def _cstring(blob: bytes, start: int) -> str | None:
    if not 0 < start < len(blob):
        return None
    end = blob.find(b"\0", start)
    return blob[start : end if end >= 0 else len(blob)].decode("utf-8", "replace")


def _code_directory(slot: int, cd: bytes) -> CodeDirectory:
    version, flags, _hash_off, ident_off, _special, _code, _limit = struct.unpack_from(">IIIIIII", cd, 8)
    hash_size, hash_type = cd[36], cd[37]
    team = None
    if version >= 0x20200 and len(cd) >= 52:
        (team_off,) = struct.unpack_from(">I", cd, 48)
        team = _cstring(cd, team_off) if team_off else None
    algorithm = HASH_TYPES.get(hash_type)
    cdhash = hashlib.new(algorithm, cd).hexdigest()[:40] if algorithm else None
    return CodeDirectory(
        slot=slot,
        version=f"0x{version:x}",
        flags=flags,
        hash_type=HASH_NAMES.get(hash_type, str(hash_type)),
        hash_size=hash_size,
        identifier=_cstring(cd, ident_off),
        team_identifier=team,
        cdhash=cdhash,
    )


def _json(value: Any, depth: int = 0) -> Any:
    """A plist value as JSON (data as base64 text, dates as ISO 8601), bounded in depth."""
    import base64

    if depth > MAX_DEPTH:
        raise ValueError("entitlements nest deeper than 64 levels")
    if isinstance(value, dict):
        return {str(k): _json(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_json(v, depth + 1) for v in value]
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def entitlements_of(xml: bytes) -> tuple[Any, str | None]:
    if len(xml) > MAX_ENTITLEMENTS:
        return None, f"the entitlements blob is {len(xml)} bytes (over {MAX_ENTITLEMENTS}): not decoded"
    try:
        return _json(plistlib.loads(xml)), None
    except (ValueError, plistlib.InvalidFileException, RecursionError, OverflowError) as exc:
        return None, f"the entitlements plist does not decode: {type(exc).__name__}"


def parse_superblob(blob: bytes) -> dict[str, Any]:
    """CodeDirectories, requirements presence, entitlements XML and the CMS blob, each bounds-checked."""
    found: dict[str, Any] = {
        "code_directories": [],
        "requirements": False,
        "entitlements_xml": None,
        "der_entitlements": False,
        "cms": None,
        "limitations": [],
    }
    if len(blob) < 12 or struct.unpack_from(">I", blob, 0)[0] != SUPERBLOB:
        found["limitations"].append("the signature data is not an embedded SuperBlob")
        return found
    _magic, length, count = struct.unpack_from(">III", blob, 0)
    if length > len(blob) or count > MAX_BLOBS or 12 + 8 * count > min(length, len(blob)):
        found["limitations"].append(f"the SuperBlob's length ({length}) or count ({count}) lies about its extent")
        return found
    for i in range(count):
        slot, offset = struct.unpack_from(">II", blob, 12 + 8 * i)
        if offset + 8 > length:
            found["limitations"].append(f"blob {i} (slot 0x{slot:x}) starts outside the SuperBlob")
            continue
        magic, size = struct.unpack_from(">II", blob, offset)
        if size < 8 or offset + size > length:
            found["limitations"].append(f"blob {i} (slot 0x{slot:x}) claims {size} bytes past the SuperBlob")
            continue
        body = blob[offset : offset + size]
        if magic == CODEDIRECTORY and size >= 44:
            found["code_directories"].append(_code_directory(slot, body))
        elif magic == REQUIREMENTS:
            found["requirements"] = True
        elif magic == ENTITLEMENTS:
            found["entitlements_xml"] = body[8:]
        elif magic == DER_ENTITLEMENTS:
            found["der_entitlements"] = True
        elif magic == CMS:
            found["cms"] = body[8:]
    return found


def signature_result(parsed: Mapping[str, Any] | None, cms: Mapping[str, Any] | None, fmt: str) -> Signature:
    """inspect_signature's result: unsigned images say so; every unknown is null with its reason.

    `parsed` is parse_superblob's reading (its CodeDirectory records), `cms` the effect's CMS facts."""
    limitations: list[str] = []
    if parsed is None:
        return Signature(
            signed=False,
            identifier=None,
            team_identifier=None,
            format=fmt,
            cdhashes=(),
            hash_algorithms=(),
            authorities=(),
            designated_requirement=None,
            entitlements=None,
            timestamp=None,
            hardened_runtime=None,
            provenance=(),
            code_directories=(),
            limitations=("The image has no LC_CODE_SIGNATURE command: it is unsigned.",),
        )
    limitations += parsed["limitations"]
    cds: list[CodeDirectory] = parsed["code_directories"]
    primary = cds[0] if cds else None
    entitlements, why = (
        (None, None) if parsed["entitlements_xml"] is None else entitlements_of(parsed["entitlements_xml"])
    )
    if why:
        limitations.append(why)
    if parsed["requirements"]:
        limitations.append(
            "The requirements blob is present; its expressions are not decompiled (designated_requirement null)."
        )
    if parsed["der_entitlements"]:
        limitations.append("DER entitlements are present and not decoded (the XML form is reported).")
    if cms is None:
        limitations.append("No CMS signature blob: an ad-hoc or linker signature has no signing authorities.")
    limitations += list((cms or {}).get("limitations", []))
    return Signature(
        signed=primary is not None,
        identifier=primary.identifier if primary else None,
        team_identifier=primary.team_identifier if primary else None,
        format=fmt,
        cdhashes=tuple(cd.cdhash for cd in cds if cd.cdhash),
        hash_algorithms=tuple(cd.hash_type for cd in cds),
        authorities=tuple((cms or {}).get("authorities", [])),
        designated_requirement=None,
        entitlements=entitlements,
        timestamp=(cms or {}).get("timestamp"),
        hardened_runtime=bool(primary.flags & CS_RUNTIME) if primary else None,
        provenance=(),
        code_directories=tuple(cds),
        limitations=tuple(limitations),
    )
