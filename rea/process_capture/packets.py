"""One link-layer frame of a capture's private loopback, decoded to its transport segment (pure).

The frames come from an AF_PACKET socket on the run's own `lo` (effects/process_capture/loopback.py):
a 14-byte Ethernet header with zero addresses, then IPv4 or IPv6, then TCP or UDP. The headers read
here are few and of fixed layout, so they are read with `struct` rather than a packet library: every
length is checked against the bytes present, and a frame that does not hold together answers
`Skipped` with a reason, never an exception (property_tests/test_process_capture_packets.py feeds it
hostile and truncated frames). Checksums are not verified: the loopback device leaves them partial.
"""

from __future__ import annotations

import ipaddress
import struct
from typing import Literal

import attrs

ETHERNET = 14
ETH_IPV4, ETH_IPV6, ETH_VLAN = 0x0800, 0x86DD, 0x8100
TCP, UDP = 6, 17
IPV6_EXTENSIONS = (0, 43, 60)  # hop-by-hop, routing, destination options: skipped over
IPV6_FRAGMENT = 44
SYN, FIN, RST, ACK = 0x02, 0x01, 0x04, 0x10
# not_ip and other_transport are traffic this observer does not record (ARP, ICMP); fragment and
# malformed are frames of the recorded kind it could not read, which leave the protocol dimension open
SkipReason = Literal["not_ip", "other_transport", "fragment", "malformed"]


@attrs.frozen(kw_only=True)
class Segment:
    """A TCP segment or UDP datagram: its endpoints ('127.0.0.1:80', '[::1]:80'), TCP sequence fields, payload."""

    transport: Literal["tcp", "udp"]
    source: str
    destination: str
    seq: int = 0
    ack: int = 0
    flags: int = 0
    payload: bytes = b""


@attrs.frozen(kw_only=True)
class Skipped:
    reason: SkipReason


def _endpoint(address: bytes, port: int) -> str:
    if len(address) == 4:
        return f"{ipaddress.IPv4Address(address)}:{port}"
    return f"[{ipaddress.IPv6Address(address)}]:{port}"


def _ipv4(packet: bytes) -> tuple[int, bytes, bytes, bytes] | Skipped:
    if len(packet) < 20 or packet[0] >> 4 != 4:
        return Skipped(reason="malformed")
    header = (packet[0] & 0x0F) * 4
    total = struct.unpack_from("!H", packet, 2)[0]
    if header < 20 or total < header or total > len(packet):
        return Skipped(reason="malformed")
    fragment = struct.unpack_from("!H", packet, 6)[0]
    if fragment & 0x3FFF:  # more-fragments flag or a non-zero offset
        return Skipped(reason="fragment")
    return packet[9], packet[12:16], packet[16:20], packet[header:total]


def _ipv6(packet: bytes) -> tuple[int, bytes, bytes, bytes] | Skipped:
    if len(packet) < 40 or packet[0] >> 4 != 6:
        return Skipped(reason="malformed")
    length = struct.unpack_from("!H", packet, 4)[0]
    if 40 + length > len(packet):
        return Skipped(reason="malformed")
    following, body = packet[6], packet[40 : 40 + length]
    while following in IPV6_EXTENSIONS:
        if len(body) < 8 or (body[1] + 1) * 8 > len(body):
            return Skipped(reason="malformed")
        following, body = body[0], body[(body[1] + 1) * 8 :]
    if following == IPV6_FRAGMENT:
        return Skipped(reason="fragment")
    return following, packet[8:24], packet[24:40], body


def _transport(protocol: int, source: bytes, destination: bytes, body: bytes) -> Segment | Skipped:
    if protocol == TCP:
        if len(body) < 20:
            return Skipped(reason="malformed")
        sport, dport, seq, ack, offset, flags = struct.unpack_from("!HHIIBB", body)
        header = (offset >> 4) * 4
        if header < 20 or header > len(body):
            return Skipped(reason="malformed")
        return Segment(transport="tcp", source=_endpoint(source, sport), destination=_endpoint(destination, dport),
                       seq=seq, ack=ack, flags=flags, payload=body[header:])  # fmt: skip
    if protocol == UDP:
        if len(body) < 8:
            return Skipped(reason="malformed")
        sport, dport, length = struct.unpack_from("!HHH", body)
        if length < 8 or length > len(body):
            return Skipped(reason="malformed")
        return Segment(transport="udp", source=_endpoint(source, sport), destination=_endpoint(destination, dport),
                       payload=body[8:length])  # fmt: skip
    return Skipped(reason="other_transport")


def decode_frame(frame: bytes) -> Segment | Skipped:
    """The TCP or UDP segment an Ethernet frame carries, or why there is none."""
    if len(frame) < ETHERNET:
        return Skipped(reason="malformed")
    kind, offset = struct.unpack_from("!H", frame, 12)[0], ETHERNET
    while kind == ETH_VLAN:
        if len(frame) < offset + 4:
            return Skipped(reason="malformed")
        kind, offset = struct.unpack_from("!H", frame, offset + 2)[0], offset + 4
    if kind not in (ETH_IPV4, ETH_IPV6):
        return Skipped(reason="not_ip")
    network = (_ipv4 if kind == ETH_IPV4 else _ipv6)(frame[offset:])
    if isinstance(network, Skipped):
        return network
    return _transport(*network)
