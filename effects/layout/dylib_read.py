"""The ReadDylibTree handler: lstat every entry below a directory, and read each Mach-O file's dyld facts with lief.

Links are recorded, never followed (the pure tracer follows them inside the root);
the walk stops at max_entries and says so. A lying universal header or a file lief
cannot read is kept as malformed with its reason, so the trace stays partial
rather than silent.
"""

from __future__ import annotations

import mmap
import os
import stat
import struct
from typing import Any

import anyio.to_thread
import lief
from returns.result import Failure, Result, Success

from effects import fs
from effects.layout.failure import LayoutFailure
from effects.layout.macho import fat_slices
from effects.layout.runtime import MACHO_MAGICS, MACHO_THIN, file_identity, unavailable
from effects.progress import Progress
from rea.errors import ReaError
from rea.layout.macho_names import arch_name
from rea.layout.model import ReadDylibTree

T = lief.MachO.LoadCommand.TYPE
DEPENDENCIES = {
    T.LOAD_DYLIB: "LC_LOAD_DYLIB",
    T.LOAD_WEAK_DYLIB: "LC_LOAD_WEAK_DYLIB",
    T.REEXPORT_DYLIB: "LC_REEXPORT_DYLIB",
    T.LAZY_LOAD_DYLIB: "LC_LAZY_LOAD_DYLIB",
    T.LOAD_UPWARD_DYLIB: "LC_LOAD_UPWARD_DYLIB",
}
FILE_TYPES = {
    lief.MachO.Header.FILE_TYPE.EXECUTE: "execute",
    lief.MachO.Header.FILE_TYPE.DYLIB: "dylib",
    lief.MachO.Header.FILE_TYPE.BUNDLE: "bundle",
}
VERSION_MIN_PLATFORMS = {
    T.VERSION_MIN_MACOSX: 1,
    T.VERSION_MIN_IPHONEOS: 2,
    T.VERSION_MIN_TVOS: 3,
    T.VERSION_MIN_WATCHOS: 4,
}
PLATFORM_NAMES = {
    1: "macos",
    2: "ios",
    3: "tvos",
    4: "watchos",
    5: "bridgeos",
    6: "maccatalyst",
    7: "ios-simulator",
    8: "tvos-simulator",
    9: "watchos-simulator",
    10: "driverkit",
    11: "visionos",
    12: "visionos-simulator",
}


def _version(parts: Any) -> str:
    return ".".join(str(int(p)) for p in parts)


def _text(value: str | bytes) -> str:
    return value.decode("utf-8", "backslashreplace") if isinstance(value, bytes) else value


def _dependency(cmd: Any) -> dict[str, Any]:
    name = DEPENDENCIES[cmd.command]
    return {
        "command": name,
        "encoding": "dylib_command",
        "install_name": _text(cmd.name),
        "weak": name == "LC_LOAD_WEAK_DYLIB",
        "upward": name == "LC_LOAD_UPWARD_DYLIB",
        "reexport": name == "LC_REEXPORT_DYLIB",
        "delayed_init": False,
        "current_version": _version(cmd.current_version),
        "compatibility_version": _version(cmd.compatibility_version),
    }


def _platform(cmd: Any) -> int | None:
    if cmd.command == T.BUILD_VERSION:
        return int(cmd.platform)
    return VERSION_MIN_PLATFORMS.get(cmd.command)


def _slice(binary: Any) -> dict[str, Any]:
    commands = list(binary.commands)
    platforms = list(dict.fromkeys(p for p in map(_platform, commands) if p is not None))
    return {
        "architecture": arch_name(int(binary.header.cpu_type), int(binary.header.cpu_subtype)),
        "file_type": FILE_TYPES.get(binary.header.file_type, "other"),
        "install_name": next((_text(c.name) for c in commands if c.command == T.ID_DYLIB), None),
        "dependencies": [_dependency(c) for c in commands if c.command in DEPENDENCIES],
        "rpaths": [_text(c.path) for c in commands if c.command == T.RPATH],
        "dyld_environment": [_text(c.value) for c in commands if c.command == T.DYLD_ENVIRONMENT],
        "code_signature_present": any(c.command == T.CODE_SIGNATURE for c in commands),
        "platforms": [{"id": p, "name": PLATFORM_NAMES.get(p)} for p in platforms],
    }


def _commands_fit(data: Any, offset: int, size: int) -> None:
    """The load commands a thin header declares lie inside its slice (lief reads past a cut file leniently)."""
    magic = bytes(data[offset : offset + 4])
    if magic not in MACHO_THIN:
        raise LayoutFailure("unsupported", f"the image at offset {offset} is not a Mach-O header")
    header = 32 if magic in (b"\xfe\xed\xfa\xcf", b"\xcf\xfa\xed\xfe") else 28
    if size < header:
        raise LayoutFailure("malformed", f"the image at offset {offset} is cut inside its header")
    (sizeofcmds,) = struct.unpack_from(MACHO_THIN[magic] + "I", data, offset + 20)
    if header + sizeofcmds > size:
        raise LayoutFailure(
            "malformed", f"its load commands ({sizeofcmds} bytes) run past the image's {size} bytes at offset {offset}"
        )


def image_facts(path: str) -> dict[str, Any]:
    """{status, reason, slices} of one file that opens with a Mach-O magic."""
    try:
        with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            declared = fat_slices(data)
            for offset, size in [(0, len(data))] if declared is None else [(d["offset"], d["size"]) for d in declared]:
                _commands_fit(data, offset, size)
    except LayoutFailure as failure:
        return {"status": failure.reason if failure.reason == "unsupported" else "malformed",
                "reason": failure.message, "slices": []}  # fmt: skip
    except (ValueError, IndexError, struct.error) as exc:
        return {"status": "malformed", "reason": f"the universal header is truncated ({exc})", "slices": []}
    parsed = lief.MachO.parse(path)
    binaries = [] if parsed is None else [parsed.at(i) for i in range(parsed.size)]
    if not binaries or (declared is not None and len(binaries) != len(declared)):
        return {"status": "malformed", "reason": "lief could not read every Mach-O image it declares", "slices": []}
    return {"status": "parsed", "reason": None, "slices": [_slice(b) for b in binaries]}


def _walk(root: str, max_entries: int) -> dict[str, Any]:
    entries: dict[str, dict[str, Any]] = {}
    images: dict[str, dict[str, Any]] = {}
    unreadable: list[str] = []
    pending = [""]
    truncated = False
    while pending and not truncated:
        relative = pending.pop()
        try:
            items = fs.list_directory(os.path.join(root, relative) if relative else root)
        except OSError:
            unreadable.append(relative or ".")
            continue
        for item in items:
            if len(entries) >= max_entries:
                truncated = True
                break
            path = f"{relative}/{item.name}" if relative else item.name
            try:
                _entry(item, path, entries, images, pending)
            except OSError:
                unreadable.append(path)
    return {"entries": entries, "images": images, "truncated": truncated, "unreadable": unreadable}


def _entry(item: fs.Entry, path: str, entries: dict[str, Any], images: dict[str, Any], pending: list[str]) -> None:
    if item.info is None:
        raise item.error or OSError(path)
    mode = item.info.st_mode
    if stat.S_ISLNK(mode):
        entries[path] = {"kind": "symlink", "target": os.readlink(item.path)}
    elif stat.S_ISDIR(mode):
        entries[path] = {"kind": "directory"}
        pending.append(path)
    elif stat.S_ISREG(mode):
        entries[path] = {"kind": "file"}
        _maybe_image(item.path, path, images)


def _maybe_image(absolute: str, path: str, images: dict[str, dict[str, Any]]) -> None:
    with open(absolute, "rb") as handle:
        magic = handle.read(4)
    if magic not in MACHO_MAGICS:
        return
    facts = image_facts(absolute)
    images[path] = {**facts, "sha256": file_identity(absolute)["sha256"]}


async def read_dylib_tree(effect: ReadDylibTree, progress: Progress) -> Result[Any, ReaError]:
    if not os.path.isdir(effect.root):
        return Failure(unavailable(effect.root, "it is not a directory"))
    try:
        return Success(await anyio.to_thread.run_sync(_walk, effect.root, effect.max_entries))
    except OSError as exc:
        return Failure(unavailable(exc.filename or effect.root, exc.strerror or str(exc)))


HANDLERS = {ReadDylibTree: read_dylib_tree}
