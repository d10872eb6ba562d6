"""Managed replies sized for a model, and managed honesty (issues 28 item 3, 30 item 5), over MCP and the CLI.

`detail: summary` and the managed view of inspect_analysis_view on mcs-built assemblies (every page union is
the complete listing, counts checked against monodis) and on Debian mono's mscorlib (every summary and page
within 32 KB); FIFO, socket and device paths refused before any open, within a deadline; AnyCPU named as such,
checked against the CLI header flags read straight from the file bytes and objdump's machine; limitations that
agree with the PDB the result reports.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import struct
import subprocess
import tempfile
from pathlib import Path

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from managed_fixtures import build, library, monodis, monodis_rows, needs_mono, portable_pdb
from mcp_client import connect
from support import clean_env, rea_command

pytestmark = [pytest.mark.slow, needs_mono]
REPLY_CAP = 32 * 1024
DOCUMENTS = [(f"/build/src/File{i:02}.cs", hashlib.sha256(b"source %d" % i).digest()) for i in range(40)]
ARTIFACT_FACETS = ("references", "resources", "attributes", "pdb_documents")
MEMBER_FACETS = ("types", "methods", "fields", "member_refs", "call_edges", "field_accesses")
MONO_CORLIB = "/usr/lib/mono/4.5/mscorlib.dll"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("managed-views")
    lib = library(out)
    methods = len(monodis_rows(lib, "method"))
    portable_pdb(out / "Library.pdb", DOCUMENTS, methods=methods, with_points=2, method_rows=methods)
    bare = out / "bare"
    bare.mkdir()
    (bare / "Library.exe").write_bytes(lib.read_bytes())
    platforms = {p: build(out, "Library.cs", f"Lib-{p}.exe", f"-platform:{p}")
                 for p in ("anycpu", "anycpu32bitpreferred", "x86", "x64")}  # fmt: skip
    return {"library": lib, "bare": bare / "Library.exe", "platforms": platforms, "dir": out}


def _text(reply) -> str:
    return "".join(c.text for c in reply.content if hasattr(c, "text"))


def _ok(reply) -> dict:
    assert reply.is_error is False, _text(reply)[:800]
    return reply.structured_content


def _error(reply) -> dict:
    assert reply.is_error is True, _text(reply)[:300]
    return json.loads(_text(reply))["error"]


def _source(evidence_id: str) -> dict:
    return {"kind": "retained-evidence", "evidence_id": evidence_id}


async def _pages(s, parent: str, facet: str, limit: int, kind: str = "managed") -> tuple[list, list[int]]:
    """Every page of one listing, following next_offset; the rows and each page reply's bytes."""
    rows, sizes, offset = [], [], 0
    while offset is not None:
        reply = await s.call_tool(
            "inspect_analysis_view",
            {"source": _source(parent), "view": {"kind": kind, "facet": facet, "offset": offset, "limit": limit}},
        )
        view = _ok(reply)["normalized_result"]
        assert view["parent_evidence_id"] == parent and view["coverage"]["examined"] == len(view["items"])
        rows += view["items"]
        sizes.append(len(_text(reply).encode()))
        offset = view["coverage"]["next_offset"]
    return rows, sizes


def _listing(result: dict, facet: str) -> list:
    return (result["portable_pdb"] or {}).get("documents", []) if facet == "pdb_documents" else result[facet]


def test_summaries_and_every_page_over_mcp(built):
    lib = str(built["library"])

    async def main():
        async with connect() as s:
            artifact = _ok(await s.call_tool("inspect_managed_artifact", {"path": lib}))
            summary = _ok(await s.call_tool("inspect_managed_artifact", {"path": lib, "detail": "summary"}))
            members = _ok(await s.call_tool("inspect_managed_members", {"path": lib}))
            members_summary = _ok(await s.call_tool("inspect_managed_members", {"path": lib, "detail": "summary"}))
            pages = {f: await _pages(s, artifact["evidence_id"], f, 3) for f in ARTIFACT_FACETS}
            pages |= {f: await _pages(s, members["evidence_id"], f, 5) for f in MEMBER_FACETS}
            documents = _ok(await s.call_tool("inspect_managed_artifact",
                                              {"path": lib, "document_offset": 5, "document_limit": 10}))  # fmt: skip
            wrong = await s.call_tool("inspect_analysis_view", {"source": _source(artifact["evidence_id"]),
                                                               "view": {"kind": "managed", "facet": "methods"}})  # fmt: skip
            bare = _ok(await s.call_tool("inspect_managed_artifact", {"path": str(built["bare"])}))
            # a summary id stands for its parent: the same comparison, recorded as the same call
            ids = (members["evidence_id"], members_summary["evidence_id"])
            compared = [_ok(await s.call_tool("compare_managed_members",
                                              {"left_evidence_id": left, "right_evidence_id": ids[0]}))
                        for left in ids]  # fmt: skip
            return artifact, summary, members, members_summary, pages, documents, wrong, bare, compared

    artifact, summary, members, members_summary, pages, documents, wrong, bare, compared = anyio.run(main)
    assert compared[0]["evidence_id"] == compared[1]["evidence_id"]
    a, m = artifact["normalized_result"], members["normalized_result"]
    for parent, view in ((artifact, summary), (members, members_summary)):
        # detail never changes identity: the summary's parent is the very record the complete call returns
        assert view["operation"] == "inspect_analysis_view" and view["evidence_links"] == [parent["evidence_id"]]
        assert view["normalized_result"]["parent_evidence_id"] == parent["evidence_id"]
        nr, listings = parent["normalized_result"], view["normalized_result"]["summary"]["listings"]
        for facet, listing in listings.items():
            rows = _listing(nr, facet)
            assert listing["total"] == len(rows) and listing["source_exhaustive"] is True
            assert listing["first"] == rows[: len(listing["first"])]
    assert summary["normalized_result"]["summary"]["listings"]["pdb_documents"]["total"] == len(DOCUMENTS)
    for facet in ARTIFACT_FACETS:
        assert pages[facet][0] == _listing(a, facet), facet
    for facet in MEMBER_FACETS:
        assert pages[facet][0] == m[facet], facet
    # counts from an independent reader
    assert len(pages["types"][0]) == len(monodis_rows(built["library"], "typedef"))
    assert len(pages["methods"][0]) == len(re.findall(r"^\d+: ", monodis(built["library"], "method"), re.M))
    assert len(pages["attributes"][0]) == len(monodis_rows(built["library"], "customattr"))
    assert [d["name"] for d in pages["pdb_documents"][0]] == [name for name, _ in DOCUMENTS]
    # PDB documents can be limited like every other listing, and the limitation says so
    shown = documents["normalized_result"]
    assert shown["portable_pdb"]["documents"] == a["portable_pdb"]["documents"][5:15]
    paged = "document: 10 of 40 returned (offset 5); page with the document offset/limit arguments."
    assert paged in shown["limitations"]
    assert _error(wrong)["code"] == "invalid_request"
    # limitations agree with the result: a PDB that was read is not called unread
    assert a["portable_pdb"]["status"] == "read"
    assert not any("not read yet" in text for text in a["limitations"])
    assert any("portable PDB's Document rows" in text for text in a["limitations"])
    b = bare["normalized_result"]
    assert b["portable_pdb"] is None and any("No portable PDB was found" in text for text in b["limitations"])


def _special_paths(directory: Path) -> tuple[Path, Path, str]:
    fifo = directory / "pipe.dll"
    os.mkfifo(fifo)
    sock = directory / "sock.dll"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(sock))
    return fifo, sock, "/dev/null"


TOOLS = ("inspect_managed_artifact", "inspect_managed_members", "inspect_managed_native_boundaries")


def test_fifo_socket_and_device_paths_are_refused_before_any_open(built):
    directory = Path(tempfile.mkdtemp(prefix="rea-m28-", dir="/tmp"))  # AF_UNIX paths must stay short
    paths = _special_paths(directory)
    companion = directory / "withpipe"
    companion.mkdir()
    (companion / "Library.exe").write_bytes(built["library"].read_bytes())
    os.mkfifo(companion / "Library.pdb")  # a FIFO named like the PDB is no companion, never opened

    async def main():
        with anyio.fail_after(60):  # a FIFO that was opened would block here until the deadline
            async with connect() as s:
                refused = [await s.call_tool(t, {"path": str(p)}) for t in TOOLS for p in paths]
                beside = await s.call_tool("inspect_managed_artifact", {"path": str(companion / "Library.exe")})
                return refused, beside

    refused, beside = anyio.run(main)
    for reply in refused:
        error = _error(reply)
        assert error["code"] == "target_unavailable"
        assert error["details"]["reason"] == "it is not a regular file (device, FIFO or socket files are never opened)"
    assert _ok(beside)["normalized_result"]["portable_pdb"] is None
    out = subprocess.run([*rea_command(), "inspect-managed-members", str(paths[0])], capture_output=True,
                         text=True, env=clean_env(), timeout=60, check=False)  # fmt: skip
    assert out.returncode == 1 and "target_unavailable" in out.stdout and "never opened" in out.stdout


def _cli_flags(path: Path) -> int:
    """The CLI header Flags (ECMA-335 II.25.3.3), read from the file bytes at the COM descriptor directory."""
    import pefile

    pe = pefile.PE(str(path), fast_load=True)
    directory = pe.OPTIONAL_HEADER.DATA_DIRECTORY[14]
    offset = pe.get_offset_from_rva(directory.VirtualAddress)
    (flags,) = struct.unpack_from("<I", path.read_bytes(), offset + 16)
    return flags


def _objdump_machine(path: Path) -> str:
    return re.search(r"architecture: (\S+?),", subprocess.run(["objdump", "-f", str(path)], capture_output=True,
                                                               text=True, check=True).stdout).group(1)  # fmt: skip


def test_anycpu_is_reported_as_such(built):
    platforms = built["platforms"]

    async def main():
        async with connect() as s:
            return {p: _ok(await s.call_tool("inspect_managed_artifact", {"path": str(path)}))
                    for p, path in platforms.items()}  # fmt: skip

    got = anyio.run(main)
    expected = {}  # from the header flags and objdump, not from the reader under test
    for p, path in platforms.items():
        flags, machine = _cli_flags(path), _objdump_machine(path)
        il_only, required, preferred = flags & 0x1, flags & 0x2, flags & 0x20000
        if machine == "i386" and il_only and not required:
            expected[p] = ("anycpu", None)
        elif machine == "i386" and il_only and required and preferred:
            expected[p] = ("anycpu-prefer-32", None)
        else:
            expected[p] = ({"i386": "x86", "i386:x86-64": "x86_64"}[machine],) * 2
    assert expected["anycpu"] == ("anycpu", None) and expected["x86"] == ("x86", "x86")
    assert expected["anycpu32bitpreferred"] == ("anycpu-prefer-32", None) and expected["x64"] == ("x86_64", "x86_64")
    for p, record in got.items():
        managed = record["normalized_result"]["classification"]["managed_architecture"]
        assert (managed, record["subject"]["architecture"]) == expected[p], p


def test_cli_summary_and_view_pages(built, tmp_path):
    cmd, lib = rea_command(), str(built["library"])

    def run(*args: str) -> subprocess.CompletedProcess:
        out = subprocess.run([*cmd, *args], capture_output=True, text=True, env=clean_env(), check=False)
        assert out.returncode == 0, out.stderr + out.stdout
        return out

    text = run("inspect-managed-artifact", lib, "--detail", "summary").stdout
    assert "inspect_managed_artifact summary" in text and f"pdb_documents {len(DOCUMENTS)}" in text
    record = json.loads(run("inspect-managed-members", lib, "--json").stdout)
    saved = tmp_path / "members.json"
    saved.write_text(json.dumps(record))
    rows, offset = [], 0
    while offset is not None:
        view = json.dumps({"kind": "managed", "facet": "methods", "offset": offset, "limit": 4})
        page = json.loads(run("inspect-analysis-view", str(saved), "--view", view, "--json").stdout)
        rows += page["normalized_result"]["items"]
        offset = page["normalized_result"]["coverage"]["next_offset"]
    assert rows == record["normalized_result"]["methods"]
    summary = json.loads(run("inspect-managed-members", lib, "--detail", "summary", "--json").stdout)
    assert summary["normalized_result"]["parent_evidence_id"] == record["evidence_id"]


@pytest.mark.skipif(not os.path.exists(MONO_CORLIB), reason="Debian mono's mscorlib.dll")
def test_mscorlib_summaries_and_pages_fit_32_kb():
    """mscorlib (4.8 MB; 6,443 custom attributes, ~27,000 methods): summaries and pages each within 32 KB,
    the attribute pages together exactly the complete listing, the type pages as many as monodis lists. The
    complete members record (~180 MB) is refused with a continuation: the summary view of the retained record,
    the same view `detail: summary` answers with."""

    async def main():
        async with connect() as s:
            artifact = await s.call_tool("inspect_managed_artifact", {"path": MONO_CORLIB})
            a_summary = await s.call_tool("inspect_managed_artifact", {"path": MONO_CORLIB, "detail": "summary"})
            refused = _error(await s.call_tool("inspect_managed_members", {"path": MONO_CORLIB}))
            assert refused["code"] == "resource_constraint"  # ~180 MB: retained, and a ready summary call offered
            follow = refused["details"]["reported_limits"]["continuation"]
            m_summary = await s.call_tool(follow["name"], follow["arguments"])
            a_id = _ok(artifact)["evidence_id"]
            m_id = _ok(m_summary)["normalized_result"]["parent_evidence_id"]
            attributes = await _pages(s, a_id, "attributes", 100_000)
            types = await _pages(s, m_id, "types", 100_000)
            first_methods = [
                await s.call_tool("inspect_analysis_view", {"source": _source(m_id), "view": {
                    "kind": "managed", "facet": "methods", "offset": offset, "limit": 100_000}})
                for offset in (0, 5000)
            ]  # fmt: skip
            found = [await _matches(s, m_id, text) for text in ("string::CONCAT", "zz~")]
            return artifact, a_summary, m_summary, attributes, types, first_methods, found

    artifact, a_summary, m_summary, attributes, types, first_methods, found = anyio.run(main)
    # match finds a method by its qualified name among ~27,000 as monodis lists them (ignoring case)
    (concat, total, sizes), (nothing, none, _) = found
    truth = _monodis_methods(Path(MONO_CORLIB), "string::concat")
    assert sorted(int(m["token"], 16) & 0xFFFFFF for m in concat) == truth and total == len(truth) > 5
    assert nothing == [] and none == 0 and max(sizes) <= REPLY_CAP
    for reply in (a_summary, m_summary, *first_methods):
        assert len(_text(reply).encode()) <= REPLY_CAP
    assert max(attributes[1] + types[1]) <= REPLY_CAP
    complete = _ok(artifact)["normalized_result"]["attributes"]
    assert len(_text(artifact).encode()) > 1_000_000 and attributes[0] == complete
    assert len(complete) == len(monodis_rows(Path(MONO_CORLIB), "customattr"))
    listings = _ok(m_summary)["normalized_result"]["summary"]["listings"]
    assert len(types[0]) == listings["types"]["total"] == len(monodis_rows(Path(MONO_CORLIB), "typedef"))
    assert listings["methods"]["total"] == len(re.findall(r"^\d+: ", monodis(Path(MONO_CORLIB), "method"), re.M))
    assert all(_ok(r)["normalized_result"]["items"] for r in first_methods)


async def _matches(s, parent: str, text: str) -> tuple[list, int, list[int]]:
    """Every page of the methods whose names match `text`: the rows, the total the first page gives and each
    reply's bytes."""
    rows, sizes, offset, total = [], [], 0, None
    while offset is not None:
        view = {"kind": "managed", "facet": "methods", "match": text, "offset": offset, "limit": 100}
        reply = await s.call_tool("inspect_analysis_view", {"source": _source(parent), "view": view})
        page = _ok(reply)["normalized_result"]
        assert page["view"]["match"] == text
        total = page["coverage"]["total"] if total is None else total
        rows += page["items"]
        sizes.append(len(_text(reply).encode()))
        offset = page["coverage"]["next_offset"]
    return rows, total or 0, sizes


def _monodis_methods(path: Path, text: str) -> list[int]:
    """Method rows whose `Type::name` contains `text` (ignoring case), read from monodis's method table: each
    type's methods follow its `########## Type` line, a row is `N: <signature> name (params) ...`."""
    found, owner = [], ""
    for line in monodis(path, "method").splitlines():
        if line.startswith("########## "):
            owner = line[len("########## ") :].strip()
            continue
        row = re.match(r"^(\d+): (.*?) \(", line)
        if row:
            name = row.group(2).split()[-1].split("<", 1)[0]
            if text.casefold() in f"{owner}::{name}".casefold():
                found.append(int(row.group(1)))
    return sorted(found)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_JSON, max_size=8), st.text(min_size=1, max_size=4))
def test_match_keeps_listing_order_and_only_rows_naming_the_text(rows, text):
    """Any rows (a hostile or foreign record's too): match never raises, keeps the listing's order, and a row is
    kept exactly when one of its name fields, or its Type::member, contains the text in any case."""
    from rea.managed.views import matching

    kept = matching(rows, text)
    assert kept == [r for r in rows if any(r is k for k in kept)]
    for row in rows:
        names = (
            [v for k, v in row.items() if isinstance(v, str) and k.endswith(NAME_ENDINGS)]
            if isinstance(row, dict)
            else []
        )
        if isinstance(row, dict) and isinstance(row.get("name"), str):
            owner = row.get("declaring_type") or row.get("parent")
            names += [f"{owner}::{row['name']}"] if isinstance(owner, str) else []
        assert (row in kept) == any(text.casefold() in n.casefold() for n in names)


NAME_ENDINGS = ("name", "type", "caller", "method", "namespace", "parent", "extends", "path")
