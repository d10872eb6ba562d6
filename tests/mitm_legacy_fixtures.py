"""Old-format mitmproxy flow dumps (0.12, 0.13), written here byte by byte, and the committed copies.

mitmproxy 0.12/0.13 (2015) wrote each flow as a tnetstring dict with bytes keys,
`version: [0, 12]`, `httpversion: [1, 1]` tuples, `form_in`/`form_out`, a
response `code`/`msg`/`content`, `address: {address: [host, port], use_ipv6}`
connection records and `server_conn.state` (the fields mitmproxy's
io/compat.py converters read on their way to the current format). The encoder
below is ours (tnetstring: `LENGTH:DATA` and one type byte), not mitmproxy's, so
the dumps are an independent input; `mitmdump -n -r` is the independent reader
that shows they load. `python3 tests/mitm_legacy_fixtures.py` rewrites the
committed files in tests/data/mitmproxy/.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data" / "mitmproxy"
# (file, format version, flows as (method, path, status, response body))
LEGACY = {
    "dumpfile-012.flows": (
        (0, 12),
        [("GET", "/maps/api/js?key=AIzaSyA1234567890abcdefghijklmnopqrstuv&v=3", 200, b"ok")],
    ),
    "dumpfile-013.flows": (
        (0, 13),
        [("GET", "/", 304, b""), ("POST", "/api/items/31.json?token=legacy-flow-token", 201, b"{}")],
    ),
}


def tnetstring(value: Any) -> bytes:
    """tnetstring encoding (tnetstrings.info): bytes ',', int '#', float '^', bool '!', null '~', list ']', dict '}'."""
    if value is None:
        body, tag = b"", b"~"
    elif isinstance(value, bool):
        body, tag = (b"true" if value else b"false"), b"!"
    elif isinstance(value, int):
        body, tag = str(value).encode(), b"#"
    elif isinstance(value, float):
        body, tag = repr(value).encode(), b"^"
    elif isinstance(value, bytes):
        body, tag = value, b","
    elif isinstance(value, (list, tuple)):
        body, tag = b"".join(tnetstring(v) for v in value), b"]"
    elif isinstance(value, dict):
        body, tag = b"".join(tnetstring(k) + tnetstring(v) for k, v in value.items()), b"}"
    else:
        raise TypeError(type(value))
    return str(len(body)).encode() + b":" + body + tag


def _address(host: bytes, port: int) -> dict[bytes, Any]:
    return {b"address": [host, port], b"use_ipv6": False}


def legacy_flow(version: tuple[int, int], n: int, method: str, path: str, status: int, body: bytes) -> bytes:
    """One flow in the 0.12/0.13 layout (the same layout for both: convert_012_013 only bumps the version)."""
    start = 1449080666.5 + n
    request = {
        b"is_replay": False,
        b"port": 443,
        b"scheme": b"https",
        b"method": method.encode(),
        b"path": path.encode(),
        b"form_out": b"relative",
        b"httpversion": [1, 1],
        b"host": b"example.com",
        b"headers": [[b"Host", b"example.com"], [b"Referer", b"https://example.com/?access_token=legacy-referer"]],
        b"content": b"",
        b"form_in": b"relative",
        b"timestamp_start": start + 0.1,
        b"timestamp_end": start + 0.2,
    }
    response = {
        b"httpversion": [1, 1],
        b"timestamp_end": start + 0.4,
        b"msg": b"OK" if status < 300 else b"Not Modified",
        b"timestamp_start": start + 0.3,
        b"headers": [[b"Server", b"legacy"], [b"Set-Cookie", b"sid=legacy-cookie"]],
        b"content": body,
        b"code": status,
    }
    flow = {
        b"response": response,
        b"type": b"http",
        b"id": f"d209a4fc-8e12-43cb-9250-{n:012d}".encode(),
        b"error": None,
        b"version": list(version),
        b"client_conn": {
            b"ssl_established": True,
            b"clientcert": None,
            b"timestamp_end": None,
            b"timestamp_ssl_setup": start,
            b"address": _address(b"127.0.0.1", 58199 + n),
            b"timestamp_start": start - 1,
        },
        b"server_conn": {
            b"ssl_established": True,
            b"source_address": _address(b"10.0.0.2", 58201 + n),
            b"timestamp_end": None,
            b"address": _address(b"example.com", 443),
            b"timestamp_start": start - 0.5,
            b"sni": b"example.com",
            b"cert": None,
            b"timestamp_ssl_setup": start - 0.2,
            b"state": [],
            b"timestamp_tcp_setup": start - 0.3,
        },
        b"intercepted": False,
        b"request": request,
    }
    return tnetstring(flow)


def legacy_dump(name: str) -> bytes:
    version, flows = LEGACY[name]
    return b"".join(legacy_flow(version, n, *flow) for n, flow in enumerate(flows))


if __name__ == "__main__":
    DATA.mkdir(parents=True, exist_ok=True)
    for name in LEGACY:
        (DATA / name).write_bytes(legacy_dump(name))
        sys.stdout.write(f"{DATA / name}\n")
