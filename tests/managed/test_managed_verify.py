"""verify_managed_native_boundaries end to end: an mcs-built assembly P/Invoking a gcc-built .so, nm as truth."""

from __future__ import annotations

import re
import shutil
import subprocess

import anyio
import pytest

from managed_fixtures import build, needs_mono
from mcp_client import connect, error, evidence
from support import clean_env, rea_command

pytestmark = [pytest.mark.slow, needs_mono, pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc")]

NATIVE_C = """
int native_add(int a, int b) { return a + b; }
__attribute__((visibility("hidden"))) int native_hidden(void) { return 1; }
int native_other(void) { return native_hidden(); }
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("verify")
    (out / "native.c").write_text(NATIVE_C)
    so = out / "libnative.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(so), str(out / "native.c")], check=True)
    return {"assembly": build(out, "Interop.cs", "Interop.dll"), "so": so, "dir": out}


def _nm_exports(path) -> dict[str, int]:
    """nm -D --defined-only: the dynamic symbols the shared object defines (name -> value)."""
    out = subprocess.run(["nm", "-D", "--defined-only", str(path)], check=True, capture_output=True, text=True).stdout
    return {m[3]: int(m[1], 16) for m in re.finditer(r"^([0-9a-f]+) ([TDBWRVi]) (\S+)$", out, re.M)}


def _run(assembly, natives, extra_calls=()):
    async def main():
        async with connect() as s:
            managed = evidence(await s.call_tool("inspect_managed_native_boundaries", {"path": str(assembly)}))
            ids = [evidence(await s.call_tool("inspect_binary_layout", {"path": str(n)}))["evidence_id"]
                   for n in natives]  # fmt: skip
            args = {"managed_boundaries_evidence_id": managed["evidence_id"], "native_observation_evidence_ids": ids}
            first = await s.call_tool("verify_managed_native_boundaries", args)
            rest = [await s.call_tool("verify_managed_native_boundaries", call(managed["evidence_id"], ids))
                    for call in extra_calls]  # fmt: skip
            return managed, ids, first, rest

    return anyio.run(main)


def test_verify_over_mcp_agrees_with_nm(built):
    exports = _nm_exports(built["so"])
    assert "native_add" in exports and "native_hidden" not in exports and "native_missing" not in exports
    managed, ids, reply, _ = _run(built["assembly"], [built["so"]])
    record = evidence(reply)
    r = record["normalized_result"]
    assert record["confidence"] == "derived" and record["evidence_links"] == [managed["evidence_id"], *ids]
    items = {i["managed"]["import_name"]: i for i in r["pinvoke_imports"]}
    assert set(items) == {"native_add", "native_missing", "native_hidden", "native_other"}
    add = items["native_add"]
    assert (add["status"], add["basis"], add["confidence"]) == ("verified", "exact-export-name", "observed")
    assert int(add["matched_native"]["address"], 16) == exports["native_add"]
    assert add["matched_native"]["evidence_id"] == ids[0] and add["matched_native"]["source"] == "elf-export"
    assert add["evidence_links"] == [managed["evidence_id"], ids[0]]
    for absent in ("native_missing", "native_hidden"):  # hidden visibility: defined, but not exported (nm agrees)
        item = items[absent]
        assert (item["status"], item["basis"], item["matched_native"]) == ("unresolved", "no-native-candidate", None)
        assert item["searched_evidence_ids"] == ids and item["candidates"] == []
    other = items["native_other"]  # exported, but declared from libother.so
    assert (other["status"], other["basis"]) == ("contradicted", "module-mismatch")
    assert r["summary"] == {"verified": 1, "inferred": 0, "unresolved": 2, "contradicted": 1,
                            "native_body_unresolved": 0}  # fmt: skip
    assert r["native_observations"]["symbols"] == len(exports)
    assert r["coverage"] == {"status": "complete-within-inputs", "omitted_native_observations": 0,
                             "omitted_candidates": 0}  # fmt: skip
    assert r["managed_boundary"]["pinvoke_imports_total"] == 4


def test_verify_refuses_what_it_cannot_read(built):
    calls = [
        lambda m, ids: {"managed_boundaries_evidence_id": m, "native_observation_evidence_ids": [m]},
        lambda m, ids: {"managed_boundaries_evidence_id": ids[0], "native_observation_evidence_ids": [m]},
        lambda m, ids: {"managed_boundaries_evidence_id": m, "native_observation_evidence_ids": ["ev_" + "0" * 64]},
        lambda m, ids: {"managed_boundaries_evidence_id": m, "native_observation_evidence_ids": [*ids, *ids]},
        lambda m, ids: {"managed_boundaries_evidence_id": m, "native_observation_evidence_ids": [*ids, m],
                        "limits": {"max_native_observations": 1}},
    ]  # fmt: skip
    _, ids, _, rest = _run(built["assembly"], [built["so"]], calls)
    assert error(rest[0], "invalid_request")["details"]["field"] == "native_observation_evidence_ids[0]"
    assert error(rest[1], "invalid_request")["details"]["field"] == "managed_boundaries_evidence_id"
    error(rest[2], "evidence_integrity_mismatch")
    assert error(rest[3], "invalid_request")["details"]["field"] == "native_observation_evidence_ids[1]"
    error(rest[4], "invalid_request")  # the managed Evidence named as a native one


def test_verify_with_unsupported_native_evidence_is_partial(built):
    async def main():
        async with connect() as s:
            managed = evidence(await s.call_tool("inspect_managed_native_boundaries", {"path": str(built["assembly"])}))
            other = evidence(await s.call_tool("inspect_managed_artifact", {"path": str(built["assembly"])}))
            args = {"managed_boundaries_evidence_id": managed["evidence_id"],
                    "native_observation_evidence_ids": [other["evidence_id"]]}  # fmt: skip
            return await s.call_tool("verify_managed_native_boundaries", args)

    r = evidence(anyio.run(main))["normalized_result"]
    assert r["native_observations"]["unsupported"] == 1 and r["coverage"]["status"] == "partial"
    assert {i["basis"] for i in r["pinvoke_imports"]} == {"unsupported-native-evidence"}


def test_verify_cli(built):
    out = subprocess.run([*rea_command(), "verify-managed-native-boundaries", str(built["assembly"]), str(built["so"])],
                         capture_output=True, text=True, env=clean_env(), check=False)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert re.search(r"verified\s+libnative.so!native_add -> native_add @ 0x[0-9a-f]+ in libnative.so", out.stdout)
    assert re.search(r"unresolved\s+libnative.so!native_missing", out.stdout)
    assert re.search(r"contradicted\s+libother.so!native_other", out.stdout)
