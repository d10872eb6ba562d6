"""Print the flows of one mitmproxy dump as JSON lines; run by Debian's /usr/bin/python3, never imported by REA.

mitmproxy cannot share REA's environment (its cryptography pin conflicts with
androguard's), so its own flow reader runs here as an owned child process. Each
line is one message: {"record": {offset, bytes, state}} per flow (bytes as
{"$bytes": base64}), then {"done": ...}; or one {"unavailable"}, {"refused"} or
{"malformed"} that ends the stream. Only the standard library and mitmproxy.
"""

from __future__ import annotations

import base64
import json
import sys
from types import ModuleType
from typing import Any


def emit(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message, allow_nan=False, separators=(",", ":")) + "\n")


def tag(value: object) -> object:
    if isinstance(value, bytes):
        return {"$bytes": base64.b64encode(value).decode("ascii")}
    if isinstance(value, dict):
        return {str(k): tag(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [tag(v) for v in value]
    return value


def _version(data: object) -> object:
    """The format version a record declares, looked up as mitmproxy's migration does (bytes keys before 0.18)."""
    return data.get(b"version", data.get("version")) if isinstance(data, dict) else None


class _StableIds:
    """Stands in for compat's uuid module: the connection ids mitmproxy's 4 -> 5 migration invents are
    numbered per dump instead of random, so reading one dump twice gives the same records (and Evidence)."""

    def __init__(self, uuid: ModuleType) -> None:
        self.uuid = uuid
        self.count = 0

    def uuid4(self) -> Any:
        self.count += 1
        return self.uuid.UUID(int=self.count, version=4)


def _state(data: dict[Any, Any], flow: Any, compat: Any) -> tuple[Any, dict[str, str] | None]:
    """mitmproxy's own FlowReader steps (compat.migrate_flow, Flow.from_state); its refusal says why."""
    try:
        migrated = compat.migrate_flow(data)
    except ValueError as exc:  # the reader's FlowReadException: a version it has no converter for
        return None, {"refused": str(exc)}
    except (TypeError, IndexError, KeyError, AttributeError) as exc:
        return None, {"malformed": f"mitmproxy's migration failed ({type(exc).__name__}: {exc})"}
    try:
        return flow.Flow.from_state(migrated).get_state(), None
    except (ValueError, TypeError, IndexError, KeyError, AttributeError) as exc:
        return None, {"malformed": f"mitmproxy cannot build a flow from it ({type(exc).__name__}: {exc})"}


def read(path: str, flow: Any, compat: Any, tnetstring: Any, version: Any) -> int:
    import uuid

    compat.uuid = _StableIds(uuid)
    count = 0
    with open(path, "rb") as handle:
        while handle.peek(1):
            offset = handle.tell()
            try:
                data = tnetstring.load(handle)
            except (ValueError, TypeError, IndexError) as exc:  # mitmproxy: "Invalid data format."
                emit({"malformed": {"offset": offset, "message": f"invalid tnetstring data ({exc})"}})
                return 4
            found = _version(data)
            if not isinstance(data, dict):
                emit({"malformed": {"offset": offset, "message": "the record is a tnetstring but not a flow (dict)"}})
                return 4
            state, why = _state(data, flow, compat)
            if why is not None and "refused" in why:
                emit({"refused": {"offset": offset, "version": tag(found), "message": why["refused"]}})
                return 5
            if why is not None:
                emit({"malformed": {"offset": offset, "message": why["malformed"], "version": tag(found)}})
                return 4
            emit(
                {
                    "record": {
                        "offset": offset,
                        "bytes": handle.tell() - offset,
                        "version": tag(found),
                        "state": tag(state),
                    }
                }
            )
            count += 1
    emit({"done": {"records": count, "mitmproxy_version": version.VERSION, "flow_format": version.FLOW_FORMAT_VERSION}})
    return 0


def main() -> int:
    try:
        from mitmproxy import flow, version
        from mitmproxy.io import compat, tnetstring
    except ImportError as exc:
        emit({"unavailable": {"message": str(exc)}})
        return 3
    return read(sys.argv[1], flow, compat, tnetstring, version)


if __name__ == "__main__":
    sys.exit(main())
