"""The local pool's warm parent: items are forked from one parent per pool thread (no interpreter
start per item), each item is its own process with its own deadline, and the parent is verified
gone afterwards. Real processes, a real zip analysed by the real catalog program."""

from __future__ import annotations

import hashlib
import zipfile

import psutil

from effects.batch.pool import WarmParents
from effects.batch.task import run_item
from rea.batch.kinds import plan_for
from rea.evidence import parse_evidence


def _request(path, deadline_ms=120_000):
    return {
        "path": str(path),
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
        "plan": plan_for("archive").to_json(),
        "deadline_ms": deadline_ms,
        "memory_mb": 4096,
    }


def _zip(tmp_path, name, members):
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as z:
        for member in members:
            z.writestr(member, member.encode() * 3)
    return path


def test_one_warm_parent_forks_every_item_of_its_thread_and_is_gone_after(tmp_path, monkeypatch):
    parents = WarmParents()
    forked: list[tuple[int, int]] = []
    real = parents.run

    def watched(request):
        ran = real(request)
        warm = parents.local.warm
        forked.append((warm.proc.pid, warm.count))
        return ran

    try:
        answers = [
            run_item(_request(_zip(tmp_path, f"{n}.zip", [f"m{n}.txt", "b.txt"])), runner=watched) for n in range(3)
        ]
    finally:
        warms = list(parents.all)
        parents.stop()
    assert [a["error"] for a in answers] == [None, None, None]
    assert all(a["evidence"] for a in answers)
    for answer in answers:  # each item analysed its own bytes (ids recomputed by the strict parser)
        subjects = {parse_evidence(e).unwrap().subject for e in answer["evidence"]} - {None}
        assert {s.sha256 for s in subjects} == {answer["sha256"]}
    assert len({pid for pid, _ in forked}) == 1 and [count for _, count in forked] == [1, 2, 3]
    assert len(warms) == 1 and not psutil.pid_exists(warms[0].proc.pid)
    assert not warms[0].dir.exists()  # reply and stderr files removed with it


def test_an_item_past_its_deadline_is_stopped_and_the_warm_parent_serves_the_next(tmp_path):
    parents = WarmParents()
    try:
        late = run_item(_request(_zip(tmp_path, "a.zip", ["a.txt"]), deadline_ms=1), runner=parents.run)
        after = run_item(_request(_zip(tmp_path, "b.zip", ["b.txt"])), runner=parents.run)
        warm_pids = [w.proc.pid for w in parents.all]
    finally:
        parents.stop()
    assert late["error"]["error"]["code"] == "provider_timeout"
    assert after["error"] is None and after["evidence"]
    assert len(warm_pids) == 1 and not psutil.pid_exists(warm_pids[0])
