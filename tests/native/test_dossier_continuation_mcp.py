"""The real oversized analyze_function continuation (issue 30, item 9).

A gcc-built function with a 48-case switch carries the analyst's annotations (a 64 Ki-character
comment and inline comment, REA's maximum, at each of its first 84 instructions as objdump lists
them), so its complete dossier passes the 10 MiB response budget (the smallest
REA_MCP_MAX_RESPONSE_BYTES allows). Angr needs minutes for a function whose own code reaches
10 MiB of dossier, and each annotation edit's Evidence carries the whole store (so bundles restore
it): the annotations arrive the way a colleague's would, in one import_evidence_bundle of an edit
whose store holds them. Through the MCP client: analyze_function answers resource_constraint with
a ready continuation; following it and paging every other facet with inspect_analysis_view
reassembles the dossier, which must equal the one a second server with a 64 MiB budget returns
whole for the same target and annotations (the same Evidence id too).
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
from typing import Any

import anyio
import attrs
import pytest

from mcp_client import connect
from rea.evidence import identify, parse_evidence
from rea.session import Session, record
from support import write_bundle

pytestmark = pytest.mark.slow

CASES = 48
SOURCE = (
    "#include <stdio.h>\n__attribute__((noinline)) int dispatch(int op, int x) {\n  switch (op) {\n"
    + "".join(f'  case {i}: x = x * {i + 3} + {i * 7}; printf("case {i} %d\\n", x); break;\n' for i in range(CASES))
    + "  default: x = -1;\n  }\n  return x;\n}\nint main(int c, char **v) { return dispatch(c, c); }\n"
)
COMMENTED = 84  # instructions annotated: 84 x 2 x 64 Ki characters = 10.5 MiB of comments
TEXT = 65_536
FACETS = (
    "procedure",
    "pseudocode",
    "assembly",
    "basic_blocks",
    "comments",
    "callers",
    "callees",
    "incoming_references",
    "outgoing_references",
    "unresolved_calls",
    "referenced_strings",
    "referenced_names",
    "native_api",
)


def _instructions(exe) -> list[int]:
    """dispatch's instruction addresses from binutils objdump (an independent disassembler)."""
    out = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", str(exe)], capture_output=True, text=True, check=True
    ).stdout
    body = out.split("<dispatch>:\n", 1)[1].split("\n\n", 1)[0]
    return [int(m.group(1), 16) for m in re.finditer(r"^\s+([0-9a-f]+):", body, re.M)]


def _view(evidence_id: str, facet: str, offset: int) -> dict[str, Any]:
    return {
        "source": {"kind": "retained-evidence", "evidence_id": evidence_id},
        "view": {"kind": "native", "facet": facet, "offset": offset},
    }


async def _read_through(s, refusal: dict) -> tuple[str, dict[str, Any]]:
    """Follow the continuation for the pseudocode, then page every other facet the same way."""
    limits = refusal["details"]["reported_limits"]
    evidence_id = limits["evidence_reference"]["evidence_id"]
    call = limits["continuation"]
    assert call["name"] == "inspect_analysis_view" and call["arguments"]["view"]["facet"] == "pseudocode"
    read: dict[str, Any] = {"pages": {}}
    for facet in FACETS:
        arguments = call["arguments"] if facet == "pseudocode" else _view(evidence_id, facet, 0)
        parts: list[Any] = []
        while True:
            reply = await s.call_tool(call["name"], arguments)
            assert reply.is_error is False, reply.content[0].text[:500]
            page = reply.structured_content["normalized_result"]
            parts.append(page["item"])
            following = page["coverage"].get("next_offset")
            if following is None:
                break
            arguments = _view(evidence_id, facet, following)
        read["pages"][facet] = len(parts)
        if facet == "pseudocode":
            read[facet] = "".join(p["text"] for p in parts)
        elif facet in ("procedure", "native_api"):
            read[facet] = parts[0]
        else:
            read[facet] = [row for p in parts for row in (p if isinstance(p, list) else p["items"])]
    return evidence_id, read


def _bundle_of_annotations(edit: dict, addresses: list[int], path) -> None:
    """The set_comment Evidence with its carried store holding every long comment, resealed and bundled."""
    parsed = parse_evidence(edit).unwrap()
    store = copy.deepcopy(parsed.raw_result)
    kept = store["annotation_store"]
    for i, address in enumerate(addresses[:COMMENTED]):
        key = f"0x{address:x}"
        kept["comments"][key] = (f"comment {i} " * TEXT)[:TEXT]
        kept["inline_comments"][key] = (f"inline {i} " * TEXT)[:TEXT]
    resealed = identify(attrs.evolve(parsed, raw_result=store)).unwrap()
    write_bundle(path, record(Session(), [resealed]))


def test_an_oversized_dossier_read_through_its_continuation_equals_the_whole(tmp_path):
    (tmp_path / "switch.c").write_text(SOURCE)
    exe = tmp_path / "switch"
    subprocess.run(["gcc", "-O0", "-o", str(exe), str(tmp_path / "switch.c")], check=True)
    addresses = _instructions(exe)
    assert len(addresses) > COMMENTED
    env = {"REA_CACHE_DIR": str(tmp_path / "cache"), "TMPDIR": str(tmp_path)}
    large_budget = {**env, "REA_MCP_MAX_RESPONSE_BYTES": str(64 << 20)}

    async def annotate():
        async with connect(**large_budget) as s:
            await s.call_tool("open_binary", {"path": str(exe)})
            done = await s.call_tool("set_comment", {"address": f"0x{addresses[0]:x}", "comment": "first"})
            assert done.is_error is False, done.content[0].text
            return done.structured_content

    async def small():
        async with connect(**env) as s:
            await s.call_tool("open_binary", {"path": str(exe)})
            imported = await s.call_tool("import_evidence_bundle", {"path": str(tmp_path / "notes.json")})
            assert imported.is_error is False, imported.content[0].text
            refused = await s.call_tool("analyze_function", {"procedure": "dispatch"})
            assert refused.is_error is True
            body = json.loads(refused.content[0].text)["error"]
            assert body["code"] == "resource_constraint", body
            return body, *(await _read_through(s, body))

    async def large():
        async with connect(**large_budget) as s:
            await s.call_tool("open_binary", {"path": str(exe)})
            whole = await s.call_tool("analyze_function", {"procedure": "dispatch"})
            assert whole.is_error is False, whole.content[0].text[:500]
            return whole.structured_content

    _bundle_of_annotations(anyio.run(annotate), addresses, tmp_path / "notes.json")
    refusal, evidence_id, read = anyio.run(small)
    assert refusal["details"]["reported_limits"]["reply_bytes"] > 10_485_760
    whole = anyio.run(large)
    assert whole["evidence_id"] == evidence_id  # the same dossier, recomputed under a large budget
    dossier = whole["normalized_result"]
    assert len(dossier["comments"]) == 2 * COMMENTED
    pages = read.pop("pages")
    print("pages read per facet:", pages, "reply bytes:", refusal["details"]["reported_limits"]["reply_bytes"])
    assert sorted(read) == sorted(FACETS) and pages["pseudocode"] > 1 and pages["comments"] > 1
    for facet, value in read.items():
        expected = dossier[facet]
        if facet == "native_api" and expected is None:  # the view's form of a facet the dossier left null
            expected = {"available": False, "reason": "not recorded"}
        assert value == expected, facet
