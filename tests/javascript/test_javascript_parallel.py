"""The second parsing process: the same Evidence with or without it, and a cancel kills it."""

from __future__ import annotations

import os

import anyio
import attrs
import pytest

import rea.javascript.programs.analysis as workflow
from effects.calls import Connection
from effects.javascript import runtime
from effects.progress import Progress
from javascript_fixtures import analyze, write_tree
from rea.javascript.effects import ExtractFiles
from scripted import CTX


@pytest.mark.slow
def test_parallel_parsing_gives_the_same_evidence(npm_tree, monkeypatch):
    tree = npm_tree / "webpack" / "lib"
    serial = analyze(tree, Connection(ctx=CTX))
    monkeypatch.setattr(workflow, "PARALLEL_MIN_BYTES", 0)
    helper = runtime._helper()
    if helper is None:
        pytest.skip("one CPU: REA parses on one core")
    sent, submit = [], helper.submit
    monkeypatch.setattr(helper, "submit", lambda *request: (sent.append(len(request[1])), submit(*request)))
    parallel = analyze(tree, Connection(ctx=CTX))
    assert sum(sent) > 200  # the worker parsed a share of the files ...
    assert helper.proc is None  # ... and did not outlive the analysis
    assert parallel["evidence_id"] == serial["evidence_id"]
    assert parallel["normalized_result"]["statistics"]["parsed_files"] > 500


def test_a_cancel_kills_the_helper_process(tmp_path):
    if runtime._helper() is None:
        pytest.skip("one CPU: REA parses on one core")
    root = write_tree(tmp_path / "big", {f"m{i:03}.js": "const x = [" + "1," * 60_000 + "];\n" for i in range(16)})
    effect = ExtractFiles(
        root=str(root),
        files=tuple((f"m{i:03}.js", "javascript") for i in range(16)),
        max_file_bytes=1 << 24,
        max_ast_nodes=10_000_000,
        max_source_map_sources=10,
        max_original_source_bytes=0,
        parallel=True,
        done=0,
        total=16,
    )
    pids = []

    async def main() -> bool:
        with anyio.CancelScope() as scope:

            async def cancel_once_the_helper_runs() -> None:
                while not (runtime._HELPER and runtime._HELPER[0] and runtime._HELPER[0].proc):
                    await anyio.sleep(0.005)
                pids.append(runtime._HELPER[0].proc.pid)
                scope.cancel()

            async with anyio.create_task_group() as group:
                group.start_soon(cancel_once_the_helper_runs)
                await runtime.extract(effect, Progress(None))
        return scope.cancelled_caught

    assert anyio.run(main)  # cancelled while both halves were being parsed
    assert pids and runtime._HELPER[0].proc is None
    with pytest.raises(ProcessLookupError):
        os.kill(pids[0], 0)


def test_a_dead_worker_leaves_its_half_to_the_parent(tmp_path, monkeypatch):
    root = write_tree(tmp_path / "t", {f"m{i}.js": f"export const v{i} = {i};\n" * 2000 for i in range(4)})
    effect = ExtractFiles(
        root=str(root),
        files=tuple((f"m{i}.js", "javascript") for i in range(4)),
        max_file_bytes=1 << 24,
        max_ast_nodes=10_000_000,
        max_source_map_sources=10,
        max_original_source_bytes=0,
        parallel=True,
        done=0,
        total=4,
    )
    serial = anyio.run(runtime.extract, attrs.evolve(effect, parallel=False), Progress(None)).unwrap()
    helper = runtime._helper()
    if helper is None:
        pytest.skip("one CPU: REA parses on one core")
    real_submit = helper.submit

    def submit_then_die(*request):
        real_submit(*request)
        helper.proc.kill()  # the worker dies with the request in hand

    monkeypatch.setattr(helper, "submit", submit_then_die)
    assert anyio.run(runtime.extract, effect, Progress(None)).unwrap() == serial
