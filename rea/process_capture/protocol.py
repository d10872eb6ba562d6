"""A capture's loopback traffic as ordered protocol events (pure: frames in, events out).

The effect side feeds every frame the run's loopback observer saw, with its kernel time, to a
`Decoder`; nothing here touches a socket. TCP is reassembled per connection and direction from
sequence numbers (retransmitted bytes are trimmed, segments ahead of a gap are held until it
fills), so what is recorded is the byte stream each side read, not the kernel's segmentation.
Consecutive bytes one side sends before the other side sends anything are one `data` event (a
request, a response, a message), with its byte count, SHA-256 and a bounded preview; SYN, FIN and
RST are `connect`, `close` and `reset` events; each UDP datagram is one event. An event whose bytes
begin with an HTTP/1.x request or status line is an `http` request or response (method, path,
status); after a WebSocket upgrade answered 101, the connection's data is `websocket`.

Directions are seen from the listening side, as the reference's replay server sees its
connections: `request`/`received` flow from the connecting client to the listener,
`response`/`sent` back. Everything the limits or the observer left out is counted, so the
capture can say the dimension is partial rather than complete.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any, Literal

import attrs

from rea.process_capture.packets import ACK, FIN, RST, SYN, Segment, Skipped, decode_frame
from rea.process_capture.records import CaptureLimits
from rea.wire.schema import field

PREVIEW_BYTES = 2048  # bytes of each event kept as its preview (the digest and count cover all of them)
MAX_HELD = 256  # out-of-order segments held per connection direction while a gap is open
MAX_HELD_BYTES = 32 << 20  # and their bytes over all connections (past either, they are counted as a hole)
MAX_REFUSED = 65536  # connections past limits.connections remembered (so each is counted once)
MASK = 0xFFFFFFFF
REQUEST_LINE = re.compile(rb"([A-Z][A-Z-]{0,15}) (\S{1,8192}) HTTP/1\.[01]\r?\n")
STATUS_LINE = re.compile(rb"HTTP/1\.[01] ([1-5][0-9][0-9])[ \r\n]")
UPGRADE = re.compile(rb"\r?\nupgrade:[ \t]*websocket", re.IGNORECASE)
Kind = Literal["connect", "data", "close", "reset", "datagram"]
Protocol = Literal["tcp", "udp", "http", "websocket"]
Direction = Literal["request", "response", "received", "sent"]


@attrs.frozen(kw_only=True)
class Observed:
    """One event as decoded, before redaction and numbering."""

    at_ms: int
    connection: int
    kind: Kind
    protocol: Protocol
    direction: Direction
    client: str
    server: str
    method: str | None = None
    path: str | None = None
    status: int | None = None
    size: int = 0
    sha256: str | None = None
    preview: bytes = b""
    preview_truncated: bool = False


@attrs.frozen(kw_only=True)
class LoopbackTraffic:
    """What the observer saw, and every way in which that is less than all of it."""

    events: tuple[Observed, ...]
    frames: int  # frames read (one copy of each packet)
    unreadable: int  # frames of the recorded kind that could not be read (truncated, malformed, fragments)
    kernel_drops: int  # frames the kernel dropped before the observer read them (PACKET_STATISTICS)
    events_dropped: int  # past limits.protocol_events
    connections_dropped: int  # connections past limits.connections (their frames not decoded)
    preview_bytes_dropped: int  # preview bytes past limits.protocol_body_bytes (digests still cover them)
    gap_bytes: int  # bytes held after a hole in a TCP stream that never filled
    midstream: int  # TCP connections first seen without their SYN
    observer_failure: str | None  # why the observer did not run (None: it ran)


@attrs.frozen(kw_only=True)
class ProtocolEvent:
    sequence: int = field("Order of observation", minimum=0)
    at_ms: int = field("Milliseconds after launch (kernel time of the first byte)", minimum=0)
    protocol: Protocol = field("http, websocket (after a 101 upgrade); our extras: tcp, udp")
    direction: Direction = field("Seen from the listening side: request/received from the client, response/sent to it")
    method: str | None = field("HTTP request method")
    path: str | None = field("HTTP request target")
    data: str = field("Preview of the bytes (UTF-8, other bytes as \\xNN), secrets redacted")
    outcome: Literal["observed"] = field("Our extra value: recorded on the wire (the reference's are replay outcomes)")
    kind: Kind = field("Our extra: connect, data, close (FIN), reset (RST) or a UDP datagram")
    connection: int = field("Our extra: the connection, numbered in order of first sight", minimum=0)
    client: str = field("Our extra: the connecting endpoint")
    server: str = field("Our extra: the listening endpoint")
    status: int | None = field("Our extra: HTTP response status")
    bytes: int = field("Our extra: payload bytes of the event", minimum=0)
    sha256: str | None = field("Our extra: SHA-256 of all its bytes (null: none)")
    data_truncated: bool = field("Our extra: data holds only the first bytes")


def _signed(delta: int) -> int:
    """A 32-bit sequence-number difference as a signed offset (RFC 1982 serial arithmetic)."""
    delta &= MASK
    return delta - (1 << 32) if delta & 0x80000000 else delta


@attrs.define
class _Burst:
    forward: bool
    at_ms: int
    digest: Any = attrs.field(factory=hashlib.sha256)
    size: int = 0
    preview: bytearray = attrs.field(factory=bytearray)
    cut: bool = False


@attrs.define
class _Stream:
    """One direction of a TCP connection: the next sequence number expected, and segments ahead of it."""

    next_seq: int | None = None
    held: dict[int, tuple[bytes, bool]] = attrs.field(factory=dict)
    finished: bool = False


@attrs.define
class _Flow:
    index: int
    transport: str
    client: str
    server: str
    streams: dict[bool, _Stream] = attrs.field(factory=lambda: {True: _Stream(), False: _Stream()})
    burst: _Burst | None = None
    http: bool = False
    upgrade: bool = False
    websocket: bool = False
    connected: bool = False
    closed: bool = False  # reset, or both directions finished: a new SYN on its endpoints is a new connection


class Decoder:
    """Frames in arrival order in, events out. A plain function of the frames fed (deterministic), bounded by
    the capture's limits: past them it counts instead of keeping."""

    def __init__(self, limits: CaptureLimits) -> None:
        self.limits = limits
        self.flows: dict[tuple[str, frozenset[str]], _Flow] = {}
        self.refused: set[tuple[str, frozenset[str]]] = set()
        self.connections = 0
        self.events: list[Observed] = []
        self.budget = limits.protocol_body_bytes
        self.held_bytes = 0
        self.counts = {"frames": 0, "unreadable": 0, "events_dropped": 0, "preview_bytes_dropped": 0,
                       "gap_bytes": 0, "midstream": 0}  # fmt: skip
        self.now = 0

    def feed(self, at_ms: int, frame: bytes, truncated: bool = False) -> None:
        self.counts["frames"] += 1
        self.now = max(self.now, at_ms)
        decoded = Skipped(reason="malformed") if truncated else decode_frame(frame)
        if isinstance(decoded, Skipped):
            if decoded.reason in ("fragment", "malformed"):
                self.counts["unreadable"] += 1
            return
        flow = self._flow(decoded)
        if flow is None:
            return
        if decoded.transport == "udp":
            self._datagram(flow, decoded)
        else:
            self._segment(flow, decoded)

    def _flow(self, segment: Segment) -> _Flow | None:
        key = (segment.transport, frozenset((segment.source, segment.destination)))
        found = self.flows.get(key)
        reopened = found is not None and found.closed and segment.flags & (SYN | ACK) == SYN
        if (found is not None and not reopened) or key in self.refused:
            return found
        if self.connections >= self.limits.connections:
            if len(self.refused) < MAX_REFUSED:
                self.refused.add(key)
            return None
        # the side that sends a SYN without ACK (or the first datagram) connects; a SYN-ACK's receiver is the client
        reverse = segment.transport == "tcp" and segment.flags & (SYN | ACK) == SYN | ACK
        client, server = (segment.destination, segment.source) if reverse else (segment.source, segment.destination)
        flow = _Flow(index=self.connections, transport=segment.transport, client=client, server=server)
        if found is not None:
            self._flush(found)
        self.flows[key] = flow
        self.connections += 1
        return flow

    def _emit(self, flow: _Flow, at_ms: int, kind: Kind, forward: bool, **extra: Any) -> None:
        if len(self.events) >= self.limits.protocol_events:
            self.counts["events_dropped"] += 1
            return
        protocol = extra.pop("protocol", "websocket" if flow.websocket else flow.transport)
        direction = extra.pop("direction", "received" if forward else "sent")
        self.events.append(Observed(at_ms=at_ms, connection=flow.index, kind=kind, protocol=protocol,
                                    direction=direction, client=flow.client, server=flow.server, **extra))  # fmt: skip

    def _datagram(self, flow: _Flow, segment: Segment) -> None:
        burst = _Burst(forward=segment.source == flow.client, at_ms=self.now)
        self._add(burst, segment.payload)
        self._emit_burst(flow, burst, "datagram")

    def _segment(self, flow: _Flow, segment: Segment) -> None:
        forward = segment.source == flow.client
        stream = flow.streams[forward]
        if segment.flags & SYN:
            if stream.next_seq is None:
                stream.next_seq = (segment.seq + 1) & MASK
            if forward and not flow.connected:
                flow.connected = True
                self._emit(flow, self.now, "connect", True)
            return
        if stream.next_seq is None:  # its SYN was never seen: the stream is read from here on
            stream.next_seq = segment.seq
            if not flow.connected:
                self.counts["midstream"] += 1
                flow.connected = True
        if segment.flags & RST:
            self._flush(flow)
            self._emit(flow, self.now, "reset", forward)
            flow.closed = True
            return
        self._deliver(flow, forward, segment.seq, segment.payload, bool(segment.flags & FIN))

    def _deliver(self, flow: _Flow, forward: bool, seq: int, payload: bytes, fin: bool) -> None:
        stream = flow.streams[forward]
        if stream.next_seq is None:
            return
        ahead = _signed(seq - stream.next_seq)
        if ahead > 0:
            if seq in stream.held:  # the same start again: keep the longer (a short retransmit must not hide bytes)
                kept, kept_fin = stream.held[seq]
                if len(payload) > len(kept) and self.held_bytes + len(payload) - len(kept) <= MAX_HELD_BYTES:
                    stream.held[seq] = (payload, fin or kept_fin)
                    self.held_bytes += len(payload) - len(kept)
                return
            if len(stream.held) < MAX_HELD and self.held_bytes + len(payload) <= MAX_HELD_BYTES:
                stream.held[seq] = (payload, fin)
                self.held_bytes += len(payload)
            else:
                self.counts["gap_bytes"] += len(payload)
            return
        fresh = payload[-ahead:] if -ahead < len(payload) else b""
        if fresh:
            self._data(flow, forward, fresh)
            stream.next_seq = (stream.next_seq + len(fresh)) & MASK
        if fin and not stream.finished and _signed(seq + len(payload) - stream.next_seq) == 0:
            stream.finished = True
            stream.next_seq = (stream.next_seq + 1) & MASK
            self._flush(flow)
            self._emit(flow, self.now, "close", forward)
            flow.closed = all(s.finished for s in flow.streams.values())
        self._release(flow, forward)

    def _release(self, flow: _Flow, forward: bool) -> None:
        """Held segments the stream has now reached, delivered in sequence order."""
        stream = flow.streams[forward]
        while stream.held and stream.next_seq is not None:
            due = [s for s in stream.held if _signed(s - stream.next_seq) <= 0]
            if not due:
                return
            seq = min(due, key=lambda s: _signed(s - stream.next_seq))  # type: ignore[operator]
            payload, fin = stream.held.pop(seq)
            self.held_bytes -= len(payload)
            self._deliver(flow, forward, seq, payload, fin)

    def _data(self, flow: _Flow, forward: bool, data: bytes) -> None:
        if flow.burst is not None and flow.burst.forward != forward:
            self._flush(flow)
        if flow.burst is None:
            flow.burst = _Burst(forward=forward, at_ms=self.now)
        self._add(flow.burst, data)

    def _add(self, burst: _Burst, data: bytes) -> None:
        burst.digest.update(data)
        burst.size += len(data)
        wanted = min(len(data), PREVIEW_BYTES - len(burst.preview))
        take = min(wanted, self.budget)
        self.budget -= take
        self.counts["preview_bytes_dropped"] += wanted - take
        burst.preview += data[:take]
        burst.cut = burst.cut or take < len(data)

    def _flush(self, flow: _Flow) -> None:
        if flow.burst is not None:
            self._emit_burst(flow, flow.burst, "data")
            flow.burst = None

    def _emit_burst(self, flow: _Flow, burst: _Burst, kind: Kind) -> None:
        head, extra = bytes(burst.preview), {}
        request = REQUEST_LINE.match(head) if burst.forward else None
        status = STATUS_LINE.match(head) if not burst.forward and flow.http else None
        if request is not None and not flow.websocket:
            flow.http, flow.upgrade = True, bool(UPGRADE.search(head))
            extra = {"protocol": "http", "direction": "request", "method": request.group(1).decode(),
                     "path": request.group(2).decode("utf-8", "backslashreplace")}  # fmt: skip
        elif status is not None and not flow.websocket:
            code = int(status.group(1))
            extra = {"protocol": "http", "direction": "response", "status": code}
            flow.websocket = flow.upgrade and code == 101
        self._emit(flow, burst.at_ms, kind, burst.forward, size=burst.size, sha256=burst.digest.hexdigest(),
                   preview=head, preview_truncated=burst.cut, **extra)  # fmt: skip

    def finish(self, kernel_drops: int = 0, observer_failure: str | None = None) -> LoopbackTraffic:
        """Flush what is still open (a stream that never closed ends its last event here) and count the holes."""
        for flow in self.flows.values():
            self._flush(flow)
            for stream in flow.streams.values():
                self.counts["gap_bytes"] += sum(len(p) for p, _ in stream.held.values())
                stream.held.clear()
        events = sorted(self.events, key=lambda e: e.at_ms)  # stable: emission order within a millisecond
        c = self.counts
        return LoopbackTraffic(events=tuple(events), frames=c["frames"], unreadable=c["unreadable"],
                               kernel_drops=kernel_drops, events_dropped=c["events_dropped"],
                               connections_dropped=len(self.refused), preview_bytes_dropped=c["preview_bytes_dropped"],
                               gap_bytes=c["gap_bytes"], midstream=c["midstream"], observer_failure=observer_failure)  # fmt: skip


def protocol_events(traffic: LoopbackTraffic | None, redact: Callable[[str], str]) -> tuple[ProtocolEvent, ...]:
    if traffic is None:
        return ()
    return tuple(
        ProtocolEvent(
            sequence=i,
            at_ms=e.at_ms,
            protocol=e.protocol,
            direction=e.direction,
            method=e.method,
            path=redact(e.path) if e.path is not None else None,
            data=redact(e.preview.decode("utf-8", "backslashreplace")),
            outcome="observed",
            kind=e.kind,
            connection=e.connection,
            client=e.client,
            server=e.server,
            status=e.status,
            bytes=e.size,
            sha256=e.sha256,
            data_truncated=e.preview_truncated,
        )  # fmt: skip
        for i, e in enumerate(traffic.events)
    )


def protocol_gaps(network_access: str, traffic: LoopbackTraffic | None) -> list[str]:
    """Why the protocol dimension is not completely observed (empty: it is). With network_access none no
    interface is up, so no protocol can run and there is nothing to miss."""
    if network_access == "none":
        return []
    if traffic is None:
        return ["loopback traffic was not observed"]
    if traffic.observer_failure is not None:
        return [f"the loopback observer did not start: {traffic.observer_failure}"]
    counted = (
        (traffic.kernel_drops, "frames were dropped by the kernel before the observer read them"),
        (traffic.unreadable, "frames could not be read (truncated, malformed or fragmented)"),
        (traffic.events_dropped, "events past limits.protocol_events"),
        (traffic.connections_dropped, "(at least) connections past limits.connections were not decoded"),
        (traffic.gap_bytes, "bytes followed a hole in a TCP stream that never filled"),
        (traffic.midstream, "TCP connections were first seen without their SYN"),
    )
    return [f"{n} {what}" for n, what in counted if n]


def protocol_truncated(traffic: LoopbackTraffic | None) -> bool:
    """Whether a declared limit cut what was retained (previews cut by protocol_body_bytes too: their digests
    still cover every byte, so that alone leaves the dimension comparable)."""
    return traffic is not None and bool(
        traffic.events_dropped or traffic.connections_dropped or traffic.preview_bytes_dropped
    )
