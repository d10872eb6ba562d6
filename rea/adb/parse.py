"""What a device printed, read into the reference's rows: pure, one reader per command.

Each reader keeps the lines it could not read in `unparsed` (coverage partial), never
guesses a value the output does not state, and treats the text as hostile (bounded by the
effect's byte limit before it arrives here).
"""

from __future__ import annotations

import re
import struct

from rea.adb.records import (
    DirectoryEntry,
    Feature,
    PackageRow,
    Process,
    Property,
    Service,
    Size,
)

# the getprop whitelist of inspect_adb_device (build identity, ABIs, debuggable, the emulator indicator)
PROPERTIES = (
    "ro.build.version.release",
    "ro.build.version.sdk",
    "ro.build.version.security_patch",
    "ro.build.fingerprint",
    "ro.build.type",
    "ro.product.manufacturer",
    "ro.product.brand",
    "ro.product.model",
    "ro.product.name",
    "ro.product.device",
    "ro.product.cpu.abi",
    "ro.product.cpu.abilist",
    "ro.debuggable",
    "ro.kernel.qemu",
)
_PROP = re.compile(r"^\[([^\]]+)\]: \[(.*)\]$")
_PACKAGE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$")


def lines(text: str) -> list[str]:
    return [line.rstrip("\r") for line in text.splitlines() if line.strip()]


def properties(text: str) -> tuple[tuple[Property, ...], bool | None]:
    found = {m.group(1): m.group(2) for m in map(_PROP.match, lines(text)) if m}
    rows = tuple(Property(name=n, value=found[n]) for n in PROPERTIES if found.get(n))
    qemu = found.get("ro.kernel.qemu")
    return rows, None if not qemu else qemu == "1"


def packages(text: str) -> tuple[tuple[PackageRow, ...], tuple[str, ...]]:
    """`pm list packages -f`: `package:<base apk path>=<name>` (the name after the last `=`)."""
    rows, unparsed = [], []
    for line in lines(text):
        path, sep, name = line.removeprefix("package:").rpartition("=")
        if line.startswith("package:") and sep and path and _PACKAGE.match(name):
            rows.append(PackageRow(package_name=name, base_apk_device_path=path))
        else:
            unparsed.append(line)
    return tuple(rows), tuple(unparsed)


def package_paths(text: str) -> tuple[list[str], list[str]]:
    """`pm path PKG`: one `package:/path.apk` per APK of the set."""
    rows = lines(text)
    return [r[len("package:") :] for r in rows if r.startswith("package:/")], [
        r for r in rows if not r.startswith("package:/")
    ]


def apk_role(file_name: str) -> str:
    return "base" if file_name == "base.apk" else "split" if file_name.startswith("split_") else "unknown"


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and re.fullmatch(r"-?\d+", value) else None


def installed_package(text: str) -> dict[str, object]:
    """The fixed projection of `dumpsys package PKG` (first occurrence of each key; unknown sections ignored)."""

    def first(pattern: str) -> str | None:
        found = re.search(pattern, text, re.M)
        return found.group(1).strip() if found else None

    requested = re.search(r"^\s*requested permissions:\n((?:\s{6,}\S.*\n?)*)", text, re.M)
    return {
        "version_name": first(r"^\s*versionName=(\S+)"),
        "version_code": _int(first(r"^\s*versionCode=(\d+)")),
        "first_install_time": first(r"^\s*firstInstallTime=(.+)$"),
        "last_update_time": first(r"^\s*lastUpdateTime=(.+)$"),
        "installer_package_name": first(r"^\s*installerPackageName=(\S+)"),
        "user_id": _int(first(r"^\s*userId=(\d+)")),
        "pkg_flags": first(r"^\s*pkgFlags=(\[.*\])"),
        "requested_permissions_count": None if requested is None else len(lines(requested.group(1))),
    }


def processes(text: str) -> tuple[str | None, tuple[Process, ...], tuple[str, ...]]:
    """`ps -A`: the header names the columns; NAME is the last column (it may hold spaces)."""
    rows = lines(text)
    if not rows or "PID" not in rows[0].split():
        return None, (), tuple(rows)
    header = rows[0].split()
    at = {name: i for i, name in enumerate(header)}
    out, unparsed = [], []
    for line in rows[1:]:
        cells = line.split(None, len(header) - 1)
        if len(cells) < len(header) or not cells[at["PID"]].isdigit():
            unparsed.append(line)
            continue

        named = {name: cells[i] for name, i in at.items()}
        out.append(
            Process(
                user=named.get("USER", ""),
                pid=int(named["PID"]),
                ppid=_int(named.get("PPID")),
                rss=_int(named.get("RSS")),
                state=named.get("S"),
                name=cells[-1],
            )
        )
    return rows[0], tuple(out), tuple(unparsed)


_LS = re.compile(
    r"^(?P<perm>[-dlcbsp][-rwxsStT]{9}[.+@]?)\s+\d+\s+(?P<owner>\S+)\s+(?P<group>\S+)\s+"
    r"(?P<size>\d+|\d+,\s*\d+)\s+(?P<date>\d{4}-\d{2}-\d{2} \d{2}:\d{2})\s(?P<name>.+)$"
)
_KINDS = {"d": "directory", "-": "file", "l": "symlink"}


def directory(text: str) -> tuple[tuple[DirectoryEntry, ...], tuple[str, ...]]:
    """toybox `ls -la`: permissions, links, owner, group, size, date time, name [-> target]."""
    out, unparsed = [], []
    for line in lines(text):
        found = _LS.match(line)
        if found is None:
            if not line.startswith("total "):
                unparsed.append(line)
            continue
        perm, name = found["perm"], found["name"]
        target = None
        if perm[0] == "l" and " -> " in name:
            name, target = name.split(" -> ", 1)
        if name in (".", ".."):
            continue
        out.append(
            DirectoryEntry(
                name=name,
                kind=_KINDS.get(perm[0], "other"),  # type: ignore[arg-type]
                permissions=perm,
                owner=found["owner"],
                group=found["group"],
                bytes=_int(found["size"]),
                date=found["date"],
                link_target=target,
            )
        )
    return tuple(out), tuple(unparsed)


def directory_failure(text: str) -> str | None:
    """The standard refusals of `ls`: absent or denied, else None."""
    if "No such file or directory" in text:
        return "absent"
    if "Permission denied" in text:
        return "denied"
    return None


def features(text: str) -> tuple[tuple[Feature, ...], tuple[str, ...]]:
    out, unparsed = [], []
    for line in lines(text):
        name, _, version = line.removeprefix("feature:").partition("=")
        if not line.startswith("feature:") or not name:
            unparsed.append(line)
            continue
        number = int(version, 0) if re.fullmatch(r"0x[0-9a-fA-F]+|\d+", version) else None
        out.append(Feature(name=name, version=number))
    return tuple(out), tuple(unparsed)


_SERVICE = re.compile(r"^\d+\s+([^:\s]+):\s*\[(.*)\]$")


def services(text: str) -> tuple[tuple[Service, ...], tuple[str, ...]]:
    """`service list`: `N\\tname: [interface]` after a `Found N services:` header."""
    out, unparsed = [], []
    for line in lines(text):
        if line.startswith("Found ") and line.endswith("services:"):
            continue
        found = _SERVICE.match(line.strip())
        if found is None:
            unparsed.append(line)
        else:
            out.append(Service(name=found.group(1), interface=found.group(2) or None))
    return tuple(out), tuple(unparsed)


def _size(text: str, label: str) -> Size | None:
    found = re.search(rf"^{label} size: (\d+)x(\d+)", text, re.M)
    return Size(width=int(found.group(1)), height=int(found.group(2))) if found else None


def _density(text: str, label: str) -> int | None:
    found = re.search(rf"^{label} density: (\d+)", text, re.M)
    return int(found.group(1)) if found else None


def display(size_text: str, density_text: str) -> dict[str, object]:
    return {
        "physical_size": _size(size_text, "Physical"),
        "override_size": _size(size_text, "Override"),
        "physical_density": _density(density_text, "Physical"),
        "override_density": _density(density_text, "Override"),
    }


def window(text: str) -> tuple[str | None, str | None, tuple[str, ...]]:
    observed = tuple(line.strip() for line in lines(text) if "mCurrentFocus=" in line or "mFocusedApp=" in line)

    def value(key: str) -> str | None:
        return next((line.split(key, 1)[1].strip() for line in observed if line.startswith(key)), None)

    return value("mCurrentFocus="), value("mFocusedApp="), observed


def setting(text: str) -> tuple[str | None, bool]:
    value = text.rstrip("\r\n")
    return (None, True) if value == "null" else (value, False)


def png_size(data: bytes) -> tuple[int | None, int | None]:
    """Width and height from a PNG's IHDR, None when the bytes are not a PNG."""
    if len(data) < 24 or data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None, None
    width, height = struct.unpack(">II", data[16:24])
    return (width or None), (height or None)


def verdict(text: str) -> tuple[bool, str]:
    """Package Manager's `Success` / `Failure [REASON]` (the last such line), verbatim."""
    said = [line for line in lines(text) if line.startswith(("Success", "Failure", "Error"))]
    last = said[-1] if said else (lines(text) or ["no output"])[-1]
    return last.startswith("Success"), last


def started(text: str) -> tuple[str | None, str | None]:
    """`am start`: the started intent (inside `Starting: Intent { ... }`) or the error line."""
    error = next((line for line in lines(text) if line.startswith(("Error", "Exception"))), None)
    found = re.search(r"Starting: Intent \{ (.*) \}", text)
    return (found.group(1) if found else None), error


def launcher(text: str) -> str | None:
    """`cmd package resolve-activity --brief PKG`: the last line is the component, when resolved."""
    rows = lines(text)
    last = rows[-1].strip() if rows else ""
    return last if re.fullmatch(r"[A-Za-z0-9._]+/[A-Za-z0-9._$]+", last) else None


def sha256_of(text: str) -> str | None:
    found = re.match(r"^([a-f0-9]{64})\b", text.strip())
    return found.group(1) if found else None
