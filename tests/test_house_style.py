"""House tooling as tests: ruff lint and format, mypy over the pure core, run by the suite itself."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff comes with the [test] extra")
def test_ruff_lint_is_clean():
    done = _run("ruff", "check", "--output-format", "concise", ".")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff comes with the [test] extra")
def test_ruff_format_is_clean():
    done = _run("ruff", "format", "--check", ".")
    assert done.returncode == 0, "run `ruff format .`:\n" + done.stdout + done.stderr


@pytest.mark.slow
def test_mypy_is_clean_on_the_pure_core():
    from rea.families import TYPED  # the scope derives from the one list of families

    done = _run(sys.executable, "-m", "mypy", *TYPED)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr
