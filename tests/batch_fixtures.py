"""A mixed corpus for `rea batch`, built here by the real producers: gcc and mingw executables,
a mono assembly, wat2wasm modules, an aapt/smali APK, an @electron/asar archive, zip and tar
files from Python's own writers, plain text and lone scripts, then byte-for-byte duplicates and
corrupt files (truncated executables and archives, magic bytes followed by garbage).

`expected` says, for every file, which status and kind the batch must report, so the tests
compare the batch against what the corpus was built to be, not against the batch itself.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from android_fixtures import missing_tools, unsigned_apk
from artifact_fixtures import make_tar, make_zip, pack_asar

C_SOURCE = (
    '#include <stdio.h>\nint f(int x) { return x * %d; }\nint main(void) { printf("%%d\\n", f(%d)); return 0; }\n'
)
CS_SOURCE = "public static class Program { public static int Main() { return %d; } }\n"
WAT = '(module (func (export "f") (result i32) i32.const %d))\n'


def _gcc(out: Path, n: int, compiler: str = "gcc") -> Path:
    src = out.with_suffix(".c.src")
    src.write_text(C_SOURCE % (n, n))
    subprocess.run([compiler, "-x", "c", "-O1", str(src), "-o", str(out)], check=True, capture_output=True)
    src.unlink()
    return out


def _wasm(out: Path, n: int) -> Path:
    src = out.with_suffix(".wat")
    src.write_text(WAT % n)
    subprocess.run(["wat2wasm", str(src), "-o", str(out)], check=True, capture_output=True)
    src.unlink()
    return out


def _mcs(out: Path, n: int) -> Path:
    src = out.with_suffix(".cs")
    src.write_text(CS_SOURCE % n)
    subprocess.run(["mcs", "-target:exe", f"-out:{out}", str(src)], check=True, capture_output=True)
    src.unlink()
    return out


def _truncated(source: Path, out: Path, keep: int) -> Path:
    out.write_bytes(source.read_bytes()[:keep])
    return out


def build_corpus(root: Path) -> dict[str, tuple[str, str]]:
    """Write the corpus under root; answer relative path -> (expected status, expected kind)."""
    root.mkdir(parents=True, exist_ok=True)
    native, archives, other, broken, dups = (root / d for d in ("native", "archives", "other", "broken", "repeat"))
    for d in (native, archives, other, broken, dups):
        d.mkdir()
    expected: dict[str, tuple[str, str]] = {}

    def put(path: Path, status: str, kind: str) -> Path:
        expected[str(path.relative_to(root))] = (status, kind)
        return path

    for n in range(2, 5):
        put(_gcc(native / f"elf{n}", n), "analysed", "native")
    if shutil.which("x86_64-w64-mingw32-gcc"):
        put(_gcc(native / "tool.exe", 11, "x86_64-w64-mingw32-gcc"), "analysed", "native")
    if shutil.which("mcs"):
        put(_mcs(native / "hello.exe", 5), "analysed", "managed")
    put(_wasm(native / "m0.wasm", 0), "analysed", "wasm")
    if not missing_tools():
        apk = unsigned_apk(root / "apkwork")
        put(Path(shutil.move(apk, archives / "demo.apk")), "analysed", "android")
        shutil.rmtree(root / "apkwork")
    app = root / "appsrc"
    app.mkdir()
    (app / "package.json").write_text('{"name": "demo", "main": "main.js"}')
    (app / "main.js").write_text("const { app } = require('electron');\napp.whenReady().then(() => 1);\n")
    put(pack_asar(app, archives / "app.asar"), "analysed", "javascript")
    shutil.rmtree(app)
    for n in range(3):
        put(make_zip(archives / f"z{n}.zip", {f"f{n}.txt": b"x" * (n + 1), "readme": b"r"}), "analysed", "archive")
    for n in range(1):
        put(make_tar(archives / f"t{n}.tar.gz", {f"a{n}.txt": b"y" * (n + 3)}), "analysed", "archive")
    for n in range(13):
        put(other / f"note{n}.txt", "identified", "other").write_text(f"note {n}\n")
    for n in range(3):
        put(other / f"s{n}.js", "identified", "javascript-file").write_text(f"console.log({n});\n")
    # duplicates: the same bytes under another name are analysed once, at the first path in sorted order
    copies = {"native/elf2": 3, "native/elf3": 2, "archives/z0.zip": 3, "archives/z1.zip": 2,
              "other/note0.txt": 3, "other/note1.txt": 2, "native/m0.wasm": 1, "archives/t0.tar.gz": 1}  # fmt: skip
    for src, count in copies.items():
        for n in range(count):
            shutil.copyfile(root / src, put(dups / f"{n}-{Path(src).name}", "duplicate", expected[src][1]))
    # corrupt: each fails on its own canonical error; the batch goes on
    put(_truncated(native / "elf2", broken / "short.elf", 300), "failed", "native")
    put(_truncated(archives / "z2.zip", broken / "cut.zip", 30), "failed", "archive")
    put(broken / "junk.wasm", "failed", "wasm").write_bytes(b"\0asm\x01\0\0\0" + b"\xff" * 64)
    put(broken / "fake.exe", "failed", "native").write_bytes(b"MZ" + b"\x90" * 200)
    put(broken / "empty.bin", "identified", "other").write_bytes(b"")
    return expected


if __name__ == "__main__":  # build one by hand: python tests/batch_fixtures.py /tmp/corpus
    print(len(build_corpus(Path(sys.argv[1]))))
