"""Atomic publication on the real filesystem."""

import os

import anyio
import pytest

from effects import fs


async def _silent(phase, message):
    return None


def _publish(path, chunks, overwrite=False):
    return anyio.run(fs.publish_atomically, str(path), chunks, overwrite, _silent, "test")


def _staging(directory):
    return [p for p in os.listdir(directory) if p.endswith(".rea-staging")]


def test_publishes_complete_file_with_receipt(tmp_path):
    dest = tmp_path / "out.json"
    receipt = _publish(dest, [b"{", b'"a":1', b"}"]).unwrap()
    assert dest.read_bytes() == b'{"a":1}' and receipt.bytes == 7
    assert _staging(tmp_path) == []


def test_existing_destination_needs_overwrite(tmp_path):
    dest = tmp_path / "out.json"
    dest.write_bytes(b"old")
    err = _publish(dest, [b"new"]).failure()
    assert err.details["field"] == "overwrite" and dest.read_bytes() == b"old"
    assert _publish(dest, [b"new"], overwrite=True).unwrap().bytes == 3
    assert dest.read_bytes() == b"new"


def test_missing_directory_is_a_named_error(tmp_path):
    err = _publish(tmp_path / "no" / "out.json", [b"x"]).failure()
    assert err.code == "invalid_request" and "does not exist" in err.message


def test_failure_mid_stream_removes_staging_and_keeps_destination(tmp_path):
    dest = tmp_path / "out.json"
    dest.write_bytes(b"old")

    def chunks():
        yield b"x" * (2 << 20)
        raise OSError(28, "No space left on device")

    err = _publish(dest, chunks(), overwrite=True).failure()
    assert err.code == "execution_failure" and dest.read_bytes() == b"old"
    assert _staging(tmp_path) == []


def test_cancellation_mid_stream_removes_staging_and_keeps_destination(tmp_path):
    dest = tmp_path / "out.json"
    dest.write_bytes(b"old")

    async def main():
        with anyio.CancelScope() as scope:

            def chunks():
                for i in range(64):
                    if i == 8:
                        scope.cancel()
                    yield b"y" * (1 << 20)

            await fs.publish_atomically(str(dest), chunks(), True, _silent, "test")
        return scope.cancelled_caught

    assert anyio.run(main) is True
    assert dest.read_bytes() == b"old" and _staging(tmp_path) == []


def test_cleanup_failure_after_publication_returns_receipt(tmp_path, monkeypatch):
    """Simulates a staging unlink refused by the OS (root ignores permissions, so the syscall is patched)."""
    dest = tmp_path / "out.json"
    real_unlink = os.unlink

    def refuse(path, *a, **kw):
        if str(path).endswith(".rea-staging"):
            raise PermissionError(13, "Permission denied")
        return real_unlink(path, *a, **kw)

    monkeypatch.setattr(os, "unlink", refuse)
    err = _publish(dest, [b"complete"]).failure()
    assert err.code == "cleanup_incomplete"
    assert err.details["published"] is True and err.details["bytes"] == 8
    assert err.details["published_path"] == str(dest) and dest.read_bytes() == b"complete"
    monkeypatch.undo()
    os.unlink(err.details["staging_path"])


@pytest.mark.parametrize("name, expected", [("/usr/bin/true", "elf")])
def test_identify_target_hashes_real_files(name, expected):
    facts = anyio.run(fs.identify_target, name, _silent).unwrap()
    assert facts.format == expected and len(facts.sha256) == 64 and facts.size == os.path.getsize(name)


def test_identify_target_directory_and_errors(tmp_path):
    (tmp_path / "a.txt").write_text("A")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("B")
    os.symlink("/etc/passwd", tmp_path / "link")
    first = anyio.run(fs.identify_target, str(tmp_path), _silent).unwrap()
    assert first.kind == "directory" and first.size == 2
    (tmp_path / "sub" / "b.txt").write_text("C")
    assert anyio.run(fs.identify_target, str(tmp_path), _silent).unwrap().sha256 != first.sha256
    assert anyio.run(fs.identify_target, str(tmp_path / "missing"), _silent).failure().code == "target_unavailable"
    os.mkfifo(tmp_path / "fifo")
    err = anyio.run(fs.identify_target, str(tmp_path / "fifo"), _silent).failure()
    assert "never opened" in err.message
