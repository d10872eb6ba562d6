"""One command shim's run: `python3 -I shim_main.py PLAN NAME ARG...` (the shim script REA writes execs this).

Standalone (standard library only, run isolated with -I): it reads the plan REA wrote, appends its
invocation to the journal under an exclusive lock (so concurrent calls count routes exactly), then
answers as the first matching, not yet exhausted route says: its outputs at their times, then its
exit code or signal. With no such route it says so on stderr and exits 127.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import sys
import time
from typing import Any


def _decide(plan: dict[str, Any], name: str, arguments: list[str], journal: str) -> tuple[int | None, str]:
    routes = plan["shims"][name]
    with open(journal, "a+", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        used: dict[int, int] = {}
        for line in handle:
            call = json.loads(line)
            if call["command"] == name and call["route_index"] is not None:
                used[call["route_index"]] = used.get(call["route_index"], 0) + 1
        matching = [i for i, r in enumerate(routes) if r["arguments"] == arguments]
        free = [i for i in matching if used.get(i, 0) < routes[i]["max_calls"]]
        index = free[0] if free else None
        outcome = "matched" if free else ("exhausted" if matching else "unmatched")
        record = {"t": time.time(), "command": name, "arguments": arguments, "working_directory": os.getcwd(),
                  "route_index": index, "outcome": outcome}  # fmt: skip
        handle.write(json.dumps(record) + "\n")
        handle.flush()
    return index, outcome


def main(argv: list[str]) -> int:
    plan_path, name, arguments = argv[1], argv[2], argv[3:]
    with open(plan_path, encoding="utf-8") as handle:
        plan = json.load(handle)
    index, outcome = _decide(plan, name, arguments, plan["journal"])
    if index is None:
        sys.stderr.write(f"rea shim {name}: no {'remaining ' if outcome == 'exhausted' else ''}route for {arguments}\n")
        return 127
    route = plan["shims"][name][index]
    start = time.monotonic()
    for output in sorted(route["outputs"], key=lambda o: o["at_ms"]):
        delay = output["at_ms"] / 1000 - (time.monotonic() - start)
        if delay > 0:
            time.sleep(delay)
        stream = sys.stdout if output["stream"] == "stdout" else sys.stderr
        stream.write(output["data"])
        stream.flush()
    end = route["termination"]
    if end["type"] == "signal":
        number = getattr(signal, end["signal"])
        signal.signal(number, signal.SIG_DFL)  # Python turns SIGINT into an exception otherwise
        os.kill(os.getpid(), number)
        time.sleep(5)
        return 128 + int(number)
    return int(end["code"])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
