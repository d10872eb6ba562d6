"""Shared test builders: real Evidence records and real bundle files made by REA's own code."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from rea.bundle import bundle_chunks
from rea.evidence import Evidence, Provider, Subject, create_evidence, create_profile
from rea.session import Session, record

PROVIDER = Provider(id="fixture-engine", name="Fixture engine", version="1.0")
PROFILE = create_profile(PROVIDER, 1, {"cfg": "fast", "decompiler": {"structurer": "phoenix"}})


def make_evidence(
    i: int, *, payload_bytes: int = 200, sha: str | None = None, operation: str = "analyze_function"
) -> Evidence:
    subject = Subject(
        name=f"bin{i % 3}",
        sha256=sha or f"{i % 3:064x}",
        format="elf",
        architecture="x86_64",
        local_path=f"/tmp/bin{i % 3}",
    )
    return create_evidence(
        provider=PROVIDER,
        operation=operation,
        parameters={"address": f"0x{0x401000 + i:x}"},
        normalized_result={
            "procedure": {"address": f"0x{0x401000 + i:x}", "name": f"fn_{i}"},
            "pseudocode": "x" * payload_bytes,
            "score": i / 7,
        },
        subject=subject,
        analysis_profile=PROFILE,
        locations=[{"kind": "address", "address": f"0x{0x401000 + i:x}"}],
    ).unwrap()


def ledger(n: int, **kw: Any) -> Session:
    return record(Session(), (make_evidence(i, **kw) for i in range(n)))


def write_bundle(path: Path, session: Session) -> Path:
    with open(path, "wb") as handle:
        for chunk in bundle_chunks(session):
            handle.write(chunk)
    return path


def rea_command() -> list[str]:
    """The installed console script when present, else the same entry point through this interpreter."""
    exe = Path(sys.executable).parent / "rea"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "effects.cli"]


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REA_")}
    env.update(extra)
    return env
