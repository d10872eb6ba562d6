"""Wire records of inspect_managed_native_boundaries: module references, P/Invoke imports and native implementations."""

from __future__ import annotations

from typing import Literal

import attrs

from rea.managed.records.artifact import (
    TOKEN,
    ArtifactRef,
    Coverage,
    IdentityScope,
    MemberMetadata,
    ModuleIdentity,
    _count,
    _token,
    _u16,
    _u32,
)
from rea.wire.schema import field

# ------------------------------------------------------- boundaries result

CharSet = Literal["not-specified", "ansi", "unicode", "auto", "unknown"]
CallConvention = Literal["not-specified", "winapi", "cdecl", "stdcall", "thiscall", "fastcall", "unknown"]
Tristate = Literal["assembly-default", "enabled", "disabled", "unknown"]


@attrs.frozen(kw_only=True)
class CliNative:
    il_only: bool = field("COMIMAGE_FLAGS_ILONLY")
    requires_32bit: bool = field("COMIMAGE_FLAGS_32BITREQUIRED")
    strong_name_signed: bool = field("COMIMAGE_FLAGS_STRONGNAMESIGNED")
    native_entry_point: bool = field("COMIMAGE_FLAGS_NATIVE_ENTRYPOINT")
    ready_to_run_signature: bool = field("The managed native header carries the RTR signature")
    managed_native_header_rva: int = _u32()
    managed_native_header_size: int = _u32()


@attrs.frozen(kw_only=True)
class ModuleReference:
    token: str = _token()
    row_offset: int = _count("File offset of the row")
    name: str = field("Native module name as declared (e.g. kernel32.dll, libc.so.6)")


@attrs.frozen(kw_only=True)
class PInvokeImport:
    token: str = _token("ImplMap row")
    row_offset: int = _count("File offset of the row")
    mapping_flags: int = _u16("PInvokeAttributes")
    mapping_flags_hex: str = field("PInvokeAttributes as 0x hex", pattern="^0x[0-9a-f]{4}$")
    member_token: str | None = field("The MethodDef (or Field) forwarded", pattern=TOKEN)
    member_kind: Literal["method", "field", "unknown"] = field("What is forwarded")
    member_name: str | None = field("Its qualified name")
    import_name: str = field("Entry point name in the native module")
    import_scope_token: str | None = field("ModuleRef token", pattern=TOKEN)
    import_scope_name: str | None = field("ModuleRef name")
    no_mangle: bool = field("ExactSpelling")
    char_set: CharSet = field("String marshalling charset")
    call_convention: CallConvention = field("Unmanaged calling convention")
    supports_last_error: bool = field("SetLastError")
    best_fit: Tristate = field("BestFitMapping")
    throw_on_unmappable_char: Tristate = field("ThrowOnUnmappableChar")
    verification: Literal["managed-declaration-only"] = field("Declared in metadata; not checked against the module")
    signature: str | None = field("Our extra: the managed signature, ILAsm-style")


@attrs.frozen(kw_only=True)
class NativeImplementation:
    token: str = _token("MethodDef")
    row_offset: int = _count("File offset of the row")
    name: str = field("Qualified method name")
    rva: int = _u32("Body RVA")
    flags: int = _u16("MethodAttributes")
    impl_flags: int = _u16("MethodImplAttributes")
    code_type: Literal["il", "native", "optil", "runtime", "unknown"] = field("MethodImpl code type")
    managed_kind: Literal["managed", "unmanaged", "unknown"] = field("MethodImpl managed mask")
    pinvoke_declared: bool = field("PinvokeImpl is set")
    boundary_kind: Literal["pinvoke", "native-body", "runtime-provided", "unmanaged-method", "mixed-or-unknown"] = (
        field("Why it crosses the boundary")
    )
    body_interpretation: Literal["managed-cil", "native-or-runtime", "not-file-backed", "unknown"] = field(
        "What the RVA points to"
    )


@attrs.frozen(kw_only=True)
class BoundarySummary:
    module_ref_count: int = _count()
    pinvoke_import_count: int = _count()
    native_implementation_count: int = _count()
    ready_to_run: bool | None = field("ReadyToRun native code present")
    mixed_mode_or_native_header: bool | None = field("Not IL-only, or a managed native header")


@attrs.frozen(kw_only=True)
class BoundariesResult:
    schema_version: Literal[1] = field("Result schema version")
    artifact: ArtifactRef = field("The file read")
    module: ModuleIdentity | None = field("Module row")
    metadata: MemberMetadata = field("Metadata root")
    identity_scope: IdentityScope = field("What the tokens are bound to")
    cli_native: CliNative | None = field("CLI header native indicators")
    module_refs: tuple[ModuleReference, ...] = field("ModuleRefs")
    pinvoke_imports: tuple[PInvokeImport, ...] = field("ImplMap (DllImport) declarations")
    native_implementations: tuple[NativeImplementation, ...] = field("Methods without managed CIL")
    summary: BoundarySummary = field("Counts and indicators")
    native_exports: tuple[str, ...] = field("Our extra: names in the PE export directory (mixed-mode images)")
    coverage: Coverage = field("What was read")
    limitations: tuple[str, ...] = field("What this answer does not establish")
