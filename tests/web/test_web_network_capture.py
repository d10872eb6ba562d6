"""Credentials in URLs, replies sized for a model, old mitmproxy formats: inspect_web_network_capture over MCP.

Inputs: a 7.5 MB HAR in Chrome DevTools' export shape (tests/large_har_fixtures.py,
2,000 entries, credentials where real captures carry them) and flow dumps in
mitmproxy's 0.12 and 0.13 formats (tests/mitm_legacy_fixtures.py, committed under
tests/data/mitmproxy/). Ground truth is read elsewhere: jq reads the HAR, `mitmdump -n
-r` (mitmproxy's own command) lists the flows of the old dumps.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest

from large_har_fixtures import SECRETS, large_har
from mcp_client import connect, error, evidence
from mitm_legacy_fixtures import DATA, LEGACY, legacy_dump
from support import clean_env, rea_command
from web_network_fixtures import mitm_available

SUMMARY_BYTES = 32 << 10  # every summary fits 32 KB (issue 28)


@pytest.fixture(scope="module")
def har(tmp_path_factory) -> Path:
    return large_har(tmp_path_factory.mktemp("large-har") / "devtools.har")


def _jq(path: Path, program: str) -> str:
    return subprocess.run(["jq", "-r", program, str(path)], check=True, capture_output=True, text=True).stdout.strip()


def _size(reply) -> int:
    return len(reply.content[0].text.encode())


def _ref(evidence_id: str) -> dict:
    return {"kind": "retained-evidence", "evidence_id": evidence_id}


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("jq") is None, reason="jq (scripts/setup)")
def test_large_har_summary_pages_and_url_redaction(har):
    async def main():
        async with connect() as s:
            out = {
                "complete": await s.call_tool(
                    "inspect_web_network_capture", {"capture_path": str(har), "format": "har"}
                )
            }
            out["summary"] = await s.call_tool(
                "inspect_web_network_capture", {"capture_path": str(har), "format": "har", "detail": "summary"}
            )
            parent = out["summary"].structured_content["normalized_result"]["parent_evidence_id"]
            calls = out["summary"].structured_content["normalized_result"]["summary"]["continue_with"]
            out["page"] = await s.call_tool(calls["records"]["name"], calls["records"]["arguments"])
            later = {"kind": "page", "collection": "records", "offset": 1998, "limit": 64}
            out["last"] = await s.call_tool("inspect_analysis_view", {"source": _ref(parent), "view": later})
            out["surface"] = await s.call_tool(calls["api_surface"]["name"], calls["api_surface"]["arguments"])
            out["view"] = await s.call_tool(
                "inspect_analysis_view", {"source": _ref(parent), "view": {"kind": "summary"}}
            )
            modules = {"kind": "page", "collection": "modules", "offset": 0, "limit": 1}
            out["wrong"] = await s.call_tool("inspect_analysis_view", {"source": _ref(parent), "view": modules})
            return out

    out = anyio.run(main)
    # the complete Evidence is past the 10 MiB budget: retained, and the continuation is its summary
    refused = error(out["complete"], "resource_constraint")["details"]["reported_limits"]
    assert refused["continuation"]["arguments"]["view"] == {"kind": "summary"}
    summary_reply = evidence(out["summary"])
    assert _size(out["summary"]) < SUMMARY_BYTES and _size(out["view"]) < SUMMARY_BYTES
    assert summary_reply["operation"] == "inspect_analysis_view"
    summary = summary_reply["normalized_result"]["summary"]
    assert summary_reply["normalized_result"]["parent_evidence_id"] == refused["evidence_reference"]["evidence_id"]
    total = int(_jq(har, ".log.entries | length"))
    assert summary["total_records"] == total == 2000 and len(summary["first_records"]) == 20
    methods = json.loads(_jq(har, "[.log.entries[].request.method] | group_by(.) | map({(.[0]): length}) | add"))
    assert summary["counts"]["methods"] == methods
    # no credential survives anywhere, and each is listed by rule and location in the index
    for name, reply in out.items():
        if name != "wrong":
            assert not any(secret in reply.content[0].text for secret in SECRETS), name
    index = {
        (e["rule"], e["location"], e["url_component"], e["parameter"]): e for e in summary["redaction_index"]["entries"]
    }
    keyed = int(_jq(har, '[.log.entries[] | select(.request.url | test("[?&]key=AIza"))] | length'))
    maps = index[("credential-parameter", "/request/url", "query", "key")]
    assert maps["redactions"] == maps["records"] == keyed == 250 and maps["record_ordinals"][:3] == [0, 8, 16]
    assert index[("credential-parameter", "/request/queryString/*/value", "query", "key")]["records"] == keyed
    located = int(_jq(har, '[.log.entries[] | select(.response.redirectURL | test("sig="))] | length'))
    assert index[("credential-parameter", "/response/redirectURL", "query", "sig")]["records"] == located
    assert index[("credential-parameter", "/request/headers/*/value", "fragment", "access_token")]["records"] == total
    assert index[("credential-parameter", "/_initiator/stack/callFrames/*/url", "query", "apikey")]["records"] == total
    assert index[("userinfo-password", "/request/url", "userinfo", None)]["records"] == 250
    pages = int(_jq(har, ".log.pages | length"))
    assert (
        index[("jwt", "/log/pages/*/title", "query", "session")] | {"scope": "container"}
        == index[("jwt", "/log/pages/*/title", "query", "session")]
        and index[("jwt", "/log/pages/*/title", "query", "session")]["redactions"] == pages
    )
    # the first page of records: exact records, the URLs jq reads with only the credentials replaced
    page = evidence(out["page"])["normalized_result"]
    assert _size(out["page"]) < SUMMARY_BYTES and page["coverage"]["next_offset"] == len(page["items"])
    urls = _jq(har, f".log.entries[0:{len(page['items'])}][].request.url").split("\n")
    expected = [re.sub(r"key=[^&]*", "key=REDACTED", re.sub(r":[^:@/]*@", ":REDACTED@", u)) for u in urls]
    assert [r["reported"]["request"]["url"] for r in page["items"]] == expected
    last = evidence(out["last"])["normalized_result"]
    assert [r["ordinal"] for r in last["items"]] == [1998, 1999] and last["coverage"]["exhausted"]
    # numbered tiles are one group, /tiles/{integer}.xy
    groups = {(g["method"], g["path_template"]): g for g in evidence(out["surface"])["normalized_result"]["groups"]}
    tiles = int(_jq(har, '[.log.entries[] | select(.request.url | test("/tiles/[0-9]+[.]xy$"))] | length'))
    assert groups[("GET", "/tiles/{integer}.xy")]["request_count"] == tiles
    assert groups[("GET", "/tiles/{integer}.xy")]["segments"][1] == {
        "text": "{integer}.xy",
        "basis": "inferred",
        "rule": "integer",
    }
    assert error(out["wrong"], "invalid_request")["details"]["field"] == "view.kind"


def _mitmdump(path: Path) -> list[tuple[str, str]]:
    """(method, URL up to its query) of each flow, as mitmproxy's own mitmdump lists them."""
    shown = subprocess.run(["mitmdump", "-n", "-r", str(path)], capture_output=True, text=True, timeout=120).stdout
    return [(m, u.split("?")[0].rstrip("…")) for m, u in re.findall(r": (GET|POST|PUT|DELETE) (\S+)", shown)]


@pytest.mark.skipif(not mitm_available() or shutil.which("mitmdump") is None, reason="Debian's mitmproxy")
def test_old_mitmproxy_formats_are_read_as_mitmdump_reads_them(tmp_path):
    for name in LEGACY:  # the committed dumps are what the fixture writer writes
        assert (DATA / name).read_bytes() == legacy_dump(name)
    not_flow = tmp_path / "list.flows"
    not_flow.write_bytes(b"4:1:1#]")  # a tnetstring, but a list: mitmproxy cannot make a flow of it

    async def main():
        async with connect() as s:
            replies = {}
            for name in LEGACY:
                args = {"capture_path": str(DATA / name), "format": "mitmproxy"}
                replies[name] = [await s.call_tool("inspect_web_network_capture", args) for _ in range(2)]
            summary = {"capture_path": str(DATA / "dumpfile-012.flows"), "format": "mitmproxy", "detail": "summary"}
            replies["summary"] = await s.call_tool("inspect_web_network_capture", summary)
            replies["list"] = await s.call_tool(
                "inspect_web_network_capture", {"capture_path": str(not_flow), "format": "mitmproxy"}
            )
            return replies

    replies = anyio.run(main)
    for name, (version, _flows) in LEGACY.items():
        first, again = (evidence(r) for r in replies[name])
        result = first["normalized_result"]
        # the same records as mitmdump lists, the version found reported, the same Evidence on a second read
        shown = [
            (
                r["reported"]["request"]["method"],
                f"https://{r['reported']['request']['host']}{r['reported']['request']['path']}",
            )
            for r in result["records"]
        ]
        assert [(m, u.split("?")[0]) for m, u in shown] == _mitmdump(DATA / name)
        assert result["container"]["reported"] == {
            "flow_format_version": 17,
            "format_versions_found": [".".join(map(str, version))],
        }
        assert all("migrated it to format 17" in r["limitations"][0] for r in result["records"])
        assert first["evidence_id"] == again["evidence_id"]
        text = json.dumps(first)
        for secret in (
            "AIzaSyA1234567890abcdefghijklmnopqrstuv",
            "legacy-flow-token",
            "legacy-referer",
            "legacy-cookie",
        ):
            assert secret not in text
        rules = {(x["rule"], x.get("url_component")) for r in result["records"] for x in r["redactions"]}
        assert ("credential-parameter", "query") in rules and ("credential-header", None) in rules
    summary = evidence(replies["summary"])["normalized_result"]["summary"]
    assert summary["format_versions_found"] == ["0.12"] and _size(replies["summary"]) < SUMMARY_BYTES
    assert summary["first_records"][0]["url"] == "https://example.com/maps/api/js?key=REDACTED&v=3"
    refused = error(replies["list"], "invalid_request")
    assert refused["details"]["reason"] == "malformed_capture" and refused["details"]["offset"] == 0
    # the CLI: the same summary as text
    cli = subprocess.run(
        [
            *rea_command(),
            "inspect-web-network-capture",
            str(DATA / "dumpfile-013.flows"),
            "--capture-format",
            "mitmproxy",
        ]
        + ["--summary"],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=300,
    )
    assert cli.returncode == 0, cli.stderr
    assert "#1 POST https://example.com/api/items/31.json?token=REDACTED 201" in cli.stdout
    assert "redacted credential-parameter at /request/path query token: 1 in 1 records" in cli.stdout
