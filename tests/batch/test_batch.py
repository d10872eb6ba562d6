"""`rea batch` on the local process pool, through the real CLI, over a corpus built by real tools.

Ground truth is the corpus itself (tests/batch_fixtures.py says what each file was built to be),
hashlib for digests, readelf for the executables' entry points, and the bundle is read back by
import_evidence_bundle over MCP (the Python SDK client).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import psutil
import pytest

from batch_fixtures import build_corpus
from mcp_client import connect, ok
from rea.batch.items import Identified, outcomes, work_list
from rea.batch.kinds import PLANS, kind_of
from rea.bundle import parse_bundle
from support import clean_env, rea_command

OPERATION = {kind: plan.steps[-1].tool for kind, plan in PLANS.items()}


def batch(*args: str, timeout: int = 900) -> tuple[int, dict, str]:
    proc = subprocess.run(
        [*rea_command(), "batch", *args, "--no-progress"], capture_output=True, text=True, timeout=timeout,
        env=clean_env(),
    )  # fmt: skip
    try:
        body = json.loads(proc.stdout)
    except json.JSONDecodeError:
        body = {"text": proc.stdout}
    return proc.returncode, body, proc.stderr


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> tuple[Path, dict[str, tuple[str, str]]]:
    root = tmp_path_factory.mktemp("batch") / "corpus"
    return root, build_corpus(root)


@pytest.fixture(scope="module")
def pooled(corpus, tmp_path_factory) -> tuple[int, dict, Path]:
    root, _ = corpus
    out = tmp_path_factory.mktemp("out") / "bundle.json"
    code, summary, err = batch(str(root), "--out", str(out), "--jobs", "2", "--format", "json")
    assert summary.get("kind") == "rea-batch-summary", err[-3000:]
    return code, summary, out


def _readelf_entry(path: str) -> int:
    out = subprocess.run(["readelf", "-h", path], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"Entry point address:\s+(0x[0-9a-f]+)", out).group(1), 16)


@pytest.mark.slow
def test_every_file_gets_its_kind_s_first_analysis_and_failures_stay_per_item(corpus, pooled):
    root, expected = corpus
    code, summary, out = pooled
    assert len(expected) >= 50 and summary["inputs"] == len(expected) == summary["completed"]
    assert code == 1 and summary["exit_status"] == 1  # the corrupt files failed; nothing else did
    by_path = {item["path"]: item for item in summary["items"]}
    assert [i["path"] for i in summary["items"]] == sorted(by_path)
    for rel, (status, kind) in expected.items():
        item = by_path[str(root / rel)]
        assert (item["status"], item["kind"]) == (status, kind), rel
        assert item["sha256"] == hashlib.sha256((root / rel).read_bytes()).hexdigest()
        if status == "failed":
            assert item["error_code"] in ("target_unavailable", "artifact_operation_failed", "invalid_request")
        else:
            assert item["error_code"] is None
        if status in ("analysed", "duplicate") and kind in OPERATION:
            assert item["evidence_ids"], rel
    first = {}
    for item in summary["items"]:
        if item["status"] == "duplicate":
            original = by_path[item["duplicate_of"]]
            assert original["sha256"] == item["sha256"] and original["path"] < item["path"]
            assert item["evidence_ids"] == original["evidence_ids"]
        elif item["sha256"]:
            assert item["sha256"] not in first  # analysed once per digest
            first[item["sha256"]] = item


@pytest.mark.slow
def test_the_bundle_is_the_export_format_and_holds_each_analysis(corpus, pooled):
    root, expected = corpus
    _, summary, out = pooled
    tree = json.loads(out.read_bytes())
    parsed = parse_bundle(tree).unwrap()  # the strict importer's own verification: ids recomputed, manifests
    ids = [e.evidence_id for e in parsed.records]
    assert ids == sorted(ids) and summary["bundle"]["records"] == len(ids)
    assert summary["bundle"]["sha256"] == hashlib.sha256(out.read_bytes()).hexdigest()
    records = {e.evidence_id: e for e in parsed.records}
    for item in summary["items"]:
        if item["status"] != "analysed":
            continue
        held = [records[i] for i in item["evidence_ids"]]
        # an application's semantic graph is retained as its own Evidence beside the record
        (evidence,) = [e for e in held if e.operation == OPERATION[item["kind"]]]
        assert [e.operation for e in held if e is not evidence] == (
            ["javascript_semantic_graph"] if item["kind"] == "javascript" else []
        )
        if item["kind"] == "native" and item["format"] == "elf":
            result = evidence.normalized_result
            assert int(result["entry"], 16) == _readelf_entry(item["path"])
    assert set(ids) == {i for item in summary["items"] for i in item["evidence_ids"]}


@pytest.mark.slow
def test_an_mcp_client_imports_the_batch_bundle(pooled):
    _, summary, out = pooled

    async def main():
        async with connect() as client:
            imported = ok(await client.call_tool("import_evidence_bundle", {"path": str(out)}))
            listed = ok(await client.call_tool("get_evidence_bundle", {"detail": "summary"}))
            return imported, listed

    imported, listed = anyio.run(main)
    assert imported["imported"] == imported["total"] == summary["bundle"]["records"]
    rows = listed["records"]
    assert sorted(r["evidence_id"] for r in rows) == sorted(
        {i for item in summary["items"] for i in item["evidence_ids"]}
    )


@pytest.mark.slow
def test_resume_skips_every_digest_already_in_the_bundle_and_renders_a_table(corpus, pooled, tmp_path):
    root, _ = corpus
    _, first, out = pooled
    copy = tmp_path / "resumed.json"
    copy.write_bytes(out.read_bytes())
    start = time.monotonic()
    code, body, err = batch(str(root), "--out", str(copy), "--resume", "--format", "text")
    text = body["text"]
    assert code == 1, err[-2000:]  # the corrupt files are tried again and fail again
    assert copy.read_bytes() == out.read_bytes()  # nothing new: the same bundle, byte for byte
    analysed = [i for i in first["items"] if i["status"] == "analysed"]
    for item in analysed:
        # the row is found by its digest: a long path may wrap in the table, the digest column does not
        row = next(line for line in text.splitlines() if item["sha256"][:12] in line)
        # a JavaScript application's subject is its tree, not the file's digest: its answer is
        # recalled from the analysis cache instead of the bundle
        assert "resumed" in row
    assert f"{len(analysed)} resumed" in text and "4 failed" in text
    assert time.monotonic() - start < 600


@pytest.mark.slow
def test_resume_into_a_new_bundle_recalls_every_answer_from_the_analysis_cache(corpus, pooled, tmp_path):
    root, _ = corpus
    _, first, out = pooled
    fresh = tmp_path / "fresh.json"
    # a 1 ms deadline: any item that ran again would fail with provider_timeout
    code, summary, err = batch(
        str(root), "--out", str(fresh), "--resume", "--item-deadline-ms", "1", "--format", "json"
    )
    assert code == 1, err[-2000:]
    before = {i["path"]: i for i in first["items"]}
    for item in summary["items"]:
        if before[item["path"]]["status"] == "analysed":
            assert item["status"] == "resumed" and item["evidence_ids"] == before[item["path"]]["evidence_ids"]
    assert {e.evidence_id for e in parse_bundle(json.loads(fresh.read_bytes())).unwrap().records} == {
        e.evidence_id for e in parse_bundle(json.loads(out.read_bytes())).unwrap().records
    }
    assert not any(i["error_code"] == "provider_timeout" for i in summary["items"] if i["status"] != "failed" or
                   before[i["path"]]["status"] != "failed")  # fmt: skip


@pytest.mark.slow
def test_an_item_past_its_deadline_or_memory_ceiling_fails_alone(corpus, tmp_path):
    root, _ = corpus
    listing = tmp_path / "list.txt"
    listing.write_text(f"# two executables and a missing file\n{root}/native/elf2\n\n{root}/native/elf3\nnowhere.bin\n")
    code, body, _ = batch(f"@{listing}", "--out", str(tmp_path / "b.json"), "--item-deadline-ms", "1",
                          "--format", "json")  # fmt: skip
    assert code == 1
    codes = {Path(i["path"]).name: i["error_code"] for i in body["items"]}
    assert codes == {"elf2": "provider_timeout", "elf3": "provider_timeout", "nowhere.bin": "target_unavailable"}
    assert body["bundle"]["records"] == 0 and parse_bundle(json.loads((tmp_path / "b.json").read_bytes()))
    code, body, _ = batch(str(root / "native" / "elf2"), "--out", str(tmp_path / "m.json"),
                          "--item-memory-mb", "32", "--format", "json")  # fmt: skip
    assert code == 1 and body["items"][0]["error_code"] == "resource_constraint"
    assert body["items"][0]["error_message"].endswith("ceiling of 32 MiB; its process was stopped.")


def test_bad_inputs_are_refused_before_any_work(tmp_path):
    code, body, _ = batch(str(tmp_path / "absent"), "--out", str(tmp_path / "b.json"), "--format", "json")
    assert code == 2 and body["error"]["code"] == "invalid_request" and "does not exist" in body["error"]["message"]
    (tmp_path / "b.json").write_text("{}")
    code, body, _ = batch(str(tmp_path), "--out", str(tmp_path / "b.json"), "--format", "json")
    assert code == 2 and body["error"]["details"]["field"] == "out"
    code, body, _ = batch(str(tmp_path), "--out", str(tmp_path / "c.json"), "--jobs", "0", "--format", "json")
    assert code == 2 and body["error"]["details"]["field"] == "--jobs"


def test_ray_absent_names_the_extra_to_install(tmp_path, monkeypatch):
    from effects.batch.ray_backend import run_ray

    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError, as without the extra
    ran = run_ray([], "auto", 1, 0, lambda answer: None)
    error = ran.failure()
    assert error.code == "capability_unavailable" and error.details["reason"] == "provider_missing"
    assert "pip install 'rea-py[ray]'" in error.to_json()["error"]["remediation"]["action"]


def _descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def _batch_process(p: psutil.Process) -> bool:
    """An item process or the warm parent forking them (a fork keeps its parent's command line)."""
    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE and "effects.batch." in " ".join(p.cmdline())
    except psutil.Error:
        return False


def _analysing(seen: dict[int, psutil.Process]) -> bool:
    """An item has been forked: a batch process whose parent is a batch process too."""
    batch = [p for p in seen.values() if _batch_process(p)]
    pids = {p.pid for p in batch}
    try:
        return any(p.ppid() in pids for p in batch)
    except psutil.Error:
        return False


def _interrupted(corpus_root: Path, out: Path, *extra: str) -> tuple[int, dict, list[psutil.Process]]:
    """Start a batch, SIGINT it once items are analysing, answer its exit, summary and every process it had."""
    proc = subprocess.Popen(
        [*rea_command(), "batch", str(corpus_root / "native"), str(corpus_root / "archives"), "--out", str(out),
         "--jobs", "2", "--format", "json", "--no-progress", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env(),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # a backgrounded suite ignores SIGINT
    )  # fmt: skip
    seen: dict[int, psutil.Process] = {}
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        for p in _descendants(proc.pid):
            seen.setdefault(p.pid, p)
        if _analysing(seen):
            break
        time.sleep(0.1)
    # signal soon after the first analysis starts: on a quiet host the whole corpus finished within the 1 s this
    # used to wait, and nothing was left to interrupt (completed == inputs)
    time.sleep(0.2)
    for p in _descendants(proc.pid):
        seen.setdefault(p.pid, p)
    proc.send_signal(signal.SIGINT)
    out_text, _ = proc.communicate(timeout=120)
    return proc.returncode, json.loads(out_text), list(seen.values())


@pytest.mark.slow
def test_sigint_stops_every_item_process_and_publishes_what_completed(corpus, tmp_path):
    root, _ = corpus
    out = tmp_path / "partial.json"
    code, summary, processes = _interrupted(root, out)
    assert code == 130 and summary["cancelled"] is True
    assert any(_batch_process(p) for p in processes) is False
    assert [p.pid for p in processes if p.is_running() and p.status() != psutil.STATUS_ZOMBIE] == []
    parsed = parse_bundle(json.loads(out.read_bytes())).unwrap()
    assert len(parsed.records) == summary["bundle"]["records"] and summary["completed"] < summary["inputs"]
    done = {i for item in summary["items"] for i in item["evidence_ids"]}
    assert {e.evidence_id for e in parsed.records} == done


@pytest.mark.slow
def test_sigint_with_atomic_publishes_nothing(corpus, tmp_path):
    root, _ = corpus
    out = tmp_path / "atomic.json"
    code, summary, processes = _interrupted(root, out, "--atomic")
    assert code == 130 and summary["bundle"] is None
    assert not out.exists() and os.listdir(tmp_path) == []  # no staging or spool left behind
    assert [p.pid for p in processes if p.is_running() and p.status() != psutil.STATUS_ZOMBIE] == []


def test_the_kind_table_and_deduplication_are_pure_and_ordered():
    assert kind_of("pe", managed=True) == "managed" and kind_of("pe", managed=False) == "native"
    assert kind_of("asar", False) == "javascript" and kind_of("javascript", False) == "javascript-file"
    assert kind_of("tar", False) == "archive" and kind_of("plist", False) == "other"
    items = [
        Identified(path="/b", sha256="1" * 64, format="elf"),
        Identified(path="/a", sha256="1" * 64, format="elf"),
        Identified(path="/c", sha256="2" * 64, format="file"),
        Identified(path="/d", error={"error": {"code": "target_unavailable", "message": "gone"}}),
    ]
    work = work_list(items)
    assert [(w.path, w.plan.kind) for w in work] == [("/a", "native")]
    rows = outcomes(items, {})
    assert [(r.path, r.status) for r in rows] == [("/c", "identified"), ("/d", "failed")]  # /a, /b never ran
    assert work_list(items, present={"1" * 64}) == []


# ------------------------------------------------------------------ Ray (a real head on 127.0.0.1)


def _kill_one_ray_task(head: dict, proc: subprocess.Popen, timeout: float = 300) -> list[psutil.Process]:
    """SIGKILL the first Ray actor seen running an item (a process its warm parent forked); answer it, its
    warm parent and the item."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        for worker in head["processes"]():
            try:
                if "ray::WarmWorker" in " ".join([worker.name(), *worker.cmdline()]):
                    warm = [c for c in worker.children() if "effects.batch.warm" in " ".join(c.cmdline())]
                    items = [i for w in warm for i in w.children()]  # forked: same command line, its child
                    if items:
                        worker.kill()
                        return [worker, *warm, *items]
            except psutil.NoSuchProcess:
                continue
        time.sleep(0.2)
    return []


@pytest.mark.slow
def test_ray_bundle_equals_the_pool_bundle_and_a_killed_worker_costs_one_item(pooled, corpus, tmp_path):
    from ray_fixtures import ray_available, ray_head

    if not ray_available():
        pytest.skip("ray is not installed (pip install 'rea-py[ray]')")
    root, _ = corpus
    _, pool_summary, pool_out = pooled
    out = tmp_path / "ray.json"
    with ray_head(num_cpus=2) as head:
        proc = subprocess.Popen(
            [*rea_command(), "batch", str(root), "--out", str(out), "--ray", head["address"], "--jobs", "2",
             "--retries", "2", "--format", "json", "--no-progress"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env(RAY_AUTH_MODE="disabled"),
        )  # fmt: skip
        killed = _kill_one_ray_task(head, proc)
        stdout, stderr = proc.communicate(timeout=900)
        summary = json.loads(stdout)
        assert killed, "no Ray worker was seen running a task"
        psutil.wait_procs(killed, timeout=30)
        assert [p.pid for p in killed if p.is_running() and p.status() != psutil.STATUS_ZOMBIE] == []
    assert summary["backend"]["name"] == "ray" and summary["completed"] == summary["inputs"] == pool_summary["inputs"]
    differ = [(a, b) for a, b in zip(pool_summary["items"], summary["items"]) if a != b]
    # the killed item was retried (then nothing differs) or failed on its own after its retries
    assert len(differ) <= 1, differ
    for _, ray_item in differ:
        assert ray_item["error_code"] == "execution_failure" and "worker" in ray_item["error_message"]
    if not differ:  # same Evidence ids in the same order: the same bytes
        assert out.read_bytes() == pool_out.read_bytes()


# ------------------------------------------------------------------ inputs shipped to Ray as objects


def test_only_path_free_plans_within_the_size_are_shipped():
    from rea.batch.items import Work

    for kind, plan in PLANS.items():
        work = Work(path="/a", sha256="0" * 64, plan=plan, size=10)
        # a plan whose Evidence records the path would change its Evidence ids if read from a copy
        assert work.shipped(10) is (not plan.path_in_evidence), kind
        assert not work.shipped(9) and not work.shipped(0)
    assert {k for k, p in PLANS.items() if p.path_in_evidence} == {"javascript", "managed", "wasm"}


def test_a_shipped_item_answers_what_reading_its_path_answers(corpus, tmp_path):
    """The worker's side of shipping without Ray: the original path no longer exists (as on a node
    without the corpus), the bytes arrive, and the answer equals the answer read at the path."""
    import tempfile

    from effects.batch.shipping import run_item_anywhere
    from effects.batch.task import run_item

    root, _ = corpus
    for rel in ("native/elf2", "archives/z0.zip", "archives/demo.apk"):
        original = tmp_path / Path(rel).name
        original.write_bytes((root / rel).read_bytes())
        items = [Identified(path=str(original), sha256=hashlib.sha256(original.read_bytes()).hexdigest(),
                            size=original.stat().st_size, format=fmt)
                 for fmt in [{"elf2": "elf", "z0.zip": "zip", "demo.apk": "apk"}[original.name]]]  # fmt: skip
        (work,) = work_list(items)
        assert work.shipped(2**20)
        request = work.request(300_000, 4096)
        at_path = run_item(request)
        data = original.read_bytes()
        original.unlink()
        before = set(os.listdir(tempfile.gettempdir()))
        shipped = run_item_anywhere(request, data)
        assert shipped == at_path and at_path["evidence"] and at_path["error"] is None, rel
        assert {r["subject"]["local_path"] for r in shipped["evidence"]} == {str(original)}
        assert not [n for n in set(os.listdir(tempfile.gettempdir())) - before if n.startswith("rea-shipped-")]
        changed = run_item_anywhere(request, data + b"x")
        assert changed["evidence"] == [] and changed["error"]["error"]["code"] == "target_unavailable"
        assert request["sha256"] in changed["error"]["error"]["message"]


def test_shipping_is_refused_without_ray(tmp_path):
    code, body, _ = batch(str(tmp_path), "--out", str(tmp_path / "b.json"), "--ship-max-mb", "8")
    assert code == 2 and body["error"]["code"] == "invalid_request" and "--ray" in body["error"]["message"]


@pytest.mark.slow
def test_ray_with_shipped_inputs_gives_the_pool_bundle(corpus, tmp_path):
    from ray_fixtures import ray_available, ray_head

    if not ray_available():
        pytest.skip("ray is not installed (pip install 'rea-py[ray]')")
    root, _ = corpus
    subset = tmp_path / "subset"
    subset.mkdir()
    for rel in ("native/elf2", "archives/z0.zip", "native/hello.exe", "native/m0.wasm", "broken/short.elf"):
        (subset / Path(rel).name).write_bytes((root / rel).read_bytes())
    pool_out, ray_out = tmp_path / "pool.json", tmp_path / "ray.json"
    _, pool, _ = batch(str(subset), "--out", str(pool_out), "--jobs", "2", "--format", "json")
    with ray_head(num_cpus=2) as head:
        proc = subprocess.run(
            [*rea_command(), "batch", str(subset), "--out", str(ray_out), "--ray", head["address"], "--jobs", "2",
             "--ship-max-mb", "64", "--format", "json", "--no-progress"],
            capture_output=True, text=True, timeout=900, env=clean_env(RAY_AUTH_MODE="disabled"),
        )  # fmt: skip
    shipped = json.loads(proc.stdout)
    # elf2, z0.zip and short.elf are shipped; the assembly and the module record their path, so are read in place
    assert shipped["backend"]["shipped"] == 3, shipped["backend"]
    assert shipped["items"] == pool["items"]
    assert ray_out.read_bytes() == pool_out.read_bytes()
