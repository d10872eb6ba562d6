"""Real readers on archives made by their real producers, through the real programs and handlers."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest
from returns.result import Success

from artifact_fixtures import (
    call,
    inventory,
    make_ar,
    make_tar,
    make_zip,
    occurrences,
    pack_asar,
    run_tools,
    substep,
    wheel_bytes,
)


@pytest.fixture(autouse=True)
def _private_tempdir(tmp_path, monkeypatch):
    """Extractions land in this test's own directory instead of the host's /tmp."""
    scratch = tmp_path / "_tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))


FILES = {"A.txt": b"upper", "a.txt": b"lower", "bin/run.sh": b"#!/bin/sh\necho hi\n", "data/x.json": b"{}"}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_zip_graph_case_distinct_nested_wheel_and_executable(tmp_path):
    inner = wheel_bytes({"pkg/__init__.py": b"print('inner')", "pkg-1.0.dist-info/RECORD": b""})
    outer = make_zip(
        tmp_path / "outer-1.0-py3-none-any.whl",
        {**FILES, "vendor/inner-1.0-py3-none-any.whl": inner},
        modes={"bin/run.sh": 0o100755},
    )
    ev = inventory(outer)
    result = ev["normalized_result"]
    occ = occurrences(ev)
    assert result["inventory_coverage"] == {"scope": "container-entries", "status": "complete"}
    assert result["coverage_status"] == "complete"
    assert occ["A.txt"]["occurrence_id"] != occ["a.txt"]["occurrence_id"]
    assert any("Case-distinct members A.txt, a.txt" in text for text in result["limitations"])
    assert occ["bin/run.sh"]["executable"] is True and occ["A.txt"]["executable"] is False
    assert occ["pkg/__init__.py"]["hash_status"] == "verified"  # expanded from the nested wheel
    nodes = {n["sha256"]: n for n in substep(result)["nodes"]["items"]}
    assert _sha(b"upper") in nodes and nodes[_sha(inner)]["format"] == "whl"
    manifest = substep(result)["manifest"]
    assert manifest["manifest_id"].startswith("agm_") and manifest["node_count"] == len(nodes)
    assert all(e["edge_id"].startswith("edge_") for e in substep(result)["edges"]["items"])
    # identity is content: the same bytes in a new file with another name give the same manifest
    copy = tmp_path / "renamed.whl"
    copy.write_bytes(outer.read_bytes())
    again = inventory(copy)["normalized_result"]["substeps"][0]["evidence"]["normalized_result"]
    assert (
        again["manifest"] == manifest
        and again["occurrences"]["items"][1:] == substep(result)["occurrences"]["items"][1:]
    )


@pytest.mark.parametrize(
    "mode,name",
    [("w:gz", "p.tar.gz"), ("w:bz2", "p.tar.bz2"), ("w:xz", "p.tar.xz"), ("w:zst", "p.tar.zst"), ("w", "p.tar")],
)
def test_tar_compressions_report_the_same_members(tmp_path, mode, name):
    ev = inventory(make_tar(tmp_path / name, FILES, mode))
    occ = occurrences(ev)
    assert {p: o["artifact_id"] for p, o in occ.items() if p in FILES} == {
        p: occurrences(inventory(make_zip(tmp_path / "ref.zip", FILES)))[p]["artifact_id"] for p in FILES
    }
    assert occ["bin/run.sh"]["executable"] is True
    assert ev["normalized_result"]["inventory_coverage"]["status"] == "complete"


def test_deb_is_ar_with_nested_tars(tmp_path):
    control = io.BytesIO()
    data = tmp_path / "data.tar.xz"
    make_tar(data, {"usr/bin/tool": b"\x7fELF" + b"\0" * 60}, "w:xz")
    from artifact_fixtures import make_tar_into

    make_tar_into(control, {"control": b"Package: x\n"}, "w:gz")
    deb = make_ar(
        tmp_path / "x_1.0_amd64.deb",
        {"debian-binary": b"2.0\n", "control.tar.gz": control.getvalue(), "data.tar.xz": data.read_bytes()},
        tmp_path / "ar",
    )
    ev = inventory(deb)
    occ = occurrences(ev)
    assert ev["normalized_result"]["substeps"][0]["evidence"]["normalized_result"]["manifest"]["root_format"] == "ar"
    assert {"debian-binary", "control.tar.gz", "data.tar.xz", "control", "usr/bin/tool"} <= set(occ)
    nodes = {
        n["sha256"]: n
        for n in ev["normalized_result"]["substeps"][0]["evidence"]["normalized_result"]["nodes"]["items"]
    }
    assert nodes[_sha(b"\x7fELF" + b"\0" * 60)]["format"] == "elf"


def test_crx_header_is_skipped(tmp_path):
    body = make_zip(tmp_path / "body.zip", {"manifest.json": b"{}"}).read_bytes()
    header = b"proto-header-bytes"
    crx = tmp_path / "ext.crx"
    crx.write_bytes(b"Cr24" + (3).to_bytes(4, "little") + len(header).to_bytes(4, "little") + header + body)
    ev = inventory(crx)
    occ = occurrences(ev)
    assert occ["manifest.json"]["hash_status"] == "verified"
    assert ev["normalized_result"]["substeps"][0]["evidence"]["normalized_result"]["manifest"]["root_format"] == "crx"


@pytest.mark.parametrize("ext", ["aab", "aar", "apk", "jar", "whl", "zip"])
def test_zip_packages_are_named_by_their_extension(tmp_path, ext):
    ev = inventory(make_zip(tmp_path / f"pkg.{ext}", {"a.txt": b"a"}))
    assert ev["normalized_result"]["substeps"][0]["evidence"]["normalized_result"]["manifest"]["root_format"] == ext
    assert ev["subject"]["format"] == ext
    assert occurrences(ev)["a.txt"]["hash_status"] == "verified"


@pytest.mark.slow
def test_a_wheel_built_by_pip_is_a_whl(tmp_path):
    """pip builds the wheel in an isolated environment (it fetches setuptools from PyPI)."""
    project = tmp_path / "proj"
    (project / "tiny").mkdir(parents=True)
    (project / "tiny" / "__init__.py").write_text("VALUE = 1\n")
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = '
        '"setuptools.build_meta"\n[project]\nname = "tiny"\nversion = "1.0"\n'
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(project)],
        check=True,
        capture_output=True,
        timeout=120,
    )
    wheel = next((tmp_path / "dist").glob("tiny-1.0-*.whl"))
    ev = inventory(wheel)
    assert ev["normalized_result"]["substeps"][0]["evidence"]["normalized_result"]["manifest"]["root_format"] == "whl"
    assert {"tiny/__init__.py", "tiny-1.0.dist-info/METADATA", "tiny-1.0.dist-info/RECORD"} <= set(occurrences(ev))


def test_directory_symlinks_recorded_special_files_omitted(tmp_path):
    root = tmp_path / "app"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "f.txt").write_bytes(b"f")
    (root / "link").symlink_to("/etc/passwd")
    os.mkfifo(root / "pipe")
    make_zip(root / "nested.apk", {"classes.dex": b"dex\n035\0"})
    ev = inventory(root)
    occ = occurrences(ev)
    result = ev["normalized_result"]
    assert occ["link"]["entry_kind"] == "symlink" and occ["link"]["artifact_id"] is None
    assert any("/etc/passwd" in t for t in occ["link"]["limitations"])
    assert "pipe" not in occ and result["inventory_coverage"]["status"] == "unknown"
    assert substep(result)["omitted_entries"] == [
        {"logical_path": "pipe", "entry_type": "FIFO", "reason": "special files are never opened"}
    ]
    assert any("pipe" in t and "FIFO" in t for t in result["limitations"])
    assert occ["classes.dex"]["hash_status"] == "verified"  # the APK inside the directory was expanded


def test_limits_make_coverage_unknown_and_say_which(tmp_path):
    many = make_zip(tmp_path / "many.zip", {f"f{i}.txt": b"x" for i in range(50)})
    result = inventory(many, max_entries=10)["normalized_result"]
    assert result["inventory_coverage"]["status"] == "unknown" and result["coverage_status"] == "partial"
    assert substep(result)["limit_hits"][0]["limit"] == "max_entries"
    bomb = make_zip(tmp_path / "bomb.zip", {"zeros.bin": b"\0" * (20 << 20)})
    result = inventory(bomb, max_compression_ratio=50)["normalized_result"]
    occ = {o["logical_path"]: o for o in substep(result)["occurrences"]["items"]}
    assert occ["zeros.bin"]["hash_status"] == "not-hashed-limit"
    assert substep(result)["limit_hits"][0]["limit"] == "max_compression_ratio"
    nested = make_zip(tmp_path / "n.zip", {"inner.zip": wheel_bytes({"deep.txt": b"d"})})
    result = inventory(nested, max_depth=0)["normalized_result"]
    assert "deep.txt" not in {o["logical_path"] for o in substep(result)["occurrences"]["items"]}
    assert substep(result)["limit_hits"][0]["limit"] == "max_depth"


def test_unsafe_member_names_are_refused_and_recorded(tmp_path):
    path = tmp_path / "evil.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("../escape.txt", b"no")
        zf.writestr("/abs.txt", b"no")
        zf.writestr("ok.txt", b"yes")
    ev = inventory(path)
    result = ev["normalized_result"]
    assert set(occurrences(ev)) == {"evil.zip", "ok.txt"}
    reasons = {o["logical_path"]: o["reason"] for o in substep(result)["omitted_entries"]}
    assert "contains a .. segment" in reasons["../escape.txt"] and "absolute" in reasons["/abs.txt"]
    assert result["inventory_coverage"]["status"] == "unknown"


def test_extract_materializes_nested_members_inside_a_fresh_temp_dir(tmp_path):
    inner = wheel_bytes({"pkg/mod.py": b"VALUE = 1\n"})
    outer = make_zip(tmp_path / "o.whl", {"vendor/i.whl": inner, "top.txt": b"top"})
    replies, conn = run_tools([("open_binary", {"path": str(outer)}), ("inspect_artifact", {})])
    occ = occurrences(replies[1].unwrap())
    ids = [occ["pkg/mod.py"]["occurrence_id"], occ["top.txt"]["occurrence_id"]]
    reply, conn = call("extract_artifact", {"occurrence_ids": ids}, conn)
    result = reply.unwrap()["normalized_result"]
    root = Path(result["output_root"])
    assert root.is_dir() and str(root.resolve()).startswith(os.path.realpath(tempfile.gettempdir()))
    written = {f["relative_path"]: f for f in result["artifacts"]}
    assert (root / "vendor/i.whl!/pkg/mod.py").read_bytes() == b"VALUE = 1\n"
    assert written["top.txt"]["sha256"] == _sha(b"top") and result["containment_verified"] is True
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    assert files == ["top.txt", "vendor/i.whl!/pkg/mod.py"]
    bad, _ = call("extract_artifact", {"occurrence_ids": ["occ_" + "0" * 64]}, conn)
    assert bad.failure().code == "invalid_request"
    dirs = make_zip(tmp_path / "d.zip", {"d/": b"", "d/f": b"f"})
    replies, conn = run_tools([("open_binary", {"path": str(dirs)}), ("inspect_artifact", {})])
    refused, _ = call(
        "extract_artifact", {"occurrence_ids": [occurrences(replies[1].unwrap())["d"]["occurrence_id"]]}, conn
    )
    assert refused.failure().code == "invalid_request" and "directory" in refused.failure().message


def test_extract_stops_a_bomb_and_leaves_nothing(tmp_path):
    bomb = make_zip(tmp_path / "bomb.zip", {"zeros.bin": b"\0" * (8 << 20)})
    replies, conn = run_tools([("open_binary", {"path": str(bomb)}), ("inspect_artifact", {})])
    occ = occurrences(replies[1].unwrap())["zeros.bin"]
    reply, _ = call("extract_artifact", {"occurrence_ids": [occ["occurrence_id"]], "max_entry_bytes": 1 << 20}, conn)
    error = reply.failure()
    assert error.code == "truncated" and error.details["limit"] == "max_entry_bytes"
    before = _extract_dirs()
    reply, _ = call("extract_artifact", {"max_entry_bytes": 1 << 20}, conn)  # {}: every file, the bomb included
    assert reply.failure().code == "truncated" and reply.failure().details["logical_path"] == "zeros.bin"
    assert _extract_dirs() == before  # nothing published, not even an empty directory


def _extract_dirs() -> set[str]:
    return {p for p in os.listdir(tempfile.gettempdir()) if p.startswith("rea-extract-")}


def test_a_member_the_walk_did_not_write_fails_the_effect_and_removes_its_directory(tmp_path):
    import anyio

    from effects.artifacts import extract
    from effects.progress import Progress
    from rea.artifacts.model import ExtractArtifact, Limits

    z = make_zip(tmp_path / "z.zip", {"a.txt": b"a"})
    before = _extract_dirs()
    effect = ExtractArtifact(path=str(z), chains=(("a.txt",), ("gone.txt",)), limits=Limits())
    got = anyio.run(extract, effect, Progress(None))
    assert got.failure().code == "artifact_operation_failed" and got.failure().details == {"logical_path": "gone.txt"}
    assert _extract_dirs() == before


def test_no_target_and_plain_file_root_scope(tmp_path):
    reply, _ = call("inventory_artifact", {})
    assert reply.failure().code == "target_unavailable"
    plain = tmp_path / "notes.txt"
    plain.write_bytes(b"hello")
    result = inventory(plain)["normalized_result"]
    assert result["inventory_coverage"] == {"scope": "root", "status": "complete"}
    assert any("Root-only" in t for t in result["limitations"])
    dmg = tmp_path / "x.dmg"
    dmg.write_bytes(b"\0" * 1024 + b"koly")
    result = inventory(dmg)["normalized_result"]
    assert substep(result)["manifest"]["root_format"] == "dmg" and result["inventory_coverage"]["scope"] == "root"
    assert any(
        "DMG contents are not enumerated" in t for n in substep(result)["nodes"]["items"] for t in n["limitations"]
    )


def test_corrupt_archive_is_a_canonical_error(tmp_path):
    bad = tmp_path / "broken.zip"
    bad.write_bytes(b"PK\x03\x04" + b"\xff" * 100)
    replies, _ = run_tools([("open_binary", {"path": str(bad)}), ("inspect_artifact", {})])
    assert replies[1].failure().code == "artifact_operation_failed"
    assert replies[1].failure().details["path"] == str(bad)


# ---------------------------------------------------------------- ASAR


def _app(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "lib").mkdir(parents=True)
    (src / "native").mkdir()
    (src / "lib" / "main.js").write_bytes(b"require('./x')\n")
    (src / "package.json").write_bytes(b'{"name":"app","main":"lib/main.js"}')
    (src / "native" / "addon.node").write_bytes(b"\x7fELF" + os.urandom(2000))
    return pack_asar(src, tmp_path / "app.asar", unpack="*.node")


def test_asar_packed_and_unpacked_entries_verify(tmp_path):
    asar = _app(tmp_path)
    ev = inventory(asar)
    occ = occurrences(ev)
    assert ev["normalized_result"]["inventory_coverage"]["status"] == "complete"
    assert occ["lib/main.js"]["hash_status"] == "verified" and occ["lib/main.js"]["source_location"] is not None
    assert occ["native/addon.node"]["unpacked"] is True and occ["native/addon.node"]["hash_status"] == "verified"


def test_asar_unpacked_mismatch_fails_closed_then_record_and_continue(tmp_path):
    asar = _app(tmp_path)
    companion = tmp_path / "app.asar.unpacked" / "native" / "addon.node"
    companion.write_bytes(companion.read_bytes() + b"signature")  # what codesign does after packing
    replies, conn = run_tools([("open_binary", {"path": str(asar)}), ("inspect_artifact", {})])
    error = replies[1].failure()
    assert error.code == "artifact_integrity_mismatch"
    assert error.details["logical_path"] == "native/addon.node" and error.details["unpacked"] is True
    assert error.details == {  # the reference's strict detail shape, nothing else
        "logical_path": "native/addon.node",
        "declared_sha256": error.details["declared_sha256"],
        "calculated_sha256": _sha(companion.read_bytes()),
        "unpacked": True,
    }
    assert "sign or strip" in error.message and "record-and-continue" in error.message
    reply, conn = call("inspect_artifact", {"integrity_policy": "record-and-continue"}, conn)
    result = reply.unwrap()["normalized_result"]
    (stated,) = result["contradictions"]
    (ic,) = substep(result)["integrity_contradictions"]
    assert stated["contradiction_id"].startswith("aic_") and stated["occurrence_id"] == ic["occurrence_id"]
    assert stated["observed_sha256"] == ic["observed_sha256"] and stated["evidence_id"] == result["evidence_links"][0]
    assert [o["kind"] for o in result["observations"]] == ["root-manifest", "integrity"]
    assert ic["contradiction_id"].startswith("ic_") and ic["unpacked"] is True
    assert ic["trust"] == "observed-untrusted" and ic["observed_sha256"] == _sha(companion.read_bytes())
    assert occurrences(reply.unwrap())["lib/main.js"]["hash_status"] == "verified"  # siblings continue
    assert result["inventory_coverage"]["status"] == "unknown"
    occ_id = occurrences(reply.unwrap())["native/addon.node"]["occurrence_id"]
    failed, _ = call("extract_artifact", {"occurrence_ids": [occ_id]}, conn)
    assert failed.failure().code == "artifact_integrity_mismatch"
    ok, _ = call("extract_artifact", {"occurrence_ids": [occ_id], "integrity_policy": "record-and-continue"}, conn)
    extracted = ok.unwrap()["normalized_result"]
    assert len(extracted["integrity_contradictions"]) == 1
    assert (Path(extracted["output_root"]) / "native/addon.node").read_bytes() == companion.read_bytes()


def test_asar_packed_tamper_and_absent_companion(tmp_path):
    asar = _app(tmp_path)
    data = bytearray(asar.read_bytes())
    data[-5] ^= 0xFF  # flip a byte inside the last packed file
    asar.write_bytes(bytes(data))
    replies, _ = run_tools([("open_binary", {"path": str(asar)}), ("inspect_artifact", {})])
    assert replies[1].failure().code == "artifact_integrity_mismatch"
    assert replies[1].failure().details["unpacked"] is False
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    asar = _app(fresh)
    (fresh / "app.asar.unpacked" / "native" / "addon.node").unlink()
    replies, conn = run_tools([("open_binary", {"path": str(asar)}), ("inspect_artifact", {})])
    occ = occurrences(replies[1].unwrap())
    assert replies[1].unwrap()["normalized_result"]["inventory_coverage"]["status"] == "unknown"
    failed, _ = call("extract_artifact", {"occurrence_ids": [occ["native/addon.node"]["occurrence_id"]]}, conn)
    assert failed.failure().code == "target_unavailable"
    assert failed.failure().details["logical_path"] == "native/addon.node"


def test_asar_inside_a_zip_is_expanded(tmp_path):
    asar = _app(tmp_path)
    z = make_zip(tmp_path / "bundle.zip", {"resources/app.asar": asar.read_bytes()})
    occ = occurrences(inventory(z))
    assert occ["lib/main.js"]["hash_status"] == "verified"
    # the unpacked companion is not inside the zip: recorded, never guessed
    assert occ["native/addon.node"]["hash_status"] == "unavailable"


# ---------------------------------------------------------------- compare and views


def test_compare_unchanged_changed_added_and_truncated(tmp_path):
    v1 = make_zip(tmp_path / "v1.zip", FILES)
    v2 = make_zip(tmp_path / "v2.zip", {**FILES, "data/x.json": b'{"v":2}', "new.txt": b"n"})
    left = inventory(v1)
    same, _ = call("compare_artifacts", {"left": left, "right": inventory(make_zip(tmp_path / "c.zip", FILES))})
    r = same.unwrap()["normalized_result"]
    assert r["status"] == "unchanged" and r["summary"]["unchanged"] == len(FILES)
    assert any("runtime behavior" in t for t in r["limitations"])
    diff, _ = call("compare_artifacts", {"left": left, "right": inventory(v2)})
    r = diff.unwrap()["normalized_result"]
    by_path = {c["logical_path"]: c for c in r["changes"]}
    assert r["status"] == "changed"
    assert by_path["data/x.json"]["classification"] == "changed" and by_path["new.txt"]["classification"] == "added"
    assert by_path["."]["dimensions"] == ["content"]  # the root is a delta too, at the reference's "."
    assert by_path["new.txt"]["dimensions"] == ["content"]
    assert all(c["evidence_links"] == [left["evidence_id"], diff.unwrap()["evidence_links"][1]] for c in r["changes"])
    mirrored, _ = call("compare_artifacts", {"left": inventory(v2), "right": left})
    m = {c["logical_path"]: c for c in mirrored.unwrap()["normalized_result"]["changes"]}
    assert m["new.txt"]["classification"] == "removed"
    # one page of a paged inventory is truncated; all its pages compare completely
    replies, conn = run_tools(
        [
            ("open_binary", {"path": str(v1)}),
            ("inventory_artifact", {"occurrence_limit": 2}),
            ("inventory_artifact", {"occurrence_offset": 2, "occurrence_limit": 100}),
        ]
    )
    page1, page2 = replies[1].unwrap(), replies[2].unwrap()
    one, _ = call("compare_artifacts", {"left": page1, "right": left})
    assert one.unwrap()["normalized_result"]["status"] == "truncated"
    both, _ = call("compare_artifacts", {"left": [page1, page2], "right": left})
    assert both.unwrap()["normalized_result"]["status"] == "unchanged"


def test_compare_root_only_and_retained_references(tmp_path):
    a = tmp_path / "a.bin"
    a.write_bytes(b"same")
    b = tmp_path / "b.bin"
    b.write_bytes(b"same")
    replies, conn = run_tools(
        [
            ("open_binary", {"path": str(a)}),
            ("inspect_artifact", {}),
            ("open_binary", {"path": str(b)}),
            ("inspect_artifact", {}),
        ]
    )
    ref = lambda r: {"kind": "retained-evidence", "evidence_id": r.unwrap()["evidence_id"]}  # noqa: E731
    reply, _ = call("compare_artifacts", {"left": ref(replies[1]), "right": ref(replies[3])}, conn)
    r = reply.unwrap()["normalized_result"]
    assert r["status"] == "unchanged" and any("root-scoped" in t for t in r["limitations"])
    b.write_bytes(b"diff")
    reply2, conn = call("open_binary", {"path": str(b)}, conn)
    changed, conn = call("inspect_artifact", {}, conn)
    reply, _ = call("compare_artifacts", {"left": ref(replies[1]), "right": ref(changed)}, conn)
    assert reply.unwrap()["normalized_result"]["status"] == "changed"


def test_views_summary_pages_and_logical_paths(tmp_path):
    z = make_zip(tmp_path / "v.zip", {f"f{i:02}.txt": bytes([i]) for i in range(70)})
    replies, conn = run_tools([("open_binary", {"path": str(z)}), ("inspect_artifact", {"detail": "summary"})])
    summary = replies[1].unwrap()
    nr = summary["normalized_result"]
    assert (
        summary["operation"] == "inspect_analysis_view"
        and nr["kind"] == "summary"
        and nr["view"] == {"kind": "summary"}
    )
    parent = nr["parent_evidence_id"]
    assert parent in conn.session.evidence and summary["evidence_links"] == [parent]
    assert nr["parent_operation"] == "inspect_artifact" and nr["artifact"]["path"] == str(z)
    s = nr["summary"]
    assert s["expected_counts"] == s["available_counts"] | {"integrity_contradictions": 0}
    assert s["entry_kinds"] == {"file": 71} and s["source_complete"] is True
    assert s["inventory_evidence_ids"][0] in conn.session.evidence
    assert nr["coverage"]["status"] == "complete-within-view" and nr["coverage"]["next_offset"] is None
    src = {"kind": "retained-evidence", "evidence_id": parent}
    occurrences = {"kind": "inventory", "facet": "occurrences"}
    page, conn = call("inspect_analysis_view", {"source": src, "view": occurrences}, conn)
    p = page.unwrap()["normalized_result"]
    assert p["view"] == {**occurrences, "offset": 0, "limit": 64}
    assert p["coverage"] == {"status": "page", "examined": 64, "total": 71, "next_offset": 64, "exhausted": False}
    none, conn = call("inspect_analysis_view", {"source": src, "view": {**occurrences, "logical_paths": []}}, conn)
    assert none.unwrap()["normalized_result"]["items"] == []
    assert none.unwrap()["normalized_result"]["coverage"]["status"] == "empty"
    some, conn = call(
        "inspect_analysis_view",
        {"source": src, "view": {**occurrences, "logical_paths": ["f03.txt", "missing"]}},
        conn,
    )
    assert [o["logical_path"] for o in some.unwrap()["normalized_result"]["items"]] == ["f03.txt"]
    inv_src = {"kind": "retained-evidence", "evidence_id": s["inventory_evidence_ids"][0]}
    nodes, conn = call(
        "inspect_analysis_view",
        {"source": inv_src, "view": {"kind": "inventory", "facet": "nodes", "offset": 70, "limit": 5}},
        conn,
    )
    assert len(nodes.unwrap()["normalized_result"]["items"]) == 1
    assert nodes.unwrap()["normalized_result"]["parent_operation"] == "inventory_artifact"
    filtered, conn = call(
        "inspect_analysis_view",
        {"source": src, "view": {"kind": "inventory", "facet": "nodes", "logical_paths": ["f03.txt"]}},
        conn,
    )
    assert filtered.failure().details["issues"][0]["path"] == ["view", "logical_paths"]
    wrong, _ = call(
        "inspect_analysis_view",
        {"source": {"kind": "retained-evidence", "evidence_id": page.unwrap()["evidence_id"]}},
        conn,
    )
    assert wrong.failure().code == "invalid_request" and "inspect_analysis_view" in wrong.failure().message
    assert isinstance(page, Success)


def test_cancelled_extraction_removes_its_directory(tmp_path, monkeypatch):
    import anyio

    from effects.calls import call_tool

    staging = tmp_path / "tmp"
    staging.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(staging))
    big = make_zip(tmp_path / "big.zip", {f"m{i}.bin": os.urandom(1 << 20) for i in range(40)})
    replies, conn = run_tools([("open_binary", {"path": str(big)}), ("inspect_artifact", {})])
    ids = [o["occurrence_id"] for p, o in occurrences(replies[1].unwrap()).items() if p.endswith(".bin")]
    seen = []

    async def main():
        async with anyio.create_task_group() as group:

            async def watch():  # cancel once the extraction directory exists and holds a file
                while not any(p.is_file() for p in staging.rglob("*")):
                    await anyio.sleep(0.001)
                seen.append("writing")
                group.cancel_scope.cancel()

            async def work():
                await call_tool(conn, "extract_artifact", {"occurrence_ids": ids}, None)
                seen.append("finished")

            group.start_soon(watch)
            group.start_soon(work)

    anyio.run(main)
    assert seen == ["writing"]
    assert list(staging.iterdir()) == []


def test_contradicted_nested_container_is_quarantined(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    inner = wheel_bytes({"inside.txt": b"hidden"})
    (src / "vendor.zip").write_bytes(inner)
    (src / "ok.js").write_bytes(b"1")
    asar = pack_asar(src, tmp_path / "q.asar")
    data = bytearray(asar.read_bytes())
    at = data.find(b"inside.txt")
    data[at] ^= 0x20  # same length, different bytes: the declared hash no longer matches
    asar.write_bytes(bytes(data))
    ev = inventory(asar, integrity_policy="record-and-continue")
    occ = occurrences(ev)
    assert occ["vendor.zip"]["hash_status"] == "mismatched"
    assert not any(p.lower() == "inside.txt" for p in occ)  # never expanded
    assert occ["ok.js"]["hash_status"] == "verified"
    assert [c["logical_path"] for c in ev["normalized_result"]["contradictions"]] == ["vendor.zip"]


def test_npm_pack_tarball(tmp_path):
    import shutil
    import subprocess

    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "package.json").write_text('{"name": "rea-fixture", "version": "1.0.0", "main": "index.js"}')
    (pkg / "index.js").write_text("module.exports = 1;\n")
    subprocess.run(
        ["npm", "pack", "--pack-destination", str(tmp_path)], cwd=pkg, check=True, capture_output=True, timeout=120
    )
    ev = inventory(tmp_path / "rea-fixture-1.0.0.tgz")
    occ = occurrences(ev)
    assert ev["normalized_result"]["substeps"][0]["evidence"]["normalized_result"]["manifest"]["root_format"] == "tar"
    assert {"package/package.json", "package/index.js"} <= set(occ)
    assert ev["normalized_result"]["inventory_coverage"]["status"] == "complete"


def test_asar_block_hashes_locate_a_change_and_catch_a_rewritten_file_hash(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    big = os.urandom(9_000_000)  # three 4 MiB integrity blocks
    (src / "big.bin").write_bytes(big)
    (src / "ok.js").write_bytes(b"1")
    asar = pack_asar(src, tmp_path / "b.asar")
    assert occurrences(inventory(asar))["big.bin"]["hash_status"] == "verified"
    data = bytearray(asar.read_bytes())
    start = bytes(data).find(big[:64])
    data[start + 5_000_000] ^= 0xFF  # a byte in block 1
    tampered = big[:5_000_000] + bytes([big[5_000_000] ^ 0xFF]) + big[5_000_001:]
    asar.write_bytes(bytes(data))
    replies, _ = run_tools([("open_binary", {"path": str(asar)}), ("inspect_artifact", {})])
    error = replies[1].failure()
    assert error.code == "artifact_integrity_mismatch" and "block 1 " in error.message
    assert set(error.details) == {"logical_path", "declared_sha256", "calculated_sha256", "unpacked"}
    ev = inventory(asar, integrity_policy="record-and-continue")
    (ic,) = substep(ev["normalized_result"])["integrity_contradictions"]
    assert any("1 of 3 integrity blocks" in note and "block 1 " in note for note in ic["limitations"])
    # a tamperer who rewrites the file's whole hash (same length, so the header keeps its size) but not
    # its blocks is still caught, by the blocks Electron checks at read time
    data = bytes(data).replace(_sha(big).encode(), _sha(tampered).encode())
    asar.write_bytes(data)
    ev = inventory(asar, integrity_policy="record-and-continue")
    occ = occurrences(ev)
    assert occ["big.bin"]["hash_status"] == "mismatched" and occ["ok.js"]["hash_status"] == "verified"
    (ic,) = substep(ev["normalized_result"])["integrity_contradictions"]
    assert ic["declared_sha256"] == ic["observed_sha256"] == _sha(tampered)
    assert any("block 1 " in note for note in ic["limitations"])


def test_names_that_are_not_unicode_are_recorded_escaped_and_still_read(tmp_path):
    """A directory entry and a tar member whose names are not UTF-8 (as old archives and file systems hold
    them): recorded with %XX escapes, their bytes still read, hashed and extractable."""
    import tarfile

    root = tmp_path / "tree"
    root.mkdir()
    with open(os.path.join(os.fsencode(root), b"caf\xe9.txt"), "wb") as handle:
        handle.write(b"latin-1 name")
    (root / "ok.txt").write_bytes(b"ok")

    def content_of(ev, path):
        artifact = occurrences(ev)[path]["artifact_id"]
        return next(
            n["sha256"]
            for n in ev["normalized_result"]["substeps"][0]["evidence"]["normalized_result"]["nodes"]["items"]
            if n["artifact_id"] == artifact
        )

    ev = inventory(root)
    assert occurrences(ev)["caf%E9.txt"]["hash_status"] == "verified"
    assert content_of(ev, "caf%E9.txt") == _sha(b"latin-1 name")
    archive = tmp_path / "old.tar"
    subprocess.run(["tar", "-cf", str(archive), "-C", str(root), "."], check=True)
    ev = inventory(archive)
    assert content_of(ev, "caf%E9.txt") == _sha(b"latin-1 name")
    replies, conn = run_tools([("open_binary", {"path": str(archive)}), ("inspect_artifact", {})])
    member = occurrences(replies[1].unwrap())["caf%E9.txt"]["occurrence_id"]
    done, _ = call("extract_artifact", {"occurrence_ids": [member]}, conn)
    written = done.unwrap()["normalized_result"]
    assert (Path(written["output_root"]) / written["artifacts"][0]["relative_path"]).read_bytes() == b"latin-1 name"
    assert tarfile.is_tarfile(archive)
