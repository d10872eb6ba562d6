"""Laws of the loopback rule: nothing but a loopback literal with a port is ever accepted."""

from __future__ import annotations

import ipaddress

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from rea.loopback import origin_allowed, origin_of, parse_endpoint, same_endpoint_host

_HOSTS = st.one_of(
    st.ip_addresses(v=4).map(str),
    st.ip_addresses(v=6).map(lambda a: f"[{a}]"),
    st.sampled_from(
        ["localhost", "LOCALHOST", "127.1", "0x7f.1", "example.com", "127.0.0.1.nip.io", "[::ffff:127.0.0.1]"]
    ),
    st.text(max_size=20),
)
_URLS = st.builds(
    lambda scheme, host, port, path: f"{scheme}://{host}{port}{path}",
    st.sampled_from(["http", "ws", "https", "wss", "file", "HTTP", ""]),
    _HOSTS,
    st.one_of(st.just(""), st.integers(-5, 70000).map(lambda p: f":{p}"), st.text(max_size=6).map(lambda t: ":" + t)),
    st.one_of(st.just(""), st.just("/devtools/browser/x"), st.text(max_size=12)),
)


def _independently_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    address = ipaddress.ip_address(host)
    return address.is_loopback


@given(st.one_of(_URLS, st.text(max_size=60)))
def test_every_string_gets_an_answer_and_only_loopback_is_accepted(value: str) -> None:
    got = parse_endpoint(value)
    if isinstance(got, Failure):
        err = got.failure()
        assert err.code == "invalid_request" and err.details["field"] == "cdp_endpoint"
        assert err.details["reason"] == "target_not_allowed" and "127.0.0.1" in err.details["accepted"]
        return
    e = got.unwrap()
    assert e.scheme in ("http", "ws") and 0 < e.port < 65536
    assert _independently_loopback(e.host) and e.host != "localhost"
    assert parse_endpoint(e.url) == Success(e)  # the normal form is a fixed point


@given(st.ip_addresses(v=4).filter(lambda a: not a.is_loopback), st.integers(1, 65535))
def test_no_routable_ipv4_is_accepted(address: ipaddress.IPv4Address, port: int) -> None:
    assert isinstance(parse_endpoint(f"http://{address}:{port}"), Failure)


@given(st.integers(1, 65535), st.integers(1, 65535), st.text(max_size=10))
def test_a_websocket_url_may_not_leave_its_endpoint(port: int, other: int, path: str) -> None:
    endpoint = parse_endpoint(f"http://127.0.0.1:{port}").unwrap()
    got = same_endpoint_host(endpoint, f"ws://127.0.0.1:{other}/devtools/page/{path}")
    assert isinstance(got, Success) == (port == other) or isinstance(got, Failure)
    if port != other:
        assert isinstance(got, Failure)


@given(st.sampled_from(["http", "https"]), st.ip_addresses(v=4).map(str), st.integers(1, 65535), st.text(max_size=8))
def test_a_url_is_allowed_by_its_own_origin_only(scheme: str, host: str, port: int, path: str) -> None:
    url = f"{scheme}://{host}:{port}/{path}"
    origin = origin_of(url)
    assert origin is not None and origin_allowed(url, [origin])
    assert not origin_allowed(url, [f"{scheme}://{host}:{port % 65535 + 1}"]) or port % 65535 + 1 == port
    assert origin_allowed(url, ["*"])
    assert not origin_allowed("about:blank", [origin])
