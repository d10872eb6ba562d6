"""Strings in every encoding a C compiler stores: char16_t (UTF-16LE) escape tables like markupsafe's,
wchar_t (UTF-32LE on Linux) and UTF-8, checked against binutils `strings -e` as the independent reader,
before and after CFG recovery, and found by search_strings."""

from __future__ import annotations

import subprocess
from pathlib import Path

import anyio
import pytest

from mcp_client import connect, ok
from native_fixtures import ok_evidence, result

SOURCE = Path(__file__).parents[1] / "fixtures" / "wide_strings.c"
ESCAPES = ("&#34;", "&#39;", "&amp;", "&lt;", "&gt;")


@pytest.fixture(scope="module")
def wide(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wide") / "wide"
    subprocess.run(["gcc", "-O1", "-o", str(out), str(SOURCE)], check=True, capture_output=True)
    return out


def binutils_strings(path: Path, encoding: str) -> set[str]:
    """`strings -e l` reads 16-bit little-endian text, `-e L` 32-bit little-endian."""
    out = subprocess.run(["strings", "-n", "4", "-e", encoding, str(path)], capture_output=True, text=True)
    return set(out.stdout.splitlines())


@pytest.mark.slow
def test_wide_strings_are_listed_and_searched_in_their_encoding(wide, tmp_path):
    assert set(ESCAPES) <= binutils_strings(wide, "l")
    assert "wide text in UTF-32" in binutils_strings(wide, "L")

    async def main():
        async with connect(REA_CACHE_DIR=str(tmp_path)) as s:
            ok(await s.call_tool("open_binary", {"path": str(wide)}))
            early = result(await s.call_tool("list_strings", {}))
            found = ok_evidence(await s.call_tool("search_strings", {"pattern": "&lt;"}))
            late = result(await s.call_tool("list_strings", {}))
            return early, found, late

    early, found, late = anyio.run(main)
    for rows in (early, late):
        by_value = {r["value"]: r for r in rows}
        for escape in ESCAPES:
            assert by_value[escape]["string"]["encoding"] == "utf-16le"
            assert by_value[escape]["string"]["byte_length"] == 2 * len(escape) + 2
        assert by_value["wide text in UTF-32"]["string"] == {
            "encoding": "utf-32le",
            "termination": "present_or_not_required",
            "byte_length": 4 * 20,
        }
        assert by_value["plain narrow text"]["string"]["encoding"] == "utf-8"
        assert not any(r["value"] == "&" for r in rows)
    hits = found["normalized_result"]
    assert [h["value"] for h in hits] == ["&lt;"] and hits[0]["string"]["encoding"] == "utf-16le"
