"""trace_dylib_resolution on a bundle of Mach-O files the test builds with lief's builder.

Base image: the Go toolchain's `clang-amd64-darwin-exec-with-rpath` test binary (Debian
golang-1.19-src). lief adds the load commands; the test's own load-command reader (below, no
lief) is the ground truth for which commands each image holds, and the expected resolutions
are dyld's rules applied by hand to the layout the test makes. Hostile parts: an rpath loop
(libB's rpath points back at libA's directory and loads libA again), a symlink loop, an
absolute symlink, a dylib outside the analyzed root, a truncated Mach-O, a missing file.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
from pathlib import Path

import anyio
import lief
import pytest
from returns.result import Failure, Success

from artifact_fixtures import run_tools
from layout_fixtures import go_macho
from mcp_client import connect, error, evidence
from support import clean_env, rea_command

D = lief.MachO.DylibCommand
LC_REQ_DYLD = 0x80000000
DYLIB_COMMANDS = {
    0xC: "LC_LOAD_DYLIB",
    0x18 | LC_REQ_DYLD: "LC_LOAD_WEAK_DYLIB",
    0x1F | LC_REQ_DYLD: "LC_REEXPORT_DYLIB",
    0x20: "LC_LAZY_LOAD_DYLIB",
    0x23 | LC_REQ_DYLD: "LC_LOAD_UPWARD_DYLIB",
}
LC_ID_DYLIB, LC_RPATH, LC_SUB_LIBRARY = 0xD, 0x1C | LC_REQ_DYLD, 0x15


def load_commands(path: Path) -> dict[str, object]:
    """The dylib facts of a thin little-endian 64-bit Mach-O, read from its load commands directly."""
    data = path.read_bytes()
    magic, _, _, filetype, ncmds, _ = struct.unpack_from("<IiiIII", data, 0)
    assert magic == 0xFEEDFACF
    at, deps, rpaths, install = 32, [], [], None
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, at)
        (name_at,) = struct.unpack_from("<I", data, at + 8)
        text = data[at + name_at : at + size].split(b"\0", 1)[0].decode()
        if cmd in DYLIB_COMMANDS:
            deps.append((DYLIB_COMMANDS[cmd], text))
        elif cmd == LC_RPATH:
            rpaths.append(text)
        elif cmd == LC_ID_DYLIB:
            install = text
        at += size
    return {"filetype": filetype, "dependencies": deps, "rpaths": rpaths, "install_name": install}


def without_rpath(path: Path) -> Path:
    """The Go binary's own absolute /my/rpath would make every @rpath load conditional; lief's remove()
    crashes on this file, so its LC_RPATH becomes an LC_SUB_LIBRARY (same lc_str layout, ignored by dyld
    resolution) at the byte level."""
    data = bytearray(path.read_bytes())
    at, (ncmds,) = 32, struct.unpack_from("<I", data, 16)
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, at)
        if cmd == LC_RPATH:
            struct.pack_into("<I", data, at, LC_SUB_LIBRARY)
        at += size
    path.write_bytes(bytes(data))
    return path


def _image(base: Path, out: Path, *, dylib: str | None = None, rpaths=(), loads=()) -> Path:
    binary = lief.MachO.parse(str(base)).at(0)
    if dylib is not None:
        binary.header.file_type = lief.MachO.Header.FILE_TYPE.DYLIB
        binary.add(D.id_dylib(dylib, 2, 0x10000, 0x10000))
    for rpath in rpaths:
        binary.add(lief.MachO.RPathCommand.create(rpath))
    for factory, name in loads:
        binary.add(factory(name, 2, 0x10203, 0x10000))
    out.parent.mkdir(parents=True, exist_ok=True)
    binary.write(str(out))
    return out


def bundle(tmp: Path) -> Path:
    base = without_rpath(go_macho("clang-amd64-darwin-exec-with-rpath", tmp))
    app = tmp / "Demo.app"
    fw = app / "Contents/Frameworks"
    _image(
        base,
        app / "Contents/MacOS/Demo",
        rpaths=["@executable_path/../Nope", "@executable_path/../Frameworks"],
        loads=[
            (D.load_dylib, "@rpath/libA.dylib"),
            (D.weak_lib, "@rpath/libMissing.dylib"),
            (D.load_dylib, "@executable_path/../Frameworks/loop1"),
            (D.load_dylib, "@executable_path/../Frameworks/abs.dylib"),
        ],
    )
    _image(
        base,
        fw / "libA.dylib",
        dylib="@rpath/libA.dylib",
        rpaths=["@loader_path/inner"],
        loads=[(D.load_dylib, "@rpath/libB.dylib"), (D.lazy_load_dylib, "@rpath/libLazy.dylib")],
    )
    _image(
        base,
        fw / "inner/libB.dylib",
        dylib="@rpath/libB.dylib",
        rpaths=["@loader_path/.."],  # the loop: back to libA's directory
        loads=[
            (D.load_dylib, "@rpath/libA.dylib"),
            (D.load_dylib, "@loader_path/../../../../outside.dylib"),
            (D.load_dylib, "@loader_path/bad.dylib"),
        ],
    )
    _image(base, tmp / "outside.dylib", dylib="/outside.dylib")  # exists, but above the analyzed root
    (fw / "inner/bad.dylib").write_bytes((fw / "libA.dylib").read_bytes()[:40])  # truncated inside its commands
    os.symlink("loop2", fw / "loop1")
    os.symlink("loop1", fw / "loop2")
    os.symlink("/etc/hostname", fw / "abs.dylib")
    return app


def traced(path: Path, **args):
    replies, _ = run_tools([("open_binary", {"path": str(path)}), ("trace_dylib_resolution", args)])
    assert isinstance(replies[0], Success), replies[0]
    return replies[1]


EXPECTED = {  # (loader, install name) -> (status, image, candidate outcomes)
    ("Contents/MacOS/Demo", "/usr/lib/libSystem.B.dylib"): ("undetermined", None, ["outside-target"]),
    ("Contents/MacOS/Demo", "@rpath/libA.dylib"): (
        "resolved",
        "Contents/Frameworks/libA.dylib",
        ["absent", "resolved"],
    ),
    ("Contents/MacOS/Demo", "@rpath/libMissing.dylib"): ("unresolved", None, ["absent", "absent"]),
    ("Contents/MacOS/Demo", "@executable_path/../Frameworks/loop1"): ("unresolved", None, ["absent"]),
    ("Contents/MacOS/Demo", "@executable_path/../Frameworks/abs.dylib"): ("undetermined", None, ["escapes-target"]),
    ("Contents/Frameworks/libA.dylib", "/usr/lib/libSystem.B.dylib"): ("undetermined", None, ["outside-target"]),
    ("Contents/Frameworks/libA.dylib", "@rpath/libB.dylib"): (
        "resolved",
        "Contents/Frameworks/inner/libB.dylib",
        ["resolved"],
    ),
    ("Contents/Frameworks/libA.dylib", "@rpath/libLazy.dylib"): ("unresolved", None, ["absent", "absent", "absent"]),
    ("Contents/Frameworks/inner/libB.dylib", "/usr/lib/libSystem.B.dylib"): ("undetermined", None, ["outside-target"]),
    ("Contents/Frameworks/inner/libB.dylib", "@rpath/libA.dylib"): (
        "resolved",
        "Contents/Frameworks/libA.dylib",
        ["resolved"],
    ),
    ("Contents/Frameworks/inner/libB.dylib", "@loader_path/../../../../outside.dylib"): (
        "undetermined",
        None,
        ["escapes-target"],
    ),
    ("Contents/Frameworks/inner/libB.dylib", "@loader_path/bad.dylib"): ("unresolved", None, ["malformed"]),
}


def test_bundle_resolution_follows_dyld(tmp_path):
    app = bundle(tmp_path)
    ev = traced(app).unwrap()
    r = ev["normalized_result"]
    assert r["root_path"] == str(app) and r["roots"] == [{"image": "Contents/MacOS/Demo", "architecture": "x86_64"}]
    got = {(e["loader"], e["install_name"]): e for e in r["edges"]}
    assert set(got) == set(EXPECTED)
    for key, (status, image, outcomes) in EXPECTED.items():
        edge = got[key]
        assert (edge["resolution"]["status"], edge["resolution"]["image"]) == (status, image), key
        assert [c["outcome"] for c in edge["candidates"]] == outcomes, key
    # the loop ends: libB's load of libA reuses the loaded image, it is not searched again
    again = got[("Contents/Frameworks/inner/libB.dylib", "@rpath/libA.dylib")]
    assert again["candidates"][0]["source"] == "already-loaded" and again["install_name_matches"] is True
    # @rpath searched innermost first: libA's own rpath, then the executable's two
    lazy = got[("Contents/Frameworks/libA.dylib", "@rpath/libLazy.dylib")]
    assert [(c["rpath_owner"], c["rpath"]) for c in lazy["candidates"]] == [
        ("Contents/Frameworks/libA.dylib", "@loader_path/inner"),
        ("Contents/MacOS/Demo", "@executable_path/../Nope"),
        ("Contents/MacOS/Demo", "@executable_path/../Frameworks"),
    ]
    assert got[("Contents/Frameworks/inner/libB.dylib", "@rpath/libA.dylib")]["via"] == [
        "Contents/MacOS/Demo",
        "Contents/Frameworks/libA.dylib",
        "Contents/Frameworks/inner/libB.dylib",
    ]
    # every image's commands as the test's own reader sees them
    for edge_loader in {e["loader"] for e in r["edges"]}:
        truth = load_commands(app / edge_loader)
        mine = [(e["command"], e["install_name"]) for e in r["edges"] if e["loader"] == edge_loader]
        assert mine == truth["dependencies"]
        (row,) = [i for i in r["images"] if i["path"] == edge_loader]
        assert row["slices"][0]["rpaths"] == truth["rpaths"]
        assert row["slices"][0]["install_name"] == truth["install_name"]
    kinds = [
        (f["kind"], f["edge_index"] is not None and r["edges"][f["edge_index"]]["install_name"]) for f in r["findings"]
    ]
    assert ("weak-load-unresolved", "@rpath/libMissing.dylib") in kinds
    assert ("lazy-load-unresolved", "@rpath/libLazy.dylib") in kinds
    assert ("required-load-unresolved", "@loader_path/bad.dylib") in kinds
    assert ("earlier-rpath-candidate-absent", "@rpath/libA.dylib") in kinds
    assert r["coverage"]["status"] == "partial" and r["coverage"]["unparsed_images"] == [
        "Contents/Frameworks/inner/bad.dylib"
    ]
    assert all(i["path"] != "../outside.dylib" for i in r["images"])


def test_single_image_roots_and_refusals(tmp_path):
    app = bundle(tmp_path)
    lib = app / "Contents/Frameworks/libA.dylib"
    r = traced(lib).unwrap()["normalized_result"]
    assert r["root_path"] == str(lib.parent) and r["roots"] == [{"image": "libA.dylib", "architecture": "x86_64"}]
    by_name = {e["install_name"]: e for e in r["edges"]}
    assert by_name["@rpath/libB.dylib"]["resolution"] == {"status": "resolved", "image": "inner/libB.dylib"}
    none = traced(app, architecture="arm64").unwrap()["normalized_result"]
    assert none["roots"] == [] and none["coverage"]["roots_without_architecture"] == ["Contents/MacOS/Demo"]
    chosen = traced(app, roots=["Contents/Frameworks/inner/libB.dylib"]).unwrap()["normalized_result"]
    assert [x["image"] for x in chosen["roots"]] == ["Contents/Frameworks/inner/libB.dylib"]
    for roots, why in ((["Contents/Frameworks/abs.dylib"], "outside"), (["Contents/Info.plist"], "regular file")):
        refused = traced(app, roots=roots)
        assert isinstance(refused, Failure) and refused.failure().code == "invalid_request"
        assert why in refused.failure().message
    cache = traced(app, shared_cache="/System/Library/dyld/dyld_shared_cache_arm64e")
    assert cache.failure().code == "capability_unavailable"


@pytest.mark.slow
def test_trace_over_mcp_and_cli(tmp_path):
    app = bundle(tmp_path)

    async def main():
        async with connect() as s:
            none = await s.call_tool("trace_dylib_resolution", {})
            await s.call_tool("open_binary", {"path": str(app)})
            return none, await s.call_tool("trace_dylib_resolution", {})

    none, got = anyio.run(main)
    error(none, "target_unavailable")
    edges = evidence(got)["normalized_result"]["edges"]
    assert {(e["loader"], e["install_name"]) for e in edges} == set(EXPECTED)
    out = subprocess.run(
        [*rea_command(), "trace-dylib-resolution", str(app), "--json"], capture_output=True, text=True, env=clean_env()
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["normalized_result"]["edges"] == edges
    text = subprocess.run(
        [*rea_command(), "trace-dylib-resolution", str(app)], capture_output=True, text=True, env=clean_env()
    )
    assert "@rpath/libA.dylib -> resolved Contents/Frameworks/libA.dylib" in text.stdout
