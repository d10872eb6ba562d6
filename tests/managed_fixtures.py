"""Managed assemblies built at test time with Debian mono `mcs`, and `monodis` (an independent reader) as truth."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

SOURCES = Path(__file__).parent / "fixtures" / "managed"
RESOURCE_TEXT = b"hello from an embedded resource\n"

needs_mono = pytest.mark.skipif(
    shutil.which("mcs") is None or shutil.which("monodis") is None, reason="Debian mono-mcs and mono-utils"
)


def build(out_dir: Path, source: str, name: str, *flags: str) -> Path:
    out = out_dir / name
    target = "library" if name.endswith(".dll") else "exe"
    subprocess.run(
        ["mcs", f"-target:{target}", f"-out:{out}", *flags, str(SOURCES / source)],
        check=True,
        capture_output=True,
        cwd=out_dir,
    )
    return out


def strong_name_key(path: Path) -> Path:
    """A CAPI PRIVATEKEYBLOB (.snk) for `mcs -keyfile:`, made from a fresh 1024-bit RSA key."""
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    n = key.private_numbers()
    pub = n.public_numbers

    def le(value: int, size: int) -> bytes:
        return value.to_bytes(size, "little")

    blob = struct.pack("<BBHI", 0x07, 0x02, 0, 0x2400) + b"RSA2" + struct.pack("<II", 1024, pub.e)
    blob += le(pub.n, 128) + le(n.p, 64) + le(n.q, 64) + le(n.dmp1, 64) + le(n.dmq1, 64) + le(n.iqmp, 64)
    blob += le(n.d, 128)
    path.write_bytes(blob)
    return path


def library(out_dir: Path) -> Path:
    (out_dir / "res.txt").write_bytes(RESOURCE_TEXT)
    return build(out_dir, "Library.cs", "Library.exe", "-resource:res.txt,Fixture.res.txt")


def signed(out_dir: Path) -> Path:
    key = strong_name_key(out_dir / "key.snk")
    return build(out_dir, "Other.cs", "Signed.dll", f"-keyfile:{key}")


def monodis(path: Path, table: str) -> str:
    return subprocess.run(["monodis", f"--{table}", str(path)], check=True, capture_output=True, text=True).stdout


def monodis_rows(path: Path, table: str) -> list[str]:
    """The `N: ...` rows of one monodis table dump."""
    return [line for line in monodis(path, table).splitlines() if re.match(r"^\d+: ", line)]


def monodis_bodies(path: Path) -> dict[tuple[str, str], dict[str, object]]:
    """(Type, method) -> {code_size, instructions [(il_offset, opcode)], calls [(il_offset, 'Type::name')]}."""
    bodies: dict[tuple[str, str], dict[str, object]] = {}
    current: dict[str, object] = {"code_size": None, "instructions": [], "calls": []}
    for line in _disassembly(path).splitlines():
        size = re.search(r"// Code size (\d+)", line)
        op = re.match(r"\s*IL_([0-9a-f]{4}):\s+(\S+)(.*)", line)
        end = re.search(r"\} // end of method (\S+)::(\S+)", line)
        if size:
            current["code_size"] = int(size.group(1))
        elif op:
            offset, opcode, rest = int(op.group(1), 16), op.group(2), op.group(3)
            current["instructions"].append((offset, opcode))  # type: ignore[union-attr]
            called = re.search(r"(?:class |valuetype )?([\w.`\[\]/]+)::'?([\w.]+)'?\(", rest)
            if opcode in ("call", "callvirt", "newobj") and called:
                current["calls"].append((offset, called.group(1).split("]")[-1] + "::" + called.group(2)))  # type: ignore[union-attr]
        elif end:
            bodies[(end.group(1), end.group(2))] = current
            current = {"code_size": None, "instructions": [], "calls": []}
    return bodies


def _disassembly(path: Path) -> str:
    return subprocess.run(["monodis", str(path)], check=True, capture_output=True, text=True).stdout


def library_v2(out_dir: Path) -> Path:
    """The library with Box.Area's and Main's bodies changed and one method added."""
    source = (SOURCES / "Library.cs").read_text()
    source = source.replace("Counter = args.Length;", "Counter = args.Length + 2;")
    source = source.replace(
        "public double Area() { count++; return 1.5; }", "public double Area() { count += 2; return 2.5; }"
    )
    source = source.replace(
        "public static int Counter;", "public static int Counter;\n        public static int Added() { return 7; }"
    )
    (out_dir / "LibraryV2.cs").write_text(source)
    out = out_dir / "LibraryV2.exe"
    subprocess.run(["mcs", f"-out:{out}", str(out_dir / "LibraryV2.cs")], check=True, capture_output=True, cwd=out_dir)
    return out


# ---------------------------------------------------------------- portable PDB, written from the spec
# No tool on this host writes a portable PDB (Debian mono's mcs -debug writes .mdb), so the tests write a
# minimal valid one: an ECMA-335 metadata root (II.24.2.1) with the #Pdb, #~, #Strings, #Blob and #GUID
# streams of the Portable PDB v1.0 format, a Document table (0x30) and a MethodDebugInformation table (0x31).

SHA256_GUID = "8829d00f-11b8-4213-878b-770e8597ac16"
CSHARP_GUID = "3f5162f8-07c6-11d3-9053-00c04fa302a1"


def _compressed(value: int) -> bytes:
    if value < 0x80:
        return bytes([value])
    if value < 0x4000:
        return struct.pack(">H", value | 0x8000)
    return struct.pack(">I", value | 0xC000_0000)


def _pad4(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % 4)


class _Heaps:
    def __init__(self) -> None:
        self.blob = bytearray(b"\0")
        self.guid = bytearray()

    def add_blob(self, data: bytes) -> int:
        index = len(self.blob)
        self.blob += _compressed(len(data)) + data
        return index

    def add_guid(self, text: str) -> int:
        import uuid

        self.guid += uuid.UUID(text).bytes_le
        return len(self.guid) // 16


def _document_name(heaps: _Heaps, name: str) -> int:
    parts = name.split("/")
    return heaps.add_blob(b"/" + b"".join(_compressed(heaps.add_blob(p.encode()) if p else 0) for p in parts))


def portable_pdb(path: Path, documents: list[tuple[str, bytes]], methods: int, with_points: int,
                 pdb_guid: str = "0b7a1c2d-3e4f-4a5b-8c6d-7e8f90a1b2c3", method_rows: int = 16) -> Path:  # fmt: skip
    """A portable PDB naming `documents` (name, SHA-256 of the source) and `methods` MethodDebugInformation
    rows, the first `with_points` of them with one sequence point in document 1."""
    import uuid

    heaps = _Heaps()
    doc_rows = b""
    for name, digest in documents:
        doc_rows += struct.pack("<HHHH", _document_name(heaps, name), heaps.add_guid(SHA256_GUID),
                                heaps.add_blob(digest), heaps.add_guid(CSHARP_GUID))  # fmt: skip
    points = heaps.add_blob(
        _compressed(0) + _compressed(0) + _compressed(0) + _compressed(1) + _compressed(7) + _compressed(5)
    )  # fmt: skip local sig 0; IL 0; lines 0; columns 1; line 7; column 5
    method_rows_bytes = b"".join(struct.pack("<HH", 1, points) if i < with_points else struct.pack("<HH", 0, 0)
                                 for i in range(methods))  # fmt: skip
    tables = struct.pack("<IBBBBQQ", 0, 2, 0, 0, 1, (1 << 0x30) | (1 << 0x31), 0)
    tables += struct.pack("<II", len(documents), methods) + doc_rows + method_rows_bytes
    pdb = uuid.UUID(pdb_guid).bytes_le + struct.pack("<I", 0x5A5A5A5A) + struct.pack("<I", 0x06000001)
    pdb += struct.pack("<Q", 1 << 0x06) + struct.pack("<I", method_rows)  # the assembly's MethodDef rows
    streams = [(b"#Pdb", pdb), (b"#~", tables), (b"#Strings", b"\0"), (b"#Blob", bytes(heaps.blob)),
               (b"#GUID", bytes(heaps.guid))]  # fmt: skip
    version = _pad4(b"PDB v1.0\0")
    header_size = 16 + len(version) + 4 + sum(8 + len(_pad4(name + b"\0")) for name, _ in streams)
    headers, body, offset = b"", b"", header_size
    for name, data in streams:
        data = _pad4(data)
        headers += struct.pack("<II", offset, len(data)) + _pad4(name + b"\0")
        body += data
        offset += len(data)
    root = struct.pack("<IHHII", 0x424A5342, 1, 1, 0, len(version)) + version + struct.pack("<HH", 0, len(streams))
    path.write_bytes(root + headers + body)
    return path
