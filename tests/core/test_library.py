"""The public library against the MCP server: real producers (aapt/smali APKs, gcc binaries analysed by
angr, an Electron-shaped tree, mcs-built assemblies) make Evidence through the real stdio server; every
library comparison and view over the same inline inputs answers the same canonical bytes as the tool.
docs/library.md's examples run here over the Evidence files of that session."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from returns.pipeline import is_successful

import rea
from android_fixtures import missing_tools, unsigned_apk
from javascript_fixtures import APP, write_tree
from managed_fixtures import library, library_v2
from mcp_client import connect
from rea.canonical_json import canonicalize
from support import clean_env, rea_command

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
SAMPLE = Path(__file__).parents[1] / "fixtures" / "sample.c"
NEEDED = ("gcc", "mcs")
EXPORT = {"left_module_path": "src/renderer/format.ts", "left_export_name": "format"} | {
    "right_module_path": "src/renderer/format.ts",
    "right_export_name": "format",
}


def _ok(reply: Any) -> dict[str, Any]:
    assert reply.is_error is False, reply.content[0].text
    assert reply.content[0].text.encode() == canonicalize(reply.structured_content)
    return reply.structured_content


def _inputs(work: Path) -> dict[str, Path]:
    lacking = [t for t in NEEDED if shutil.which(t) is None] + missing_tools()
    if lacking:
        pytest.skip(f"needs {', '.join(lacking)} (scripts/setup test)")
    paths = {
        "apk_left": unsigned_apk(work / "v1", extra={"assets/config.json": b'{"v": 1}'}),
        "apk_right": unsigned_apk(
            work / "v2", extra={"assets/config.json": b'{"v": 2}', "assets/added.txt": b"new in v2"}
        ),
        "js_left": write_tree(work / "app1", APP),
        "js_right": write_tree(
            work / "app2",
            {**APP, "src/renderer/format.ts": "export function format(t: number) { return { text: String(t) }; }\n"},
        ),
        "dll_left": library(_dir(work / "dotnet")),
        "dll_right": library_v2(work / "dotnet"),
    }
    for level in ("O0", "O2"):
        target = work / f"sample-{level}"
        subprocess.run(["gcc", f"-{level}", "-o", str(target), str(SAMPLE)], check=True, capture_output=True)
        paths[level] = target
    return paths


def _dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


async def _produce(s: Any, paths: dict[str, Path], work: Path) -> dict[str, Any]:
    """Every input record, made by its producer in one session."""
    made: dict[str, Any] = {}
    for side in ("left", "right"):
        _ok(await s.call_tool("open_binary", {"path": str(paths[f"apk_{side}"])}))
        made[f"apk_{side}"] = _ok(await s.call_tool("inventory_artifact", {}))
        app = {"input_path": str(paths[f"js_{side}"])}
        made[f"js_{side}"] = _ok(await s.call_tool("analyze_javascript_application", app))
        made[f"dll_{side}"] = _ok(await s.call_tool("inspect_managed_members", {"path": str(paths[f"dll_{side}"])}))
    for level in ("O0", "O2"):
        _ok(await s.call_tool("open_binary", {"path": str(paths[level])}))
        made[level] = _ok(await s.call_tool("analyze_function", {"procedure": "compute"}))
    _ok(await s.call_tool("export_evidence_bundle", {"path": str(work / "bundle.json")}))
    return made


def _cases(made: dict[str, Any]) -> list[tuple[str, dict[str, Any], Any]]:
    """(tool, its MCP arguments, the library call over the same inline records)."""
    apk, js, dll, o0, o2 = (
        (made["apk_left"], made["apk_right"]),
        (made["js_left"], made["js_right"]),
        (made["dll_left"], made["dll_right"]),
        made["O0"],
        made["O2"],
    )
    tampered = json.loads(json.dumps(o2))
    tampered["normalized_result"]["procedure"]["name"] = "not_compute"
    ref = {"kind": "retained-evidence"}
    view = {"kind": "inventory", "facet": "occurrences", "offset": 1, "limit": 2}
    native = {"kind": "native", "facet": "assembly", "limit": 4}
    return [
        ("compare_artifacts", {"left": apk[0], "right": apk[1]}, lambda: rea.compare_artifacts(*apk)),
        ("compare_artifacts", {"left": [apk[0]], "right": apk[1], "limit": 1},
         lambda: rea.compare_artifacts([apk[0]], apk[1], limit=1)),
        ("compare_functions", {"left": o0, "right": o2}, lambda: rea.compare_functions(o0, o2)),
        ("compare_functions", {"left": o0, "right": tampered}, lambda: rea.compare_functions(o0, tampered)),
        ("compare_application_versions", {"left": js[0], "right": js[1]},
         lambda: rea.compare_application_versions(*js)),
        ("compare_application_versions", {"left": js[0], "right": js[1], "left_native_observations": [o0]},
         lambda: rea.compare_application_versions(*js, left_native_observations=[o0])),
        ("compare_source_to_bundle", {"application": js[1]}, lambda: rea.compare_source_to_bundle(js[1])),
        ("compare_source_to_bundle", {"application": js[1], "reference": js[0]},
         lambda: rea.compare_source_to_bundle(js[1], js[0])),
        ("compare_javascript_export_shapes", {"left": js[0], "right": js[1], **EXPORT},
         lambda: rea.compare_javascript_export_shapes(*js, **EXPORT)),
        ("compare_managed_members",
         {"left_evidence_id": dll[0]["evidence_id"], "right_evidence_id": dll[1]["evidence_id"]},
         lambda: rea.compare_managed_members(*dll)),
        ("compare_managed_members",
         {"left_evidence_id": dll[0]["evidence_id"], "right_evidence_id": apk[0]["evidence_id"]},
         lambda: rea.compare_managed_members(dll[0], apk[0])),
        ("inspect_analysis_view", {"source": {"kind": "inline", "evidence": apk[0]}, "view": view},
         lambda: rea.inspect_analysis_view(apk[0], view)),
        ("inspect_analysis_view", {"source": {**ref, "evidence_id": o2["evidence_id"]}, "view": native},
         lambda: rea.inspect_analysis_view({**ref, "evidence_id": o2["evidence_id"]}, native, retained=[o2])),
        ("inspect_analysis_view", {"source": {"kind": "inline", "evidence": js[0]}},
         lambda: rea.inspect_analysis_view(js[0])),
    ]  # fmt: skip


def _tool_bytes(reply: Any) -> bytes:
    """The tool's answer as canonical JSON: the Evidence record, or the {"error": ...} body."""
    if reply.is_error:
        return canonicalize(json.loads(reply.content[0].text))
    return canonicalize(_ok(reply))


def _library_bytes(answer: Any) -> bytes:
    if is_successful(answer):
        return canonicalize(answer.unwrap().to_json())
    return canonicalize(answer.failure().to_json())


@pytest.fixture(scope="module")
def session(tmp_path_factory) -> dict[str, Any]:
    work = tmp_path_factory.mktemp("library")
    paths = _inputs(work)
    cache = str(_dir(work / "cache"))

    async def main() -> dict[str, Any]:
        async with connect(REA_CACHE_DIR=cache) as s:
            made = await _produce(s, paths, work)
            cases = _cases(made)
            replies = [await s.call_tool(tool, args) for tool, args, _ in cases]
            return {"made": made, "cases": cases, "replies": replies}

    produced = anyio.run(main)
    files = {"left-apk": "apk_left", "right-apk": "apk_right", "dossier-O0": "O0", "dossier-O2": "O2"}
    for name, key in files.items():
        (work / f"{name}.json").write_bytes(canonicalize(produced["made"][key]))
    produced["dir"] = work
    return produced


def test_every_library_comparison_answers_the_tool_s_bytes(session):
    covered = set()
    for (tool, args, library_call), reply in zip(session["cases"], session["replies"]):
        assert _library_bytes(library_call()) == _tool_bytes(reply), f"{tool} {sorted(args)}"
        covered.add(tool)
    from rea.workflows import DERIVED

    assert covered == set(DERIVED) & set(rea.__all__), "every named derived tool has a parity case"
    errors = [r for r in session["replies"] if r.is_error]
    assert {json.loads(r.content[0].text)["error"]["code"] for r in errors} == {
        "evidence_integrity_mismatch",
        "invalid_request",
    }, "the refusals are compared too"


def test_every_answer_structures_into_its_typed_result_record(session):
    from rea.catalog import BY_NAME

    for tool, _args, library_call in session["cases"]:
        answer = library_call()
        if is_successful(answer):
            typed = rea.typed_result(answer.unwrap(), BY_NAME[tool].result_type)
            assert is_successful(typed), typed.failure().message


def _cli(*args: str) -> Any:
    out = subprocess.run(
        [*rea_command(), *args, "--json"], capture_output=True, text=True, env=clean_env(), timeout=300
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_the_cli_answers_the_library_s_bytes(session):
    files = [str(session["dir"] / f"{side}-apk.json") for side in ("left", "right")]
    left, right = session["made"]["apk_left"], session["made"]["apk_right"]
    library = rea.compare_artifacts(left, right).unwrap().to_json()
    assert canonicalize(_cli("compare-artifacts", *files)) == canonicalize(library)
    view = {"kind": "inventory", "facet": "edges", "limit": 2}
    paged = rea.inspect_analysis_view(left, view).unwrap().to_json()
    assert canonicalize(_cli("inspect-analysis-view", files[0], "--view", json.dumps(view))) == canonicalize(paged)


def test_derive_takes_the_typed_argument_record(session):
    o0, o2 = session["made"]["O0"], session["made"]["O2"]
    direct = rea.compare_functions(o0, o2).unwrap()
    typed = rea.derive("compare_functions", rea.FunctionComparisonArgs(left=o0, right=o2)).unwrap()
    assert typed == direct
    refused = rea.derive("open_binary", {"path": "/bin/true"}).failure()
    assert refused.code == "invalid_request" and "compare_functions" in refused.details["accepted"]


def _examples() -> list[str]:
    text = (ROOT / "docs" / "library.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_the_library_page_has_five_examples():
    assert len(_examples()) == 5


def test_the_library_page_examples_run(session):
    namespace: dict[str, Any] = {"evidence_dir": str(session["dir"])}
    for number, code in enumerate(_examples(), 1):
        exec(compile(code, f"docs/library.md example {number}", "exec"), namespace)  # noqa: S102
