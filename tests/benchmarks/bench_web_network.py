"""Web network captures: inspect_web_network_capture on a 7.5 MB, 155-entry HAR against a bare json load.

The HAR is Chromium's own: the test page (tests/web_network_fixtures) is recorded
through the DevTools protocol, and its entries are repeated, each with a body grown
to ~48 KB (JSON text or base64 binary, as recorded), to 155 entries and ~7.5 MB. In a
child process each: the tool's work once its modules are loaded, as in a running
server (read_har, every record built, the Evidence created and serialized as the
reply), against `json.load` of the same file; and one cold MCP call on a fresh
server. Targets: <= 2 s and peak RSS <= 300 MiB; the ratio to the bare load is
reported.
"""

from __future__ import annotations

import base64
import copy
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.benchmarks import ROOT, Row, median, verdict

BENCH = "web_network"
ENTRIES, TARGET_BYTES = 155, 7_500_000
TIME_TARGET_S, RSS_TARGET_MIB = 2.0, 300

_BARE = r"""
import json, resource, sys, time
start = time.perf_counter()
with open(sys.argv[1], "rb") as f:
    json.load(f)
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""

_OURS = r"""
import resource, sys, time
from effects.web_network.runtime import read_har
from rea.canonical_json import canonicalize
from rea.evidence import Provider, Subject, create_evidence
from rea.web_network.programs import capture_result
from rea.web_network.records import CaptureArgs
start = time.perf_counter()  # the server has its programs loaded: time the call's work, from the file on
args = {"capture_path": sys.argv[1], "format": "har", "sensitive_values": [], "record_ordinals": None}
read = read_har(sys.argv[1], 32 << 20).unwrap()
result = capture_result(read, CaptureArgs(capture_path=sys.argv[1], format="har")).unwrap()
built = create_evidence(provider=Provider(id="python-json", name="json", version="3"),
    operation="inspect_web_network_capture", parameters=args, normalized_result=result,
    subject=Subject(name="b.har", sha256=read["artifact"]["sha256"], format="file", architecture=None,
                    local_path=sys.argv[1]), authority="historical-reference").unwrap()
reply = canonicalize(built.to_json())
assert len(result["records"]) == int(sys.argv[2]), len(result["records"])
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def build(root: Path) -> Path:
    """Chromium's recorded entries, repeated and grown to ENTRIES entries and ~TARGET_BYTES."""
    sys.path.insert(0, str(ROOT / "tests"))
    from web_network_fixtures import recorded_har

    har = json.loads(recorded_har(root).read_text())
    recorded = har["log"]["entries"]
    grow = TARGET_BYTES // ENTRIES
    entries = []
    for i in range(ENTRIES):
        entry = copy.deepcopy(recorded[i % len(recorded)])
        content = entry["response"]["content"]
        if content.get("encoding") == "base64":
            content["text"] = base64.b64encode(os.urandom(grow * 3 // 4)).decode()
        else:
            rows = [{"id": n, "name": f"item {n}", "price": n * 1.25} for n in range(grow // 58)]
            content["text"] = json.dumps(rows)
        entries.append(entry)
    har["log"]["entries"] = entries
    path = root / "bench.har"
    path.write_text(json.dumps(har))
    return path


def _child(code: str, *args: str) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, check=True)
    seconds, rss = out.stdout.split()
    return float(seconds), float(rss)


def _mcp_call(har: Path) -> float:
    import time

    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "effects.cli", "mcp"], env=dict(os.environ))

    async def main() -> float:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
            await s.initialize()
            start = time.perf_counter()
            # every record is decoded before selection; ten are returned (the whole reply is past the MCP budget)
            args = {"capture_path": str(har), "format": "har", "record_ordinals": list(range(10))}
            r = await s.call_tool("inspect_web_network_capture", args)
            assert not r.is_error, r.content[0].text[:300]
            return time.perf_counter() - start

    return anyio.run(main)


def run() -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="rea-bench-web-") as tmp:
        har = build(Path(tmp))
        size = har.stat().st_size / 1e6
        bare = [_child(_BARE, str(har)) for _ in range(3)]
        ours = [_child(_OURS, str(har), str(ENTRIES)) for _ in range(3)]
        cold = _mcp_call(har)
    seconds, base = median(o[0] for o in ours), median(b[0] for b in bare)
    rss, base_rss = max(o[1] for o in ours), max(b[1] for b in bare)
    return [
        Row(
            BENCH,
            f"inspect_web_network_capture, {size:.1f} MB {ENTRIES}-entry Chromium HAR",
            seconds,
            "s",
            "bare json.load",
            base,
            seconds / base,
            f"<= {TIME_TARGET_S}s",
            verdict(seconds <= TIME_TARGET_S),
        ),
        Row(
            BENCH,
            "peak RSS",
            rss,
            "MiB",
            "bare json.load RSS",
            base_rss,
            rss / base_rss,
            f"<= {RSS_TARGET_MIB} MiB",
            verdict(rss <= RSS_TARGET_MIB),
        ),
        Row(BENCH, "MCP, first call of a fresh server, 10 of 155 records returned", cold, "s"),
    ]


if __name__ == "__main__":
    for row in run():
        print(json.dumps(row.__dict__))
