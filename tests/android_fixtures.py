"""APKs built at test time by the real Android tools Debian ships, without the network or an SDK.

`smali` (libsmali-java) assembles classes.dex from tests/fixtures/android/smali, Debian
`aapt` compiles the manifest and resources against Debian's framework-res.apk
(android-framework-res), and `apksigner` (Debian apksigner) signs v1+v2+v3(+v4) with a
throwaway key made by `openssl`. Ground truth comes from `aapt dump`, `dexdump` and
`apksigner verify`, never from androguard.
"""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

FIXTURE = Path(__file__).parent / "fixtures" / "android"
FRAMEWORK = Path("/usr/share/android-framework-res/framework-res.apk")
TOOLS = ("aapt", "smali", "apksigner", "openssl", "dexdump")


def missing_tools() -> list[str]:
    found = [t for t in TOOLS if shutil.which(t) is None]
    return found + ([] if FRAMEWORK.is_file() else [str(FRAMEWORK)])


def _run(*cmd: str | Path) -> str:
    return subprocess.run([str(c) for c in cmd], check=True, capture_output=True, text=True, timeout=120).stdout


def dex(out: Path, smali_dir: Path = FIXTURE / "smali") -> Path:
    _run("smali", "assemble", "-o", out, smali_dir)
    return out


def unsigned_apk(work: Path, *, extra: dict[str, bytes] | None = None, dexes: int = 1) -> Path:
    """manifest + resources (aapt), classes.dex (smali), a native library; `dexes` > 1 splits into multidex."""
    work.mkdir(parents=True, exist_ok=True)
    apk = work / "unsigned.apk"
    _run(
        "aapt",
        "package",
        "-f",
        "-M",
        FIXTURE / "AndroidManifest.xml",
        "-S",
        FIXTURE / "res",
        "-I",
        FRAMEWORK,
        "-F",
        apk,
    )
    with zipfile.ZipFile(apk, "a") as z:
        if dexes == 1:
            z.write(dex(work / "classes.dex"), "classes.dex")
        else:
            _multidex(work, z, dexes)
        z.writestr("lib/arm64-v8a/libnative-lib.so", b"\x7fELF\x02\x01\x01" + b"\0" * 57)
        z.writestr("lib/x86_64/libnative-lib.so", b"\x7fELF\x02\x01\x01" + b"\0" * 57)
        z.writestr("assets/www/index.html", b"<html><script src='app.js'></script></html>")
        for name, data in (extra or {}).items():
            z.writestr(name, data)
    return apk


def _multidex(work: Path, z: zipfile.ZipFile, count: int) -> None:
    classes = sorted((FIXTURE / "smali").rglob("*.smali"))
    for i in range(count):
        part = work / f"smali{i}"
        for src in classes[i::count]:
            target = part / src.relative_to(FIXTURE / "smali")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, target)
        if part.exists():
            name = "classes.dex" if i == 0 else f"classes{i + 1}.dex"
            z.write(dex(work / name, part), name)


def signing_key(work: Path) -> tuple[Path, Path]:
    key, cert, pk8 = work / "key.pem", work / "cert.pem", work / "key.pk8"
    if not pk8.exists():
        _run(
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            key,
            "-out",
            cert,
            "-days",
            "3650",
            "-subj",
            "/CN=REA Test Signer",
        )
        _run("openssl", "pkcs8", "-topk8", "-nocrypt", "-in", key, "-outform", "DER", "-out", pk8)
    return pk8, cert


def sign(unsigned: Path, out: Path, *, v4: bool = True) -> Path:
    pk8, cert = signing_key(unsigned.parent)
    _run(
        "apksigner",
        "sign",
        "--key",
        pk8,
        "--cert",
        cert,
        "--min-sdk-version",
        "21",
        "--v1-signing-enabled",
        "true",
        "--v2-signing-enabled",
        "true",
        "--v3-signing-enabled",
        "true",
        "--v4-signing-enabled",
        "true" if v4 else "false",
        "--out",
        out,
        unsigned,
    )
    return out


def signed_apk(work: Path, **options: object) -> Path:
    return sign(unsigned_apk(work, **options), work / "demo.apk")  # type: ignore[arg-type]


def badging(apk: Path) -> str:
    return _run("aapt", "dump", "badging", apk)


def verify(apk: Path) -> str:
    return subprocess.run(
        ["apksigner", "verify", "-v", "--print-certs", str(apk)], capture_output=True, text=True, timeout=120
    ).stdout


def dexdump_classes(dex_path: Path) -> list[str]:
    out = _run("dexdump", dex_path)
    return sorted(line.split("'")[1] for line in out.splitlines() if line.strip().startswith("Class descriptor"))
