"""Laws of the loopback frame decoder and the TCP/UDP event decoder (rea.process_capture.packets, .protocol).

Frames are built here with struct from the RFC 791/8200/793/768 layouts (the decoder's own code is not
used to build them). Hostile input: random bytes, every truncation and every single-byte corruption of a
valid frame never raise and decode the same way twice. Reassembly: a byte stream cut into random segments,
delivered shuffled with duplicates and overlapping retransmits, comes out as exactly the bytes sent (count
and SHA-256), whatever the order; and the limits are honoured and counted.
"""

from __future__ import annotations

import hashlib
import random
import struct

from hypothesis import example, given
from hypothesis import strategies as st

from rea.process_capture.packets import Segment, Skipped, decode_frame
from rea.process_capture.protocol import Decoder, protocol_events
from rea.process_capture.records import CaptureLimits

LOCAL4, LOCAL6 = bytes([127, 0, 0, 1]), bytes(15) + b"\x01"
SYN, ACK, PSH, FIN, RST = 0x02, 0x10, 0x08, 0x01, 0x04


def tcp_frame(sport: int, dport: int, seq: int, ack: int, flags: int, payload: bytes = b"", v6: bool = False) -> bytes:
    tcp = (
        struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, 5 << 4, flags, 65535, 0, 0)
        + payload
    )
    return _ip(6, tcp, v6)


def udp_frame(sport: int, dport: int, payload: bytes, v6: bool = False) -> bytes:
    return _ip(17, struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload, v6)


def _ip(protocol: int, body: bytes, v6: bool) -> bytes:
    if v6:
        header = struct.pack("!IHBB16s16s", 6 << 28, len(body), protocol, 64, LOCAL6, LOCAL6)
        return bytes(12) + b"\x86\xdd" + header + body
    header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(body), 0, 0x4000, 64, protocol, 0, LOCAL4, LOCAL4)
    return bytes(12) + b"\x08\x00" + header + body


def _canonical(decoder_input: list[tuple[int, bytes]], limits: CaptureLimits | None = None):
    decoder = Decoder(limits or CaptureLimits())
    for at, frame in decoder_input:
        decoder.feed(at, frame)
    return decoder.finish()


@given(st.binary(max_size=200))
def test_random_bytes_never_raise_and_decode_the_same_twice(frame):
    first = decode_frame(frame)
    assert isinstance(first, Segment | Skipped)
    assert decode_frame(frame) == first


@given(st.binary(max_size=300), st.booleans(), st.integers(0, 0xFFFFFFFF), st.integers(0, 255))
def test_every_truncation_and_corruption_of_a_valid_frame_is_read_or_skipped(payload, v6, seq, flags):
    frame = tcp_frame(40000, 80, seq, 1, flags, payload, v6)
    whole = decode_frame(frame)
    assert whole == Segment(transport="tcp", source="[::1]:40000" if v6 else "127.0.0.1:40000",
                            destination="[::1]:80" if v6 else "127.0.0.1:80", seq=seq, ack=1, flags=flags,
                            payload=payload)  # fmt: skip
    for cut in range(len(frame)):
        assert isinstance(decode_frame(frame[:cut]), Skipped)  # the IP length says more bytes are due
    rng = random.Random(seq)
    for _ in range(20):
        at = rng.randrange(len(frame))
        broken = frame[:at] + bytes([rng.randrange(256)]) + frame[at + 1 :]
        assert decode_frame(broken) == decode_frame(broken)


@given(st.lists(st.binary(max_size=120), max_size=30), st.integers(0, 2**32 - 1))
def test_random_frame_sequences_never_raise_and_give_one_canonical_result(frames, salt):
    stamped = [(i, f) for i, f in enumerate(frames)]
    # valid frames of random flags and sequence numbers mixed in, so flows and streams are exercised too
    rng = random.Random(salt)
    for i in range(10):
        stamped.append((i, tcp_frame(rng.choice([1, 2]), 3, rng.randrange(2**32), 0, rng.randrange(64),
                                     rng.randbytes(rng.randrange(5)))))  # fmt: skip
    assert _canonical(stamped) == _canonical(list(stamped))


def _segments(data: bytes, cuts: list[int]) -> list[tuple[int, bytes]]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [(a, data[a:b]) for a, b in zip(points, points[1:]) if b > a]


@given(st.binary(min_size=1, max_size=3000), st.lists(st.integers(0, 3000), max_size=12),
       st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1), st.booleans())  # fmt: skip
@example(b"\0" * 14, [1, 745], 0, 277, False)  # a 3-byte retransmit held first at a 13-byte segment's start hid it
def test_a_stream_cut_shuffled_and_retransmitted_is_read_exactly_once(data, cuts, isn, salt, v6):
    rng = random.Random(salt)
    pieces = _segments(data, cuts)
    deliveries = pieces + rng.sample(pieces, k=min(len(pieces), 3))  # duplicates
    if len(data) > 4:  # an overlapping retransmit straddling two segments
        start = rng.randrange(len(data) - 2)
        deliveries.append((start, data[start : start + 3]))
    rng.shuffle(deliveries)
    frames = [tcp_frame(40000, 80, isn, 0, SYN, v6=v6), tcp_frame(80, 40000, 7, isn + 1, SYN | ACK, v6=v6)]
    frames += [tcp_frame(40000, 80, isn + 1 + off, 8, ACK | PSH, chunk, v6) for off, chunk in deliveries]
    frames.append(tcp_frame(40000, 80, isn + 1 + len(data), 8, ACK | FIN, v6=v6))
    traffic = _canonical([(n, f) for n, f in enumerate(frames)])
    kinds = [e.kind for e in traffic.events]
    assert kinds == ["connect", "data", "close"]
    event = traffic.events[1]
    assert (event.size, event.sha256) == (len(data), hashlib.sha256(data).hexdigest())
    assert event.preview == data[:2048] and event.preview_truncated == (len(data) > 2048)
    assert traffic.gap_bytes == traffic.unreadable == traffic.kernel_drops == 0


@given(st.lists(st.tuples(st.booleans(), st.binary(min_size=1, max_size=50)), min_size=1, max_size=20))
def test_alternating_sends_are_one_event_per_turn_and_limits_are_counted(turns):
    seqs = {True: 1000, False: 5000}
    frames = [tcp_frame(40000, 80, 999, 0, SYN), tcp_frame(80, 40000, 4999, 1000, SYN | ACK)]
    for forward, chunk in turns:
        ports = (40000, 80) if forward else (80, 40000)
        frames.append(tcp_frame(*ports, seqs[forward], 0, ACK | PSH, chunk))
        seqs[forward] += len(chunk)
    stamped = [(n, f) for n, f in enumerate(frames)]
    expected: list[tuple[bool, bytes]] = []
    for forward, chunk in turns:
        if expected and expected[-1][0] == forward:
            expected[-1] = (forward, expected[-1][1] + chunk)
        else:
            expected.append((forward, chunk))
    traffic = _canonical(stamped)
    data = [e for e in traffic.events if e.kind == "data"]
    assert [(e.direction == "received", e.preview) for e in data] == expected
    limited = _canonical(stamped, CaptureLimits(protocol_events=2, protocol_body_bytes=3))
    assert len(limited.events) == 2 and limited.events_dropped == len(traffic.events) - 2
    assert sum(len(e.preview) for e in limited.events) <= 3


def test_http_websocket_and_udp_are_recognised_and_connections_limited():
    upgrade = b"GET /chat HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
    switch = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n"
    frames = [tcp_frame(40000, 8080, 0, 0, SYN), tcp_frame(8080, 40000, 0, 1, SYN | ACK),
              tcp_frame(40000, 8080, 1, 1, PSH | ACK, upgrade), tcp_frame(8080, 40000, 1, 0, PSH | ACK, switch),
              tcp_frame(40000, 8080, 1 + len(upgrade), 0, PSH | ACK, b"\x81\x02hi"),
              tcp_frame(8080, 40000, 1 + len(switch), 0, RST),
              udp_frame(5353, 53, b"query"), udp_frame(53, 5353, b"answer")]  # fmt: skip
    events = protocol_events(_canonical(list(enumerate(frames))), str)
    assert [(e.kind, e.protocol, e.direction, e.method, e.path, e.status) for e in events] == [
        ("connect", "tcp", "received", None, None, None),
        ("data", "http", "request", "GET", "/chat", None),
        ("data", "http", "response", None, None, 101),
        ("data", "websocket", "received", None, None, None),
        ("reset", "websocket", "sent", None, None, None),
        ("datagram", "udp", "received", None, None, None),
        ("datagram", "udp", "sent", None, None, None),
    ]
    assert events[3].data == "\\x81\x02hi" and events[5].client == "127.0.0.1:5353"
    limited = _canonical(list(enumerate(frames)), CaptureLimits(connections=1))
    assert limited.connections_dropped == 1 and {e.connection for e in limited.events} == {0}


@given(st.binary(min_size=1, max_size=40), st.binary(min_size=1, max_size=40), st.booleans())
def test_a_reused_four_tuple_is_a_new_connection_and_udp_is_apart_from_tcp(first, second, reset):
    def connection(isn: int, data: bytes) -> list[bytes]:
        ending = [tcp_frame(40000, 80, isn + 1, 0, RST)] if reset else [
            tcp_frame(40000, 80, isn + 1 + len(data), 0, ACK | FIN), tcp_frame(80, 40000, 1, 0, ACK | FIN)]  # fmt: skip
        return [tcp_frame(40000, 80, isn, 0, SYN), tcp_frame(80, 40000, 0, isn + 1, SYN | ACK),
                tcp_frame(40000, 80, isn + 1, 1, ACK | PSH, data), *ending]  # fmt: skip

    frames = connection(100, first) + [udp_frame(40000, 80, b"dgram")] + connection(9000, second)
    events = _canonical(list(enumerate(frames))).events
    data = [(e.connection, e.protocol, e.preview) for e in events if e.kind in ("data", "datagram")]
    assert data == [(0, "tcp", first), (1, "udp", b"dgram"), (2, "tcp", second)]
    assert [e.connection for e in events if e.kind == "connect"] == [0, 2]
