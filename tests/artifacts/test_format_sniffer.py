"""The shared format sniffer on files that share the `cafebabe` magic: a Java class file (written byte
by byte from the JVM specification, section 4.1) and a fat Mach-O (two Go-built slices behind a
fat header), with file(1) and lief as independent readers, then through open_binary over MCP."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
from pathlib import Path

import anyio
import lief
import pytest

from mcp_client import connect, ok
from rea.artifacts.model import format_for_name, is_fat_macho


def class_file(major: int = 52) -> bytes:
    """`public class A extends java.lang.Object {}`: the smallest class a JVM accepts."""

    def utf8(text: str) -> bytes:
        return b"\x01" + struct.pack(">H", len(text)) + text.encode()

    pool = b"\x07\x00\x02" + utf8("A") + b"\x07\x00\x04" + utf8("java/lang/Object")
    return (
        b"\xca\xfe\xba\xbe"
        + struct.pack(">HH", 0, major)
        + struct.pack(">H", 5)  # constant_pool_count: entries 1..4
        + pool
        + struct.pack(">HHHHHHH", 0x0021, 1, 3, 0, 0, 0, 0)  # flags, this, super, no members
    )


def fat_macho(slices: list[tuple[int, int, bytes]]) -> bytes:
    """A fat header (big-endian fat_arch rows) over (cputype, cpusubtype, image) slices, 16 KiB aligned."""
    align = 14
    header = struct.pack(">II", 0xCAFEBABE, len(slices))
    offset = 1 << align
    rows, body = b"", b""
    for cputype, subtype, image in slices:
        rows += struct.pack(">iiIII", cputype, subtype, offset, len(image), align)
        padded = image + b"\x00" * (-len(image) % (1 << align))
        body += padded
        offset += len(padded)
    head = header + rows
    return head + b"\x00" * ((1 << align) - len(head)) + body


@pytest.fixture(scope="module")
def samples(tmp_path_factory) -> dict[str, Path]:
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    root = tmp_path_factory.mktemp("sniff")
    (root / "main.go").write_text('package main\n\nfunc main() { println("hi") }\n')
    images = {}
    for arch in ("amd64", "arm64"):
        out = root / f"hi-{arch}"
        subprocess.run(
            ["go", "build", "-ldflags=-s -w", "-o", str(out), str(root / "main.go")],
            env={**_env(root), "GOOS": "darwin", "GOARCH": arch},
            check=True,
            capture_output=True,
            timeout=600,
        )
        images[arch] = out.read_bytes()
    paths = {"class": root / "A.class", "class_renamed": root / "classes.bin", "fat": root / "hi-universal"}
    paths["class"].write_bytes(class_file())
    paths["class_renamed"].write_bytes(class_file(61))
    paths["fat"].write_bytes(fat_macho([(0x01000007, 3, images["amd64"]), (0x0100000C, 0, images["arm64"])]))
    return paths


def _env(root: Path) -> dict[str, str]:
    import os

    return {**os.environ, "GOCACHE": str(root / "cache"), "CGO_ENABLED": "0", "GOFLAGS": "-mod=mod"}


def file_says(path: Path) -> str:
    return subprocess.run(["file", "-b", str(path)], capture_output=True, text=True, check=True).stdout


def test_independent_readers_agree_on_the_samples(samples):
    assert "compiled Java class data, version 52.0" in file_says(samples["class"])
    assert "compiled Java class data, version 61.0" in file_says(samples["class_renamed"])
    assert "Mach-O universal binary with 2 architectures" in file_says(samples["fat"])
    fat = lief.MachO.parse(str(samples["fat"]))
    assert fat is not None and fat.size == 2


def test_the_sniffer_tells_a_class_file_from_a_fat_macho(samples):
    for name in ("class", "class_renamed"):
        head = samples[name].read_bytes()[:512]
        assert not is_fat_macho(head) and format_for_name(samples[name].name, head) == "file"
    head = samples["fat"].read_bytes()[:512]
    assert is_fat_macho(head) and format_for_name("hi-universal", head) == "mach-o-universal"
    assert format_for_name("x", head[:8]) == "file"  # too short to say: not claimed as Mach-O


@pytest.mark.slow
def test_open_binary_classifies_both(samples, tmp_path):
    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path)) as s:
            opened = {}
            for name in ("class_renamed", "fat"):
                reply = await s.call_tool("open_binary", {"path": str(samples[name])})
                opened[name] = ok(reply)
            return opened

    opened = anyio.run(main)
    assert opened["class_renamed"]["format"] == "file"
    assert opened["fat"]["format"] == "mach-o-universal"


@pytest.mark.slow
def test_hostile_native_inputs_get_canonical_answers(samples, tmp_path):
    """Zero-size, sparse, truncated and lying headers: a canonical error or a partial answer, never a hang."""
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    sparse = tmp_path / "sparse.elf"
    with open(sparse, "wb") as handle:
        handle.write(b"\x7fELF\x02\x01\x01" + b"\x00" * 57)
        handle.truncate(64 << 20)  # 64 MiB of apparent size, a header and holes
    lying_fat = tmp_path / "lying-fat"
    lying_fat.write_bytes(
        struct.pack(">II", 0xCAFEBABE, 1) + struct.pack(">iiIII", 0x01000007, 3, 1 << 31, 1 << 31, 14)
    )
    truncated = tmp_path / "truncated-macho"
    truncated.write_bytes(samples["fat"].read_bytes()[16384 : 16384 + 300])  # a thin header, its commands cut

    async def main():
        answers = {}
        async with connect(REA_CACHE_DIR=str(tmp_path / "cache")) as s:
            for target in (empty, sparse, lying_fat, truncated):
                opened = await s.call_tool("open_binary", {"path": str(target)})
                answers[target.name] = opened, await s.call_tool("binary_overview", {})
        return answers

    answers = anyio.run(main)
    for name, (opened, overview) in answers.items():
        if opened.is_error:
            continue  # refused at open with a canonical error (checked by the MCP client's schema)
        assert overview.is_error, name
        body = json.loads(overview.content[0].text)["error"]
        assert body["code"] in ("capability_unavailable", "target_unavailable"), (name, body)
        assert body["remediation"]["action"], name
    assert ok(answers["lying-fat"][0])["format"] == "mach-o-universal"
