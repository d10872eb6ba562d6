"""inspect_signature's reading: find LC_CODE_SIGNATURE with lief, bound the blob, decode its CMS with asn1crypto."""

from __future__ import annotations

import mmap
from typing import Any

from asn1crypto import cms as asn1_cms

from effects.layout.macho import select_slice
from rea.layout.codesign import parse_superblob
from rea.layout.macho_names import arch_name

MAX_SIGNATURE = 64 << 20
CMS_LIMIT = "the CMS signature does not decode"


def cms_facts(der: bytes) -> dict[str, Any]:
    """Signing authorities (certificate common names, signer first) and the signing time."""
    try:
        signed = asn1_cms.ContentInfo.load(der)["content"]
        certs = [c.chosen for c in signed["certificates"] or []]
        names = [c.subject.native.get("common_name") or c.subject.human_friendly for c in certs]
        signer = signed["signer_infos"][0] if len(signed["signer_infos"]) else None
        timestamp = None
        if signer is not None and signer["signed_attrs"].native is not None:
            for attr in signer["signed_attrs"]:
                if attr["type"].native == "signing_time":
                    timestamp = attr["values"][0].native.isoformat()
        ordered = _chain(certs, names, signer)
        return {"authorities": ordered, "timestamp": timestamp, "limitations": []}
    except Exception as exc:  # asn1crypto raises many types on hostile DER; all mean the same here
        return {"authorities": [], "timestamp": None, "limitations": [f"{CMS_LIMIT} ({type(exc).__name__})"]}


def _chain(certs: list[Any], names: list[str], signer: Any) -> list[str]:
    """Leaf (the signer's certificate) first, then each issuer, as codesign lists Authority lines."""
    if signer is None or not certs:
        return names
    sid = signer["sid"].chosen
    leaf = next(
        (c for c in certs if getattr(sid, "native", None) and c.serial_number == sid.native.get("serial_number")),
        certs[0],
    )
    order, current = [], leaf
    while current is not None and current not in order:
        order.append(current)
        current = next((c for c in certs if c.subject == current.issuer and c is not current), None)
    order += [c for c in certs if c not in order]
    return [c.subject.native.get("common_name") or c.subject.human_friendly for c in order]


def read_signature(path: str, architecture: str | None) -> dict[str, Any]:
    """The signature facts of a Mach-O image (raises LayoutFailure for one that is not)."""
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        with memoryview(mapped) as data:
            binary, chosen = select_slice(path, data, architecture)
            base = chosen["offset"] if chosen is not None else 0
            arch = arch_name(int(binary.header.cpu_type), int(binary.header.cpu_subtype))
            fmt = f"Mach-O {'universal' if chosen is not None else 'thin'} ({arch})"
            if not binary.has_code_signature:
                return {"parsed": None, "cms": None, "format": fmt}
            sig = binary.code_signature
            start, size = base + sig.data_offset, sig.data_size
            limitations = []
            if start + size > len(data):
                limitations.append("LC_CODE_SIGNATURE runs past the end of the file: the blob was cut at the end")
                size = max(0, len(data) - start)
            if size > MAX_SIGNATURE:
                limitations.append(f"the signature blob is over {MAX_SIGNATURE} bytes: only its start was read")
                size = MAX_SIGNATURE
            blob = bytes(data[start : start + size])
    parsed = parse_superblob(blob)
    parsed["limitations"] = limitations + parsed["limitations"]
    der = parsed.pop("cms")
    cms = cms_facts(der) if der else None
    return {"parsed": parsed, "cms": cms, "format": fmt}
