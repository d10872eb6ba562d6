"""Print the flows of one mitmproxy dump as JSON lines; run by Debian's /usr/bin/python3, never imported by REA.

mitmproxy cannot share REA's environment (its cryptography pin conflicts with
androguard's), so its own flow reader runs here as an owned child process. Each
line is one message: {"record": {offset, bytes, state}} per flow (bytes as
{"$bytes": base64}), then {"done": ...}; or one {"unavailable"}, {"refused"} or
{"malformed"} that ends the stream. Only the standard library and mitmproxy.
"""

import base64
import json
import sys


def emit(message):
    sys.stdout.write(json.dumps(message, allow_nan=False, separators=(",", ":")) + "\n")


def tag(value):
    if isinstance(value, bytes):
        return {"$bytes": base64.b64encode(value).decode("ascii")}
    if isinstance(value, dict):
        return {str(k): tag(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [tag(v) for v in value]
    return value


def read(path, flow, compat, tnetstring, version):
    count = 0
    with open(path, "rb") as handle:
        while handle.peek(1):
            offset = handle.tell()
            try:
                data = tnetstring.load(handle)
            except (ValueError, TypeError) as exc:
                emit({"malformed": {"offset": offset, "message": str(exc)}})
                return 4
            if not isinstance(data, dict) or "version" not in data:
                emit({"malformed": {"offset": offset, "message": "the record is not a mitmproxy flow state"}})
                return 4
            found = data.get("version")
            try:
                migrated = compat.migrate_flow(data)
                state = flow.Flow.from_state(migrated).get_state()
            except (ValueError, KeyError, TypeError) as exc:
                emit({"refused": {"offset": offset, "version": tag(found), "message": str(exc)}})
                return 5
            emit({"record": {"offset": offset, "bytes": handle.tell() - offset, "state": tag(state)}})
            count += 1
    emit({"done": {"records": count, "mitmproxy_version": version.VERSION, "flow_format": version.FLOW_FORMAT_VERSION}})
    return 0


def main():
    try:
        from mitmproxy import version
        from mitmproxy import flow
        from mitmproxy.io import compat, tnetstring
    except ImportError as exc:
        emit({"unavailable": {"message": str(exc)}})
        return 3
    return read(sys.argv[1], flow, compat, tnetstring, version)


if __name__ == "__main__":
    sys.exit(main())
