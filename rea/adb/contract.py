"""Contracts of the adb device tools (REA 6.x adbToolContracts.ts): names, inputs and results as there.

Every tool runs the adb client and asks a loopback adb server (launchesProcess, and the
server socket: accessesNetwork); none starts a server or an emulator. Effects follow the
contract's rules: a tool that changes the device is mutatesDevice (push, install,
uninstall, start, stop); starting an app or an intent also runs code REA does not own
(executesForeignCode); a tool that writes local files is writesFilesystem.
"""

from __future__ import annotations

from typing import Any

import attrs

from rea.adb import records as w
from rea.adb import text
from rea.catalog.cli import Command, Positional
from rea.catalog.contract import ToolContract
from rea.wire.tool import evidence_tool

_SERIAL = {"serial": "emulator-5554"}
_READ = frozenset({"mutatesSession", "idempotent", "launchesProcess", "accessesNetwork"})
_WRITES = frozenset({"mutatesSession", "launchesProcess", "accessesNetwork", "writesFilesystem"})
_MUTATES = frozenset({"mutatesSession", "launchesProcess", "accessesNetwork", "mutatesDevice"})
_RUNS = _MUTATES | {"executesForeignCode"}
_CHECKS = " Needs adb and an attached serial (else capability_unavailable)."


@attrs.frozen
class Row:
    name: str
    description: str
    args: type
    result: type
    effects: frozenset[str]
    example: dict[str, Any]


ROWS = (
    Row(
        "list_adb_devices",
        "List attached devices as `host:devices-l` reports them: serial, state, transport, model metadata and an "
        "inferred emulator or physical kind with its basis, from a running loopback adb server "
        "(ADB_SERVER_SOCKET or ANDROID_ADB_SERVER_PORT, else 127.0.0.1:5037; remote ones refused).",
        w.DevicesArgs,
        w.DevicesResult,
        _READ,
        {},
    ),
    Row(
        "inspect_adb_device",
        "Inspect one device's build identity through a fixed getprop whitelist: Android and SDK versions, security "
        "patch, fingerprint, product identity, CPU ABIs, debuggable flag and the ro.kernel.qemu emulator indicator.",
        w.SerialArgs,
        w.DeviceResult,
        _READ,
        _SERIAL,
    ),
    Row(
        "list_adb_packages",
        "List installed packages on one device with each base APK's device path (pm list packages -f), optionally "
        "third-party or system only. Paths are device paths, not host paths. Read-only.",
        w.PackagesArgs,
        w.PackagesResult,
        _READ,
        {**_SERIAL, "scope": "third_party"},
    ),
    Row(
        "pull_adb_package",
        "Pull one installed package's APK set (base and every split `pm path` reports) into a new package-named "
        "subdirectory of output_directory, each file digested with SHA-256; partial pulls keep what arrived and "
        "each failure's reason. The device keeps the originals.",
        w.PullPackageArgs,
        w.PullPackageResult,
        _WRITES,
        {**_SERIAL, "package": "com.example.app", "output_directory": "/tmp/rea-pulls"},
    ),
    Row(
        "read_adb_logcat",
        "Read a bounded dump of one log buffer (logcat -d -t COUNT), optionally for one pid; no streaming, no "
        "clearing, the newest lines kept. Read-only.",
        w.LogcatArgs,
        w.LogcatResult,
        _READ,
        {**_SERIAL, "count": 200, "buffer": "main"},
    ),
    Row(
        "inspect_adb_package",
        "Inspect one installed package through `dumpsys package`: version name/code, install and update times, "
        "installer, user id, flags and the requested-permission count; unknown sections are ignored. Read-only.",
        w.PackageArgs,
        w.InstalledPackageResult,
        _READ,
        {**_SERIAL, "package": "com.example.app"},
    ),
    Row(
        "pull_adb_file",
        "Pull one absolute device path into output_directory (sync RECV), digesting it with SHA-256; the local "
        "copy must not exist yet. Read-only with respect to the device.",
        w.PullFileArgs,
        w.PullFileResult,
        _WRITES,
        {**_SERIAL, "device_path": "/data/local/tmp/app.db", "output_directory": "/tmp/rea-pulls"},
    ),
    Row(
        "push_adb_file",
        "Push one local file to an absolute device path (sync SEND). Changes the device: an existing device file is "
        "refused unless overwrite is true, and the transfer is checked against the device's own sha256sum.",
        w.PushFileArgs,
        w.PushFileResult,
        _MUTATES,
        {**_SERIAL, "local_path": "/tmp/frida-server", "device_path": "/data/local/tmp/frida-server"},
    ),
    Row(
        "capture_adb_screen",
        "Capture one frame of the screen as a PNG (exec:screencap -p, no device-side file) into output_directory, "
        "digested, with its IHDR width and height.",
        w.OutputArgs,
        w.ScreenResult,
        _WRITES,
        {**_SERIAL, "output_directory": "/tmp/rea-captures"},
    ),
    Row(
        "list_adb_processes",
        "List running processes as `ps -A` reports them: user, pid, ppid, rss, state and name. Read-only.",
        w.SerialArgs,
        w.ProcessesResult,
        _READ,
        _SERIAL,
    ),
    Row(
        "list_adb_directory",
        "List one absolute device directory (ls -la): names, kinds, permissions, owner, group, sizes, dates and "
        "symlink targets; an absent path is target_unavailable, a denied read permission_required. Read-only.",
        w.DirectoryArgs,
        w.DirectoryResult,
        _READ,
        {**_SERIAL, "device_path": "/data/local/tmp"},
    ),
    Row(
        "list_adb_features",
        "List the device's declared hardware and software features (pm list features). Read-only.",
        w.SerialArgs,
        w.FeaturesResult,
        _READ,
        _SERIAL,
    ),
    Row(
        "list_adb_services",
        "List the device's binder services with their interfaces (service list). Read-only.",
        w.SerialArgs,
        w.ServicesResult,
        _READ,
        _SERIAL,
    ),
    Row(
        "inspect_adb_display",
        "Report the display's physical and overridden size (wm size) and density (wm density). Read-only.",
        w.SerialArgs,
        w.DisplayResult,
        _READ,
        _SERIAL,
    ),
    Row(
        "inspect_adb_window",
        "Report the window manager's mCurrentFocus and mFocusedApp (dumpsys window windows). Read-only.",
        w.SerialArgs,
        w.WindowResult,
        _READ,
        _SERIAL,
    ),
    Row(
        "read_adb_setting",
        "Read one settings value (settings get) from the system, secure or global namespace; an absent key is the "
        "device's own null. Read-only.",
        w.SettingArgs,
        w.SettingResult,
        _READ,
        {**_SERIAL, "namespace": "secure", "key": "adb_enabled"},
    ),
    Row(
        "collect_adb_bugreport",
        "Collect one device-generated bugreport zip (bugreportz, then sync RECV) into output_directory, digested. "
        "Collection can take minutes.",
        w.OutputArgs,
        w.BugreportResult,
        _WRITES,
        {**_SERIAL, "output_directory": "/tmp/rea-bugreports"},
    ),
    Row(
        "resolve_adb_packages",
        "Find installed packages by case-insensitive substring of the name, with each base APK's device path: "
        "resolve, then pull_adb_package the exact name. Read-only.",
        w.ResolveArgs,
        w.ResolveResult,
        _READ,
        {**_SERIAL, "query": "whatsapp"},
    ),
    Row(
        "install_adb_package",
        "Install one local APK (pushed to /data/local/tmp, then pm install [-r], the staged copy removed), with its "
        "host digest and size. Changes the device; the device's Failure verdict is kept verbatim.",
        w.InstallArgs,
        w.InstallResult,
        _MUTATES,
        {**_SERIAL, "apk_path": "/tmp/app.apk"},
    ),
    Row(
        "uninstall_adb_package",
        "Uninstall one package (pm uninstall), removing its data. Changes the device; an absent package reports the "
        "device's own refusal.",
        w.PackageArgs,
        w.PackageVerdictResult,
        _MUTATES,
        {**_SERIAL, "package": "com.example.app"},
    ),
    Row(
        "start_adb_app",
        "Start one installed app's launcher activity (cmd package resolve-activity --brief, then am start -n). "
        "Changes the device and runs the app's code.",
        w.PackageArgs,
        w.StartAppResult,
        _RUNS,
        {**_SERIAL, "package": "com.example.app"},
    ),
    Row(
        "start_adb_activity",
        "Start an intent with am start: one action, optional data URI and component, up to 16 typed extras. "
        "Changes the device and runs the receiving app's code; the activity manager's verdict is kept verbatim.",
        w.ActivityArgs,
        w.StartActivityResult,
        _RUNS,
        {**_SERIAL, "action": "android.intent.action.VIEW", "data_uri": "https://example.com/path"},
    ),
    Row(
        "stop_adb_app",
        "Force-stop every process of one package (am force-stop). Changes the device.",
        w.PackageArgs,
        w.PackageVerdictResult,
        _MUTATES,
        {**_SERIAL, "package": "com.example.app"},
    ),
)


def _command(row: Row) -> Command:
    """`rea list-adb-devices`, `rea inspect-adb-device SERIAL`, ...: the args record's required fields are
    positionals in record order (serial first); the optional ones are flags."""
    required = [f.name for f in attrs.fields(row.args) if f.default is attrs.NOTHING]
    required.sort(key=lambda name: name != "serial")
    return Command(
        name=row.name.replace("_", "-"),
        help=row.description.split(". ")[0],
        positionals=tuple(Positional(argument=name) for name in required),
        render=text.render,
    )


def _contract(row: Row) -> ToolContract:
    return evidence_tool(
        row.name,
        " ".join(part.capitalize() if part != "adb" else "ADB" for part in row.name.split("_")),
        row.description + _CHECKS,
        args=row.args,
        result=row.result,
        examples=[row.example],
        surface="adb-provider",
        effects=set(row.effects),
        cli=_command(row),
    )


TOOLS = tuple(_contract(row) for row in ROWS)
