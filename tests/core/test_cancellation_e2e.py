"""A real MCP client over stdio that cancels mid-call (the SDK sends notifications/cancelled): the
server stays usable, no engine worker, parse helper or staging file is left, and the partial record is
found again with get_evidence_bundle (summary, operation filter) and opened with inspect_analysis_view."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest

from javascript_fixtures import write_tree
from mcp_client import connect, ok
from native_fixtures import SOURCE, _workers
from rea.javascript.programs.analysis import BATCH_FILES

pytestmark = pytest.mark.slow
OPERATION = "analyze_javascript_application"


def _leftovers(*roots: Path) -> list[str]:
    return [str(p) for root in roots for p in root.rglob("*") if p.name.endswith(".rea-staging")]


def test_a_client_cancel_mid_call_keeps_the_server_and_the_partial_record(tmp_path):
    # 12 MiB of JavaScript in 600 files: about ten parsing batches, and the second parsing process
    body = "function f%d(a) { return [" + "a + 1, " * 2_500 + "]; }\n"
    tree = write_tree(tmp_path / "app", {f"m{i:03}.js": body % i for i in range(600)})
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    binary = tmp_path / "sample"
    subprocess.run(["gcc", "-O2", "-o", str(binary), str(SOURCE)], check=True, capture_output=True)
    cache = tmp_path / "cache"  # cold: the first native question starts the engine worker
    engines, helpers = _workers() | _workers("effects.native.indexer"), _workers("effects.javascript.parse_worker")

    async def main():
        async with connect(REA_CACHE_DIR=str(cache)) as s:
            with anyio.CancelScope() as parsing:

                async def on_progress(progress, total, message):
                    parsed = message.removeprefix("parsing: ").split("/")[0]
                    if message.startswith("parsing: ") and int(parsed) > BATCH_FILES:
                        parsing.cancel()  # the first batch is done and the second one is being parsed

                await s.call_tool(OPERATION, {"input_path": str(tree)}, progress_callback=on_progress)
            ok(await s.call_tool("open_binary", {"path": str(binary)}))
            with anyio.CancelScope() as recovering:

                async def on_engine_progress(progress, total, message):
                    # the fast index (or the engine worker) is running and reporting
                    if message.startswith(("angr ", "fast index")):
                        recovering.cancel()

                await s.call_tool("binary_overview", {}, progress_callback=on_engine_progress)

            def engine_processes() -> set:
                return _workers() | _workers("effects.native.indexer")

            for _ in range(100):  # the server finishes unwinding asynchronously
                if not (engine_processes() - engines or _workers("effects.javascript.parse_worker") - helpers):
                    break
                await anyio.sleep(0.05)
            left = (engine_processes() - engines, _workers("effects.javascript.parse_worker") - helpers)
            found = ok(
                await s.call_tool("get_evidence_bundle", {"detail": "summary", "filters": {"operation": OPERATION}})
            )
            record = found["records"][0]
            view = await s.call_tool(
                "inspect_analysis_view",
                {"source": {"kind": "retained-evidence", "evidence_id": record["evidence_id"]}},
            )
            usable = await s.call_tool("list_segments", {})  # the session and its binding survived
            return parsing.cancelled_caught, recovering.cancelled_caught, left, found, view, usable

    cancelled, timed_out, left, found, view, usable = anyio.run(main)
    assert cancelled is True and timed_out is True
    assert left == (set(), set())
    assert _leftovers(tmp_path, cache) == []
    assert found["matching_records"] == 1 and found["filters"] == {"operation": OPERATION}
    assert found["records"][0]["operation"] == OPERATION
    assert view.is_error is False, view.content[0].text
    summary = view.structured_content["normalized_result"]["summary"]
    assert view.structured_content["evidence_links"] == [found["records"][0]["evidence_id"]]
    assert summary["coverage"]["analysis"]["status"] == "partial"
    assert summary["coverage"]["analysis"]["cancelled_during"] == "parsing"
    read = summary["statistics"]["files_read"]
    assert read % BATCH_FILES == 0 and 0 < read < 600  # whole batches, before the cancel
    assert summary["statistics"]["omissions_by_reason"] == {"cancelled": 600 - read}
    assert usable.is_error is False and usable.structured_content["normalized_result"]
    assert os.listdir(tmp_path / "app")  # the input tree is untouched
