"""compare_artifacts' equality rules end to end (issue 30, item 9): real files built here, inventoried
and compared through the Python MCP client, one rule per comparison.

Ground truth is how each file was built: the tar's FIFO member (Python's tarfile), the zip member
larger than max_entry_bytes, the byte flipped inside a packed ASAR member (@electron/asar's own
integrity record then disagrees), the two gcc builds (`cmp` says their bytes differ), the tar member
whose mode gained the execute bits.
"""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

import anyio
import pytest

from artifact_fixtures import make_zip, pack_asar
from mcp_client import connect, evidence

pytestmark = pytest.mark.slow

C = "int main(void) { volatile int x = 6; return x * 7; }\n"


def _tar(path: Path, members: dict[str, tuple[bytes, int]], fifo: str | None = None) -> Path:
    with tarfile.open(path, "w") as tf:
        for name, (data, mode) in members.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), mode
            tf.addfile(info, io.BytesIO(data))
        if fifo:
            info = tarfile.TarInfo(fifo)
            info.type = tarfile.FIFOTYPE
            tf.addfile(info)
    return path


def _gcc(tmp_path: Path, name: str, opt: str) -> Path:
    (tmp_path / "m.c").write_text(C)
    subprocess.run(["gcc", opt, "-o", str(tmp_path / name), str(tmp_path / "m.c")], check=True)
    return tmp_path / name


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("cmp")
    members = {"a.txt": (b"alpha\n", 0o644), "run.sh": (b"#!/bin/sh\n", 0o644)}
    src = d / "src"
    (src / "lib").mkdir(parents=True)
    (src / "lib" / "main.js").write_bytes(b"module.exports = 'the packed member';\n" * 4)
    (src / "package.json").write_bytes(b'{"name":"app","main":"lib/main.js"}')
    good = pack_asar(src, d / "good.asar")
    data = bytearray(good.read_bytes())
    data[data.index(b"the packed member")] ^= 0x20  # one packed byte: 't' becomes 'T'
    (d / "bad.asar").write_bytes(bytes(data))
    out = {
        "plain": _tar(d / "plain.tar", members),
        "fifo": _tar(d / "fifo.tar", members, fifo="pipe"),
        "exec": _tar(d / "exec.tar", {**members, "run.sh": (b"#!/bin/sh\n", 0o755)}),
        "big": make_zip(d / "big.zip", {"small.txt": b"s\n", "big.bin": b"\0" * 65_536}),
        "good_asar": good,
        "bad_asar": d / "bad.asar",
        "o0": _gcc(d, "o0", "-O0"),
        "o2": _gcc(d, "o2", "-O2"),
    }
    assert subprocess.run(["cmp", "-s", str(out["o0"]), str(out["o2"])]).returncode == 1  # the builds differ
    return out


def _inventories(files: dict[str, Path], pairs: dict[str, tuple[tuple[str, dict], tuple[str, dict]]]) -> dict:
    """Each side opened and inventoried in one session; each pair compared by retained Evidence id."""

    async def main():
        async with connect() as s:
            ids: dict[tuple[str, str], str] = {}
            for left, right in pairs.values():
                for name, args in (left, right):
                    key = (name, repr(sorted(args.items())))
                    if key not in ids:
                        await s.call_tool("open_binary", {"path": str(files[name])})
                        made = await s.call_tool("inventory_artifact", args)
                        ids[key] = evidence(made)["evidence_id"]
            compared = {}
            for label, (left, right) in pairs.items():
                refs = [ids[(n, repr(sorted(a.items())))] for n, a in (left, right)]
                reply = await s.call_tool(
                    "compare_artifacts",
                    {
                        "left": {"kind": "retained-evidence", "evidence_id": refs[0]},
                        "right": {"kind": "retained-evidence", "evidence_id": refs[1]},
                    },
                )
                compared[label] = evidence(reply)["normalized_result"]
            return compared

    return anyio.run(main)


def _changes(result: dict) -> dict[str, tuple[str, list[str]]]:
    return {c["logical_path"]: (c["classification"], c["dimensions"]) for c in result["changes"]}


def test_compare_artifacts_rules_through_the_tool(files):
    small = {"max_entry_bytes": 1024}
    record = {"integrity_policy": "record-and-continue"}
    got = _inventories(
        files,
        {
            "same": (("plain", {}), ("plain", {})),
            "scope": (("o0", {}), ("plain", {})),
            "fifo": (("plain", {}), ("fifo", {})),
            "fifo_both": (("fifo", {}), ("fifo", {})),
            "unhashed": (("big", small), ("big", small)),
            "contradiction": (("good_asar", {}), ("bad_asar", record)),
            "builds": (("o0", {}), ("o2", {})),
            "same_build": (("o0", {}), ("o0", {})),
            "exec": (("plain", {}), ("exec", {})),
        },
    )
    assert got["same"]["status"] == "unchanged" and got["same"]["uncertainty"] == []
    # scope mismatch: a root-only ELF against a container; never equality, and the uncertainty says why
    scope = got["scope"]
    assert scope["left_coverage"]["scope"] == "root" and scope["right_coverage"]["scope"] == "container-entries"
    assert scope["status"] != "unchanged"
    assert any("coverage scopes differ" in u for u in scope["uncertainty"])
    # unknown coverage: the FIFO member is omitted, so even identical members cannot prove equality
    assert got["fifo"]["right_coverage"] == {"scope": "container-entries", "status": "unknown"}
    assert any("right traversal coverage is unknown" in u for u in got["fifo"]["uncertainty"])
    assert got["fifo_both"]["status"] == "unknown" and got["fifo_both"]["summary"]["unchanged"] == 2
    # unhashed members: the member past max_entry_bytes is unknown, never unchanged or changed
    unhashed = got["unhashed"]
    assert unhashed["status"] == "unknown" and _changes(unhashed) == {"big.bin": ("unknown", ["content"])}
    assert unhashed["summary"]["unchanged"] == 1
    # contradiction: the flipped packed byte contradicts the ASAR's integrity record
    contradiction = got["contradiction"]
    assert contradiction["status"] == "contradiction"
    assert _changes(contradiction)["lib/main.js"] == ("contradiction", ["integrity"])
    # executable-metadata root deltas: two gcc builds are root-scoped and differ as whole artifacts
    builds = got["builds"]
    assert builds["status"] == "changed" and _changes(builds) == {".": ("changed", ["content"])}
    assert any("root-scoped" in line for line in builds["limitations"])
    same_build = got["same_build"]  # a fully observed root can be unchanged; its scope notice stays
    assert same_build["status"] == "unchanged" and same_build["uncertainty"] == []
    assert any("root-scoped" in line for line in same_build["limitations"])
    # a member whose mode gained the execute bits changes in its executable metadata
    exec_change = got["exec"]
    assert exec_change["status"] == "changed"
    assert _changes(exec_change) == {".": ("changed", ["content"]), "run.sh": ("changed", ["executable"])}
