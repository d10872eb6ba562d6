"""Host facts about each declared provider, gathered without starting any engine."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
import sys
from typing import Any

from rea.native.providers import ghidra_startup_timeout


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
    home = env.get("GHIDRA_INSTALL_DIR")
    java = shutil.which("java")
    base = {"id": "ghidra", "version": None, "bindable": False}
    if not home:
        return {
            **base,
            "available": False,
            "code": "not_configured",
            "reason": "GHIDRA_INSTALL_DIR is not set",
            "remediation": "Install Ghidra and a JDK, set GHIDRA_INSTALL_DIR, then restart REA.",
        }
    if not os.path.isdir(home):
        return {
            **base,
            "available": False,
            "code": "executable_missing",
            "reason": f"GHIDRA_INSTALL_DIR={home} is not a directory",
            "remediation": "Point GHIDRA_INSTALL_DIR at a Ghidra installation, then restart REA.",
        }
    startup = ghidra_startup_timeout(env.get("REA_GHIDRA_STARTUP_TIMEOUT_MS"))
    if isinstance(startup, str):
        return {
            **base,
            "available": False,
            "code": "not_configured",
            "reason": startup,
            "remediation": "Unset REA_GHIDRA_STARTUP_TIMEOUT_MS (330000 ms) or set a whole number of milliseconds "
            "in 1..2147483647, then restart REA.",
        }
    if java is None:
        return {
            **base,
            "available": False,
            "code": "runtime_missing",
            "reason": "no java executable on PATH",
            "remediation": "Install a JDK (Ghidra needs Java 21), then restart REA.",
        }
    bridge = importlib.util.find_spec("pyghidra") and importlib.metadata.version("pyghidra")
    diagnostics = {"install_dir": home, "java": java, "startup_timeout_ms": startup, "pyghidra": bridge or None}
    return {**base, "available": True, "diagnostics": diagnostics}


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
