"""The artifact traversal's decisions, with no IO: what is recorded, what is read, when a limit stops a member
or the whole walk, when declared integrity is contradicted, and what a directory's identity is.

The readers in `effects/artifacts/` list directories, open and stream members and hash them; at every step
they ask a `Traversal` what to do and report what they saw, so the same facts always give the same inventory
(limit hits, omissions, coverage inputs), whichever order or speed the bytes arrive in. A `Traversal` is a
sans-IO state machine (as h11's connection is): it holds the entries recorded so far and is told about bytes,
never given them.
"""

from __future__ import annotations

import stat
from collections.abc import Iterable, Mapping
from typing import Any, Literal

import attrs
from returns.result import Failure, Result, Success

from rea.artifacts.integrity import RERUN, integrity_mismatch
from rea.artifacts.model import (
    CONTAINER_FORMATS,
    ROOT_ONLY_FORMATS,
    EntryFact,
    ExtractedFile,
    InventoryFacts,
    LimitHit,
    Limits,
    Omission,
    format_for_name,
    managed_role,
    normalize_member_name,
)
from rea.canonical_json import canonical_sha256
from rea.errors import ReaError
from rea.text import printable

# the unit bytes are read in; an expansion ratio is not judged before one block has been produced
BLOCK = 1 << 20
UNPACKED_HINT = (
    "Packaging tools commonly sign or strip .asar.unpacked native binaries after writing the archive "
    "header, so their declared hashes no longer match (Electron does not check them at runtime). "
    'Rerun with integrity_policy "record-and-continue" to record the contradiction and continue.'
)
Chain = tuple[str, ...]
# what one block of a member means: keep reading, stop this member (a limit on it), or stop the traversal
Verdict = Literal["read", "limit", "stop"]


@attrs.frozen(kw_only=True)
class Listed:
    """One directory entry as the directory-listing effect saw it (lstat: links are never followed)."""

    name: str  # as the OS gives it (undecodable bytes as lone surrogates)
    mode: int
    size: int
    link_target: str | None = None  # readlink, for a symbolic link


@attrs.frozen(kw_only=True)
class Visit:
    """What the reader does next with a directory entry the traversal recorded."""

    action: Literal["skip", "descend", "read", "stop"]
    logical: str = ""  # the path as the records show it (for a descent and the progress line)
    index: int | None = None  # the recorded entry (a file to read)


# a directory entry's kind by its lstat mode: links, directories and regular files are recorded; the rest are
# named in an omission and never opened
_MODE_KINDS = (
    (stat.S_ISLNK, "symlink"),
    (stat.S_ISDIR, "directory"),
    (stat.S_ISREG, "file"),
    (stat.S_ISFIFO, "FIFO"),
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
)
RECORDED_KINDS: Mapping[str, Literal["skip", "descend", "read"]] = {
    "symlink": "skip",
    "directory": "descend",
    "file": "read",
}


def mode_kind(mode: int) -> str:
    """What a directory entry is, by its lstat mode."""
    return next((kind for test, kind in _MODE_KINDS if test(mode)), "special file")


def directory_identity(entries: Iterable[Mapping[str, Any]]) -> tuple[str, int]:
    """A directory root's identity: the digest of its canonical top-level listing (so it does not depend on the
    order the listing came in), and the bytes its top-level files hold."""
    top = [e for e in entries if e["parent"] is None]
    listing = [
        {
            "path": e["logical_path"],
            "kind": e["entry_kind"],
            "sha256": e.get("sha256"),
            "size": e.get("size"),
            "link": e.get("link_target"),
        }
        for e in top
    ]
    return canonical_sha256(sorted(listing, key=lambda x: x["path"])), sum(e.get("size") or 0 for e in top)


class Traversal:
    """One walk's records and limits. Entries are kept as EntryFact fields until the walk ends (a member's
    digest can arrive after later members were recorded)."""

    def __init__(self, limits: Limits, policy: str, extract: Mapping[Chain, str] | None = None) -> None:
        self.limits = limits
        self.policy = policy
        self.entries: list[dict[str, Any]] = []
        self.hits: list[LimitHit] = []
        self.omissions: list[Omission] = []
        self.limitations: list[str] = []
        self.total_bytes = 0
        self.extract: Mapping[Chain, str] = extract or {}
        # extraction reads only the selected members and the containers on their chains
        self.wanted = None if extract is None else {c[:i] for c in extract for i in range(1, len(c) + 1)}
        self.extracted: list[ExtractedFile] = []
        self.chains: dict[int | None, Chain] = {None: ()}
        self.root_facts: tuple[str, str, int] | None = None  # format, sha256, size
        self.root_role: str | None = None  # .NET role of the root file (rea.artifacts.model.managed_role)

    # ------------------------------------------------------------ recording

    def hit(self, limit: str, logical_path: str | None, message: str) -> None:
        value = getattr(self.limits, limit)
        self.hits.append(LimitHit(limit=limit, value=value, logical_path=logical_path, message=message))

    def omit(self, logical_path: str, entry_type: str, reason: str) -> None:
        self.omissions.append(Omission(logical_path=logical_path, entry_type=entry_type, reason=reason))

    def logical(self, index: int | None) -> str:
        return "/".join(self.chains[index])

    def beneath(self, parent: int | None, name: str) -> str:
        """The path a member of `parent` would have (for members never recorded)."""
        return "/".join(self.chains[parent] + (name,))

    def name(self, parent: int | None, raw: str, entry_type: str) -> str | None:
        """The member's normalized name, or None when it is refused (recorded as an omission)."""
        raw = printable(raw)  # a name that is not Unicode (tar, directories) is recorded with %XX escapes
        name, problem = normalize_member_name(raw, self.limits.max_path_bytes)
        if name is None:
            if "max_path_bytes" in (problem or ""):
                self.hit("max_path_bytes", None, f"a member name {problem}")
            self.omit(self.beneath(parent, raw[:200]), entry_type, f"refused: the member name {problem}")
        return name

    def add(self, parent: int | None, name: str, kind: str, **fields: Any) -> int | None:
        """Record a member; None when max_entries is reached (the traversal stops: later members are unseen)."""
        if len(self.entries) >= self.limits.max_entries:
            self.hit("max_entries", self.beneath(parent, name), "traversal stopped; later members were not observed")
            return None
        index = len(self.entries)
        self.entries.append({"index": index, "parent": parent, "logical_path": name, "entry_kind": kind, **fields})
        self.chains[index] = self.chains[parent] + (name,)
        return index

    def update(self, index: int, **fields: Any) -> None:
        self.entries[index].update(fields)

    # ------------------------------------------------------------ reading a member

    def opens(self, index: int, declared: int | None) -> bool:
        """Whether a member's bytes are read: extraction reads only its chains; a declared size past
        max_entry_bytes is not read."""
        chain = self.chains[index]
        if self.wanted is not None and chain not in self.wanted:
            return False
        if declared is not None and declared > self.limits.max_entry_bytes:
            self.hit("max_entry_bytes", "/".join(chain), f"declared size {declared} exceeds the limit; not read")
            self.update(index, hash_status="not-hashed-limit")
            return False
        return True

    def spools(self, fmt: str, depth: int, on_disk: bool) -> bool:
        """Whether a member's bytes are kept while hashed: a nested container that will be expanded and
        cannot be reopened from disk."""
        return not on_disk and depth < self.limits.max_depth and fmt in CONTAINER_FORMATS

    def account(self, logical: str, size: int, block: int, compressed: int | None, declared: int | None) -> Verdict:
        """Count one block of a member (`size` bytes read of it so far) against the limits."""
        limits = self.limits
        self.total_bytes += block
        reason = None
        if size > limits.max_entry_bytes:
            reason = ("max_entry_bytes", "member grew past the limit while streaming; reading stopped")
        elif compressed is not None and size > max(compressed, 1) * limits.max_compression_ratio and size > BLOCK:
            reason = (
                "max_compression_ratio",
                f"expanded past {limits.max_compression_ratio}x its compressed "
                f"size {compressed}; reading stopped (possible decompression bomb)",
            )
        elif declared is not None and size > declared:
            reason = ("max_entry_bytes", f"produced more bytes than its declared size {declared}; reading stopped")
        elif self.total_bytes > limits.max_total_bytes:
            self.hit("max_total_bytes", logical, "traversal stopped; later members were not observed")
            return "stop"
        if reason is not None:
            self.hit(reason[0], logical, reason[1])
            return "limit"
        return "read"

    def limited(self, index: int) -> None:
        """A limit ended the member's read: no digest, no size."""
        self.update(index, hash_status="not-hashed-limit", size=None)

    def unreadable(self, index: int, exc_name: str, exc_text: str) -> None:
        entry = self.entries[index]
        limitations = tuple(entry.get("limitations", ())) + (f"reading failed: {exc_name}: {exc_text}",)
        self.update(index, hash_status="unavailable", limitations=limitations)
        self.omit(self.logical(index), "file", f"its bytes could not be read ({exc_name})")

    def contradiction(
        self,
        index: int,
        declared_sha256: str | None,
        observed: str | None,
        block_detail: str | None,
        unpacked: bool,
    ) -> Result[bool, ReaError]:
        """Whether the bytes read contradict the member's declared integrity; when they do and the policy is
        to fail, the error that ends the traversal instead."""
        mismatch = (declared_sha256 is not None and declared_sha256 != observed) or block_detail is not None
        if not mismatch or self.policy == "record-and-continue":
            return Success(mismatch)
        logical = self.logical(index)
        message = (
            f"{logical}: the observed bytes (sha256 {observed}) contradict the declared integrity "
            + (
                f"hash {declared_sha256}."
                if block_detail is None
                else f"record (hash {declared_sha256}). {block_detail}"
            )
            + (" " + UNPACKED_HINT if unpacked else f" {RERUN[:-1]} with verified siblings.")
        )
        return Failure(integrity_mismatch(logical, declared_sha256, observed, unpacked, message))

    def wrote(self, index: int, sha256: str, size: int) -> None:
        chain = self.chains[index]
        self.extracted.append(
            ExtractedFile(chain=chain, relative_path=self.extract[chain], sha256=sha256, bytes_written=size)
        )

    def read(
        self,
        index: int,
        depth: int,
        observed: str | None,
        size: int,
        head: bytes,
        *,
        mismatch: bool,
        declared_sha256: str | None,
        block_detail: str | None,
    ) -> bool:
        """Record a member read to its end; whether it is a nested container to expand now (a contradicted
        member is never expanded; one past max_depth is recorded as a limit hit)."""
        fmt = format_for_name(self.entries[index]["logical_path"], head)
        self.update(
            index,
            sha256=observed,
            size=size,
            hash_status="mismatched" if mismatch else "verified",
            format=fmt,
            managed_role=managed_role(head),
            declared_sha256=declared_sha256,
            integrity_detail=block_detail,
        )
        if mismatch or fmt not in CONTAINER_FORMATS:
            return False
        if depth < self.limits.max_depth:
            return True
        self.hit("max_depth", self.logical(index), "nested container not expanded")
        return False

    # ------------------------------------------------------------ containers

    def container_failed(self, parent: int | None, fmt: str, produced: int, root_name: str, why: str) -> bool:
        """A container's structure failed to read: an omission, unless it is the root and nothing was read from
        it yet (True: the whole traversal fails)."""
        if parent is None and len(self.entries) == produced:
            return True
        where = self.logical(parent) or root_name
        self.omit(where, fmt, f"its {fmt} structure could not be read completely ({why})")
        return False

    def unexamined(self, shown: str, raw_name: str, why: str) -> None:
        """A directory entry that could not be stat'ed or its link read: that entry's omission alone."""
        logical = f"{shown}/{printable(raw_name)}" if shown else printable(raw_name)
        self.omit(logical, "entry", f"it could not be examined ({why})")

    def unlistable(self, rel: str, why: str) -> None:
        self.omit(rel or ".", "directory", f"it could not be listed ({why})")

    def visit(self, parent: int | None, shown: str, item: Listed) -> Visit:
        """A directory entry: record it (symlink, directory, regular file) or omit it (special files, refused
        names)."""
        logical = f"{shown}/{printable(item.name)}" if shown else printable(item.name)
        kind = mode_kind(item.mode)
        if kind not in RECORDED_KINDS:
            self.omit(logical, kind, "special files are never opened")
            return Visit(action="skip", logical=logical)
        clean = self.name(parent, logical, kind)
        if clean is None:
            return Visit(action="skip", logical=logical)
        if kind == "symlink":
            fields: dict[str, Any] = {"link_target": printable(item.link_target or ""), "hash_status": "unavailable"}
        elif kind == "directory":
            fields = {"hash_status": "unavailable"}
        else:
            fields = {"declared_size": item.size, "executable": bool(item.mode & 0o111)}
        index = self.add(parent, clean, kind, **fields)
        if index is None:
            return Visit(action="stop", logical=logical)
        return Visit(action=RECORDED_KINDS[kind], logical=logical, index=index)

    def zip_reads(self, index: int, declared: int, compressed: int, encrypted: bool) -> bool:
        """Whether a ZIP member's bytes are read: never an encrypted one, nor one whose declared size or
        declared ratio is past the limits."""
        logical = self.logical(index)
        if encrypted:
            self.update(index, limitations=("encrypted member; its bytes were not read",))
            self.omit(logical, "encrypted file", "not decrypted")
            return False
        if declared > self.limits.max_entry_bytes:
            self.hit("max_entry_bytes", logical, f"declared size {declared} exceeds the limit; not read")
            self.update(index, hash_status="not-hashed-limit")
            return False
        if compressed and declared / compressed > self.limits.max_compression_ratio:
            self.hit(
                "max_compression_ratio",
                logical,
                f"declared ratio {declared / compressed:.0f}x; not decompressed (possible decompression bomb)",
            )
            self.update(index, hash_status="not-hashed-limit")
            return False
        return True

    def stream_expanded(self, index: int, expanded: int, compressed: int) -> bool:
        """Whether a streamed archive (tar) expanded past the ratio limit: the traversal stops."""
        if compressed and expanded > compressed * self.limits.max_compression_ratio and expanded > BLOCK:
            self.hit(
                "max_compression_ratio",
                self.logical(index),
                "the archive expanded past the ratio limit; traversal stopped",
            )
            return True
        return False

    def companion_absent(self, index: int) -> None:
        self.update(
            index,
            limitations=("unpacked entry: its companion file in .asar.unpacked is absent, so its bytes were not read",),
        )
        self.omit(self.logical(index), "unpacked file", "companion file absent")

    # ------------------------------------------------------------ root and result

    def root_directory(self, known: tuple[str, int] | None) -> None:
        self.root_facts = ("directory", *(known or ("", 0)))

    def root_file(self, name: str, head: bytes, sha256: str, size: int) -> str | None:
        """Record the root file; its container format when its members are to be walked."""
        fmt = format_for_name(name, head)
        self.root_facts = (fmt, sha256, size)
        self.root_role = managed_role(head)
        if fmt in ROOT_ONLY_FORMATS or fmt not in CONTAINER_FORMATS:
            return None
        return fmt

    def digested(self, digests: Mapping[int, str]) -> None:
        """Digests computed off the reading thread, for members read to their end."""
        for index, sha in digests.items():
            entry = self.entries[index]
            if entry.get("hash_status") == "verified" and entry.get("sha256") is None:
                entry["sha256"] = sha

    def facts(self, root_name: str) -> InventoryFacts:
        assert self.root_facts is not None
        fmt, sha, size = self.root_facts
        if fmt == "directory" and not sha:
            sha, size = directory_identity(self.entries)
        return InventoryFacts(
            root_name=root_name,
            root_sha256=sha,
            root_size=size,
            root_format=fmt,
            root_managed_role=self.root_role,
            entries=tuple(EntryFact(**e) for e in self.entries),
            limit_hits=tuple(self.hits),
            omissions=tuple(self.omissions),
            limitations=tuple(self.limitations),
        )

    def all_written(self, chains: tuple[Chain, ...]) -> Result[None, ReaError]:
        """Every selected member was written; else truncated when a limit kept one from being written, or
        artifact_operation_failed."""
        written = {f.chain for f in self.extracted}
        missing = next((c for c in chains if c not in written), None)
        if missing is None:
            return Success(None)
        path = "/".join(missing)
        hit = next((h for h in self.hits if h.logical_path == path), self.hits[0] if self.hits else None)
        if hit is not None:
            return Failure(
                ReaError(
                    code="truncated",
                    message=f"{path} was not materialized: limit {hit.limit}={hit.value} ({hit.message}). "
                    "Nothing was written; raise the limit and retry.",
                    details={"logical_path": path, "limit": hit.limit, "value": hit.value},
                )
            )
        return Failure(
            ReaError(
                code="artifact_operation_failed",
                message=f"{path} was not materialized: its bytes could not be read (see the inventory limitations). "
                "Nothing was written.",
                details={"logical_path": path},
            )
        )
