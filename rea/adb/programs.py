"""Programs of the adb device tools: resolve adb, ask the server what is attached, then ask the device.

Every tool checks for real, in order: the adb client (missing: capability_unavailable with
how to install it), the loopback adb server and the serial among its `host:devices-l` rows
(none or another: capability_unavailable `no_device_attached`, naming what is attached).
Only then does the tool's own body run (rea.adb.reads, rea.adb.transfers), on the device's
transport; what the device printed is read by rea.adb.parse into the reference's result records.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from typing import Any

import attrs

from rea.adb import parse, reads, transfers
from rea.adb import records as w
from rea.adb.devices import attached, devices
from rea.adb.effects import AdbExchange
from rea.adb.steps import Body, Built, q
from rea.android.clients import adb_client
from rea.android.effects import ProbeClient
from rea.android.records import AdbClient
from rea.effect_types import AnyEffect, Program, ToolProgram
from rea.evidence import Provider, create_evidence
from rea.program import Context, Outcome, must, need, recorded, refusable, typed
from rea.session import Session
from rea.wire.convert import to_wire

BODIES: Mapping[str, Callable[[Any, AdbClient], Body]] = {
    "inspect_adb_device": reads.one(lambda a: "getprop", reads.device),
    "list_adb_packages": reads.one(
        lambda a: "pm list packages -f" + reads.SCOPE_FLAGS[a.scope],
        reads.listing(w.PackagesResult, "packages", parse.packages),
    ),
    "pull_adb_package": transfers.pull_package,
    "read_adb_logcat": reads.logcat,
    "inspect_adb_package": reads.one(lambda a: f"dumpsys package {q(a.package)}", reads.installed),
    "pull_adb_file": transfers.pull_file,
    "push_adb_file": transfers.push,
    "capture_adb_screen": transfers.screen,
    "list_adb_processes": reads.one(lambda a: "ps -A", reads.processes),
    "list_adb_directory": reads.one(lambda a: f"ls -la {q(a.device_path)}", reads.directory),
    "list_adb_features": reads.one(
        lambda a: "pm list features", reads.listing(w.FeaturesResult, "features", parse.features)
    ),
    "list_adb_services": reads.one(
        lambda a: "service list", reads.listing(w.ServicesResult, "services", parse.services)
    ),
    "inspect_adb_display": reads.display,
    "inspect_adb_window": reads.one(lambda a: "dumpsys window windows", reads.window),
    "read_adb_setting": reads.one(lambda a: f"settings get {a.namespace} {q(a.key)}", reads.setting),
    "collect_adb_bugreport": transfers.bugreport,
    "resolve_adb_packages": reads.one(lambda a: "pm list packages -f", reads.resolve),
    "install_adb_package": transfers.install,
    "uninstall_adb_package": reads.one(lambda a: f"pm uninstall {q(a.package)}", transfers.verdict("Uninstalling")),
    "start_adb_app": transfers.start_app,
    "start_adb_activity": transfers.start_activity,
    "stop_adb_app": reads.one(lambda a: f"am force-stop {q(a.package)}", transfers.stopped),
}


def _provider(client: AdbClient) -> Provider:
    return Provider(id="adb", name="Android Debug Bridge", version=client.version)


def _record(session: Session, operation: str, args: w.DeadlineArgs, client: AdbClient, built: Built) -> Outcome:
    result, limitations = built
    evidence = create_evidence(
        provider=_provider(client),
        operation=operation,
        parameters={k: v for k, v in to_wire(args).items() if k != "deadline_ms"},
        normalized_result=to_wire(result),
        limitations=limitations,
    )
    return recorded(session, evidence)


@attrs.frozen(kw_only=True)
class Listed:
    """What the loopback server answered, read once: where it listens and the device rows it lists."""

    server: w.AdbServer
    devices: tuple[w.Device, ...]


def _listed(args: w.DeadlineArgs) -> Generator[AnyEffect, Any, tuple[AdbClient, Listed]]:
    """The adb client, then what the loopback server says is attached (a program step)."""
    probe = yield from need(ProbeClient(tool="adb"))
    listed = yield from need(AdbExchange(deadline_ms=args.deadline_ms))
    return adb_client(probe), Listed(server=w.AdbServer(**listed["server"]), devices=devices(listed["devices"]))


@typed
@refusable
def list_adb_devices(session: Session, args: w.DevicesArgs, ctx: Context) -> Program:
    client, reply = yield from _listed(args)
    record = w.DevicesResult(client=client, devices=reply.devices, may_have_started_adb_server=False,
                             server=reply.server)  # fmt: skip
    return _record(session, "list_adb_devices", args, client, (record, []))


def device_program(operation: str) -> ToolProgram:
    body = BODIES[operation]

    @typed
    @refusable
    def program(session: Session, args: w.SerialArgs, ctx: Context) -> Program:
        client, reply = yield from _listed(args)
        must(attached(reply.devices, args.serial, f"{reply.server.host}:{reply.server.port}"))
        built = yield from body(args, client)
        return _record(session, operation, args, client, built)

    program.__name__ = operation
    return program


PROGRAMS: Mapping[str, ToolProgram] = {
    "list_adb_devices": list_adb_devices,
    **{name: device_program(name) for name in BODIES},
}
