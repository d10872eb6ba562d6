"""The loopback observer step of a capture's exec chain (standard library only, run as `python3 -I`).

It runs inside the run's private network namespace, before util-linux setsid: it opens an AF_PACKET
socket on the namespace's `lo` (root in its own namespace has CAP_NET_RAW there), with kernel
timestamps and a large receive buffer, hands that socket to REA over the inherited Unix socket
named by argv[1] (SCM_RIGHTS), closes its copy of both and execs the rest of its argv. So it adds no
process: the pid REA holds goes on to become the captured executable, and REA reads the namespace's
frames from the socket it was handed (effects/process_capture/loopback.py) until it closes it.
If the socket cannot be made, it says why on the channel and the run goes on unobserved (REA
reports the protocol dimension as unknown with that reason).
"""

import os
import socket
import sys

ETH_P_ALL = 0x0003
SO_RCVBUFFORCE = 33  # Linux: a buffer past rmem_max (CAP_NET_ADMIN in the namespace's owner)
SO_TIMESTAMPNS = 35
BUFFER_BYTES = 64 << 20


def _tap() -> socket.socket:
    tap = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    try:
        tap.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, BUFFER_BYTES)
    except OSError:
        tap.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, BUFFER_BYTES)
    tap.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    tap.bind(("lo", 0))
    return tap


def main() -> None:
    channel = socket.socket(fileno=int(sys.argv[1]))
    try:
        tap = _tap()
        socket.send_fds(channel, [b"tap"], [tap.fileno()])
        tap.close()
    except OSError as exc:
        channel.sendall(f"failed: {exc}".encode("utf-8", "replace")[:1000])
    channel.close()
    os.execv(sys.argv[2], sys.argv[2:])


if __name__ == "__main__":
    main()
