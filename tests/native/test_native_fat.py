"""A universal (fat) Mach-O through open_binary and the native tools: the host-preferred slice by default,
any slice by `architecture`, every slice listed, an unknown selector refused with the accepted names.

The fat file is written here around thin images: Go-built darwin/arm64 and darwin/amd64 hellos (the Debian
Go toolchain) and gcc's i386 Mach-O from Go's debug/macho test data. Ground truth is this file's own
reader of the fat header and the thin Mach-O load commands, not lief or angr."""

from __future__ import annotations

import json
import struct
import subprocess
from pathlib import Path

import anyio
import pytest

from mcp_client import connect, err, ok
from native_fixtures import ok_evidence, result, universal
from support import clean_env, rea_command

pytestmark = pytest.mark.slow
LC_SEGMENT_64, LC_MAIN = 0x19, 0x80000028


def read_fat(path: Path) -> list[dict[str, int]]:
    """The fat_arch rows as the header states them."""
    data = path.read_bytes()
    magic, count = struct.unpack_from(">II", data, 0)
    assert magic == 0xCAFEBABE
    rows = []
    for i in range(count):
        cpu, sub, offset, size, _align = struct.unpack_from(">iiIII", data, 8 + 20 * i)
        rows.append({"cputype": cpu, "cpusubtype": sub, "offset": offset, "size": size})
    return rows


def thin_facts(image: bytes) -> dict[str, int]:
    """A 64-bit little-endian thin image's __TEXT extent and LC_MAIN entry (vmaddr + entryoff)."""
    magic, _cpu, _sub, _filetype, ncmds = struct.unpack_from("<IiiII", image, 0)
    assert magic == 0xFEEDFACF
    at, facts = 32, {}
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", image, at)
        if cmd == LC_SEGMENT_64 and image[at + 8 : at + 24].rstrip(b"\0") == b"__TEXT":
            facts["text_start"], facts["text_size"] = struct.unpack_from("<QQ", image, at + 24)
        if cmd == LC_MAIN:
            (facts["entryoff"],) = struct.unpack_from("<Q", image, at + 8)
        at += size
    facts["entry"] = facts["text_start"] + facts["entryoff"]
    return facts


def test_default_slice_every_slice_and_refused_selector(images, tmp_path):
    three = universal(tmp_path, images, ("i386", "arm64", "x86_64"))  # the preferred slice is not the first
    two = universal(tmp_path, images, ("i386", "arm64"))
    assert (
        "Mach-O universal binary with 3 architectures"
        in subprocess.run(["file", "-b", str(three)], capture_output=True, text=True, check=True).stdout
    )

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path / "cache")) as s:
            default = ok(await s.call_tool("open_binary", {"path": str(three)}))
            fallback = ok(await s.call_tool("open_binary", {"path": str(two)}))
            chosen = ok(await s.call_tool("open_binary", {"path": str(three), "architecture": "i386"}))
            refused = await s.call_tool("open_binary", {"path": str(three), "architecture": "ppc64"})
            return default, fallback, chosen, refused

    default, fallback, chosen, refused = anyio.run(main)
    want = read_fat(three)
    assert [{k: s[k] for k in ("cputype", "cpusubtype", "offset", "size")} for s in default["slices"]] == want
    assert [s["architecture"] for s in default["slices"]] == ["i386", "arm64", "x86_64"]
    assert default["format"] == "mach-o-universal" and default["architecture"] == "x86_64"
    assert default["selected_slice"] == {**default["slices"][2], "selection": "default"}
    assert [s["selected"] for s in default["slices"]] == [False, False, True]
    loader = default["analysis_provider_binding"]["analysis_profile"]["parameters"]["loader"]
    assert loader["fat_slice"] == {
        "architecture": "x86_64",
        "index": 2,
        "offset": want[2]["offset"],
        "size": want[2]["size"],
    }
    assert fallback["architecture"] == "arm64" and fallback["selected_slice"]["index"] == 1  # no x86_64: arm64
    assert chosen["architecture"] == "x86" and chosen["selected_slice"]["selection"] == "request"
    digests = {r["analysis_provider_binding"]["analysis_profile"]["digest"] for r in (default, chosen)}
    assert len(digests) == 2  # one cache entry and annotation store per slice
    error = err(refused, "invalid_request")
    assert error["details"]["field"] == "architecture"
    assert error["details"]["available"] == ["i386", "arm64", "x86_64"]
    assert "i386, arm64, x86_64" in error["details"]["accepted"]


def test_native_tools_analyse_the_chosen_slice(images, tmp_path):
    fat = universal(tmp_path, images, ("x86_64", "arm64"))
    row = read_fat(fat)[1]
    truth = thin_facts(fat.read_bytes()[row["offset"] : row["offset"] + row["size"]])
    version = subprocess.run(["go", "env", "GOVERSION"], capture_output=True, text=True, check=True).stdout.strip()
    scratch = tmp_path / "scratch"
    scratch.mkdir()

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path / "cache"), TMPDIR=str(scratch)) as s:
            ok(await s.call_tool("open_binary", {"path": str(fat), "architecture": "arm64"}))
            overview = ok_evidence(await s.call_tool("binary_overview", {}))
            listing = result(await s.call_tool("list_procedures", {}))
            return overview, listing

    overview, listing = anyio.run(main)
    facts = overview["normalized_result"]
    assert overview["subject"]["architecture"] == "arm64" and facts["architecture"] == "arm64"
    assert facts["entry"] == f"0x{truth['entry']:x}"
    assert facts["go"]["go_version"] == version  # pclntab and build info read from the slice's bytes
    addresses = [int(row["address"], 16) for row in listing if not row["address"].startswith("extern:")]
    assert addresses and all(truth["text_start"] <= a < truth["text_start"] + truth["text_size"] for a in addresses)
    # the slice is loaded from memory: no copy of it was written (pyvex keeps its own parser cache there)
    assert not [f for f in scratch.iterdir() if f.read_bytes()[:4] in (b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe")]


def test_a_selector_on_a_thin_target_must_name_its_architecture(images, tmp_path):
    thin = tmp_path / "hi-arm64"
    thin.write_bytes(images["arm64"])

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path / "cache")) as s:
            same = ok(await s.call_tool("open_binary", {"path": str(thin), "architecture": "arm64"}))
            other = await s.call_tool("open_binary", {"path": str(thin), "architecture": "x86_64"})
            return same, other

    same, other = anyio.run(main)
    assert same["architecture"] == "arm64" and "slices" not in same
    error = err(other, "invalid_request")
    assert error["details"]["field"] == "architecture" and error["details"]["available"] == ["arm64"]


def test_cli_architecture_selects_the_slice(images, tmp_path):
    fat = universal(tmp_path, images, ("x86_64", "arm64"))
    env = clean_env(REA_CACHE_DIR=str(tmp_path / "cache"))
    run = [*rea_command(), "analyze", str(fat), "--format", "json", "--architecture"]
    done = subprocess.run([*run, "arm64"], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    overview = json.loads(done.stdout)
    overview = overview.get("normalized_result", overview)
    assert overview["architecture"] == "arm64" and overview["go"]["go_version"]
    refused = subprocess.run([*run, "ppc"], capture_output=True, text=True, env=env, timeout=600)
    assert refused.returncode != 0
    assert "invalid_request" in refused.stdout + refused.stderr and "x86_64, arm64" in refused.stdout + refused.stderr


def test_rea_call_target_architecture_opens_that_slice(images, tmp_path):
    """`rea call TOOL --target FAT --target-architecture A`: open_binary's selector from the one-shot CLI."""
    fat = universal(tmp_path, images, ("x86_64", "arm64"))
    env = clean_env(REA_CACHE_DIR=str(tmp_path / "cache"))
    base = [*rea_command(), "call", "binary_overview", "--target", str(fat), "--format", "json"]
    done = subprocess.run([*base, "--target-architecture", "arm64"], capture_output=True, text=True, env=env,
                          timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["subject"]["architecture"] == "arm64"  # not the default x86_64 slice
    wrong = subprocess.run([*base, "--target-architecture", "ppc"], capture_output=True, text=True, env=env,
                           timeout=600)  # fmt: skip
    assert wrong.returncode != 0 and "x86_64, arm64" in wrong.stdout
    alone = subprocess.run([*rea_command(), "call", "binary_overview", "--target-architecture", "arm64", "--json"],
                           capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
    assert alone.returncode == 2 and "--target-architecture needs --target" in alone.stdout
