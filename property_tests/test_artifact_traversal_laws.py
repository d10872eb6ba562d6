"""Laws of the pure artifact traversal (rea.artifacts.traversal) on generated directory trees.

A scripted reader drives the `Traversal` the way effects/artifacts/walker.py does (visit each listed entry, descend
into directories, stream a file's blocks through `account`, report an unreadable file), with no IO: the laws
are about the decisions alone. Coverage is judged by the graph builder, an independent reader of the facts.
"""

from __future__ import annotations

import hashlib
import stat
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from rea.artifacts import build_inventory
from rea.artifacts.model import Limits
from rea.artifacts.traversal import BLOCK, Listed, Traversal, directory_identity

FILE, DIR, LINK, FIFO = stat.S_IFREG | 0o644, stat.S_IFDIR | 0o755, stat.S_IFLNK | 0o777, stat.S_IFIFO | 0o644

names = st.text("abc.-\\é", min_size=1, max_size=5).filter(lambda n: n not in (".", ".."))
files = st.tuples(st.just("file"), st.integers(0, 3 * BLOCK), st.booleans())  # size, unreadable
leaves = st.one_of(files, st.tuples(st.just("link"), names), st.just(("fifo",)))
trees = st.recursive(
    st.dictionaries(names, leaves, max_size=5),
    lambda children: st.dictionaries(names, st.one_of(leaves, st.tuples(st.just("dir"), children)), max_size=5),
    max_leaves=20,
)
limits = st.builds(
    Limits,
    max_entries=st.integers(1, 30),
    max_total_bytes=st.integers(1, 8 * BLOCK),
    max_entry_bytes=st.integers(1, 3 * BLOCK),
    max_path_bytes=st.integers(1, 16),
)


def _digest(path: str, size: int) -> str:
    return hashlib.sha256(f"{path}:{size}".encode("utf-8", "surrogateescape")).hexdigest()


class _Stopped(Exception):
    pass


def _listed(name: str, node: tuple[Any, ...]) -> Listed:
    if node[0] == "file":
        return Listed(name=name, mode=FILE, size=node[1])
    if node[0] == "dir":
        return Listed(name=name, mode=DIR, size=4096)
    if node[0] == "link":
        return Listed(name=name, mode=LINK, size=len(node[1]), link_target=node[1])
    return Listed(name=name, mode=FIFO, size=0)


def _read(t: Traversal, index: int, logical: str, size: int, unreadable: bool) -> None:
    """Stream `size` bytes in blocks, as the reader does."""
    if not t.opens(index, size):
        return
    done = 0
    while done < size:
        block = min(BLOCK, size - done)
        done += block
        verdict = t.account(logical, done, block, None, size)
        if verdict == "stop":
            t.update(index, hash_status="not-hashed-limit")
            raise _Stopped()
        if verdict == "limit":
            t.limited(index)
            return
    if unreadable:
        t.unreadable(index, "PermissionError", "[Errno 13] Permission denied")
        return
    t.read(index, 1, _digest(logical, size), size, b"", mismatch=False, declared_sha256=None, block_detail=None)


def _walk(t: Traversal, tree: dict[str, Any], order: list[str], shown: str = "") -> None:
    for name in order:
        node = tree[name]
        visit = t.visit(None, shown, _listed(name, node))
        if visit.action == "stop":
            raise _Stopped()
        if visit.action == "descend":
            _walk(t, node[1], sorted(node[1]), visit.logical)
        elif visit.action == "read" and visit.index is not None:
            _read(t, visit.index, visit.logical, node[1], node[2])


def _traverse(tree: dict[str, Any], limits: Limits, order: list[str] | None = None) -> Traversal:
    t = Traversal(limits, "fail")
    t.root_directory(None)
    try:
        _walk(t, tree, sorted(tree) if order is None else order)
    except _Stopped:
        pass
    return t


def _unreadable(t: Traversal) -> bool:
    return any(e["entry_kind"] == "file" and e["hash_status"] != "verified" for e in t.entries)


@given(trees, limits)
def test_limits_are_respected(tree: dict[str, Any], limits: Limits) -> None:
    t = _traverse(tree, limits)
    assert len(t.entries) <= limits.max_entries
    assert all(len(e["logical_path"].encode("utf-8")) <= limits.max_path_bytes for e in t.entries)
    verified = [e for e in t.entries if e.get("hash_status") == "verified"]
    assert all(e["size"] <= limits.max_entry_bytes for e in verified)
    assert sum(e["size"] for e in verified) <= limits.max_total_bytes
    assert all(h.value == getattr(limits, h.limit) for h in t.hits)


@given(trees, limits)
def test_coverage_is_never_complete_after_a_limit_or_an_unreadable_entry(tree: dict[str, Any], limits: Limits) -> None:
    t = _traverse(tree, limits)
    inventory = build_inventory(t.facts("root"), limits)
    if t.hits or _unreadable(t) or t.omissions:
        assert inventory["coverage"]["status"] == "unknown"
    else:
        assert inventory["coverage"]["status"] == "complete"


@given(trees, st.randoms(use_true_random=False))
def test_identity_is_stable_under_listing_order(tree: dict[str, Any], random: Any) -> None:
    generous = Limits()
    order = sorted(tree)
    random.shuffle(order)
    sorted_walk, shuffled_walk = _traverse(tree, generous), _traverse(tree, generous, order)
    assert sorted_walk.facts("root").root_sha256 == shuffled_walk.facts("root").root_sha256
    assert directory_identity(reversed(sorted_walk.entries)) == directory_identity(sorted_walk.entries)
    left = build_inventory(sorted_walk.facts("root"), generous)
    right = build_inventory(shuffled_walk.facts("root"), generous)
    assert left["manifest"] == right["manifest"]


@given(trees, limits)
def test_a_stopped_traversal_records_why(tree: dict[str, Any], limits: Limits) -> None:
    """Every member that went unread for a limit is matched by a limit hit naming that limit's value."""
    t = _traverse(tree, limits)
    limited = [e for e in t.entries if e["hash_status"] == "not-hashed-limit"]
    assert not limited or t.hits
