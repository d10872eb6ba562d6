"""Mach-O files with real Objective-C metadata, and independent readers of it.

No Objective-C compiler exists on these machines, so the fixture is a clang-built
file from a registry package: pyobjc-core 10.3.1's universal (x86_64 + arm64)
`objc/_objc.cpython-311-darwin.so` from its macosx_10_9_universal2 wheel on PyPI
(`scripts/setup test` downloads it into tests/data/wheels). Its x86_64 slice has
absolute method lists, its arm64 slice relative ones. Ground truth comes from
Debian llvm-14's llvm-objdump --objc-meta-data and llvm-nm, not from lief or
the reader under test.
"""

from __future__ import annotations

import plistlib
import re
import shutil
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest

WHEEL = Path(__file__).parent / "data" / "wheels" / "pyobjc_core-10.3.1-cp311-cp311-macosx_10_9_universal2.whl"
MEMBER = "objc/_objc.cpython-311-darwin.so"
LLVM = Path("/usr/lib/llvm-14/bin")

needs_pyobjc = pytest.mark.skipif(
    not WHEEL.exists() or not (LLVM / "llvm-objdump").exists(),
    reason="pyobjc-core 10.3.1's wheel (scripts/setup test) or Debian llvm-14 is absent",
)


def pyobjc_binary(tmp: Path) -> Path:
    """The universal _objc extension, extracted from the wheel."""
    out = tmp / "_objc.so"
    with zipfile.ZipFile(WHEEL) as wheel:
        out.write_bytes(wheel.read(MEMBER))
    return out


CLASS_LINE = re.compile(r"^[0-9a-f]{16} 0x[0-9a-f]+ _OBJC_CLASS_\$_(\S+)$")


def objdump_classes(path: Path, arch: str) -> dict[str, dict[str, object]]:
    """Per class, as llvm-objdump prints __objc_classlist: superclass, instanceSize, method counts and selectors."""
    out = subprocess.run(
        [str(LLVM / "llvm-objdump"), "--macho", "--objc-meta-data", f"--arch={arch}", str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    section = out.split("__objc_classlist) section", 1)[1].split("Contents of", 1)[0]
    classes: dict[str, dict[str, object]] = {}
    current: dict[str, object] | None = None
    meta = in_methods = False
    for line in section.splitlines():
        word = line.strip().split(" ", 1)[0]
        if not line.startswith("\t"):
            in_methods = word == "baseMethods"
        found = CLASS_LINE.match(line)
        if found:
            current = {"super": None, "size": None, "counts": [], "selectors": [], "class_selectors": []}
            classes[found.group(1)] = current
            meta = False
        elif current is None:
            continue
        elif line == "Meta Class":
            meta = True
        elif not meta and line.lstrip().startswith("superclass "):
            parts = line.split()
            current["super"] = parts[2].split("_$_", 1)[1] if len(parts) > 2 else None
        elif not meta and line.strip().startswith("instanceSize "):
            current["size"] = int(line.split()[1])
        elif in_methods and line.strip().startswith("count "):
            current["counts"].append(int(line.split()[1]))  # type: ignore[union-attr]
        elif in_methods and line.strip().startswith("name 0x") and len(line.split()) == 3:
            current["class_selectors" if meta else "selectors"].append(line.split()[2])  # type: ignore[union-attr]
    return classes


def nm_symbols(path: Path, arch: str) -> dict[str, int]:
    out = subprocess.run(
        [str(LLVM / "llvm-nm"), f"--arch={arch}", str(path)], capture_output=True, text=True, check=True
    ).stdout
    found = {}
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[0]:
            found[parts[2]] = int(parts[0], 16)
    return found


def make_app(root: Path) -> Path:
    """An .app with nested bundles of every role, a launchd plist, the nibs, the catalog and a keyed archive."""
    app = root / "Demo.app"
    shutil.copytree(APP, app)
    contents = app / "Contents"
    for nested in ("PlugIns/Share.appex", "XPCServices/Fetch.xpc", "Library/LoginItems/Launcher.app",
                   "Frameworks/Kit.framework", "Library/LaunchServices/Helper.app"):  # fmt: skip
        (contents / nested).mkdir(parents=True)
        (contents / nested / "Info.plist").write_bytes(plistlib.dumps({"CFBundleIdentifier": "x"}))
    (contents / "Library/LaunchAgents").mkdir(parents=True)
    (contents / "Library/LaunchAgents/com.example.agent.plist").write_bytes(plistlib.dumps({"Label": "agent"}))
    (contents / "Info.plist").write_bytes(plistlib.dumps({"CFBundleIdentifier": "com.example.demo"}))
    (contents / "Resources/Model.plist").write_bytes(plistlib.dumps(cyclic_archive(), fmt=plistlib.FMT_BINARY))
    return app


INFO = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>CFBundleIdentifier</key><string>com.example.Demo</string>
  <key>CFBundleExecutable</key><string>Demo</string>
  <key>CFBundleName</key><string>Demo</string>
  <key>CFBundleVersion</key><string>42</string>
  <key>CFBundleShortVersionString</key><string>1.2.3</string>
  <key>LSMinimumSystemVersion</key><string>11.0</string>
  <key>Icon</key><data>AAEC</data>
  <key>Built</key><date>2026-01-02T03:04:05Z</date>
  <key>Big</key><integer>18446744073709551615</integer>
  <key>Flags</key><array><true/><false/><real>1.5</real></array>
</dict>
</plist>
"""


FIXTURES = Path(__file__).parent / "fixtures" / "apple"
APP = FIXTURES / "Sample.app"


def cyclic_archive() -> dict[str, Any]:
    """Two objects that point at each other, a shared class descriptor, a nil and a dangling UID."""
    objects = [
        "$null",
        {"$class": UID(3), "name": "a", "next": UID(2), "missing": UID(0)},
        {"$class": UID(3), "name": "b", "next": UID(1), "dangling": UID(40)},
        {"$classname": "Node", "$classes": ["Node", "NSObject"]},
    ]
    return {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": UID(1), "other": UID(2)},
            "$objects": objects}  # fmt: skip


UID = plistlib.UID
