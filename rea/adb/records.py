"""Wire records of the adb device tools: REA 6.x argument and result shapes (adbDeviceAnalysis.ts).

Names, patterns, enums and defaults follow the reference; `deadline_ms` is our one extra
argument. Results carry the reference's fields; a device path is a device filesystem path,
never a host path, so those fields are plain strings.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.android.records import AdbClient
from rea.wire.schema import field, local_path

_SHA = "^[a-f0-9]{64}$"
SERIAL_PATTERN = "^[^\\x00\\s\"']+$"
PACKAGE_PATTERN = "^[A-Za-z][A-Za-z0-9_]*(\\.[A-Za-z][A-Za-z0-9_]*)*$"
KEY_PATTERN = "^[A-Za-z0-9._\\-]+$"
DEVICE_PATH_PATTERN = "^/[^\\x00]*$"
IDENTIFIER_PATTERN = "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$"
COMPONENT_PATTERN = "^[A-Za-z0-9._\\-]+(/[A-Za-z0-9._\\-]*)?$"
Scope = Literal["all", "third_party", "system"]
Buffer = Literal["main", "system", "radio", "events", "crash"]
Namespace = Literal["system", "secure", "global"]
ExtraType = Literal["string", "boolean", "int", "long", "float"]
Coverage = Literal["complete", "partial"]

# ------------------------------------------------------------------ arguments


def _serial() -> str:
    return field(  # type: ignore[no-any-return]
        "Device serial (`adb devices`)", minLength=1, maxLength=256, pattern=SERIAL_PATTERN
    )


def _package(description: str) -> str:
    return field(description, minLength=1, maxLength=256, pattern=PACKAGE_PATTERN)  # type: ignore[no-any-return]


def _device_path(description: str) -> str:
    return field(description, minLength=1, pattern=DEVICE_PATH_PATTERN)  # type: ignore[no-any-return]


@attrs.frozen(kw_only=True)
class DeadlineArgs:
    deadline_ms: int = field("adb deadline in ms", default=120_000, minimum=100, maximum=3_600_000)


@attrs.frozen(kw_only=True)
class DevicesArgs(DeadlineArgs):
    """list_adb_devices takes no target."""


@attrs.frozen(kw_only=True)
class SerialArgs(DeadlineArgs):
    serial: str = _serial()


@attrs.frozen(kw_only=True)
class PackagesArgs(SerialArgs):
    scope: Scope = field("Package scope: all packages, third-party only (-3), or system only (-s)", default="all")


@attrs.frozen(kw_only=True)
class PackageArgs(SerialArgs):
    package: str = _package("Installed package name")


@attrs.frozen(kw_only=True)
class PullPackageArgs(PackageArgs):
    output_directory: str = local_path("Directory to pull into (a package-named subdirectory is created)")


@attrs.frozen(kw_only=True)
class LogcatArgs(SerialArgs):
    count: int = field("Number of most recent lines to read (logcat -d -t)", default=500, minimum=1, maximum=10_000)
    buffer: Buffer = field("Log buffer to read (logcat -b)", default="main")
    pid: int | None = field("Restrict to one process id (logcat --pid)", omit_none=True, minimum=1)


@attrs.frozen(kw_only=True)
class PullFileArgs(SerialArgs):
    device_path: str = _device_path("Absolute device filesystem path to pull")
    output_directory: str = local_path("Local directory for the pulled file; must not already contain the file")


@attrs.frozen(kw_only=True)
class PushFileArgs(SerialArgs):
    local_path: str = local_path("Existing local regular file to push")
    device_path: str = _device_path("Absolute destination path on the device")
    overwrite: bool = field("Allow replacing an existing device file; refused by default", default=False)


@attrs.frozen(kw_only=True)
class OutputArgs(SerialArgs):
    output_directory: str = local_path("Local directory for the capture; must not already contain it")


@attrs.frozen(kw_only=True)
class DirectoryArgs(SerialArgs):
    device_path: str = _device_path("Absolute device directory path to list (ls -la)")


@attrs.frozen(kw_only=True)
class SettingArgs(SerialArgs):
    namespace: Namespace = field("Settings namespace to read")
    key: str = field("Setting key to read", minLength=1, maxLength=256, pattern=KEY_PATTERN)


@attrs.frozen(kw_only=True)
class ResolveArgs(SerialArgs):
    query: str = field(
        "Case-insensitive substring matched against installed package names (e.g. whatsapp)",
        minLength=2,
        maxLength=256,
    )


@attrs.frozen(kw_only=True)
class InstallArgs(SerialArgs):
    apk_path: str = local_path("Existing local APK file to install")
    replace: bool = field("Replace an existing installation and keep its data (adb install -r)", default=False)


@attrs.frozen(kw_only=True)
class Extra:
    key: str = field("Extra key", minLength=1, maxLength=256, pattern=KEY_PATTERN)
    type: ExtraType = field("Extra value type")
    value: str = field("Extra value as text, parsed per type", minLength=1, maxLength=2048, pattern="^[^\\x00]*$")


@attrs.frozen(kw_only=True)
class ActivityArgs(SerialArgs):
    action: str = field("Intent action to start", minLength=1, maxLength=256, pattern=IDENTIFIER_PATTERN)
    data_uri: str | None = field(
        "Intent data URI (-d)", omit_none=True, minLength=1, maxLength=2048, pattern="^[^\\x00\\s]+$"
    )
    component: str | None = field(
        "Explicit component to start (-n)", omit_none=True, minLength=1, maxLength=512, pattern=COMPONENT_PATTERN
    )
    extras: tuple[Extra, ...] = field("Typed intent extras (--es/--ez/--ei/--el/--ef)", factory=tuple, maxItems=16)


# ------------------------------------------------------------------ results


@attrs.frozen(kw_only=True)
class OnDevice:
    """What every device result starts with: the adb client REA ran and the device's serial."""

    client: AdbClient = field("")
    serial: str = field("", minLength=1)


@attrs.frozen(kw_only=True)
class Listed(OnDevice):
    """A listing: the lines the reader could not read are kept (coverage partial)."""

    unparsed_lines: tuple[str, ...] = field("")
    coverage: Coverage = field("")


@attrs.frozen(kw_only=True)
class Device:
    serial: str = field("", minLength=1)
    state: str = field("device, offline, unauthorized, ...", minLength=1)
    transport: Literal["usb", "tcp", "unknown"] = field("")
    product: str | None = field("")
    model: str | None = field("")
    device: str | None = field("")
    transport_id: int | None = field("", minimum=1)
    kind: Literal["emulator", "physical", "unknown"] = field("Inferred from kind_basis")
    kind_basis: Literal["emulator_serial_prefix", "usb_transport", "none"] = field("")


@attrs.frozen(kw_only=True)
class AdbServer:
    host: str = field("The loopback address REA asked")
    port: int = field("")
    version: int | None = field("host:version as the server answered it")


@attrs.frozen(kw_only=True)
class DevicesResult:
    client: AdbClient = field("")
    devices: tuple[Device, ...] = field("")
    may_have_started_adb_server: bool = field("false: REA asks a running server and never starts one")
    server: AdbServer = field("The adb server asked over the host protocol")


@attrs.frozen(kw_only=True)
class Property:
    name: str = field("", minLength=1)
    value: str = field("", minLength=1)


@attrs.frozen(kw_only=True)
class DeviceResult(OnDevice):
    properties: tuple[Property, ...] = field("The whitelisted getprop values the device reported")
    property_count: int = field("", minimum=0)
    emulator_observed: bool | None = field("ro.kernel.qemu, null when absent")


@attrs.frozen(kw_only=True)
class PackageRow:
    package_name: str = field("", pattern=PACKAGE_PATTERN)
    base_apk_device_path: str = field("Device filesystem path; not a host-local path", minLength=1)


@attrs.frozen(kw_only=True)
class PackagesResult(Listed):
    scope: Scope = field("")
    packages: tuple[PackageRow, ...] = field("")


@attrs.frozen(kw_only=True)
class PulledArtifact:
    device_path: str = field("", minLength=1)
    file_name: str = field("", minLength=1)
    local_path: str = field("", minLength=1)
    bytes: int = field("", minimum=0)
    sha256: str = field("", pattern=_SHA)
    role: Literal["base", "split", "unknown"] = field("")
    role_basis: Literal["file_name"] = field("")


@attrs.frozen(kw_only=True)
class PullFailure:
    device_path: str | None = field("")
    stage: Literal["resolve_paths", "pull", "digest"] = field("")
    message: str = field("", minLength=1)


@attrs.frozen(kw_only=True)
class PullPackageResult(OnDevice):
    package_name: str = field("", pattern=PACKAGE_PATTERN)
    output_directory: str = field("", minLength=1)
    artifacts: tuple[PulledArtifact, ...] = field("")
    failures: tuple[PullFailure, ...] = field("")
    coverage: Coverage = field("")


@attrs.frozen(kw_only=True)
class LogcatResult(OnDevice):
    count: int = field("", minimum=1)
    buffer: Buffer = field("")
    pid: int | None = field("", minimum=1)
    lines: tuple[str, ...] = field("")
    total_bytes: int = field("", minimum=0)
    coverage: Coverage = field("")


@attrs.frozen(kw_only=True)
class InstalledPackageResult(OnDevice):
    package_name: str = field("", pattern=PACKAGE_PATTERN)
    version_name: str | None = field("")
    version_code: int | None = field("")
    first_install_time: str | None = field("")
    last_update_time: str | None = field("")
    installer_package_name: str | None = field("")
    user_id: int | None = field("")
    pkg_flags: str | None = field("")
    requested_permissions_count: int | None = field("", minimum=0)
    coverage: Coverage = field("")


@attrs.frozen(kw_only=True)
class PullFileResult(OnDevice):
    device_path: str = field("", minLength=1)
    local_path: str = field("", minLength=1)
    bytes: int = field("", minimum=0)
    sha256: str = field("", pattern=_SHA)


@attrs.frozen(kw_only=True)
class PushFileResult(OnDevice):
    local_path: str = field("", minLength=1)
    device_path: str = field("", minLength=1)
    bytes: int = field("", minimum=0)
    sha256: str = field("", pattern=_SHA)
    device_sha256: str | None = field("", pattern=_SHA)
    overwritten: bool = field("")
    device_digest_source: Literal["device_sha256sum", "unavailable"] = field("")


@attrs.frozen(kw_only=True)
class ScreenResult(OnDevice):
    local_path: str = field("", minLength=1)
    bytes: int = field("", minimum=0)
    sha256: str = field("", pattern=_SHA)
    width: int | None = field("From the PNG's IHDR", minimum=1)
    height: int | None = field("", minimum=1)


@attrs.frozen(kw_only=True)
class Process:
    user: str = field("")
    pid: int = field("", minimum=0)
    ppid: int | None = field("")
    rss: int | None = field("")
    state: str | None = field("")
    name: str = field("")


@attrs.frozen(kw_only=True)
class ProcessesResult(Listed):
    columns: str | None = field("The header line ps printed")
    processes: tuple[Process, ...] = field("")


@attrs.frozen(kw_only=True)
class DirectoryEntry:
    name: str = field("", minLength=1)
    kind: Literal["directory", "file", "symlink", "other"] = field("")
    permissions: str | None = field("")
    owner: str | None = field("")
    group: str | None = field("")
    bytes: int | None = field("")
    date: str | None = field("")
    link_target: str | None = field("")


@attrs.frozen(kw_only=True)
class DirectoryResult(Listed):
    device_path: str = field("", minLength=1)
    entries: tuple[DirectoryEntry, ...] = field("")


@attrs.frozen(kw_only=True)
class Feature:
    name: str = field("", minLength=1)
    version: int | None = field("")


@attrs.frozen(kw_only=True)
class FeaturesResult(Listed):
    features: tuple[Feature, ...] = field("")


@attrs.frozen(kw_only=True)
class Service:
    name: str = field("", minLength=1)
    interface: str | None = field("")


@attrs.frozen(kw_only=True)
class ServicesResult(Listed):
    services: tuple[Service, ...] = field("")


@attrs.frozen(kw_only=True)
class Size:
    width: int = field("", minimum=1)
    height: int = field("", minimum=1)


@attrs.frozen(kw_only=True)
class DisplayResult(OnDevice):
    physical_size: Size = field("")
    override_size: Size | None = field("")
    physical_density: int | None = field("", minimum=1)
    override_density: int | None = field("", minimum=1)


@attrs.frozen(kw_only=True)
class WindowResult(OnDevice):
    focused_window: str | None = field("")
    focused_app: str | None = field("")
    observed_lines: tuple[str, ...] = field("")


@attrs.frozen(kw_only=True)
class SettingResult(OnDevice):
    namespace: Namespace = field("")
    key: str = field("", minLength=1)
    value: str | None = field("")
    device_reported_null: bool = field("")


@attrs.frozen(kw_only=True)
class BugreportResult(OnDevice):
    local_path: str = field("", minLength=1)
    bytes: int = field("", minimum=0)
    sha256: str = field("", pattern=_SHA)
    adb_reported_path: str | None = field("")


@attrs.frozen(kw_only=True)
class ResolveResult(OnDevice):
    query: str = field("", minLength=1)
    matches: tuple[PackageRow, ...] = field("")
    exact_match: bool = field("")
    coverage: Coverage = field("")


@attrs.frozen(kw_only=True)
class InstallResult(OnDevice):
    apk_path: str = field("", minLength=1)
    bytes: int = field("", minimum=0)
    sha256: str = field("", pattern=_SHA)
    replaced: bool = field("")


@attrs.frozen(kw_only=True)
class PackageVerdictResult(OnDevice):
    package_name: str = field("", pattern=PACKAGE_PATTERN)


@attrs.frozen(kw_only=True)
class StartAppResult(OnDevice):
    package_name: str = field("", pattern=PACKAGE_PATTERN)
    component: str = field("", minLength=1)
    started_activity: str | None = field("")


@attrs.frozen(kw_only=True)
class StartActivityResult(OnDevice):
    action: str = field("", minLength=1)
    data_uri: str | None = field("")
    component: str | None = field("")
    extras: tuple[Extra, ...] = field("")
    started_activity: str | None = field("")
