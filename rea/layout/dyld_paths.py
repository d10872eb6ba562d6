"""dyld path arithmetic over a snapshot of the analyzed directory: prefix expansion and symlink-aware lookup.

The tree is a plain mapping of root-relative paths to entries (`{"kind": "file" |
"directory" | "symlink", "target"}`) that the effect layer took with lstat, so the
walk below is pure: symlinks are followed inside the root, `..` applies to the real
parent, and an absolute link or a climb above the root escapes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MAX_SYMLINK_HOPS = 32
Tree = Mapping[str, Mapping[str, Any]]


def segments(path: str) -> list[str]:
    return [part for part in path.split("/") if part not in ("", ".")]


def directory_of(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def join(directory: str, rest: str) -> str:
    return rest if not directory else directory if not rest else f"{directory}/{rest}"


def lookup(tree: Tree, path: str) -> tuple[str, str | None]:
    """("file", resolved path), or ("absent" | "escapes" | "not-file", None), as the kernel walks a path."""
    pending = segments(path)
    resolved: list[str] = []
    last = "directory"
    hops = 0
    while pending:
        part = pending.pop(0)
        if part == "..":
            if not resolved:
                return "escapes", None
            resolved.pop()
            last = "directory"
            continue
        entry = tree.get("/".join([*resolved, part]))
        if entry is None:
            return "absent", None
        if entry["kind"] == "symlink":
            hops += 1
            if hops > MAX_SYMLINK_HOPS:  # a link loop: the kernel answers ELOOP, dyld finds nothing here
                return "absent", None
            if str(entry["target"]).startswith("/"):
                return "escapes", None
            pending[:0] = segments(str(entry["target"]))
            continue
        if entry["kind"] == "file" and pending:
            return "absent", None
        resolved.append(part)
        last = entry["kind"]
    return ("file", "/".join(resolved)) if last == "file" else ("not-file", None)


def expand(raw: str, owner_directory: str, executable: str | None) -> tuple[str, str]:
    """(scope, path) of one dyld path: scope target (inside the root), outside (absolute) or undetermined."""
    for variable, source in (("@loader_path", owner_directory), ("@executable_path", None)):
        if raw == variable or raw.startswith(variable + "/"):
            rest = raw[len(variable) + 1 :]
            if source is None:
                if executable is None:  # no main executable in this process: @executable_path is unknown
                    return "undetermined", raw
                source = directory_of(executable)
            return "target", join(source, rest)
    if raw.startswith("/"):
        return "outside", raw
    return "undetermined", raw  # a leaf or relative name: dyld's fallback paths and the working directory


# dyld's graded architectures: an x86_64h process also loads generic x86_64
COMPATIBLE = {"x86_64h": ("x86_64h", "x86_64")}


def compatible_slice(slices: list[Mapping[str, Any]], process: str) -> Mapping[str, Any] | None:
    for architecture in COMPATIBLE.get(process, (process,)):
        for item in slices:
            if item["architecture"] == architecture:
                return item
    return None
