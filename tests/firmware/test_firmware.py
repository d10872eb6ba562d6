"""inspect_firmware_regions and extract_firmware on images built here with Debian's tools (mksquashfs, mkfs.jffs2,
mkfs.cramfs, mkimage, Python's gzip/lzma and xz-utils' lzma), checked against the offsets the test placed them at,
the sizes the tools wrote, and the bytes of the source tree; every call goes through validation, the program and
the real unblob run (artifact_fixtures.call also checks each reply against the advertised output schema)."""

from __future__ import annotations

import gzip
import hashlib
import lzma
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from returns.result import Success

from artifact_fixtures import call
from effects import owned
from effects.firmware import engine

pytestmark = pytest.mark.slow

TREE = {"etc/motd": b"hello firmware\n", "etc/passwd": b"root:x:0:0\n", "bin/blob": bytes(range(256)) * 20}
SEP = b"SEPARATOR!"  # bytes no handler claims, between the streams


def _unblob_owned() -> list[str]:
    """The unblob runs still registered as owned (other tests in this worker may own other helpers)."""
    return [name for name in owned._STOPS if name.startswith("unblob-")]


def _tool(name: str) -> str:
    found = shutil.which(name) or (f"/usr/sbin/{name}" if os.access(f"/usr/sbin/{name}", os.X_OK) else None)
    if found is None:
        pytest.fail(f"{name} is not installed: run sh scripts/setup test")
    return found


@pytest.fixture(scope="module")
def images(tmp_path_factory) -> dict[str, Path]:
    if engine.locate() is None:
        pytest.fail("unblob is not installed: run sh scripts/setup test")
    root = tmp_path_factory.mktemp("firmware")
    src = root / "src"
    for rel, data in TREE.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_bytes(data)
    out = {"src": src}
    subprocess.run(
        [_tool("mksquashfs"), str(src), str(root / "fs.sqfs"), "-noappend", "-all-root", "-quiet"], check=True
    )
    squash = (root / "fs.sqfs").read_bytes()
    (root / "image.bin").write_bytes(bytes(512) + squash + SEP * 40)
    out["sqfs"], out["image"] = root / "fs.sqfs", root / "image.bin"
    subprocess.run([_tool("mkfs.jffs2"), "-r", str(src), "-o", str(root / "fs.jffs2"), "-l"], check=True)
    out["jffs2"] = root / "fs.jffs2"
    subprocess.run(
        [_tool("mkimage"), "-A", "arm", "-O", "linux", "-T", "filesystem", "-C", "none", "-n", "rea"]
        + ["-d", str(root / "fs.sqfs"), str(root / "fs.uimg")],
        check=True,
        capture_output=True,
    )
    out["uimage"] = root / "fs.uimg"
    (root / "nested.gz").write_bytes(gzip.compress((root / "fs.uimg").read_bytes(), mtime=0))
    out["nested"] = root / "nested.gz"
    if shutil.which("mkfs.cramfs") or os.access("/usr/sbin/mkfs.cramfs", os.X_OK):
        subprocess.run([_tool("mkfs.cramfs"), str(src), str(root / "fs.cramfs")], check=True, capture_output=True)
        out["cramfs"] = root / "fs.cramfs"
    return out


def _streams(root: Path) -> tuple[Path, dict[str, tuple[int, int, bytes]]]:
    """gzip (Python), xz (Python) and lzma-alone (xz-utils' lzma) streams at known offsets."""
    text = "\n".join(f"line {i} {i * i} {i**3}" for i in range(600)).encode()
    (root / "plain.txt").write_bytes(text)
    alone = subprocess.run([_tool("lzma"), "-c", str(root / "plain.txt")], capture_output=True, check=True).stdout
    parts = [("gzip", gzip.compress(text[:3000], mtime=0), text[:3000])]
    parts.append(("xz", lzma.compress(text[3000:6000], format=lzma.FORMAT_XZ), text[3000:6000]))
    parts.append(("lzma", alone, text))
    blob, where = SEP * 10, {}
    for name, packed, plain in parts:
        where[name] = (len(blob), len(packed), plain)
        blob += packed + SEP * 7
    path = root / "streams.bin"
    path.write_bytes(blob)
    return path, where


def _regions(path: Path) -> dict[str, tuple[int, int]]:
    reply, _ = call("inspect_firmware_regions", {"path": str(path)})
    assert isinstance(reply, Success), reply
    result = reply.unwrap()["normalized_result"]
    assert result["input_size"] == path.stat().st_size and result["coverage"] == "signature_scan"
    assert result["engine"]["name"] == "unblob" and result["engine"]["executable_sha256"]
    return {r["signature"]: (r["offset"], r["reported_size"]) for r in result["regions"]}


def _extract(path: Path, out: Path, **args) -> dict:
    reply, _ = call("extract_firmware", {"path": str(path), "output_directory": str(out), **args})
    assert isinstance(reply, Success), reply
    assert not _unblob_owned()  # every unblob run was stopped and its group checked empty
    return reply.unwrap()["normalized_result"]


def _tree_found(result: dict, out: Path, marker: str) -> None:
    """Every source file was extracted under a `marker` directory, byte for byte, with the digest we read."""
    for rel, data in TREE.items():
        hits = [f for f in result["files"] if f["relative_path"].endswith(rel) and marker in f["relative_path"]]
        assert hits, (rel, [f["relative_path"] for f in result["files"]])
        assert Path(hits[0]["path"]).read_bytes() == data
        assert hits[0]["sha256"] == hashlib.sha256(data).hexdigest() and hits[0]["path"].startswith(str(out) + "/")


def test_a_squashfs_placed_at_512_is_found_there_and_extracted_byte_for_byte(images, tmp_path):
    regions = _regions(images["image"])
    assert regions["squashfs_v4_le"] == (512, images["sqfs"].stat().st_size)  # the size mksquashfs wrote
    result = _extract(images["image"], tmp_path / "out")
    _tree_found(result, tmp_path / "out", "512-")
    assert result["selection"]["length"] == images["image"].stat().st_size
    chunk = next(c for c in result["chunks"] if c["handler"] == "squashfs_v4_le")
    assert chunk["root_file_range"] == {"offset": 512, "length": images["sqfs"].stat().st_size}
    assert result["coverage"] == "partial"  # the separator bytes are an unknown chunk
    assert any(c["handler"] is None and c["input_path"] == "$input" for c in result["chunks"])
    assert sorted(os.listdir(tmp_path)) == ["out"]  # no staging or work directory left beside it


def test_jffs2_and_cramfs_images(images, tmp_path):
    assert _regions(images["jffs2"])["jffs2_new"] == (0, images["jffs2"].stat().st_size)
    _tree_found(_extract(images["jffs2"], tmp_path / "j"), tmp_path / "j", "")
    if "cramfs" in images:
        assert _regions(images["cramfs"])["cramfs"] == (0, images["cramfs"].stat().st_size)


def test_compressed_streams_at_their_offsets(images, tmp_path):
    path, where = _streams(tmp_path)
    regions = _regions(path)
    for name, (offset, size, _) in where.items():
        assert regions[name][0] == offset, (name, regions)
        assert regions[name][1] == size, (name, regions)
    result = _extract(path, tmp_path / "s")
    contents = {Path(f["path"]).read_bytes() for f in result["files"]}
    assert {plain for _, _, plain in where.values()} <= contents


def test_a_uimage_payload_and_a_nested_image(images, tmp_path):
    listing = subprocess.run([_tool("mkimage"), "-l", str(images["uimage"])], capture_output=True, text=True).stdout
    assert "rea" in listing  # mkimage wrote a 64-byte legacy header before the payload
    regions = _regions(images["uimage"])
    assert regions["squashfs_v4_le"] == (64, images["sqfs"].stat().st_size)
    result = _extract(images["nested"], tmp_path / "n", max_depth=5)  # gzip -> uImage -> squashfs -> files
    _tree_found(result, tmp_path / "n", "squashfs")
    assert any(d["handler"] == "gzip" and d["parent_path"] == "$input" for d in result["derivations"])
    shallow = _extract(images["nested"], tmp_path / "shallow", max_depth=2)
    assert shallow["coverage"] == "partial" and shallow["depth_limited_paths"]


def test_a_range_selects_the_bytes_and_limits_publish_nothing(images, tmp_path):
    sqfs = images["sqfs"].stat().st_size
    result = _extract(images["image"], tmp_path / "r", range={"offset": 512, "length": sqfs})
    assert result["selection"]["sha256"] == hashlib.sha256(images["sqfs"].read_bytes()).hexdigest()
    _tree_found(result, tmp_path / "r", "")
    reply, _ = call(
        "extract_firmware",
        {"path": str(images["image"]), "output_directory": str(tmp_path / "x"), "max_output_files": 2},
    )
    assert reply.failure().code == "resource_constraint"
    assert sorted(os.listdir(tmp_path)) == ["r"] and not _unblob_owned()  # nothing published, nothing left running


def test_refusals_name_the_argument(images, tmp_path):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "exists").mkdir()
    cases = [
        ({"path": str(tmp_path / "fifo")}, "path"),
        ({"path": str(images["image"]), "range": {"offset": 10**6, "length": 1}}, "range"),
        ({"path": str(images["image"]), "output_directory": str(tmp_path / "exists")}, "output_directory"),
        ({"path": str(images["image"]), "output_directory": str(tmp_path / "no" / "parent")}, "output_directory"),
    ]
    for args, field in cases:
        reply, _ = call("extract_firmware", {"output_directory": str(tmp_path / "o"), **args})
        error = reply.failure()
        assert error.code == "invalid_request" and error.details["field"] == field, (args, error)
    assert sorted(os.listdir(tmp_path)) == ["exists", "fifo"]
    reply, _ = call("inspect_firmware_regions", {"path": "relative.bin"})
    assert reply.failure().code == "invalid_request"
