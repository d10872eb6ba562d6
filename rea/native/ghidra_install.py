"""Whether a Ghidra installation can be bound, decided from what effects observed on the host.

Observed: GHIDRA_INSTALL_DIR and whether it is a directory, which of its properties files exist
(support/launch.properties, Ghidra/application.properties) and the latter's parsed keys, the `java` chosen (JAVA_HOME/bin/java,
else PATH) with what `java -version` printed, and pyghidra's version when it is importable.
The checks run in a fixed order and the first that fails is the typed reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rea.native.providers import ghidra_startup_timeout

MIN_JAVA = 17
PYGHIDRA_REMEDIATION = "Install the bridge: python3 -m pip install pyghidra (into REA's Python), then restart REA."
_JAVA_VERSION = re.compile(r'version "(?P<v>[^"]{1,64})"')


def parse_properties(text: str) -> dict[str, str]:
    """key=value lines of a Java properties file (comments and blank lines skipped; first value wins)."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped[0] in "#!" or "=" not in stripped:
            continue
        key, _, value = stripped.partition("=")
        found.setdefault(key.strip(), value.strip())
    return found


def java_major(text: str) -> int | None:
    """The feature release of `java -version` output: "17.0.15" is 17, "1.8.0_292" is 8."""
    match = _JAVA_VERSION.search(text)
    if match is None:
        return None
    parts = re.split(r"[._+-]", match["v"])
    if not parts or not parts[0].isdigit():
        return None
    major = int(parts[0])
    if major == 1 and len(parts) > 1 and parts[1].isdigit():
        major = int(parts[1])
    return major if 1 <= major < 1000 else None


def _unavailable(code: str, reason: str, remediation: str, **diagnostics: Any) -> dict[str, Any]:
    return {
        "id": "ghidra",
        "version": None,
        "bindable": False,
        "available": False,
        "code": code,
        "reason": reason,
        "remediation": remediation,
        "diagnostics": diagnostics,
    }


def decide(seen: Mapping[str, Any]) -> dict[str, Any]:
    """The discovery fact for Ghidra: available and bindable, or the first failed check."""
    home = seen.get("install_dir")
    if not home:
        return _unavailable(
            "not_configured",
            "GHIDRA_INSTALL_DIR is not set",
            "Install Ghidra and a JDK, set GHIDRA_INSTALL_DIR, then restart REA.",
        )
    if not seen.get("is_dir"):
        return _unavailable(
            "executable_missing",
            f"GHIDRA_INSTALL_DIR={home} is not a directory",
            "Point GHIDRA_INSTALL_DIR at a Ghidra installation, then restart REA.",
        )
    startup = ghidra_startup_timeout(seen.get("startup_timeout"))
    if isinstance(startup, str):
        return _unavailable(
            "not_configured",
            startup,
            "Unset REA_GHIDRA_STARTUP_TIMEOUT_MS (330000 ms) or set a whole number of milliseconds "
            "in 1..2147483647, then restart REA.",
        )
    files = list(seen.get("property_files") or ())
    properties: Mapping[str, str] = seen.get("properties") or {}
    if not files:
        return _unavailable(
            "executable_missing",
            f"{home} has neither support/launch.properties nor Ghidra/application.properties",
            "Point GHIDRA_INSTALL_DIR at the root of an extracted Ghidra release, then restart REA.",
            install_dir=home,
        )
    facts = {"install_dir": home, "property_files": files, "startup_timeout_ms": startup}
    java = seen.get("java")
    if not java:
        return _unavailable(
            "runtime_missing",
            "no java executable (JAVA_HOME/bin/java or java on PATH)",
            f"Install a JDK {MIN_JAVA} or newer (Ghidra 11.2+ needs 21), set JAVA_HOME or PATH, then restart REA.",
            **facts,
        )
    major = java_major(str(seen.get("java_version_text") or ""))
    facts |= {"java": java, "java_major": major}
    if major is None or major < MIN_JAVA:
        shown = "an unreadable version" if major is None else f"Java {major}"
        return _unavailable(
            "version_unresolved" if major is None else "unsupported_version",
            f"{java} reports {shown}; Ghidra needs a JDK {MIN_JAVA} or newer",
            f"Install a JDK {MIN_JAVA} or newer and point JAVA_HOME at it, then restart REA.",
            **facts,
        )
    bridge = seen.get("pyghidra")
    if bridge is None:
        return _unavailable(
            "runtime_missing", "pyghidra is not importable in REA's Python", PYGHIDRA_REMEDIATION, **facts
        )
    version = _version(properties)
    return {
        "id": "ghidra",
        "version": version,
        "bindable": True,
        "available": True,
        "diagnostics": {**facts, "pyghidra": bridge or None, "application_version": version},
    }


def _version(properties: Mapping[str, str]) -> str | None:
    """application.version of Ghidra/application.properties (launch.properties has none)."""
    text = properties.get("application.version")
    return text if text and len(text) <= 64 and text.isprintable() else None
