"""The public library surface: lazy and engine-free, typed, and stable (a snapshot of every signature that
changes only with a CHANGELOG line). Run as a script with --write to rewrite the snapshot."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from returns.pipeline import is_successful

import rea
from rea.library.api import parse_snapshot, public_signatures, snapshot_text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: run as a script (--write), support is there too
from support import clean_env  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT = ROOT / "docs" / "public" / "library-api.txt"
CHANGELOG = ROOT / "CHANGELOG.md"
HEAVY = ("angr", "lief", "androguard", "mcp", "tree_sitter", "dnfile", "anyio")


def _loaded(code: str) -> dict[str, object]:
    probe = f"import sys, time\nt = time.perf_counter()\n{code}\nt = time.perf_counter() - t\n"
    probe += f"import json; print(json.dumps({{'heavy': [m for m in {HEAVY!r} if m in sys.modules], 's': t}}))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=clean_env(), cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_import_rea_loads_no_engine_parser_or_server():
    assert _loaded("import rea")["heavy"] == []


def test_every_public_name_resolves_without_an_engine_or_the_server():
    assert _loaded("import rea\nfor n in rea.__all__: getattr(rea, n)")["heavy"] == []


def test_the_one_list_of_names_is_all_and_no_name_hides_a_submodule():
    from rea import _PUBLIC

    assert rea.__all__ == sorted(_PUBLIC)
    submodules = {p.stem for p in (ROOT / "rea").iterdir() if p.suffix == ".py" or (p / "__init__.py").is_file()}
    assert not set(rea.__all__) & submodules
    assert set(rea.__all__) <= set(dir(rea))
    with pytest.raises(AttributeError):
        rea.no_such_name  # noqa: B018


def test_py_typed_ships_and_mypy_strict_accepts_the_public_names():
    assert (ROOT / "rea" / "py.typed").is_file()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'\[tool\.setuptools\.package-data\]\s*rea = \["py\.typed"\]', pyproject)
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "tests/library_typing.py"],
        capture_output=True, text=True, cwd=ROOT, env=clean_env(),
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    assert set(rea.__all__) <= set(re.findall(r"rea\.(\w+)", (ROOT / "tests" / "library_typing.py").read_text()))


def changelogged(name: str, changelog: str) -> bool:
    return f"`{name}`" in changelog


def unexplained(snapshot: dict[str, str], live: dict[str, str], changelog: str) -> list[str]:
    """Snapshot names that disappeared or changed signature with no CHANGELOG line naming them."""
    moved = [n for n, text in snapshot.items() if live.get(n) != text]
    return [n for n in moved if not changelogged(n, changelog)]


def test_a_name_that_disappears_or_changes_needs_a_changelog_line():
    snapshot, live = parse_snapshot(SNAPSHOT.read_text()), public_signatures()
    missing = unexplained(snapshot, live, CHANGELOG.read_text())
    assert not missing, f"public names removed or changed without a CHANGELOG.md line: {missing}"
    stale = sorted(n for n in {*snapshot, *live} if snapshot.get(n) != live.get(n))
    assert not stale, (
        f"docs/public/library-api.txt is stale for {stale}: run PYTHONPATH=. python3 tests/core/test_library_api.py --write"
    )


def test_the_changelog_rule_catches_a_removal_and_a_changed_signature():
    snapshot = {"kept": "function a()", "gone": "function b()", "changed": "function c(x)"}
    live = {"kept": "function a()", "changed": "function c(x, y)", "new": "function d()"}
    assert unexplained(snapshot, live, "") == ["gone", "changed"]
    assert unexplained(snapshot, live, "- `gone` was removed\n- `changed` takes y\n") == []


def test_canonical_values_and_refusals():
    assert rea.canonical_bytes({"b": 1, "a": [1.5, "é"]}).unwrap() == '{"a":[1.5,"é"],"b":1}'.encode()
    assert len(rea.canonical_digest([]).unwrap()) == 64
    refused = rea.canonical_bytes({"x": float("nan")}).failure()
    assert refused.code == "invalid_request" and "NaN" in refused.message
    assert rea.canonical_bytes({1: 2}).failure().code == "invalid_request"


def test_records_and_json_are_the_same_input_and_bad_input_is_a_canonical_error():
    from native_fixtures import dossier

    left, right = dossier(["g"]), dossier(["h"])
    as_records = rea.compare_functions(left, right).unwrap()
    assert as_records == rea.compare_functions(left.to_json(), right.to_json()).unwrap()
    several = rea.compare_functions([left], [right]).unwrap()
    assert several.parameters == as_records.parameters and several.evidence_id == as_records.evidence_id
    wrong = rea.compare_artifacts(left, right).failure()
    assert wrong.code == "invalid_request" and "analyze_function" in wrong.message
    shape = rea.derive("compare_artifacts", {"left": left.to_json()}).failure()
    assert shape.code == "invalid_request" and "right" in shape.message
    retained = rea.inspect_analysis_view({"kind": "retained-evidence", "evidence_id": left.evidence_id}).failure()
    assert retained.details["evidence_id"] == left.evidence_id  # not retained: nothing was handed in
    typed = rea.typed_result(as_records, rea.ArtifactComparison).failure()
    assert typed.code == "invalid_request" and "ComparisonResult" in typed.message
    assert is_successful(rea.typed_result(as_records, rea.FunctionComparison))


def test_every_derived_tool_runs_through_derive_and_nothing_else_does():
    from rea.workflows import DERIVED

    for tool in DERIVED:  # a family's new comparison is reachable before it is curated under its own name
        refused = rea.derive(tool, {"no_such_argument": 1}).failure()
        assert refused.code == "invalid_request" and refused.details.get("field") != "tool", tool
    for tool in ("open_binary", "analyze_function", "export_evidence_bundle"):
        assert rea.derive(tool, {}).failure().details["field"] == "tool"


def test_an_effect_the_library_cannot_perform_is_refused_and_a_raise_is_an_execution_failure():
    from rea.library.derive import _drive
    from rea.program import IdentifyTarget, ReportProgress
    from rea.session import Session

    def wants_io(session, args, ctx):
        yield ReportProgress(phase="computing", message="x")
        yield IdentifyTarget(path="/etc/hostname")

    def raises(session, args, ctx):
        yield ReportProgress(phase="computing", message="x")
        raise KeyError("items")

    refused = _drive("t", wants_io, Session(), {}).failure()
    assert refused.code == "capability_unavailable" and refused.details["effect"] == "IdentifyTarget"
    crashed = _drive("t", raises, Session(), {}).failure()
    assert crashed.code == "execution_failure" and crashed.details == {"phase": "computing", "exception": "KeyError"}


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: PYTHONPATH=. python3 tests/core/test_library_api.py --write")
    old = parse_snapshot(SNAPSHOT.read_text()) if SNAPSHOT.exists() else {}
    live = public_signatures()
    if missing := unexplained(old, live, CHANGELOG.read_text()):
        sys.exit(f"add a CHANGELOG.md line naming each of {missing} (in backticks) first")
    SNAPSHOT.write_text(snapshot_text(live))
    print(f"wrote {SNAPSHOT.relative_to(ROOT)}: {len(live)} names")
