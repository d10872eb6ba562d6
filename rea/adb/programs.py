"""Programs of the adb device tools: resolve adb, ask the server what is attached, then ask the device.

Every tool checks for real, in order: the adb client (missing: capability_unavailable with
how to install it), the loopback adb server and the serial among its `host:devices-l` rows
(none or another: capability_unavailable `no_device_attached`, naming what is attached).
Only then does the tool's own body run, on the device's transport; what the device printed
is read by rea.adb.parse into the reference's result records.
"""

from __future__ import annotations

import posixpath
import shlex
from typing import Any
from collections.abc import Callable, Generator, Mapping

import attrs
from returns.pipeline import is_successful
from returns.result import Failure, Result, Success

from rea.adb import parse
from rea.adb.devices import attached, devices
from rea.adb.effects import AdbExchange, AdbStep
from rea.android.clients import adb_client
from rea.android.effects import ProbeClient
from rea.effect_types import AnyEffect, Program
from rea.errors import ReaError, invalid_request
from rea.evidence import Provider, create_evidence
from rea.program import Context, IdentifyTarget, Outcome, TargetFacts, failed, recorded
from rea.session import Session
from rea.adb import records as w
from rea.android.records import AdbClient
from rea.wire.convert import to_wire

Built = tuple[Any, list[str]]
Body = Generator[AnyEffect, Any, Result[Built, ReaError]]
Texts = Generator[AnyEffect, Any, Result[list[Any], ReaError]]


def _steps(args: Mapping[str, Any], *steps: AdbStep) -> Texts:
    answer = yield AdbExchange(serial=args["serial"], steps=steps, deadline_ms=args["deadline_ms"])
    if not is_successful(answer):
        return Failure(answer.failure())
    return Success(list(answer.unwrap()["outputs"]))


def _shell(args: Mapping[str, Any], *commands: str) -> Texts:
    """Each command's output as text (a `shell:` service per command)."""
    got = yield from _steps(args, *(AdbStep(service=f"shell:{c}") for c in commands))
    return got.map(lambda outs: [o["data"].decode("utf-8", "replace") for o in outs])


def _q(value: str) -> str:
    return shlex.quote(value)


def _coverage(unparsed: tuple[str, ...]) -> str:
    return "partial" if unparsed else "complete"


def _unread(unparsed: tuple[str, ...]) -> list[str]:
    return [f"{len(unparsed)} output line(s) were not in the expected form (unparsed_lines)"] if unparsed else []


def _unreadable(what: str, text: str) -> ReaError:
    return ReaError(
        code="unreadable_output",
        message=f"The device's {what} output was not in the expected form: {text.strip()[:300]!r}",
        details={"provider": "adb"},
    )


# ------------------------------------------------------------------ read-only bodies

Read = Callable[[AdbClient, Mapping[str, Any], str], Result[Built, ReaError]]


def _one(command: Callable[[Mapping[str, Any]], str], read: Read) -> Callable[[Mapping[str, Any], AdbClient], Body]:
    """A tool that runs one shell command and reads its output."""

    def body(args: Mapping[str, Any], client: AdbClient) -> Body:
        texts = yield from _shell(args, command(args))
        if not is_successful(texts):
            return Failure(texts.failure())
        return read(client, args, texts.unwrap()[0])

    return body


def _listing(record: type, rows_field: str, parser: Callable[[str], tuple[Any, tuple[str, ...]]]) -> Read:
    """A reader whose output is rows plus the lines it could not read (coverage partial)."""

    def read(client: AdbClient, args: Mapping[str, Any], text: str) -> Result[Built, ReaError]:
        rows, unparsed = parser(text)
        built = record(
            client=client,
            serial=args["serial"],
            unparsed_lines=unparsed,
            coverage=_coverage(unparsed),
            **{rows_field: rows},
            **({"scope": args["scope"]} if "scope" in attrs.fields_dict(record) else {}),
        )
        return Success((built, _unread(unparsed)))

    return read


def _device(client: AdbClient, args: Mapping[str, Any], text: str) -> Result[Built, ReaError]:
    rows, qemu = parse.properties(text)
    record = w.DeviceResult(
        client=client, serial=args["serial"], properties=rows, property_count=len(rows), emulator_observed=qemu
    )
    return Success((record, []))


_SCOPE_FLAGS = {"all": "", "third_party": " -3", "system": " -s"}


def _resolve(client: AdbClient, args: Mapping[str, Any], text: str) -> Result[Built, ReaError]:
    rows, unparsed = parse.packages(text)
    query = args["query"].lower()
    matches = tuple(r for r in rows if query in r.package_name.lower())
    record = w.ResolveResult(
        client=client,
        serial=args["serial"],
        query=args["query"],
        matches=matches,
        exact_match=any(r.package_name.lower() == query for r in matches),
        coverage=_coverage(unparsed),  # type: ignore[arg-type]
    )
    return Success((record, _unread(unparsed)))


def _logcat_command(args: Mapping[str, Any]) -> str:
    pid = args.get("pid")
    return f"logcat -d -b {args['buffer']} -t {args['count']}" + (f" --pid {pid}" if pid else "")


def _logcat(args: Mapping[str, Any], client: AdbClient) -> Body:
    got = yield from _steps(args, AdbStep(service=f"shell:{_logcat_command(args)}"))
    if not is_successful(got):
        return Failure(got.failure())
    out = got.unwrap()[0]
    rows = out["data"].decode("utf-8", "replace").splitlines()
    kept = rows[-args["count"] :]
    partial = out["cut"] or len(rows) > len(kept)
    record = w.LogcatResult(
        client=client,
        serial=args["serial"],
        count=args["count"],
        buffer=args["buffer"],
        pid=args.get("pid"),
        lines=tuple(kept),
        total_bytes=len(out["data"]),
        coverage="partial" if partial else "complete",
    )
    return Success((record, ["the log was cut at the byte limit; the oldest lines were dropped"] if out["cut"] else []))


def _installed(client: AdbClient, args: Mapping[str, Any], text: str) -> Result[Built, ReaError]:
    if f"Package [{args['package']}]" not in text:
        return Failure(_not_installed(args))
    facts = parse.installed_package(text)
    record = w.InstalledPackageResult(
        client=client,
        serial=args["serial"],
        package_name=args["package"],
        coverage="complete" if all(v is not None for v in facts.values()) else "partial",
        **facts,  # type: ignore[arg-type]
    )
    missing = sorted(k for k, v in facts.items() if v is None)
    return Success((record, [f"dumpsys did not state: {', '.join(missing)}"] if missing else []))


def _not_installed(args: Mapping[str, Any]) -> ReaError:
    return invalid_request(
        f"{args['package']} is not installed on {args['serial']}",
        field="package",
        accepted="an installed package (resolve_adb_packages finds one by part of its name)",
    )


def _processes(client: AdbClient, args: Mapping[str, Any], text: str) -> Result[Built, ReaError]:
    columns, rows, unparsed = parse.processes(text)
    record = w.ProcessesResult(
        client=client,
        serial=args["serial"],
        columns=columns,
        processes=rows,
        unparsed_lines=unparsed,
        coverage=_coverage(unparsed),  # type: ignore[arg-type]
    )
    return Success((record, _unread(unparsed)))


_LS_REFUSALS = {
    "absent": ("target_unavailable", "does not exist", "List an existing device directory (its parent first)."),
    "denied": (
        "permission_required",
        "cannot be read by the shell user (permission denied)",
        "List a directory the shell user may read, or use a debuggable build.",
    ),
}


def _directory(client: AdbClient, args: Mapping[str, Any], text: str) -> Result[Built, ReaError]:
    refused = parse.directory_failure(text)
    if refused is not None:
        code, why, action = _LS_REFUSALS[refused]
        return Failure(
            ReaError(
                code=code,
                message=f"{args['device_path']} {why} on {args['serial']}.",
                details={"field": "device_path", "state": refused},
                action=action,
            )
        )
    rows, unparsed = parse.directory(text)
    record = w.DirectoryResult(
        client=client,
        serial=args["serial"],
        device_path=args["device_path"],
        entries=rows,
        unparsed_lines=unparsed,
        coverage=_coverage(unparsed),  # type: ignore[arg-type]
    )
    return Success((record, _unread(unparsed)))


def _display(args: Mapping[str, Any], client: AdbClient) -> Body:
    texts = yield from _shell(args, "wm size", "wm density")
    if not is_successful(texts):
        return Failure(texts.failure())
    size, density = texts.unwrap()
    facts = parse.display(size, density)
    if facts["physical_size"] is None:
        return Failure(_unreadable("wm size", size))
    return Success((w.DisplayResult(client=client, serial=args["serial"], **facts), []))  # type: ignore[arg-type]


def _window(client: AdbClient, args: Mapping[str, Any], text: str) -> Result[Built, ReaError]:
    focused, app, observed = parse.window(text)
    record = w.WindowResult(
        client=client, serial=args["serial"], focused_window=focused, focused_app=app, observed_lines=observed
    )
    return Success((record, []))


def _setting(client: AdbClient, args: Mapping[str, Any], text: str) -> Result[Built, ReaError]:
    value, null = parse.setting(text)
    record = w.SettingResult(
        client=client,
        serial=args["serial"],
        namespace=args["namespace"],
        key=args["key"],
        value=value,
        device_reported_null=null,
    )
    return Success((record, []))


# ------------------------------------------------------------------ acquisition bodies


def _local(directory: str, name: str) -> str:
    return posixpath.join(directory, name)


Pulled = Generator[AnyEffect, Any, Result[dict[str, Any], ReaError]]


def _pull(args: Mapping[str, Any], device_path: str, target: str, max_bytes: int = 4 << 30) -> Pulled:
    """sync RECV of one device file into the new local file `target`: {local_path, bytes, sha256}."""
    got = yield from _steps(args, AdbStep(kind="pull", device_path=device_path, local_path=target, max_bytes=max_bytes))
    return got.map(lambda outs: outs[0])


def _pull_file(args: Mapping[str, Any], client: AdbClient) -> Body:
    target = _local(args["output_directory"], posixpath.basename(args["device_path"].rstrip("/")) or "root")
    got = yield from _pull(args, args["device_path"], target)
    if not is_successful(got):
        return Failure(got.failure())
    out = got.unwrap()
    record = w.PullFileResult(
        client=client,
        serial=args["serial"],
        device_path=args["device_path"],
        local_path=out["local_path"],
        bytes=out["bytes"],
        sha256=out["sha256"],
    )
    return Success((record, []))


def _pull_package(args: Mapping[str, Any], client: AdbClient) -> Body:
    texts = yield from _shell(args, f"pm path {_q(args['package'])}")
    if not is_successful(texts):
        return Failure(texts.failure())
    paths, other = parse.package_paths(texts.unwrap()[0])
    if not paths:
        return Failure(_not_installed(args))
    folder = _local(args["output_directory"], args["package"])
    made = yield from _steps(args, AdbStep(kind="mkdir", local_path=folder))
    if not is_successful(made):
        return Failure(made.failure())
    artifacts, failures = [], []
    for path in paths:
        name = posixpath.basename(path)
        got = yield from _pull(args, path, _local(folder, name))
        if not is_successful(got):
            failures.append(w.PullFailure(device_path=path, stage="pull", message=got.failure().message))
            continue
        out = got.unwrap()
        artifacts.append(
            w.PulledArtifact(
                device_path=path,
                file_name=name,
                local_path=out["local_path"],
                bytes=out["bytes"],
                sha256=out["sha256"],
                role=parse.apk_role(name),  # type: ignore[arg-type]
                role_basis="file_name",
            )
        )
    failures += [w.PullFailure(device_path=None, stage="resolve_paths", message=line) for line in other]
    record = w.PullPackageResult(
        client=client,
        serial=args["serial"],
        package_name=args["package"],
        output_directory=folder,
        artifacts=tuple(artifacts),
        failures=tuple(failures),
        coverage="partial" if failures else "complete",
    )
    return Success((record, [f"{f.stage}: {f.message}" for f in failures]))


def _screen(args: Mapping[str, Any], client: AdbClient) -> Body:
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in args["serial"]) + "-screen.png"
    target = _local(args["output_directory"], name)
    got = yield from _steps(args, AdbStep(service="exec:screencap -p", local_path=target, max_bytes=256 << 20))
    if not is_successful(got):
        return Failure(got.failure())
    out = got.unwrap()[0]
    width, height = parse.png_size(out["data_head"])
    record = w.ScreenResult(
        client=client,
        serial=args["serial"],
        local_path=out["local_path"],
        bytes=out["bytes"],
        sha256=out["sha256"],
        width=width,
        height=height,
    )
    return Success((record, [] if width else ["the capture is not a PNG (no IHDR): width and height are unknown"]))


def _bugreport(args: Mapping[str, Any], client: AdbClient) -> Body:
    texts = yield from _shell(args, "bugreportz")
    if not is_successful(texts):
        return Failure(texts.failure())
    said = texts.unwrap()[0].strip().splitlines()
    reported = next((line[3:] for line in said if line.startswith("OK:")), None)
    if reported is None:
        return Failure(_unreadable("bugreportz", "\n".join(said)))
    target = _local(args["output_directory"], posixpath.basename(reported))
    got = yield from _pull(args, reported, target)
    if not is_successful(got):
        return Failure(got.failure())
    out = got.unwrap()
    record = w.BugreportResult(
        client=client,
        serial=args["serial"],
        local_path=out["local_path"],
        bytes=out["bytes"],
        sha256=out["sha256"],
        adb_reported_path=reported,
    )
    return Success((record, []))


# ------------------------------------------------------------------ device-mutating bodies


def _local_file(path: str) -> Generator[AnyEffect, Any, Result[TargetFacts, ReaError]]:
    identified = yield IdentifyTarget(path=path)
    if not is_successful(identified):
        return Failure(identified.failure())
    facts: TargetFacts = identified.unwrap()
    if facts.kind != "file":
        return Failure(invalid_request(f"{path} is not a regular file", field="local_path", accepted="a local file"))
    return Success(facts)


def _push(args: Mapping[str, Any], client: AdbClient) -> Body:
    local = yield from _local_file(args["local_path"])
    if not is_successful(local):
        return Failure(local.failure())
    facts = local.unwrap()
    path = _q(args["device_path"])
    probe = yield from _shell(args, f"[ -e {path} ] && echo present || echo absent")
    if not is_successful(probe):
        return Failure(probe.failure())
    present = probe.unwrap()[0].strip() == "present"
    if present and not args["overwrite"]:
        return Failure(
            invalid_request(
                f"{args['device_path']} already exists on {args['serial']}",
                field="overwrite",
                accepted="overwrite: true to replace it, or another device_path",
            )
        )
    pushed = yield from _steps(args, AdbStep(kind="push", device_path=args["device_path"], local_path=facts.path))
    if not is_successful(pushed):
        return Failure(pushed.failure())
    digest = yield from _shell(args, f"sha256sum {path}")
    device_sha = parse.sha256_of(digest.unwrap()[0]) if is_successful(digest) else None
    if device_sha is not None and device_sha != facts.sha256:
        return Failure(
            ReaError(
                code="artifact_integrity_mismatch",
                message=f"The device's sha256sum of {args['device_path']} is {device_sha}, the local file's {facts.sha256}.",
                details={"device_sha256": device_sha, "sha256": facts.sha256},
            )
        )
    record = w.PushFileResult(
        client=client,
        serial=args["serial"],
        local_path=facts.path,
        device_path=args["device_path"],
        bytes=facts.size,
        sha256=facts.sha256,
        device_sha256=device_sha,
        overwritten=present,
        device_digest_source="device_sha256sum" if device_sha else "unavailable",
    )
    return Success((record, [] if device_sha else ["the device has no sha256sum: the transfer is unverified"]))


def _device_refused(args: Mapping[str, Any], what: str, said: str) -> ReaError:
    return ReaError(
        code="execution_failure",
        message=f"{what} on {args['serial']} was refused by the device: {said}",
        details={"provider": "adb", "device_verdict": said},
    )


def _install(args: Mapping[str, Any], client: AdbClient) -> Body:
    local = yield from _local_file(args["apk_path"])
    if not is_successful(local):
        return Failure(local.failure())
    facts = local.unwrap()
    staged = f"/data/local/tmp/rea-install-{facts.sha256[:16]}.apk"
    pushed = yield from _steps(args, AdbStep(kind="push", device_path=staged, local_path=facts.path))
    if not is_successful(pushed):
        return Failure(pushed.failure())
    flags = " -r" if args["replace"] else ""
    texts = yield from _shell(args, f"pm install{flags} {staged}", f"rm -f {staged}")
    if not is_successful(texts):
        return Failure(texts.failure())
    ok, said = parse.verdict(texts.unwrap()[0])
    if not ok:
        return Failure(_device_refused(args, f"Installing {facts.path}", said))
    record = w.InstallResult(
        client=client,
        serial=args["serial"],
        apk_path=facts.path,
        bytes=facts.size,
        sha256=facts.sha256,
        replaced=args["replace"],
    )
    return Success((record, []))


def _verdict(what: str) -> Read:
    def read(client: AdbClient, args: Mapping[str, Any], text: str) -> Result[Built, ReaError]:
        ok, said = parse.verdict(text)
        if not ok:
            return Failure(_device_refused(args, f"{what} {args['package']}", said))
        return Success((w.PackageVerdictResult(client=client, serial=args["serial"], package_name=args["package"]), []))

    return read


def _stopped(client: AdbClient, args: Mapping[str, Any], text: str) -> Result[Built, ReaError]:
    return Success((w.PackageVerdictResult(client=client, serial=args["serial"], package_name=args["package"]), []))


def _start_app(args: Mapping[str, Any], client: AdbClient) -> Body:
    texts = yield from _shell(args, f"cmd package resolve-activity --brief {_q(args['package'])}")
    if not is_successful(texts):
        return Failure(texts.failure())
    component = parse.launcher(texts.unwrap()[0])
    if component is None:
        return Failure(
            invalid_request(
                f"{args['package']} declares no launcher activity on {args['serial']}",
                field="package",
                accepted="an installed package with a MAIN/LAUNCHER activity (or start_adb_activity)",
            )
        )
    started = yield from _shell(args, f"am start -n {_q(component)}")
    if not is_successful(started):
        return Failure(started.failure())
    intent, error = parse.started(started.unwrap()[0])
    if error is not None:
        return Failure(_device_refused(args, f"Starting {component}", error))
    record = w.StartAppResult(
        client=client, serial=args["serial"], package_name=args["package"], component=component, started_activity=intent
    )
    return Success((record, []))


_EXTRA_FLAGS = {"string": "--es", "boolean": "--ez", "int": "--ei", "long": "--el", "float": "--ef"}


def _start_activity(args: Mapping[str, Any], client: AdbClient) -> Body:
    parts = ["am", "start", "-a", args["action"]]
    if args.get("data_uri"):
        parts += ["-d", args["data_uri"]]
    if args.get("component"):
        parts += ["-n", args["component"]]
    extras = tuple(w.Extra(**e) for e in args["extras"])
    for extra in extras:
        parts += [_EXTRA_FLAGS[extra.type], extra.key, extra.value]
    texts = yield from _shell(args, " ".join(_q(p) for p in parts))
    if not is_successful(texts):
        return Failure(texts.failure())
    intent, error = parse.started(texts.unwrap()[0])
    if error is not None:
        return Failure(_device_refused(args, f"Starting {args['action']}", error))
    record = w.StartActivityResult(
        client=client,
        serial=args["serial"],
        action=args["action"],
        data_uri=args.get("data_uri"),
        component=args.get("component"),
        extras=extras,
        started_activity=intent,
    )
    return Success((record, []))


BODIES: Mapping[str, Callable[[Mapping[str, Any], AdbClient], Body]] = {
    "inspect_adb_device": _one(lambda a: "getprop", _device),
    "list_adb_packages": _one(
        lambda a: "pm list packages -f" + _SCOPE_FLAGS[a["scope"]],
        _listing(w.PackagesResult, "packages", parse.packages),
    ),
    "pull_adb_package": _pull_package,
    "read_adb_logcat": _logcat,
    "inspect_adb_package": _one(lambda a: f"dumpsys package {_q(a['package'])}", _installed),
    "pull_adb_file": _pull_file,
    "push_adb_file": _push,
    "capture_adb_screen": _screen,
    "list_adb_processes": _one(lambda a: "ps -A", _processes),
    "list_adb_directory": _one(lambda a: f"ls -la {_q(a['device_path'])}", _directory),
    "list_adb_features": _one(lambda a: "pm list features", _listing(w.FeaturesResult, "features", parse.features)),
    "list_adb_services": _one(lambda a: "service list", _listing(w.ServicesResult, "services", parse.services)),
    "inspect_adb_display": _display,
    "inspect_adb_window": _one(lambda a: "dumpsys window windows", _window),
    "read_adb_setting": _one(lambda a: f"settings get {a['namespace']} {_q(a['key'])}", _setting),
    "collect_adb_bugreport": _bugreport,
    "resolve_adb_packages": _one(lambda a: "pm list packages -f", _resolve),
    "install_adb_package": _install,
    "uninstall_adb_package": _one(lambda a: f"pm uninstall {_q(a['package'])}", _verdict("Uninstalling")),
    "start_adb_app": _start_app,
    "start_adb_activity": _start_activity,
    "stop_adb_app": _one(lambda a: f"am force-stop {_q(a['package'])}", _stopped),
}


# ------------------------------------------------------------------ programs


def _provider(client: AdbClient) -> Provider:
    return Provider(id="adb", name="Android Debug Bridge", version=client.version)


def _record(session: Session, operation: str, args: Mapping[str, Any], client: AdbClient, built: Built) -> Outcome:
    result, limitations = built
    evidence = create_evidence(
        provider=_provider(client),
        operation=operation,
        parameters={k: v for k, v in args.items() if k != "deadline_ms"},
        normalized_result=to_wire(result),
        limitations=limitations,
    )
    return recorded(session, evidence)


Listed = Generator[AnyEffect, Any, Result[tuple[AdbClient, dict[str, Any]], ReaError]]


def _listed(args: Mapping[str, Any]) -> Listed:
    """The adb client, then what the loopback server says is attached."""
    probe = yield ProbeClient(tool="adb")
    if not is_successful(probe):
        return Failure(probe.failure())
    listed = yield AdbExchange(deadline_ms=args["deadline_ms"])
    if not is_successful(listed):
        return Failure(listed.failure())
    return Success((adb_client(probe.unwrap()), listed.unwrap()))


def list_adb_devices(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
    got = yield from _listed(args)
    if not is_successful(got):
        return failed(session, got.failure())
    client, reply = got.unwrap()
    record = w.DevicesResult(
        client=client,
        devices=devices(reply["devices"]),
        may_have_started_adb_server=False,
        server=w.AdbServer(**reply["server"]),
    )
    return _record(session, "list_adb_devices", args, client, (record, []))


def device_program(operation: str) -> Callable[[Session, Mapping[str, Any], Context], Program]:
    body = BODIES[operation]

    def program(session: Session, args: Mapping[str, Any], ctx: Context) -> Program:
        got = yield from _listed(args)
        if not is_successful(got):
            return failed(session, got.failure())
        client, reply = got.unwrap()
        server = f"{reply['server']['host']}:{reply['server']['port']}"
        found = attached(devices(reply["devices"]), args["serial"], server)
        if not is_successful(found):
            return failed(session, found.failure())
        built = yield from body(args, client)
        if not is_successful(built):
            return failed(session, built.failure())
        return _record(session, operation, args, client, built.unwrap())

    program.__name__ = operation
    return program


PROGRAMS = {"list_adb_devices": list_adb_devices, **{name: device_program(name) for name in BODIES}}
