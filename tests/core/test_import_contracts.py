"""The pure core stays pure: enforced by import-linter and a scan for IO calls."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_import_linter_contracts_hold():
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    proc = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Contracts: 3 kept, 0 broken" in proc.stdout


# The two aggregators import the modules the one list of families names (rea.families): the list
# is static data in rea/, so the import is the same as a written-out `import`; strings only break
# the circle between the session family's programs and the catalog they list.
FAMILY_AGGREGATORS = {"rea/catalog/__init__.py", "rea/catalog/toolsets.py", "rea/workflows/table.py"}


def test_no_io_calls_in_the_core():
    pattern = re.compile(
        r"(^|[^.\w])open\(|\.read_(text|bytes)\(|\.write_(text|bytes)\(|os\.environ|"
        r"datetime\.now|time\.time|__import__\(|importlib"
    )
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "rea").rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line) and not (str(path.relative_to(ROOT)) in FAMILY_AGGREGATORS and "importlib" in line)
    ]
    assert offenders == []
