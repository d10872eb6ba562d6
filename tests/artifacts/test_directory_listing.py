"""The one directory listing (effects.fs.list_directory, walk_tree) that every directory walker uses, checked
against the standard library's own walker: os.walk(followlinks=False) over a real tree that holds a symlink
loop, a link to a directory, a dangling link, a FIFO, a socket and a name that is not UTF-8."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest

from effects import fs


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("listing")
    (root / "b" / "c" / "d").mkdir(parents=True)
    (root / "a.txt").write_bytes(b"a")
    (root / "b" / "c" / "d" / "deep").write_bytes(b"deep")
    (root / "b" / "z").write_bytes(b"z")
    os.symlink(".", root / "loop")
    os.symlink("b", root / "to_b")
    os.symlink("missing", root / "dangling")
    os.mkfifo(root / "b" / "fifo")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(root / "sock"))
    sock.close()
    (root / os.fsdecode(b"caf\xe9")).write_bytes(b"latin-1 name")
    (root / "empty").mkdir()
    return root


def _os_walk(root: Path) -> list[tuple[str, list[str], list[str]]]:
    rows = []
    for parent, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        rel = os.path.relpath(parent, root)
        rows.append(("" if rel == "." else rel, sorted(dirs), sorted(files)))
    return rows


def test_walk_tree_visits_what_os_walk_visits_in_the_same_order(tree: Path) -> None:
    ours = [
        (
            rel,
            [e.name for e in listing if e.points_to_directory],
            [e.name for e in listing if not e.points_to_directory],
        )
        for rel, listing in fs.walk_tree(str(tree))
    ]
    assert ours == _os_walk(tree)


def test_entries_are_lstat_facts_in_name_order(tree: Path) -> None:
    listing = fs.list_directory(str(tree))
    assert [e.name for e in listing] == sorted(os.listdir(tree))
    for entry in listing:
        assert entry.info is not None and entry.error is None
        assert entry.info.st_mode == os.lstat(tree / entry.name).st_mode  # links are never followed
    modes = {e.name: e.info.st_mode for e in listing if e.info is not None}
    assert stat.S_ISLNK(modes["loop"]) and stat.S_ISLNK(modes["to_b"]) and stat.S_ISSOCK(modes["sock"])
    assert {e.name for e in listing if e.is_directory()} == {"b", "empty"}  # a link to a directory is not one


def test_an_unlistable_directory_raises_and_is_passed_over_by_the_walk(tree: Path) -> None:
    with pytest.raises(OSError):
        fs.list_directory(str(tree / "a.txt"))
    assert list(fs.walk_tree(str(tree / "missing"))) == []
