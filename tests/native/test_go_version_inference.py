"""A Go binary without build info: the absence stated as a problem, and the go1.x string offered as an inference.

Binaries are built here by the Debian Go toolchain (offline, GOFLAGS=-mod=mod, no
dependencies, a per-session GOCACHE) for ELF, PE and Mach-O; the build info is
then removed by zeroing its header and inline strings, as a release build that
strips it leaves the file. Ground truth: `go version` (the toolchain's own build
info reader) names the version of the intact build and refuses the stripped one;
`go tool nm` of the same build gives runtime.buildVersion.str, the address of the
go1.x bytes the inference must point at.
"""

from __future__ import annotations

import shutil
import subprocess
from functools import cache
from pathlib import Path

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from effects.native import metadata
from mcp_client import connect, ok
from native_fixtures import ok_evidence
from rea.native import gopclntab
from support import clean_env

pytestmark = pytest.mark.slow  # three cross builds (the std of windows and darwin compiled once per session)
MAIN = 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n'
TARGETS = {"elf": ("linux", "amd64"), "pe": ("windows", "amd64"), "mach-o": ("darwin", "arm64")}
MAGIC = b"\xff Go buildinf:"


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at, value, shift = at + 1, value | (byte & 0x7F) << shift, shift + 7
        if not byte & 0x80:
            return value, at


def without_build_info(data: bytes) -> bytes:
    """The file with its build info (header, version and modinfo strings; Go 1.18+ inline form) zeroed."""
    at = data.index(MAGIC)
    length, start = _varint(data, at + 32)
    length, start = _varint(data, start + length)
    end = start + length
    return data[:at] + bytes(end - at) + data[end:]


@cache
def _built(root: str) -> dict[str, dict[str, Path]]:
    tmp = Path(root)
    (tmp / "go.mod").write_text("module example.com/hello\n\ngo 1.19\n")
    (tmp / "main.go").write_text(MAIN)
    builds = {}
    for fmt, (goos, goarch) in TARGETS.items():
        env = clean_env(
            GOOS=goos, GOARCH=goarch, GOCACHE=str(tmp / "cache"), GOFLAGS="-mod=mod", CGO_ENABLED="0", GOPROXY="off"
        )
        full = tmp / f"{fmt}-full"
        subprocess.run(["go", "build", "-o", str(full), "."], cwd=tmp, env=env, check=True, capture_output=True)
        stripped = tmp / f"{fmt}-no-buildinfo"
        stripped.write_bytes(without_build_info(full.read_bytes()))
        builds[fmt] = {"full": full, "stripped": stripped}
    return builds


@pytest.fixture(scope="module")
def go_builds(tmp_path_factory):
    if shutil.which("go") is None:
        pytest.skip("go is not installed")
    return _built(str(tmp_path_factory.mktemp("go_no_buildinfo")))


def _go_version(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["go", "version", str(path)], capture_output=True, text=True)


def _build_version_str(path: Path) -> int:
    out = subprocess.run(["go", "tool", "nm", str(path)], capture_output=True, text=True, check=True).stdout
    return next(int(line.split()[0], 16) for line in out.splitlines() if line.endswith(" runtime.buildVersion.str"))


@pytest.mark.parametrize("fmt", sorted(TARGETS))
def test_a_missing_build_info_is_stated_and_the_version_inferred_at_its_address(go_builds, fmt):
    full, stripped = go_builds[fmt]["full"], go_builds[fmt]["stripped"]
    version = _go_version(full).stdout.strip().rsplit(": ", 1)[1]  # "<path>: go1.19.8"
    refused = _go_version(stripped)  # Go's own reader finds no build info: "<path>: not executable file"
    assert version.startswith("go1.") and "go1." not in refused.stdout + refused.stderr
    intact = metadata.go_tables(str(full), 0)
    assert intact["build_info"]["go_version"] == version and "inferred_version" not in intact
    go = metadata.go_tables(str(stripped), 0)
    assert go["build_info"] is None and go["functions"]  # pclntab still names the functions
    (problem,) = go["problems"]
    assert (
        "no Go build info" in problem and "buildinf" in problem and f"first {stripped.stat().st_size} bytes" in problem
    )
    inferred = go["inferred_version"]
    assert inferred["value"] == version and inferred["confidence"] == "medium" and inferred["source"] == "string-scan"
    assert int(inferred["address"], 16) == _build_version_str(stripped) == _build_version_str(full)
    data = stripped.read_bytes()
    offset = int(inferred["file_offset"], 16)
    assert data[offset : offset + len(version)] == version.encode()
    assert [c["value"] for c in inferred["candidates"]] == [version]  # the build info's own copy is gone


def test_binary_overview_carries_the_problem_and_the_inference(go_builds, tmp_path):
    stripped = go_builds["elf"]["stripped"]

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path)) as s:
            ok(await s.call_tool("open_binary", {"path": str(stripped)}))
            return ok_evidence(await s.call_tool("binary_overview", {}))

    go = anyio.run(main)["normalized_result"]["go"]
    assert go["go_version"] is None and go["module_path"] is None and go["pclntab_layout"] == "1.18"
    assert any("no Go build info" in p for p in go["problems"])
    assert go["inferred_version"]["address"] == f"0x{_build_version_str(go_builds['elf']['full']):x}"
    assert go["inferred_version"]["evidence_kind"] == "inferred"


@given(st.binary(max_size=256), st.sampled_from([b"go1.19.8", b"go1.21rc2", b"go1.4", b"xgo1.20beta1"]))
def test_version_strings_find_each_match_at_its_offset(noise, version):
    data = noise + version + b"\x00" + noise
    found = gopclntab.version_strings(data)
    assert all(data[v.offset : v.offset + len(v.value)] == v.value.encode() for v in found)
    assert (
        any(v.offset == len(noise) + version.index(b"go") for v in found) or noise[-1:].isdigit() or noise[-1:] == b"."
    )
    chosen = gopclntab.inferred_version(found)
    assert (chosen is None) == (not found)
