"""REA's side of the loopback observer: receive the packet socket tap_main.py opened inside the run's network
namespace, read every frame from it while the run lives, and feed them to the pure decoder
(rea.process_capture.protocol.Decoder).

The socket is read by one thread (blocking reads with a short timeout), so the run's poll loop and
the MCP connection are not slowed and the kernel buffer is emptied as fast as frames come. Of the
two copies the loopback device shows of each packet (outgoing and incoming) only the outgoing one
is kept. The kernel's receive time of each frame (SO_TIMESTAMPNS) is the event time. After the run
(group verified gone), `finish` stops the thread, reads what is left, takes the kernel's drop
count (PACKET_STATISTICS) and closes the socket: nothing of the observer outlives the capture.
"""

from __future__ import annotations

import socket
import struct
import sys
import threading
import time
from collections.abc import Awaitable

import anyio
import attrs

from effects.process_capture.launch import TAP_MAIN
from effects.progress import Progress
from rea.process_capture.effects import ScenarioRun
from rea.process_capture.protocol import Decoder, LoopbackTraffic
from rea.process_capture.records import CaptureLimits

SOL_PACKET, PACKET_STATISTICS, PACKET_OUTGOING = 263, 6, 4
SCM_TIMESTAMPNS = 35
RECEIVE_BYTES = 1 << 18  # larger than any loopback frame (lo's MTU is 65536); MSG_TRUNC tells if one was not
READ_TIMEOUT_S = 0.05
FINAL_READS = 1_000_000
ATTACH_WAIT_S = 10.0


class Tap:
    """One run's observer channel and, once handed over, its packet socket."""

    def __init__(self, limits: CaptureLimits) -> None:
        self.ours, self.theirs = socket.socketpair()
        self.decoder = Decoder(limits)
        self.packets: socket.socket | None = None
        self.failure: str | None = None
        self.drops = 0
        self.start_epoch = 0.0
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None
        self.result: LoopbackTraffic | None = None

    def step(self) -> list[str]:
        """The exec-chain step that opens the socket in the namespace and hands it over."""
        return [sys.executable, "-I", TAP_MAIN, str(self.theirs.fileno())]

    def pass_fds(self) -> tuple[int, ...]:
        return (self.theirs.fileno(),)

    def begin(self, start_epoch: float) -> None:
        """After the spawn: drop our copy of the child's end, start reading."""
        self.start_epoch = start_epoch
        self.theirs.close()
        self.thread = threading.Thread(target=self._pump, name="rea-loopback-tap", daemon=True)
        self.thread.start()

    def _attach(self, timeout: float | None) -> bool:
        """Receive the packet socket (or the reason there is none); False while nothing has arrived yet."""
        self.ours.settimeout(timeout)
        try:
            message, fds, _, _ = socket.recv_fds(self.ours, 1024, 1)
        except (TimeoutError, BlockingIOError):
            return False
        except OSError as exc:
            self.failure = f"the observer's channel failed: {exc}"
            return True
        if fds:
            self.packets = socket.socket(fileno=fds[0])
        else:
            self.failure = message.decode("utf-8", "replace") or "the observer closed its channel without a socket"
        return True

    def _pump(self) -> None:
        began = time.monotonic()
        while not self.stop.is_set() and not self._attach(READ_TIMEOUT_S):
            if time.monotonic() - began > ATTACH_WAIT_S:
                return
        if self.packets is None:
            return
        self.packets.settimeout(READ_TIMEOUT_S)
        while not self.stop.is_set():
            self._read_one()

    def _read_one(self) -> bool:
        """Read one frame into the decoder; False when none is waiting."""
        assert self.packets is not None
        try:
            data, ancillary, flags, address = self.packets.recvmsg(RECEIVE_BYTES, 64, socket.MSG_TRUNC)
        except (TimeoutError, BlockingIOError):
            return False
        if address[2] != PACKET_OUTGOING:
            return True
        stamp = time.time()
        for level, kind, value in ancillary:
            if level == socket.SOL_SOCKET and kind == SCM_TIMESTAMPNS and len(value) >= 16:
                seconds, nanoseconds = struct.unpack_from("qq", value)
                stamp = seconds + nanoseconds / 1e9
        self.decoder.feed(max(0, int((stamp - self.start_epoch) * 1000)), data, bool(flags & socket.MSG_TRUNC))
        return True

    def finish(self) -> LoopbackTraffic:
        """Stop reading, read what the kernel still holds, count its drops, close everything (once)."""
        if self.result is not None:
            return self.result
        self.close()
        return self.result  # type: ignore[return-value]

    def close(self) -> None:
        if self.result is not None:
            return
        self.stop.set()
        if self.thread is not None:
            self.thread.join()
        if self.packets is None and self.failure is None:
            self._attach(0.0)  # a run too short for the thread to have taken the socket yet
        if self.packets is not None:
            self.packets.setblocking(False)
            for _ in range(FINAL_READS):
                if not self._read_one():
                    break
            _, dropped = struct.unpack("II", self.packets.getsockopt(SOL_PACKET, PACKET_STATISTICS, 8))
            self.drops += dropped
            self.packets.close()
        elif self.failure is None:
            self.failure = "the observer never handed over its socket"
        for end in (self.ours, self.theirs):
            end.close()
        self.result = self.decoder.finish(kernel_drops=self.drops, observer_failure=self.failure)


def open_tap(network_access: str, limits: CaptureLimits) -> Tap | None:
    """The observer of a loopback run; None with no network (no interface is up, so no traffic can exist)."""
    return Tap(limits) if network_access == "loopback" else None


async def observed(
    tap: Tap | None, start_epoch: float, progress: Progress, running: Awaitable[ScenarioRun]
) -> ScenarioRun:
    """The run, with its loopback traffic; a cancelled run's partial observation gets the traffic seen so far."""
    if tap is None:
        return await running
    tap.begin(start_epoch)
    try:
        run = await running
    except anyio.get_cancelled_exc_class():
        with anyio.CancelScope(shield=True):  # the final reads may be many: off the event loop, even when cancelled
            traffic = await anyio.to_thread.run_sync(tap.finish)
        partial = progress.effect_partial
        if isinstance(partial, ScenarioRun):
            progress.effect_partial = attrs.evolve(partial, loopback=traffic)
        raise
    return attrs.evolve(run, loopback=await anyio.to_thread.run_sync(tap.finish))
