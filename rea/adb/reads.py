"""The read-only adb tool bodies: one shell command (or two), its output read by rea.adb.parse into the
reference's result record. Readers are pure (`Result`); the bodies are program steps."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
from returns.result import Failure, Result, Success

from rea.adb import parse
from rea.adb import records as w
from rea.adb.effects import AdbStep
from rea.adb.steps import Body, Built, coverage, exchange, not_installed, shell, unread, unreadable
from rea.android.records import AdbClient
from rea.errors import ReaError
from rea.program import must, refuse

Read = Callable[[AdbClient, Any, str], Result[Built, ReaError]]


def one(command: Callable[[Any], str], read: Read) -> Callable[[Any, AdbClient], Body]:
    """A tool that runs one shell command and reads its output."""

    def body(args: w.SerialArgs, client: AdbClient) -> Body:
        texts = yield from shell(args, command(args))
        return must(read(client, args, texts[0]))

    return body


def listing(record: type, rows_field: str, parser: Callable[[str], tuple[Any, tuple[str, ...]]]) -> Read:
    """A reader whose output is rows plus the lines it could not read (coverage partial)."""

    def read(client: AdbClient, args: Any, text: str) -> Result[Built, ReaError]:  # SerialArgs, or PackagesArgs
        rows, unparsed = parser(text)
        built = record(
            client=client,
            serial=args.serial,
            unparsed_lines=unparsed,
            coverage=coverage(unparsed),
            **{rows_field: rows},
            **({"scope": args.scope} if "scope" in attrs.fields_dict(record) else {}),
        )
        return Success((built, unread(unparsed)))

    return read


def device(client: AdbClient, args: w.SerialArgs, text: str) -> Result[Built, ReaError]:
    rows, qemu = parse.properties(text)
    record = w.DeviceResult(
        client=client, serial=args.serial, properties=rows, property_count=len(rows), emulator_observed=qemu
    )
    return Success((record, []))


SCOPE_FLAGS = {"all": "", "third_party": " -3", "system": " -s"}


def resolve(client: AdbClient, args: w.ResolveArgs, text: str) -> Result[Built, ReaError]:
    rows, unparsed = parse.packages(text)
    query = args.query.lower()
    matches = tuple(r for r in rows if query in r.package_name.lower())
    record = w.ResolveResult(
        client=client,
        serial=args.serial,
        query=args.query,
        matches=matches,
        exact_match=any(r.package_name.lower() == query for r in matches),
        coverage=coverage(unparsed),  # type: ignore[arg-type]
    )
    return Success((record, unread(unparsed)))


def _logcat_command(args: w.LogcatArgs) -> str:
    pid = args.pid
    return f"logcat -d -b {args.buffer} -t {args.count}" + (f" --pid {pid}" if pid else "")


def logcat(args: w.LogcatArgs, client: AdbClient) -> Body:
    out = (yield from exchange(args, AdbStep(service=f"shell:{_logcat_command(args)}")))[0]
    rows = out["data"].decode("utf-8", "replace").splitlines()
    kept = rows[-args.count :]
    partial = out["cut"] or len(rows) > len(kept)
    record = w.LogcatResult(
        client=client,
        serial=args.serial,
        count=args.count,
        buffer=args.buffer,
        pid=args.pid,
        lines=tuple(kept),
        total_bytes=len(out["data"]),
        coverage="partial" if partial else "complete",
    )
    return record, ["the log was cut at the byte limit; the oldest lines were dropped"] if out["cut"] else []


def installed(client: AdbClient, args: w.PackageArgs, text: str) -> Result[Built, ReaError]:
    if f"Package [{args.package}]" not in text:
        return Failure(not_installed(args))
    facts = parse.installed_package(text)
    record = w.InstalledPackageResult(
        client=client,
        serial=args.serial,
        package_name=args.package,
        coverage="complete" if all(v is not None for v in facts.values()) else "partial",
        **facts,  # type: ignore[arg-type]
    )
    missing = sorted(k for k, v in facts.items() if v is None)
    return Success((record, [f"dumpsys did not state: {', '.join(missing)}"] if missing else []))


def processes(client: AdbClient, args: w.SerialArgs, text: str) -> Result[Built, ReaError]:
    columns, rows, unparsed = parse.processes(text)
    record = w.ProcessesResult(
        client=client,
        serial=args.serial,
        columns=columns,
        processes=rows,
        unparsed_lines=unparsed,
        coverage=coverage(unparsed),  # type: ignore[arg-type]
    )
    return Success((record, unread(unparsed)))


_LS_REFUSALS = {
    "absent": ("target_unavailable", "does not exist", "List an existing device directory (its parent first)."),
    "denied": (
        "permission_required",
        "cannot be read by the shell user (permission denied)",
        "List a directory the shell user may read, or use a debuggable build.",
    ),
}


def directory(client: AdbClient, args: w.DirectoryArgs, text: str) -> Result[Built, ReaError]:
    refused = parse.directory_failure(text)
    if refused is not None:
        code, why, action = _LS_REFUSALS[refused]
        return Failure(
            ReaError(
                code=code,
                message=f"{args.device_path} {why} on {args.serial}.",
                details={"field": "device_path", "state": refused},
                action=action,
            )
        )
    rows, unparsed = parse.directory(text)
    record = w.DirectoryResult(
        client=client,
        serial=args.serial,
        device_path=args.device_path,
        entries=rows,
        unparsed_lines=unparsed,
        coverage=coverage(unparsed),  # type: ignore[arg-type]
    )
    return Success((record, unread(unparsed)))


def display(args: w.SerialArgs, client: AdbClient) -> Body:
    size, density = yield from shell(args, "wm size", "wm density")
    facts = parse.display(size, density)
    if facts["physical_size"] is None:
        refuse(unreadable("wm size", size))
    return w.DisplayResult(client=client, serial=args.serial, **facts), []  # type: ignore[arg-type]


def window(client: AdbClient, args: w.SerialArgs, text: str) -> Result[Built, ReaError]:
    focused, app, observed = parse.window(text)
    record = w.WindowResult(
        client=client, serial=args.serial, focused_window=focused, focused_app=app, observed_lines=observed
    )
    return Success((record, []))


def setting(client: AdbClient, args: w.SettingArgs, text: str) -> Result[Built, ReaError]:
    value, null = parse.setting(text)
    record = w.SettingResult(
        client=client,
        serial=args.serial,
        namespace=args.namespace,
        key=args.key,
        value=value,
        device_reported_null=null,
    )
    return Success((record, []))
