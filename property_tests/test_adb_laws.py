"""Laws of the adb device tools' readers: whatever a device (or a hostile server) prints, every reader
answers rows or unparsed lines and never raises; the server endpoint is loopback or refused."""

from __future__ import annotations

import ipaddress

from hypothesis import given
from hypothesis import strategies as st
from returns.pipeline import is_successful

from rea.adb import parse
from rea.adb.devices import attached, devices, request, server_endpoint

TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=400)
LINES = st.lists(
    st.one_of(
        TEXT,
        st.sampled_from(
            [
                "package:/data/app/x/base.apk=com.a.b",
                "package:=x",
                "USER PID PPID VSZ RSS WCHAN ADDR S NAME",
                "root 1 0 1 2 x 0 S init",
                "drwxr-xr-x 2 root root 4096 2024-01-01 10:00 d",
                "lrwxrwxrwx 1 a b 3 2024-01-01 10:00 l -> ",
                "feature:reqGlEsVersion=0x30000",
                "feature:=",
                "0\tactivity: [android.app.IActivityManager]",
                "Physical size: 0x0",
                "[ro.kernel.qemu]: [1]",
                "emulator-5554 device transport_id:0 usb:",
            ]
        ),
    ),
    max_size=12,
).map("\n".join)


@given(LINES)
def test_every_reader_answers_rows_or_unparsed_lines(text):
    parse.properties(text)
    rows, unparsed = parse.packages(text)
    assert len(rows) + len(unparsed) == len(parse.lines(text))
    parse.package_paths(text)
    parse.installed_package(text)
    parse.processes(text)
    parse.directory(text)
    parse.features(text)
    parse.services(text)
    parse.display(text, text)
    parse.window(text)
    parse.setting(text)
    parse.verdict(text)
    parse.started(text)
    parse.launcher(text)
    parse.sha256_of(text)
    parse.png_size(text.encode("utf-8", "replace"))
    listed = devices(text)
    for row in listed:
        first = next(r for r in listed if r.serial == row.serial)
        assert is_successful(attached(listed, row.serial, "127.0.0.1:5037")) == (first.state == "device")


@given(
    st.dictionaries(
        st.sampled_from(["ADB_SERVER_SOCKET", "ANDROID_ADB_SERVER_ADDRESS", "ANDROID_ADB_SERVER_PORT"]), TEXT
    )
)
def test_the_server_endpoint_is_loopback_or_refused(env):
    found = server_endpoint(env)
    if is_successful(found):
        host, port = found.unwrap()
        assert ipaddress.ip_address(host).is_loopback and 0 < port < 65536
    else:
        assert found.failure().code == "configuration_invalid"


@given(st.text(max_size=200))
def test_requests_are_length_prefixed(payload):
    framed = request(payload)
    assert int(framed[:4], 16) == len(framed) - 4
