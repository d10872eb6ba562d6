"""inspect_web_network_capture, its api-surface view and compare_web_screenshots, through MCP and the CLI.

Inputs are real: a HAR recorded by headless Chromium from a loopback server, flow
dumps written by Debian's mitmproxy library, PNGs written by `chromium --headless
--screenshot`. Ground truth comes from elsewhere: jq reads the HAR, the tnetstring
length prefixes give the flow byte ranges, the pages' geometry gives the pixels.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest

from mcp_client import connect, error, evidence
from support import clean_env, rea_command
from web_network_fixtures import (
    BLOB,
    MITM_FLOWS,
    PAGE_GROUPS,
    chromium,
    mitm_available,
    recorded_har,
    screenshot,
    write_flows,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(chromium() is None or shutil.which("jq") is None, reason="chromium and jq (scripts/setup)"),
]


@pytest.fixture(scope="module")
def captures(tmp_path_factory):
    root = tmp_path_factory.mktemp("web-network")
    found = {"root": root, "har": recorded_har(root)}
    if mitm_available():
        found["flows"] = write_flows(root / "session.flows")
        found["v99"] = write_flows(root / "future.flows", version=99)
    return found


def jq(path: Path, program: str) -> list[str]:
    return subprocess.run(["jq", "-r", program, str(path)], check=True, capture_output=True, text=True).stdout.split(
        "\n"
    )[:-1]


def _args(path: Path, fmt: str = "har", **extra):
    return {"capture_path": str(path), "format": fmt, **extra}


def _mcp(calls):
    """Run (name, args, then) calls in one MCP session; `then` may build args from earlier replies."""

    async def main():
        out = []
        async with connect() as s:
            for name, args in calls:
                out.append(await s.call_tool(name, args(out) if callable(args) else args))
        return out

    return anyio.run(main)


def _ref(reply):
    return {"kind": "retained-evidence", "evidence_id": reply.structured_content["evidence_id"]}


def test_har_recorded_by_chromium_over_mcp(captures):
    har = captures["har"]
    api = {"kind": "api-surface", "offset": 0, "limit": 64}
    replies = _mcp(
        [
            ("inspect_web_network_capture", _args(har, sensitive_values=["hunter2"])),
            ("inspect_analysis_view", lambda out: {"source": _ref(out[0]), "view": api}),
            ("inspect_analysis_view", lambda out: {"source": _ref(out[0]), "view": {**api, "offset": 1, "limit": 2}}),
            ("inspect_web_network_capture", _args(har, record_ordinals=[5, 0])),
            ("inspect_web_network_capture", _args(har, record_ordinals=[0])),
            ("inspect_analysis_view", lambda out: {"source": _ref(out[4]), "view": api}),
            ("inspect_web_network_capture", _args(har, record_ordinals=[99])),
        ]
    )
    full = evidence(replies[0])
    result = full["normalized_result"]
    lines = jq(har, '.log.entries[] | .request.method + " " + .request.url')
    assert [
        f"{r['reported']['request']['method']} {r['reported']['request']['url']}" for r in result["records"]
    ] == lines
    assert (
        result["total_records"] == len(lines) and result["format"] == "har" and full["provider"]["id"] == "python-json"
    )
    assert result["artifact"]["sha256"] == hashlib.sha256(har.read_bytes()).hexdigest()
    assert [r["location"] for r in result["records"]][2] == {"kind": "json-pointer", "pointer": "/log/entries/2"}
    # the binary body by pointer: exact bytes, the same as the HAR's own base64 (read by jq)
    blob = next(r for r in result["records"] if r["reported"]["request"]["url"].endswith("/api/blob"))
    field = blob["binary_fields"][0]
    text = jq(har, '.log.entries[] | select(.request.url | endswith("/api/blob")) | .response.content.text')[0]
    assert base64.b64decode(text) == BLOB == base64.b64decode(field["content_base64"])
    assert field == {
        "pointer": "/response/content/text",
        "representation": "har-base64-content",
        "state": "retained",
        "content_base64": text,
        "bytes": len(BLOB),
        "sha256": hashlib.sha256(BLOB).hexdigest(),
    }
    assert blob["reported"]["response"]["content"]["text"] is None
    # credentials and the declared value are gone, everywhere (the parameters too)
    body = json.dumps(full)
    for secret in ("s3cr3t-token", "cookie-secret", "hunter2"):
        assert secret in har.read_text() and secret not in body
    item = result["records"][1]
    auth = next(i for i, h in enumerate(item["reported"]["request"]["headers"]) if h["name"] == "Authorization")
    header = {
        "pointer": f"/request/headers/{auth}/value",
        "reason": "transport-credential",
        "rule": "credential-header",
    }
    assert header in item["redactions"]
    login = result["records"][-1]
    declared = {"pointer": "/request/postData/text", "reason": "explicit-sensitive-value", "rule": "sensitive-value"}
    assert declared in login["redactions"]
    price = [n for n in item["numeric_literals"] if n["pointer"] == "/response/status"]
    assert price == [{"pointer": "/response/status", "producer_type": "json-number", "literal": "200"}]
    # the api-surface view: every request line grouped, templated segments inferred
    view = evidence(replies[1])
    surface = view["normalized_result"]
    assert view["confidence"] == "inferred" and view["evidence_links"] == [full["evidence_id"]]
    assert {(g["method"], g["path_template"]): g["request_count"] for g in surface["groups"]} == PAGE_GROUPS
    uuid = next(g for g in surface["groups"] if g["path_template"].endswith("{uuid}"))
    assert [s["basis"] for s in uuid["segments"]] == ["observed", "observed", "inferred"]
    assert uuid["segments"][2]["rule"] == "uuid" and uuid["templated"] is True
    assert surface["total_groups"] == 5 and surface["coverage"]["exhausted"] is True
    page = evidence(replies[2])
    assert page["normalized_result"]["groups"] == surface["groups"][1:3]
    assert page["normalized_result"]["coverage"]["next_offset"] == 3 and page["confidence"] == "inferred"
    # ordinals select in the caller's order; a page without templates is derived
    assert [r["ordinal"] for r in evidence(replies[3])["normalized_result"]["records"]] == [5, 0]
    assert evidence(replies[5])["confidence"] == "derived"
    assert error(replies[6], "invalid_request")["details"]["field"] == "record_ordinals"


def test_hostile_har_files_over_mcp(captures, tmp_path):
    good = json.loads(captures["har"].read_text())
    huge = tmp_path / "huge.har"
    with open(huge, "wb") as handle:
        handle.truncate(200 << 20)  # 200 MB, sparse: refused from its size, never read
    missing = json.loads(json.dumps(good))
    del missing["log"]["entries"][1]["request"]
    undecodable = json.loads(json.dumps(good))
    blob = next(e for e in undecodable["log"]["entries"] if e["response"]["content"].get("encoding") == "base64")
    blob["response"]["content"]["text"] = "not*base64!"
    cases = {
        "missing": json.dumps(missing),
        "undecodable": json.dumps(undecodable),
        "duplicate": '{"log": {"version": "1.2", "version": "1.2", "entries": []}}',
        "version": '{"log": {"version": "0.9", "entries": []}}',
        "truncated": captures["har"].read_text()[:5000],
    }
    paths = {}
    for name, text in cases.items():
        paths[name] = tmp_path / f"{name}.har"
        paths[name].write_text(text)
    replies = _mcp(
        [("inspect_web_network_capture", _args(huge))]
        + [("inspect_web_network_capture", _args(p)) for p in paths.values()]
    )
    assert error(replies[0], "resource_constraint")["details"]["bytes"] == 200 << 20
    found = {name: error(r, "invalid_request")["details"] for name, r in zip(cases, replies[1:], strict=True)}
    assert found["missing"]["pointer"] == "/log/entries/1/request"
    index = undecodable["log"]["entries"].index(blob)
    assert found["undecodable"]["pointer"] == f"/log/entries/{index}/response/content/text"
    assert all(f["field"] == "capture_path" for f in found.values())


@pytest.mark.skipif(not mitm_available(), reason="Debian's mitmproxy (scripts/setup test)")
def test_mitmproxy_flows_over_mcp(captures):
    flows = captures["flows"]
    replies = _mcp(
        [
            ("inspect_web_network_capture", _args(flows, "mitmproxy", sensitive_values=["plain text"])),
            ("inspect_analysis_view", lambda out: {"source": _ref(out[0]), "view": {"kind": "api-surface"}}),
            ("inspect_web_network_capture", _args(captures["v99"], "mitmproxy")),
            ("inspect_web_network_capture", _args(captures["har"], "mitmproxy")),
        ]
    )
    full = evidence(replies[0])
    result = full["normalized_result"]
    assert full["provider"] == {"id": "mitmproxy", "name": "mitmproxy flow reader", "version": "8.1.1"}
    # byte ranges from the tnetstring length prefixes, read here without mitmproxy
    data, offset, ranges = flows.read_bytes(), 0, []
    while offset < len(data):
        colon = data.index(b":", offset)
        size = colon - offset + 1 + int(data[offset:colon]) + 1
        ranges.append({"kind": "byte-range", "offset": offset, "bytes": size})
        offset += size
    assert [r["location"] for r in result["records"]] == ranges and result["total_records"] == 3
    for record, (method, path, status, body) in zip(result["records"], MITM_FLOWS, strict=True):
        reported = record["reported"]
        assert (reported["request"]["method"], reported["request"]["path"]) == (method, path)
        assert reported["response"]["status_code"] == status
        content = next(f for f in record["binary_fields"] if f["pointer"] == "/response/content")
        if b"plain text" in body:
            assert content["state"] == "redacted" and content["content_base64"] is None
        else:
            assert base64.b64decode(content["content_base64"]) == body and content["bytes"] == len(body)
        reasons = {r["pointer"]: r["reason"] for r in record["redactions"]}
        assert reasons["/request/headers/0/1"] == "transport-credential"
    text = json.dumps(full)
    assert "flow-token" not in text and "flow-cookie" not in text and "Zm9vOmJhcg==" not in text
    surface = evidence(replies[1])["normalized_result"]
    assert [(g["method"], g["path_template"]) for g in surface["groups"]] == [
        ("DELETE", "/api/users/{integer}"),
        ("GET", "/api/users/{integer}"),
        ("GET", "/static/app.js"),
    ]
    refused = error(replies[2], "invalid_request")["details"]
    assert refused["version_found"] == 99 and refused["reason"] == "unsupported_version"
    assert error(replies[3], "invalid_request")["details"]["reason"] == "malformed_capture"


@pytest.mark.skipif(not mitm_available(), reason="Debian's mitmproxy (scripts/setup test)")
def test_missing_mitmproxy_interpreter_is_typed_unavailability(captures):
    async def main():
        async with connect(REA_MITMPROXY_PYTHON="/nonexistent/python3") as s:
            return await s.call_tool("inspect_web_network_capture", _args(captures["flows"], "mitmproxy"))

    body = error(anyio.run(main), "capability_unavailable")
    assert (
        body["details"]["reason"] == "provider_missing" and "apt-get install mitmproxy" in body["remediation"]["action"]
    )


def _artifact(path: Path) -> dict:
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    return {
        "uri": f"rea://web-screenshot/sha256/{digest}",
        "sha256": digest,
        "bytes": len(data),
        "media_type": "image/png",
        "data_base64": base64.b64encode(data).decode(),
    }


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    root = tmp_path_factory.mktemp("shots")
    box = (10, 10, 30, 20)
    return {
        "red": screenshot(root, "red", [(*box, "#f00")], (120, 80)),
        "red2": screenshot(root, "red2", [(*box, "#f00")], (120, 80)),
        "blue": screenshot(root, "blue", [(*box, "#00f")], (120, 80)),
        "wide": screenshot(root, "wide", [(*box, "#f00")], (160, 80)),
        "root": root,
    }


def test_screenshots_over_mcp(shots):
    red, blue = shots["red"], shots["blue"]
    truncated = shots["root"] / "truncated.png"
    truncated.write_bytes(red.read_bytes()[:-20])
    lying = _artifact(red) | {"sha256": "0" * 64}
    replies = _mcp(
        [
            ("compare_web_screenshots", {"before": {"path": str(red)}, "after": {"path": str(shots["red2"])}}),
            ("compare_web_screenshots", {"before": _artifact(red), "after": _artifact(blue)}),
            (
                "compare_web_screenshots",
                {"before": {"path": str(red)}, "after": _artifact(blue), "channel_threshold": 255},
            ),
            ("compare_web_screenshots", {"before": {"path": str(red)}, "after": {"path": str(shots["wide"])}}),
            ("compare_web_screenshots", {"before": {"path": str(truncated)}, "after": {"path": str(red)}}),
            ("compare_web_screenshots", {"before": lying, "after": _artifact(blue)}),
            (
                "compare_web_screenshots",
                {"before": {"path": str(red)}, "after": {"path": str(red)}, "maximum_pixels": 100},
            ),
        ]
    )
    same = evidence(replies[0])["normalized_result"]
    assert same["status"] == "identical" and same["compared_pixels"] == 120 * 80 and same["changed_pixels"] == 0
    diff = evidence(replies[1])
    result = diff["normalized_result"]
    assert result["status"] == "different" and result["changed_pixels"] == 30 * 20  # the box, by its geometry
    assert result["changed_ratio"] == 600 / 9600 and result["maximum_channel_delta"] == 255
    assert result["mean_absolute_channel_delta"] == pytest.approx(600 * 2 * 255 / (9600 * 4))
    assert "data_base64" not in json.dumps(diff["parameters"])
    assert evidence(replies[2])["normalized_result"]["status"] == "identical"
    mismatch = evidence(replies[3])["normalized_result"]
    assert mismatch["status"] == "dimension_mismatch" and mismatch["after"] == {"width": 160, "height": 80}
    assert mismatch["changed_pixels"] is None and mismatch["compared_pixels"] == 0
    assert error(replies[4], "invalid_request")["details"]["reason"] == "invalid_png"
    assert error(replies[5], "invalid_request")["details"]["field"] == "before"
    assert "maximum_pixels" in error(replies[6], "invalid_request")["message"]


def _rea(*args: str, **env: str):
    return subprocess.run([*rea_command(), *args], capture_output=True, text=True, env=clean_env(**env), timeout=300)


def test_cli_json_and_text(captures, shots):
    har = str(captures["har"])
    as_json = _rea("inspect-web-network-capture", har, "--capture-format", "har", "--record", "1", "--json")
    assert as_json.returncode == 0, as_json.stderr
    body = json.loads(as_json.stdout)
    assert [r["ordinal"] for r in body["normalized_result"]["records"]] == [1]
    as_text = _rea("inspect-web-network-capture", har, "--capture-format", "har", "--api-surface")
    assert as_text.returncode == 0, as_text.stderr
    assert "/api/items/{integer} x3" in as_text.stdout and "POST" in as_text.stdout
    compared = _rea("compare-web-screenshots", str(shots["red"]), str(shots["blue"]), "--json")
    assert json.loads(compared.stdout)["normalized_result"]["changed_pixels"] == 600
    text = _rea("compare-web-screenshots", str(shots["red"]), str(shots["red2"]))
    assert "identical 120x80" in text.stdout
    refused = _rea("inspect-web-network-capture", har, "--capture-format", "mitmproxy")
    assert refused.returncode != 0 and "invalid_request" in refused.stdout + refused.stderr
    assert os.path.exists(har)
