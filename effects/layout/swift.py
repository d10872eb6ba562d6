"""demangle_swift through the host's swift-demangle: run it once on every symbol, or say exactly what is missing.

No Swift toolchain installs from the registries this project uses, so on most
hosts the answer is typed unavailability with the remediation; where a toolchain
puts swift-demangle on PATH, it runs as an owned, bounded child process.
"""

from __future__ import annotations

import hashlib
import shutil
import signal
from collections.abc import Callable
from typing import Any

import anyio
from returns.result import Failure, Result, Success

from effects.progress import Progress
from rea.errors import ReaError
from rea.layout.macho_records import CommandProvenance
from rea.layout.model import DemangleSwift
from rea.layout.swift import SwiftRun

TIMEOUT_S = 60
OUTPUT_BUDGET = 16 << 20


def _missing() -> ReaError:
    return ReaError(
        code="capability_unavailable",
        message="demangle_swift needs swift-demangle, which is not on PATH (no Swift toolchain is installed).",
        details={"provider": "swift-demangle", "reason": "provider_missing", "missing": "swift-demangle"},
        action=(
            "Install a Swift toolchain that provides swift-demangle (swift.org releases; none ships in the Debian, "
            "PyPI or npm registries), put it on PATH, restart REA, then call again."
        ),
    )


async def demangle_swift(effect: DemangleSwift, progress: Progress) -> Result[Any, ReaError]:
    tool = shutil.which("swift-demangle")
    if tool is None:
        return Failure(_missing())
    with open(tool, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    argv = [tool, "--compact"]
    stdin = ("\n".join(effect.symbols) + "\n").encode()
    try:
        with anyio.fail_after(TIMEOUT_S):
            done = await anyio.run_process(argv, input=stdin, check=False)
            version = await anyio.run_process([tool, "--version"], check=False)
    except TimeoutError:
        return Failure(
            ReaError(
                code="provider_timeout",
                message=f"swift-demangle did not finish in {TIMEOUT_S} s.",
                details={"provider": "swift-demangle", "timeout_s": TIMEOUT_S},
                action="Call again with fewer symbols.",
            )
        )
    out, err = done.stdout[:OUTPUT_BUDGET], done.stderr[:OUTPUT_BUDGET]
    code = done.returncode
    banner = (version.stdout or version.stderr).decode("utf-8", "replace").strip() or None
    return Success(
        SwiftRun(
            lines=tuple(out.decode("utf-8", "replace").splitlines()),
            provenance=CommandProvenance(
                tool="swift-demangle",
                command=("swift-demangle", "--compact"),
                tool_version=banner,
                version_reason=None if banner else "swift-demangle --version printed nothing",
                executable_sha256=digest,
                exit={
                    "code": code if code >= 0 else None,
                    "signal": signal.Signals(-code).name if code < 0 else None,
                },
                stdout_bytes=len(done.stdout),
                stderr_bytes=len(done.stderr),
                stdout_truncated=len(done.stdout) > OUTPUT_BUDGET,
                stderr_truncated=len(done.stderr) > OUTPUT_BUDGET,
            ),
            stderr=err.decode("utf-8", "replace"),
        )
    )


HANDLERS: dict[type, Callable[..., Any]] = {DemangleSwift: demangle_swift}
