"""Host facts about each declared provider, gathered without starting any engine."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
from typing import Any

from rea.native.ghidra_install import decide, parse_properties


def discover(environ: dict[str, str] | None = None) -> list[dict[str, Any]]:
    env = os.environ if environ is None else environ
    return [_angr(), _ghidra(env), _hopper(), _ida()]


def _angr() -> dict[str, Any]:
    if importlib.util.find_spec("angr") is None:
        return {
            "id": "angr",
            "available": False,
            "version": None,
            "code": "runtime_missing",
            "reason": "the angr package is not installed in REA's Python environment",
            "remediation": "python3 -m pip install -e . (angr is a REA dependency)",
        }
    return {
        "id": "angr",
        "available": True,
        "version": importlib.metadata.version("angr"),
        "diagnostics": {"python": sys.version.split()[0]},
    }


def _ghidra(env: Any) -> dict[str, Any]:
    """What the host has for Ghidra (nothing is started but `java -version`); ghidra_install decides."""
    home = env.get("GHIDRA_INSTALL_DIR")
    seen: dict[str, Any] = {"install_dir": home, "startup_timeout": env.get("REA_GHIDRA_STARTUP_TIMEOUT_MS")}
    if home and os.path.isdir(home):
        seen["is_dir"] = True
        seen["property_files"] = [name for name in PROPERTY_FILES if os.path.isfile(os.path.join(home, name))]
        seen["properties"] = _read_properties(os.path.join(home, "Ghidra", "application.properties"))
        java = _java(env)
        seen["java"] = java
        seen["java_version_text"] = None if java is None else _java_version(java)
        seen["pyghidra"] = _pyghidra()
    return decide(seen)


PROPERTY_FILES = ("support/launch.properties", "Ghidra/application.properties")
_JAVA_PROBES: dict[tuple[str, int, int], str | None] = {}


def _read_properties(path: str) -> dict[str, str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return parse_properties(handle.read(1 << 16))
    except OSError:
        return {}


def _java(env: Any) -> str | None:
    """JAVA_HOME/bin/java when JAVA_HOME is set (as Ghidra's launcher prefers), else java on PATH."""
    java_home = env.get("JAVA_HOME")
    if java_home:
        candidate = os.path.join(java_home, "bin", "java")
        return candidate if os.access(candidate, os.X_OK) else None
    return shutil.which("java", path=env.get("PATH"))


def _java_version(java: str) -> str | None:
    """What `java -version` prints (stderr), remembered per executable identity: discovery runs often."""
    try:
        stat = os.stat(java)
    except OSError:
        return None
    key = (java, stat.st_mtime_ns, stat.st_size)
    if key not in _JAVA_PROBES:
        try:
            done = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=10, check=False)
            _JAVA_PROBES[key] = (done.stderr + done.stdout)[:4096]
        except (OSError, subprocess.SubprocessError):
            _JAVA_PROBES[key] = None
    return _JAVA_PROBES[key]


def _pyghidra() -> str | None:
    """pyghidra's version when importable ("" when it has no package metadata), else None."""
    try:
        if importlib.util.find_spec("pyghidra") is None:
            return None
    except (ImportError, ValueError):
        return None
    try:
        return importlib.metadata.version("pyghidra")
    except importlib.metadata.PackageNotFoundError:
        return ""


def _hopper() -> dict[str, Any]:
    return {
        "id": "hopper",
        "available": False,
        "version": None,
        "bindable": False,
        "code": "unsupported_host",
        "reason": "the Hopper adapter runs on macOS only",
        "remediation": "Use the embedded angr provider on Linux.",
    }


def _ida() -> dict[str, Any]:
    return {
        "id": "ida",
        "available": False,
        "version": None,
        "bindable": False,
        "code": "unsupported_host",
        "reason": "no IDA adapter is available on this host in this build",
        "remediation": "Use the embedded angr provider.",
    }
