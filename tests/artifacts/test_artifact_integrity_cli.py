"""The CLI's --integrity-policy under a real mismatch (issue 30, item 9).

An .asar packed by the real @electron/asar CLI has one byte of each of two packed members
flipped afterwards. The declared hashes are read from the archive's header here with struct and
json (Electron's pickle layout), the observed ones with hashlib: the independent ground truth the
commands' errors and contradiction records are checked against. docs/cli.md's exit codes: 0 on
success, 1 when the operation failed with the canonical {"error": ...} printed.
"""

from __future__ import annotations

import hashlib
import json
import struct
import subprocess
from pathlib import Path

import pytest

from artifact_fixtures import pack_asar
from support import clean_env, rea_command

pytestmark = pytest.mark.slow


def _header(archive: Path) -> tuple[dict, int]:
    """Electron's header: uint32 4, uint32 header size, then a pickle (uint32 payload, uint32 length, JSON)."""
    raw = archive.read_bytes()
    header_size = struct.unpack_from("<I", raw, 4)[0]
    length = struct.unpack_from("<I", raw, 12)[0]
    return json.loads(raw[16 : 16 + length]), 8 + header_size


@pytest.fixture(scope="module")
def tampered(tmp_path_factory) -> dict:
    d = tmp_path_factory.mktemp("integrity")
    src = d / "src"
    src.mkdir()
    (src / "a.js").write_bytes(b"module.exports = 'first member';\n")
    (src / "b.js").write_bytes(b"module.exports = 'second member';\n")
    (src / "c.js").write_bytes(b"module.exports = 'untouched';\n")
    archive = pack_asar(src, d / "app.asar")
    header, base = _header(archive)
    data = bytearray(archive.read_bytes())
    truth = {}
    for name in ("a.js", "b.js"):
        node = header["files"][name]
        start = base + int(node["offset"])
        data[start] ^= 0x20  # 'm' becomes 'M'
        truth[name] = {
            "declared": node["integrity"]["hash"],
            "observed": hashlib.sha256(bytes(data[start : start + node["size"]])).hexdigest(),
        }
    archive.write_bytes(bytes(data))
    assert all(t["declared"] != t["observed"] for t in truth.values())
    return {"archive": archive, "truth": truth, "dir": d}


def _rea(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*rea_command(), *args, "--json"],
        capture_output=True,
        text=True,
        timeout=180,
        env=clean_env(TMPDIR=str(cwd)),
        cwd=cwd,
    )


def _contradictions(inventory: dict) -> dict[str, dict]:
    by_occ = {o["occurrence_id"]: o["logical_path"] for o in inventory["occurrences"]["items"]}
    found = inventory["integrity_contradictions"]  # inventory_artifact pages it; the inspection's substep does not
    return {by_occ[c["occurrence_id"]]: c for c in (found["items"] if isinstance(found, dict) else found)}


@pytest.mark.parametrize("command", ["inspect-artifact", "inventory-artifact", "extract-artifact"])
def test_fail_refuses_with_the_strict_mismatch_and_exit_1(tampered, command):
    run = _rea(command, str(tampered["archive"]), cwd=tampered["dir"])
    assert run.returncode == 1, run.stdout + run.stderr
    error = json.loads(run.stdout)["error"]
    assert error["code"] == "artifact_integrity_mismatch"
    path = error["details"]["logical_path"]
    truth = tampered["truth"][path]  # the first contradicted member the traversal reached
    assert error["details"] == {
        "logical_path": path,
        "declared_sha256": truth["declared"],
        "calculated_sha256": truth["observed"],
        "unpacked": False,
    }
    assert "record-and-continue" in error["message"]
    explicit = _rea(command, str(tampered["archive"]), "--integrity-policy", "fail", cwd=tampered["dir"])
    assert explicit.returncode == 1 and json.loads(explicit.stdout) == json.loads(run.stdout)


def test_record_and_continue_records_both_and_keeps_the_verified_sibling(tampered):
    d = tampered["dir"]
    inspected = _rea("inspect-artifact", str(tampered["archive"]), "--integrity-policy", "record-and-continue", cwd=d)
    assert inspected.returncode == 0, inspected.stdout + inspected.stderr
    result = json.loads(inspected.stdout)["normalized_result"]
    inventory = result["substeps"][0]["evidence"]["normalized_result"]
    recorded = _contradictions(inventory)
    assert set(recorded) == {"a.js", "b.js"}
    for name, c in recorded.items():
        assert c["observed_sha256"] == tampered["truth"][name]["observed"]
    statuses = {o["logical_path"]: o["hash_status"] for o in inventory["occurrences"]["items"]}
    assert statuses["c.js"] == "verified" and statuses["a.js"] == statuses["b.js"] == "mismatched"
    assert result["inventory_coverage"]["status"] == "unknown" and len(result["contradictions"]) == 2

    listed = _rea("inventory-artifact", str(tampered["archive"]), "--integrity-policy", "record-and-continue", cwd=d)
    assert listed.returncode == 0 and set(_contradictions(json.loads(listed.stdout)["normalized_result"])) == {
        "a.js",
        "b.js",
    }
    extracted = _rea("extract-artifact", str(tampered["archive"]), "--integrity-policy", "record-and-continue", cwd=d)
    assert extracted.returncode == 0, extracted.stdout + extracted.stderr
    out = json.loads(extracted.stdout)["normalized_result"]
    written = {a["relative_path"]: a["sha256"] for a in out["artifacts"]}
    assert written["c.js"] == hashlib.sha256(b"module.exports = 'untouched';\n").hexdigest()
    assert len(out["integrity_contradictions"]) == 2

    capped = _rea(
        "inspect-artifact",
        str(tampered["archive"]),
        "--integrity-policy",
        "record-and-continue",
        "--max-integrity-mismatches",
        "1",
        cwd=d,
    )
    assert capped.returncode == 1
    error = json.loads(capped.stdout)["error"]
    assert error["code"] == "truncated" and error["details"]["limit"] == "max_integrity_mismatches"


def test_extract_artifact_prints_text(tmp_path):
    """The text renderer reads an extraction's coverage from its manifest (it once failed with KeyError)."""
    import zipfile

    archive = tmp_path / "t.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("docs/a.txt", b"alpha\n")
    done = subprocess.run([*rea_command(), "extract-artifact", str(archive)], capture_output=True, text=True,
                          timeout=180, env=clean_env(TMPDIR=str(tmp_path)), cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "coverage container-entries/complete" in done.stdout
    assert f"{hashlib.sha256(b'alpha' + bytes([10])).hexdigest()}  docs/a.txt" in done.stdout


def test_a_file_that_cannot_be_opened_is_its_own_omission_and_its_siblings_are_walked(tmp_path):
    """One unreadable file is omitted alone: the files listed after it are still read and hashed. Root
    reads any file, so as root the CLI runs without the two DAC capabilities (setpriv drops them from
    its bounding set), the way an unprivileged analyst would meet the file. Ground truth: hashlib."""
    import os
    import shutil

    tree = tmp_path / "tree"
    tree.mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        (tree / name).write_bytes(f"{name}\n".encode())
    (tree / "b.txt").chmod(0)
    prefix: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("setpriv (util-linux) is needed to drop root's read override")
        prefix = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]
    out = subprocess.run(
        [*prefix, *rea_command(), "call", "inventory_artifact", "--target", str(tree), "--json"],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)["normalized_result"]
    assert result["coverage_status"] == "partial"
    assert [o["logical_path"] for o in result["omitted_entries"]] == ["b.txt"]
    by_path = {o["logical_path"]: o for o in result["occurrences"]["items"]}
    assert by_path["b.txt"]["hash_status"] == "unavailable" and by_path["b.txt"]["artifact_id"] is None
    digests = {n["artifact_id"]: n["sha256"] for n in result["nodes"]["items"]}
    for name in ("a.txt", "c.txt"):
        truth = hashlib.sha256((tree / name).read_bytes()).hexdigest()
        assert digests[by_path[name]["artifact_id"]] == truth, name
