"""The owned Ghidra worker process: the angr worker's lifecycle with Ghidra's program and deadline.

Each start imports the target into a fresh temporary project under the analysis cache
directory; stopping the worker group removes that project. The startup deadline is
REA_GHIDRA_STARTUP_TIMEOUT_MS (import, auto-analysis and the bridge all count against it).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from effects.native.engine import AngrWorker
from rea.errors import ReaError


class GhidraWorker(AngrWorker):
    MODULE = "effects.native.ghidra_worker"
    LABEL = "Ghidra"
    INTERRUPTIBLE: frozenset[str] = frozenset()  # no emulation here: a cancel stops the worker

    def __init__(self, path: str, provider: dict[str, Any], startup_timeout_ms: int, projects: Path, **kw: Any) -> None:
        super().__init__(path, provider, startup_timeout_ms, **kw)
        self.projects = projects
        self.project: Path | None = None

    def load_params(self) -> dict[str, Any]:
        self.projects.mkdir(parents=True, exist_ok=True)
        self.project = Path(tempfile.mkdtemp(prefix="rea-ghidra-", dir=self.projects))
        return {"path": self.path, "fat_slice": self.fat_slice, "project_root": str(self.project)}

    def waiting_notice(self, elapsed_s: float) -> tuple[str, str]:
        return (
            "waiting for Ghidra startup",
            f"{elapsed_s:.0f}s elapsed; import, auto-analysis and bridge readiness may all still be pending",
        )

    def startup_timeout(self) -> ReaError:
        limit = self.startup_timeout_ms
        return ReaError(  # the code angr's startup deadline answers with: one situation, one code
            code="provider_timeout",
            message=(
                f"Ghidra did not finish importing and auto-analysing the target within "
                f"REA_GHIDRA_STARTUP_TIMEOUT_MS={limit}. The worker and its temporary project were removed."
            ),
            details={
                "provider": self.provider,
                "phase": "startup",
                "resource": "provider_startup_deadline",
                "limit": "ghidra_startup_timeout_ms",
                "timeout_ms": limit,
            },
            action="Raise REA_GHIDRA_STARTUP_TIMEOUT_MS and restart REA, or close_binary and open_binary with "
            'provider_id "ghidra" to retry with a longer client deadline.',
        )

    async def stop(self) -> list[str]:
        remaining = await super().stop()
        project, self.project = self.project, None
        if project is not None and not remaining:
            shutil.rmtree(project, ignore_errors=True)
        return remaining
