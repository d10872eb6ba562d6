"""Pure graph, parsing and programs driven with scripted reader facts (no IO)."""

from __future__ import annotations

import copy

import attrs
import orjson
from returns.result import Failure, Success

from rea.artifacts import build_inventory, compare_inventories, parse_inventory, programs
from rea.artifacts.graph import page_inventory
from rea.artifacts.model import EntryFact, ExtractArtifact, InventoryArtifact, InventoryFacts, Limits, Omission
from rea.artifacts.records import ExtractArgs, InspectArgs, InventoryArgs
from rea.errors import ReaError
from rea.session import Session, Target, open_target
from rea.wire.convert import structure
from scripted import SCRIPTED_STAMP, drive

SHA = "ab" * 32


def facts(entries=(), **kw) -> InventoryFacts:
    return InventoryFacts(
        root_name="app.zip", root_sha256=SHA, root_size=100, root_format="zip", entries=tuple(entries), **kw
    )


def file(index, path, data_sha, parent=None, **kw) -> EntryFact:
    return EntryFact(
        index=index,
        parent=parent,
        logical_path=path,
        entry_kind="file",
        sha256=data_sha,
        size=3,
        hash_status=kw.pop("hash_status", "verified"),
        **kw,
    )


def opened() -> Session:
    return open_target(
        Session(),
        Target(
            path="/t/app.zip", name="app.zip", sha256=SHA, size=100, format="zip", kind="file", stamp=SCRIPTED_STAMP
        ),
        "run-1",
        None,
    )


def test_program_builds_evidence_from_scripted_facts():
    scripted = facts([file(0, "a.txt", "01" * 32), file(1, "b.txt", "02" * 32)])
    outcome, effects = drive(
        programs.inventory_artifact,
        opened(),
        structure({"occurrence_limit": 1}, InventoryArgs).unwrap(),
        lambda e: Success(scripted) if isinstance(e, InventoryArtifact) else None,
    )
    evidence = outcome.reply.unwrap()
    assert [type(e).__name__ for e in effects] == ["StampTarget", "ReportProgress", "InventoryArtifact", "StampTarget"]
    assert evidence["operation"] == "inventory_artifact" and evidence["evidence_id"] in outcome.session.evidence
    occ = evidence["normalized_result"]["occurrences"]
    assert (occ["total"], occ["limit"], occ["next_offset"]) == (3, 1, 1)
    assert evidence["analysis_profile"]["parameters"]["integrity_policy"] == "fail"


def test_reader_failure_passes_through_and_session_is_unchanged():
    session = opened()
    error = ReaError(code="artifact_integrity_mismatch", message="x", details={"logical_path": "a"})
    args = structure({}, InspectArgs).unwrap()
    outcome, _ = drive(programs.inspect_artifact, session, args, lambda e: Failure(error))
    assert outcome.reply.failure() is error and outcome.session is session


def test_extract_asks_for_the_chain_of_the_selected_nested_occurrence():
    scripted = facts([file(0, "lib/x.whl", "01" * 32, format="zip"), file(1, "pkg/m.py", "02" * 32, parent=0)])
    complete = build_inventory(scripted, Limits())
    target = next(o for o in complete["occurrences"] if o["logical_path"] == "pkg/m.py")
    asked = []

    def answer(effect):
        if isinstance(effect, InventoryArtifact):
            return Success(scripted)
        if isinstance(effect, ExtractArtifact):
            asked.append(effect.chains)
            return Failure(ReaError(code="cancelled", message="stop"))
        return None

    args = structure({"occurrence_ids": [target["occurrence_id"]]}, ExtractArgs).unwrap()
    outcome, _ = drive(programs.extract_artifact, opened(), args, answer)
    assert asked == [(("lib/x.whl", "pkg/m.py"),)] and outcome.reply.failure().code == "cancelled"


def test_ids_do_not_depend_on_reader_order():
    a = facts([file(0, "a", "01" * 32), file(1, "b", "02" * 32)])
    b = facts([file(0, "b", "02" * 32), file(1, "a", "01" * 32)])
    assert build_inventory(a, Limits()) == build_inventory(b, Limits())


def test_omissions_and_limits_make_coverage_unknown_but_case_diagnostics_do_not():
    cased = build_inventory(facts([file(0, "A.txt", "01" * 32), file(1, "a.txt", "02" * 32)]), Limits())
    assert cased["coverage"]["status"] == "complete" and len(cased["occurrences"]) == 3
    omitted = build_inventory(
        facts(
            [file(0, "a", "01" * 32)],
            omissions=(
                Omission(logical_path="dev", entry_type="character device", reason="special files are never opened"),
            ),
        ),
        Limits(),
    )
    assert omitted["coverage"] == {"scope": "container-entries", "status": "unknown"}
    assert omitted["coverage_status"] == "partial"


def test_parse_normalizes_legacy_and_rejects_conflicts():
    current = page_inventory(build_inventory(facts([file(0, "a", "01" * 32)]), Limits()), {})
    legacy = {k: v for k, v in current.items() if k != "coverage"}
    assert parse_inventory(legacy).unwrap()["coverage"] == current["coverage"]
    root_legacy = dict(legacy, coverage_status="complete", limitations=["Root-only inventory: ..."])
    assert parse_inventory(root_legacy).unwrap()["coverage"] == {"scope": "root", "status": "complete"}
    silent = {k: v for k, v in legacy.items() if k != "coverage_status"}
    assert parse_inventory(silent).unwrap()["coverage"]["status"] == "unknown"
    conflict = dict(current, coverage_status="partial")
    assert parse_inventory(conflict).failure().code == "evidence_integrity_mismatch"
    assert parse_inventory(dict(current, coverage={"scope": "everything", "status": "complete"})).failure()


def test_compare_rules():
    base = facts([file(0, "a", "01" * 32), file(1, "b", "02" * 32)])
    inv = parse_inventory(page_inventory(build_inventory(base, Limits()), {})).unwrap()
    assert compare_inventories(inv, inv)["status"] == "unchanged"
    unknown = copy.deepcopy(inv)
    unknown["coverage"] = {"scope": "container-entries", "status": "unknown"}
    assert compare_inventories(inv, unknown)["status"] == "unknown"
    scoped = copy.deepcopy(inv)
    scoped["coverage"] = {"scope": "root", "status": "complete"}
    assert compare_inventories(inv, scoped)["status"] == "unknown"
    missing = copy.deepcopy(inv)
    missing["occurrences"]["items"] = missing["occurrences"]["items"][:-1]
    assert compare_inventories(inv, missing)["status"] == "truncated"
    mismatched = facts(
        [file(0, "a", "01" * 32, hash_status="mismatched", declared_sha256="09" * 32), file(1, "b", "02" * 32)]
    )
    bad = parse_inventory(page_inventory(build_inventory(mismatched, Limits()), {})).unwrap()
    result = compare_inventories(inv, bad)
    assert result["status"] == "contradiction" and result["summary"]["contradiction"] == 1
    unhashed = facts([file(0, "a", None, hash_status="not-hashed-limit"), file(1, "b", "02" * 32)])
    u = parse_inventory(page_inventory(build_inventory(unhashed, Limits()), {})).unwrap()
    # an unavailable occurrence hash is uncertainty, never a change: the member is "unknown", and so is the whole
    for compared in (compare_inventories(inv, u), compare_inventories(u, inv)):
        assert compared["status"] == "unknown"
        assert [(c["logical_path"], c["classification"]) for c in compared["changes"]] == [("a", "unknown")]
        assert compared["summary"]["changed"] == 0 and compared["summary"]["unchanged"] == 1
        assert any("hash is unavailable" in line for line in compared["uncertainty"])


def test_pages_of_one_inventory_must_share_manifest_and_coverage():
    from rea.artifacts.inventory_parsing import merge_pages

    complete = build_inventory(facts([file(0, "a", "01" * 32), file(1, "b", "02" * 32)]), Limits())
    first = parse_inventory(page_inventory(complete, {"occurrences": (0, 1)})).unwrap()
    second = parse_inventory(page_inventory(complete, {"occurrences": (1, 5)})).unwrap()
    merged = merge_pages([first, second]).unwrap()
    assert len(merged["occurrences"]["items"]) == 3
    relabelled = dict(second, coverage={"scope": "container-entries", "status": "unknown"}, coverage_status="partial")
    assert "different coverage" in merge_pages([first, relabelled]).failure().message
    other = build_inventory(facts([file(0, "c", "03" * 32)]), Limits())
    foreign = parse_inventory(page_inventory(other, {})).unwrap()
    assert "different inventories" in merge_pages([first, foreign]).failure().message


def test_compare_is_importable_from_rea():
    from rea import compare_artifacts, compare_inventories
    from rea.artifacts import compare
    from rea.library import comparisons

    assert compare_artifacts is comparisons.compare_artifacts and compare_inventories is compare.compare_inventories


def test_max_integrity_mismatches_caps_recorded_contradictions_with_truncated():
    bad = {"hash_status": "mismatched", "declared_sha256": "ee" * 32}
    scripted = facts([file(0, "a.bin", "01" * 32, **bad), file(1, "b.bin", "02" * 32, **bad)])

    def run(cap):
        args = {"integrity_policy": "record-and-continue", **({"max_integrity_mismatches": cap} if cap else {})}
        return drive(
            programs.inspect_artifact,
            opened(),
            structure(args, InspectArgs).unwrap(),
            lambda e: Success(scripted) if isinstance(e, InventoryArtifact) else None,
        )[0].reply

    refused = run(1).failure()
    assert refused.code == "truncated" and refused.details["limit"] == "max_integrity_mismatches"
    result = run(2).unwrap()["normalized_result"]
    assert len(result["contradictions"]) == 2 and [o["kind"] for o in result["observations"]] == [
        "root-manifest",
        "integrity",
        "integrity",
    ]
    assert result["coverage"]["status"] == "partial"  # the traversal coverage is unknown past a contradiction


def test_inspection_caps_omit_records_and_say_truncated():
    scripted = facts([file(0, "a.txt", "01" * 32)])
    args = structure({"max_observations": 1, "max_next_probes": 1}, InspectArgs).unwrap()
    session = open_target(
        Session(),
        Target(
            path="/t/app.asar", name="app.asar", sha256=SHA, size=100, format="asar", kind="file", stamp=SCRIPTED_STAMP
        ),
        "run-1",
        None,
    )
    asar = attrs.evolve(scripted, root_format="asar")
    reply = drive(
        programs.inspect_artifact, session, args, lambda e: Success(asar) if isinstance(e, InventoryArtifact) else None
    )[0].reply
    result = reply.unwrap()["normalized_result"]
    assert [p["operation"] for p in result["next_probes"]] == ["analyze_javascript_application"]
    assert result["coverage"]["next_probes_omitted"] == 1 and result["coverage"]["status"] == "truncated"
    assert result["hypotheses"][0]["confidence"] == "low"


# ------------------------------------------------------------------ the inventory retained between calls


def _walks(effects) -> int:
    return sum(isinstance(e, InventoryArtifact) for e in effects)


def _scripted_reader(scripted, stamps=None, identified=None):
    """Answers the reader with `scripted`, StampTarget from `stamps` (a list consumed in order), IdentifyTarget
    with `identified`."""
    from rea.program import IdentifyTarget, StampTarget, TargetFacts, TargetStamp

    def answer(effect):
        if isinstance(effect, InventoryArtifact):
            return Success(scripted)
        if isinstance(effect, StampTarget):
            given = stamps.pop(0) if stamps else SCRIPTED_STAMP
            return Success(given if isinstance(given, TargetStamp) else TargetStamp(own=given))
        if isinstance(effect, IdentifyTarget):
            return Success(
                TargetFacts(path=effect.path, kind="file", sha256=identified, size=100, format="zip", stamp="moved")
            )
        return None

    return answer


def _page(session, answer, **args):
    from rea.program import StampTarget

    args = structure(args, InventoryArgs).unwrap()
    return drive(programs.inventory_artifact, session, args, answer, answers=(StampTarget,))


TWO = facts([file(0, "a.txt", "01" * 32), file(1, "b.txt", "02" * 32)])


def test_a_second_page_is_served_from_the_retained_inventory_without_a_walk():
    first, effects = _page(opened(), _scripted_reader(TWO), occurrence_limit=1)
    assert _walks(effects) == 1 and len(first.session.inventories) == 1
    second, effects = _page(first.session, _scripted_reader(TWO), occurrence_offset=1, occurrence_limit=1)
    assert [type(e).__name__ for e in effects] == ["StampTarget"]  # a stat, no read
    fresh, _ = _page(opened(), _scripted_reader(TWO), occurrence_offset=1, occurrence_limit=1)
    assert second.reply.unwrap() == fresh.reply.unwrap()  # the same Evidence a walk would give
    summary, effects = drive(
        programs.inspect_artifact, second.session, structure({"detail": "summary"}, InspectArgs).unwrap()
    )
    assert _walks(effects) == 0 and summary.reply.unwrap()["operation"] == "inspect_analysis_view"


def test_a_moved_stamp_is_settled_by_the_digest():
    first, _ = _page(opened(), _scripted_reader(TWO))
    # touched: the stamp moved, the bytes hash the same; served without a walk, the new stamp remembered
    touched, effects = _page(first.session, _scripted_reader(TWO, ["touched"], identified=SHA))
    assert [type(e).__name__ for e in effects] == ["StampTarget", "ReportProgress", "IdentifyTarget"]
    assert touched.reply.unwrap() == first.reply.unwrap() and touched.session.target.stamp == "moved"
    # rewritten: another digest; refused with the two digests, nothing read, the session unchanged
    changed, effects = _page(first.session, _scripted_reader(TWO, ["rewritten"], identified="cd" * 32))
    error = changed.reply.failure()
    assert _walks(effects) == 0 and changed.session is first.session
    assert (error.code, error.details["reason"]) == ("target_unavailable", "target_changed")
    assert (error.details["expected_sha256"], error.details["observed_sha256"]) == (SHA, "cd" * 32)


def test_what_shapes_the_inventory_keys_it():
    first, _ = _page(opened(), _scripted_reader(TWO))
    for args in ({"max_entries": 5}, {"integrity_policy": "record-and-continue"}):
        _, effects = _page(first.session, _scripted_reader(TWO), **args)
        assert _walks(effects) == 1, args
    # an .asar.unpacked companion is outside the digest: its own stamp is part of the key
    from rea.program import TargetStamp

    beside = [TargetStamp(own=SCRIPTED_STAMP, companion="unpacked-1")] * 2
    kept = _page(opened(), _scripted_reader(TWO, list(beside)))[0].session
    assert _walks(_page(kept, _scripted_reader(TWO, list(beside)))[1]) == 0
    moved = [TargetStamp(own=SCRIPTED_STAMP, companion="unpacked-2")] * 2
    assert _walks(_page(kept, _scripted_reader(TWO, moved))[1]) == 1
    # moved during the walk: the result is answered, not retained
    moved, effects = _page(opened(), _scripted_reader(TWO, [SCRIPTED_STAMP, "during"]))
    assert _walks(effects) == 1 and moved.reply.unwrap() and moved.session.inventories == ()
    # at most two are kept, the oldest dropped first
    session = first.session
    for entries in (3, 4, 5):
        session = _page(session, _scripted_reader(TWO), max_entries=entries)[0].session
    assert [orjson.loads(k.key[2])["limits"]["max_entries"] for k in session.inventories] == [4, 5]


def test_extraction_resolves_occurrence_ids_from_the_retained_inventory():
    first, _ = _page(opened(), _scripted_reader(TWO))
    occ = next(
        o for o in first.reply.unwrap()["normalized_result"]["occurrences"]["items"] if o["logical_path"] == "b.txt"
    )
    asked = []

    def answer(effect):
        if isinstance(effect, ExtractArtifact):
            asked.append(effect.chains)
            return Failure(ReaError(code="cancelled", message="stop"))
        return _scripted_reader(TWO)(effect)

    args = structure({"occurrence_ids": [occ["occurrence_id"]]}, ExtractArgs).unwrap()
    _, effects = drive(programs.extract_artifact, first.session, args, answer)
    assert _walks(effects) == 0 and asked == [(("b.txt",),)]
