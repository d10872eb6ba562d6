"""Older inventory Evidence and pages that disagree, through compare_artifacts (issue 30, item 9).

Real inventories of a tar and a gcc-built ELF are made through the MCP client, then edited
the way older REA wrote them (no `coverage`; the legacy `coverage_status`; the historical root
notice in limitations) and resealed with rea.evidence's own identify (an Evidence id is the hash
of its content, so an edited record needs a new one), then passed inline to compare_artifacts.
The contract: coverage is optional on older records, historical scope notices are recognized,
unfamiliar wording stays conservative, and pages of one inventory must agree on coverage.
"""

from __future__ import annotations

import copy
import io
import subprocess
import tarfile
from typing import Any

import anyio
import attrs
import pytest

from mcp_client import connect, error, evidence
from rea.evidence import identify, parse_evidence

pytestmark = pytest.mark.slow


def _reseal(record: dict, edit) -> dict:
    """The record with its normalized_result edited, under the id its new content hashes to."""
    parsed = parse_evidence(record).unwrap()
    result = copy.deepcopy(parsed.normalized_result)
    edit(result)
    return identify(attrs.evolve(parsed, normalized_result=result)).unwrap().to_json()


def _legacy(status: str | None, limitations: list[str] | None = None):
    def edit(result: dict) -> None:
        del result["coverage"]
        result.pop("coverage_status", None)
        if status is not None:
            result["coverage_status"] = status
        if limitations is not None:
            result["limitations"] = limitations

    return edit


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Any]:
    d = tmp_path_factory.mktemp("legacy")
    with tarfile.open(d / "four.tar", "w") as tf:
        for i in range(4):
            info = tarfile.TarInfo(f"m{i}.txt")
            info.size = 2
            tf.addfile(info, io.BytesIO(b"%d\n" % i))
    (d / "m.c").write_text("int main(void) { return 0; }\n")
    subprocess.run(["gcc", "-o", str(d / "elf"), str(d / "m.c")], check=True)

    async def main():
        async with connect() as s:
            await s.call_tool("open_binary", {"path": str(d / "four.tar")})
            full = evidence(await s.call_tool("inventory_artifact", {}))
            pages = [
                evidence(await s.call_tool("inventory_artifact", {"occurrence_offset": o, "occurrence_limit": 3}))
                for o in (0, 3)
            ]
            await s.call_tool("open_binary", {"path": str(d / "elf")})
            root = evidence(await s.call_tool("inventory_artifact", {}))
            return {"full": full, "pages": pages, "root": root}

    return anyio.run(main)


def _compare(pairs: dict[str, tuple[Any, Any]]) -> dict[str, Any]:
    async def main():
        async with connect() as s:
            return {k: await s.call_tool("compare_artifacts", {"left": a, "right": b}) for k, (a, b) in pairs.items()}

    return anyio.run(main)


def test_older_records_without_coverage_and_disagreeing_pages(made):
    full, pages, root = made["full"], made["pages"], made["root"]
    assert full["normalized_result"]["coverage"] == {"scope": "container-entries", "status": "complete"}
    assert root["normalized_result"]["coverage"]["scope"] == "root"
    assert [len(p["normalized_result"]["occurrences"]["items"]) for p in pages] == [3, 2]
    relabelled = _reseal(
        pages[1], lambda r: r.update(coverage={**r["coverage"], "status": "unknown"}, coverage_status="partial")
    )
    conflicting = _reseal(full, lambda r: r.update(coverage_status="partial"))
    got = _compare(
        {
            "legacy_complete": (full, _reseal(full, _legacy("complete"))),
            "legacy_silent": (full, _reseal(full, _legacy(None))),
            "legacy_root": (root, _reseal(root, _legacy("complete", ["root-only inventory: not a container"]))),
            "legacy_unfamiliar": (root, _reseal(root, _legacy("complete", ["an older wording REA never used"]))),
            "pages": (pages, full),
            "one_page": ([pages[0]], full),
            "disagreeing_pages": ([pages[0], relabelled], full),
            "conflicting": (full, conflicting),
        }
    )
    complete = evidence(got["legacy_complete"])["normalized_result"]
    assert complete["status"] == "unchanged"
    assert complete["right_coverage"] == {"scope": "container-entries", "status": "complete"}
    silent = evidence(got["legacy_silent"])["normalized_result"]  # silence never means complete
    assert silent["status"] == "unknown" and silent["right_coverage"]["status"] == "unknown"
    assert any("right traversal coverage is unknown" in u for u in silent["uncertainty"])
    legacy_root = evidence(got["legacy_root"])["normalized_result"]  # the historical notice: root scope
    assert legacy_root["status"] == "unchanged" and legacy_root["right_coverage"] == {
        "scope": "root",
        "status": "complete",
    }
    unfamiliar = evidence(got["legacy_unfamiliar"])["normalized_result"]  # unknown wording stays conservative
    assert unfamiliar["right_coverage"]["scope"] == "container-entries" and unfamiliar["status"] == "unknown"
    assert any("coverage scopes differ" in u for u in unfamiliar["uncertainty"])
    paged = evidence(got["pages"])["normalized_result"]
    assert paged["status"] == "unchanged" and paged["source_complete"] == {"left": True, "right": True}
    assert evidence(got["one_page"])["normalized_result"]["status"] == "truncated"
    disagreeing = error(got["disagreeing_pages"], "evidence_integrity_mismatch")
    assert "different coverage" in disagreeing["message"] and disagreeing["details"]["field"] == "left"
    assert "conflicts with coverage.status" in error(got["conflicting"], "evidence_integrity_mismatch")["message"]
