"""Managed assemblies built at test time with Debian mono `mcs`, and `monodis` (an independent reader) as truth."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

SOURCES = Path(__file__).parent / "managed"
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
