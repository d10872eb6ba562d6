"""inspect_managed_native_boundaries: ModuleRefs, P/Invoke declarations, non-IL methods, native headers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rea.managed import common as c
from rea.managed.facts import AssemblyFacts, Row
from rea.managed.names import Names, hex_token, token
from rea.managed.records import artifact as art
from rea.managed.records import boundaries as w
from rea.managed.signatures import decode

# PInvokeAttributes (ECMA-335 II.23.1.8): masked fields as tables
CHAR_SETS: Mapping[int, w.CharSet] = {0x0: "not-specified", 0x2: "ansi", 0x4: "unicode", 0x6: "auto"}
CALL_CONVENTIONS: Mapping[int, w.CallConvention] = {
    0x000: "not-specified", 0x100: "winapi", 0x200: "cdecl", 0x300: "stdcall", 0x400: "thiscall", 0x500: "fastcall",
}  # fmt: skip
BEST_FIT: Mapping[int, w.Tristate] = {0x00: "assembly-default", 0x10: "enabled", 0x20: "disabled"}
THROW_ON_UNMAPPABLE: Mapping[int, w.Tristate] = {0x0000: "assembly-default", 0x1000: "enabled", 0x2000: "disabled"}
CODE_TYPES: Mapping[int, Any] = {0: "il", 1: "native", 2: "optil", 3: "runtime"}
PINVOKE_IMPL, UNMANAGED, INTERNAL_CALL = 0x2000, 0x4, 0x1000


def _signature_text(blob: bytes | None, names: Names) -> str | None:
    s = decode(blob, names.type_text)
    if s.return_type is None:
        return None
    return f"{s.return_type} ({', '.join(s.parameter_types)})"


def pinvoke_imports(facts: AssemblyFacts, names: Names) -> tuple[w.PInvokeImport, ...]:
    out = []
    for row in facts.rows("ImplMap"):
        flags = c.number(row, "MappingFlags") & 0xFFFF
        member = c.number(row, "MemberForwarded")
        scope = c.number(row, "ImportScope")
        scope_row = names.modulerefs.get(scope)
        table = member >> 24
        target = names.methods.get(member & 0xFFFFFF) if table == 0x06 else None
        out.append(
            w.PInvokeImport(
                token=token("ImplMap", row.index),
                row_offset=row.offset,
                mapping_flags=flags,
                mapping_flags_hex=f"0x{flags:04x}",
                member_token=hex_token(member) if member else None,
                member_kind={0x06: "method", 0x04: "field"}.get(table, "unknown"),  # type: ignore[arg-type]
                member_name=names.member(member) if member else None,
                import_name=c.text(row, "ImportName"),
                import_scope_token=token("ModuleRef", scope) if scope else None,
                import_scope_name=c.text(scope_row, "Name") if scope_row else None,
                no_mangle=bool(flags & 0x1),
                char_set=CHAR_SETS[flags & 0x6],
                call_convention=CALL_CONVENTIONS.get(flags & 0x700, "unknown"),
                supports_last_error=bool(flags & 0x40),
                best_fit=BEST_FIT.get(flags & 0x30, "unknown"),
                throw_on_unmappable_char=THROW_ON_UNMAPPABLE.get(flags & 0x3000, "unknown"),
                verification="managed-declaration-only",
                signature=_signature_text(c.blob(target, "Signature"), names) if target else None,
            )  # fmt: skip
        )
    return tuple(out)


def _boundary(flags: int, impl: int) -> Any:
    if flags & PINVOKE_IMPL:
        return "pinvoke"
    if impl & 0x3 == 1:
        return "native-body"
    if impl & 0x3 == 3 or impl & INTERNAL_CALL:
        return "runtime-provided"
    if impl & UNMANAGED:
        return "unmanaged-method"
    return "mixed-or-unknown"


def _crosses(row: Row) -> bool:
    impl = c.number(row, "ImplFlags")
    return bool(c.number(row, "Flags") & PINVOKE_IMPL or impl & 0x3 or impl & (UNMANAGED | INTERNAL_CALL))


def native_implementations(facts: AssemblyFacts, names: Names) -> tuple[w.NativeImplementation, ...]:
    out = []
    for row in facts.rows("MethodDef"):
        if not _crosses(row):
            continue
        flags, impl, rva = c.number(row, "Flags") & 0xFFFF, c.number(row, "ImplFlags") & 0xFFFF, c.number(row, "Rva")
        code = CODE_TYPES[impl & 0x3]
        body: Any = "not-file-backed" if not rva else "managed-cil" if code == "il" else "native-or-runtime"
        out.append(
            w.NativeImplementation(
                token=token("MethodDef", row.index),
                row_offset=row.offset,
                name=names.method(row.index) or "",
                rva=rva,
                flags=flags,
                impl_flags=impl,
                code_type=code,
                managed_kind="unmanaged" if impl & UNMANAGED else "managed",
                pinvoke_declared=bool(flags & PINVOKE_IMPL),
                boundary_kind=_boundary(flags, impl),
                body_interpretation=body,
            )  # fmt: skip
        )
    return tuple(out)


def cli_native(facts: AssemblyFacts) -> w.CliNative | None:
    cli = facts.cli
    if cli is None:
        return None
    return w.CliNative(
        il_only=bool(cli.flags & 0x1), requires_32bit=bool(cli.flags & 0x2), strong_name_signed=bool(cli.flags & 0x8),
        native_entry_point=bool(cli.flags & 0x10), ready_to_run_signature=cli.ready_to_run_signature,
        managed_native_header_rva=cli.native_header_rva, managed_native_header_size=cli.native_header_size,
    )  # fmt: skip


def boundaries_result(facts: AssemblyFacts, architecture: str, args: art.BoundaryArgs) -> w.BoundariesResult:
    names = Names(facts)
    module = c.module_identity(facts)
    refs = tuple(
        w.ModuleReference(token=token("ModuleRef", r.index), row_offset=r.offset, name=c.text(r, "Name"))
        for r in facts.rows("ModuleRef")
    )
    imports, natives = pinvoke_imports(facts, names), native_implementations(facts, names)
    native = cli_native(facts)
    limitations = [
        c.NO_EXECUTION,
        "P/Invoke imports are managed declarations: whether each module exists and exports the entry point is "
        "not checked here (verify_managed_native_boundaries with native library Evidence does that).",
    ]
    pages = {"module_refs": ("module_ref", refs), "pinvoke_imports": ("import", imports),
             "native_implementations": ("implementation", natives)}  # fmt: skip
    for key, (prefix, items) in pages.items():
        limitations += c.paging_limitations(key, len(items), *c.window(args, prefix))
    return w.BoundariesResult(
        schema_version=1, artifact=c.artifact_ref(facts), module=module,
        metadata=art.MemberMetadata(status=c.metadata_status(facts), version=facts.metadata_version,
                                  table_row_counts=c.row_counts(facts)),
        identity_scope=c.identity_scope(facts, module), cli_native=native,
        summary=w.BoundarySummary(
            module_ref_count=len(refs), pinvoke_import_count=len(imports), native_implementation_count=len(natives),
            ready_to_run=native.ready_to_run_signature if native else None,
            mixed_mode_or_native_header=(not native.il_only or bool(native.managed_native_header_rva)) if native else None,
        ),
        native_exports=facts.pe.exports if facts.pe else (),
        coverage=c.coverage(facts), limitations=tuple(limitations),
        **{k: c.page(items, *c.window(args, p)) for k, (p, items) in pages.items()},  # type: ignore[arg-type]
    )  # fmt: skip
