"""A test run needs no network: every npm fixture is installed by `sh scripts/setup test`."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_npm_fixture_is_installed_by_setup():
    setup = (ROOT / "scripts" / "setup").read_text()
    listed = set(re.search(r"NPM_FIXTURES='([^']*)'", setup).group(1).split())
    fixtures = {str(p.parent.relative_to(ROOT)) for p in (ROOT / "tests" / "fixtures").glob("*/package-lock.json")}
    assert fixtures and fixtures == listed


def test_no_test_reaches_a_registry():
    """No test runs npm ci / npm install / npm exec (they would need a registry at test time;
    `just bench` is not a test run and may install its benchmark trees)."""
    needs_network = re.compile(r"""["']npm["'],\s*["'](ci|install|i|exec)["']""")
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "tests").rglob("*.py")
        if not {"node_modules", "benchmarks"} & set(path.parts) and needs_network.search(path.read_text())
    ]
    assert offenders == []
